// ConsumerGroup: a named, durable subscription whose checkpoint the store
// keeps, shared by any number of consumers, delivering every event at least
// once and each stream's events in order.
//
// Operation:
//
//   ConsumerGroup::Create(store, "mailer", {.filter = {.categories = {"order"}}});
//   auto group = ConsumerGroup::Open(store, "mailer");
//   for (;;) {
//     auto batch = (*group)->Pull("worker-1", 100, std::chrono::seconds(1));
//     for (const Delivery& d : *batch) {
//       if (Status s = Handle(d.event); s.ok()) (*group)->Ack(d.event.position);
//       else (*group)->Nack(d.event.position, s.message());
//     }
//   }
//
// Delivery. Events come in position order. An event is handed out only when
// every earlier event of its stream is acknowledged, or goes out in the same
// batch: so each stream's events are handled in order even with several
// consumers, which share the streams between them (partition by stream). A
// consumer that gets several events of one stream in a batch and fails on
// one must not acknowledge the later ones: its Nack takes them back (they
// go out again after the failed one, without counting an attempt).
//
// Failure. A nack, or a lease that expires (the consumer died or hung), is a
// failed attempt: the event is delivered again after a back-off that doubles
// from `initial_backoff` up to `max_backoff`. After `max_attempts` the
// group's policy applies: kBlock stops the whole group at that event (the
// default; info() says why) until an operator calls Retry or Skip; kPark
// copies it to `$parked-<group>` and goes on (see FailurePolicy).
//
// Replay. ReplayParked starts a pass over `$parked-<group>`: the parked
// events are delivered again by Pull (the original event, with
// Delivery::parked_version set), in the order they were parked, each
// stream's in order, before new events; they are acked and nacked by their
// original position like any delivery. When the pass reaches the end of the
// parked stream, every stream whose parked events were all acknowledged is
// unparked and its new events flow again. A replayed event that fails
// `max_attempts` times again stays parked with the rest of its stream, for
// a later pass. Events of store streams (names starting with '$', such as
// the parked streams themselves) are not delivered unless the filter names
// them with a stream prefix starting with '$'.
//
// Parked events one by one. Each copy in `$parked-<group>` is addressed by
// its version there (the stable key: the stream is append-only and the copy
// of an event, made idempotently, keeps its version). ReadParked lists the
// copies with their state; SkipParked discards one (no replay delivers it,
// and if it was its stream's last pending one the stream is unparked);
// RetryParked delivers one again through Pull, as a replay does, without
// the rest. A retry never passes an earlier pending event of the same
// stream (it is refused, naming that event), so per-stream order holds.
// Both are saved with the group before they return.
//
// Members. Each consumer name that pulls is a member, kept in memory (not
// saved): the events leased to it, its last pull and its pulls waiting now.
// A member that holds nothing and has not pulled for kMemberIdle is
// forgotten. At most kMaxMembers are kept per group: a new name past that
// takes the place of the member idle the longest (holding nothing, not
// waiting); if every member holds events or waits, the new name is served
// but not listed, and info() says members_omitted for kMemberIdle.
//
// Checkpoint. The highest position at or below which every event is
// acknowledged (or filtered out); never past an unacknowledged event. It is
// saved with Store::SaveRecord at most every `checkpoint_interval`, on
// Skip and on Flush: after a crash, the events acknowledged since the last
// save are delivered again (at-least-once).
//
// Memory: at most `window` events are held (in flight, waiting or acked
// behind an unacknowledged one), and the group reads no further once they
// take `window_bytes` of payload (it may pass that by one read page, at most
// min(1 MiB, window_bytes) plus an event; a window always admits one event,
// however large); it reads further only as the window drains. A Pull's
// PullBudget bounds the bytes of one batch: what does not fit stays
// undelivered for the next pull.
//
// Delete. Delete wins every race in this process: every open object of the
// group is closed under its lock before the record is removed, and a closed
// object never saves again (its Pull, Ack and the rest answer not_found, its
// destructor saves nothing), so no concurrent pull, ack or close brings the
// group back. Objects open in other processes are not reached.
//
// Waiting without a thread (the HTTP server's long pulls): a Pull with no
// wait that found nothing may find something after (1) a call that changes
// the group (ack, nack, retry, skip, replay, delete: see NotifyChange), (2)
// a commit past Idle().commit_after, or (3) the time Idle().due, when a
// back-off or a lease ends.
//
// Concurrency: a ConsumerGroup is safe for concurrent use by many threads.
// Open one object per group per process; the Store must outlive it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/event.h"
#include "indelible/options.h"
#include "indelible/result.h"
#include "indelible/store.h"
#include "indelible/types.h"

