#include "storage/dynamodb/indexer.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "core/clock.h"
#include "core/text.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/change_stream.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

using Clock = std::chrono::steady_clock;

// The shard listing is asked for again after this long, or at once when a
// shard closes (its children appear then).
constexpr auto kShardListAge = std::chrono::seconds(10);
// GetRecords' most records per call (the API's own maximum).
constexpr std::int64_t kRecordsPerCall = 1000;

// The events a change record of the events table adds to $all, in version
// order: those of a tip update that moved the head (an append); none for
// event items (moves), state-only writes and moves out of the tip.
struct Appended {
  std::string stream;
  std::optional<std::int64_t> old_head;  // nullopt: a new stream
  std::int64_t new_head = 0;
  std::vector<RecordedEvent> events;
};

Result<std::optional<Appended>> AppendedBy(const json::object& record) {
  const json::object* change = ObjectAt(record, "dynamodb");
  if (change == nullptr) return Status::Internal("a change record without `dynamodb`");
  const json::object* keys = ObjectAt(*change, "Keys");
  const json::object* image = ObjectAt(*change, "NewImage");
  if (keys == nullptr) return Status::Internal("a change record without Keys");
  const json::object* version = ObjectAt(*keys, kVersionKey);
  if (version == nullptr || StringAt(*version, "N") != std::to_string(kTipVersion) ||
      image == nullptr)
    return std::optional<Appended>();  // an event item, or a removal: nothing new
  const json::object* stream_key = ObjectAt(*keys, kStreamKey);
  if (stream_key == nullptr) return Status::Internal("a change record without a stream key");
  Appended out;
  out.stream = StringAt(*stream_key, "S");
  auto after = ParseTip(out.stream, *image);
  if (!after.ok()) return after.status();
  out.new_head = after->head.version.value();
  std::int64_t from = 0;
  if (const json::object* old_image = ObjectAt(*change, "OldImage")) {
    auto before = ParseTip(out.stream, *old_image);
    if (!before.ok()) return before.status();
    out.old_head = before->head.version.value();
    from = *out.old_head + 1;
  }
  if (out.new_head < from) return std::optional<Appended>();  // head unchanged
  for (auto& append : after->appends)
    for (auto& event : append.events)
      if (event.version.value() >= from) out.events.push_back(std::move(event));
  // The append's own attribute is in the new image: it was written by this
  // very update. Anything else is damage, not a race.
  if (static_cast<std::int64_t>(out.events.size()) != out.new_head - from + 1)
    return Status::Internal(
        fmt::format("the change record of stream '{}' (head {} -> {}) holds {} of its events",
                    Printable(out.stream), from - 1, out.new_head, out.events.size()));
  return std::optional<Appended>(std::move(out));
}

}  // namespace

Indexer::Indexer(aws::Client& streams, AllIndex& index, IndexerOptions options)
    : streams_(streams), index_(index), options_(std::move(options)) {}

Indexer::~Indexer() { Stop(); }

void Indexer::SetStatus(Status status) {
  MutexLock lock(&mu_);
  status_ = std::move(status);
}

Status Indexer::status() const {
  MutexLock lock(&mu_);
  return status_;
}

IndexerStats Indexer::stats() const {
  return IndexerStats{events_.load(), writes_.load(), lag_ms_.load(), owner_.load(),
                      races_lost_.load()};
}

void Indexer::Publish(const IndexerState& state) {
  const auto last = state.last_position().value();
  if (last_position_.load() == last) return;
  {
    MutexLock lock(&mu_);
    last_position_.store(last);
  }
  changed_.SignalAll();
}

Position Indexer::WaitFor(Position after, std::chrono::milliseconds timeout) {
  MutexLock lock(&mu_);
  changed_.WaitFor(&mu_, timeout,
                   [&]() REQUIRES(mu_) { return last_position_.load() > after.value() || stop_; });
  return Position(last_position_.load());
}

void Indexer::Nudge() {
  {
    MutexLock lock(&mu_);
    nudged_ = true;
  }
  changed_.SignalAll();
}

Status Indexer::LoadState() {
  iterators_.clear();
  indexed_heads_.clear();
  auto loaded = index_.LoadState();
  if (!loaded.ok()) {
    state_.reset();
    return loaded.status();
  }
  state_ = std::move(*loaded);
  Publish(*state_);
  return Status::Ok();
}

Status Indexer::ListShards() {
  auto shards = dynamodb::ListShards(streams_, options_.stream_arn);
  if (!shards.ok()) return shards.status();
  shards_ = std::move(*shards);
  shards_listed_ = Clock::now();
  return Status::Ok();
}

Status Indexer::Flush(IndexerState& work, std::vector<RecordedEvent>& chunk) {
  IndexerState before = *state_;
  work.rev = before.rev + 1;
  work.owner = options_.owner;
  work.lease_until = UnixMillisNow() + options_.lease.count();
  Status written = index_.Write(before, work, chunk);
  if (!written.ok()) {
    // Another indexer wrote (conflict), or the outcome is unknown: what this
    // pass read is dropped and the next pass starts from the stored state.
    lost_race_ = written.code() == ErrorCode::kConflict;
    state_.reset();
    return written;
  }
  writes_.fetch_add(1);
  events_.fetch_add(chunk.size());
  if (!chunk.empty()) lag_ms_.store(UnixMillisNow() - chunk.back().timestamp_ms);
  chunk.clear();
  state_ = work;
  owner_.store(true);
  Publish(work);
  return Status::Ok();
}

