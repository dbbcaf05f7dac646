// dcb: what consistency beyond one stream (issue 36, include/indelible/query.h,
// docs/DCB.md) costs on the embedded engine.
//
// Appends, durable (sync) and then synced every 100 ms (interval): --clients
// writers (8), each on its own stream, one 200-byte event per append, exact
// expected version, closed loop for --seconds (0.5) per variant and round,
// every variant in a store of its own (a fresh subfolder of --data):
//   plain        no tags
//   tagged       two tags per event: account:<writer> and kind:<k> (100
//                kinds shared by every writer)
//   conditional  tagged, and before each append the writer reads its last
//                event by query (its own account tag, backward, limit 1)
//                and commits with the condition {that query, the position
//                read}: the cost of the read plus the check. Each writer
//                has its own tag, so no condition should fail; the
//                conflicts are counted (a conflict re-reads and retries).
// The variants alternate in 5 rounds, the order rotated each round; each
// figure is the median over the rounds, each ratio the median of the
// rounds' ratios to plain in the same round.
//
// Query reads against the store's size: for each of --sizes (100k, 1M, 10M
// events), a store filled (its rate is reported) with appends of
// 100 events at interval durability over 1,000 streams, in which every
// event carries one tag of 10,000 (entity:NNNN), every 10th the tag
// `common`, and exactly 1,000 spread evenly the tag `needle`, 1 in 10 of
// them on a `common` event. After a reopen, once the compactions the fill
// left behind are done (the store as it would be read later; the wait is
// reported), each read whole, 10 passes, the median reported:
//   needle         Query{{ {}, {"needle"} }}: 1,000 events
//   needle+common  one item of both tags: 100 events, the leapfrog join of
//                  the rarest tag and one 10 % of the store carry
//   scan           $all read whole, the tags checked in the loop (what a
//                  store without the index would do), while a pass is
//                  predicted to take under a minute
// Longer runs: --seconds, --clients, and --runs for medians of runs.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/events.h"
#include "bench/scenarios.h"
#include "indelible/query.h"

namespace indelible::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRounds = 5;
constexpr std::uint64_t kKinds = 100;
constexpr std::uint64_t kNeedles = 1000;
constexpr std::uint64_t kEntityTags = 10000;
constexpr std::uint64_t kCommonEvery = 10;  // events carrying `common`
constexpr std::uint64_t kFillStreams = 1000;
constexpr std::size_t kFillPerAppend = 100;
constexpr int kQueryPasses = 10;
constexpr double kScanLimitSeconds = 60;
constexpr double kSettleLimitSeconds = 600;

Result<std::unique_ptr<Store>> OpenEngine(const std::string& folder, Durability durability) {
  StoreOptions options;
  options.durability = durability;
  return Store::Open("file:" + folder, options);
}

double Median(std::vector<double> values) { return Quantile(values, 0.5); }

std::string Joined(const std::vector<double>& values, int decimals) {
  std::string text;
  for (double v : values) text += fmt::format("{}{:.{}f}", text.empty() ? "" : ",", v, decimals);
  return text;
}

// ---- appends ---------------------------------------------------------------

enum class AppendVariant : std::uint8_t { kPlain, kTagged, kConditional };
constexpr AppendVariant kAppendVariants[] = {AppendVariant::kPlain, AppendVariant::kTagged,
                                             AppendVariant::kConditional};
constexpr std::string_view Name(AppendVariant v) {
  switch (v) {
    case AppendVariant::kPlain:
      return "plain";
    case AppendVariant::kTagged:
      return "tagged";
    case AppendVariant::kConditional:
      return "conditional";
  }
  return "";
}

// Members in this order: the store goes before its folder.
struct VariantStore {
  std::unique_ptr<ScratchFolder> folder;
  std::unique_ptr<Store> store;
};

Result<VariantStore> OpenAppendStore(const Context& context, AppendVariant variant,
                                     Durability durability) {
  VariantStore v;
  v.folder = std::make_unique<ScratchFolder>(context, fmt::format("dcb-{}", Name(variant)));
  if (!v.folder->error().empty()) return Status::Unavailable(v.folder->error());
  auto store = OpenEngine(v.folder->path(), durability);
  if (!store.ok()) return store.status();
  v.store = std::move(*store);
  return v;
}

struct Writer {
  Status status;
  std::uint64_t appends = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t events_read = 0;
  Clock::time_point end;
};

struct AppendRound {
  std::uint64_t events = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t events_read = 0;
  double seconds = 0;
  double cpu_s = 0;
};

