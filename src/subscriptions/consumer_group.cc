// ConsumerGroup (include/indelible/consumer_group.h).
//
// Operation: one mutex guards the group. A Subscription reads the filtered
// $all into `window_`, a deque in position order; each entry is waiting
// (with a time before which it may not go out: its back-off), in flight
// (with a lease end) or acknowledged. Pull walks the window in order and
// hands out the waiting entries whose stream has no earlier unacknowledged
// entry outside the batch being built; Ack marks entries and pops the
// acknowledged prefix, which is the checkpoint. Waiting for new events uses
// Store::WaitForCommit in short slices, so a Pull notices new commits at
// once and other consumers' acks within a slice. Callers that wait without
// a thread use changes_ and its notify list (own mutex, so a callback may
// cancel itself while a change holds mu_) and Idle().
//
// Byte bounds: window_bytes_ sums the payload of the window's entries;
// Refill stops reading once it reaches the limit (a non-empty window), and
// the subscription's pages are no larger than the limit, so the window
// passes it by at most one page. Take stops a batch at its budget.
//
// Delete: every Impl registers in a process-wide list by (store, name).
// Delete holds that list's lock while it marks each registered Impl deleted
// (under the Impl's mu_, so a save in progress finishes first) and removes
// the record; Open takes the same lock to read the record and register, so
// an object opened during a delete is either marked or finds no record.
// MaybeSave does nothing once deleted_, so nothing saves the record again.
//
// Parking (policy park) and replay: a failed event is appended to
// `$parked-<group>` (subscriptions/parking.h) and acked; its stream goes into
// the record's parked map, and later events of that stream are parked as Pull
// meets them. A replay pass reads the parked stream into a second lane,
// `replay_`, served before the window with the same per-stream rule; its
// acks move the parked map's per-stream version, and when a read finds the
// parked stream's end with the lane empty, the pass ends and the streams it
// fully replayed are unparked. Parks and replays commit and save the record
// while holding the mutex: they are the failure path, not the hot one.
//
// Per-event decisions: a retried copy is an entry of the replay lane marked
// `retry`, its version in the record's `retrying`; its ack resolves it at
// once (not in lane order) and unparks its stream if no copy of it is left
// pending. A skipped copy goes into the record's `skipped`: replay passes
// pass it over, and the window acks its original without delivering it if it
// reads it again (after a restart, before the checkpoint passed it). Whether
// a stream has pending copies left is read from $parked-<group> (the truth:
// the counts in the record are for display) on these operator paths only.
//
// Members: a map by consumer name, updated by Pull and by SetState (the
// in-flight counts), bounded by kMaxMembers (see the header).
#include <fmt/format.h>
#include <indelible/consumer_group.h>
#include <indelible/subscription.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>

#include "core/clock.h"
#include "core/mutex.h"
#include "subscriptions/group_record.h"
#include "subscriptions/parking.h"

namespace indelible {

using subscriptions::GroupRecord;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// How long a waiting Pull sleeps at most before looking at acks from others.
constexpr milliseconds kWaitSlice{5};
// The group record must stay under the 64 KiB of a checkpoint record
// (docs/FORMAT.md); the parked map is the only part that grows.
constexpr std::size_t kMaxParkedNamesBytes = 48 * 1024;
// How much of $parked-<group> one read of the operator paths takes.
constexpr std::size_t kParkedReadPage = 500;

SubscriptionOptions SubscriptionFor(const GroupRecord& record, const ConsumerGroupOptions& local) {
  SubscriptionOptions options;
  options.filter = record.options.filter;
  options.after = record.checkpoint;
  options.page_events = std::min<std::size_t>(500, local.window);
  options.page_bytes = std::min<std::size_t>(options.page_bytes, local.window_bytes);
  return options;
}

// What an event weighs against window_bytes (and a pull's default budget).
std::size_t PayloadBytes(const RecordedEvent& event) {
  return event.data.size() + event.metadata.size() + event.type.size() + event.schema.size() +
         event.content_type.size() + event.stream.size();
}

Status DeletedError(std::string_view name) {
  return Status::NotFound(fmt::format("consumer group '{}' was deleted", name));
}

}  // namespace

class ConsumerGroup::Impl {
 public:
  Impl(Store& store, std::string name, GroupRecord record, const ConsumerGroupOptions& local)
      : store_(store),
        name_(std::move(name)),
        record_(std::move(record)),
        window_limit_(local.window),
        window_bytes_limit_(local.window_bytes),
        checkpoint_interval_(local.checkpoint_interval),
        parked_stream_(subscriptions::ParkedStreamName(name_)),
        deliver_store_streams_(std::any_of(
            record_.options.filter.stream_prefixes.begin(),
            record_.options.filter.stream_prefixes.end(),
            [](const std::string& prefix) { return !prefix.empty() && prefix.front() == '$'; })),
        subscription_(store, SubscriptionFor(record_, local)),
        checkpoint_(record_.checkpoint),
        saved_checkpoint_(record_.checkpoint),
        last_save_(Clock::now()) {
    if (record_.replaying) StartReplayPass();  // resume the pass a restart cut short
    RebuildSkippedPositions();
  }

  ~Impl() {
    OpenGroups& open = Registry();
    MutexLock lock(&open.mu);
    auto [first, last] = open.impls.equal_range(Key(store_, name_));
    for (auto it = first; it != last; ++it)
      if (it->second == this) {
        open.impls.erase(it);
        break;
      }
  }

  // Every Impl of this process by (store, name), for Delete.
  using GroupKey = std::pair<const Store*, std::string>;
  struct OpenGroups {
    Mutex mu;
    std::multimap<GroupKey, Impl*> impls GUARDED_BY(mu);
  };
  static OpenGroups& Registry() {
    static auto* open = new OpenGroups;  // never destroyed: used from destructors
    return *open;
  }
  static GroupKey Key(const Store& store, std::string_view name) {
    return {&store, std::string(name)};
  }
  // With open.mu held (by Open); `open` is Registry(), passed so the
  // analysis can name the lock.
  void RegisterLocked(OpenGroups& open) REQUIRES(open.mu) {
    open.impls.emplace(Key(store_, name_), this);
  }

  // With Registry().mu held (by Delete): from now on nothing is saved.
  void MarkDeleted() {
    MutexLock lock(&mu_);
    deleted_ = true;
    Changed();
  }

  const std::string& name() const { return name_; }

  Result<std::vector<Delivery>> Pull(std::string_view consumer, std::size_t max, milliseconds wait,
                                     bool in_order, const PullBudget& budget) {
    if (max == 0) return Status::Invalid("max", "pull at least 1 event");
    if (consumer.empty()) return Status::Invalid("consumer", "name the consumer that pulls");
    const auto deadline = Clock::now() + wait;
    MutexLock lock(&mu_);
    Touch(consumer, Clock::now());
    for (;;) {
      if (deleted_) return DeletedError(name_);
      if (Status s = Refill(); !s.ok()) return s;
      const auto now = Clock::now();
      ExpireLeases(now);
      std::vector<Delivery> out;
      if (!blocked_at_) out = Take(consumer, max, budget, now, in_order);
      // Parks made above are saved now; a failure is retried by the next call.
      if (save_now_) (void)MaybeSave(true);
      if (!out.empty() || now >= deadline) return out;
      const auto until = std::min(deadline, now + kWaitSlice);
      AddWaiting(consumer, 1);
      if (WindowHasRoom() && !blocked_at_) {
        // Room for more: sleep until a commit past what was read (at once
        // if there is one), at most a slice.
        const Position read_through = subscription_.position();
        lock.Unlock();
        store_.WaitForCommit(
            read_through, std::chrono::duration_cast<milliseconds>(until - now) + milliseconds(1));
        lock.Lock();
      } else {
        changed_.WaitUntil(&mu_, until);
      }
      AddWaiting(consumer, -1);
    }
  }

