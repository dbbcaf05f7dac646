// concurrent: 64 writer threads, each on its own stream, one event per
// append with the exact expected version, closed loop. Every writer waits
// for its sync, so throughput comes from group commit: concurrent appends
// sharing one sync. Target: >= 100,000 events/s. Events per sync is read
// from the engine's WAL counters where it reports them.
#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <latch>
#include <mutex>
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

void Write(Store& store, int client, std::uint64_t appends, std::size_t event_bytes, bool store_ids,
           std::latch& ready, const std::atomic<bool>& go, Writer& writer) {
  const std::string stream = AccountStream(static_cast<std::uint64_t>(client));
  std::mt19937 rng(static_cast<std::uint32_t>(client));
  writer.latencies_us.reserve(appends);
  ready.count_down();
  while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  for (std::uint64_t a = 0; a < appends; ++a) {
    std::vector<EventData> batch;
    batch.push_back(DepositedEvent(stream, a, event_bytes, rng));
    if (store_ids) batch.back().id = EventId();
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

// The same writers as the server drives them: `clients` writers, each with
// one append in flight (closed loop), issued with CommitAsync by `threads`
// driver threads. An answer puts its writer back on the drivers' queue, as
// the HTTP server posts an answer to its connection's I/O thread. What it
// shows beside the blocking figure: the engine's own throughput when 64
// writers are not 64 threads that the kernel switches between.
struct AsyncRun {
  Status status;
  std::vector<double> latencies_us;
};

AsyncRun RunAsyncWriters(Store& store, int clients, int threads, std::uint64_t appends,
                         std::size_t event_bytes, bool store_ids) {
  struct Client {
    std::string stream;
    std::mt19937 rng;
    std::uint64_t next = 0;
    std::chrono::steady_clock::time_point start;
  };
  std::vector<Client> writers(static_cast<std::size_t>(clients));
  for (int c = 0; c < clients; ++c) {
    writers[static_cast<std::size_t>(c)].stream = AccountStream(static_cast<std::uint64_t>(c));
    writers[static_cast<std::size_t>(c)].rng.seed(static_cast<std::uint32_t>(c));
  }
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> ready;  // writers whose next append is due
  int finished = 0;
  AsyncRun run;
  run.latencies_us.reserve(appends * static_cast<std::size_t>(clients));
  for (int c = 0; c < clients; ++c) ready.push_back(c);

  auto answered = [&](int c, Result<CommitResult> result) {
    const auto now = std::chrono::steady_clock::now();
    Client& w = writers[static_cast<std::size_t>(c)];
    std::lock_guard lock(mu);
    if (!result.ok() && run.status.ok()) run.status = result.status();
    run.latencies_us.push_back(std::chrono::duration<double, std::micro>(now - w.start).count());
    if (result.ok() && w.next < appends)
      ready.push_back(c);
    else
      ++finished;
    cv.notify_one();
  };
  auto drive = [&] {
    for (;;) {
      int c;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return !ready.empty() || finished == clients; });
        if (ready.empty()) {
          cv.notify_all();
          return;
        }
        c = ready.front();
        ready.pop_front();
      }
      Client& w = writers[static_cast<std::size_t>(c)];
      const std::uint64_t a = w.next++;
      CommitRequest request;
      request.appends.push_back(
          {w.stream,
           a == 0 ? Expected::no_stream()
                  : Expected::exactly(StreamVersion(static_cast<std::int64_t>(a) - 1)),
           {DepositedEvent(w.stream, a, event_bytes, w.rng)}});
      if (store_ids) request.appends.back().events.back().id = EventId();
      w.start = std::chrono::steady_clock::now();
      store.CommitAsync(std::move(request),
                        [&answered, c](Result<CommitResult> r) { answered(c, std::move(r)); });
    }
  };
  std::vector<std::thread> drivers;
  for (int t = 0; t < threads; ++t) drivers.emplace_back(drive);
  for (auto& d : drivers) d.join();
  return run;
}

// The asynchronous figure (RunAsyncWriters), in a store of its own.
Status RunConcurrentAsync(Context& context, int clients, std::uint64_t per_client) {
  const Options& options = context.options();
  constexpr int kDriverThreads = 2;  // the server's I/O threads on this machine's 2 cores
  ScratchFolder folder(context, "concurrent-async");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  const StoreStats stats_before = (*store)->stats();
  Stopwatch watch;
  AsyncRun run = RunAsyncWriters(**store, clients, kDriverThreads, per_client, options.event_bytes,
                                 options.store_ids);
  const double seconds = watch.Seconds();
  const double cpu_seconds = watch.CpuSeconds();
  const StoreStats stats_after = (*store)->stats();
  store->reset();
  if (!run.status.ok()) return run.status;
  const std::uint64_t events = per_client * static_cast<std::uint64_t>(clients);
  Conditions conditions{events, clients, options.event_bytes, 1,
                        static_cast<std::uint64_t>(clients)};
  Line extra;
  extra.Add("writers", "async").Add("driver_threads", kDriverThreads);
  extra.Add("seconds", seconds, 3).Add("cpu_s", cpu_seconds, 3);
  AddCpuPerEvent(extra, events, cpu_seconds, stats_before, stats_after);
  context.AddFigure("concurrent", "async_events_per_s", static_cast<double>(events) / seconds, 0,
                    conditions, Target::None(), true, extra);
  context.AddFigure("concurrent", "async_p99_us", Quantile(run.latencies_us, 0.99), 0, conditions,
                    Target::None(), false);
  return Status::Ok();
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
                         options.store_ids, std::ref(ready), std::cref(go),
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
  return RunConcurrentAsync(context, clients, per_client);
}

}  // namespace indelible::bench
