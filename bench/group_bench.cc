// group: a consumer group (include/indelible/consumer_group.h) with a no-op
// handler, in process.
//   catch-up: 1,000,000 stored events (written first, 100 per append over
//             1,000 streams, untimed; the store reopened), pulled in batches of 1,000 and
//             acknowledged until the checkpoint reaches the last event.
//             Target: >= 1,000,000 events/s.
//   live:     one writer appends 2,000 single events, durable, closed loop;
//             a consumer thread pulls and acks. Latency = when Pull returned
//             the event minus when its append was acknowledged (0 when
//             Pull returned first). Target: p99 < 2 ms.
#include <fmt/format.h>
#include <indelible/consumer_group.h>

#include "bench/live_latency.h"
#include "bench/scenarios.h"
#include "bench/stored_group.h"

namespace indelible::bench {
namespace {

Status RunCatchUp(Context& context) {
  const Options& options = context.options();
  const std::uint64_t events = options.events.value_or(1000000);
  ScratchFolder folder(context, "group");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto stored = OpenStoredGroup(context, folder.path(), events, "group: writing", "bench");
  if (!stored.ok()) return stored.status();
  ConsumerGroup* group = stored->group.get();

  Progress progress("group: consuming", events);
  Stopwatch watch;
  std::uint64_t delivered = 0;
  std::vector<Position> positions;
  while (delivered < events) {
    auto batch = group->Pull("bench", 1000, std::chrono::milliseconds(100));
    if (!batch.ok()) return batch.status();
    positions.clear();
    for (const Delivery& d : *batch) positions.push_back(d.event.position);
    if (Status s = group->Ack(positions); !s.ok()) return s;
    delivered += batch->size();
    progress.Update(delivered);
  }
  const double seconds = watch.Seconds();
  const double cpu = watch.CpuSeconds();
  progress.Finish();
  if (delivered != events || group->info().checkpoint.value() != events)
    return Status::Internal(fmt::format("group: {} deliveries for {} events, checkpoint {}",
                                        delivered, events, group->info().checkpoint.value()));
  const Conditions conditions{events, 1, options.event_bytes, 100, 1000};
  Line extra;
  extra.Add("batch", 1000).Add("handler", "no-op").Add("cpu_s", cpu, 3).Add("seconds", seconds, 3);
  context.AddFigure("group", "events_per_s", static_cast<double>(events) / seconds, 0, conditions,
                    Target::AtLeast(1000000), false, extra);
  return Status::Ok();
}

Status RunLive(Context& context) {
  ScratchFolder folder(context, "group-live");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  if (Status s = ConsumerGroup::Create(**store, "live", {}); !s.ok()) return s;
  auto group = ConsumerGroup::Open(**store, "live");
  if (!group.ok()) return group.status();
  return RunLiveLatency(
      context, **store,
      {.bench = "group-live", .who = "consumers", .measured = "pull_time_minus_ack_time"},
      [&](std::uint64_t events, const std::atomic<bool>& stop, const SeenFn& seen) {
        for (std::uint64_t got = 0; got < events && !stop;) {
          auto batch = (*group)->Pull("live", 100, std::chrono::milliseconds(100));
          if (!batch.ok()) return batch.status();
          for (const Delivery& d : *batch) {
            if (Status s = seen(d.event.position); !s.ok()) return s;
            if (Status s = (*group)->Ack(d.event.position); !s.ok()) return s;
            ++got;
          }
        }
        return Status::Ok();
      });
}

}  // namespace

Status RunGroup(Context& context) {
  if (Status s = RunCatchUp(context); !s.ok()) return s;
  return RunLive(context);
}

}  // namespace indelible::bench