// What a conditional writer decides on: its last event by its own tag.
// Returns the position read, nullopt when the tag has no event yet.
Result<std::optional<Position>> ReadLast(Store& store, const Query& query,
                                         std::uint64_t& events_read) {
  ReadQueryOptions options;
  options.direction = Direction::kBackward;
  options.limit = 1;
  auto cursor = store.ReadQuery(query, options);
  if (!cursor.ok()) return cursor.status();
  std::optional<Position> seen;
  if ((*cursor)->Valid()) {
    seen = (*cursor)->event().position;
    ++events_read;
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  return seen;
}

// --clients writers on fresh streams (and tags) for `seconds`, closed loop.
Result<AppendRound> TimeAppends(Store& store, AppendVariant variant, int clients, double seconds,
                                std::size_t event_bytes, int round) {
  std::vector<Writer> writers(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  std::latch ready(clients);
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      Writer& writer = writers[static_cast<std::size_t>(c)];
      const std::uint64_t index = static_cast<std::uint64_t>(round * clients + c);
      const std::string stream = AccountStream(index);
      const std::string account_tag = fmt::format("account:{}", index);
      const Query mine = Query::Of({QueryItem{{}, {account_tag}}});
      std::mt19937 rng(static_cast<std::uint32_t>(c));
      ready.count_down();
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (std::uint64_t a = 0; !stop.load(std::memory_order_relaxed);) {
        CommitOptions options;
        if (variant == AppendVariant::kConditional) {
          auto seen = ReadLast(store, mine, writer.events_read);
          if (!seen.ok()) {
            writer.status = seen.status();
            break;
          }
          options.condition = AppendCondition{mine, *seen};
        }
        EventData event = DepositedEvent(stream, a, event_bytes, rng);
        if (variant != AppendVariant::kPlain)
          event.tags = {account_tag, fmt::format("kind:{:02}", (index + a) % kKinds)};
        std::vector<AppendRequest> appends;
        appends.push_back(AppendRequest{
            stream,
            a == 0 ? Expected::no_stream()
                   : Expected::exactly(StreamVersion(static_cast<std::int64_t>(a) - 1)),
            {}});
        appends.back().events.push_back(std::move(event));
        auto result = store.Commit(std::move(appends), options);
        if (!result.ok()) {
          if (result.status().condition_position()) {
            ++writer.conflicts;  // read again and retry
            continue;
          }
          writer.status = result.status();
          break;
        }
        ++writer.appends;
        ++a;
      }
      writer.end = Clock::now();
    });
  ready.wait();
  Stopwatch watch;
  const auto start = Clock::now();
  go.store(true, std::memory_order_release);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true, std::memory_order_relaxed);
  for (auto& thread : threads) thread.join();
  AppendRound result;
  result.cpu_s = watch.CpuSeconds();
  Clock::time_point end = start;
  for (const Writer& writer : writers) {
    if (!writer.status.ok()) return writer.status;
    result.events += writer.appends;
    result.conflicts += writer.conflicts;
    result.events_read += writer.events_read;
    end = std::max(end, writer.end);
  }
  result.seconds = std::chrono::duration<double>(end - start).count();
  return result;
}

// Each variant's per-round rates, in the variants' order; [0] is plain.
using RoundRates = std::vector<std::vector<double>>;

std::vector<double> Ratios(const RoundRates& rates, std::size_t v) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < rates[v].size(); ++r) ratios.push_back(rates[v][r] / rates[0][r]);
  return ratios;
}

void PrintRound(std::string_view what, int round, const RoundRates& rates) {
  std::string line = fmt::format("# dcb round {} {}:", round + 1, what);
  const auto r = static_cast<std::size_t>(round);
  for (std::size_t v = 0; v < rates.size(); ++v) {
    line += fmt::format(" {}={:.0f}", Name(kAppendVariants[v]), rates[v][r]);
    if (v > 0) line += fmt::format(" ({:.3f})", rates[v][r] / rates[0][r]);
  }
  std::puts(line.c_str());
  std::fflush(stdout);
}

