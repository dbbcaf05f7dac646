#include "storage/embedded/engine.h"

#include <fmt/format.h>
#include <rocksdb/write_batch.h>

#include <algorithm>

#include "core/clock.h"
#include "core/text.h"
#include "storage/embedded/embedded_store.h"
#include "storage/embedded/format.h"
#include "storage/embedded/writer.h"
#include "store/append_validation.h"
#include "store/query.h"

namespace indelible::storage::embedded {

Status FromRocks(const rocksdb::Status& s, std::string_view what) {
  if (s.ok()) return Status::Ok();
  if (s.IsCorruption())
    return Status::Internal(
        fmt::format("{}: data corruption: {} (run `indelible check`)", what, s.ToString()));
  if (s.IsIOError() || s.IsBusy() || s.IsTimedOut() || s.IsTryAgain() || s.IsIncomplete())
    return Status::Unavailable(fmt::format("{}: {}", what, s.ToString()));
  return Status::Internal(fmt::format("{}: {}", what, s.ToString()));
}

void EmbeddedStore::SyncLoop() {
  MutexLock lock(&sync_mu_);
  while (!stopping_) {
    sync_cv_.WaitFor(&sync_mu_, options_.sync_interval);
    if (stopping_) break;
    lock.Unlock();
    // Never through a log writer an error spent (StopWriting).
    if (!sync_failed_.load()) {
      if (rocksdb::Status s = db_->SyncWAL(); !s.ok())
        StopWriting(FromRocks(s, "syncing the write-ahead log"));
    }
    lock.Lock();
  }
}

Result<CommitResult> EmbeddedStore::CommitValidated(std::vector<AppendRequest> appends,
                                                    const CommitOptions& options) {
  if (options_.follower)
    return Status::Invalid("store", "this store was opened as a read-only follower");
  Writer writer;
  writer.appends = &appends;
  writer.options = &options;
  for (const auto& append : appends)
    for (const auto& event : append.events) writer.bytes += store::EventBytes(event);
  Submit({&writer});
  return std::move(*writer.result);
}

std::vector<Result<CommitResult>> EmbeddedStore::CommitEachValidated(
    std::vector<CommitRequest> commits) {
  std::vector<Writer> writers(commits.size());
  std::vector<Writer*> queued;
  queued.reserve(commits.size());
  for (std::size_t i = 0; i < commits.size(); ++i) {
    Writer& writer = writers[i];
    writer.appends = &commits[i].appends;
    writer.options = &commits[i].options;
    if (options_.follower) {
      writer.result = Status::Invalid("store", "this store was opened as a read-only follower");
    } else {
      for (const auto& append : commits[i].appends)
        for (const auto& event : append.events) writer.bytes += store::EventBytes(event);
      queued.push_back(&writer);
    }
  }
  if (!queued.empty()) Submit(queued);
  std::vector<Result<CommitResult>> results;
  results.reserve(writers.size());
  for (Writer& writer : writers) results.push_back(std::move(*writer.result));
  return results;
}

void EmbeddedStore::CommitGroup(const std::vector<Writer*>& group) {
  const std::uint64_t cpu_start = ThreadCpuNanos();
  Group g;
  g.next_position = next_position_;
  g.now_ms = UnixMillisNow();
  g.track_events = std::any_of(group.begin(), group.end(), [](const Writer* w) {
    return w->options != nullptr && w->options->condition.has_value();
  });
  if (sync_failed_.load()) {
    for (Writer* w : group) w->result = StoppedWriting();
  } else {
    for (Writer* w : group) {
      if (w->checkpoint_key == nullptr) {
        DecideAndStage(*w, g);
        continue;
      }
      if (w->checkpoint_value != nullptr)
        g.batch.Put(families_[0], *w->checkpoint_key, *w->checkpoint_value);
      else
        g.batch.Delete(families_[0], *w->checkpoint_key);
      w->staged = true;
      w->result = CommitResult{};
    }
  }
  rocksdb::Status s;
  if (g.batch.Count() > 0) {
    // Durable mode syncs in SyncWritten (pipelined); interval mode in
    // SyncLoop.
    s = db_->Write(rocksdb::WriteOptions(), &g.batch);
    if (!s.ok()) {
      Status failed = FromRocks(s, "writing the commit");
      for (Writer* w : group)
        if (w->depends_on_write()) w->result = failed;
      StopWriting(failed);
    }
  }
  const bool wrote = g.batch.Count() > 0 && s.ok();
  // Handed over before the lead passes on (the next leader finds them) and
  // before Publish (which lets the indexer write them).
  if (wrote && indexer_) indexer_->Add(std::move(g.new_ids));
  if (wrote) {
    events_.fetch_add(g.next_position - next_position_, std::memory_order_relaxed);
    next_position_ = g.next_position;
    for (Writer* w : group)
      if (w->staged && w->checkpoint_key == nullptr)
        commits_.fetch_add(1, std::memory_order_relaxed);
    if (head_cache_.size() + g.heads.size() > kMaxCachedHeads) head_cache_.clear();
    for (auto& [stream, head] : g.heads) head_cache_[stream] = head;
  }
  DurableHeads::Heads heads;
  if (wrote && pipelined()) {
    heads.reserve(g.heads.size());
    for (const auto& [stream, head] : g.heads) heads.emplace_back(stream, head);
  }
  if (!pipelined()) {
    if (wrote) Publish(Position(next_position_ - 1));
    commit_cpu_ns_.fetch_add(ThreadCpuNanos() - cpu_start, std::memory_order_relaxed);
    return;
  }
  // Taken before the lead passes on, so it holds exactly the groups up to
  // this one.
  View view = wrote ? NewSnapshot() : nullptr;
  const auto async = static_cast<std::size_t>(
      std::count_if(group.begin(), group.end(), [](const Writer* w) { return w->async(); }));
  {
    MutexLock lock(&unsynced_mu_);
    unsynced_.through += group.size();
    unsynced_.writers.insert(unsynced_.writers.end(), group.begin(), group.end());
    unsynced_.async += async;
    if (wrote) {
      unsynced_.position = Position(next_position_ - 1);
      unsynced_.view = std::move(view);
      unsynced_.wrote = true;
      if (unsynced_.heads.empty())
        unsynced_.heads = std::move(heads);
      else
        std::move(heads.begin(), heads.end(), std::back_inserter(unsynced_.heads));
    }
  }
  commit_cpu_ns_.fetch_add(ThreadCpuNanos() - cpu_start, std::memory_order_relaxed);
  // Nobody waits for these writers: the sync stage syncs for them.
  if (async > 0) async_written_.NotifyAll();
  if (gathering_.load()) written_.NotifyAll();
}

StoreStats EmbeddedStore::stats() const {
  StoreStats stats;
  stats.commits = commits_.load(std::memory_order_relaxed);
  stats.events = events_.load(std::memory_order_relaxed);
  stats.syncs = syncs_.load(std::memory_order_relaxed);
  stats.commit_cpu_ns = commit_cpu_ns_.load(std::memory_order_relaxed);
  stats.sync_cpu_ns = sync_cpu_ns_.load(std::memory_order_relaxed);
  stats.index_cpu_ns = indexer_ ? indexer_->cpu_ns() : 0;
  return stats;
}

void EmbeddedStore::StopWriting(const Status& failure) {
  {
    MutexLock lock(&failure_mu_);
    if (failure_.empty()) failure_ = failure.message();
  }
  sync_failed_.store(true);
}

Status EmbeddedStore::WriteHealth() const {
  if (!sync_failed_.load()) return Status::Ok();
  MutexLock lock(&failure_mu_);
  return Status::Unavailable(fmt::format(
      "the store stopped writing after a failed write or sync of its log ({}); restart the "
      "process",
      failure_));
}

EmbeddedStore::View EmbeddedStore::NewSnapshot() const {
  rocksdb::DB* db = db_;
  return View(db->GetSnapshot(), [db](const rocksdb::Snapshot* s) { db->ReleaseSnapshot(s); });
}

EmbeddedStore::View EmbeddedStore::ReadView() const {
  if (!pipelined()) return nullptr;
  MutexLock lock(&view_mu_);
  return durable_view_;
}

EmbeddedStore::View EmbeddedStore::ConsistentView() const {
  if (pipelined()) return ReadView();
  return follower() ? nullptr : NewSnapshot();
}

void EmbeddedStore::Publish(Position last) {
  {
    MutexLock lock(&commit_mu_);
    last_position_.store(last.value());
  }
  committed_.SignalAll();
  if (indexer_) indexer_->Durable(last);
}

Result<std::optional<StreamHead>> EmbeddedStore::LoadHead(const std::string& stream, Group& group) {
  if (auto it = group.heads.find(stream); it != group.heads.end()) return std::optional(it->second);
  if (auto it = head_cache_.find(stream); it != head_cache_.end()) return std::optional(it->second);
  // The latest data, groups still syncing included: the leader decides on
  // top of them.
  auto head = ReadHead(rocksdb::ReadOptions(), stream);
  if (!head.ok() || !head->has_value()) return head;
  if (head_cache_.size() >= kMaxCachedHeads) head_cache_.clear();
  head_cache_[stream] = **head;
  return head;
}

Result<std::optional<EmbeddedStore::FoundAppend>> EmbeddedStore::AppendAtOrBefore(
    const rocksdb::ReadOptions& read, std::string_view stream, std::string_view key) const {
  const std::string lower = StreamKeyPrefix(stream);
  const rocksdb::Slice lower_slice(lower);
  rocksdb::ReadOptions bounded = read;
  bounded.iterate_lower_bound = &lower_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(bounded, appends()));
  it->SeekForPrev(ToSlice(key));
  if (!it->Valid()) {
    if (!it->status().ok()) return FromRocks(it->status(), "reading the stream index");
    return std::optional<FoundAppend>();
  }
  std::string_view name;
  std::int64_t first_version = 0;
  if (!DecodeStreamVersionKey(ToView(it->key()), &name, &first_version) || name != stream)
    return std::optional<FoundAppend>();
  auto entry = DecodeAppendEntry(ToView(it->key()), ToView(it->value()), false);
  if (!entry)
    return Status::Internal(fmt::format(
        "the stream index entry of '{}' at version {} is corrupt (run `indelible check`)",
        Printable(stream), first_version));
  return std::optional(FoundAppend{StreamVersion(first_version), *entry});
}

