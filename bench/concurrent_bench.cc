// concurrent: 64 writer threads, each on its own stream, one event per
// append with the exact expected version, closed loop. Every writer waits
// for its sync, so throughput comes from group commit: concurrent appends
// sharing one sync. Target: >= 100,000 events/s. Events per sync is read
// from the engine's WAL counters where it reports them.
#include <fmt/format.h>

#include <atomic>
#include <latch>
#include <random>
#include <thread>

#include "bench/engine_stats.h"
#include "bench/events.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

struct Writer {
  Status status;
  std::vector<double> latencies_us;
};

void Write(Store& store, int client, std::uint64_t appends, std::size_t event_bytes,
           std::latch& ready, const std::atomic<bool>& go, Writer& writer) {
  const std::string stream = AccountStream(static_cast<std::uint64_t>(client));
  std::mt19937 rng(static_cast<std::uint32_t>(client));
  writer.latencies_us.reserve(appends);
  ready.count_down();
  while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  for (std::uint64_t a = 0; a < appends; ++a) {
    std::vector<EventData> batch;
    batch.push_back(DepositedEvent(stream, a, event_bytes, rng));
    const Expected expected =
        a == 0 ? Expected::no_stream()
               : Expected::exactly(StreamVersion(static_cast<std::int64_t>(a) - 1));
    const auto start = std::chrono::steady_clock::now();
    auto result = store.Append(stream, expected, std::move(batch));
    if (!result.ok()) {
      writer.status = result.status();
      return;
    }
    writer.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
}

}  // namespace

Status RunConcurrent(Context& context) {
  if (Status s = context.EnsureFsync(); !s.ok()) return s;
  const Options& options = context.options();
  const int clients = options.clients.value_or(64);
  if (clients < 1) return Status::Invalid("clients", "--clients must be at least 1");
  const std::uint64_t per_client =
      options.events.value_or(128000) / static_cast<std::uint64_t>(clients);
  if (per_client == 0) return Status::Invalid("events", "--events must be at least --clients");
  const std::uint64_t events = per_client * static_cast<std::uint64_t>(clients);

  ScratchFolder folder(context, "concurrent");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  const std::optional<WalStats> wal_before = ReadWalStats(**store);
  const StoreStats stats_before = (*store)->stats();

  std::vector<Writer> writers(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  std::latch ready(clients);
  std::atomic<bool> go{false};
  for (int c = 0; c < clients; ++c)
    threads.emplace_back(Write, std::ref(**store), c, per_client, options.event_bytes,
                         std::ref(ready), std::cref(go),
                         std::ref(writers[static_cast<std::size_t>(c)]));
  ready.wait();
  Stopwatch watch;
  go.store(true, std::memory_order_release);
  for (auto& thread : threads) thread.join();
  const double seconds = watch.Seconds();
  const double cpu_seconds = watch.CpuSeconds();
  const std::optional<WalStats> wal_after = ReadWalStats(**store);
  const StoreStats stats_after = (*store)->stats();
  store->reset();

  std::vector<double> latencies_us;
  latencies_us.reserve(events);
  for (const Writer& writer : writers) {
    if (!writer.status.ok()) return writer.status;
    latencies_us.insert(latencies_us.end(), writer.latencies_us.begin(), writer.latencies_us.end());
  }

  Conditions conditions{events, clients, options.event_bytes, 1,
                        static_cast<std::uint64_t>(clients)};
  Line extra;
  extra.Add("seconds", seconds, 3).Add("cpu_s", cpu_seconds, 3);
  AddCpuPerEvent(extra, events, cpu_seconds, stats_before, stats_after);
  context.AddFigure("concurrent", "events_per_s", static_cast<double>(events) / seconds, 0,
                    conditions, Target::AtLeast(100000), true, extra);
  context.AddFigure("concurrent", "p50_us", Quantile(latencies_us, 0.5), 0, conditions,
                    Target::None(), false);
  context.AddFigure("concurrent", "p99_us", Quantile(latencies_us, 0.99), 0, conditions,
                    Target::None(), false);
  if (wal_before && wal_after && wal_after->syncs > wal_before->syncs) {
    const std::uint64_t syncs = wal_after->syncs - wal_before->syncs;
    Line wal;
    wal.Add("wal_syncs", syncs)
        .Add("wal_writes", wal_after->writes - wal_before->writes)
        .Add("approximate", wal_after->approximate ? "yes" : "no");
    context.AddFigure("concurrent", "events_per_sync",
                      static_cast<double>(events) / static_cast<double>(syncs), 1, conditions,
                      Target::None(), false, wal);
  }
  return Status::Ok();
}

}  // namespace indelible::bench
