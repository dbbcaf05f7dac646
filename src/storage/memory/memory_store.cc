#include "storage/memory/memory_store.h"

#include <fmt/format.h>

#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "core/clock.h"
#include "core/mutex.h"
#include "core/text.h"
#include "store/decide.h"
#include "store/query.h"
#include "store/records.h"

namespace indelible::storage {
namespace {

// Operation: one mutex guards everything; commits are serialised, reads copy
// pointers under it. Events live in a deque, whose elements never move, so a
// cursor's view stays valid while later commits push more.
class MemoryStore final : public Store {
 public:
  explicit MemoryStore(const StoreOptions& options) : Store(options.limits), options_(options) {}

  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override {
    if (options.start_version && options.start_version->value() > 0)
      return Status::Invalid("startVersion",
                             "the memory store cannot start a stream past version 0 (it cannot "
                             "remove events either); import into a file: or DynamoDB store");
    MutexLock lock(&mu_);
    CommitResult result;
    std::size_t replays = 0;
    std::vector<std::optional<StreamHead>> heads;
    for (const AppendRequest& append : appends) {
      std::vector<std::optional<store::IdRecord>> ids;
      for (const EventData& e : append.events) {
        auto it = ids_.find(e.id);
        ids.push_back(it == ids_.end() ? std::nullopt : std::optional<store::IdRecord>(it->second));
      }
      auto retry = store::ClassifyRetry(append, ids);
      if (!retry.ok()) return retry.status();
      if (*retry) {
        ++replays;
        result.appends.push_back(**retry);
        heads.emplace_back();
        continue;
      }
      auto it = streams_.find(append.stream);
      std::optional<StreamHead> head;
      if (it != streams_.end()) head = it->second.head;
      if (Status s = store::CheckExpectation(append, head); !s.ok()) return s;
      heads.push_back(head);
      result.appends.emplace_back();
    }
    if (replays == appends.size()) {
      result.position = result.appends.back().position;
      return result;
    }
    if (replays > 0) {
      std::size_t retried = 0;
      while (!result.appends[retried].replayed) ++retried;
      return store::MixedRetryConflict(appends[retried]);
    }
    // The twin scans for a condition's match; the engines read their tag index.
    if (options.condition) {
      const Query& query = options.condition->fail_if_events_match;
      for (std::size_t p = options.condition->after.value_or(Position(0)).value(); p < log_.size();
           ++p)
        if (query.Matches(log_[p].type, log_[p].tags))
          return store::ConditionFailed(log_[p].position);
    }

    const std::int64_t now = UnixMillisNow();
    for (std::size_t a = 0; a < appends.size(); ++a) {
      AppendRequest& append = appends[a];
      const bool tombstone =
          store::IsTombstoneAppend(append);  // before the events move into the log
      const Position first(log_.size() + 1);
      StreamHead next = store::Advance(heads[a], append, first);
      if (append.events.empty()) {  // state-only: the record covers the current head
        states_[append.stream] = StateRecord{std::move(append.state->data), append.state->schema,
                                             next.version, next.position};
        result.appends[a] = store::StateOnlyResult(append, next);
        continue;
      }
      auto [slot, created] = streams_.try_emplace(append.stream);
      if (created) names_.insert(append.stream);
      StreamState& stream = slot->second;
      const StreamVersion first_version(next.version.value() + 1 -
                                        static_cast<std::int64_t>(append.events.size()));
      for (std::size_t e = 0; e < append.events.size(); ++e) {
        EventData& data = append.events[e];
        const Position position(first.value() + e);
        const StreamVersion version(first_version.value() + static_cast<std::int64_t>(e));
        ids_[data.id] = store::IdRecord{append.stream, position, first, first_version,
                                        static_cast<std::uint32_t>(append.events.size())};
        log_.push_back(RecordedEvent{
            data.id, append.stream, version, position, std::move(data.type), std::move(data.schema),
            std::move(data.content_type), std::move(data.data), std::move(data.metadata),
            options.keep_timestamps && data.timestamp_ms ? *data.timestamp_ms : now,
            std::move(data.tags)});
        stream.positions.push_back(position);
      }
      stream.head = next;
      if (append.state)
        states_[append.stream] = StateRecord{std::move(append.state->data), append.state->schema,
                                             next.version, next.position};
      else if (tombstone)
        states_.erase(append.stream);
      result.appends[a] =
          AppendResult{append.stream, first_version, next.version, first, next.position, false};
    }
    result.position = Position(log_.size());
    ++commits_;
    lock.Unlock();
    committed_.SignalAll();
    return result;
  }

  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override {
    MutexLock lock(&mu_);
    auto it = ids_.find(id);
    if (it == ids_.end()) return std::optional<RecordedEvent>();
    return std::optional<RecordedEvent>(log_[it->second.position.value() - 1]);
  }

  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override {
    if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok())
      return valid;
    MutexLock lock(&mu_);
    auto it = states_.find(std::string(stream));
    if (it == states_.end()) return std::optional<StateRecord>();
    return std::optional<StateRecord>(it->second);
  }