namespace indelible {

enum class FailurePolicy : std::uint8_t {
  // Default. The group stops at the failing event until Retry or Skip.
  kBlock,
  // The failing event is copied to the stream `$parked-<group>` and counts
  // as handled; the group goes on with other streams. Later events of the
  // same stream are parked behind it (per-stream order is kept) until
  // ReplayParked has delivered that stream's parked events.
  kPark,
};

struct ConsumerGroupOptions {
  AllFilter filter;
  // Exclusive start: the first event delivered is the first matching one
  // after this position. Position(0): from the beginning of $all.
  Position start{0};
  FailurePolicy policy = FailurePolicy::kBlock;
  // Deliveries of one event (the first and the retries) before the policy applies.
  int max_attempts = 5;
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
  // How long a consumer may hold an event before it is delivered again.
  std::chrono::milliseconds lease{30000};
  // Not saved with the group: per process. Events held at most, and the
  // payload bytes (data, metadata, type, schema, content type, stream name)
  // past which the group reads no further (see Memory above).
  std::size_t window = 10000;
  std::size_t window_bytes = 16 << 20;
  std::chrono::milliseconds checkpoint_interval{100};
};

struct Delivery {
  RecordedEvent event;
  int attempt = 1;  // 1 on the first delivery
  // Set on a replay of a parked event: its version in `$parked-<group>`.
  std::optional<StreamVersion> parked_version;
};

// Bounds a pull's batch by size as well as by count.
struct PullBudget {
  // The batch stops before the delivery that would take it past this many
  // bytes; the first delivery always goes out, however large. Deliveries
  // left out stay undelivered (not in flight) for the next pull.
  std::size_t max_bytes = SIZE_MAX;
  // The size of a delivery (the HTTP server measures its JSON); empty: the
  // event's payload bytes, as the window counts them. Called under the
  // group's lock, once per delivery considered, in batch order.
  std::function<std::size_t(const Delivery&)> size;
};

// What a Pull that found nothing can wait for (see "Waiting without a
// thread" above).
struct PullIdle {
  // A commit past this may bring events; nullopt while the window is full
  // or the group is blocked (then only a change helps).
  std::optional<Position> commit_after;
  // The earliest end of a back-off or a lease; nullopt if none.
  std::optional<std::chrono::steady_clock::time_point> due;
};

// A consumer of the group (see Members above).
struct ConsumerGroupMember {
  std::string consumer;           // the name it pulls with
  std::uint64_t in_flight = 0;    // events leased to it now
  std::int64_t last_pull_ms = 0;  // Unix milliseconds of its last pull
  std::uint64_t waiting = 0;      // its pulls waiting for events now
};

// Where a parked copy stands (see Parked events one by one above).
enum class ParkedState : std::uint8_t {
  // Parked: a replay, a retry or a skip will resolve it.
  kPending,
  // Delivered again on its own (RetryParked) until acked, or until it fails
  // max_attempts times again (then pending).
  kRetrying,
  // Skipped, and the group still needs to remember it: its stream is still
  // parked, or the group has not yet passed the original in $all.
  kSkipped,
  // Not pending any more: replayed and acknowledged, or skipped earlier
  // (the record forgets skips once they stop mattering; $audit keeps the
  // operator's acts over HTTP).
  kResolved,
};

struct ParkedCopy {
  // As stored in `$parked-<group>`: copy.version is its parked version; the
  // metadata holds `$parked` (where it came from, why) and the original's.
  RecordedEvent copy;
  ParkedState state = ParkedState::kPending;
};

struct ParkedPage {
  std::vector<ParkedCopy> events;
  // Where the next page starts; nullopt when no copy is left.
  std::optional<StreamVersion> next;
};

struct ConsumerGroupInfo {
  std::string name;
  Position checkpoint;       // everything at or below is acknowledged
  Position last_position;    // the store's newest event
  std::uint64_t lag_events;  // last_position - checkpoint (filtered events included)
  double lag_seconds = 0;    // age of the oldest unacknowledged event held
  std::uint64_t in_flight = 0;
  std::uint64_t redeliveries = 0;    // since the group was opened
  std::uint64_t parked_streams = 0;  // streams whose events are being parked
  std::uint64_t parked_events = 0;   // parked events not yet replayed
  bool replaying = false;            // a ReplayParked pass is under way
  // Set while the group is blocked: the event and why.
  std::optional<Position> blocked_at;
  std::string blocked_reason;
  // In name order; empty when info(false) was asked.
  std::vector<ConsumerGroupMember> members;
  // A consumer pulled in the last kMemberIdle that could not be listed
  // (kMaxMembers were busy).
  bool members_omitted = false;
};

class ConsumerGroup {
 public:
  // See Members above.
  static constexpr std::size_t kMaxMembers = 1000;
  static constexpr std::chrono::minutes kMemberIdle{5};

  // Creates the group (saved in the store). Creating it again with the same
  // filter, start and policy is ok; with others, a conflict. Names: 1 to 200
  // bytes of letters, digits, '-', '_' and '.'.
  static Status Create(Store& store, std::string_view name, const ConsumerGroupOptions& options);
  // Loads the group and its checkpoint; not_found if it was never created.
  // The per-process options (window, checkpoint_interval) come from
  // `local`; the rest from the saved group.
  static Result<std::unique_ptr<ConsumerGroup>> Open(Store& store, std::string_view name,
                                                     const ConsumerGroupOptions& local = {});
  static Result<std::vector<std::string>> List(Store& store);
  // Whether a group of that name was created (reads its record only).
  static Result<bool> Exists(Store& store, std::string_view name);
  // Removes the group's record. Every object of it open in this process is
  // closed first (see Delete above): it answers not_found from then on. If
  // removing the record fails, those objects stay closed; Open again.
  static Status Delete(Store& store, std::string_view name);

