// schemas: what event schemas (issue 35, include/indelible/schemas.h) cost,
// against a plain Store in the same run. Target: validation at append and
// upcasting on read each cost at most 10 % (>= 0.9 x plain), and nothing
// when no schema is registered.
//
// Every variant has a store of its own (embedded, a fresh subfolder of
// --data). Events are the 200-byte ledger payload of events.h (5 fields,
// WORKLOAD.md's), type Deposited, labelled V1.
//
// Appends, durable (sync) and then synced every 100 ms (interval, where the
// check is not hidden behind fdatasync): --clients writers (8), each on its
// own stream, one event per append, exact expected version, closed loop for
// --seconds (0.5) per variant and round:
//   plain         the embedded store
//   unregistered  a SchemaStore over it, nothing registered
//   enforce       a SchemaStore with V1 of Deposited registered (draft-07,
//                 5 properties: types, required, maxLength, minimum) and
//                 mode enforce: every event is validated
// Reads of --events (100,000) events in one stream, then of $all, written
// untimed and read after a reopen (as `read` does), best of 3 passes per
// variant and round:
//   plain, unregistered  as above
//   current       V1, V2 and a declarative V1 -> V2 upcaster registered,
//                 the events stored as V2 (each is looked up, none changed)
//   declarative   the same registry, the events stored as V1: each is
//                 upcast by the declarative upcaster (one rename, one
//                 default), on nlohmann's JSON (transform.cc)
//   function      V1 and V2, and a C++ upcaster doing the same change with
//                 Boost.JSON: each event upcast by it
//
// The machine is shared and its speed drifts, so the variants alternate in
// 5 rounds, the order rotated each round; each figure is the
// median over the rounds, and each ratio the median of the rounds' ratios
// to plain in the same round. The SchemaStats counters are checked at the
// end: validated = events appended with enforce, upcast = events read
// upcast. Longer runs: --seconds, --events, and --runs for medians of runs.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
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
#include "indelible/schemas.h"

namespace indelible::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kType = "Deposited";
// V1: the ledger payload as events.h writes it.
constexpr std::string_view kSchemaV1 = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "accountId": {"type": "string", "maxLength": 64},
    "seq": {"type": "integer", "minimum": 0},
    "amount": {"type": "number", "minimum": 1},
    "currency": {"type": "string", "maxLength": 3},
    "memo": {"type": "string"}
  },
  "required": ["accountId", "seq", "amount", "currency", "memo"]
})";
// V2: memo renamed note, and a channel that V1 events did not have.
constexpr std::string_view kSchemaV2 = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "accountId": {"type": "string", "maxLength": 64},
    "seq": {"type": "integer", "minimum": 0},
    "amount": {"type": "number", "minimum": 1},
    "currency": {"type": "string", "maxLength": 3},
    "note": {"type": "string"},
    "channel": {"type": "string"}
  },
  "required": ["accountId", "seq", "amount", "currency", "note", "channel"]
})";
constexpr std::string_view kRenames = R"({"/memo": "/note"})";
constexpr std::string_view kDefaults = R"({"/channel": "web"})";

constexpr int kRounds = 5;
constexpr int kPassesPerRound = 3;

// The declarative upcaster's change, as an application would write it in
// C++: parse, rename, default, serialise.
Result<std::string> UpcastWithBoost(const EventView& event) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(event.data, ec);
  if (ec || !value.is_object()) return Status::Invalid("data", "not a JSON object");
  boost::json::object& object = value.as_object();
  if (boost::json::value* memo = object.if_contains("memo")) {
    boost::json::value moved = std::move(*memo);
    object.erase("memo");
    object["note"] = std::move(moved);
  }
  if (!object.contains("channel")) object["channel"] = "web";
  return boost::json::serialize(value);
}

// A V2 event's data of exactly `bytes` bytes (note padded, as memo is).
std::string V2Payload(std::string_view stream, std::uint64_t seq, std::uint32_t amount,
                      std::size_t bytes) {
  std::string text = fmt::format(
      R"({{"accountId":"{}","seq":{},"amount":{},"currency":"EUR","channel":"web","note":")",
      stream, seq, amount);
  static constexpr std::string_view kClose = "\"}";
  if (text.size() + kClose.size() > bytes) return {};
  text.append(bytes - text.size() - kClose.size(), 'x');
  text += kClose;
  return text;
}

