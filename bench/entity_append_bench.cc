// entity, appends: Entity::Append with SnapshotPolicy::EveryWrite (the state
// record rewritten on every append), one event per append, against plain
// Store::Append of the same events (exact expected version), both in the
// same store, durability and threads. --clients writers (8), each on its
// own stream, closed loop, as `concurrent` measures plain appends. An entity
// append also reads the state record and the stream's tail, applies the
// rule (decoding the event) and encodes the state into the commit.
// Target: entity >= 0.7 x plain.
//
// The machine is shared and its speed drifts, so the two kinds alternate in
// 3 rounds (plain first in rounds 1 and 3, entity first in round 2), each
// round on fresh streams, and each kind's figure is its events over its
// seconds summed across rounds. Throughput is counted from the go signal to
// the last writer's last acknowledgement.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <latch>
#include <random>
#include <thread>

#include "bench/engine_stats.h"
#include "bench/entity_bench.h"
#include "bench/events.h"

namespace indelible::bench {
namespace {

enum class Kind : std::uint8_t { kPlain, kEntity };
constexpr int kRounds = 3;
using Clock = std::chrono::steady_clock;

struct Writer {
  Status status;
  std::vector<double> latencies_us;
  int retries = 0;  // entity appends that needed more than one commit
  Clock::time_point end;
};

// What one writer thread shares with the others of its round.
struct RoundSync {
  std::latch ready;
  std::atomic<bool> go{false};
  std::atomic<std::uint64_t> done{0};
  std::atomic<int> running;
  explicit RoundSync(int clients) : ready(clients), running(clients) {}
};

void Write(Kind kind, Store& store, const Entity<Tally>& entity, const std::string& stream,
           std::uint64_t appends, std::size_t event_bytes, RoundSync& sync, Writer& writer) {
  std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>()(stream)));
  writer.latencies_us.reserve(appends);
  sync.ready.count_down();
  while (!sync.go.load(std::memory_order_acquire)) std::this_thread::yield();
  for (std::uint64_t a = 0; a < appends && writer.status.ok(); ++a) {
    std::vector<EventData> batch;
    batch.push_back(DepositedEvent(stream, a, event_bytes, rng));
    const auto start = Clock::now();
    if (kind == Kind::kPlain) {
      const Expected expected =
          a == 0 ? Expected::no_stream()
                 : Expected::exactly(StreamVersion(static_cast<std::int64_t>(a) - 1));
      auto result = store.Append(stream, expected, std::move(batch));
      if (!result.ok()) writer.status = result.status();
    } else {
      auto change = entity.Append(stream, std::move(batch));
      if (!change.ok())
        writer.status = change.status();
      else if (change->attempts > 1)
        ++writer.retries;
    }
    writer.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    sync.done.fetch_add(1, std::memory_order_relaxed);
  }
  writer.end = Clock::now();
  sync.running.fetch_sub(1, std::memory_order_release);
}

// One kind's totals over the rounds.
struct Totals {
  std::uint64_t events = 0;
  double seconds = 0;
  double cpu_s = 0;
  std::uint64_t wal_syncs = 0;
  int retries = 0;
  std::vector<double> latencies_us;
  std::vector<double> rates;  // per round
};

std::string Stream(Kind kind, int round, int clients, int client) {
  const int slot = 2 * round + (kind == Kind::kEntity ? 1 : 0);
  return AccountStream(static_cast<std::uint64_t>(slot * clients + client));
}

