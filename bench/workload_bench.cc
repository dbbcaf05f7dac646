// workload: WORKLOAD.md "ledger-append v1", exactly. Client c owns streams
// c, c+CLIENTS, ...; in round r it appends event seq=r to each of them in
// ascending order with the exact expected version, one request in flight.
// Then each client reads its streams paged, then one client reads $all paged.
// Prints the standard lines, `peer=indelible op=<phase> events= seconds=
// events_per_s= clients= streams=`, then extra fields.
//
// The store: the embedded engine in a fresh folder of --data (durable,
// ratio_to_fsync on the append line), or with --store a DynamoDB store under
// a fresh table prefix (ScenarioStore): durability=dynamodb
// transport=dynamodb, requests= per phase and requests_per_append= (the
// store's requests during the append phase, retries and the in-process $all
// indexer's included, / EVENTS), and what DynamoDB bills. On the append
// line: write_units_per_append= as DynamoDB reported them,
// estimated_write_units_per_append= for its refused conditional writes
// (billed but not reported; from the sizing rules, aws/capacity.h),
// index_write_units_per_event= (the indexer's writes until $all holds every
// event) and write_units_all_in_per_append= (the three together). On the
// read line requests_per_load= and read_units_per_load= (a load reads one
// stream whole); on read_all read_units_per_event=. Its $all is built after
// the commit, so the checks of $all wait for the index: a thread notes when
// LastPosition() reached EVENTS after the append phase
// (index_done_after_append_s=), and the read_all phase first waits, untimed,
// until it has (index_catchup_s=).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <latch>
#include <optional>
#include <random>
#include <stop_token>
#include <thread>

#include "bench/events.h"
#include "bench/scenario_store.h"
#include "bench/scenarios.h"
#include "bench/workload.h"

namespace indelible::bench {
namespace {

using Clock = std::chrono::steady_clock;

// How long the index may take to hold every event after the append phase.
constexpr auto kIndexTimeout = std::chrono::seconds(300);

Status AppendRounds(Store& store, const WorkloadParams& params, int client,
                    std::atomic<std::uint64_t>& done) {
  std::vector<std::string> owned;
  for (std::uint64_t s = static_cast<std::uint64_t>(client); s < params.streams;
       s += static_cast<std::uint64_t>(params.clients))
    owned.push_back(AccountStream(s));
  std::mt19937 rng(static_cast<std::uint32_t>(1000 + client));
  for (std::uint64_t r = 0; r < params.per_stream(); r += params.per_append) {
    const Expected expected =
        r == 0 ? Expected::no_stream()
               : Expected::exactly(StreamVersion(static_cast<std::int64_t>(r) - 1));
    for (const std::string& stream : owned) {
      std::vector<EventData> events;
      for (std::uint64_t i = 0; i < params.per_append; ++i)
        events.push_back(DepositedEvent(stream, r + i, kWorkloadPayloadBytes, rng));
      auto result = store.Append(stream, expected, std::move(events));
      if (!result.ok()) return result.status();
      done.fetch_add(params.per_append, std::memory_order_relaxed);
    }
  }
  return Status::Ok();
}

// Runs `phase` on `clients` threads started together, showing `done` of
// `total` events on a terminal; returns wall seconds, from the start to the
// last client's end.
Result<double> RunClients(int clients, const std::string& label, std::uint64_t total,
                          const std::function<Status(int, std::atomic<std::uint64_t>&)>& phase) {
  std::vector<Status> statuses(static_cast<std::size_t>(clients));
  std::vector<Clock::time_point> ends(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  std::latch ready(clients);
  std::atomic<bool> go{false};
  std::atomic<std::uint64_t> done{0};
  std::atomic<int> finished{0};
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      ready.count_down();
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      statuses[static_cast<std::size_t>(c)] = phase(c, done);
      ends[static_cast<std::size_t>(c)] = Clock::now();
      finished.fetch_add(1, std::memory_order_release);
    });
  ready.wait();
  const Clock::time_point start = Clock::now();
  go.store(true, std::memory_order_release);
  {
    Progress progress(label, total);
    while (finished.load(std::memory_order_acquire) < clients) {
      progress.Update(done.load(std::memory_order_relaxed));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  for (auto& thread : threads) thread.join();
  const double seconds =
      std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) - start).count();
  for (const Status& s : statuses)
    if (!s.ok()) return s;
  return seconds;
}

// Notes when LastPosition() reaches `events`, from its start (the append
// phase's end) on: the index of a store that builds $all after the commit.
class IndexWatch {
 public:
  IndexWatch(Store& store, std::uint64_t events)
      : start_(Clock::now()), thread_([this, &store, events](const std::stop_token& stop) {
          for (Position last = store.LastPosition(); last.value() < events;
               last = store.WaitForCommit(last, std::chrono::milliseconds(100))) {
            if (stop.stop_requested() || Clock::now() - start_ > kIndexTimeout) {
              finished_.store(true, std::memory_order_release);
              return;
            }
          }
          done_at_ = Clock::now();
          finished_.store(true, std::memory_order_release);
        }) {}

