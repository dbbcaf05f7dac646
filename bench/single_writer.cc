#include "bench/single_writer.h"

#include <fmt/format.h>

#include <random>

#include "bench/engine_stats.h"
#include "bench/events.h"

namespace indelible::bench {

Status RunSingleWriter(Context& context, const SingleWriterSpec& spec) {
  if (Status s = context.EnsureFsync(); !s.ok()) return s;
  const Options& options = context.options();
  const std::size_t per_append = options.per_append.value_or(spec.default_per_append);
  const std::uint64_t appends = options.events.value_or(spec.default_events) / per_append;
  if (appends == 0) return Status::Invalid("events", "--events must be at least --per-append");
  const std::uint64_t events = appends * per_append;

  ScratchFolder folder(context, spec.bench);
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  const std::optional<WalStats> wal_before = ReadWalStats(**store);
  const StoreStats stats_before = (*store)->stats();

  const std::string stream = AccountStream(0);
  std::mt19937 rng(42);
  std::vector<double> latencies_us;
  latencies_us.reserve(appends);
  double build_seconds = 0;
  Progress progress(std::string(spec.bench), events);
  Stopwatch watch;
  for (std::uint64_t a = 0; a < appends; ++a) {
    const auto build_start = std::chrono::steady_clock::now();
    std::vector<EventData> batch;
    batch.reserve(per_append);
    for (std::size_t e = 0; e < per_append; ++e)
      batch.push_back(DepositedEvent(stream, a * per_append + e, options.event_bytes, rng));
    if (options.store_ids)
      for (EventData& event : batch) event.id = EventId();
    const Expected expected =
        a == 0 ? Expected::no_stream()
               : Expected::exactly(StreamVersion(static_cast<std::int64_t>(a * per_append) - 1));
    const auto start = std::chrono::steady_clock::now();
    auto result = (*store)->Append(stream, expected, std::move(batch));
    const auto end = std::chrono::steady_clock::now();
    if (!result.ok()) return result.status();
    build_seconds += std::chrono::duration<double>(start - build_start).count();
    latencies_us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    progress.Update((a + 1) * per_append);
  }
  const double seconds = watch.Seconds();
  const double cpu_seconds = watch.CpuSeconds();
  progress.Finish();
  const std::optional<WalStats> wal_after = ReadWalStats(**store);
  const StoreStats stats_after = (*store)->stats();
  store->reset();

  Conditions conditions{events, 1, options.event_bytes, per_append, 1};
  Line extra;
  extra.Add("seconds", seconds, 3)
      .Add("appends_per_s", static_cast<double>(appends) / seconds, 0)
      .Add("build_s", build_seconds, 3)
      .Add("cpu_s", cpu_seconds, 3);
  AddCpuPerEvent(extra, events, cpu_seconds, stats_before, stats_after);
  context.AddFigure(spec.bench, "events_per_s", static_cast<double>(events) / seconds, 0,
                    conditions, spec.target, true, extra);
  context.AddFigure(spec.bench, "p50_us", Quantile(latencies_us, 0.5), 0, conditions,
                    Target::None(), false);
  context.AddFigure(spec.bench, "p99_us", Quantile(latencies_us, 0.99), 0, conditions,
                    Target::None(), false);
  if (wal_before && wal_after && options.durability == Durability::kSync) {
    // "One sync per append, never more."
    const auto syncs = static_cast<double>(wal_after->syncs - wal_before->syncs);
    Line wal;
    wal.Add("wal_syncs", wal_after->syncs - wal_before->syncs)
        .Add("wal_writes", wal_after->writes - wal_before->writes)
        .Add("approximate", wal_after->approximate ? "yes" : "no");
    context.AddFigure(spec.bench, "syncs_per_append", syncs / static_cast<double>(appends), 3,
                      conditions, Target::AtMost(1), false, wal);
  }
  return Status::Ok();
}

}  // namespace indelible::bench