  Status Ack(const std::vector<Position>& positions) {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError(name_);
    for (Position position : positions) {
      if (Entry* replayed = FindReplay(position)) {
        SetState(*replayed, State::kAcked);
        replayed->replay_done = true;
        if (replayed->retry) FinishRetry(*replayed);
        continue;
      }
      if (position <= checkpoint_) continue;  // a repeated ack
      Entry* entry = Find(position);
      if (entry == nullptr || entry->attempts == 0)
        return Status::Invalid("position",
                               fmt::format("position {} was not delivered by consumer group '{}'",
                                           position.value(), name_));
      SetState(*entry, State::kAcked);
      if (blocked_at_ == position) Unblock();
    }
    Advance();
    AdvanceReplay();
    Changed();
    return MaybeSave(false);
  }

  Status Nack(Position position, std::string_view reason) {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError(name_);
    Entry* entry = FindReplay(position);
    if (entry == nullptr && position > checkpoint_) entry = Find(position);
    if (entry == nullptr || entry->state != State::kInFlight)
      return Status::Invalid("position",
                             fmt::format("position {} is not in flight in consumer group '{}'",
                                         position.value(), name_));
    Fail(*entry, reason.empty() ? std::string("nacked") : std::string(reason), Clock::now());
    // The later events of that stream the consumer got in the same batch
    // must wait for this one: take them back, without counting an attempt.
    // (A parked or given-up entry is acked: nothing to take back.)
    const std::string consumer = entry->consumer;
    bool after = false;
    for (Entry& later : LaneOf(*entry)) {
      if (&later == entry) after = true;
      if (!after || &later == entry || later.state != State::kInFlight ||
          later.consumer != consumer || later.event.stream != entry->event.stream)
        continue;
      SetState(later, State::kWaiting);
      later.not_before = Clock::now();
      --later.attempts;
    }
    Advance();
    AdvanceReplay();
    Changed();
    return MaybeSave(false);
  }

  Status ReplayParked() {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError(name_);
    if (record_.replaying || record_.parked.empty()) return Status::Ok();
    StartReplayPass();
    save_now_ = true;
    Changed();
    return MaybeSave(true);
  }

  Status Retry() {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError(name_);
    Entry* entry = BlockedEntry();
    if (entry == nullptr) return NotBlocked();
    entry->attempts = 0;
    SetState(*entry, State::kWaiting);
    entry->not_before = Clock::now();
    Unblock();
    Changed();
    return Status::Ok();
  }

  Status Skip() {
    MutexLock lock(&mu_);
    if (deleted_) return DeletedError(name_);
    Entry* entry = BlockedEntry();
    if (entry == nullptr) return NotBlocked();
    SetState(*entry, State::kAcked);
    Unblock();
    Advance();
    Changed();
    return MaybeSave(true);
  }

  Status Flush() {
    MutexLock lock(&mu_);
    return MaybeSave(true);
  }

  Status SkipParked(StreamVersion parked_version) {
    MutexLock lock(&mu_);
    auto copy = DecisionTarget(parked_version, "skip");
    if (!copy.ok()) return copy.status();
    const std::uint64_t version = static_cast<std::uint64_t>(parked_version.value());
    const std::string& stream = copy->original.stream;
    switch (StateOf(version, stream)) {
      case ParkedState::kSkipped:
        return NotPending(version, "is skipped already");
      case ParkedState::kResolved:
        return NotPending(version, "is not pending (replayed or skipped already)");
      default:
        break;
    }
    if (Entry* entry = ReplayEntry(version); entry != nullptr && entry->state == State::kInFlight)
      return InFlightError(*entry);
    GroupRecord before = record_;
    record_.skipped.insert_or_assign(version,
                                     subscriptions::SkippedCopy{stream, copy->original.position});
    record_.retrying.erase(version);
    if (record_.parked_events > 0) --record_.parked_events;
    auto parked = record_.parked.find(stream);
    if (Status s = MoveParkedStream(stream, parked == record_.parked.end() ? 0 : parked->second);
        !s.ok()) {
      record_ = std::move(before);
      return s;
    }
    ForgetSkips();  // this one too, if its stream unparked and the group passed it
    if (ParkedNamesBytes() > kMaxParkedNamesBytes) {
      record_ = std::move(before);
      RebuildSkippedPositions();
      return Status::Conflict(
          fmt::format("consumer group '{}' keeps too many parked streams and skipped events to "
                      "skip one more; replay the parked events first",
                      name_),
          std::nullopt);
    }
    if (Status s = SaveDecision(std::move(before)); !s.ok()) return s;
    // A copy waiting in the replay lane (a retry, or a pass's) goes unsent.
    if (Entry* entry = ReplayEntry(version)) {
      SetState(*entry, State::kAcked);
      entry->replay_done = false;
    }
    AdvanceReplay();
    Changed();
    return Status::Ok();
  }

  Status RetryParked(StreamVersion parked_version) {
    MutexLock lock(&mu_);
    auto copy = DecisionTarget(parked_version, "retry");
    if (!copy.ok()) return copy.status();
    const std::uint64_t version = static_cast<std::uint64_t>(parked_version.value());
    const std::string& stream = copy->original.stream;
    switch (StateOf(version, stream)) {
      case ParkedState::kRetrying:
        return Status::Ok();
      case ParkedState::kSkipped:
        return NotPending(version, "is skipped");
      case ParkedState::kResolved:
        return NotPending(version, "is not pending (replayed or skipped already)");
      case ParkedState::kPending:
        break;
    }
    if (record_.replaying)
      return Status::Conflict(
          fmt::format("consumer group '{}' is replaying its parked events: the pass delivers "
                      "event {} of '{}' already; retry after it ends",
                      name_, version, parked_stream_),
          std::nullopt);
    auto parked = record_.parked.find(stream);
    auto first = NextPending(stream, parked == record_.parked.end() ? 0 : parked->second);
    if (!first.ok()) return first.status();
    if (*first && **first < version)
      return Status::Conflict(
          fmt::format("event {} of '{}' cannot be retried before event {}, an earlier parked "
                      "event of stream '{}' that is still pending (a group never delivers a "
                      "stream's events out of order): retry or skip event {} first",
                      version, parked_stream_, **first, stream, **first),
          std::nullopt);
    GroupRecord before = record_;
    record_.retrying.insert(version);
    if (ParkedNamesBytes() > kMaxParkedNamesBytes) {
      record_ = std::move(before);
      return Status::Conflict(
          fmt::format("consumer group '{}' keeps too many parked streams and decisions to retry "
                      "one more; replay the parked events instead",
                      name_),
          std::nullopt);
    }
    if (Status s = SaveDecision(std::move(before)); !s.ok()) return s;
    replay_.push_back(RetryEntry(std::move(copy->original), parked_version));
    Changed();
    return Status::Ok();
  }

