// encryption: what crypto-shredding's sealing costs (docs/RETENTION.md),
// against the same events unsealed, in the same run. Target: sealing costs
// at most 15 % of appends/s at the default durability (sealed >= 0.85 x
// plain, sync).
//
// Two variants, each a store of its own (embedded engine, a fresh subfolder
// of --data):
//   plain   opened without master keys; events tagged "profile:<user>"
//   sealed  opened with a master key; events tagged "subject:<user>" (as
//           long), so their data is sealed with AES-256-GCM under that
//           subject's key
// Events: ProfileUpdated, --event-bytes (200) of a user's profile as JSON
// (name, email, phone, city, a bio of words), no metadata, to the user's
// own stream ("user-000042"), one per subject of --streams (1,000).
//
// Appends: --clients writers (8), writer c on subjects c, c + clients, ...
// in turn, one event per append, Expected::any, closed loop:
//   new_subject      the first event of every subject, once per store,
//                    sync: the sealed store makes each subject's key here
//                    (two records written with the store's durability)
//   append_sync      --seconds (1) per variant and round, durable (sync,
//                    group commit): the target's figure
//   append_interval  the same after reopening both stores synced every
//                    100 ms, where fdatasync no longer hides the sealing
// Reads: a store per variant of --events (100,000) events, 10 per append,
// subjects in turn (untimed, interval), reopened; one untimed pass loads
// the keys, then one timed pass of $all per variant and round, every event
// checked as read (JSON data, as written: sealed ones opened). Afterwards
// both are reopened without a master key: the sealed store must hold only
// ciphertext, the plain one none.
//
// The variants alternate in --rounds (5) rounds, the order swapped each
// round; each rate is the median over the rounds and each ratio the median
// of the rounds' sealed/plain ratios, with cost_pct = (1 - ratio) x 100.
// A line's events= are the events it measured, over all rounds (a ratio's:
// both variants'). Longer runs: --seconds, --rounds, and --runs for
// medians of whole runs.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

constexpr std::uint64_t kSubjects = 1000;
constexpr double kSeconds = 1.0;
constexpr std::uint64_t kReadEvents = 100000;
constexpr std::size_t kFillPerAppend = 10;
constexpr std::string_view kType = "ProfileUpdated";
constexpr std::string_view kPlainTagPrefix = "profile:";  // as long as kSubjectTagPrefix
static_assert(kPlainTagPrefix.size() == kSubjectTagPrefix.size());

enum Variant : std::size_t { kPlain = 0, kSealed = 1 };
constexpr std::size_t kVariants = 2;
constexpr std::string_view kNames[kVariants] = {"plain", "sealed"};

// ---- events ----------------------------------------------------------------

constexpr std::string_view kFirstNames[] = {"Ada",     "Grace",  "Alan",    "Edsger",
                                            "Barbara", "Ken",    "Radia",   "Donald",
                                            "Frances", "Leslie", "Niklaus", "Margaret"};
constexpr std::string_view kLastNames[] = {"Moreau",  "Lovelace", "Hopper",   "Turing",
                                           "Liskov",  "Perlman",  "Knuth",    "Allen",
                                           "Lamport", "Wirth",    "Hamilton", "Dijkstra"};
constexpr std::string_view kCities[] = {"Lyon",  "Berlin", "Porto", "Gdansk",
                                        "Leeds", "Turin",  "Ghent", "Uppsala"};
constexpr std::string_view kWords[] = {"likes",  "hiking", "and",    "old",   "maps",
                                       "works",  "on",     "search", "in",    "the",
                                       "coffee", "garden", "city",   "music", "trains"};

template <std::size_t N>
std::string_view Pick(const std::string_view (&list)[N], std::mt19937& rng) {
  return list[std::uniform_int_distribution<std::size_t>(0, N - 1)(rng)];
}

std::string User(std::uint64_t index) { return fmt::format("user-{:06d}", index); }

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

template <std::size_t N>
std::string_view Longest(const std::string_view (&list)[N]) {
  return *std::max_element(
      std::begin(list), std::end(list),
      [](std::string_view a, std::string_view b) { return a.size() < b.size(); });
}