  Result<StreamHead> Head(std::string_view stream) override {
    // As the embedded engine: a malformed name is invalid, a reserved one readable.
    if (Status valid = ValidateStreamName(stream, /*allow_reserved=*/true); !valid.ok())
      return valid;
    MutexLock lock(&mu_);
    auto it = streams_.find(std::string(stream));
    if (it == streams_.end())
      return Status::NotFound(fmt::format("stream '{}' does not exist", Printable(stream)));
    const StreamHead& h = it->second.head;
    return StreamHead{h.version, h.position, h.deleted, h.first_version};
  }

  Result<std::vector<StreamInfo>> ListStreamRange(std::string_view prefix, std::string_view after,
                                                  std::size_t limit) override {
    MutexLock lock(&mu_);
    std::vector<StreamInfo> found;
    auto it = after < prefix ? names_.lower_bound(prefix) : names_.upper_bound(after);
    for (; it != names_.end() && it->starts_with(prefix) && found.size() < limit; ++it) {
      const StreamHead& head = streams_.at(*it).head;
      found.push_back(StreamInfo{*it, head.version, head.position, head.deleted,
                                 log_[head.position.value() - 1].timestamp_ms});
    }
    return found;
  }

  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override;

  Position LastPosition() const override {
    MutexLock lock(&mu_);
    return Position(log_.size());
  }

  Position WaitForCommit(Position after, std::chrono::milliseconds timeout) override {
    MutexLock lock(&mu_);
    committed_.WaitFor(&mu_, timeout, [&]() REQUIRES(mu_) { return log_.size() > after.value(); });
    return Position(log_.size());
  }

  Status SaveRecord(std::string_view name, std::string_view value) override {
    if (Status s = store::ValidateRecord(name, value); !s.ok()) return s;
    MutexLock lock(&mu_);
    records_[std::string(name)] = std::string(value);
    return Status::Ok();
  }
  Result<std::optional<std::string>> LoadRecord(std::string_view name) override {
    if (Status s = store::ValidateRecordName(name); !s.ok()) return s;
    MutexLock lock(&mu_);
    auto it = records_.find(std::string(name));
    if (it == records_.end()) return std::optional<std::string>();
    return std::optional(it->second);
  }
  Result<std::vector<std::pair<std::string, std::string>>> ListRecords(
      std::string_view prefix) override {
    MutexLock lock(&mu_);
    std::vector<std::pair<std::string, std::string>> found;
    for (auto it = records_.lower_bound(std::string(prefix));
         it != records_.end() && it->first.starts_with(prefix); ++it)
      found.emplace_back(it->first, it->second);
    return found;
  }
  Status DeleteRecord(std::string_view name) override {
    if (Status s = store::ValidateRecordName(name); !s.ok()) return s;
    MutexLock lock(&mu_);
    records_.erase(std::string(name));
    return Status::Ok();
  }