  Result<ParkedPage> ReadParked(StreamVersion from, std::size_t limit, std::size_t max_bytes) {
    if (limit == 0) return Status::Invalid("limit", "read at least 1 parked event");
    ParkedPage page;
    std::vector<std::string> streams;  // each copy's original stream
    {
      MutexLock lock(&mu_);
      if (deleted_) return DeletedError(name_);
    }
    // Read without the lock (a page of the store); the states are taken
    // under it after.
    ReadStreamOptions options;
    options.from = from;
    options.limit = limit + 1;  // one more tells whether a next page exists
    auto cursor = store_.ReadStream(parked_stream_, options);
    if (!cursor.ok()) {
      if (cursor.status().code() == ErrorCode::kNotFound) return page;
      return cursor.status();
    }
    std::size_t bytes = 0;
    for (; (*cursor)->Valid(); (*cursor)->Next()) {
      const EventView& event = (*cursor)->event();
      if (page.events.size() >= limit || (!page.events.empty() && bytes >= max_bytes)) {
        page.next = event.version;
        break;
      }
      auto parked = subscriptions::DecodeParkedCopy(event);
      if (!parked.ok()) return parked.status();
      streams.push_back(std::move(parked->original.stream));
      page.events.push_back(ParkedCopy{event.ToOwned(), ParkedState::kPending});
      bytes += PayloadBytes(page.events.back().copy);
    }
    if (Status s = (*cursor)->status(); !s.ok()) return s;
    MutexLock lock(&mu_);
    for (std::size_t i = 0; i < page.events.size(); ++i)
      page.events[i].state =
          StateOf(static_cast<std::uint64_t>(page.events[i].copy.version.value()), streams[i]);
    return page;
  }

  void CountWaiting(std::string_view consumer, int delta) {
    MutexLock lock(&mu_);
    AddWaiting(consumer, delta);
  }

  bool WaitFor(Position position, milliseconds timeout) {
    MutexLock lock(&mu_);
    return changed_.WaitFor(&mu_, timeout, [&]() REQUIRES(mu_) {
      return checkpoint_ >= position || deleted_;
    }) && !deleted_;
  }

  std::uint64_t changes() {
    MutexLock lock(&notify_mu_);
    return changes_;
  }

  Ticket NotifyChange(std::uint64_t seen, std::function<void()> fn) {
    {
      MutexLock lock(&notify_mu_);
      if (changes_ == seen) {
        const Ticket ticket = ++last_ticket_;
        notify_.emplace(ticket, std::move(fn));
        return ticket;
      }
    }
    fn();
    return 0;
  }

  void CancelNotify(Ticket ticket) {
    MutexLock lock(&notify_mu_);
    notify_.erase(ticket);
  }

  PullIdle Idle() {
    MutexLock lock(&mu_);
    PullIdle idle;
    if (deleted_) return idle;
    if (WindowHasRoom() && !blocked_at_) idle.commit_after = subscription_.position();
    const auto now = Clock::now();
    for (const std::deque<Entry>* lane : {&replay_, &window_})
      for (const Entry& entry : *lane) {
        std::optional<Clock::time_point> at;
        if (entry.state == State::kInFlight) at = entry.lease_end;
        if (entry.state == State::kWaiting && entry.not_before > now) at = entry.not_before;
        if (at && (!idle.due || *at < *idle.due)) idle.due = at;
      }
    return idle;
  }

  bool deleted() {
    MutexLock lock(&mu_);
    return deleted_;
  }

  ConsumerGroupInfo Info(bool with_members) {
    MutexLock lock(&mu_);
    ConsumerGroupInfo info;
    const auto now = Clock::now();
    ForgetIdleMembers(now);
    if (with_members) {
      info.members.reserve(members_.size());
      for (const auto& [consumer, member] : members_)
        info.members.push_back(
            ConsumerGroupMember{consumer, member.in_flight, member.last_pull_ms, member.waiting});
    }
    info.members_omitted = omitted_at_ && now - *omitted_at_ < ConsumerGroup::kMemberIdle;
    info.name = name_;
    info.checkpoint = checkpoint_;
    info.last_position = store_.LastPosition();
    info.lag_events =
        info.last_position > checkpoint_ ? info.last_position.value() - checkpoint_.value() : 0;
    // The front of the window is the oldest unacknowledged event (Advance
    // pops the acknowledged prefix).
    if (!window_.empty()) {
      const auto now_ms = UnixMillisNow();
      info.lag_seconds = std::max<double>(
          0, static_cast<double>(now_ms - window_.front().event.timestamp_ms) / 1000.0);
    }
    info.in_flight = in_flight_;
    info.redeliveries = redeliveries_;
    info.blocked_at = blocked_at_;
    info.blocked_reason = blocked_reason_;
    info.parked_streams = record_.parked.size();
    info.parked_events = record_.parked_events;
    info.replaying = record_.replaying;
    return info;
  }

 private:
  enum class State : std::uint8_t { kWaiting, kInFlight, kAcked };
  struct Entry {
    RecordedEvent event;
    State state = State::kWaiting;
    std::string consumer;
    Clock::time_point not_before{};  // waiting: its back-off
    Clock::time_point lease_end{};   // in flight
    int attempts = 0;
    // Replay lane only: the copy's version in $parked-<group>, and whether
    // the ack that ended it was a success (not a give-up).
    std::optional<StreamVersion> parked_version;
    bool replay_done = false;
    bool retry = false;  // a RetryParked of that copy alone
  };

  // A consumer that pulled (see Members in the header).
  struct Member {
    std::uint64_t in_flight = 0;
    std::uint64_t waiting = 0;
    Clock::time_point last_pull;
    // The wall-clock time of that pull, as reported: taken once, so every
    // status says the same time for it (steady and wall clocks drift apart).
    std::int64_t last_pull_ms = 0;
  };

  // Every state change goes through here, so in_flight_ stays the count of
  // in-flight entries without a walk over the window (info() is called
  // after each ack over HTTP).
  // The member counts too; a consumer not listed (kMaxMembers) has no count.
  void SetState(Entry& entry, State state) REQUIRES(mu_) {
    if (entry.state == State::kInFlight) {
      --in_flight_;
      if (auto it = members_.find(entry.consumer); it != members_.end() && it->second.in_flight > 0)
        --it->second.in_flight;
    }
    if (state == State::kInFlight) {
      ++in_flight_;
      if (auto it = members_.find(entry.consumer); it != members_.end()) ++it->second.in_flight;
    }
    entry.state = state;
  }

