#include "store/retention_store.h"

#include <algorithm>

#include "core/clock.h"
#include "store/store_access.h"

namespace indelible::store {

namespace {

// What a listing of the `$$` streams asks for at once.
constexpr std::size_t kListPage = 1000;

bool WritesMetadata(const std::vector<AppendRequest>& appends) {
  return std::any_of(appends.begin(), appends.end(),
                     [](const AppendRequest& a) { return IsMetadataStream(a.stream); });
}

}  // namespace

RetentionStore::RetentionStore(std::unique_ptr<Store> inner, const StoreOptions& options)
    : ForwardingStore(std::move(inner)),
      shared_(!inner_->traits().local_reads || options.follower),
      refresh_ns_(
          std::chrono::duration_cast<std::chrono::steady_clock::duration>(options.metadata_refresh)
              .count()),
      refreshed_at_(std::chrono::steady_clock::now().time_since_epoch().count()) {}

Result<std::unique_ptr<Store>> RetentionStore::Wrap(std::unique_ptr<Store> inner,
                                                    const StoreOptions& options) {
  auto store = std::make_unique<RetentionStore>(std::move(inner), options);
  // A store shared by processes may not list yet (DynamoDB builds the
  // listing's index on a table made before it): it opens without the
  // settings and reads them at the first refresh that can list, within
  // metadata_refresh, as it takes in other processes' changes.
  if (Status s = store->Load(); !s.ok() && !store->shared_) return s;
  return std::unique_ptr<Store>(std::move(store));
}

Status RetentionStore::Load() {
  ListStreamsOptions list;
  list.prefix = std::string(kMetadataStreamPrefix);
  list.limit = kListPage;
  for (;;) {
    auto page = inner_->ListStreams(list);
    if (!page.ok()) {
      // A backend without a listing keeps no metadata streams either.
      if (page.status().code() == ErrorCode::kInvalid) return Status::Ok();
      return page.status();
    }
    for (const StreamInfo& info : page->streams) {
      const std::string described = info.stream.substr(kMetadataStreamPrefix.size());
      const std::int64_t version = info.version.value();
      {
        MutexLock lock(&mu_);
        auto known = versions_.find(described);
        if (known != versions_.end() && known->second >= version) continue;
      }
      if (info.deleted) {
        Apply(described, version, std::nullopt);
        continue;
      }
      auto stored = inner_->ReadStreamMetadata(described);
      if (!stored.ok()) return stored.status();
      Apply(described, stored->version ? stored->version->value() : version, stored->metadata);
    }
    if (!page->next) break;
    list.after = *page->next;
  }
  return Status::Ok();
}

void RetentionStore::Apply(const std::string& stream, std::int64_t version,
                           std::optional<StreamMetadata> metadata) {
  MutexLock lock(&mu_);
  auto [known, added] = versions_.try_emplace(stream, version);
  if (!added) {
    if (known->second >= version) return;  // an older write, applied after a newer one
    known->second = version;
  }
  const bool retains = metadata && metadata->has_retention();
  const bool had = rules_ && rules_->contains(stream);
  if (!retains && !had) return;
  // Copy on write: reads hold the map they started with.
  auto next = rules_ ? std::make_shared<RetentionMap>(*rules_) : std::make_shared<RetentionMap>();
  if (retains)
    (*next)[stream] = *metadata;
  else
    next->erase(stream);
  rules_ = next->empty() ? nullptr : std::shared_ptr<const RetentionMap>(std::move(next));
  has_rules_.store(rules_ != nullptr, std::memory_order_release);
}

void RetentionStore::Learn(const std::vector<AppendRequest>& appends, const CommitResult& result) {
  for (std::size_t i = 0; i < appends.size() && i < result.appends.size(); ++i) {
    const AppendRequest& append = appends[i];
    if (!IsMetadataStream(append.stream) || append.events.empty() || result.appends[i].replayed)
      continue;
    const std::string described = append.stream.substr(kMetadataStreamPrefix.size());
    const EventData& last = append.events.back();
    std::optional<StreamMetadata> metadata;
    if (last.type != kDeletedEventType) {
      auto parsed = StreamMetadataFromJson(last.data);
      if (parsed.ok()) metadata = std::move(*parsed);
    }
    Apply(described, result.appends[i].last_version.value(), std::move(metadata));
  }
}

std::shared_ptr<const RetentionMap> RetentionStore::Rules() {
  if (shared_) {
    const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    if (now - refreshed_at_.load(std::memory_order_relaxed) >= refresh_ns_) {
      MutexLock lock(&mu_);
      if (!loading_) {
        loading_ = true;
        refreshed_at_.store(now, std::memory_order_relaxed);
        lock.Unlock();
        // A failed refresh keeps the map it had; the next read after the
        // interval tries again.
        (void)Load();
        lock.Lock();
        loading_ = false;
      }
    }
  }
  // The common case, no stream with retention: no lock on the read path.
  if (!has_rules_.load(std::memory_order_acquire)) return nullptr;
  MutexLock lock(&mu_);
  return rules_;
}

Result<std::unique_ptr<StreamCursor>> RetentionStore::ReadStream(std::string_view stream,
                                                                 const ReadStreamOptions& options) {
  const auto rules = Rules();
  const auto rule = rules ? rules->find(stream) : RetentionMap::const_iterator();
  if (!rules || rule == rules->end()) return inner_->ReadStream(stream, options);
  auto cut = CutFor(*inner_, stream, rule->second, UnixMillisNow());
  if (!cut.ok()) return cut.status();
  ReadStreamOptions read = options;
  if (read.direction == Direction::kForward) {
    read.from = StreamVersion(
        std::max<std::int64_t>(read.from ? read.from->value() : 0, cut->first_version));
  } else if (cut->last_version) {
    read.from = StreamVersion(
        std::min<std::int64_t>(read.from ? read.from->value() : INT64_MAX, *cut->last_version));
  }
  // Hidden events come first in a stream's order (oldest versions), except
  // by age when clocks stepped back: only then may they sit among those
  // returned, so only then does the filter count the limit itself.
  if (rule->second.max_age) read.limit = SIZE_MAX;
  auto cursor = inner_->ReadStream(stream, read);
  if (!cursor.ok()) return cursor;
  return RetainedStream(std::move(*cursor), *cut, options.limit);
}

Result<std::unique_ptr<AllCursor>> RetentionStore::ReadAll(const ReadAllOptions& options) {
  auto rules = Rules();
  if (!rules) return inner_->ReadAll(options);
  ReadAllOptions read = options;
  read.limit = SIZE_MAX;
  auto cursor = inner_->ReadAll(read);
  if (!cursor.ok()) return cursor;
  return RetainedAll(std::move(*cursor), std::move(rules), *inner_, UnixMillisNow(), options.limit);
}

Result<std::unique_ptr<AllCursor>> RetentionStore::ReadQuery(const Query& query,
                                                             const ReadQueryOptions& options) {
  auto rules = Rules();
  if (!rules) return inner_->ReadQuery(query, options);
  ReadQueryOptions read = options;
  read.limit = SIZE_MAX;
  auto cursor = inner_->ReadQuery(query, read);
  if (!cursor.ok()) return cursor;
  return RetainedAll(std::move(*cursor), std::move(rules), *inner_, UnixMillisNow(), options.limit);
}

Result<std::optional<RecordedEvent>> RetentionStore::FindEvent(const EventId& id) {
  auto found = inner_->FindEvent(id);
  if (!found.ok() || !*found) return found;
  const auto rules = Rules();
  if (!rules) return found;
  const auto rule = rules->find((*found)->stream);
  if (rule == rules->end()) return found;
  auto cut = CutFor(*inner_, (*found)->stream, rule->second, UnixMillisNow());
  if (!cut.ok()) return cut.status();
  if (cut->Hides((*found)->view())) return std::optional<RecordedEvent>();
  return found;
}

Result<StreamHead> RetentionStore::Head(std::string_view stream) {
  auto head = inner_->Head(stream);
  if (!head.ok()) return head;
  const auto rules = Rules();
  if (!rules || !rules->contains(stream)) return head;
  // The first event a read returns (maxAge needs it read: its cut is a
  // time); none: a read from anywhere returns nothing, so reads start past
  // the head.
  ReadStreamOptions first;
  first.limit = 1;
  first.include_deleted = true;
  auto cursor = ReadStream(stream, first);
  if (!cursor.ok()) return cursor.status();
  const std::int64_t starts =
      (*cursor)->Valid() ? (*cursor)->event().version.value() : head->version.value() + 1;
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  head->first_version = StreamVersion(std::max(head->first_version.value(), starts));
  return head;
}

Result<Store::StateAndEvents> RetentionStore::ReadStateAndEvents(std::string_view stream) {
  auto loaded = inner_->ReadStateAndEvents(stream);
  if (!loaded.ok() || !loaded->events) return loaded;
  const auto rules = Rules();
  const auto rule = rules ? rules->find(stream) : RetentionMap::const_iterator();
  if (!rules || rule == rules->end()) return loaded;
  auto cut = CutFor(*inner_, stream, rule->second, UnixMillisNow());
  if (!cut.ok()) return cut.status();
  loaded->events = RetainedStream(std::move(loaded->events), *cut, SIZE_MAX);
  return loaded;
}

Result<CommitResult> RetentionStore::CommitValidated(std::vector<AppendRequest> appends,
                                                     const CommitOptions& options) {
  if (!WritesMetadata(appends))
    return StoreAccess::CommitValidated(*inner_, std::move(appends), options);
  auto result = StoreAccess::CommitValidated(*inner_, appends, options);
  if (result.ok()) Learn(appends, *result);
  return result;
}

std::vector<Result<CommitResult>> RetentionStore::CommitEachValidated(
    std::vector<CommitRequest> commits) {
  const bool any = std::any_of(commits.begin(), commits.end(),
                               [](const CommitRequest& c) { return WritesMetadata(c.appends); });
  if (!any) return StoreAccess::CommitEachValidated(*inner_, std::move(commits));
  std::vector<std::vector<AppendRequest>> sent;
  sent.reserve(commits.size());
  for (const CommitRequest& c : commits) sent.push_back(c.appends);
  auto results = StoreAccess::CommitEachValidated(*inner_, std::move(commits));
  for (std::size_t i = 0; i < results.size() && i < sent.size(); ++i)
    if (results[i].ok()) Learn(sent[i], *results[i]);
  return results;
}

void RetentionStore::CommitAsyncValidated(CommitRequest commit, CommitCallback done) {
  if (!WritesMetadata(commit.appends))
    return StoreAccess::CommitAsyncValidated(*inner_, std::move(commit), std::move(done));
  auto sent = std::make_shared<std::vector<AppendRequest>>(commit.appends);
  StoreAccess::CommitAsyncValidated(
      *inner_, std::move(commit),
      [this, sent, done = std::move(done)](Result<CommitResult> result) {
        if (result.ok()) Learn(*sent, *result);
        done(std::move(result));
      });
}

namespace {

// The first version of `stream` that a scavenge keeps under `metadata`: the
// read-time cut, moved past the events too old for max_age (read in
// version order: an event a clock step made older than one after it waits
// for that one), and never past the stream's last event. nullopt when
// nothing goes.
Result<std::optional<std::int64_t>> KeepFrom(Store& inner, std::string_view stream,
                                             const StreamMetadata& metadata, std::int64_t now_ms) {
  auto head = inner.Head(stream);
  if (!head.ok()) {
    if (head.status().code() == ErrorCode::kNotFound) return std::optional<std::int64_t>();
    return head.status();
  }
  const std::int64_t last = head->version.value();
  RetentionCut cut = CutOf(metadata, last, now_ms);
  std::int64_t keep = cut.first_version;
  if (metadata.max_age && keep < last) {
    ReadStreamOptions read;
    read.from = StreamVersion(keep);
    read.include_deleted = true;
    read.raw = true;
    auto cursor = inner.ReadStream(stream, read);
    if (!cursor.ok()) return cursor.status();
    for (; (*cursor)->Valid(); (*cursor)->Next()) {
      const EventView& event = (*cursor)->event();
      if (event.timestamp_ms >= cut.oldest_ms) break;  // the first event young enough
      keep = event.version.value() + 1;
    }
    if (Status s = (*cursor)->status(); !s.ok()) return s;
  }
  keep = std::min(keep, last);
  if (keep <= 0) return std::optional<std::int64_t>();
  return std::optional<std::int64_t>(keep);
}

}  // namespace

Result<ScavengeReport> RetentionStore::Scavenge(const ProgressFn& progress) {
  const auto rules = Rules();
  std::vector<ScavengeCut> cuts;
  if (rules) {
    const std::int64_t now_ms = UnixMillisNow();
    for (const auto& [stream, metadata] : *rules) {
      auto keep = KeepFrom(*inner_, stream, metadata, now_ms);
      if (!keep.ok()) return keep.status();
      if (*keep) cuts.push_back(ScavengeCut{stream, StreamVersion(**keep)});
    }
  }
  return StoreAccess::RemoveEvents(*inner_, cuts, progress);
}

}  // namespace indelible::store