// A variant's store: the embedded engine in its own folder, wrapped in a
// SchemaStore or not. Members in this order: destroyed wrapper first.
struct VariantStore {
  std::unique_ptr<ScratchFolder> folder;
  std::unique_ptr<Store> inner;
  std::unique_ptr<SchemaStore> wrapped;

  Store& store() { return wrapped ? static_cast<Store&>(*wrapped) : *inner; }
};

Result<std::unique_ptr<Store>> OpenEngine(const std::string& folder, Durability durability) {
  StoreOptions options;
  options.durability = durability;
  return Store::Open("file:" + folder, options);
}

Status Wrap(VariantStore& v) {
  auto wrapped = SchemaStore::Wrap(*v.inner);
  if (!wrapped.ok()) return wrapped.status();
  v.wrapped = std::move(*wrapped);
  return Status::Ok();
}

// V1, then V2 with compatibility none (the rename breaks backward: the
// upcaster bridges it), and the declarative upcaster when asked.
Status RegisterVersions(Schemas& schemas, bool with_declarative) {
  if (auto r = schemas.Register(kType, "V1", kSchemaV1); !r.ok()) return r.status();
  if (Status s = schemas.SetTypeSettings(kType, {.compatibility = Compatibility::kNone}); !s.ok())
    return s;
  if (auto r = schemas.Register(kType, "V2", kSchemaV2); !r.ok()) return r.status();
  if (!with_declarative) return Status::Ok();
  DeclarativeUpcaster upcaster;
  upcaster.type = kType;
  upcaster.from = "V1";
  upcaster.to = "V2";
  upcaster.renames = kRenames;
  upcaster.defaults = kDefaults;
  return schemas.AddUpcaster(upcaster);
}

// ---- appends ---------------------------------------------------------------

enum class AppendVariant : std::uint8_t { kPlain, kUnregistered, kEnforce };
constexpr AppendVariant kAppendVariants[] = {AppendVariant::kPlain, AppendVariant::kUnregistered,
                                             AppendVariant::kEnforce};
constexpr std::string_view Name(AppendVariant v) {
  switch (v) {
    case AppendVariant::kPlain:
      return "plain";
    case AppendVariant::kUnregistered:
      return "unregistered";
    case AppendVariant::kEnforce:
      return "enforce";
  }
  return "";
}

Result<std::unique_ptr<VariantStore>> OpenAppendStore(const Context& context, AppendVariant variant,
                                                      Durability durability) {
  auto v = std::make_unique<VariantStore>();
  v->folder = std::make_unique<ScratchFolder>(context, fmt::format("schemas-{}", Name(variant)));
  if (!v->folder->error().empty()) return Status::Unavailable(v->folder->error());
  auto inner = OpenEngine(v->folder->path(), durability);
  if (!inner.ok()) return inner.status();
  v->inner = std::move(*inner);
  if (variant == AppendVariant::kPlain) return v;
  if (Status s = Wrap(*v); !s.ok()) return s;
  if (variant == AppendVariant::kEnforce) {
    Schemas& schemas = v->wrapped->schemas();
    if (auto r = schemas.Register(kType, "V1", kSchemaV1); !r.ok()) return r.status();
    if (Status s = schemas.SetTypeSettings(kType, {.mode = SchemaMode::kEnforce}); !s.ok())
      return s;
  }
  return v;
}

struct Writer {
  Status status;
  std::uint64_t appends = 0;
  Clock::time_point end;
};

struct AppendRound {
  std::uint64_t events = 0;
  double seconds = 0;
  double cpu_s = 0;
};

