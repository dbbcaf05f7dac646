// projection: ProjectionRunner (include/indelible/projection.h) keeping the
// todo service's read model (examples/todo/todo_projection.h: table todos,
// Todo.Created / Updated / Deleted on todo-{uuid}) in SQLite and, when
// given one, PostgreSQL. Two halves:
//
//   rebuild: an embedded store (durable) is filled with a todo workload of
//     --events (200,000) events, untimed, 1,000 appends of one event per
//     commit: todos of 5 events each (Created, 3 Updated, then Deleted for
//     every 10th todo and a fourth Updated for the others), 1,000 todos
//     at a time, their events interleaved; the store is reopened. Then
//     ProjectionRunner::Rebuild replays it into a fresh read model:
//     events/s = events applied / the Rebuild call's wall time (set-up and
//     switch-over included). Targets: >= 200,000 events/s into SQLite,
//     >= 30,000 into PostgreSQL. Afterwards the read model must hold every
//     todo, the deleted ones marked, and the checkpoint the store's last
//     position.
//   lag: the runner Start()ed on an empty embedded store (durable), then
//     --clients (4) writer threads append one event per append, paced
//     together at --rate (5,000) appends/s, the same todo workload, each
//     writer on its own todos with the exact expected version, for 2 s of
//     warm-up and --seconds (10) measured. A measuring thread walks the
//     acknowledged positions in order and calls ProjectionRunner::WaitFor
//     on each: lag = when WaitFor returned true - when the append was
//     acknowledged (0 when the runner had committed it first), for the
//     events acknowledged in the measured window. Target: p99 < 50 ms.
//
// Read stores: SQLite, a fresh file in the scratch folder (WAL,
// synchronous=FULL: every read-store commit is synced). PostgreSQL with
// --postgres: a throwaway cluster (scripts/postgres.sh, PostgreSQL 15,
// durability settings at their defaults) started in the scratch folder for
// the run and stopped after it; or with --read-store URL, an existing
// database, from which the projection's tables and checkpoint are dropped
// before each half. ProjectionOptions::batch_events is --batch-events
// (5,000 here, 1,000 by default in the library: docs/BENCHMARKS.md has the
// sweep), in both halves.
//
// Where a rebuild's time goes, on its line: the process's CPU per event,
// the rebuilding thread's time on a CPU, waiting in the run queue for one
// (other threads, other tenants) and blocked (syncs, reads, the server's
// answers), from /proc/thread-self/schedstat, and with --postgres the
// server's CPU per event (its processes' and reaped children's times).
// On the lag lines, runqueue_threads: how many of this process's threads
// were waiting for a core, on average over the measured window.
#include <fmt/format.h>
#include <indelible/projection.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "bench/postgres_cluster.h"
#include "bench/projection_scenario.h"
#include "todo_projection.h"

namespace indelible::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kDefaultBatchEvents = 5000;
constexpr int kEventsPerTodo = 5;
constexpr std::uint64_t kTodosPerChunk = 1000;  // max_append_events: one event per append
constexpr double kWarmupSeconds = 2;

// --- the todo workload

// Event k (0..4) of todo `index`, as the todo service writes them.
EventData TodoEvent(const std::string& id, std::uint64_t index, int k) {
  EventData event;
  const std::string title = fmt::format("Todo {} title {}", index, k);
  const std::string message =
      fmt::format("Remember to do thing number {} before the end of the week ({})", index, k);
  switch (k) {
    case 0:
      event.type = "Todo.Created";
      event.data = fmt::format(R"({{"id":"{}","title":"{}","message":"{}"}})", id, title, message);
      break;
    case 2:
      event.type = "Todo.Updated";
      event.data = fmt::format(R"({{"id":"{}","message":"{}"}})", id, message);
      break;
    case 4:
      if (index % 10 == 0) {
        event.type = "Todo.Deleted";
        event.data = fmt::format(R"({{"id":"{}"}})", id);
      } else {
        event.type = "Todo.Updated";
        event.data =
            fmt::format(R"({{"id":"{}","title":"{}","message":"{}"}})", id, title, message);
      }
      break;
    default:
      event.type = "Todo.Updated";
      event.data = fmt::format(R"({{"id":"{}","title":"{}"}})", id, title);
  }
  return event;
}

Expected ExpectedFor(int k) {
  return k == 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(k - 1));
}

