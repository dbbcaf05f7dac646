#include "bench/live_latency.h"

#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <thread>

#include "bench/events.h"

namespace indelible::bench {

Status RunLiveLatency(Context& context, Store& store, const LiveSpec& spec,
                      const LiveConsumer& consume) {
  using Clock = std::chrono::steady_clock;
  constexpr std::uint64_t kEvents = 2000;
  std::vector<Clock::time_point> acked(kEvents + 1), received(kEvents + 1);
  std::atomic<bool> stop{false};
  std::uint64_t next = 1;  // on the consumer's thread only
  const SeenFn seen = [&](Position position) {
    if (position.value() != next)
      return Status::Internal(fmt::format("{}: position {} arrived where {} was expected",
                                          spec.bench, position.value(), next));
    received[next++] = Clock::now();
    return Status::Ok();
  };
  Status consumed;
  std::thread consumer([&] { consumed = consume(kEvents, stop, seen); });
  std::mt19937 rng(7);
  Status written;
  for (std::uint64_t i = 0; i < kEvents && written.ok(); ++i) {
    auto r =
        store.Append("account-000000", Expected::any(),
                     {DepositedEvent("account-000000", i, context.options().event_bytes, rng)});
    if (r.ok()) {
      acked[r->position.value()] = Clock::now();
    } else {
      written = r.status();
    }
  }
  if (!written.ok()) stop = true;
  consumer.join();
  if (!written.ok()) return written;
  if (!consumed.ok()) return consumed;
  std::vector<double> latencies;
  for (std::uint64_t p = 1; p <= kEvents; ++p)
    latencies.push_back(
        std::max(0.0, std::chrono::duration<double, std::micro>(received[p] - acked[p]).count()));
  const Conditions conditions{kEvents, 1, context.options().event_bytes, 1, 1};
  Line extra;
  extra.Add(spec.who, 1).Add("measured", spec.measured);
  context.AddFigure(spec.bench, "p50_us", Quantile(latencies, 0.5), 0, conditions, Target::None(),
                    false, extra);
  context.AddFigure(spec.bench, "p99_us", Quantile(latencies, 0.99), 0, conditions,
                    Target::AtMost(2000), false, extra);
  return Status::Ok();
}

}  // namespace indelible::bench
