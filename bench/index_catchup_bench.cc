// index-catchup: how fast the `$all` indexer of a DynamoDB store indexes a
// backlog (docs/DYNAMODB.md, "$all"): its capacity in events/s, the figure
// that says whether it keeps up with a given append rate, measured where the
// append rate itself cannot be reached (DynamoDB Local on a small machine
// saturates at a few hundred appends/s).
//
// 1. A store opened with indexer=0 appends --events (10,000) single
//    200-byte ledger events (events.h) from --clients (8) writer threads,
//    closed loop, over --streams (100), exact expected versions: a backlog
//    the change stream holds and nobody indexes. One change record per
//    event, as at 1,000 appends/s of one event each.
// 2. A second store on the same tables (indexer=1) is opened; the clock
//    runs from its Open until its LastPosition reaches the backlog.
//
// One line: events indexed per second, the indexer's requests per event
// (GetRecords, TransactWriteItems of 99 events, state reads), and the
// backlog's own append rate for comparison. Needs --store.
#include <fmt/format.h>

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

constexpr std::size_t kEventBytes = 200;
constexpr auto kCatchupTimeout = std::chrono::seconds(600);

// Writer w appends its share of `events` round its streams w, w + writers, ...
Status WriteBacklog(Store& store, std::uint64_t events, int writers, std::uint64_t streams, int w,
                    std::atomic<std::uint64_t>& written) {
  std::vector<std::string> owned;
  for (auto s = static_cast<std::uint64_t>(w); s < streams;
       s += static_cast<std::uint64_t>(writers))
    owned.push_back(AccountStream(s));
  std::vector<std::int64_t> heads(owned.size(), -1);
  std::mt19937 rng(static_cast<std::uint32_t>(3000 + w));
  std::size_t next = 0;
  for (auto n = static_cast<std::uint64_t>(w); n < events;
       n += static_cast<std::uint64_t>(writers)) {
    std::int64_t& head = heads[next];
    const Expected expected =
        head < 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(head));
    std::vector<EventData> batch;
    batch.push_back(
        DepositedEvent(owned[next], static_cast<std::uint64_t>(head + 1), kEventBytes, rng));
    auto result = store.Append(owned[next], expected, std::move(batch));
    if (!result.ok()) return result.status();
    head = result->last_version.value();
    next = (next + 1) % owned.size();
    written.fetch_add(1);
  }
  return Status::Ok();
}

}  // namespace

Status RunIndexCatchup(Context& context) {
  const Options& options = context.options();
  if (options.store.empty())
    return Status::Invalid("store",
                           "index-catchup measures a DynamoDB store's indexer: give "
                           "--store dynamodb://...");
  const std::uint64_t events = options.events.value_or(10000);
  const int writers = options.clients.value_or(8);
  const std::uint64_t streams = options.streams.value_or(100);
  if (static_cast<std::uint64_t>(writers) > streams)
    return Status::Invalid("clients",
                           fmt::format("--clients {} is more than --streams {}", writers, streams));
  auto opened = ScenarioStore::Open(context, "index-catchup", "ic", "&indexer=0");
  if (!opened.ok()) return opened.status();
  ScenarioStore& where = **opened;

  // 1. The backlog.
  std::atomic<std::uint64_t> written{0};
  std::mutex mu;
  Status failure;
  const auto append_start = Clock::now();
  {
    Progress progress("index-catchup: the backlog", events);
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w)
      threads.emplace_back([&, w] {
        Status s = WriteBacklog(where.store(), events, writers, streams, w, written);
        std::lock_guard lock(mu);
        if (!s.ok() && failure.ok()) failure = s;
      });
    while (written.load() < events) {
      {
        std::lock_guard lock(mu);
        if (!failure.ok()) break;
      }
      progress.Update(written.load());
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    for (auto& t : threads) t.join();
  }
  if (!failure.ok()) return failure;
  const double append_seconds = std::chrono::duration<double>(Clock::now() - append_start).count();

  // 2. An indexing store on the same tables, timed until $all holds it all.
  const auto start = Clock::now();
  auto indexing = Store::Open(where.url());
  if (!indexing.ok()) return indexing.status();
  Store& store = **indexing;
  {
    Progress progress("index-catchup: indexing", events);
    while (store.LastPosition().value() < events) {
      if (Clock::now() - start > kCatchupTimeout)
        return Status::Unavailable(
            fmt::format("index-catchup: $all held {} of {} events after {} s",
                        store.LastPosition().value(), events, kCatchupTimeout.count()));
      store.WaitForCommit(store.LastPosition(), std::chrono::milliseconds(100));
      progress.Update(store.LastPosition().value());
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const StoreStats stats = store.stats();
  indexing->reset();
  if (Status s = where.Close(); !s.ok())
    std::fprintf(stderr, "# index-catchup: %s\n", s.ToString().c_str());

  const double rate = static_cast<double>(events) / seconds;
  Line line;
  line.Add("bench", "index-catchup")
      .Add("figure", "indexed_events_per_s")
      .Add("value", rate, 0)
      .Add("events", events)
      .Add("seconds", seconds, 2)
      .Add("index_requests_per_event",
           static_cast<double>(stats.index_requests) / static_cast<double>(events), 3)
      .Add("backlog_appends_per_s", static_cast<double>(events) / append_seconds, 0)
      .Add("events_per_append", std::uint64_t{1})
      .Add("writers", writers)
      .Add("streams", streams)
      .Add("event_bytes", static_cast<std::uint64_t>(kEventBytes));
  where.AddConditions(line);
  line.Add("measured", "open_of_an_indexing_store_to_last_position_at_the_backlog");
  context.report().Add(Figure{"index-catchup indexed_events_per_s", rate, line.str()});
  return Status::Ok();
}

}  // namespace indelible::bench