// What a read model of `todos` todos should hold.
struct ModelCounts {
  std::uint64_t rows = 0;
  std::uint64_t deleted = 0;
};

ModelCounts Expect(std::uint64_t todos) { return {todos, (todos + 9) / 10}; }

// Fills the store with `todos` todos of 5 events; returns the mean data bytes.
Result<double> FillTodos(Store& store, std::uint64_t todos) {
  Progress progress("projection: filling the store", todos * kEventsPerTodo);
  std::uint64_t done = 0;
  std::uint64_t bytes = 0;
  for (std::uint64_t first = 0; first < todos; first += kTodosPerChunk) {
    const std::uint64_t count = std::min(kTodosPerChunk, todos - first);
    std::vector<std::string> ids;
    ids.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) ids.push_back(EventId::Random().ToString());
    for (int k = 0; k < kEventsPerTodo; ++k) {
      std::vector<AppendRequest> appends;
      appends.reserve(count);
      for (std::uint64_t i = 0; i < count; ++i) {
        EventData event = TodoEvent(ids[i], first + i, k);
        bytes += event.data.size();
        appends.push_back({.stream = "todo-" + ids[i], .expected = ExpectedFor(k), .events = {}});
        appends.back().events.push_back(std::move(event));
      }
      auto committed = store.Commit(std::move(appends));
      if (!committed.ok()) return committed.status();
      done += count;
      progress.Update(done);
    }
  }
  return static_cast<double>(bytes) / static_cast<double>(std::max<std::uint64_t>(1, done));
}

// --- read stores

struct ReadStoreSpec {
  std::string kind;  // "sqlite" or "postgresql": the figures' names
  std::string url;
  std::string server;  // PostgreSQL's version, for the line
  // The server's CPU seconds so far, when this run started it.
  std::function<std::optional<double>()> server_cpu = [] { return std::optional<double>(); };
};

std::string SqliteUrl(const std::string& folder) { return "sqlite:" + folder + "/read.db"; }

std::int64_t Int(const SqlValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) {
    try {
      return std::stoll(*text);
    } catch (const std::exception&) {
      return -1;
    }
  }
  return SqlInt(value, -1);
}

// Drops what an earlier run left of the projection in a database this run
// does not own: its views, its copies and its checkpoint row. The meta
// tables must exist (ProjectionRunner::Open makes them).
Status Forget(const std::string& url, const Projection& projection) {
  auto db = ReadStore::Open(url);
  if (!db.ok()) return db.status();
  auto rows = (*db)->Query(
      "SELECT generation, building_generation FROM indelible_projections WHERE name = $1",
      {projection.name});
  if (!rows.ok()) return rows.status();
  auto tx = (*db)->Begin();
  if (!tx.ok()) return tx.status();
  std::vector<std::string> sql;
  for (const std::string& table : projection.tables) sql.push_back("DROP VIEW IF EXISTS " + table);
  for (const SqlRow& row : *rows)
    for (const SqlValue& generation : row)
      if (!std::holds_alternative<std::nullptr_t>(generation))
        for (const std::string& table : projection.tables)
          sql.push_back(fmt::format("DROP TABLE IF EXISTS {}__g{}", table, Int(generation)));
  for (const std::string& statement : sql)
    if (Status s = (*tx)->Execute(statement); !s.ok()) return s;
  for (const char* statement : {"DELETE FROM indelible_projections WHERE name = $1",
                                "DELETE FROM indelible_parked WHERE projection = $1"})
    if (Status s = (*tx)->Execute(statement, {projection.name}); !s.ok()) return s;
  return (*tx)->Commit();
}

// Opens a runner of the todo projection on a clean read model.
Result<std::unique_ptr<ProjectionRunner>> OpenRunner(Store& store, const ReadStoreSpec& read,
                                                     std::size_t batch_events) {
  ProjectionOptions options;
  options.batch_events = batch_events;
  auto runner = ProjectionRunner::Open(store, read.url, todo::TodoProjection(), options);
  if (!runner.ok()) return runner.status();
  if (Status s = Forget(read.url, (*runner)->projection()); !s.ok()) return s;
  return runner;
}

