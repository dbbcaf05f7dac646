// index-lag: how long after its commit an event can be read from $all, on
// a store that builds $all after the commit (DynamoDB: the indexer thread
// inside the store reads the events table's change stream and writes the
// <prefix>all table; docs/DYNAMODB.md). With no --store it runs on the
// embedded engine, whose $all is written by the commit itself: a yardstick.
//
// --clients (8) writer threads append single 200-byte ledger events
// (events.h) at a fixed open-loop rate, --rate (1,000) appends/s together:
// append n is due at start + n / rate whether or not the earlier ones were
// answered, writer n % clients sends it, and a writer that is behind sends
// at once. Writer w owns streams w, w + clients, ... of --streams (100) and
// goes round them with the exact expected version (no_stream first). 2 s
// of warm-up, then --seconds (10) measured; sends due after the window are
// not made. A reader thread follows $all from the start (ReadAll from its
// position, then WaitForCommit) and records, for each event, the time it
// read it minus event.timestamp_ms (the commit time the store wrote, Unix
// ms from this host's clock; whole ms, so the lag reads up to 1 ms high).
//
// One line: p50, p99 and max lag of the events committed in the measured
// window, the append rate achieved (appends acknowledged in the window /
// seconds; rate_met=no below 95 % of --rate: the writers and the server
// could not keep up, and send_late_p99_ms says how late sends left), and on
// DynamoDB requests_per_append (the store's requests in the window, retries,
// the indexer's and the reader's included, / the appends acknowledged in
// it).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <thread>

#include "bench/events.h"
#include "bench/scenario_store.h"
#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kWarmupSeconds = 2;
constexpr std::size_t kEventBytes = 200;
// How long the reader may take to see every event after the last append.
constexpr auto kDrainTimeout = std::chrono::seconds(60);

// Unix time in ms, with the µs: what event timestamps are compared with.
double UnixMs() {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count()) /
         1000.0;
}

struct LagSpec {
  double rate = 1000;
  double seconds = 10;
  int writers = 8;
  std::uint64_t streams = 100;
};

// What the threads share.
struct Shared {
  std::atomic<bool> stop{false};  // a writer or the reader failed
  std::mutex mu;
  Status failure;  // GUARDED_BY(mu): the first error
  std::atomic<std::uint64_t> appended{0};
  std::atomic<std::uint64_t> appended_in_window{0};
  std::atomic<bool> writers_done{false};
  std::atomic<bool> reader_done{false};

  void Fail(Status status) {
    std::lock_guard lock(mu);
    if (failure.ok()) failure = std::move(status);
    stop.store(true);
  }
};

// The measured window, in both clocks.
struct Window {
  Clock::time_point origin;  // append 0 is due then
  Clock::time_point from;
  Clock::time_point until;
  double from_ms = 0;  // Unix ms
  double until_ms = 0;
};

// Writer w: appends n = w, w + writers, ... due at origin + n / rate.
void Write(Store& store, const LagSpec& spec, const Window& window, int w, Shared& shared,
           std::vector<double>& late_ms) {
  std::vector<std::string> owned;
  for (auto s = static_cast<std::uint64_t>(w); s < spec.streams;
       s += static_cast<std::uint64_t>(spec.writers))
    owned.push_back(AccountStream(s));
  std::vector<std::int64_t> heads(owned.size(), -1);
  std::mt19937 rng(static_cast<std::uint32_t>(2000 + w));
  const auto period = std::chrono::duration<double>(1.0 / spec.rate);
  std::size_t next = 0;  // the owned stream of the next append
  for (auto n = static_cast<std::uint64_t>(w);; n += static_cast<std::uint64_t>(spec.writers)) {
    const Clock::time_point due = window.origin + std::chrono::duration_cast<Clock::duration>(
                                                      period * static_cast<double>(n));
    if (due >= window.until) return;
    std::this_thread::sleep_until(due);
    const Clock::time_point sent = Clock::now();
    if (sent >= window.until || shared.stop.load()) return;
    late_ms.push_back(std::chrono::duration<double, std::milli>(sent - due).count());
    std::int64_t& head = heads[next];
    const Expected expected =
        head < 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(head));
    std::vector<EventData> events;
    events.push_back(
        DepositedEvent(owned[next], static_cast<std::uint64_t>(head + 1), kEventBytes, rng));
    auto result = store.Append(owned[next], expected, std::move(events));
    if (!result.ok()) {
      shared.Fail(result.status());
      return;
    }
    const Clock::time_point acked = Clock::now();
    head = result->last_version.value();
    next = (next + 1) % owned.size();
    shared.appended.fetch_add(1);
    if (acked >= window.from && acked < window.until) shared.appended_in_window.fetch_add(1);
  }
}

// The reader: follows $all from the start until it has read every append.
void Follow(Store& store, const Window& window, Shared& shared, std::vector<double>& lags) {
  Position next(1);
  std::uint64_t seen = 0;
  std::optional<Clock::time_point> deadline;
  for (;;) {
    if (shared.stop.load()) return;
    if (shared.writers_done.load()) {
      const std::uint64_t appended = shared.appended.load();
      if (seen >= appended) return;
      if (!deadline) deadline = Clock::now() + kDrainTimeout;
      if (Clock::now() > *deadline) {
        shared.Fail(Status::Unavailable(
            fmt::format("index-lag: $all held {} of the {} events appended {} s after the last "
                        "append (LastPosition {})",
                        seen, appended, kDrainTimeout.count(), store.LastPosition().value())));
        return;
      }
    }
    const Position last =
        store.WaitForCommit(Position(next.value() - 1), std::chrono::milliseconds(100));
    if (last.value() < next.value()) continue;
    ReadAllOptions options;
    options.from = next;
    auto cursor = store.ReadAll(options);
    if (!cursor.ok()) {
      shared.Fail(cursor.status());
      return;
    }
    for (; (*cursor)->Valid(); (*cursor)->Next(), ++seen) {
      const double now = UnixMs();
      const auto at = static_cast<double>((*cursor)->event().timestamp_ms);
      if (at >= window.from_ms && at < window.until_ms) lags.push_back(now - at);
    }
    if (Status s = (*cursor)->status(); !s.ok()) {
      shared.Fail(s);
      return;
    }
    next = (*cursor)->next_position();
  }
}

}  // namespace