  bool finished() const { return finished_.load(std::memory_order_acquire); }
  // Waits for the thread; when the index held every event, or nullopt if
  // it did not within kIndexTimeout.
  std::optional<Clock::time_point> Join() {
    if (thread_.joinable()) thread_.join();
    return done_at_;
  }
  Clock::time_point start() const { return start_; }

 private:
  const Clock::time_point start_;
  std::atomic<bool> finished_{false};
  std::optional<Clock::time_point> done_at_;
  std::jthread thread_;  // last: started once the rest is made
};

struct PhaseFigures {
  std::string_view op;
  int clients = 1;
  double seconds = 0;
  bool sync_bound = false;
  Line extra;  // after the standard fields and the store's conditions
};

void PrintPhase(Context& context, const WorkloadParams& params, const ScenarioStore& where,
                const PhaseFigures& phase) {
  const double per_s = static_cast<double>(params.events) / phase.seconds;
  Line line;
  line.Add("peer", "indelible")
      .Add("op", phase.op)
      .Add("events", params.events)
      .Add("seconds", phase.seconds, 6)
      .Add("events_per_s", per_s, 0)
      .Add("clients", phase.clients)
      .Add("streams", params.streams)
      .Add("page", static_cast<std::uint64_t>(params.page));
  where.AddConditions(line);
  // read_all has one client whatever CLIENTS is: say which run it belongs to.
  if (phase.clients != params.clients) line.Add("run_clients", params.clients);
  if (phase.sync_bound && !where.remote() && context.fsync_per_s()) {
    line.Add("ratio_to_fsync", per_s / *context.fsync_per_s(), 2);
    // Beside the disk's rate for a file sized ahead, its rate for a file
    // that grows at every write (each sync writes the inode too), which
    // bounded one client before the log files were sized ahead
    // (docs/BENCHMARKS.md, "The log's inode").
    if (context.growing_fsync_per_s())
      line.Add("ratio_to_growing_fsync", per_s / *context.growing_fsync_per_s(), 2);
  }
  std::string text = line.str();
  if (!phase.extra.str().empty()) text += " " + phase.extra.str();
  text += " checks=ok";
  context.report().Add(Figure{fmt::format("workload op={} clients={}", phase.op, params.clients),
                              per_s, std::move(text)});
}

// One caller's ("store", "index") share of StoreStats::operations, all
// operations together.
struct CallerUnits {
  double read_units = 0;
  double write_units = 0;            // reported by the service
  double estimated_write_units = 0;  // its refused conditional writes, by estimate
  std::uint64_t condition_failures = 0;
};

CallerUnits UnitsOf(const StoreStats& stats, std::string_view caller) {
  CallerUnits units;
  for (const StoreOperationStats& op : stats.operations) {
    if (op.caller != caller) continue;
    units.read_units += op.read_units;
    units.write_units += op.write_units;
    units.estimated_write_units += op.estimated_write_units;
    units.condition_failures += op.condition_failures;
  }
  return units;
}

// The store's request counters between two points (DynamoDB; 0 embedded).
struct Requests {
  std::uint64_t requests = 0;        // the appends' own (StoreStats::requests)
  std::uint64_t index_requests = 0;  // the in-process $all indexer's, meanwhile
  std::uint64_t retries = 0;
  std::uint64_t throttles = 0;
  double read_units = 0;   // what the service reported for the store's reads
  double write_units = 0;  // ... and for its writes
  double index_units = 0;  // ... and for the indexer's reads and writes
  // The store's writes refused on their condition, and what the service
  // bills for them by estimate (it reports nothing of them).
  double estimated_write_units = 0;
  std::uint64_t condition_failures = 0;
  // The indexer's writes, reported and estimated.
  double index_write_units = 0;
  double index_estimated_write_units = 0;
  std::uint64_t index_polls = 0;
};

Requests Between(const StoreStats& before, const StoreStats& after) {
  Requests between{
      after.requests - before.requests,      after.index_requests - before.index_requests,
      after.retries - before.retries,        after.throttles - before.throttles,
      after.read_units - before.read_units,  after.write_units - before.write_units,
      after.index_units - before.index_units};
  const CallerUnits store_before = UnitsOf(before, "store");
  const CallerUnits store_after = UnitsOf(after, "store");
  between.estimated_write_units =
      store_after.estimated_write_units - store_before.estimated_write_units;
  between.condition_failures = store_after.condition_failures - store_before.condition_failures;
  const CallerUnits index_before = UnitsOf(before, "index");
  const CallerUnits index_after = UnitsOf(after, "index");
  between.index_write_units = index_after.write_units - index_before.write_units;
  between.index_estimated_write_units =
      index_after.estimated_write_units - index_before.estimated_write_units;
  between.index_polls = after.index_polls - before.index_polls;
  return between;
}

}  // namespace