// The read model holds `expected` and the checkpoint is at `last`.
Status CheckModel(ProjectionRunner& runner, const ReadStoreSpec& read, ModelCounts expected,
                  Position last) {
  auto db = ReadStore::Open(read.url);
  if (!db.ok()) return db.status();
  auto rows = (*db)->Query("SELECT COUNT(*), COUNT(CASE WHEN deleted = 1 THEN 1 END) FROM todos");
  if (!rows.ok()) return rows.status();
  auto status = runner.status();
  if (!status.ok()) return status.status();
  const std::int64_t count = rows->empty() ? -1 : Int(rows->front().at(0));
  const std::int64_t deleted = rows->empty() ? -1 : Int(rows->front().at(1));
  if (count != static_cast<std::int64_t>(expected.rows) ||
      deleted != static_cast<std::int64_t>(expected.deleted) || status->position != last)
    return Status::Internal(fmt::format(
        "projection ({}): the read model holds {} todos, {} deleted, checkpoint {}, where {}, {} "
        "and {} were expected",
        read.kind, count, deleted, status->position.value(), expected.rows, expected.deleted,
        last.value()));
  return Status::Ok();
}

// --- rebuild

// This thread's seconds on a CPU and waiting in the run queue for one
// (/proc/thread-self/schedstat); zeros if unknown.
struct ThreadTimes {
  double on_cpu = 0;
  double runqueue = 0;
};

ThreadTimes ThreadSchedule() {
  std::ifstream file("/proc/thread-self/schedstat");
  double on_cpu_ns = 0;
  double runqueue_ns = 0;
  if (!(file >> on_cpu_ns >> runqueue_ns)) return {};
  return {on_cpu_ns / 1e9, runqueue_ns / 1e9};
}

Status TimeRebuild(Context& context, Store& store, const ReadStoreSpec& read, std::uint64_t todos,
                   double mean_bytes, std::size_t batch_events) {
  auto runner = OpenRunner(store, read, batch_events);
  if (!runner.ok()) return runner.status();
  const std::uint64_t events = todos * kEventsPerTodo;
  RebuildProgress last;
  std::uint64_t batches = 0;
  Status rebuilt;
  double seconds = 0;
  double cpu_seconds = 0;
  std::optional<double> server_cpu_seconds;
  ThreadTimes thread;  // of this thread, which runs the rebuild
  {
    Progress progress(fmt::format("projection: rebuild into {}", read.kind), events);
    const std::optional<double> server_before = read.server_cpu();
    const ThreadTimes thread_before = ThreadSchedule();
    Stopwatch watch;
    rebuilt = (*runner)->Rebuild([&](const RebuildProgress& p) {
      last = p;
      ++batches;
      progress.Update(p.events);
    });
    seconds = watch.Seconds();
    cpu_seconds = watch.CpuSeconds();
    const ThreadTimes thread_after = ThreadSchedule();
    thread.on_cpu = thread_after.on_cpu - thread_before.on_cpu;
    thread.runqueue = thread_after.runqueue - thread_before.runqueue;
    const std::optional<double> server_after = read.server_cpu();
    if (server_before && server_after) server_cpu_seconds = *server_after - *server_before;
  }
  if (!rebuilt.ok()) return rebuilt;
  if (last.events != events)
    return Status::Internal(
        fmt::format("projection: the rebuild applied {} events of {}", last.events, events));
  if (Status s = CheckModel(**runner, read, Expect(todos), store.LastPosition()); !s.ok()) return s;
  const Conditions conditions{events, 1, static_cast<std::size_t>(mean_bytes + 0.5), 1, todos};
  Line extra;
  extra.Add("read_store", read.kind);
  if (!read.server.empty()) extra.Add("server", read.server);
  extra.Add("batch_events", static_cast<std::uint64_t>(batch_events))
      .Add("transactions", batches)
      .Add("seconds", seconds, 3)
      .Add("runner_events_per_s", last.events_per_second, 0)
      .Add("cpu_us_per_event", 1e6 * cpu_seconds / static_cast<double>(events), 2)
      .Add("thread_on_cpu_s", thread.on_cpu, 3)
      .Add("thread_runqueue_s", thread.runqueue, 3)
      .Add("thread_blocked_s", std::max(0.0, seconds - thread.on_cpu - thread.runqueue), 3);
  if (server_cpu_seconds)
    extra.Add("server_cpu_us_per_event", 1e6 * *server_cpu_seconds / static_cast<double>(events),
              2);
  extra.Add("fill", "1000 appends of 1 event per commit, store reopened");
  context.AddFigure("projection-rebuild", fmt::format("{}_events_per_s", read.kind),
                    static_cast<double>(events) / seconds, 0, conditions,
                    Target::AtLeast(read.kind == "sqlite" ? 200000 : 30000), false, extra);
  return Status::Ok();
}