Result<std::size_t> Indexer::LostRace(std::size_t indexed) {
  // The state's rev moved under this pass: another indexer took the lease
  // (they found it free together, or this one's ran out). Its write is the
  // index now; this one follows it from the stored state, as any indexer
  // that finds the lease held does. Not a failure: nothing is retried or
  // reported. (A write of our own applied before its answer was lost meets
  // the same conflict; the reload then finds our lease and carries on.)
  lost_race_ = false;
  races_lost_.fetch_add(1);
  owner_.store(false);
  if (Status s = LoadState(); !s.ok()) return s;
  SetStatus(Status::Ok());
  return indexed;
}

Result<std::size_t> Indexer::ReadShard(const ShardInfo& shard, IndexerState& work) {
  ShardProgress& progress = work.shards[shard.id];
  std::string iterator;
  if (auto it = iterators_.find(shard.id); it != iterators_.end()) iterator = it->second;
  const bool fresh = iterator.empty();
  if (fresh) {
    json::object request{{"StreamArn", options_.stream_arn}, {"ShardId", shard.id}};
    if (progress.sequence.empty()) {
      request["ShardIteratorType"] = "TRIM_HORIZON";
    } else {
      request["ShardIteratorType"] = "AFTER_SEQUENCE_NUMBER";
      request["SequenceNumber"] = progress.sequence;
    }
    aws::Reply reply = streams_.Call("GetShardIterator", request);
    if (!reply.ok()) return reply.status;
    iterator = StringAt(reply.body, "ShardIterator");
  }
  aws::Reply reply =
      streams_.Call("GetRecords", {{"ShardIterator", iterator}, {"Limit", kRecordsPerCall}});
  iterators_.erase(shard.id);
  if (reply.error_type == "ExpiredIteratorException") return std::size_t{0};  // a new one next
  // DynamoDB Local answers TrimmedDataAccessException for an iterator taken
  // on a shard that had no record yet (aws/aws-sdk-java#2923): only one
  // taken fresh after a stored place means the records are gone.
  if (reply.error_type == "TrimmedDataAccessException" && (!fresh || progress.sequence.empty()))
    return std::size_t{0};
  if (reply.error_type == "TrimmedDataAccessException")
    return Status::Internal(fmt::format(
        "the change stream no longer holds records the $all index needs (shard {} after {}): "
        "the indexer was stopped longer than the stream keeps them (24 h); rebuild the index",
        shard.id, progress.sequence));
  if (!reply.ok()) return reply.status;
  const auto* records = reply.body.if_contains("Records");
  if (records == nullptr || !records->is_array())
    return Status::Internal("GetRecords answered without Records");

  std::vector<RecordedEvent> chunk;
  std::size_t chunk_bytes = 0;
  std::size_t indexed = 0;
  const bool moved_before = !records->get_array().empty();
  for (const auto& value : records->get_array()) {
    if (!value.is_object()) return Status::Internal("GetRecords answered a non-object record");
    const json::object* change = ObjectAt(value.get_object(), "dynamodb");
    const std::string sequence = change ? StringAt(*change, "SequenceNumber") : "";
    if (sequence.empty()) return Status::Internal("a change record without a SequenceNumber");
    auto appended = AppendedBy(value.get_object());
    if (!appended.ok()) return appended.status();
    if (*appended) {
      Appended& a = **appended;
      if (auto known = indexed_heads_.find(a.stream); known != indexed_heads_.end() &&
                                                      progress.part == 0 &&
                                                      a.old_head.value_or(-1) != known->second)
        return Status::Internal(fmt::format(
            "gap in stream '{}': a change moves its head from {} but {} was indexed last",
            Printable(a.stream), a.old_head.value_or(-1), known->second));
      for (auto i = static_cast<std::size_t>(progress.part); i < a.events.size(); ++i) {
        RecordedEvent& event = a.events[i];
        event.position = Position(static_cast<std::uint64_t>(work.next++));
        chunk_bytes += event.data.size() + event.metadata.size() + 256;
        chunk.push_back(std::move(event));
        progress.part = static_cast<std::int64_t>(i + 1);
        ++indexed;
        if (chunk.size() == AllIndex::kMaxChunkEvents || chunk_bytes >= AllIndex::kMaxChunkBytes) {
          if (Status s = Flush(work, chunk); !s.ok()) return s;
          chunk_bytes = 0;
        }
      }
      indexed_heads_[a.stream] = a.new_head;
    }
    progress.sequence = sequence;
    progress.part = 0;
  }
  const auto* next = reply.body.if_contains("NextShardIterator");
  const bool closed = next == nullptr || !next->is_string() || next->get_string().empty();
  if (closed) {
    progress.done = true;
    shards_listed_ = {};  // its children are readable now
  }
  if (!chunk.empty() || moved_before || closed) {
    if (Status s = Flush(work, chunk); !s.ok()) return s;
  }
  // Not an iterator of a shard still empty to us: DynamoDB Local's would
  // fail (above) once the first record comes.
  if (!closed && !progress.sequence.empty()) iterators_[shard.id] = std::string(next->get_string());
  return indexed;
}