// A profile's fields before the bio's words:
//   {"userId":"user-000042","seq":7,"name":"Ada Moreau","email":
//    "ada.moreau@example.com","phone":"+33 6 12 34 56 78","city":"Lyon","bio":"
std::string ProfileHead(std::string_view user, std::uint64_t seq, std::string_view first,
                        std::string_view last, int d1, int d2, int d3, int d4,
                        std::string_view city) {
  return fmt::format(R"({{"userId":"{}","seq":{},"name":"{} {}","email":"{}.{}@example.com",)"
                     R"("phone":"+33 6 {} {} {} {}","city":"{}","bio":")",
                     user, seq, first, last, Lower(first), Lower(last), d1, d2, d3, d4, city);
}

constexpr std::string_view kClose = "\"}";

// The fewest bytes every profile of these users fits in.
std::size_t MinimumBytes(std::uint64_t subjects, std::uint64_t max_seq) {
  return ProfileHead(User(subjects), max_seq, Longest(kFirstNames), Longest(kLastNames), 99, 99, 99,
                     99, Longest(kCities))
             .size() +
         kClose.size();
}

// A profile of exactly `bytes` bytes (>= MinimumBytes), its bio filled
// with words.
std::string ProfilePayload(std::string_view user, std::uint64_t seq, std::mt19937& rng,
                           std::size_t bytes) {
  std::uniform_int_distribution<int> digits(10, 99);
  const std::string_view first = Pick(kFirstNames, rng);
  const std::string_view last = Pick(kLastNames, rng);
  const int d1 = digits(rng), d2 = digits(rng), d3 = digits(rng), d4 = digits(rng);
  std::string text = ProfileHead(user, seq, first, last, d1, d2, d3, d4, Pick(kCities, rng));
  const std::size_t end = bytes - std::min(bytes, kClose.size());
  while (text.size() < end) {
    if (text.back() != '"') text += ' ';
    text += Pick(kWords, rng);
  }
  text.resize(end);
  if (text.back() == ' ') text.back() = 'x';  // no trailing blank
  text += kClose;
  return text;
}

EventData ProfileEvent(Variant variant, std::string_view user, std::uint64_t seq, std::size_t bytes,
                       std::mt19937& rng) {
  EventData event;
  event.id = EventId::Random();
  event.type = kType;
  event.data = ProfilePayload(user, seq, rng, bytes);
  event.tags = {
      fmt::format("{}{}", variant == kSealed ? kSubjectTagPrefix : kPlainTagPrefix, user)};
  return event;
}

// ---- stores ----------------------------------------------------------------

std::string MasterKey() {
  std::random_device device;
  std::string key(32, '\0');
  for (char& c : key) c = static_cast<char>(device() & 0xff);
  return key;
}

// The engine in `folder`; the sealed variant with `master_key` (empty: none).
Result<std::unique_ptr<Store>> OpenVariant(const std::string& folder, Durability durability,
                                           const std::string& master_key) {
  StoreOptions options;
  options.durability = durability;
  if (!master_key.empty()) options.master_keys = {master_key};
  return Store::Open("file:" + folder, options);
}

struct VariantStore {
  std::unique_ptr<ScratchFolder> folder;
  std::unique_ptr<Store> store;  // destroyed before the folder
};

Status OpenBoth(VariantStore (&stores)[kVariants], Durability durability,
                const std::string& master_key) {
  for (std::size_t v = 0; v < kVariants; ++v) {
    stores[v].store.reset();
    auto store = OpenVariant(stores[v].folder->path(), durability, v == kSealed ? master_key : "");
    if (!store.ok()) return store.status();
    stores[v].store = std::move(*store);
  }
  return Status::Ok();
}

Status MakeFolders(const Context& context, std::string_view what,
                   VariantStore (&stores)[kVariants]) {
  for (std::size_t v = 0; v < kVariants; ++v) {
    stores[v].folder =
        std::make_unique<ScratchFolder>(context, fmt::format("encryption-{}-{}", what, kNames[v]));
    if (!stores[v].folder->error().empty()) return Status::Unavailable(stores[v].folder->error());
  }
  return Status::Ok();
}