  // A pull by `consumer`: listed with its last pull now (see Members).
  void Touch(std::string_view consumer, Clock::time_point now) REQUIRES(mu_) {
    if (auto it = members_.find(consumer); it != members_.end()) {
      it->second.last_pull = now;
      it->second.last_pull_ms = UnixMillisNow();
      return;
    }
    if (members_.size() >= ConsumerGroup::kMaxMembers) {
      ForgetIdleMembers(now);
      // Still full: the place of the member idle the longest.
      auto oldest = members_.end();
      for (auto it = members_.begin(); it != members_.end(); ++it)
        if (it->second.in_flight == 0 && it->second.waiting == 0 &&
            (oldest == members_.end() || it->second.last_pull < oldest->second.last_pull))
          oldest = it;
      if (members_.size() >= ConsumerGroup::kMaxMembers) {
        if (oldest == members_.end()) {
          omitted_at_ = now;
          return;
        }
        members_.erase(oldest);
      }
    }
    Member& member = members_[std::string(consumer)];
    member.last_pull = now;
    member.last_pull_ms = UnixMillisNow();
    // Only a name that pulled while it could not be listed can hold events
    // the member does not count yet.
    if (omitted_at_)
      for (const std::deque<Entry>* lane : {&replay_, &window_})
        for (const Entry& entry : *lane)
          if (entry.state == State::kInFlight && entry.consumer == consumer) ++member.in_flight;
  }

  void AddWaiting(std::string_view consumer, int delta) REQUIRES(mu_) {
    auto it = members_.find(consumer);
    if (it == members_.end()) return;
    if (delta > 0) it->second.waiting += static_cast<std::uint64_t>(delta);
    if (delta < 0)
      it->second.waiting -=
          std::min<std::uint64_t>(it->second.waiting, static_cast<std::uint64_t>(-delta));
  }

  void ForgetIdleMembers(Clock::time_point now) REQUIRES(mu_) {
    std::erase_if(members_, [&](const auto& item) {
      return item.second.in_flight == 0 && item.second.waiting == 0 &&
             now - item.second.last_pull >= ConsumerGroup::kMemberIdle;
    });
  }

  // Under mu_: every waiter (blocking and notified) learns of a change.
  void Changed() REQUIRES(mu_) EXCLUDES(notify_mu_) {
    changed_.SignalAll();
    std::map<Ticket, std::function<void()>> fire;
    {
      MutexLock lock(&notify_mu_);
      ++changes_;
      fire.swap(notify_);
    }
    for (auto& [ticket, fn] : fire) fn();
  }

  // Whether Refill may read more: under both bounds, and at least one event.
  bool WindowHasRoom() const REQUIRES(mu_) {
    return window_.empty() ||
           (window_.size() < window_limit_ && window_bytes_ < window_bytes_limit_);
  }

  // Reads more of $all while the window has room.
  Status Refill() REQUIRES(mu_) {
    while (WindowHasRoom()) {
      auto batch = subscription_.Next(milliseconds(0));
      if (!batch.ok()) return batch.status();
      for (RecordedEvent& event : batch->events) {
        if (!deliver_store_streams_ && event.stream.front() == '$') continue;
        Entry entry;
        entry.event = std::move(event);
        window_bytes_ += PayloadBytes(entry.event);
        window_.push_back(std::move(entry));
      }
      // An empty page that is not caught up ended at the subscription's
      // scan budget (a filter that skipped events): read on.
      if (batch->caught_up) break;
    }
    Advance();  // filtered-out events may move the checkpoint of an empty window
    // Retries before a pass's copies: a retried copy is its stream's first.
    if (!retries_loaded_) {
      if (Status s = LoadRetries(); !s.ok()) return s;
    }
    return record_.replaying ? RefillReplay() : Status::Ok();
  }

  // Reads more of the parked stream into the replay lane; ends the pass
  // when the lane is empty and the parked stream has nothing more.
  Status RefillReplay() REQUIRES(mu_) {
    const std::size_t limit = std::min<std::size_t>(500, window_limit_);
    std::size_t read = 0;
    do {
      if (replay_.size() >= limit || ReplayBytes() >= window_bytes_limit_) return Status::Ok();
      ReadStreamOptions options;
      options.from = StreamVersion(static_cast<std::int64_t>(replay_next_));
      options.limit = limit - replay_.size();
      auto cursor = store_.ReadStream(parked_stream_, options);
      if (!cursor.ok()) {
        if (cursor.status().code() != ErrorCode::kNotFound) return cursor.status();
        break;
      }
      read = 0;
      for (; (*cursor)->Valid(); (*cursor)->Next()) {
        ++read;
        const EventView& copy = (*cursor)->event();
        const auto version = static_cast<std::uint64_t>(copy.version.value());
        replay_next_ = version + 1;
        auto parked = subscriptions::DecodeParkedCopy(copy);
        if (!parked.ok()) return parked.status();
        auto it = record_.parked.find(parked->original.stream);
        // Replayed in an earlier pass, or its stream gave up in this one.
        // Skipped, or in the lane already as a retry.
        if (it == record_.parked.end() || version < it->second ||
            given_up_.contains(parked->original.stream) || record_.skipped.contains(version) ||
            record_.retrying.contains(version))
          continue;
        Entry entry;
        entry.event = std::move(parked->original);
        entry.parked_version = copy.version;
        replay_.push_back(std::move(entry));
      }
      if (Status s = (*cursor)->status(); !s.ok()) return s;
    } while (read > 0);
    replay_at_end_ = true;
    if (replay_.empty()) EndReplayPass();
    return Status::Ok();
  }

  void StartReplayPass() REQUIRES(mu_) {
    record_.replaying = true;
    replay_at_end_ = false;
    given_up_.clear();
    replay_next_ = UINT64_MAX;
    for (const auto& [stream, version] : record_.parked)
      replay_next_ = std::min(replay_next_, version);
    if (record_.parked.empty()) replay_next_ = 0;
  }

  // Every parked event was read and the lane is empty: unpark the streams
  // that did not give up.
  void EndReplayPass() REQUIRES(mu_) {
    std::erase_if(record_.parked,
                  [&](const auto& item) REQUIRES(mu_) { return !given_up_.contains(item.first); });
    if (record_.parked.empty()) record_.parked_events = 0;
    given_up_.clear();
    record_.replaying = false;
    save_now_ = true;
    Changed();
  }

  // Pops the finished prefix of the replay lane; each event replayed
  // successfully moves its stream's first unreplayed version.
  void AdvanceReplay() REQUIRES(mu_) {
    while (!replay_.empty() && replay_.front().state == State::kAcked) {
      const Entry& entry = replay_.front();
      if (entry.replay_done) {
        auto it = record_.parked.find(entry.event.stream);
        if (it != record_.parked.end())
          it->second = std::max<std::uint64_t>(it->second, entry.parked_version->value() + 1);
        if (record_.parked_events > 0) --record_.parked_events;
        dirty_ = true;
      }
      replay_.pop_front();
    }
    // The last read found the end and nothing was parked since: done.
    if (record_.replaying && replay_at_end_ && replay_.empty()) EndReplayPass();
  }

  // The payload held by the replay lane (a page at most, so a walk is fine).
  std::size_t ReplayBytes() const REQUIRES(mu_) {
    std::size_t bytes = 0;
    for (const Entry& entry : replay_) bytes += PayloadBytes(entry.event);
    return bytes;
  }