// --- lag

// Seconds each of this process's threads has waited in the run queue, by id.
std::map<std::string, double> RunQueueByThread() {
  std::map<std::string, double> waited;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream file(task.path() / "schedstat");
    double on_cpu_ns = 0;
    double runqueue_ns = 0;
    if (file >> on_cpu_ns >> runqueue_ns)
      waited[task.path().filename().string()] = runqueue_ns / 1e9;
  }
  return waited;
}

// Run-queue seconds since `before`, summed over the threads alive then and now.
double RunQueueSince(const std::map<std::string, double>& before) {
  double total = 0;
  for (const auto& [thread, seconds] : RunQueueByThread()) {
    auto it = before.find(thread);
    if (it != before.end()) total += seconds - it->second;
  }
  return total;
}

struct Acks {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::int64_t> ns;  // GUARDED_BY(mu): by position, since the origin; -1: not yet
  std::uint64_t count = 0;       // GUARDED_BY(mu)
  std::uint64_t bytes = 0;       // GUARDED_BY(mu): of the events' data
  bool writers_done = false;     // GUARDED_BY(mu)
  Status failed;                 // GUARDED_BY(mu): the first writer's error
};

struct LagSpec {
  int writers = 4;
  double rate = 5000;
  double seconds = 10;
  std::size_t batch_events = kDefaultBatchEvents;
};