Result<std::optional<StreamHead>> EmbeddedStore::ReadHead(const rocksdb::ReadOptions& read,
                                                          std::string_view stream) const {
  auto last = AppendAtOrBefore(read, stream, StreamEndKey(stream));
  if (!last.ok()) return last.status();
  if (!last->has_value()) return std::optional<StreamHead>();
  return std::optional(HeadAfter((*last)->first_version, (*last)->entry));
}

// The retry check's lookups: the group's own ids, then those written and
// not yet indexed (the indexer), then `event_ids`, in that order: an id
// leaves the indexer only after its entry is in `event_ids` (id_indexer.h).
// New ids, the common case, cost a hash lookup and a MultiGet answered by
// bloom filters, without a memtable search.
Result<std::vector<std::optional<store::IdRecord>>> EmbeddedStore::LoadIds(
    const AppendRequest& append, const CommitOptions& options, Group& group) {
  std::vector<std::optional<store::IdRecord>> found(append.events.size());
  // Fresh random ids: no stored or staged event has one. Skipping the
  // lookups spares the commit path a MultiGet of every id (a bloom probe of
  // each memtable and SST level: about 1 us an event).
  if (options.ids_made_by_store) return found;
  std::vector<std::pair<std::size_t, Position>> known;
  std::vector<rocksdb::Slice> keys;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < append.events.size(); ++i) {
    const EventId& id = append.events[i].id;
    if (auto it = group.ids.find(id); it != group.ids.end()) {
      found[i] = it->second;
    } else if (auto position = indexer_->Find(id)) {
      known.emplace_back(i, *position);
    } else {
      keys.push_back(ToSlice(IdKey(id)));
      index.push_back(i);
    }
  }
  if (!keys.empty()) {
    // The batched MultiGet of one family: it probes each table's filter for
    // all the keys at once. (The vector form runs a whole Get per key.)
    std::vector<rocksdb::PinnableSlice> values(keys.size());
    std::vector<rocksdb::Status> statuses(keys.size());
    db_->MultiGet(rocksdb::ReadOptions(), event_ids(), keys.size(), keys.data(), values.data(),
                  statuses.data());
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (statuses[k].IsNotFound()) continue;
      if (!statuses[k].ok()) return FromRocks(statuses[k], "reading event ids");
      auto position = DecodeEventId(ToView(keys[k]), ToView(values[k]), true);
      if (!position)
        return Status::Internal("an event id record is corrupt (run `indelible check`)");
      known.emplace_back(index[k], *position);
    }
  }
  for (const auto& [i, position] : known) {
    auto record = ReadIdRecord(position);
    if (!record.ok()) return record.status();
    found[i] = std::move(*record);
  }
  return found;
}