// ---- appends ---------------------------------------------------------------

struct AppendRun {
  std::uint64_t events = 0;
  double seconds = 0;
  double cpu_s = 0;
};

// --clients writers, writer c on subjects c, c + clients, ... in turn.
// seconds > 0: a closed loop for that long; 0: one event per subject (the
// first of a new store). `seq` numbers the events per subject (payload only).
Result<AppendRun> RunWriters(Store& store, Variant variant, int clients, std::uint64_t subjects,
                             double seconds, std::size_t event_bytes, std::uint64_t seq) {
  struct Writer {
    Status status;
    std::uint64_t appends = 0;
  };
  std::vector<Writer> writers(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  std::latch ready(clients);
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      Writer& writer = writers[static_cast<std::size_t>(c)];
      std::mt19937 rng(static_cast<std::uint32_t>(seq * 1000 + static_cast<std::uint64_t>(c)));
      const auto first = static_cast<std::uint64_t>(c);
      const auto step = static_cast<std::uint64_t>(clients);
      ready.count_down();
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      if (first >= subjects) return;
      for (std::uint64_t s = first, round = 0;; s += step) {
        if (s >= subjects) {
          if (seconds <= 0) return;
          s = first;
          ++round;
        }
        if (seconds > 0 && stop.load(std::memory_order_relaxed)) return;
        const std::string user = User(s);
        auto result = store.Append(user, Expected::any(),
                                   {ProfileEvent(variant, user, seq + round, event_bytes, rng)});
        if (!result.ok()) {
          writer.status = result.status();
          return;
        }
        ++writer.appends;
      }
    });
  ready.wait();
  Stopwatch watch;
  go.store(true, std::memory_order_release);
  if (seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop.store(true, std::memory_order_relaxed);
  }
  for (auto& thread : threads) thread.join();
  AppendRun run;
  run.seconds = watch.Seconds();
  run.cpu_s = watch.CpuSeconds();
  for (const Writer& writer : writers) {
    if (!writer.status.ok()) return writer.status;
    run.events += writer.appends;
  }
  return run;
}

// ---- figures ---------------------------------------------------------------

// Per variant, its rates round by round.
using RoundRates = std::vector<double>[kVariants];

double Median(std::vector<double> values) { return Quantile(values, 0.5); }

std::string Joined(const std::vector<double>& values, int decimals) {
  std::string text;
  for (double v : values) text += fmt::format("{}{:.{}f}", text.empty() ? "" : ",", v, decimals);
  return text;
}

std::vector<double> Ratios(const RoundRates& rates) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < rates[kSealed].size(); ++r)
    ratios.push_back(rates[kSealed][r] / rates[kPlain][r]);
  return ratios;
}

void PrintRound(std::string_view what, std::size_t round, const RoundRates& rates) {
  std::printf("# encryption round %zu %s: plain=%.0f sealed=%.0f (%.3f)\n", round + 1,
              std::string(what).c_str(), rates[kPlain][round], rates[kSealed][round],
              rates[kSealed][round] / rates[kPlain][round]);
  std::fflush(stdout);
}

// Each variant's median rate (with `extra[v]`, its conditions those given
// with `events[v]`), then the median ratio with its cost in % and the
// target (its conditions with both variants' events). The lines say
// `durability`.
void AddFigures(Context& context, std::string_view what, Durability durability,
                const RoundRates& rates, Conditions conditions,
                const std::uint64_t (&events)[kVariants], Target target,
                const Line (&extra)[kVariants]) {
  Options& options = context.mutable_options();
  const Durability saved = options.durability;
  options.durability = durability;
  const std::string cores = fmt::format("{}", std::thread::hardware_concurrency());
  for (std::size_t v = 0; v < kVariants; ++v) {
    Line line = extra[v];
    line.Add("variant", kNames[v])
        .Add("cores", cores)
        .Add("rounds", static_cast<std::uint64_t>(rates[v].size()))
        .Add("round_rates", Joined(rates[v], 0));
    conditions.events = events[v];
    context.AddFigure("encryption", fmt::format("{}_{}_events_per_s", what, kNames[v]),
                      Median(rates[v]), 0, conditions, Target::None(), false, line);
  }
  const std::vector<double> ratios = Ratios(rates);
  const double ratio = Median(ratios);
  Line line;
  line.Add("cost_pct", (1 - ratio) * 100, 1)
      .Add("cores", cores)
      .Add("round_ratios", Joined(ratios, 3))
      .Add("variant_events", fmt::format("{},{}", events[kPlain], events[kSealed]));
  conditions.events = events[kPlain] + events[kSealed];
  context.AddFigure("encryption", fmt::format("{}_ratio_sealed_to_plain", what), ratio, 3,
                    conditions, target, false, line);
  options.durability = saved;
}