  static bool DeclaresSubject(const RecordedEvent& event) {
    return std::any_of(event.tags.begin(), event.tags.end(), [](const std::string& tag) {
      return std::string_view(tag).starts_with(kSubjectTagPrefix);
    });
  }

  // The window holds events as read, maybe before their subject was
  // shredded (docs/RETENTION.md): a subject's event is read again as it is
  // delivered, so it goes out redacted from the shred on. A failed read
  // leaves the copy (the group never stops on it). Under the group's lock,
  // as the window reads are: a subject's events cost a stream read each.
  void ReadAgain(Delivery& delivery) const {
    const bool parked = delivery.parked_version.has_value();
    ReadStreamOptions one;
    one.from = parked ? *delivery.parked_version : delivery.event.version;
    one.limit = 1;
    one.include_deleted = true;
    auto cursor = store_.ReadStream(
        parked ? subscriptions::ParkedStreamName(name_) : delivery.event.stream, one);
    if (!cursor.ok() || !(*cursor)->Valid()) return;
    const EventView& event = (*cursor)->event();
    if (!parked) {
      if (event.id != delivery.event.id) return;
      // A stream read may not carry positions (DynamoDB): the group's
      // acknowledgements go by the position it read in $all.
      const Position position = delivery.event.position;
      delivery.event = event.ToOwned();
      delivery.event.position = position;
      return;
    }
    auto original = subscriptions::DecodeParkedCopy(event);
    if (original.ok() && original->original.id == delivery.event.id)
      delivery.event = std::move(original->original);
  }

  std::vector<Delivery> Take(std::string_view consumer, std::size_t max, const PullBudget& budget,
                             Clock::time_point now, bool in_order) REQUIRES(mu_) {
    std::vector<Delivery> out;
    std::size_t bytes = 0;
    // Streams with an earlier unacknowledged event that is not in this batch.
    std::unordered_set<std::string_view> held;
    // Replays first: they are older than anything in the window.
    for (std::deque<Entry>* lane : {&replay_, &window_}) {
      for (Entry& entry : *lane) {
        if (out.size() >= max || blocked_at_) return out;
        if (entry.state == State::kAcked) continue;
        const std::string_view stream = entry.event.stream;
        if (held.contains(stream)) continue;
        // An in-order consumer handles its own deliveries in order: what it
        // holds does not stop its next pull (it pipelines).
        if (in_order && entry.state == State::kInFlight && entry.consumer == consumer) continue;
        if (entry.state == State::kInFlight || entry.not_before > now) {
          if (in_order) return out;
          held.insert(stream);
          continue;
        }
        if (entry.parked_version && given_up_.contains(entry.event.stream)) {
          if (entry.retry) {
            record_.retrying.erase(static_cast<std::uint64_t>(entry.parked_version->value()));
            save_now_ = true;
          }
          SetState(entry, State::kAcked);  // stays parked for a later pass
          continue;
        }
        if (!entry.parked_version && !skipped_positions_.empty() &&
            skipped_positions_.contains(entry.event.position.value())) {
          SetState(entry, State::kAcked);  // skipped by an operator: never delivered
          continue;
        }
        if (!entry.parked_version && record_.parked.contains(entry.event.stream)) {
          Park(entry, fmt::format("stream '{}' is parked", entry.event.stream));
          continue;
        }
        // Measured before it is handed out: one that does not fit stays
        // waiting, untouched.
        Delivery delivery{entry.event, entry.attempts + 1, entry.parked_version};
        // Before it is measured (a server encodes it then).
        if (DeclaresSubject(delivery.event)) ReadAgain(delivery);
        const std::size_t size = budget.size ? budget.size(delivery) : PayloadBytes(delivery.event);
        if (!out.empty() && (size > budget.max_bytes || bytes + size > budget.max_bytes))
          return out;
        bytes += size;
        entry.consumer = std::string(consumer);
        SetState(entry, State::kInFlight);
        entry.lease_end = now + record_.options.lease;
        if (++entry.attempts > 1) ++redeliveries_;
        out.push_back(std::move(delivery));
      }
    }
    return out;
  }

  void ExpireLeases(Clock::time_point now) REQUIRES(mu_) {
    if (in_flight_ == 0) return;
    for (std::deque<Entry>* lane : {&replay_, &window_})
      for (Entry& entry : *lane)
        if (entry.state == State::kInFlight && entry.lease_end <= now)
          Fail(entry,
               fmt::format("lease of {} ms expired (consumer '{}' did not ack)",
                           record_.options.lease.count(), entry.consumer),
               now);
    Advance();
    AdvanceReplay();
  }

  // A failed attempt: back off, or apply the policy after max_attempts.
  void Fail(Entry& entry, std::string reason, Clock::time_point now) REQUIRES(mu_) {
    SetState(entry, State::kWaiting);
    if (entry.attempts >= record_.options.max_attempts) {
      entry.not_before = now;
      const std::string why =
          fmt::format("event {} of stream '{}' failed {} time(s); last: {}",
                      entry.event.position.value(), entry.event.stream, entry.attempts, reason);
      if (entry.parked_version) return GiveUpReplay(entry);
      if (record_.options.policy == FailurePolicy::kPark) return Park(entry, why);
      return Block(entry, why);
    }
    auto backoff = record_.options.initial_backoff;
    for (int i = 1; i < entry.attempts && backoff < record_.options.max_backoff; ++i) backoff *= 2;
    entry.not_before = now + std::min(backoff, record_.options.max_backoff);
  }

  void Block(const Entry& entry, std::string reason) REQUIRES(mu_) {
    if (blocked_at_) return;
    blocked_at_ = entry.event.position;
    blocked_reason_ = std::move(reason);
  }

  // Copies a window entry to the parked stream and counts it as handled; its
  // stream is parked from now on. Later events of the stream that are in
  // flight (the same batch) are parked behind it. If the store refuses the
  // copy the group blocks there instead, so nothing is lost.
  void Park(Entry& entry, const std::string& reason) REQUIRES(mu_) {
    if (!record_.parked.contains(entry.event.stream) &&
        ParkedNamesBytes() + entry.event.stream.size() > kMaxParkedNamesBytes) {
      SetState(entry, State::kWaiting);
      return Block(entry, fmt::format("cannot park event {} of stream '{}' ({}): {} streams are "
                                      "parked already; replay or fix them first",
                                      entry.event.position.value(), entry.event.stream, reason,
                                      record_.parked.size()));
    }
    CommitOptions options;
    options.allow_reserved = true;
    std::vector<AppendRequest> append(1);
    append[0].stream = parked_stream_;
    append[0].events.push_back(
        subscriptions::MakeParkedCopy(name_, entry.event, entry.attempts, reason));
    auto committed = store_.Commit(std::move(append), options);
    if (!committed.ok()) {
      SetState(entry, State::kWaiting);
      return Block(entry, fmt::format("could not park event {} of stream '{}' ({}): {}",
                                      entry.event.position.value(), entry.event.stream, reason,
                                      committed.status().ToString()));
    }
    const AppendResult& copy = committed->appends.front();
    const bool newly_parked =
        record_.parked.try_emplace(entry.event.stream, copy.last_version.value()).second;
    // An idempotent retry (a re-park after a crash) was counted before,
    // unless the record saved then did not have the stream yet.
    if (!copy.replayed || newly_parked) ++record_.parked_events;
    replay_at_end_ = false;  // a pass must read this copy before it ends
    save_now_ = true;
    SetState(entry, State::kAcked);
    if (blocked_at_ == entry.event.position) Unblock();
    for (Entry& later : window_)
      if (later.event.position > entry.event.position && later.state == State::kInFlight &&
          later.event.stream == entry.event.stream)
        Park(later, fmt::format("stream '{}' is parked", later.event.stream));
  }

