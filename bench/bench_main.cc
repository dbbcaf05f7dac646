// `indelible bench <scenario> --data DIR [options]`: parses the command line
// and runs the scenarios, --runs times over, printing every figure as it is
// measured and, for several runs, the median run of each figure at the end.
#include "bench/bench_main.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/scenarios.h"

namespace indelible::bench {
namespace {

using Scenario = ExtraScenario;

// Scenarios that only indelible-bench has (ExtraScenario), and why.
constexpr const char* kProjectionElsewhere =
    "the projection scenario rebuilds the todo example's read model, so it is built into "
    "indelible-bench (bench/indelible-bench in the build folder), not into indelible: run "
    "`indelible-bench projection --data DIR`";

// The workload at a given CLIENTS (for `all`, which reports 1 and 8).
std::function<Status(Context&)> WorkloadWith(int clients) {
  return [clients](Context& context) {
    Options& options = context.mutable_options();
    const std::optional<int> saved = options.clients;
    options.clients = clients;
    Status s = RunWorkload(context);
    options.clients = saved;
    return s;
  };
}

// --sizes of dcb: a comma-separated list of event counts, each with an
// optional k or m (1m = 1,000,000); "none" for no read part. nullopt when
// malformed.
std::optional<std::vector<std::uint64_t>> ParseSizes(const std::string& text) {
  std::vector<std::uint64_t> sizes;
  if (text == "none") return sizes;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    std::string item = text.substr(begin, end - begin);
    std::uint64_t scale = 1;
    if (!item.empty() && (item.back() == 'k' || item.back() == 'K')) scale = 1000;
    if (!item.empty() && (item.back() == 'm' || item.back() == 'M')) scale = 1000000;
    if (scale != 1) item.pop_back();
    if (item.empty() || item.size() > 12 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    sizes.push_back(std::stoull(item) * scale);
    begin = end + 1;
  }
  return sizes;
}

std::vector<Scenario> Scenarios(const std::string& name, bool with_nats,
                                const std::vector<Scenario>& extra,
                                const std::vector<std::uint64_t>& dcb_sizes, int rounds) {
  // schemas measures the schema layer against the plain store (issue 35),
  // not the engine itself: it runs alone, never in `all`; so does dcb
  // (issue 36), whose largest store takes minutes to fill, and so does
  // encryption (sealed against plain events).
  if (name == "schemas") return {{"schemas", RunSchemas}};
  if (name == "retention") return {{"retention", RunRetention}};
  if (name == "encryption")
    return {{"encryption", [rounds](Context& context) { return RunEncryption(context, rounds); }}};
  if (name == "dcb")
    return {{"dcb", [dcb_sizes](Context& context) { return RunDcb(context, dcb_sizes); }}};
  std::vector<Scenario> all = {{"fsync", RunFsync},
                               {"append", RunAppend},
                               {"concurrent", RunConcurrent},
                               {"batch", RunBatch},
                               {"read", RunRead},
                               {"read-all", RunReadAll},
                               {"open", RunOpen},
                               {"subscribe", RunSubscribe},
                               {"group", RunGroup},
                               {"entity", RunEntity},
                               {"relay", RunRelay},
                               {"workload", RunWorkload},
                               {"index-lag", RunIndexLag},
                               {"index-catchup", RunIndexCatchup}};
  // The added ones run after entity, where `all` has always run projection.
  auto after_entity =
      std::find_if(all.begin(), all.end(), [](const Scenario& s) { return s.name == "entity"; });
  all.insert(after_entity + 1, extra.begin(), extra.end());
  if (name != "all") {
    auto it =
        std::find_if(all.begin(), all.end(), [&](const Scenario& s) { return s.name == name; });
    return {*it};
  }
  // `all` measures the embedded engine: no index-lag or index-catchup
  // (DynamoDB scenarios), and it relays only when given a NATS server
  // (scripts/bench-relay.sh).
  all.pop_back();
  all.pop_back();
  if (!with_nats)
    all.erase(
        std::find_if(all.begin(), all.end(), [](const Scenario& s) { return s.name == "relay"; }));
  all.back() = {"workload", WorkloadWith(1)};
  all.push_back({"workload", WorkloadWith(8)});
  return all;
}

std::string LoadAverage() {
  std::ifstream file("/proc/loadavg");
  std::string one, five, fifteen;
  file >> one >> five >> fifteen;
  return fmt::format("{},{},{}", one, five, fifteen);
}

}  // namespace

int Main(const std::vector<std::string>& args, const std::vector<ExtraScenario>& extra) {
  CLI::App app{
      "Benchmarks of the embedded engine, durable by default. Each scenario starts from an "
      "empty store in a fresh subfolder of --data (removed afterwards unless --keep) and "
      "prints one line per figure with its conditions. workload and index-lag also run on "
      "DynamoDB (--store dynamodb://...), under a fresh table prefix per run whose tables are "
      "deleted afterwards unless --keep.",
      "indelible bench"};
  std::string scenario;
  Options options;
  std::uint64_t events = 0;
  std::uint64_t open_events = 0;
  int clients = 0;
  std::size_t per_append = 0;
  std::uint64_t streams = 0;
  std::size_t page = 0;
  app.add_option("scenario", scenario,
                 "fsync | append | concurrent | batch | read | read-all | open | subscribe | "
                 "group | entity | schemas | dcb | retention | encryption | projection | relay | "
                 "workload | index-lag | index-catchup | all (all but schemas, dcb, retention, "
                 "encryption, index-lag and index-catchup)")
      ->required()
      ->check(CLI::IsMember({"fsync",    "append",   "concurrent", "batch",         "read",
                             "read-all", "open",     "subscribe",  "group",         "entity",
                             "schemas",  "dcb",      "retention",  "encryption",    "projection",
                             "relay",    "workload", "index-lag",  "index-catchup", "all"}));
  app.add_option("--data", options.data,
                 "Folder on the disk to measure (required, except for workload and index-lag "
                 "with --store)");
  app.add_option("--store", options.store,
                 "workload, index-lag: run on this DynamoDB store instead of the embedded "
                 "engine, dynamodb://HOST[:PORT]?region=R[&tls=0...] (docs/DYNAMODB.md; "
                 "credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or ~/.aws); each run "
                 "sets its own prefix=");
  app.add_flag("--keep", options.keep,
               "Keep each scenario's store folder (--store: its DynamoDB tables)");
  app.add_option("--runs", options.runs, "Run everything this many times; print medians")
      ->check(CLI::Range(1, 100));
  std::string durability = "sync";
  app.add_option("--durability", durability,
                 "sync: acknowledged after fdatasync (default); interval: synced every 100 ms, "
                 "weaker")
      ->check(CLI::IsMember({"sync", "interval"}));
  app.add_option("--events", events,
                 "Events to append or read (default: the scenario's; schemas, encryption: read, "
                 "100000)")
      ->check(CLI::PositiveNumber);
  app.add_option("--open-events", open_events,
                 "Events of the open scenario (10000000), e.g. to scale it down in `all`")
      ->check(CLI::PositiveNumber);
  app.add_option("--clients", clients,
                 "Concurrent clients (concurrent: 64; entity, schemas, dcb: 8; projection: 4 "
                 "writers; workload: CLIENTS; index-lag, encryption: 8 writers)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--event-bytes", options.event_bytes, "Payload bytes per event (200)")
      ->check(CLI::Range(100, 100000));
  app.add_option("--per-append", per_append, "Events per append where batched")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--store-ids", options.store_ids,
               "append, batch, concurrent: send events without ids, so the store makes them "
               "(the default sends client-made ids, which the store checks for retries)");
  app.add_option("--streams", streams,
                 "Streams (open: 10000; workload: STREAMS; index-lag: 100; encryption: 1000 "
                 "subjects, a stream each)")
      ->check(CLI::PositiveNumber);
  app.add_option("--page", page, "Page size of the workload's reads (PAGE)")
      ->check(CLI::PositiveNumber);
  app.add_option("--nats", options.nats,
                 "NATS server with JetStream for the relay scenario (nats://127.0.0.1:4222)");
  app.add_option("--fsync-seconds", options.fsync_seconds, "Duration of the fsync measurement")
      ->check(CLI::Range(0.1, 60.0));
  app.add_flag("--postgres", options.postgres,
               "projection: PostgreSQL too, a throwaway cluster started for each run by "
               "scripts/postgres.sh in a fresh folder of --data");
  app.add_option("--read-store", options.read_store,
                 "projection: PostgreSQL too, this existing database "
                 "(postgresql://USER@HOST:PORT/DB); the projection's tables are dropped first")
      ->excludes("--postgres");
  std::size_t batch_events = 0;
  double rate = 0;
  double seconds = 0;
  app.add_option("--batch-events", batch_events,
                 "projection: ProjectionOptions::batch_events, events per read-store "
                 "transaction (5000)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--rate", rate,
                 "projection lag, index-lag: appends/s of the paced writers (projection: 5000; "
                 "index-lag: 1000, open loop)")
      ->check(CLI::Range(1.0, 1e6));
  app.add_option(
         "--seconds", seconds,
         "projection lag, index-lag: measured seconds after 2 s warm-up (10); schemas, dcb: "
         "seconds of appends per variant and round (0.5); encryption: the same (1)")
      ->check(CLI::Range(0.5, 3600.0));
  std::string sizes_text = "100k,1m,10m";
  app.add_option("--sizes", sizes_text,
                 "dcb: events in each store the query reads are timed on, multiples of 10k "
                 "(100k,1m,10m); none: appends only");
  int rounds = 5;
  app.add_option("--rounds", rounds,
                 "encryption: rounds the sealed and plain variants alternate in, each figure "
                 "the median over them (5); --runs repeats the whole scenario")
      ->check(CLI::Range(1, 100));

  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  const bool on_store =
      scenario == "workload" || scenario == "index-lag" || scenario == "index-catchup";
  if (!options.store.empty() && !on_store) {
    std::fprintf(stderr,
                 "indelible bench %s: --store is for the workload, index-lag and "
                 "index-catchup scenarios only\n",
                 scenario.c_str());
    return 2;
  }
  if (!options.store.empty() && !options.store.starts_with("dynamodb:")) {
    std::fprintf(stderr,
                 "indelible bench: --store takes a dynamodb:// URL (the embedded engine "
                 "is the default, in --data)\n");
    return 2;
  }
  if (options.data.empty() && options.store.empty()) {
    std::fprintf(stderr, "indelible bench %s: --data is required%s\n", scenario.c_str(),
                 on_store ? " (or --store)" : "");
    return 2;
  }
  options.durability = durability == "sync" ? Durability::kSync : Durability::kInterval;
  if (app.count("--events") > 0) options.events = events;
  if (app.count("--open-events") > 0) options.open_events = open_events;
  if (app.count("--clients") > 0) options.clients = clients;
  if (app.count("--per-append") > 0) options.per_append = per_append;
  if (app.count("--streams") > 0) options.streams = streams;
  if (app.count("--page") > 0) options.page = page;
  if (app.count("--batch-events") > 0) options.batch_events = batch_events;
  if (app.count("--rate") > 0) options.rate = rate;
  if (app.count("--seconds") > 0) options.seconds = seconds;