Status MeasureLag(Context& context, const ReadStoreSpec& read, const LagSpec& spec) {
  ScratchFolder folder(context, "projection-lag");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  ReadStoreSpec where = read;
  if (where.kind == "sqlite") where.url = SqliteUrl(folder.path());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  auto opened = OpenRunner(**store, where, spec.batch_events);
  if (!opened.ok()) return opened.status();
  ProjectionRunner& runner = **opened;
  runner.Start();
  // Live: its first copy made (the checkpoint row exists).
  for (int i = 0;; ++i) {
    auto status = runner.status();
    if (status.ok() && status->generation > 0) break;
    if (i == 1000)
      return Status::Unavailable(
          fmt::format("projection ({}): the runner did not start in 10 s", where.kind));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  const auto total = static_cast<std::uint64_t>(spec.rate * (kWarmupSeconds + spec.seconds));
  Acks acks;
  acks.ns.assign(total + 1, -1);
  const auto origin = Clock::now() + std::chrono::milliseconds(20);
  const auto period = std::chrono::duration<double>(1.0 / spec.rate);
  std::vector<std::uint64_t> todos_of(static_cast<std::size_t>(spec.writers), 0);
  std::atomic<std::uint64_t> appended{0};

  auto write = [&](int w) {
    std::string id;
    std::uint64_t j = 0;
    for (std::uint64_t n = static_cast<std::uint64_t>(w); n < total;
         n += static_cast<std::uint64_t>(spec.writers), ++j) {
      std::this_thread::sleep_until(
          origin + std::chrono::duration_cast<Clock::duration>(period * static_cast<double>(n)));
      const int k = static_cast<int>(j % kEventsPerTodo);
      const std::uint64_t todo = j / kEventsPerTodo;
      if (k == 0) id = EventId::Random().ToString();
      // Todo numbers are the writer's own: its every 10th todo is deleted.
      EventData event = TodoEvent(id, todo, k);
      const std::size_t bytes = event.data.size();
      auto result = (*store)->Append("todo-" + id, ExpectedFor(k), {std::move(event)});
      const auto now = Clock::now();
      std::lock_guard lock(acks.mu);
      if (!result.ok()) {
        if (acks.failed.ok()) acks.failed = result.status();
        return;
      }
      const std::uint64_t position = result->position.value();
      if (position == 0 || position > total) {
        if (acks.failed.ok())
          acks.failed =
              Status::Internal(fmt::format("projection: append at position {}, past the "
                                           "{} appended",
                                           position, total));
        return;
      }
      acks.ns[position] =
          std::chrono::duration_cast<std::chrono::nanoseconds>(now - origin).count();
      ++acks.count;
      acks.bytes += bytes;
      if (k == 0) ++todos_of[static_cast<std::size_t>(w)];
      appended.fetch_add(1, std::memory_order_relaxed);
      acks.cv.notify_one();
    }
  };

  // The measuring thread: lag of each acknowledged position, in order.
  std::vector<double> lag_ms(total + 1, -1);
  Status measured;
  std::thread measurer([&] {
    for (std::uint64_t p = 1; p <= total; ++p) {
      std::int64_t acked = -1;
      {
        std::unique_lock lock(acks.mu);
        acks.cv.wait(lock, [&] { return acks.ns[p] >= 0 || acks.writers_done; });
        acked = acks.ns[p];
        if (acked < 0) {
          if (acks.failed.ok() && p <= acks.count)
            measured =
                Status::Internal(fmt::format("projection: position {} was never acknowledged", p));
          return;  // the writers stopped early (their error is reported)
        }
      }
      if (!runner.WaitFor(Position(p), std::chrono::seconds(10))) {
        measured = Status::Unavailable(fmt::format(
            "projection ({}): the runner did not apply position {} within 10 s", where.kind, p));
        return;
      }
      const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin);
      lag_ms[p] = std::max<double>(0, static_cast<double>(now.count() - acked) / 1e6);
    }
  });

  // Our threads' time waiting for a core during the measured window.
  std::optional<std::map<std::string, double>> runqueue_from;
  double runqueue_s = 0;
  std::vector<std::thread> writers;
  for (int w = 0; w < spec.writers; ++w) writers.emplace_back(write, w);
  {
    Progress progress(fmt::format("projection: lag, {}", where.kind), total);
    const auto window_from = origin + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(kWarmupSeconds));
    while (appended.load(std::memory_order_relaxed) < total) {
      {
        std::lock_guard lock(acks.mu);
        if (!acks.failed.ok()) break;
      }
      if (!runqueue_from && Clock::now() >= window_from) runqueue_from = RunQueueByThread();
      progress.Update(appended.load(std::memory_order_relaxed));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (runqueue_from) runqueue_s = RunQueueSince(*runqueue_from);
  }
  for (auto& thread : writers) thread.join();
  {
    std::lock_guard lock(acks.mu);
    acks.writers_done = true;
  }
  acks.cv.notify_all();
  measurer.join();
  runner.Stop();
  if (!acks.failed.ok()) return acks.failed;
  if (!measured.ok()) return measured;
  std::uint64_t todos = 0;
  for (std::uint64_t t : todos_of) todos += t;
  // Each writer deletes its todos 0, 10, 20, ... that reached their fifth event.
  ModelCounts expected{todos, 0};
  for (int w = 0; w < spec.writers; ++w) {
    const std::uint64_t per_writer =
        (total - static_cast<std::uint64_t>(w) + static_cast<std::uint64_t>(spec.writers) - 1) /
        static_cast<std::uint64_t>(spec.writers);
    const std::uint64_t completed = per_writer / kEventsPerTodo;
    expected.deleted += (completed + 9) / 10;
  }
  if (Status s = CheckModel(runner, where, expected, (*store)->LastPosition()); !s.ok()) return s;

  // The measured window: acknowledged after the warm-up.
  const auto from = static_cast<std::int64_t>(kWarmupSeconds * 1e9);
  const auto until = static_cast<std::int64_t>((kWarmupSeconds + spec.seconds) * 1e9);
  std::vector<double> window;
  for (std::uint64_t p = 1; p <= total; ++p)
    if (acks.ns[p] >= from && acks.ns[p] < until) window.push_back(lag_ms[p]);
  if (window.empty()) return Status::Internal("projection: no append in the measured window");
  const double achieved = static_cast<double>(window.size()) / spec.seconds;
  const double max = *std::max_element(window.begin(), window.end());
  const double p50 = Quantile(window, 0.5);
  const double p99 = Quantile(window, 0.99);

  const Conditions conditions{
      window.size(), spec.writers,
      static_cast<std::size_t>(static_cast<double>(acks.bytes) / static_cast<double>(acks.count) +
                               0.5),
      1, todos};
  Line extra;
  extra.Add("read_store", where.kind);
  if (!where.server.empty()) extra.Add("server", where.server);
  extra.Add("rate_target", spec.rate, 0)
      .Add("rate_achieved", achieved, 0)
      .Add("warmup_s", kWarmupSeconds, 1)
      .Add("seconds", spec.seconds, 1)
      .Add("batch_events", static_cast<std::uint64_t>(spec.batch_events))
      .Add("runqueue_threads", runqueue_s / spec.seconds, 2)
      .Add("measured", "WaitFor_true_minus_ack_time");
  const std::string bench = "projection-lag";
  context.AddFigure(bench, fmt::format("{}_appends_per_s", where.kind), achieved, 0, conditions,
                    Target::AtLeast(0.95 * spec.rate), false, extra);
  context.AddFigure(bench, fmt::format("{}_p50_ms", where.kind), p50, 2, conditions, Target::None(),
                    false, extra);
  context.AddFigure(bench, fmt::format("{}_p99_ms", where.kind), p99, 2, conditions,
                    Target::AtMost(50), false, extra);
  context.AddFigure(bench, fmt::format("{}_max_ms", where.kind), max, 2, conditions, Target::None(),
                    false, extra);
  return Status::Ok();
}

