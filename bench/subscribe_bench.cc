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

#include "bench/live_latency.h"
#include "bench/read_passes.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

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
  ScratchFolder folder(context, "subscribe-live");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  return RunLiveLatency(
      context, **store,
      {.bench = "subscribe-live", .who = "subscribers", .measured = "handler_time_minus_ack_time"},
      [&](std::uint64_t events, const std::atomic<bool>& stop, const SeenFn& seen) {
        Subscription sub(**store, {});
        for (std::uint64_t got = 0; got < events && !stop;) {
          auto batch = sub.Next(std::chrono::milliseconds(100));
          if (!batch.ok()) return batch.status();
          for (const RecordedEvent& event : batch->events) {
            if (Status s = seen(event.position); !s.ok()) return s;
            ++got;
          }
        }
        return Status::Ok();
      });
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