Status RunAppends(Context& context, Durability durability, int clients, double seconds) {
  const std::size_t event_bytes = context.options().event_bytes;
  std::vector<VariantStore> stores;
  for (AppendVariant variant : kAppendVariants) {
    auto store = OpenAppendStore(context, variant, durability);
    if (!store.ok()) return store.status();
    stores.push_back(std::move(*store));
  }
  const std::size_t n = std::size(kAppendVariants);
  RoundRates rates(n);
  std::vector<double> cpu_us(n, 0);
  std::vector<std::uint64_t> events(n, 0);
  std::vector<std::uint64_t> conflicts(n, 0);
  std::vector<std::uint64_t> events_read(n, 0);
  const std::string_view mode = durability == Durability::kSync ? "sync" : "interval";
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t v = (i + static_cast<std::size_t>(round)) % n;
      Progress progress(fmt::format("dcb: round {} of {}, {} appends, {}", round + 1, kRounds, mode,
                                    Name(kAppendVariants[v])),
                        1);
      auto result =
          TimeAppends(*stores[v].store, kAppendVariants[v], clients, seconds, event_bytes, round);
      progress.Finish();
      if (!result.ok()) return result.status();
      rates[v].push_back(static_cast<double>(result->events) / result->seconds);
      cpu_us[v] += result->cpu_s * 1e6;
      events[v] += result->events;
      conflicts[v] += result->conflicts;
      events_read[v] += result->events_read;
    }
    PrintRound(fmt::format("appends/s {}", mode), round, rates);
  }
  stores.clear();

  Options& options = context.mutable_options();
  const Durability saved = options.durability;
  options.durability = durability;  // the lines say which
  const Conditions conditions{events[0], clients, event_bytes, 1,
                              static_cast<std::uint64_t>(clients * kRounds)};
  for (std::size_t v = 0; v < n; ++v) {
    const std::string_view variant = Name(kAppendVariants[v]);
    Line extra;
    extra.Add("variant", variant)
        .Add("rounds", static_cast<std::uint64_t>(kRounds))
        .Add("round_rates", Joined(rates[v], 0))
        .Add("seconds_per_round", seconds, 2)
        .Add("cpu_us_per_event", cpu_us[v] / static_cast<double>(events[v]), 2)
        .Add("variant_events", events[v])
        .Add("tags_per_event", kAppendVariants[v] == AppendVariant::kPlain ? 0 : 2);
    if (kAppendVariants[v] == AppendVariant::kConditional)
      extra.Add("conflicts", conflicts[v]).Add("events_read", events_read[v]);
    if (v > 0) extra.Add("ratio_to_plain", Median(Ratios(rates, v)), 3);
    context.AddFigure("dcb", fmt::format("append_{}_{}_events_per_s", mode, variant),
                      Median(rates[v]), 0, conditions, Target::None(), false, extra);
  }
  for (std::size_t v = 1; v < n; ++v) {
    const std::string_view variant = Name(kAppendVariants[v]);
    Line extra;
    extra.Add("variant", variant).Add("round_ratios", Joined(Ratios(rates, v), 3));
    if (kAppendVariants[v] == AppendVariant::kConditional) extra.Add("conflicts", conflicts[v]);
    context.AddFigure("dcb", fmt::format("append_{}_{}_ratio_to_plain", mode, variant),
                      Median(Ratios(rates, v)), 3, conditions, Target::None(), false, extra);
  }
  options.durability = saved;
  return Status::Ok();
}

// ---- query reads against the store's size ----------------------------------

// Where the 1,000 needles stand in a store of `size` events (a multiple of
// 10,000): one per stride of size / 1,000, near its middle, on an event
// carrying `common` (index % 10 == 0) for every 10th needle and one past
// such an event for the others.
struct Layout {
  std::uint64_t size;
  std::uint64_t stride;
  std::uint64_t base;

  explicit Layout(std::uint64_t events)
      : size(events), stride(events / kNeedles), base(stride / 2 / 10 * 10) {}
  bool Needle(std::uint64_t i) const {
    const std::uint64_t j = i / stride;
    return i % stride == base + (j % 10 == 0 ? 0 : 1);
  }
  static bool Common(std::uint64_t i) { return i % kCommonEvery == 0; }
};

struct Filled {
  double seconds = 0;
  std::uint64_t folder_bytes = 0;
};