// PostgreSQL's version, for the figures' lines ("15.x"); empty if unknown.
std::string ServerVersion(const std::string& url) {
  auto db = ReadStore::Open(url);
  if (!db.ok()) return {};
  auto rows = (*db)->Query("SHOW server_version");
  if (!rows.ok() || rows->empty() || rows->front().empty()) return {};
  std::string version = SqlText(rows->front().front());
  return version.substr(0, version.find(' '));
}

// Names the read store a failure came from.
Status Failed(const ReadStoreSpec& read, Status status) {
  std::fprintf(stderr, "# projection: the %s read store failed\n", read.kind.c_str());
  return status;
}

}  // namespace

Status RunProjection(Context& context) {
  const Options& options = context.options();
  const std::uint64_t todos = options.events.value_or(200000) / kEventsPerTodo;
  if (todos == 0) return Status::Invalid("events", "--events must be at least 5 (one todo)");
  const std::size_t batch_events = options.batch_events.value_or(kDefaultBatchEvents);

  // The read stores: SQLite always, PostgreSQL when given or started.
  std::vector<ReadStoreSpec> reads(1);
  reads[0].kind = "sqlite";  // its file is made per half, in that half's folder
  std::unique_ptr<ScratchFolder> cluster_folder;
  std::unique_ptr<Cluster> cluster;
  if (options.postgres) {
    cluster_folder = std::make_unique<ScratchFolder>(context, "projection-pg");
    if (!cluster_folder->error().empty()) return Status::Unavailable(cluster_folder->error());
    auto started = Cluster::Start(cluster_folder->path());
    if (!started.ok()) return started.status();
    cluster = std::move(*started);
    reads.push_back({"postgresql", cluster->url(), ServerVersion(cluster->url()),
                     [c = cluster.get()] { return c->CpuSeconds(); }});
    std::printf("# projection: throwaway PostgreSQL %s (scripts/postgres.sh) at %s\n",
                reads.back().server.c_str(), cluster->url().c_str());
  } else if (!options.read_store.empty()) {
    reads.push_back({"postgresql", options.read_store, ServerVersion(options.read_store),
                     [] { return std::optional<double>(); }});
    std::printf("# projection: PostgreSQL %s at %s\n", reads.back().server.c_str(),
                options.read_store.c_str());
  } else {
    std::printf("# projection: PostgreSQL not run (--postgres starts a throwaway cluster)\n");
  }
  std::fflush(stdout);

  {
    ScratchFolder folder(context, "projection-rebuild");
    if (!folder.error().empty()) return Status::Unavailable(folder.error());
    double mean_bytes = 0;
    {
      auto store = OpenStore(context, folder.path());
      if (!store.ok()) return store.status();
      auto filled = FillTodos(**store, todos);
      if (!filled.ok()) return filled.status();
      mean_bytes = *filled;
    }
    auto store = OpenStore(context, folder.path());  // reopened: RocksDB's flushes done
    if (!store.ok()) return store.status();
    for (ReadStoreSpec read : reads) {
      if (read.kind == "sqlite") read.url = SqliteUrl(folder.path());
      if (Status s = TimeRebuild(context, **store, read, todos, mean_bytes, batch_events); !s.ok())
        return Failed(read, s);
    }
  }

  LagSpec lag;
  lag.writers = options.clients.value_or(4);
  lag.rate = options.rate.value_or(5000);
  lag.seconds = options.seconds.value_or(10);
  lag.batch_events = batch_events;
  for (const ReadStoreSpec& read : reads)
    if (Status s = MeasureLag(context, read, lag); !s.ok()) return Failed(read, s);
  return Status::Ok();
}

}  // namespace indelible::bench