Status RunRound(Kind kind, int round, Store& store, const Entity<Tally>& entity, int clients,
                std::uint64_t per_client, std::size_t event_bytes, Totals& totals) {
  const std::optional<WalStats> wal_before = ReadWalStats(store);
  std::vector<Writer> writers(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  RoundSync sync(clients);
  for (int c = 0; c < clients; ++c)
    threads.emplace_back(Write, kind, std::ref(store), std::cref(entity),
                         Stream(kind, round, clients, c), per_client, event_bytes, std::ref(sync),
                         std::ref(writers[static_cast<std::size_t>(c)]));
  const std::uint64_t total = per_client * static_cast<std::uint64_t>(clients);
  Progress progress(fmt::format("entity: round {} of {}, {} appends", round + 1, kRounds,
                                kind == Kind::kPlain ? "plain" : "entity"),
                    total, "appends");
  sync.ready.wait();
  Stopwatch watch;
  const auto start = Clock::now();
  sync.go.store(true, std::memory_order_release);
  // Progress only: the figure is timed from each writer's own end time.
  while (sync.running.load(std::memory_order_acquire) > 0) {
    progress.Update(sync.done.load(std::memory_order_relaxed));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (auto& thread : threads) thread.join();
  progress.Finish();
  Clock::time_point end = start;
  for (const Writer& writer : writers) {
    if (!writer.status.ok()) return writer.status;
    end = std::max(end, writer.end);
    totals.retries += writer.retries;
    totals.latencies_us.insert(totals.latencies_us.end(), writer.latencies_us.begin(),
                               writer.latencies_us.end());
  }
  const double seconds = std::chrono::duration<double>(end - start).count();
  totals.events += total;
  totals.seconds += seconds;
  totals.cpu_s += watch.CpuSeconds();
  totals.rates.push_back(static_cast<double>(total) / seconds);
  const std::optional<WalStats> wal_after = ReadWalStats(store);
  if (wal_before && wal_after) totals.wal_syncs += wal_after->syncs - wal_before->syncs;
  return Status::Ok();
}

// Every entity holds what its writer appended, and loads from its record alone.
Status CheckEntities(const Entity<Tally>& entity, int clients, std::uint64_t per_client) {
  for (int round = 0; round < kRounds; ++round)
    for (int c = 0; c < clients; ++c) {
      const std::string stream = Stream(Kind::kEntity, round, clients, c);
      auto loaded = entity.Get(stream);
      if (!loaded.ok()) return loaded.status();
      if (loaded->state.deposits != static_cast<std::int64_t>(per_client) ||
          loaded->events_read != 0)
        return Status::Internal(fmt::format("entity {}: {} deposits ({} expected), {} events read",
                                            stream, loaded->state.deposits, per_client,
                                            loaded->events_read));
    }
  return Status::Ok();
}

Line TotalsLine(const Totals& t) {
  std::vector<double> latencies = t.latencies_us;
  Line line;
  line.Add("rounds", kRounds)
      .Add("seconds", t.seconds, 3)
      .Add("cpu_us_per_event", 1e6 * t.cpu_s / static_cast<double>(t.events), 1)
      .Add("p50_us", Quantile(latencies, 0.5), 0)
      .Add("p99_us", Quantile(latencies, 0.99), 0);
  if (t.wal_syncs > 0)
    line.Add("events_per_sync", static_cast<double>(t.events) / static_cast<double>(t.wal_syncs),
             1);
  return line;
}

}  // namespace

Status RunEntityAppends(Context& context) {
  // The disk's sync rate, printed with both rates: how sync-bound they are.
  if (Status s = context.EnsureFsync(); !s.ok()) return s;
  const Options& options = context.options();
  const int clients = options.clients.value_or(8);
  const std::uint64_t per_client =
      options.events.value_or(24000) / static_cast<std::uint64_t>(clients * kRounds);
  if (per_client == 0)
    return Status::Invalid("events", "--events must be at least 3 x --clients (3 rounds)");

  ScratchFolder folder(context, "entity-append");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  const Rules<Tally> rules = TallyRules();
  EntityOptions entity_options;
  entity_options.snapshots = SnapshotPolicy::EveryWrite();
  const Entity<Tally> entity(**store, rules, entity_options);

  Totals plain;
  Totals tallied;
  for (int round = 0; round < kRounds; ++round) {
    const bool plain_first = round % 2 == 0;
    for (Kind kind :
         {plain_first ? Kind::kPlain : Kind::kEntity, plain_first ? Kind::kEntity : Kind::kPlain})
      if (Status s = RunRound(kind, round, **store, entity, clients, per_client,
                              options.event_bytes, kind == Kind::kPlain ? plain : tallied);
          !s.ok())
        return s;
  }
  if (Status s = CheckEntities(entity, clients, per_client); !s.ok()) return s;
  store->reset();

  const Conditions conditions{plain.events, clients, options.event_bytes, 1,
                              static_cast<std::uint64_t>(clients * kRounds)};
  const double plain_rate = static_cast<double>(plain.events) / plain.seconds;
  const double entity_rate = static_cast<double>(tallied.events) / tallied.seconds;
  context.AddFigure("entity", "append_plain_events_per_s", plain_rate, 0, conditions,
                    Target::None(), true, TotalsLine(plain));
  Line entity_extra = TotalsLine(tallied);
  entity_extra.Add("snapshots", "every_write").Add("retries", tallied.retries);
  context.AddFigure("entity", "append_entity_events_per_s", entity_rate, 0, conditions,
                    Target::None(), true, entity_extra);
  std::string per_round;
  for (int r = 0; r < kRounds; ++r)
    per_round += fmt::format(
        "{}{:.2f}", r == 0 ? "" : ",",
        tallied.rates[static_cast<std::size_t>(r)] / plain.rates[static_cast<std::size_t>(r)]);
  Line ratio_extra;
  ratio_extra.Add("round_ratios", per_round);
  context.AddFigure("entity", "append_ratio_to_plain", entity_rate / plain_rate, 2, conditions,
                    Target::AtLeast(0.7), false, ratio_extra);
  return Status::Ok();
}

}  // namespace indelible::bench
