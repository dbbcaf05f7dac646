// workload: WORKLOAD.md "ledger-append v1", exactly. Client c owns streams
// c, c+CLIENTS, ...; in round r it appends event seq=r to each of them in
// ascending order with the exact expected version, one request in flight.
// Then each client reads its streams paged, then one client reads $all paged.
// Prints the standard lines, `peer=indelible op=<phase> events= seconds=
// events_per_s= clients= streams=`, then extra fields.
#include <fmt/format.h>

#include <atomic>
#include <functional>
#include <latch>
#include <random>
#include <thread>

#include "bench/events.h"
#include "bench/scenarios.h"
#include "bench/workload.h"

namespace indelible::bench {
namespace {

Status AppendRounds(Store& store, const WorkloadParams& params, int client) {
  std::vector<std::string> owned;
  for (std::uint64_t s = static_cast<std::uint64_t>(client); s < params.streams;
       s += static_cast<std::uint64_t>(params.clients))
    owned.push_back(AccountStream(s));
  std::mt19937 rng(static_cast<std::uint32_t>(1000 + client));
  for (std::uint64_t r = 0; r < params.per_stream(); ++r) {
    const Expected expected =
        r == 0 ? Expected::no_stream()
               : Expected::exactly(StreamVersion(static_cast<std::int64_t>(r) - 1));
    for (const std::string& stream : owned) {
      std::vector<EventData> events;
      events.push_back(DepositedEvent(stream, r, kWorkloadPayloadBytes, rng));
      auto result = store.Append(stream, expected, std::move(events));
      if (!result.ok()) return result.status();
    }
  }
  return Status::Ok();
}

// Runs `phase` on `clients` threads started together; returns wall seconds.
Result<double> RunClients(int clients, const std::function<Status(int)>& phase) {
  std::vector<Status> statuses(static_cast<std::size_t>(clients));
  std::vector<std::thread> threads;
  std::latch ready(clients);
  std::atomic<bool> go{false};
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      ready.count_down();
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      statuses[static_cast<std::size_t>(c)] = phase(c);
    });
  ready.wait();
  Stopwatch watch;
  go.store(true, std::memory_order_release);
  for (auto& thread : threads) thread.join();
  const double seconds = watch.Seconds();
  for (const Status& s : statuses)
    if (!s.ok()) return s;
  return seconds;
}

void PrintPhase(Context& context, const WorkloadParams& params, std::string_view op, int clients,
                double seconds, bool sync_bound) {
  const double per_s = static_cast<double>(params.events) / seconds;
  Line line;
  line.Add("peer", "indelible")
      .Add("op", op)
      .Add("events", params.events)
      .Add("seconds", seconds, 6)
      .Add("events_per_s", per_s, 0)
      .Add("clients", clients)
      .Add("streams", params.streams)
      .Add("page", static_cast<std::uint64_t>(params.page))
      .Add("durability", context.durability_name())
      .Add("transport", "in-process")
      .Add("fs", context.filesystem());
  // read_all has one client whatever CLIENTS is: say which run it belongs to.
  if (clients != params.clients) line.Add("run_clients", params.clients);
  if (sync_bound && context.fsync_per_s())
    line.Add("ratio_to_fsync", per_s / *context.fsync_per_s(), 2);
  line.Add("checks", "ok");
  context.report().Add(
      Figure{fmt::format("workload op={} clients={}", op, params.clients), per_s, line.str()});
}

}  // namespace

Status RunWorkload(Context& context) {
  auto params = ReadWorkloadParams(context.options());
  if (!params.ok()) return params.status();
  if (Status s = context.EnsureFsync(); !s.ok()) return s;
  ScratchFolder folder(context, "workload");
  if (!folder.error().empty()) return Status::Unavailable(folder.error());
  auto store = OpenStore(context, folder.path());
  if (!store.ok()) return store.status();
  Store& s = **store;

  auto append = RunClients(params->clients, [&](int c) { return AppendRounds(s, *params, c); });
  if (!append.ok()) return append.status();
  if (Status st = CheckAppended(s, *params); !st.ok()) return st;
  auto read = RunClients(params->clients, [&](int c) { return ReadStreamsPaged(s, *params, c); });
  if (!read.ok()) return read.status();
  auto read_all = RunClients(1, [&](int) { return ReadAllPaged(s, *params); });
  if (!read_all.ok()) return read_all.status();
  store->reset();

  PrintPhase(context, *params, "append", params->clients, *append, true);
  PrintPhase(context, *params, "read", params->clients, *read, false);
  PrintPhase(context, *params, "read_all", 1, *read_all, false);
  return Status::Ok();
}

}  // namespace indelible::bench