// Rare path (a retry or a reused id): the event names its stream and
// version, and the append entry covering that version the append. Reads the
// latest data: the leader decides on top of groups still syncing.
Result<store::IdRecord> EmbeddedStore::ReadIdRecord(Position position) {
  std::string record;
  const std::string key = PositionKey(position);
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), log(), ToSlice(key), &record);
  if (!s.ok()) return FromRocks(s, "reading the event of a known id");
  EventView view;
  if (std::string why = DecodeEvent(key, record, true, &view); !why.empty())
    return Status::Internal(fmt::format("event at position {}: {}", position.value(), why));
  auto original = AppendAtOrBefore(rocksdb::ReadOptions(), view.stream,
                                   StreamVersionKey(view.stream, view.version.value()));
  if (!original.ok()) return original.status();
  if (!original->has_value())
    return Status::Internal(
        fmt::format("event at position {} has no stream index entry (run `indelible check`)",
                    position.value()));
  const FoundAppend& found_append = **original;
  return store::IdRecord{std::string(view.stream), position, found_append.entry.first_position,
                         found_append.first_version, found_append.entry.count};
}

void EmbeddedStore::DecideAndStage(Writer& writer, Group& group) {
  std::vector<AppendRequest>& appends = *writer.appends;
  CommitResult result;
  result.appends.resize(appends.size());
  std::vector<std::optional<StreamHead>> current(appends.size());
  std::size_t replays = 0;
  for (std::size_t i = 0; i < appends.size(); ++i) {
    auto ids = LoadIds(appends[i], *writer.options, group);
    if (!ids.ok()) return void(writer.result = ids.status());
    auto retry = store::ClassifyRetry(appends[i], *ids);
    if (!retry.ok()) return void(writer.result = retry.status());
    if (*retry) {
      ++replays;
      result.appends[i] = **retry;
      continue;
    }
    auto head = LoadHead(appends[i].stream, group);
    if (!head.ok()) return void(writer.result = head.status());
    if (Status s = store::CheckExpectation(
            appends[i], *head,
            writer.options->start_version.value_or(StreamVersion(0)).value() > 0);
        !s.ok())
      return void(writer.result = s);
    current[i] = *head;
  }
  if (replays == appends.size()) {
    result.position = result.appends.back().position;
    // last_position_ moves only once a sync covered it (pipelined mode), so
    // an original past it is in this group or in one whose sync is pending.
    for (const AppendResult& replayed : result.appends)
      if (replayed.position.value() > last_position_.load()) writer.replays_unsynced = true;
    return void(writer.result = std::move(result));
  }
  if (replays > 0) {
    std::size_t retried = 0;
    while (!result.appends[retried].replayed) ++retried;
    return void(writer.result = store::MixedRetryConflict(appends[retried]));
  }
  if (writer.options->condition) {
    auto broken = FirstConditionMatch(*writer.options->condition, group);
    if (!broken.ok()) return void(writer.result = broken.status());
    if (*broken) return void(writer.result = store::ConditionFailed(**broken));
  }

  for (std::size_t i = 0; i < appends.size(); ++i) {
    AppendRequest& append = appends[i];
    const Position first(group.next_position);
    const std::int64_t start = writer.options->start_version.value_or(StreamVersion(0)).value();
    const StreamHead next = store::Advance(current[i], append, first, start);
    // A stream started past 0 (an import) reads as one a scavenge cut:
    // its "scavenged/" record says where it starts.
    if (!current[i] && start > 0) {
      const std::string floor_key = ScavengedKey(append.stream);
      group.batch.Put(families_[0], floor_key, EncodeScavenged(floor_key, StreamVersion(start)));
    }
    // The state record covers the append's last event (the head, unchanged,
    // for a state-only append) and rides in the same batch: never one
    // without the other.
    auto stage_state = [&] {
      const std::string key = StateKey(append.stream);
      group.batch.Put(
          families_[0], key,
          EncodeState(key, StateRecord{std::move(append.state->data), append.state->schema,
                                       next.version, next.position}));
    };
    if (append.events.empty()) {
      stage_state();
      result.appends[i] = store::StateOnlyResult(append, next);
      continue;
    }
    const auto count = static_cast<std::int64_t>(append.events.size());
    const StreamVersion first_version(next.version.value() - count + 1);
    for (std::int64_t e = 0; e < count; ++e) {
      const EventData& event = append.events[static_cast<std::size_t>(e)];
      const Position position(first.value() + static_cast<std::uint64_t>(e));
      const StreamVersion version(first_version.value() + e);
      const std::int64_t timestamp = writer.options->keep_timestamps && event.timestamp_ms
                                         ? *event.timestamp_ms
                                         : group.now_ms;
      const std::string position_key = PositionKey(position);
      EncodeEvent(event, append.stream, version, position, timestamp, &group.record);
      group.batch.Put(log(), position_key, group.record);
      for (const std::string& tag : event.tags) {
        const std::string tag_key = TagKey(tag, position);
        group.batch.Put(tags(), tag_key, EncodeTagEntry(tag_key, event.type));
      }
      if (group.track_events) group.staged_events.push_back({position, &event});
      group.new_ids.emplace_back(event.id, position);
      // A later commit of the group may retry this one with the same ids;
      // ids the store just made no client has seen yet.
      if (!writer.options->ids_made_by_store)
        group.ids[event.id] = store::IdRecord{append.stream, position, first, first_version,
                                              static_cast<std::uint32_t>(count)};
    }
    // One index entry for the whole append, which is also the stream's head.
    const std::string append_key = StreamVersionKey(append.stream, first_version.value());
    group.batch.Put(this->appends(), append_key,
                    EncodeAppendEntry(append_key, {first, static_cast<std::uint32_t>(count),
                                                   next.first_version, next.deleted}));
    if (append.state) {
      stage_state();
    } else if (store::IsTombstoneAppend(append)) {
      group.batch.Delete(families_[0], StateKey(append.stream));
    }
    group.heads[append.stream] = next;
    group.next_position += static_cast<std::uint64_t>(count);
    result.appends[i] =
        AppendResult{append.stream, first_version, next.version, first, next.position, false};
  }
  result.position = Position(group.next_position - 1);
  writer.staged = true;
  writer.result = std::move(result);
}