// --clients writers on fresh streams for `seconds`, closed loop.
Result<AppendRound> TimeAppends(Store& store, int clients, double seconds, std::size_t event_bytes,
                                int round) {
  std::vector<Writer> writers(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  std::latch ready(clients);
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      Writer& writer = writers[static_cast<std::size_t>(c)];
      const std::string stream = AccountStream(static_cast<std::uint64_t>(round * clients + c));
      std::mt19937 rng(static_cast<std::uint32_t>(c));
      ready.count_down();
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (std::uint64_t a = 0; !stop.load(std::memory_order_relaxed); ++a) {
        std::vector<EventData> batch;
        batch.push_back(DepositedEvent(stream, a, event_bytes, rng));
        batch.back().schema = "V1";
        const Expected expected =
            a == 0 ? Expected::no_stream()
                   : Expected::exactly(StreamVersion(static_cast<std::int64_t>(a) - 1));
        auto result = store.Append(stream, expected, std::move(batch));
        if (!result.ok()) {
          writer.status = result.status();
          break;
        }
        ++writer.appends;
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
    end = std::max(end, writer.end);
  }
  result.seconds = std::chrono::duration<double>(end - start).count();
  return result;
}

// ---- reads -----------------------------------------------------------------

enum class ReadVariant : std::uint8_t { kPlain, kUnregistered, kCurrent, kDeclarative, kFunction };
constexpr ReadVariant kReadVariants[] = {ReadVariant::kPlain, ReadVariant::kUnregistered,
                                         ReadVariant::kCurrent, ReadVariant::kDeclarative,
                                         ReadVariant::kFunction};
constexpr std::string_view Name(ReadVariant v) {
  switch (v) {
    case ReadVariant::kPlain:
      return "plain";
    case ReadVariant::kUnregistered:
      return "unregistered";
    case ReadVariant::kCurrent:
      return "current";
    case ReadVariant::kDeclarative:
      return "declarative";
    case ReadVariant::kFunction:
      return "function";
  }
  return "";
}
// What the stored events are labelled, and what a read hands out.
std::string_view StoredLabel(ReadVariant v) { return v == ReadVariant::kCurrent ? "V2" : "V1"; }
std::string_view ReadLabel(ReadVariant v) {
  return v == ReadVariant::kPlain || v == ReadVariant::kUnregistered ? "V1" : "V2";
}
bool Upcasts(ReadVariant v) {
  return v == ReadVariant::kDeclarative || v == ReadVariant::kFunction;
}

// Writes `events` events to one stream through the inner store (untimed,
// 100 per append), registering the variant's schemas first, then reopens
// the store so every variant reads from table files.
Result<std::unique_ptr<VariantStore>> PrepareReadStore(const Context& context, ReadVariant variant,
                                                       std::uint64_t events,
                                                       std::size_t event_bytes) {
  auto v = std::make_unique<VariantStore>();
  v->folder =
      std::make_unique<ScratchFolder>(context, fmt::format("schemas-read-{}", Name(variant)));
  if (!v->folder->error().empty()) return Status::Unavailable(v->folder->error());
  const Durability durability = context.options().durability;
  auto inner = OpenEngine(v->folder->path(), durability);
  if (!inner.ok()) return inner.status();
  v->inner = std::move(*inner);
  if (variant != ReadVariant::kPlain && variant != ReadVariant::kUnregistered) {
    if (Status s = Wrap(*v); !s.ok()) return s;
    if (Status s = RegisterVersions(v->wrapped->schemas(), variant != ReadVariant::kFunction);
        !s.ok())
      return s;
    v->wrapped.reset();
  }
  const std::string stream = AccountStream(0);
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::uint32_t> amount(1, 100000);
  Progress progress(fmt::format("schemas: writing {}", Name(variant)), events);
  for (std::uint64_t done = 0; done < events;) {
    const std::uint64_t count = std::min<std::uint64_t>(100, events - done);
    std::vector<EventData> batch(count);
    for (std::uint64_t e = 0; e < count; ++e) {
      EventData& event = batch[e];
      event.id = EventId::Random();
      event.type = kType;
      event.schema = StoredLabel(variant);
      event.data = variant == ReadVariant::kCurrent
                       ? V2Payload(stream, done + e, amount(rng), event_bytes)
                       : LedgerPayload(stream, done + e, amount(rng), event_bytes);
      if (event.data.empty())
        return Status::Invalid("event-bytes", "--event-bytes is too small for the payload");
    }
    const Expected expected =
        done == 0 ? Expected::no_stream()
                  : Expected::exactly(StreamVersion(static_cast<std::int64_t>(done) - 1));
    auto result = v->inner->Append(stream, expected, std::move(batch));
    if (!result.ok()) return result.status();
    done += count;
    progress.Update(done);
  }
  v->inner.reset();
  inner = OpenEngine(v->folder->path(), durability);
  if (!inner.ok()) return inner.status();
  v->inner = std::move(*inner);
  if (variant == ReadVariant::kPlain) return v;
  if (Status s = Wrap(*v); !s.ok()) return s;
  if (variant == ReadVariant::kFunction)
    if (Status s =
            v->wrapped->schemas().AddUpcaster(std::string(kType), "V1", "V2", UpcastWithBoost);
        !s.ok())
      return s;
  return v;
}

// One pass: every event of the stream, or of $all (but $schemas), checked
// for its count and the label a read must hand out; returns the bytes of
// data read (so nothing is optimised away).
Result<std::uint64_t> ReadPass(Store& store, bool all, std::uint64_t events,
                               std::string_view label) {
  std::uint64_t seen = 0;
  std::uint64_t bytes = 0;
  std::uint64_t wrong = 0;
  auto consume = [&](EventCursor& cursor) -> Status {
    for (; cursor.Valid(); cursor.Next()) {
      const EventView& event = cursor.event();
      if (all && event.stream.starts_with('$')) continue;
      ++seen;
      bytes += event.data.size();
      if (event.schema != label) ++wrong;
    }
    return cursor.status();
  };
  if (all) {
    auto cursor = store.ReadAll();
    if (!cursor.ok()) return cursor.status();
    if (Status s = consume(**cursor); !s.ok()) return s;
  } else {
    auto cursor = store.ReadStream(AccountStream(0));
    if (!cursor.ok()) return cursor.status();
    if (Status s = consume(**cursor); !s.ok()) return s;
  }
  if (seen != events || wrong != 0)
    return Status::Internal(fmt::format("schemas: read {} events ({} expected), {} not labelled {}",
                                        seen, events, wrong, label));
  return bytes;
}

// Best of kPassesPerRound passes, in events/s.
Result<double> TimeReads(Store& store, bool all, std::uint64_t events, std::string_view label) {
  double best = 0;
  for (int pass = 0; pass < kPassesPerRound; ++pass) {
    Stopwatch watch;
    auto bytes = ReadPass(store, all, events, label);
    const double seconds = watch.Seconds();
    if (!bytes.ok()) return bytes.status();
    best = std::max(best, static_cast<double>(events) / seconds);
  }
  return best;
}

// ---- figures ---------------------------------------------------------------

double Median(std::vector<double> values) { return Quantile(values, 0.5); }

std::string Joined(const std::vector<double>& values, int decimals) {
  std::string text;
  for (double v : values) text += fmt::format("{}{:.{}f}", text.empty() ? "" : ",", v, decimals);
  return text;
}

// Each variant's per-round rates, in the variants' order; [0] is plain.
using RoundRates = std::vector<std::vector<double>>;

// The ratios of variant `v` to plain, round by round.
std::vector<double> Ratios(const RoundRates& rates, std::size_t v) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < rates[v].size(); ++r) ratios.push_back(rates[v][r] / rates[0][r]);
  return ratios;
}