// The first event of every subject, once per store (sync): the sealed
// store makes the subjects' keys. One measurement per variant, plain first.
Status NewSubjects(Context& context, VariantStore (&stores)[kVariants], int clients,
                   std::uint64_t subjects) {
  const std::size_t event_bytes = context.options().event_bytes;
  RoundRates rates;
  Line extra[kVariants];
  for (std::size_t v = 0; v < kVariants; ++v) {
    Progress progress(
        fmt::format("encryption: first events of {} subjects, {}", subjects, kNames[v]), 1);
    auto run =
        RunWriters(*stores[v].store, static_cast<Variant>(v), clients, subjects, 0, event_bytes, 0);
    progress.Finish();
    if (!run.ok()) return run.status();
    rates[v].push_back(static_cast<double>(run->events) / run->seconds);
    extra[v]
        .Add("seconds", run->seconds, 2)
        .Add("cpu_us_per_event", run->cpu_s * 1e6 / static_cast<double>(run->events), 2);
  }
  const Conditions conditions{0, clients, event_bytes, 1, subjects};
  AddFigures(context, "new_subject", Durability::kSync, rates, conditions, {subjects, subjects},
             Target::None(), extra);
  return Status::Ok();
}

// --rounds rounds of `seconds` of appends per variant, alternating.
Status TimedAppends(Context& context, VariantStore (&stores)[kVariants], Durability durability,
                    int rounds, int clients, std::uint64_t subjects, double seconds) {
  const std::size_t event_bytes = context.options().event_bytes;
  const std::string_view mode = durability == Durability::kSync ? "sync" : "interval";
  RoundRates rates;
  std::uint64_t events[kVariants] = {0, 0};
  double cpu_s[kVariants] = {0, 0};
  StoreStats before[kVariants];
  for (std::size_t v = 0; v < kVariants; ++v) before[v] = stores[v].store->stats();
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < kVariants; ++i) {
      const std::size_t v = (i + static_cast<std::size_t>(round)) % kVariants;
      Progress progress(fmt::format("encryption: round {} of {}, {} appends, {}", round + 1, rounds,
                                    mode, kNames[v]),
                        1);
      // seq continues past the first events and earlier rounds (payload only).
      auto run = RunWriters(*stores[v].store, static_cast<Variant>(v), clients, subjects, seconds,
                            event_bytes, 1 + static_cast<std::uint64_t>(round) * 1000000);
      progress.Finish();
      if (!run.ok()) return run.status();
      rates[v].push_back(static_cast<double>(run->events) / run->seconds);
      events[v] += run->events;
      cpu_s[v] += run->cpu_s;
    }
    PrintRound(fmt::format("appends/s {}", mode), static_cast<std::size_t>(round), rates);
  }
  Line extra[kVariants];
  for (std::size_t v = 0; v < kVariants; ++v) {
    extra[v].Add("seconds_per_round", seconds, 2);
    AddCpuPerEvent(extra[v], events[v], cpu_s[v], before[v], stores[v].store->stats());
  }
  const Conditions conditions{0, clients, event_bytes, 1, subjects};
  AddFigures(context, fmt::format("append_{}", mode), durability, rates, conditions, events,
             durability == Durability::kSync ? Target::AtLeast(0.85) : Target::None(), extra);
  return Status::Ok();
}