  // What the parked map adds to the group record (names and numbers).
  std::size_t ParkedNamesBytes() const {
    std::size_t bytes = 0;
    for (const auto& [stream, version] : record_.parked) bytes += stream.size() + 24;
    for (const auto& [version, copy] : record_.skipped) bytes += copy.stream.size() + 64;
    bytes += record_.retrying.size() * 24;
    return bytes;
  }

  // A replayed event failed again: it and the rest of its stream stay
  // parked for a later pass.
  void GiveUpReplay(Entry& entry) REQUIRES(mu_) {
    if (entry.retry) {
      // Pending again; outside a pass, nothing else of its stream is in
      // the lane, and given_up_ must not hold it (it would stop the next
      // retry of that stream).
      record_.retrying.erase(static_cast<std::uint64_t>(entry.parked_version->value()));
      save_now_ = true;
      SetState(entry, State::kAcked);
      if (!record_.replaying) return;
    }
    given_up_.insert(entry.event.stream);
    for (Entry& other : replay_)
      if (other.event.stream == entry.event.stream && other.state != State::kAcked)
        SetState(other, State::kAcked);
  }

  // Pops the acknowledged prefix of the window into the checkpoint.
  void Advance() REQUIRES(mu_) {
    const Position before = checkpoint_;
    while (!window_.empty() && window_.front().state == State::kAcked) {
      checkpoint_ = window_.front().event.position;
      window_bytes_ -= PayloadBytes(window_.front().event);
      window_.pop_front();
    }
    // The window holds every matching event the subscription read, so what
    // lies between two of them was filtered out: done too.
    if (!window_.empty()) {
      const Position before_front(window_.front().event.position.value() - 1);
      checkpoint_ = std::max(checkpoint_, before_front);
    } else {
      checkpoint_ = std::max(checkpoint_, subscription_.position());
    }
    // Only a move is a change: Refill calls this on every pull, and a
    // change wakes every waiting pull.
    if (checkpoint_ != before) Changed();
  }

  // Saves the record (checkpoint and parking state together, so they never
  // disagree after a crash) when forced, when a park or a pass changed the
  // parked streams, or when the interval has passed.
  Status MaybeSave(bool force) REQUIRES(mu_) {
    if (deleted_) return Status::Ok();  // the record must not come back
    if (checkpoint_ == saved_checkpoint_ && !dirty_ && !save_now_) return Status::Ok();
    const auto now = Clock::now();
    if (!force && !save_now_ && now - last_save_ < checkpoint_interval_) return Status::Ok();
    record_.checkpoint = checkpoint_;
    ForgetSkips();
    if (Status s = store_.SaveRecord(subscriptions::RecordName(name_),
                                     subscriptions::EncodeGroupRecord(record_));
        !s.ok())
      return s;
    saved_checkpoint_ = checkpoint_;
    dirty_ = false;
    save_now_ = false;
    last_save_ = now;
    return Status::Ok();
  }

  Entry* Find(Position position) REQUIRES(mu_) {
    auto it =
        std::lower_bound(window_.begin(), window_.end(), position,
                         [](const Entry& entry, Position p) { return entry.event.position < p; });
    return it != window_.end() && it->event.position == position ? &*it : nullptr;
  }
  // The replay entry for `position` that is not finished, if any: replayed
  // events are acked by their original position, which is at or below the
  // checkpoint. The lane is short (a page), so a walk is fine.
  Entry* FindReplay(Position position) REQUIRES(mu_) {
    for (Entry& entry : replay_)
      if (entry.event.position == position && entry.state != State::kAcked && entry.attempts > 0)
        return &entry;
    return nullptr;
  }
  std::deque<Entry>& LaneOf(const Entry& entry) { return entry.parked_version ? replay_ : window_; }
  Entry* BlockedEntry() REQUIRES(mu_) { return blocked_at_ ? Find(*blocked_at_) : nullptr; }
  void Unblock() REQUIRES(mu_) {
    blocked_at_.reset();
    blocked_reason_.clear();
  }
  Status NotBlocked() const {
    return Status::Invalid("group", fmt::format("consumer group '{}' is not blocked", name_));
  }

  // The copy a per-event decision is about, read from $parked-<group>;
  // the errors every decision shares (see the header).
  Result<subscriptions::ParkedEvent> DecisionTarget(StreamVersion version, std::string_view act)
      REQUIRES(mu_) {
    if (deleted_) return DeletedError(name_);
    if (record_.options.policy != FailurePolicy::kPark)
      return Status::Invalid("group",
                             fmt::format("consumer group '{}' does not park events (its "
                                         "policy is block): there is no parked event to {}",
                                         name_, act));
    if (version.value() < 0)
      return Status::Invalid("version", "a parked event's version is an integer >= 0");
    if (!retries_loaded_) {
      if (Status s = LoadRetries(); !s.ok()) return s;
    }
    return ReadCopy(static_cast<std::uint64_t>(version.value()));
  }

  Result<subscriptions::ParkedEvent> ReadCopy(std::uint64_t version) const {
    ReadStreamOptions one;
    one.from = StreamVersion(static_cast<std::int64_t>(version));
    one.limit = 1;
    auto missing = [&] {
      return Status::NotFound(
          fmt::format("consumer group '{}' has no parked event {}: '{}' has no "
                      "such version",
                      name_, version, parked_stream_));
    };
    auto cursor = store_.ReadStream(parked_stream_, one);
    if (!cursor.ok())
      return cursor.status().code() == ErrorCode::kNotFound ? missing() : cursor.status();
    if (!(*cursor)->Valid()) {
      if (Status s = (*cursor)->status(); !s.ok()) return s;
      return missing();
    }
    const EventView& copy = (*cursor)->event();
    if (static_cast<std::uint64_t>(copy.version.value()) != version) return missing();
    return subscriptions::DecodeParkedCopy(copy);
  }

  ParkedState StateOf(std::uint64_t version, std::string_view stream) const REQUIRES(mu_) {
    if (record_.skipped.contains(version)) return ParkedState::kSkipped;
    if (record_.retrying.contains(version)) return ParkedState::kRetrying;
    auto it = record_.parked.find(stream);
    return it != record_.parked.end() && version >= it->second ? ParkedState::kPending
                                                               : ParkedState::kResolved;
  }

  Status NotPending(std::uint64_t version, std::string_view why) const {
    return Status::Conflict(fmt::format("event {} of '{}' {}", version, parked_stream_, why),
                            std::nullopt);
  }