void PrintRound(std::string_view what, int round, const std::vector<std::string_view>& names,
                const RoundRates& rates) {
  std::string line = fmt::format("# schemas round {} {}:", round + 1, what);
  for (std::size_t v = 0; v < names.size(); ++v) {
    const double rate = rates[v][static_cast<std::size_t>(round)];
    line += fmt::format(" {}={:.0f}", names[v], rate);
    if (v > 0) line += fmt::format(" ({:.3f})", rate / rates[0][static_cast<std::size_t>(round)]);
  }
  std::puts(line.c_str());
  std::fflush(stdout);
}

// A variant's median rate, and (but plain) its median ratio to plain with
// the target when it has one.
void AddVariantFigures(Context& context, std::string_view what, std::string_view variant,
                       std::size_t index, const RoundRates& rates, const Conditions& conditions,
                       Target target, Line extra) {
  extra.Add("variant", variant)
      .Add("rounds", static_cast<std::uint64_t>(rates[index].size()))
      .Add("round_rates", Joined(rates[index], 0));
  if (index > 0) {
    const std::vector<double> ratios = Ratios(rates, index);
    extra.Add("ratio_to_plain", Median(ratios), 3).Add("round_ratios", Joined(ratios, 3));
  }
  context.AddFigure("schemas", fmt::format("{}_{}_events_per_s", what, variant),
                    Median(rates[index]), 0, conditions, Target::None(), false, extra);
  if (index == 0) return;
  Line ratio_extra;
  ratio_extra.Add("variant", variant).Add("round_ratios", Joined(Ratios(rates, index), 3));
  context.AddFigure("schemas", fmt::format("{}_{}_ratio_to_plain", what, variant),
                    Median(Ratios(rates, index)), 3, conditions, target, false, ratio_extra);
}