Result<std::optional<StateRecord>> EmbeddedStore::ReadState(std::string_view stream) {
  if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok()) return valid;
  const std::string key = StateKey(stream);
  std::string value;
  const View view = ReadView();
  rocksdb::Status s = db_->Get(ReadAt(view), families_[0], ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<StateRecord>();
  if (!s.ok()) return FromRocks(s, "reading a state record");
  auto record = DecodeState(key, value);
  if (!record)
    return Status::Internal(
        fmt::format("the state record of stream '{}' fails its checksum (run `indelible check`)",
                    Printable(stream)));
  return std::optional<StateRecord>(std::move(*record));
}

// The id's position comes from the indexer (written, not yet indexed) or
// from `event_ids`, looked at in that order (id_indexer.h); the event is
// read from the view readers see, so an event whose sync is not done is not
// found yet. A follower has no indexer: it finds an id once the writer's
// indexer wrote its entry.
Result<std::optional<RecordedEvent>> EmbeddedStore::FindEvent(const EventId& id) {
  const View view = ReadView();
  std::optional<Position> position = indexer_ ? indexer_->Find(id) : std::nullopt;
  if (!position) {
    std::string value;
    // The latest entries: the indexer writes only what is durable.
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), event_ids(), ToSlice(IdKey(id)), &value);
    if (s.IsNotFound()) return std::optional<RecordedEvent>();
    if (!s.ok()) return FromRocks(s, "reading an event id");
    position = DecodeEventId(IdKey(id), value, true);
    if (!position) return Status::Internal("an event id record is corrupt (run `indelible check`)");
  }
  const std::string key = PositionKey(*position);
  std::string record;
  rocksdb::Status s = db_->Get(ReadAt(view), log(), ToSlice(key), &record);
  if (s.IsNotFound() && view) {
    // Written after the view: its sync is not done, or it was published
    // since the view was taken. Not visible yet, unlike a missing event.
    std::string latest;
    if (db_->Get(rocksdb::ReadOptions(), log(), ToSlice(key), &latest).ok())
      return std::optional<RecordedEvent>();
  }
  if (!s.ok())
    return s.IsNotFound() ? Status::Internal(fmt::format(
                                "the id record of event {} names position {}, which holds no "
                                "event (run `indelible check`)",
                                id.ToString(), position->value()))
                          : FromRocks(s, "reading the event of an id");
  EventView event;
  std::vector<std::string> tags;
  if (std::string why = DecodeEvent(key, record, true, &event, &tags); !why.empty())
    return Status::Internal(fmt::format("event at position {}: {}", position->value(), why));
  return std::optional<RecordedEvent>(event.ToOwned());
}