  StoreStats stats() const override {
    MutexLock lock(&mu_);
    StoreStats stats;
    stats.commits = commits_;
    stats.events = log_.size();
    return stats;
  }

  Status Check(const ProgressFn& progress) override {
    MutexLock lock(&mu_);
    for (std::size_t i = 0; i < log_.size(); ++i) {
      if (log_[i].position.value() != i + 1)
        return Status::Internal(
            fmt::format("event at index {} has position {}", i, log_[i].position.value()));
      if (progress && i % 65536 == 0) progress(i, log_.size());
    }
    if (progress) progress(log_.size(), log_.size());
    return Status::Ok();
  }

  // Cursor access: the event at `position`, stable for the store's life.
  const RecordedEvent* EventAt(Position position) const {
    MutexLock lock(&mu_);
    return &log_[position.value() - 1];
  }
  // The stream's position of `version`, if it has been committed.
  std::optional<Position> PositionOf(const std::string& stream, std::int64_t version) const {
    MutexLock lock(&mu_);
    auto it = streams_.find(stream);
    if (it == streams_.end() || version < 0 ||
        static_cast<std::size_t>(version) >= it->second.positions.size())
      return std::nullopt;
    return it->second.positions[static_cast<std::size_t>(version)];
  }

 private:
  struct StreamState {
    StreamHead head;
    std::vector<Position> positions;  // positions[v]: the event of version v
  };

  const StoreOptions options_;
  mutable Mutex mu_;
  CondVar committed_;
  std::deque<RecordedEvent> log_ GUARDED_BY(mu_);  // log_[p - 1] holds position p
  std::unordered_map<std::string, StreamState> streams_ GUARDED_BY(mu_);
  std::set<std::string, std::less<>> names_ GUARDED_BY(mu_);  // streams_'s keys, in order
  std::unordered_map<EventId, store::IdRecord> ids_ GUARDED_BY(mu_);
  std::uint64_t commits_ GUARDED_BY(mu_) = 0;
  std::map<std::string, std::string> records_ GUARDED_BY(mu_);
  std::unordered_map<std::string, StateRecord> states_ GUARDED_BY(mu_);
};

class MemoryAllCursor final : public AllCursor {
 public:
  MemoryAllCursor(const MemoryStore& store, ReadAllOptions options, Position end)
      : store_(store),
        options_(std::move(options)),
        end_(end),
        next_(std::max<std::uint64_t>(options_.from.value(), 1)) {
    Seek();
  }
  bool Valid() const override { return current_ != nullptr; }
  void Next() override {
    ++returned_;
    Seek();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return Status::Ok(); }
  Position next_position() const override {
    return current_ ? current_->position : Position(next_);
  }

 private:
  void Seek() {
    current_ = nullptr;
    if (returned_ >= options_.limit) return;
    while (next_ <= end_.value() && scanned_ < options_.max_scan) {
      ++scanned_;
      const RecordedEvent* e = store_.EventAt(Position(next_++));
      if (options_.filter.Matches(e->stream, e->type)) {
        current_ = e;
        view_ = e->view();
        return;
      }
    }
  }

  const MemoryStore& store_;
  const ReadAllOptions options_;
  const Position end_;
  std::uint64_t next_;
  std::size_t returned_ = 0;
  std::size_t scanned_ = 0;  // events looked at (ReadAllOptions::max_scan)
  const RecordedEvent* current_ = nullptr;
  EventView view_;
};

// Walks the log in either direction, passing what the query matches.
class MemoryQueryCursor final : public AllCursor {
 public:
  MemoryQueryCursor(const MemoryStore& store, Query query, const ReadQueryOptions& options,
                    Position end)
      : store_(store),
        query_(std::move(query)),
        forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        end_(end.value()) {
    if (forward_)
      next_ = std::max<std::uint64_t>(options.from.value_or(Position(1)).value(), 1);
    else
      next_ = std::min(options.from.value_or(end).value(), end_);
    Seek();
  }
  bool Valid() const override { return current_ != nullptr; }
  void Next() override {
    ++returned_;
    Seek();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return Status::Ok(); }
  Position next_position() const override {
    return current_ ? current_->position : Position(next_);
  }

