// entity, loads: Entity::Get on entities of 10, 1,000 and 100,000 events
// under SnapshotPolicy::None, Every(1000) and EveryWrite, on the embedded
// store in the run's durability. The claim measured: with snapshots the load
// cost stays flat as the entity grows; without, it grows with the stream.
//
// Set-up (untimed): each entity is written through the entity itself, with
// Append then AppendTo in batches of up to 1,000 events (one sync each), so
// its state records are the ones the policy really writes. The 100,000-event
// entity's batches are arranged so that Every(1000) leaves 999 events after
// its last snapshot, the most that policy ever leaves: its figure is the
// policy's worst load, not its best. (At 1,000 events Every(1000) always has
// a current snapshot; at 10 it has none.) The store is then reopened, so
// loads read table files as after a restart, not the memtables just written.
//
// Measured: one untimed warm-up load, then up to 200 timed loads (fewer
// when each replays many events: a budget of 1,000,000 replayed events per
// figure, at least 10 loads); the median per-load latency is the figure.
#include <fmt/format.h>

#include <algorithm>
#include <random>
#include <vector>

#include "bench/entity_bench.h"
#include "bench/events.h"

namespace indelible::bench {
namespace {

struct Policy {
  const char* name;
  SnapshotPolicy snapshots;
};

const Policy kPolicies[] = {{"none", SnapshotPolicy::None()},
                            {"every_1000", SnapshotPolicy::Every(1000)},
                            {"every_write", SnapshotPolicy::EveryWrite()}};
constexpr std::uint64_t kSizes[] = {10, 1000, 100000};
constexpr std::size_t kBatch = 1000;
constexpr int kMaxLoads = 200;
constexpr int kMinLoads = 10;
constexpr std::int64_t kReplayBudget = 1000000;

std::string EntityStream(const Policy& policy, std::uint64_t size) {
  return fmt::format("tally-{}-{}", policy.name, size);
}

// Batch sizes for `size` events: past 1,000, a first batch of the remainder,
// whole batches, then 999 events, so the last snapshot of Every(1000) lands
// 999 events before the end (see the top of the file).
std::vector<std::size_t> Batches(std::uint64_t size) {
  if (size <= kBatch) return {static_cast<std::size_t>(size)};
  const std::uint64_t head = size - (kBatch - 1);
  std::vector<std::size_t> batches;
  if (head % kBatch != 0) batches.push_back(static_cast<std::size_t>(head % kBatch));
  batches.insert(batches.end(), head / kBatch, kBatch);
  batches.push_back(kBatch - 1);
  return batches;
}

// Writes one entity; the same seed per size gives every policy the same
// events, so their loaded states must agree.
Status WriteEntity(Store& store, const Rules<Tally>& rules, const Policy& policy,
                   std::uint64_t size, std::size_t event_bytes, Progress& progress,
                   std::uint64_t& written) {
  EntityOptions options;
  options.snapshots = policy.snapshots;
  const Entity<Tally> entity(store, rules, options);
  const std::string stream = EntityStream(policy, size);
  std::mt19937 rng(static_cast<std::uint32_t>(size));
  std::optional<Loaded<Tally>> last;
  std::uint64_t seq = 0;
  for (std::size_t count : Batches(size)) {
    std::vector<EventData> batch;
    batch.reserve(count);
    for (std::size_t e = 0; e < count; ++e)
      batch.push_back(DepositedEvent(stream, seq++, event_bytes, rng));
    auto change =
        last ? entity.AppendTo(*last, std::move(batch)) : entity.Append(stream, std::move(batch));
    if (!change.ok()) return change.status();
    last = std::move(change->entity);
    written += count;
    progress.Update(written);
  }
  return Status::Ok();
}

struct Timed {
  double p50_us = 0;
  double p99_us = 0;
  int loads = 0;
  Loaded<Tally> loaded;
};

Result<Timed> TimeLoads(const Entity<Tally>& entity, const std::string& stream,
                        std::uint64_t size) {
  auto warm = entity.Get(stream);
  if (!warm.ok()) return warm.status();
  if (warm->state.deposits != static_cast<std::int64_t>(size))
    return Status::Internal(fmt::format("entity {}: {} deposits loaded, {} written", stream,
                                        warm->state.deposits, size));
  Timed timed;
  timed.loads = static_cast<int>(
      std::clamp<std::int64_t>(kReplayBudget / (warm->events_read + 1), kMinLoads, kMaxLoads));
  std::vector<double> latencies_us;
  latencies_us.reserve(static_cast<std::size_t>(timed.loads));
  for (int i = 0; i < timed.loads; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto loaded = entity.Get(stream);
    const auto end = std::chrono::steady_clock::now();
    if (!loaded.ok()) return loaded.status();
    latencies_us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  timed.p50_us = Quantile(latencies_us, 0.5);
  timed.p99_us = Quantile(latencies_us, 0.99);
  timed.loaded = std::move(*warm);
  return timed;
}

}  // namespace

Status RunEntityLoads(Context& context) {
  const Options& options = context.options();
  ScratchFolder folder(context, "entity-load");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  const Rules<Tally> rules = TallyRules();

  std::uint64_t total = 0;
  for (std::uint64_t size : kSizes) total += size * std::size(kPolicies);
  {
    Progress progress("entity: writing (untimed)", total);
    std::uint64_t written = 0;
    for (const Policy& policy : kPolicies)
      for (std::uint64_t size : kSizes)
        if (Status s =
                WriteEntity(**store, rules, policy, size, options.event_bytes, progress, written);
            !s.ok())
          return s;
  }
  store->reset();  // reopened: loads read table files, as after a restart
  store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();

  std::uint64_t loaded_so_far = 0;
  for (std::uint64_t size : kSizes) {
    std::optional<std::int64_t> balance;  // every policy must load the same state
    for (const Policy& policy : kPolicies) {
      EntityOptions entity_options;
      entity_options.snapshots = policy.snapshots;
      const Entity<Tally> entity(**store, rules, entity_options);
      const std::string stream = EntityStream(policy, size);
      // Names the entity being loaded; counts the 9 entities.
      Progress progress(fmt::format("entity: loading {}", stream),
                        std::size(kSizes) * std::size(kPolicies));
      progress.Update(loaded_so_far++);
      auto timed = TimeLoads(entity, stream, size);
      progress.Finish();
      if (!timed.ok()) return timed.status();
      const Loaded<Tally>& loaded = timed->loaded;
      if (balance && *balance != loaded.state.balance)
        return Status::Internal(fmt::format("entity {}: balance {}, other policies {}", stream,
                                            loaded.state.balance, *balance));
      balance = loaded.state.balance;

      const Conditions conditions{size, 1, options.event_bytes, kBatch, 1};
      Line extra;
      extra.Add("snapshots", policy.name)
          .Add("events_read", static_cast<std::uint64_t>(loaded.events_read))
          .Add("snapshot_version", loaded.snapshot_version
                                       ? fmt::format("{}", loaded.snapshot_version->value())
                                       : std::string("none"))
          .Add("loads", timed->loads)
          .Add("p99_us", timed->p99_us, 1)
          .Add("store", "reopened")
          .Add("setup", "untimed");
      context.AddFigure("entity", fmt::format("load_us_{}_{}", size, policy.name), timed->p50_us, 1,
                        conditions, Target::None(), false, extra);
    }
  }
  store->reset();
  return Status::Ok();
}

}  // namespace indelible::bench