// ---- reads -----------------------------------------------------------------

// `events` events, kFillPerAppend per append to the subjects in turn.
Status Fill(Store& store, Variant variant, std::uint64_t events, std::uint64_t subjects,
            std::size_t event_bytes) {
  std::mt19937 rng(7);
  Progress progress(fmt::format("encryption: writing the {} read store", kNames[variant]), events);
  for (std::uint64_t done = 0, append = 0; done < events; ++append) {
    const std::uint64_t count = std::min<std::uint64_t>(kFillPerAppend, events - done);
    const std::string user = User(append % subjects);
    std::vector<EventData> batch;
    for (std::uint64_t e = 0; e < count; ++e)
      batch.push_back(ProfileEvent(variant, user, done + e, event_bytes, rng));
    if (auto result = store.Append(user, Expected::any(), std::move(batch)); !result.ok())
      return result.status();
    done += count;
    progress.Update(done);
  }
  return Status::Ok();
}

// One $all pass, every event checked: a profile as written (sealed ones
// opened), or, `stored`, what the store holds (sealed or JSON). Returns
// the events seen with the expected content type.
Result<std::uint64_t> ReadPass(Store& store, std::uint64_t events, std::string_view content_type,
                               bool stored) {
  auto cursor = store.ReadAll();
  if (!cursor.ok()) return cursor.status();
  std::uint64_t seen = 0;
  std::uint64_t matching = 0;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    if (event.stream.starts_with('$')) continue;
    ++seen;
    if (event.content_type == content_type && (stored || event.data.starts_with("{\"userId\":")))
      ++matching;
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  if (seen != events)
    return Status::Internal(
        fmt::format("encryption: $all read {} events, {} written", seen, events));
  if (!stored && matching != events)
    return Status::Internal(
        fmt::format("encryption: {} of {} events read back as other than the profile written",
                    events - matching, events));
  return matching;
}

Status Reads(Context& context, int rounds, std::uint64_t events, std::uint64_t subjects,
             const std::string& master_key) {
  const std::size_t event_bytes = context.options().event_bytes;
  VariantStore stores[kVariants];
  if (Status s = MakeFolders(context, "read", stores); !s.ok()) return s;
  if (Status s = OpenBoth(stores, Durability::kInterval, master_key); !s.ok()) return s;
  for (std::size_t v = 0; v < kVariants; ++v)
    if (Status s = Fill(*stores[v].store, static_cast<Variant>(v), events, subjects, event_bytes);
        !s.ok())
      return s;
  // Reopened: every variant reads from files, its keys not yet loaded.
  for (VariantStore& v : stores) v.store.reset();
  double folder_mb[kVariants];
  for (std::size_t v = 0; v < kVariants; ++v)
    folder_mb[v] = static_cast<double>(FolderBytes(stores[v].folder->path())) / 1e6;
  if (Status s = OpenBoth(stores, Durability::kInterval, master_key); !s.ok()) return s;
  for (std::size_t v = 0; v < kVariants; ++v)
    if (auto warm = ReadPass(*stores[v].store, events, kJsonContentType, false); !warm.ok())
      return warm.status();

  RoundRates rates;
  double cpu_s[kVariants] = {0, 0};
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < kVariants; ++i) {
      const std::size_t v = (i + static_cast<std::size_t>(round)) % kVariants;
      Progress progress(
          fmt::format("encryption: round {} of {}, $all reads, {}", round + 1, rounds, kNames[v]),
          1);
      Stopwatch watch;
      auto pass = ReadPass(*stores[v].store, events, kJsonContentType, false);
      const double seconds = watch.Seconds();
      cpu_s[v] += watch.CpuSeconds();
      progress.Finish();
      if (!pass.ok()) return pass.status();
      rates[v].push_back(static_cast<double>(events) / seconds);
    }
    PrintRound("$all reads/s", static_cast<std::size_t>(round), rates);
  }

  // What is stored: without the master key the sealed store reads as
  // ciphertext, every event of it; the plain one as JSON.
  for (VariantStore& v : stores) v.store.reset();
  if (Status s = OpenBoth(stores, Durability::kInterval, ""); !s.ok()) return s;
  for (std::size_t v = 0; v < kVariants; ++v) {
    const std::string_view stored_as = v == kSealed ? kSealedContentType : kJsonContentType;
    auto matching = ReadPass(*stores[v].store, events, stored_as, true);
    if (!matching.ok()) return matching.status();
    const bool ok = *matching == events;
    std::printf("# encryption stored variant=%s content_type=%s events=%llu of %llu check=%s\n",
                std::string(kNames[v]).c_str(), std::string(stored_as).c_str(),
                static_cast<unsigned long long>(*matching), static_cast<unsigned long long>(events),
                ok ? "ok" : "MISMATCH");
    std::fflush(stdout);
    if (!ok)
      return Status::Internal(fmt::format("encryption: {} of the {} store's {} events stored as {}",
                                          *matching, kNames[v], events, stored_as));
  }
  for (VariantStore& v : stores) v.store.reset();

  // Events read per variant: one pass per round.
  const std::uint64_t read[kVariants] = {events * static_cast<std::uint64_t>(rounds),
                                         events * static_cast<std::uint64_t>(rounds)};
  Line extra[kVariants];
  for (std::size_t v = 0; v < kVariants; ++v)
    extra[v]
        .Add("store_events", events)
        .Add("store", "reopened")
        .Add("folder_mb", folder_mb[v], 1)
        .Add("cpu_us_per_event", cpu_s[v] * 1e6 / static_cast<double>(read[v]), 3);
  const Conditions conditions{0, 1, event_bytes, kFillPerAppend, subjects};
  AddFigures(context, "read_all", Durability::kInterval, rates, conditions, read, Target::None(),
             extra);
  return Status::Ok();
}

}  // namespace