Status RunWorkload(Context& context) {
  auto params = ReadWorkloadParams(context.options());
  if (!params.ok()) return params.status();
  const bool remote = !context.options().store.empty();
  if (!remote)
    if (Status s = context.EnsureFsync(); !s.ok()) return s;
  auto opened = ScenarioStore::Open(context, "workload", "wl");
  if (!opened.ok()) return opened.status();
  ScenarioStore& where = **opened;
  Store& s = where.store();
  const bool indexed_later = !s.traits().positions_at_commit;
  const std::string label = fmt::format("workload CLIENTS={}", params->clients);

  const StoreStats before_append = s.stats();
  const double cpu_before_append = ProcessCpuSeconds();
  auto append = RunClients(
      params->clients, label + ": append", params->events,
      [&](int c, std::atomic<std::uint64_t>& done) { return AppendRounds(s, *params, c, done); });
  if (!append.ok()) return append.status();
  const StoreStats after_append = s.stats();
  const double append_cpu_s = ProcessCpuSeconds() - cpu_before_append;
  std::optional<IndexWatch> watch;
  if (indexed_later) watch.emplace(s, params->events);

  if (Status st = CheckStreamHeads(s, *params); !st.ok()) return st;
  if (!indexed_later)
    if (Status st = CheckAllEvents(s, *params); !st.ok()) return st;

  const StoreStats before_read = s.stats();
  auto read = RunClients(params->clients, label + ": read", params->events,
                         [&](int c, std::atomic<std::uint64_t>& done) {
                           return ReadStreamsPaged(s, *params, c, &done);
                         });
  if (!read.ok()) return read.status();
  const StoreStats after_read = s.stats();

  // read_all: on a store that builds $all after the commit, first wait
  // (untimed) until the index holds every event, then check it.
  std::optional<double> catchup_s;
  std::optional<double> index_done_s;
  if (watch) {
    const Clock::time_point waiting = Clock::now();
    {
      Progress progress(label + ": waiting for the $all index", params->events);
      while (!watch->finished()) {
        progress.Update(s.LastPosition().value());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    const std::optional<Clock::time_point> done_at = watch->Join();
    if (!done_at)
      return Status::Unavailable(
          fmt::format("workload: the $all index reached position {} of {} in {} s after the "
                      "append phase",
                      s.LastPosition().value(), params->events, kIndexTimeout.count()));
    catchup_s = std::max(0.0, std::chrono::duration<double>(*done_at - waiting).count());
    index_done_s = std::chrono::duration<double>(*done_at - watch->start()).count();
    if (Status st = CheckAllEvents(s, *params); !st.ok()) return st;
  }
  const StoreStats before_read_all = s.stats();
  auto read_all = RunClients(
      1, label + ": read_all", params->events,
      [&](int, std::atomic<std::uint64_t>& done) { return ReadAllPaged(s, *params, &done); });
  if (!read_all.ok()) return read_all.status();
  const StoreStats after_read_all = s.stats();
  if (Status st = where.Close(); !st.ok())
    std::fprintf(stderr, "# workload: %s\n", st.ToString().c_str());

  PhaseFigures phases[3] = {{"append", params->clients, *append, true, {}},
                            {"read", params->clients, *read, false, {}},
                            {"read_all", 1, *read_all, false, {}}};
  // Not WORKLOAD.md's one event per append: every line says so.
  if (params->per_append != 1)
    for (auto& phase : phases) phase.extra.Add("per_append", params->per_append);
  if (!where.remote())
    AddCpuPerEvent(phases[0].extra, params->events, append_cpu_s, before_append, after_append);
  if (where.remote()) {
    const double events = static_cast<double>(params->events);
    const double appends = events / static_cast<double>(params->per_append);
    const Requests appended = Between(before_append, after_append);
    // The indexer's whole work for these events: from the append phase's
    // start until $all held every one (the read phase writes nothing).
    const Requests indexed = Between(before_append, before_read_all);
    const double index_write_units =
        indexed.index_write_units + indexed.index_estimated_write_units;
    phases[0]
        .extra.Add("requests_per_append", static_cast<double>(appended.requests) / appends, 2)
        .Add("requests", appended.requests)
        .Add("index_requests_per_append", static_cast<double>(appended.index_requests) / appends, 2)
        // Reported by DynamoDB; beside it, what it bills for the writes it
        // refused on their condition and reports nothing of (estimated).
        .Add("write_units_per_append", appended.write_units / appends, 2)
        .Add("estimated_write_units_per_append", appended.estimated_write_units / appends, 2)
        .Add("condition_failures", appended.condition_failures)
        .Add("index_units_per_append", appended.index_units / appends, 2)
        .Add("index_write_units_per_event", index_write_units / events, 2)
        .Add("write_units_all_in_per_append",
             (appended.write_units + appended.estimated_write_units + index_write_units) / appends,
             2)
        .Add("write_units_all_in_per_event",
             (appended.write_units + appended.estimated_write_units + index_write_units) / events,
             2)
        .Add("index_polls", indexed.index_polls)
        .Add("retries", appended.retries)
        .Add("throttles", appended.throttles);
    // A load: one stream read whole.
    const Requests read_phase = Between(before_read, after_read);
    const double loads = static_cast<double>(params->streams);
    phases[1]
        .extra.Add("requests", read_phase.requests)
        .Add("requests_per_load", static_cast<double>(read_phase.requests) / loads, 2)
        .Add("read_units_per_load", read_phase.read_units / loads, 2);
    const Requests read_all_phase = Between(before_read_all, after_read_all);
    phases[2]
        .extra.Add("requests", read_all_phase.requests)
        .Add("read_units_per_event", read_all_phase.read_units / events, 3);
  }
  if (catchup_s && index_done_s)
    phases[2]
        .extra.Add("index_catchup_s", *catchup_s, 3)
        .Add("index_done_after_append_s", *index_done_s, 3);
  for (const PhaseFigures& phase : phases) PrintPhase(context, *params, where, phase);
  return Status::Ok();
}

}  // namespace indelible::bench