  const std::optional<std::vector<std::uint64_t>> dcb_sizes = ParseSizes(sizes_text);
  if (!dcb_sizes) {
    std::fprintf(stderr, "indelible bench: --sizes takes event counts like 100k,1m,10m or none\n");
    return 2;
  }

  Context context(options);
  const bool has_projection = std::any_of(extra.begin(), extra.end(),
                                          [](const Scenario& s) { return s.name == "projection"; });
  if (scenario == "projection" && !has_projection) {
    std::fprintf(stderr, "indelible bench projection: %s\n", kProjectionElsewhere);
    return 2;
  }
  const std::vector<Scenario> scenarios =
      Scenarios(scenario, !options.nats.empty(), extra, *dcb_sizes, rounds);
  if (options.store.empty())
    std::printf("# indelible bench %s data=%s fs=%s cores=%u runs=%d load=%s\n", scenario.c_str(),
                options.data.c_str(), context.filesystem().c_str(),
                std::thread::hardware_concurrency(), options.runs, LoadAverage().c_str());
  else
    std::printf("# indelible bench %s store=%s cores=%u runs=%d load=%s\n", scenario.c_str(),
                options.store.c_str(), std::thread::hardware_concurrency(), options.runs,
                LoadAverage().c_str());
  if (scenario == "all" && !has_projection)
    std::printf("# projection: not run (%s)\n", kProjectionElsewhere);
  if (scenario == "all" && options.nats.empty())
    std::printf("# relay: not run (no --nats; scripts/bench-relay.sh starts NATS and runs it)\n");
  for (int run = 1; run <= options.runs; ++run) {
    context.StartRun();
    if (options.runs > 1) std::printf("# run %d of %d\n", run, options.runs);
    std::fflush(stdout);
    for (const Scenario& s : scenarios) {
      if (Status status = s.run(context); !status.ok()) {
        std::fprintf(stderr, "indelible bench %s: %s\n", s.name.c_str(), status.ToString().c_str());
        return 1;
      }
    }
  }
  context.report().PrintMedians(options.runs);
  std::printf("# done load=%s\n", LoadAverage().c_str());
  return 0;
}

}  // namespace indelible::bench
