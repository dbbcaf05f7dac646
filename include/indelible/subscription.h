// Subscription: every event past a position, the stored ones first and then
// the live ones as they are committed, with no gap and no duplicate at the
// switch from one to the other.
//
// Operation:
//
//   Subscription sub(store, {.filter = {.categories = {"todo"}}, .after = checkpoint});
//   for (;;) {
//     auto batch = sub.Next(std::chrono::seconds(1));  // waits at most 1 s
//     if (!batch.ok()) ...;                            // store error: retry Next or stop
//     for (const RecordedEvent& event : batch->events) Handle(event);
//     Save(sub.position());                            // the checkpoint to resume from
//     if (batch->caught_up) ...;                       // everything committed so far is handled
//   }
//
// The subscription reads the store a page at a time and only inside Next:
// a slow handler holds at most one page in memory, never a backlog, and a
// subscriber that falls behind simply reads older events from the store
// later. Once a read finds nothing new, Next waits for the next commit with
// Store::WaitForCommit (no polling, no thread of its own).
//
// Concurrency: a Subscription belongs to one thread. The Store must outlive
// it. Store errors stay on the call that met them: the subscription's
// position is unchanged, so calling Next again retries the same read.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "indelible/event.h"
#include "indelible/options.h"
#include "indelible/query.h"
#include "indelible/result.h"
#include "indelible/store.h"
#include "indelible/types.h"

namespace indelible {

struct SubscriptionOptions {
  // Empty: $all, narrowed by `filter`. Otherwise one stream, every event of
  // it including a `$deleted` tombstone, so the subscriber learns of a
  // deletion; a stream that does not exist yet is waited for.
  // Where positions come after the commit (StoreTraits), it reads $all and
  // keeps the stream's events: the same order, found by a scan.
  std::string stream;
  // $all only (categories, stream prefixes, event types); must be empty for
  // a stream subscription.
  AllFilter filter;
  // $all only, instead of `filter`: the events matching this query
  // (query.h, docs/DCB.md), read with Store::ReadQuery. Must be unset for a
  // stream subscription, and `filter` empty beside it.
  std::optional<Query> query;
  // Exclusive start: the first event delivered is the first matching one
  // with a position greater than `after`. Position(0): from the beginning.
  // A checkpoint saved from position() resumes exactly where it stopped.
  Position after{0};
  // Most events one Next returns. A page also ends early once it holds
  // page_bytes of event payloads, so large events keep memory bounded.
  std::size_t page_events = 500;
  std::size_t page_bytes = 1 << 20;
  // Most events one read of $all looks at, matching the filter or not. A
  // filter that matches little then costs a bounded scan per read instead of
  // a walk of the whole log inside one Next: Next goes on reading until its
  // timeout, and with a short timeout returns an empty batch that is not
  // caught up, position() past what was scanned, so the caller regains
  // control (a server thread serves other subscribers meanwhile).
  std::size_t max_scan = 10000;
};

struct SubscriptionBatch {
  std::vector<RecordedEvent> events;  // in position order
  // True when this batch reached the end of what was committed at the time
  // of its read: every matching event committed before Next was called has
  // now been delivered. The first such batch is the "caught up" signal; it
  // may be empty.
  bool caught_up = false;
};

class Subscription {
 public:
  // Invalid options (a filter on a stream subscription, a bad stream name,
  // page_events 0) are reported by the first Next, as invalid.
  Subscription(Store& store, SubscriptionOptions options);
  Subscription(const Subscription&) = delete;
  Subscription& operator=(const Subscription&) = delete;

  // Returns the next events, waiting up to `timeout` for some to be
  // committed when none are left to read. An empty batch means the timeout
  // passed with nothing new: caught_up true when everything committed was
  // read, false when the timeout passed while the filter skipped events
  // (position() has moved past them; call Next again to read on).
  Result<SubscriptionBatch> Next(std::chrono::milliseconds timeout);

  // Everything at or before this position was delivered or filtered out:
  // the checkpoint to pass as `after` to resume. Starts at options.after.
  Position position() const { return position_; }
  // True once a batch came back with caught_up.
  bool caught_up() const { return caught_up_; }

 private:
  Result<SubscriptionBatch> ReadPage();
  Result<SubscriptionBatch> ReadAllPage();
  Result<SubscriptionBatch> ReadQueryPage();
  Result<SubscriptionBatch> ReadStreamPage();

  Store& store_;
  SubscriptionOptions options_;
  Status invalid_;
  Position position_;
  // Stream subscriptions: the next version to read once the first read
  // found where `after` falls in the stream.
  StreamVersion next_version_{0};
  bool caught_up_ = false;
};

}  // namespace indelible