 private:
  void Seek() {
    current_ = nullptr;
    if (returned_ >= limit_) return;
    while (next_ >= 1 && next_ <= end_) {
      const RecordedEvent* e = store_.EventAt(Position(next_));
      next_ = forward_ ? next_ + 1 : next_ - 1;
      if (query_.Matches(e->type, e->tags)) {
        current_ = e;
        view_ = e->view();
        return;
      }
    }
  }

  const MemoryStore& store_;
  const Query query_;
  const bool forward_;
  const std::size_t limit_;
  const std::uint64_t end_;
  std::uint64_t next_ = 0;
  std::size_t returned_ = 0;
  const RecordedEvent* current_ = nullptr;
  EventView view_;
};

class MemoryStreamCursor final : public StreamCursor {
 public:
  MemoryStreamCursor(const MemoryStore& store, std::string stream, const ReadStreamOptions& options,
                     std::int64_t from, std::int64_t low, std::int64_t high)
      : store_(store),
        stream_(std::move(stream)),
        forward_(options.direction == Direction::kForward),
        limit_(options.limit),
        next_(from),
        low_(low),
        high_(high) {
    Seek();
  }
  bool Valid() const override { return current_ != nullptr; }
  void Next() override {
    ++returned_;
    next_ += forward_ ? 1 : -1;
    Seek();
  }
  const EventView& event() const override { return view_; }
  Status status() const override { return Status::Ok(); }
  std::optional<StreamVersion> next_version() const override {
    return store::NextVersionOrNone(next_);
  }

 private:
  void Seek() {
    current_ = nullptr;
    if (returned_ >= limit_ || next_ < low_ || next_ > high_) return;
    auto position = store_.PositionOf(stream_, next_);
    if (!position) return;
    current_ = store_.EventAt(*position);
    view_ = current_->view();
  }

  const MemoryStore& store_;
  const std::string stream_;
  const bool forward_;
  const std::size_t limit_;
  std::int64_t next_;
  const std::int64_t low_, high_;
  std::size_t returned_ = 0;
  const RecordedEvent* current_ = nullptr;
  EventView view_;
};

Result<std::unique_ptr<StreamCursor>> MemoryStore::ReadStream(std::string_view stream,
                                                              const ReadStreamOptions& options) {
  auto head = Head(stream);
  if (!head.ok()) return head.status();
  auto plan = store::PlanStreamRead(stream, *head, options);
  if (!plan.ok()) return plan.status();
  return std::unique_ptr<StreamCursor>(new MemoryStreamCursor(*this, std::string(stream), options,
                                                              plan->from, plan->low, plan->high));
}

Result<std::unique_ptr<AllCursor>> MemoryStore::ReadAll(const ReadAllOptions& options) {
  return std::unique_ptr<AllCursor>(new MemoryAllCursor(*this, options, LastPosition()));
}

Result<std::unique_ptr<AllCursor>> MemoryStore::ReadQuery(const Query& query,
                                                          const ReadQueryOptions& options) {
  if (Status s = ValidateQuery(query); !s.ok()) return s;
  return std::unique_ptr<AllCursor>(new MemoryQueryCursor(*this, query, options, LastPosition()));
}

}  // namespace

Result<std::unique_ptr<Store>> OpenMemoryStore(const StoreOptions& options) {
  return std::unique_ptr<Store>(new MemoryStore(options));
}

}  // namespace indelible::storage