  Status InFlightError(const Entry& entry) const {
    return Status::Conflict(
        fmt::format("event {} of '{}' is being delivered to consumer '{}' (as position {}): ack "
                    "or nack it first",
                    entry.parked_version->value(), parked_stream_, entry.consumer,
                    entry.event.position.value()),
        std::nullopt);
  }

  // The unfinished replay-lane entry of a copy, if any.
  Entry* ReplayEntry(std::uint64_t version) REQUIRES(mu_) {
    for (Entry& entry : replay_)
      if (entry.parked_version &&
          static_cast<std::uint64_t>(entry.parked_version->value()) == version &&
          entry.state != State::kAcked)
        return &entry;
    return nullptr;
  }

  // The version of the first pending copy of `stream` at or after `from`
  // (not skipped), read from $parked-<group>; nullopt if none is left.
  Result<std::optional<std::uint64_t>> NextPending(std::string_view stream,
                                                   std::uint64_t from) const REQUIRES(mu_) {
    std::uint64_t next = from;
    for (;;) {
      ReadStreamOptions options;
      options.from = StreamVersion(static_cast<std::int64_t>(next));
      options.limit = kParkedReadPage;
      auto cursor = store_.ReadStream(parked_stream_, options);
      if (!cursor.ok()) {
        if (cursor.status().code() == ErrorCode::kNotFound) return std::optional<std::uint64_t>();
        return cursor.status();
      }
      std::size_t read = 0;
      for (; (*cursor)->Valid(); (*cursor)->Next()) {
        ++read;
        const EventView& copy = (*cursor)->event();
        const auto version = static_cast<std::uint64_t>(copy.version.value());
        next = version + 1;
        if (record_.skipped.contains(version)) continue;
        auto parked = subscriptions::DecodeParkedCopy(copy);
        if (!parked.ok()) return parked.status();
        if (parked->original.stream == stream) return std::optional<std::uint64_t>(version);
      }
      if (Status s = (*cursor)->status(); !s.ok()) return s;
      if (read < kParkedReadPage) return std::optional<std::uint64_t>();
    }
  }

  // Moves a parked stream to its first pending copy at or after `from`, or
  // unparks it when none is left (its new events flow again).
  Status MoveParkedStream(const std::string& stream, std::uint64_t from) REQUIRES(mu_) {
    auto next = NextPending(stream, from);
    if (!next.ok()) return next.status();
    auto it = record_.parked.find(stream);
    if (it == record_.parked.end()) return Status::Ok();
    if (*next) {
      it->second = **next;
      return Status::Ok();
    }
    record_.parked.erase(it);
    if (record_.parked.empty()) record_.parked_events = 0;
    return Status::Ok();
  }

  // Saves a decision at once (an answered skip survives kill -9); if the
  // store refuses, the record goes back to `before`.
  Status SaveDecision(GroupRecord before) REQUIRES(mu_) {
    save_now_ = true;
    if (Status s = MaybeSave(true); !s.ok()) {
      record_ = std::move(before);
      RebuildSkippedPositions();
      return s;
    }
    RebuildSkippedPositions();
    return Status::Ok();
  }

  static Entry RetryEntry(RecordedEvent original, StreamVersion version) {
    Entry entry;
    entry.event = std::move(original);
    entry.parked_version = version;
    entry.retry = true;
    entry.not_before = Clock::now();
    return entry;
  }

  // A retried copy was acknowledged: resolved now, not in lane order. It
  // was its stream's first pending copy, so the next one is after it.
  void FinishRetry(Entry& entry) REQUIRES(mu_) {
    const auto version = static_cast<std::uint64_t>(entry.parked_version->value());
    entry.replay_done = false;  // counted here, not by AdvanceReplay
    record_.retrying.erase(version);
    if (record_.parked_events > 0) --record_.parked_events;
    if (auto it = record_.parked.find(entry.event.stream); it != record_.parked.end()) {
      // A failed read keeps the stream parked (a later replay resolves it).
      if (!MoveParkedStream(entry.event.stream, version + 1).ok())
        it->second = std::max<std::uint64_t>(it->second, version + 1);
    }
    save_now_ = true;
  }

  // The copies being retried (saved with the group) back into the lane
  // after a restart, ahead of any pass's copies.
  Status LoadRetries() REQUIRES(mu_) {
    const std::set<std::uint64_t> versions = record_.retrying;
    for (std::uint64_t version : versions) {
      auto copy = ReadCopy(version);
      if (!copy.ok() && copy.status().code() == ErrorCode::kNotFound) {
        record_.retrying.erase(version);
        save_now_ = true;
        continue;
      }
      if (!copy.ok()) return copy.status();
      replay_.push_back(
          RetryEntry(std::move(copy->original), StreamVersion(static_cast<std::int64_t>(version))));
    }
    retries_loaded_ = true;
    return Status::Ok();
  }

  // Drops the skips that stopped mattering (see SkippedCopy) as the record
  // is saved with `checkpoint_`.
  void ForgetSkips() REQUIRES(mu_) {
    const std::size_t before = record_.skipped.size();
    std::erase_if(record_.skipped, [&](const auto& item) REQUIRES(mu_) {
      auto it = record_.parked.find(item.second.stream);
      const bool passed_over_by_replays = it != record_.parked.end() && item.first >= it->second;
      return !passed_over_by_replays && item.second.position <= checkpoint_;
    });
    if (record_.skipped.size() != before) RebuildSkippedPositions();
  }

  void RebuildSkippedPositions() REQUIRES(mu_) {
    skipped_positions_.clear();
    for (const auto& [version, copy] : record_.skipped)
      skipped_positions_.insert(copy.position.value());
  }

  Store& store_;
  const std::string name_;
  GroupRecord record_;
  const std::size_t window_limit_;
  const std::size_t window_bytes_limit_;
  const milliseconds checkpoint_interval_;
  const std::string parked_stream_;
  const bool deliver_store_streams_;  // the filter names '$' streams

  Mutex mu_;
  CondVar changed_;
  Subscription subscription_ GUARDED_BY(mu_);
  std::deque<Entry> window_ GUARDED_BY(mu_);
  std::size_t window_bytes_ GUARDED_BY(mu_) = 0;  // PayloadBytes of window_
  bool deleted_ GUARDED_BY(mu_) = false;          // Delete reached this object
  Position checkpoint_ GUARDED_BY(mu_);
  Position saved_checkpoint_ GUARDED_BY(mu_);
  Clock::time_point last_save_;
  std::optional<Position> blocked_at_ GUARDED_BY(mu_);
  std::string blocked_reason_ GUARDED_BY(mu_);
  std::uint64_t redeliveries_ GUARDED_BY(mu_) = 0;
  std::uint64_t in_flight_ GUARDED_BY(mu_) = 0;
  // Parking: record_ holds the parked streams (saved with the checkpoint).
  std::deque<Entry> replay_ GUARDED_BY(mu_);
  std::uint64_t replay_next_ GUARDED_BY(mu_) = 0;  // next copy to read
  bool replay_at_end_ GUARDED_BY(mu_) = false;     // the last read found no more copies
  std::set<std::string, std::less<>> given_up_ GUARDED_BY(mu_);  // this pass
  bool dirty_ GUARDED_BY(mu_) = false;                           // replay progress to save
  bool save_now_ GUARDED_BY(mu_) = false;                        // parked streams changed
  bool retries_loaded_ GUARDED_BY(mu_) = false;                  // record_.retrying is in replay_
  // The original positions of record_.skipped (Take passes them over).
  std::set<std::uint64_t> skipped_positions_ GUARDED_BY(mu_);
  std::map<std::string, Member, std::less<>> members_ GUARDED_BY(mu_);
  // When a pull could not be listed last (kMaxMembers busy).
  std::optional<Clock::time_point> omitted_at_ GUARDED_BY(mu_);