Result<StreamHead> EmbeddedStore::Head(std::string_view stream) {
  return HeadAt(ReadView(), stream);
}

Result<StreamHead> EmbeddedStore::HeadAt(const View& view, std::string_view stream) {
  // A name no append could have written is a caller's mistake, not a missing
  // stream; reserved ($) names are readable (they hold the store's own streams).
  if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok()) return valid;
  // Only a durable view has its heads published (durable_heads.h): other
  // modes write without a sync stage, and read the index.
  const bool cached = view && pipelined();
  const auto sequence = cached ? view->GetSequenceNumber() : 0;
  std::optional<StreamHead> head;
  if (cached) head = durable_heads_.Find(stream, sequence);
  if (!head) {
    auto read = ReadHead(ReadAt(view), stream);
    if (!read.ok()) return read.status();
    head = std::move(*read);
    if (head && cached) durable_heads_.Remember(stream, *head, sequence);
  }
  if (!head) return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
  const StreamHead& found = *head;
  return StreamHead{found.version, found.position, found.deleted, found.first_version};
}

Result<Position> EmbeddedStore::ReadLastPosition() {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), log()));
  it->SeekToLast();
  if (!it->status().ok()) return FromRocks(it->status(), "reading the last position");
  return it->Valid() ? DecodePositionKey(ToView(it->key())) : Position(0);
}