Status RunAppends(Context& context, Durability durability, int rounds, int clients, double seconds,
                  std::uint64_t& enforced_events, SchemaStats& enforce_stats) {
  const std::size_t event_bytes = context.options().event_bytes;
  std::vector<std::unique_ptr<VariantStore>> stores;
  for (AppendVariant variant : kAppendVariants) {
    auto store = OpenAppendStore(context, variant, durability);
    if (!store.ok()) return store.status();
    stores.push_back(std::move(*store));
  }
  const std::size_t n = std::size(kAppendVariants);
  RoundRates rates(n);
  std::vector<double> cpu_us(n, 0);
  std::vector<std::uint64_t> events(n, 0);
  const std::string_view mode = durability == Durability::kSync ? "sync" : "interval";
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t v = (i + static_cast<std::size_t>(round)) % n;
      Progress progress(fmt::format("schemas: round {} of {}, {} appends, {}", round + 1, rounds,
                                    mode, Name(kAppendVariants[v])),
                        1);
      auto result = TimeAppends(stores[v]->store(), clients, seconds, event_bytes, round);
      progress.Finish();
      if (!result.ok()) return result.status();
      rates[v].push_back(static_cast<double>(result->events) / result->seconds);
      cpu_us[v] += result->cpu_s * 1e6;
      events[v] += result->events;
    }
    PrintRound(fmt::format("appends/s {}", mode), round,
               {Name(AppendVariant::kPlain), Name(AppendVariant::kUnregistered),
                Name(AppendVariant::kEnforce)},
               rates);
  }
  // The refused event: enforce really checks (untimed, after the rounds).
  const std::size_t enforce = static_cast<std::size_t>(AppendVariant::kEnforce);
  SchemaStore& checked = *stores[enforce]->wrapped;
  enforce_stats = checked.schemas().stats();
  enforced_events += events[enforce];
  {
    EventData bad;
    bad.type = kType;
    bad.schema = "V1";
    bad.data = R"({"accountId":"account-x","seq":0,"amount":0,"currency":"EUR","memo":""})";
    auto refused = checked.Append("account-refused", Expected::any(), {std::move(bad)});
    if (refused.ok() || refused.status().code() != ErrorCode::kInvalid)
      return Status::Internal(fmt::format(
          "schemas: an event with amount 0 (minimum 1) was not refused in enforce mode: {}",
          refused.ok() ? "written" : refused.status().ToString()));
  }
  stores.clear();

  Options& options = context.mutable_options();
  const Durability saved = options.durability;
  options.durability = durability;  // the lines say which
  const Conditions conditions{events[0], clients, event_bytes, 1,
                              static_cast<std::uint64_t>(clients * rounds)};
  for (std::size_t v = 0; v < n; ++v) {
    Line extra;
    extra.Add("seconds_per_round", seconds, 2)
        .Add("cpu_us_per_event", cpu_us[v] / static_cast<double>(events[v]), 2)
        .Add("variant_events", events[v]);
    AddVariantFigures(
        context, fmt::format("append_{}", mode), Name(kAppendVariants[v]), v, rates, conditions,
        kAppendVariants[v] == AppendVariant::kEnforce ? Target::AtLeast(0.9) : Target::None(),
        extra);
  }
  options.durability = saved;
  return Status::Ok();
}