// Appends `size` events, 100 per append, round-robin over 1,000 streams,
// the ids made by the store.
Result<Filled> Fill(Store& store, const Layout& layout, std::size_t event_bytes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> amount(1, 100000);
  Progress progress(fmt::format("dcb: filling {} events", layout.size), layout.size);
  Stopwatch watch;
  std::uint64_t append = 0;
  for (std::uint64_t done = 0; done < layout.size; ++append) {
    const std::string stream = AccountStream(append % kFillStreams);
    const std::uint64_t count = std::min<std::uint64_t>(kFillPerAppend, layout.size - done);
    std::vector<EventData> batch(count);
    for (std::uint64_t e = 0; e < count; ++e) {
      const std::uint64_t i = done + e;
      EventData& event = batch[e];
      event.type = "Deposited";
      event.data = LedgerPayload(stream, i, amount(rng), event_bytes);
      event.tags.push_back(fmt::format("entity:{:04}", i % kEntityTags));
      if (Layout::Common(i)) event.tags.emplace_back("common");
      if (layout.Needle(i)) event.tags.emplace_back("needle");
    }
    auto result = store.Append(stream, Expected::any(), std::move(batch));
    if (!result.ok()) return result.status();
    done += count;
    progress.Update(done);
  }
  Filled filled;
  filled.seconds = watch.Seconds();
  return filled;
}

// Waits for the store's background work (RocksDB's flushes and the
// compactions the fill left behind) to end: until the process spends less
// than 5 % of a core over a second, for at most kSettleLimitSeconds. Right
// after a fill, a read's every seek and lookup also visits the level-0
// files still waiting to be compacted, and competes with the compaction
// for the cores. Returns the seconds waited.
double Settle(std::uint64_t size) {
  Progress progress(fmt::format("dcb: waiting for the compactions of {} events", size), 0,
                    "seconds");
  Stopwatch watch;
  double cpu = ProcessCpuSeconds();
  while (watch.Seconds() < kSettleLimitSeconds) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const double now = ProcessCpuSeconds();
    progress.Update(static_cast<std::uint64_t>(watch.Seconds()));
    if (now - cpu < 0.05) break;
    cpu = now;
  }
  return watch.Seconds();
}

struct Pass {
  std::uint64_t events = 0;
  double seconds = 0;
};

// One read of the query, whole.
Result<Pass> QueryPass(Store& store, const Query& query) {
  Stopwatch watch;
  auto cursor = store.ReadQuery(query);
  if (!cursor.ok()) return cursor.status();
  Pass pass;
  std::uint64_t bytes = 0;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    ++pass.events;
    bytes += (*cursor)->event().data.size();
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  pass.seconds = watch.Seconds();
  if (bytes == 0 && pass.events > 0) return Status::Internal("dcb: events without data");
  return pass;
}

// The same query answered by reading $all whole and checking each event.
Result<Pass> ScanPass(Store& store, const Query& query) {
  Stopwatch watch;
  auto cursor = store.ReadAll();
  if (!cursor.ok()) return cursor.status();
  Pass pass;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    if (query.Matches(event.type, event.tags)) ++pass.events;
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  pass.seconds = watch.Seconds();
  return pass;
}

struct Timed {
  std::vector<double> us;  // per pass, in order
  std::uint64_t events = 0;
};

Result<Timed> TimePasses(Store& store, const Query& query, bool scan, int passes,
                         std::uint64_t expected, std::string_view label) {
  Timed timed;
  Progress progress(fmt::format("dcb: {}", label), static_cast<std::uint64_t>(passes), "passes");
  for (int p = 0; p < passes; ++p) {
    auto pass = scan ? ScanPass(store, query) : QueryPass(store, query);
    if (!pass.ok()) return pass.status();
    if (pass->events != expected)
      return Status::Internal(
          fmt::format("dcb: {} found {} events, {} expected", label, pass->events, expected));
    timed.us.push_back(pass->seconds * 1e6);
    timed.events = pass->events;
    progress.Update(static_cast<std::uint64_t>(p + 1));
  }
  return timed;
}

void AddReadFigure(Context& context, std::string_view what, std::uint64_t size, const Timed& timed,
                   const Conditions& conditions, Line extra) {
  const double median = Median(timed.us);
  extra.Add("events_returned", timed.events)
      .Add("us_per_event_returned", median / static_cast<double>(timed.events), 3)
      .Add("first_pass_us", timed.us.front(), 0)
      .Add("passes", static_cast<std::uint64_t>(timed.us.size()))
      .Add("pass_us", Joined(timed.us, 0))
      .Add("store_events", size);
  context.AddFigure("dcb", fmt::format("{}_us_at_{}", what, size), median, 0, conditions,
                    Target::None(), false, extra);
}