  ~ConsumerGroup();  // saves the checkpoint (Flush), errors ignored; not once deleted
  ConsumerGroup(const ConsumerGroup&) = delete;
  ConsumerGroup& operator=(const ConsumerGroup&) = delete;

  // Up to `max` events (and `budget`) for `consumer`, waiting up to `wait`
  // when none can be delivered now. Empty when the wait passed, or while the
  // group is blocked. not_found once the group was deleted.
  Result<std::vector<Delivery>> Pull(std::string_view consumer, std::size_t max,
                                     std::chrono::milliseconds wait, const PullBudget& budget = {});
  // Like Pull, but in position order across streams: never hands out an
  // event while an earlier unacknowledged one is in flight or backing off
  // outside the batch (it returns what comes before that one); events in
  // flight to this same consumer do not stop it, so it can pipeline. For a
  // single consumer that must see the log in order, such as NatsRelay:
  // after a crashed consumer's leases expire, it gets the oldest first.
  Result<std::vector<Delivery>> PullInOrder(std::string_view consumer, std::size_t max,
                                            std::chrono::milliseconds wait,
                                            const PullBudget& budget = {});
  // Acknowledges delivered events. Positions at or below the checkpoint are
  // ok (a repeated ack); a position that was never delivered is invalid.
  Status Ack(Position position);
  Status Ack(const std::vector<Position>& positions);
  // The handler failed on a delivered event: a failed attempt (see above).
  Status Nack(Position position, std::string_view reason);
  // Operator decisions on a blocked group: deliver the event again with a
  // fresh count of attempts, or skip it (acknowledged, saved at once).
  // invalid if the group is not blocked.
  Status Retry();
  Status Skip();
  // Starts a pass that delivers the parked events again (see Replay above).
  // Ok and nothing to do when nothing is parked or a pass is under way.
  Status ReplayParked();
  // Per-event decisions on parked events (see Parked events one by one),
  // by the copy's version in `$parked-<group>`. Both answer invalid on a
  // group that does not park, not_found for a version with no copy,
  // conflict when the copy is not pending (skipped, resolved) or is being
  // delivered now (ack or nack it first), and change nothing then; an
  // error saving the group record is returned and undoes the decision.
  // RetryParked: conflict while a replay pass is under way (it delivers the
  // copy already) or while an earlier copy of the same stream is pending
  // (the message names its version); ok and nothing changed if the copy is
  // being retried already.
  Status RetryParked(StreamVersion parked_version);
  Status SkipParked(StreamVersion parked_version);
  // Up to `limit` copies of `$parked-<group>` from version `from`, with
  // their state, stopping once their payload takes `max_bytes` (one copy at
  // least). A group with nothing parked (or that does not park) gives an
  // empty page.
  Result<ParkedPage> ReadParked(StreamVersion from, std::size_t limit,
                                std::size_t max_bytes = SIZE_MAX);
  // Saves the checkpoint now (ok and nothing saved once deleted).
  Status Flush();
  // Waits until the checkpoint is at or past `position` (read-your-writes:
  // the group has handled a write at that position) or the timeout passes;
  // true if it is. Only this process's acknowledgements move it. False at
  // once when the group is deleted.
  bool WaitFor(Position position, std::chrono::milliseconds timeout);

  // Counts the calls that may let a pull deliver more or move the
  // checkpoint: acks, nacks, retries, skips, replays, a delete, a read that
  // moved the checkpoint past filtered-out events.
  std::uint64_t changes();
  // Calls `fn` once when changes() passes `seen`: at once on this thread if
  // it has (the ticket is then 0), else on the thread making the change,
  // which may hold the group's lock: `fn` must only post work elsewhere (it
  // may call CancelNotify, nothing else of this group).
  using Ticket = std::uint64_t;
  Ticket NotifyChange(std::uint64_t seen, std::function<void()> fn);
  // Drops a registration; a ticket that fired or was cancelled is ignored.
  // `fn` may still run once if it was being called meanwhile.
  void CancelNotify(Ticket ticket);
  // What a pull that found nothing can wait for.
  PullIdle Idle();
  bool deleted();

  // A pull that waits outside the group (a Pull with no wait, tried again
  // when something changes, such as the HTTP server's long pulls) counts
  // itself with +1 while it waits and -1 once done, so its member shows it.
  // A Pull with a wait counts itself.
  void CountWaiting(std::string_view consumer, int delta);

  // `with_members`: false leaves members empty (it copies up to
  // kMaxMembers names: a status answered after every ack need not).
  ConsumerGroupInfo info(bool with_members = true);
  const std::string& name() const;

 private:
  class Impl;
  explicit ConsumerGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace indelible