Status RunReads(Context& context, int rounds, std::uint64_t events) {
  const std::size_t event_bytes = context.options().event_bytes;
  std::vector<std::unique_ptr<VariantStore>> stores;
  for (ReadVariant variant : kReadVariants) {
    auto store = PrepareReadStore(context, variant, events, event_bytes);
    if (!store.ok()) return store.status();
    stores.push_back(std::move(*store));
  }
  const std::size_t n = std::size(kReadVariants);
  RoundRates stream_rates(n);
  RoundRates all_rates(n);
  std::vector<std::uint64_t> read_events(n, 0);
  std::vector<std::uint64_t> upcast_before(n, 0);
  for (std::size_t v = 0; v < n; ++v)
    if (stores[v]->wrapped) upcast_before[v] = stores[v]->wrapped->schemas().stats().upcast;
  for (int round = 0; round < rounds; ++round) {
    Progress progress(fmt::format("schemas: round {} of {}, reads", round + 1, rounds), n,
                      "variants");
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t v = (i + static_cast<std::size_t>(round)) % n;
      const ReadVariant variant = kReadVariants[v];
      auto stream = TimeReads(stores[v]->store(), false, events, ReadLabel(variant));
      if (!stream.ok()) return stream.status();
      auto all = TimeReads(stores[v]->store(), true, events, ReadLabel(variant));
      if (!all.ok()) return all.status();
      stream_rates[v].push_back(*stream);
      all_rates[v].push_back(*all);
      read_events[v] += 2 * kPassesPerRound * events;
      progress.Update(i + 1);
    }
    progress.Finish();
    std::vector<std::string_view> names;
    for (ReadVariant variant : kReadVariants) names.push_back(Name(variant));
    PrintRound("stream reads/s", round, names, stream_rates);
    PrintRound("$all reads/s", round, names, all_rates);
  }

  // The counters: every event read through an upcaster was upcast, and
  // none of the others.
  for (std::size_t v = 0; v < n; ++v) {
    if (!stores[v]->wrapped) continue;
    const SchemaStats stats = stores[v]->wrapped->schemas().stats();
    const std::uint64_t upcast = stats.upcast - upcast_before[v];
    const std::uint64_t expected = Upcasts(kReadVariants[v]) ? read_events[v] : 0;
    std::printf(
        "# schemas stats reads variant=%s events_read=%llu upcast=%llu upcast_failures=%llu "
        "registry_version=%llu check=%s\n",
        std::string(Name(kReadVariants[v])).c_str(),
        static_cast<unsigned long long>(read_events[v]), static_cast<unsigned long long>(upcast),
        static_cast<unsigned long long>(stats.upcast_failures),
        static_cast<unsigned long long>(stats.registry_version),
        upcast == expected ? "ok" : "MISMATCH");
    if (upcast != expected)
      return Status::Internal(fmt::format("schemas: {} events upcast in {}, {} expected", upcast,
                                          Name(kReadVariants[v]), expected));
  }
  std::fflush(stdout);
  stores.clear();

  const Conditions conditions{events, 1, event_bytes, 100, 1};
  for (std::size_t v = 0; v < n; ++v) {
    const Target target = v >= static_cast<std::size_t>(ReadVariant::kCurrent)
                              ? Target::AtLeast(0.9)
                              : Target::None();
    Line stream_extra;
    stream_extra.Add("passes_per_round", kPassesPerRound).Add("store", "reopened");
    AddVariantFigures(context, "read_stream", Name(kReadVariants[v]), v, stream_rates, conditions,
                      target, stream_extra);
    Line all_extra;
    all_extra.Add("passes_per_round", kPassesPerRound).Add("store", "reopened");
    AddVariantFigures(context, "read_all", Name(kReadVariants[v]), v, all_rates, conditions, target,
                      all_extra);
  }
  return Status::Ok();
}

}  // namespace

Status RunSchemas(Context& context) {
  const Options& options = context.options();
  const int rounds = kRounds;
  const int clients = options.clients.value_or(8);
  const double seconds = options.seconds.value_or(0.5);
  const std::uint64_t events = options.events.value_or(100000);

  for (Durability durability : {Durability::kSync, Durability::kInterval}) {
    std::uint64_t enforced = 0;
    SchemaStats stats;
    if (Status s = RunAppends(context, durability, rounds, clients, seconds, enforced, stats);
        !s.ok())
      return s;
    std::printf(
        "# schemas stats appends durability=%s variant=enforce events_appended=%llu "
        "validated=%llu refused=%llu warned=%llu check=%s\n",
        durability == Durability::kSync ? "sync" : "interval",
        static_cast<unsigned long long>(enforced), static_cast<unsigned long long>(stats.validated),
        static_cast<unsigned long long>(stats.refused),
        static_cast<unsigned long long>(stats.warned),
        stats.validated == enforced ? "ok" : "MISMATCH");
    std::fflush(stdout);
    if (stats.validated != enforced)
      return Status::Internal(
          fmt::format("schemas: {} events validated of {} appended", stats.validated, enforced));
  }
  return RunReads(context, rounds, events);
}

}  // namespace indelible::bench