Result<std::size_t> Indexer::Pass() {
  if (stopped_for_good_) return status();
  if (!state_)
    if (Status s = LoadState(); !s.ok()) return s;
  const std::int64_t now = UnixMillisNow();
  if (options_.follow_only || (state_->owner != options_.owner && state_->lease_until > now)) {
    // Another indexer holds the lease: follow its progress.
    owner_.store(false);
    if (Status s = LoadState(); !s.ok()) return s;
    return std::size_t{0};
  }
  if (state_->rebuilding) {
    // A rebuild stopped half-way (its lease ran out): the index may lack
    // events, and the change stream's place is the rebuild's to set.
    state_.reset();
    return Status::Unavailable(
        "a rebuild of the $all index did not finish: run `indelible rebuild-index` again; "
        "indexing waits until one completes");
  }
  if (!state_->stream_arn.empty() && state_->stream_arn != options_.stream_arn) {
    stopped_for_good_ = true;
    Status s = Status::Internal(fmt::format(
        "the events table's change stream was replaced (the $all index read {}, the table now "
        "has {}): events written in between are not in $all; rebuild the index",
        state_->stream_arn, options_.stream_arn));
    SetStatus(s);
    return s;
  }
  if (Clock::now() - shards_listed_ > kShardListAge)
    if (Status s = ListShards(); !s.ok()) return s;

  IndexerState work = *state_;
  work.stream_arn = options_.stream_arn;
  std::size_t indexed = 0;
  for (const ShardInfo& shard : shards_) {
    if (work.shards[shard.id].done) continue;
    const bool parent_listed = std::any_of(
        shards_.begin(), shards_.end(), [&](const ShardInfo& s) { return s.id == shard.parent; });
    if (!shard.parent.empty() && parent_listed && !work.shards[shard.parent].done) continue;
    lost_race_ = false;
    auto read = ReadShard(shard, work);
    if (!read.ok() && lost_race_) return LostRace(indexed);
    if (!read.ok()) {
      if (read.status().code() == ErrorCode::kInternal) {
        stopped_for_good_ = true;
        SetStatus(read.status());
      }
      state_.reset();  // start again from what is stored
      iterators_.clear();
      return read.status();
    }
    indexed += *read;
  }
  // Keep the lease while idle: renew it when half of it has passed.
  if (indexed == 0 && state_ && state_->lease_until - now < options_.lease.count() / 2) {
    std::vector<RecordedEvent> none;
    work = *state_;
    work.stream_arn = options_.stream_arn;
    // Forget shards that are read and gone from the listing.
    for (auto it = work.shards.begin(); it != work.shards.end();) {
      const bool listed = std::any_of(shards_.begin(), shards_.end(),
                                      [&](const ShardInfo& s) { return s.id == it->first; });
      it = it->second.done && !listed ? work.shards.erase(it) : std::next(it);
    }
    lost_race_ = false;
    if (Status s = Flush(work, none); !s.ok()) return lost_race_ ? LostRace(indexed) : s;
  }
  SetStatus(Status::Ok());
  return indexed;
}

void Indexer::Loop() {
  int failures = 0;
  for (;;) {
    auto indexed = Pass();
    if (!indexed.ok()) {
      // Said once per kind of failure, not once per retry.
      if (indexed.status().ToString() != status().ToString() || stopped_for_good_)
        fmt::print(stderr, "indelible: the $all indexer {}: {}\n",
                   stopped_for_good_ ? "stopped" : "failed (retrying)",
                   indexed.status().ToString());
      if (stopped_for_good_) return;
      SetStatus(indexed.status());
      ++failures;
    } else {
      failures = 0;
    }
    auto wait = options_.poll_interval;
    if (failures > 0)
      wait = std::min(std::chrono::milliseconds(5000), wait * (1 << std::min(failures, 6)));
    if (indexed.ok() && *indexed > 0) wait = std::chrono::milliseconds(0);
    MutexLock lock(&mu_);
    changed_.WaitFor(&mu_, wait, [&]() REQUIRES(mu_) { return stop_ || nudged_; });
    nudged_ = false;
    if (stop_) return;
  }
}

void Indexer::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Loop(); });
}

void Indexer::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  changed_.SignalAll();
  if (!thread_.joinable()) return;
  thread_.join();
  // Hand the lease back, so that another store's indexer takes over at once
  // rather than once it runs out: a short-lived process (a CLI verb) would
  // otherwise stall $all for a lease after it exits.
  if (state_ && state_->owner == options_.owner && state_->lease_until > 0) {
    IndexerState released = *state_;
    released.rev = state_->rev + 1;
    released.lease_until = 0;
    (void)index_.Write(*state_, released, {});
    state_.reset();
    owner_.store(false);
  }
}

}  // namespace indelible::dynamodb