Status RunEncryption(Context& context, int rounds) {
  const Options& options = context.options();
  const int clients = options.clients.value_or(8);
  const std::uint64_t subjects = options.streams.value_or(kSubjects);
  const double seconds = options.seconds.value_or(kSeconds);
  const std::uint64_t events = options.events.value_or(kReadEvents);
  // seq stays below 10^9: rounds start 10^6 apart.
  if (const std::size_t least = MinimumBytes(subjects, 999999999); options.event_bytes < least)
    return Status::Invalid("event-bytes",
                           fmt::format("--event-bytes must be at least {} for the profile "
                                       "payload of these subjects",
                                       least));
  const std::string master_key = MasterKey();
  std::printf(
      "# encryption conditions writers=%d subjects=%llu event_bytes=%zu seconds_per_round=%.2f "
      "rounds=%d read_events=%llu cores=%u cipher=AES-256-GCM\n",
      clients, static_cast<unsigned long long>(subjects), options.event_bytes, seconds, rounds,
      static_cast<unsigned long long>(events), std::thread::hardware_concurrency());
  std::fflush(stdout);

  VariantStore stores[kVariants];
  if (Status s = MakeFolders(context, "append", stores); !s.ok()) return s;
  if (Status s = OpenBoth(stores, Durability::kSync, master_key); !s.ok()) return s;
  if (Status s = NewSubjects(context, stores, clients, subjects); !s.ok()) return s;
  if (Status s =
          TimedAppends(context, stores, Durability::kSync, rounds, clients, subjects, seconds);
      !s.ok())
    return s;
  if (Status s = OpenBoth(stores, Durability::kInterval, master_key); !s.ok()) return s;
  // Untimed: the sealed store loads its subjects' keys again after the reopen.
  for (std::size_t v = 0; v < kVariants; ++v)
    if (auto warm = RunWriters(*stores[v].store, static_cast<Variant>(v), clients, subjects, 0,
                               options.event_bytes, 999);
        !warm.ok())
      return warm.status();
  if (Status s =
          TimedAppends(context, stores, Durability::kInterval, rounds, clients, subjects, seconds);
      !s.ok())
    return s;
  for (VariantStore& v : stores) v.store.reset();
  return Reads(context, rounds, events, subjects, master_key);
}

}  // namespace indelible::bench
