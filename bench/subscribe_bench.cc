// subscribe: the library's Subscription (include/indelible/subscription.h).
//   catch-up: 1,000,000 stored events (written first, 100 per append over
//             1,000 streams, untimed) delivered to a no-op handler from
//             position 0 until the subscription reports caught_up;
//   live:     one writer appends 2,000 single events, durable, closed loop;
//             a subscriber thread waits in Next. Latency = when the handler
//             got the event minus when its append was acknowledged (0 when
//             the handler got it first: it is readable once committed).
#include <fmt/format.h>
#include <indelible/subscription.h>

#include <algorithm>
#include <random>
#include <thread>

#include "bench/events.h"
#include "bench/read_passes.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

using Clock = std::chrono::steady_clock;

Result<PassTotals> SubscribeOnce(Store& store) {
  Subscription sub(store, {});
  PassTotals totals;
  for (;;) {
    auto batch = sub.Next(std::chrono::milliseconds(0));
    if (!batch.ok()) return batch.status();
    for (const RecordedEvent& event : batch->events) {
      if (event.position.value() != totals.events + 1)
        return Status::Internal(fmt::format("subscribe: position {} where {} was expected",
                                            event.position.value(), totals.events + 1));
      totals.data_bytes += event.data.size();
      ++totals.events;
    }
    if (batch->caught_up) return totals;
  }
}

Status RunLive(Context& context) {
  constexpr std::uint64_t kEvents = 2000;
  ScratchFolder folder(context, "subscribe-live");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  std::vector<Clock::time_point> acked(kEvents + 1), received(kEvents + 1);
  Status failed;
  std::thread subscriber([&] {
    Subscription sub(**store, {});
    std::uint64_t seen = 0;
    while (seen < kEvents) {
      auto batch = sub.Next(std::chrono::seconds(10));
      if (!batch.ok()) return void(failed = batch.status());
      const auto now = Clock::now();
      for (const RecordedEvent& event : batch->events) {
        if (event.position.value() != seen + 1)
          return void(failed = Status::Internal("subscribe-live: a position was skipped"));
        received[++seen] = now;
      }
    }
  });
  std::mt19937 rng(7);
  Stopwatch watch;
  for (std::uint64_t i = 0; i < kEvents; ++i) {
    auto r =
        (*store)->Append("account-000000", Expected::any(),
                         {DepositedEvent("account-000000", i, context.options().event_bytes, rng)});
    if (!r.ok()) {
      subscriber.detach();
      return r.status();
    }
    acked[r->position.value()] = Clock::now();
  }
  subscriber.join();
  if (!failed.ok()) return failed;
  std::vector<double> latencies;
  for (std::uint64_t p = 1; p <= kEvents; ++p)
    latencies.push_back(
        std::max(0.0, std::chrono::duration<double, std::micro>(received[p] - acked[p]).count()));
  const Conditions conditions{kEvents, 1, context.options().event_bytes, 1, 1};
  Line extra;
  extra.Add("subscribers", 1).Add("measured", "handler_time_minus_ack_time");
  context.AddFigure("subscribe-live", "p50_us", Quantile(latencies, 0.5), 0, conditions,
                    Target::None(), false, extra);
  context.AddFigure("subscribe-live", "p99_us", Quantile(latencies, 0.99), 0, conditions,
                    Target::AtMost(2000), false, extra);
  return Status::Ok();
}

}  // namespace

Status RunSubscribe(Context& context) {
  if (Status s = RunReadPasses(context, {.bench = "subscribe",
                                         .default_events = 1000000,
                                         .streams = 1000,
                                         .target = Target::None(),
                                         .read = SubscribeOnce});
      !s.ok())
    return s;
  return RunLive(context);
}

}  // namespace indelible::bench