  Mutex notify_mu_ ACQUIRED_AFTER(mu_);  // after mu_ when both are held
  std::uint64_t changes_ GUARDED_BY(notify_mu_) = 0;
  Ticket last_ticket_ GUARDED_BY(notify_mu_) = 0;
  std::map<Ticket, std::function<void()>> notify_ GUARDED_BY(notify_mu_);
};

Status ConsumerGroup::Create(Store& store, std::string_view name,
                             const ConsumerGroupOptions& options) {
  if (Status s = subscriptions::ValidateGroupName(name); !s.ok()) return s;
  if (Status s = subscriptions::ValidateGroupOptions(options); !s.ok()) return s;
  const std::string record_name = subscriptions::RecordName(name);
  auto existing = store.LoadRecord(record_name);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) {
    auto saved = subscriptions::DecodeGroupRecord(name, **existing);
    if (!saved.ok()) return saved.status();
    if (subscriptions::SameDefinition(saved->options, options)) return Status::Ok();
    return Status::Conflict(
        fmt::format("consumer group '{}' exists with another filter, start or policy; "
                    "delete it first or pick another name",
                    name),
        std::nullopt);
  }
  GroupRecord record;
  record.options = options;
  record.checkpoint = options.start;
  return store.SaveRecord(record_name, subscriptions::EncodeGroupRecord(record));
}

Result<std::unique_ptr<ConsumerGroup>> ConsumerGroup::Open(Store& store, std::string_view name,
                                                           const ConsumerGroupOptions& local) {
  if (Status s = subscriptions::ValidateGroupName(name); !s.ok()) return s;
  if (Status s = subscriptions::ValidateGroupOptions(local); !s.ok()) return s;
  // Read and registered under the lock Delete holds: see Delete.
  Impl::OpenGroups& open = Impl::Registry();
  MutexLock lock(&open.mu);
  auto text = store.LoadRecord(subscriptions::RecordName(name));
  if (!text.ok()) return text.status();
  if (!text->has_value())
    return Status::NotFound(fmt::format("no consumer group '{}': create it first", name));
  auto record = subscriptions::DecodeGroupRecord(name, **text);
  if (!record.ok()) return record.status();
  auto impl = std::make_unique<Impl>(store, std::string(name), std::move(*record), local);
  impl->RegisterLocked(open);
  return std::unique_ptr<ConsumerGroup>(new ConsumerGroup(std::move(impl)));
}

Result<std::vector<std::string>> ConsumerGroup::List(Store& store) {
  auto records = store.ListRecords(subscriptions::kGroupRecordPrefix);
  if (!records.ok()) return records.status();
  std::vector<std::string> names;
  for (const auto& [key, value] : *records)
    names.push_back(key.substr(subscriptions::kGroupRecordPrefix.size()));
  return names;
}

Result<bool> ConsumerGroup::Exists(Store& store, std::string_view name) {
  if (Status s = subscriptions::ValidateGroupName(name); !s.ok()) return s;
  auto record = store.LoadRecord(subscriptions::RecordName(name));
  if (!record.ok()) return record.status();
  return record->has_value();
}

Status ConsumerGroup::Delete(Store& store, std::string_view name) {
  if (Status s = subscriptions::ValidateGroupName(name); !s.ok()) return s;
  // Every open object is closed before the record goes, and none can open
  // meanwhile: after this returns, nothing in this process saves it again.
  Impl::OpenGroups& open = Impl::Registry();
  MutexLock lock(&open.mu);
  auto [first, last] = open.impls.equal_range(Impl::Key(store, name));
  for (auto it = first; it != last; ++it) it->second->MarkDeleted();
  return store.DeleteRecord(subscriptions::RecordName(name));
}

ConsumerGroup::ConsumerGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ConsumerGroup::~ConsumerGroup() { (void)impl_->Flush(); }

Result<std::vector<Delivery>> ConsumerGroup::Pull(std::string_view consumer, std::size_t max,
                                                  milliseconds wait, const PullBudget& budget) {
  return impl_->Pull(consumer, max, wait, /*in_order=*/false, budget);
}
Result<std::vector<Delivery>> ConsumerGroup::PullInOrder(std::string_view consumer, std::size_t max,
                                                         milliseconds wait,
                                                         const PullBudget& budget) {
  return impl_->Pull(consumer, max, wait, /*in_order=*/true, budget);
}
Status ConsumerGroup::Ack(Position position) { return impl_->Ack({position}); }
Status ConsumerGroup::Ack(const std::vector<Position>& positions) { return impl_->Ack(positions); }
Status ConsumerGroup::Nack(Position position, std::string_view reason) {
  return impl_->Nack(position, reason);
}
Status ConsumerGroup::Retry() { return impl_->Retry(); }
Status ConsumerGroup::Skip() { return impl_->Skip(); }
Status ConsumerGroup::ReplayParked() { return impl_->ReplayParked(); }
Status ConsumerGroup::Flush() { return impl_->Flush(); }
bool ConsumerGroup::WaitFor(Position position, milliseconds timeout) {
  return impl_->WaitFor(position, timeout);
}
std::uint64_t ConsumerGroup::changes() { return impl_->changes(); }
ConsumerGroup::Ticket ConsumerGroup::NotifyChange(std::uint64_t seen, std::function<void()> fn) {
  return impl_->NotifyChange(seen, std::move(fn));
}
void ConsumerGroup::CancelNotify(Ticket ticket) { impl_->CancelNotify(ticket); }
PullIdle ConsumerGroup::Idle() { return impl_->Idle(); }
bool ConsumerGroup::deleted() { return impl_->deleted(); }
ConsumerGroupInfo ConsumerGroup::info(bool with_members) { return impl_->Info(with_members); }
Status ConsumerGroup::RetryParked(StreamVersion parked_version) {
  return impl_->RetryParked(parked_version);
}
Status ConsumerGroup::SkipParked(StreamVersion parked_version) {
  return impl_->SkipParked(parked_version);
}
Result<ParkedPage> ConsumerGroup::ReadParked(StreamVersion from, std::size_t limit,
                                             std::size_t max_bytes) {
  return impl_->ReadParked(from, limit, max_bytes);
}
void ConsumerGroup::CountWaiting(std::string_view consumer, int delta) {
  impl_->CountWaiting(consumer, delta);
}
const std::string& ConsumerGroup::name() const { return impl_->name(); }

}  // namespace indelible
