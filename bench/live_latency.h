// The live half of the subscribe and group scenarios: one writer appends
// 2,000 single events (durable, closed loop) to an empty store while a
// consumer thread waits for them; the figure is, per event, when the
// consumer got it minus when its append was acknowledged (0 when the
// consumer got it first: an event is readable once committed).
#pragma once

#include <atomic>
#include <functional>
#include <string_view>

#include "bench/common.h"

namespace indelible::bench {

// Records that the event at `position` arrived; an error if one was skipped.
using SeenFn = std::function<Status(Position position)>;
// Runs on its own thread: waits for positions 1..events in order and calls
// `seen` for each, until all arrived or `stop` is set (the writer failed).
using LiveConsumer =
    std::function<Status(std::uint64_t events, const std::atomic<bool>& stop, const SeenFn& seen)>;

struct LiveSpec {
  std::string_view bench;     // "subscribe-live"
  std::string_view who;       // the conditions field: "subscribers" or "consumers"
  std::string_view measured;  // what the latency is, for the line
};

// Prints `<bench> p50_us` and `p99_us` (target: p99 <= 2 ms).
Status RunLiveLatency(Context& context, Store& store, const LiveSpec& spec,
                      const LiveConsumer& consume);

}  // namespace indelible::bench