Position EmbeddedStore::WaitForCommit(Position after, std::chrono::milliseconds timeout) {
  if (options_.follower) {
    // A follower learns of commits only by catching up with the writer's
    // log, so it polls: every 100 ms at most, while it waits.
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (db_->TryCatchUpWithPrimary().ok()) {
        auto last = ReadLastPosition();
        if (last.ok() && last->value() > last_position_.load()) Publish(*last);
      }
      const auto now = std::chrono::steady_clock::now();
      if (last_position_.load() > after.value() || now >= deadline) break;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          deadline - now, std::chrono::milliseconds(100)));
    }
    return Position(last_position_.load());
  }
  MutexLock lock(&commit_mu_);
  committed_.WaitFor(&commit_mu_, timeout, [&] { return last_position_.load() > after.value(); });
  return Position(last_position_.load());
}

}  // namespace indelible::storage::embedded

namespace indelible::storage {

Result<std::unique_ptr<Store>> OpenEmbeddedStore(const std::string& path,
                                                 const StoreOptions& options) {
  return embedded::EmbeddedStore::Open(path, options);
}

Result<std::unique_ptr<Store>> OpenEmbeddedStoreOnEnv(const std::string& path,
                                                      const StoreOptions& options,
                                                      rocksdb::Env* env) {
  return embedded::EmbeddedStore::Open(path, options, env);
}

}  // namespace indelible::storage