Status RunReads(Context& context, const std::vector<std::uint64_t>& sizes) {
  const std::size_t event_bytes = context.options().event_bytes;
  const Query needle = Query::Of({QueryItem{{}, {"needle"}}});
  const Query both = Query::Of({QueryItem{{}, {"needle", "common"}}});
  std::optional<double> last_scan_s;  // a pass at the previous size
  std::uint64_t last_size = 0;
  Options& options = context.mutable_options();
  const Durability saved = options.durability;
  const bool saved_ids = options.store_ids;
  for (std::uint64_t size : sizes) {
    const Layout layout(size);
    ScratchFolder folder(context, fmt::format("dcb-{}", size));
    if (!folder.error().empty()) return Status::Unavailable(folder.error());
    Filled filled;
    {
      auto store = OpenEngine(folder.path(), Durability::kInterval);
      if (!store.ok()) return store.status();
      auto fill = Fill(**store, layout, event_bytes);
      if (!fill.ok()) return fill.status();
      filled = *fill;
    }
    // Reopened, as `read` does: every read from the table files and the
    // OS page cache, nothing from the writer's memtables.
    auto store = OpenEngine(folder.path(), Durability::kSync);
    if (!store.ok()) return store.status();
    Store& reader = **store;
    const double settle_s = Settle(size);
    filled.folder_bytes = FolderBytes(folder.path());

    options.durability = Durability::kInterval;  // the fill's, as the lines say
    options.store_ids = true;
    const Conditions conditions{size, 1, event_bytes, kFillPerAppend, kFillStreams};
    Line fill_extra;
    fill_extra.Add("fill_seconds", filled.seconds, 1)
        .Add("settle_seconds", settle_s, 1)
        .Add("folder_bytes", filled.folder_bytes)
        .Add("folder_bytes_per_event",
             static_cast<double>(filled.folder_bytes) / static_cast<double>(size), 1)
        .Add("tags", "entity:NNNN(1/10000),common(1/10),needle(1000)");
    context.AddFigure("dcb", fmt::format("fill_events_per_s_at_{}", size),
                      static_cast<double>(size) / filled.seconds, 0, conditions, Target::None(),
                      false, fill_extra);

    auto timed = TimePasses(reader, needle, false, kQueryPasses, kNeedles,
                            fmt::format("query needle at {}", size));
    if (!timed.ok()) return timed.status();
    Line needle_extra;
    needle_extra.Add("query", "tags=[needle]");
    AddReadFigure(context, "query_needle", size, *timed, conditions, needle_extra);

    timed = TimePasses(reader, both, false, kQueryPasses, kNeedles / 10,
                       fmt::format("query needle+common at {}", size));
    if (!timed.ok()) return timed.status();
    Line both_extra;
    both_extra.Add("query", "tags=[needle,common]").Add("common_events", size / kCommonEvery);
    AddReadFigure(context, "query_needle_common", size, *timed, conditions, both_extra);

    const double predicted_s =
        last_scan_s ? *last_scan_s * static_cast<double>(size) / static_cast<double>(last_size) : 0;
    if (predicted_s > kScanLimitSeconds) {
      std::printf("# dcb scan at %llu not run: a pass predicted to take %.0f s\n",
                  static_cast<unsigned long long>(size), predicted_s);
      std::fflush(stdout);
      continue;
    }
    const int scan_passes = predicted_s > 10 ? 1 : 3;
    timed = TimePasses(reader, needle, true, scan_passes, kNeedles,
                       fmt::format("scan of $all for needle at {}", size));
    if (!timed.ok()) return timed.status();
    last_scan_s = Median(timed->us) / 1e6;
    last_size = size;
    Line scan_extra;
    scan_extra.Add("query", "tags=[needle]")
        .Add("read", "ReadAll, tags checked in the loop")
        .Add("us_per_event_scanned", Median(timed->us) / static_cast<double>(size), 3);
    AddReadFigure(context, "scan_needle", size, *timed, conditions, scan_extra);
  }
  options.durability = saved;
  options.store_ids = saved_ids;
  return Status::Ok();
}

}  // namespace

Status RunDcb(Context& context, const std::vector<std::uint64_t>& sizes) {
  const Options& options = context.options();
  const int clients = options.clients.value_or(8);
  const double seconds = options.seconds.value_or(0.5);
  for (std::uint64_t size : sizes)
    if (size < 2 * kEntityTags || size % kEntityTags != 0)
      return Status::Invalid("sizes", fmt::format("{} is not a multiple of 10,000 of at least "
                                                  "20,000 (where 1,000 needles fit evenly)",
                                                  size));
  for (Durability durability : {Durability::kSync, Durability::kInterval})
    if (Status s = RunAppends(context, durability, clients, seconds); !s.ok()) return s;
  return RunReads(context, sizes);
}

}  // namespace indelible::bench