Status RunIndexLag(Context& context) {
  const Options& options = context.options();
  LagSpec spec;
  spec.rate = options.rate.value_or(1000);
  spec.seconds = options.seconds.value_or(10);
  spec.writers = options.clients.value_or(8);
  spec.streams = options.streams.value_or(100);
  if (spec.streams > 1000000)
    return Status::Invalid("streams", "stream names have 6 digits: --streams <= 1000000");
  if (static_cast<std::uint64_t>(spec.writers) > spec.streams)
    return Status::Invalid("clients", fmt::format("--clients {} is more than --streams {}: each "
                                                  "writer needs a stream of its own",
                                                  spec.writers, spec.streams));
  auto opened = ScenarioStore::Open(context, "index-lag", "il");
  if (!opened.ok()) return opened.status();
  ScenarioStore& where = **opened;
  Store& store = where.store();

  const auto total = static_cast<std::uint64_t>(spec.rate * (kWarmupSeconds + spec.seconds));
  Window window;
  const auto lead = std::chrono::milliseconds(100);
  window.origin = Clock::now() + lead;
  const double origin_ms = UnixMs() + static_cast<double>(lead.count());
  window.from = window.origin + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(kWarmupSeconds));
  window.until = window.from + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(spec.seconds));
  window.from_ms = origin_ms + kWarmupSeconds * 1000;
  window.until_ms = window.from_ms + spec.seconds * 1000;

  Shared shared;
  std::vector<double> lags;
  std::vector<std::vector<double>> late_ms(static_cast<std::size_t>(spec.writers));
  std::thread reader([&] {
    Follow(store, window, shared, lags);
    shared.reader_done.store(true);
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < spec.writers; ++w)
    writers.emplace_back(
        [&, w] { Write(store, spec, window, w, shared, late_ms[static_cast<std::size_t>(w)]); });

  // The store's counters at the window's edges, taken on time.
  std::optional<StoreStats> at_from;
  std::optional<StoreStats> at_until;
  {
    Progress progress(fmt::format("index-lag: {:.0f} appends/s", spec.rate), total);
    while (!at_until && !shared.stop.load()) {
      Clock::time_point wake = Clock::now() + std::chrono::milliseconds(100);
      if (!at_from) wake = std::min(wake, window.from);
      wake = std::min(wake, window.until);
      std::this_thread::sleep_until(wake);
      const Clock::time_point now = Clock::now();
      if (!at_from && now >= window.from) at_from = store.stats();
      if (now >= window.until) at_until = store.stats();
      progress.Update(shared.appended.load());
    }
  }
  for (auto& thread : writers) thread.join();
  shared.writers_done.store(true);
  {
    Progress progress("index-lag: reading the rest of $all", shared.appended.load());
    while (!shared.reader_done.load()) {
      progress.Update(store.LastPosition().value());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  reader.join();
  if (Status s = where.Close(); !s.ok())
    std::fprintf(stderr, "# index-lag: %s\n", s.ToString().c_str());
  {
    std::lock_guard lock(shared.mu);
    if (!shared.failure.ok()) return shared.failure;
  }
  if (lags.empty() || !at_from || !at_until)
    return Status::Internal("index-lag: no event was committed in the measured window");

  std::vector<double> late;
  for (const auto& some : late_ms) late.insert(late.end(), some.begin(), some.end());
  const std::uint64_t in_window = shared.appended_in_window.load();
  const double achieved = static_cast<double>(in_window) / spec.seconds;
  const std::uint64_t requests = at_until->requests - at_from->requests;
  const std::size_t measured = lags.size();
  const double max = *std::max_element(lags.begin(), lags.end());
  const double p50 = Quantile(lags, 0.5);
  const double p99 = Quantile(lags, 0.99);

  Line line;
  line.Add("bench", "index-lag")
      .Add("figure", "lag_p99_ms")
      .Add("value", p99, 1)
      .Add("p50_ms", p50, 1)
      .Add("p99_ms", p99, 1)
      .Add("max_ms", max, 1)
      .Add("rate_target", spec.rate, 0)
      .Add("rate_achieved", achieved, 0)
      .Add("rate_met", achieved >= 0.95 * spec.rate ? "yes" : "no")
      .Add("events", static_cast<std::uint64_t>(measured));
  if (where.remote())
    line.Add("requests_per_append",
             in_window == 0 ? 0.0 : static_cast<double>(requests) / static_cast<double>(in_window),
             2)
        .Add("retries", at_until->retries - at_from->retries)
        .Add("throttles", at_until->throttles - at_from->throttles);
  line.Add("send_late_p99_ms", Quantile(late, 0.99), 1)
      .Add("appends_total", shared.appended.load())
      .Add("seconds", spec.seconds, 1)
      .Add("warmup_s", kWarmupSeconds, 1)
      .Add("writers", spec.writers)
      .Add("streams", spec.streams)
      .Add("event_bytes", static_cast<std::uint64_t>(kEventBytes))
      .Add("expected", "exact");
  where.AddConditions(line);
  line.Add("measured", "read_from_all_minus_event_timestamp");
  context.report().Add(Figure{"index-lag lag_p99_ms", p99, line.str()});
  return Status::Ok();
}

}  // namespace indelible::bench
