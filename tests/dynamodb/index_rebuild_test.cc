// Rebuilding $all on DynamoDB from the events table (index_rebuild.h,
// docs/DYNAMODB.md "Rebuilding $all"), on DynamoDB Local: from nothing,
// keeping what an indexer wrote, cutting a damaged index, refusing while an
// indexer works, and failing (with indexers held back) when a writer runs.
#include "storage/dynamodb/index_rebuild.h"

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "aws/credentials.h"
#include "core/clock.h"
#include "core/mutex.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/change_stream.h"
#include "storage/dynamodb/dynamodb_store.h"
#include "storage/dynamodb/store_url.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

using std::chrono::milliseconds;

class IndexRebuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::DynamoDbTestUrl("rb", "&index_poll_ms=10&index_lease_ms=2000");
    ASSERT_FALSE(url_.empty());
  }

  std::unique_ptr<Store> Open(const std::string& extra = "") {
    auto store = Store::Open(url_ + extra);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  Result<dynamodb::RebuildReport> Rebuild(dynamodb::RebuildOptions options = {}) {
    return dynamodb::RebuildDynamoDbIndex(url_, options);
  }

  // A raw client on the store's endpoint, for damaging the index; with
  // `streams`, one of the change stream's API.
  std::unique_ptr<aws::Client> RawClient(bool streams = false) {
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    EXPECT_TRUE(parsed.ok() && credentials.ok());
    auto options = dynamodb::ClientOptionsFromUrl(*parsed, *credentials);
    if (streams) options.target_prefix = "DynamoDBStreams_20120810.";
    auto client = aws::Client::Create(options);
    EXPECT_TRUE(client.ok());
    return client.ok() ? std::move(*client) : nullptr;
  }

  // Writes the index's state as `change` makes it, as another process
  // would (a holder of the lease, a rebuild that died).
  void RewriteState(const std::function<void(dynamodb::IndexerState&)>& change) {
    auto client = RawClient();
    ASSERT_TRUE(client);
    dynamodb::AllIndex index(*client, Prefix() + "all");
    auto state = index.LoadState();
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    dynamodb::IndexerState after = *state;
    change(after);
    ASSERT_TRUE(index.WriteCheckpoint(*state, &after).ok());
  }

  // Moves the indexer's place in the change stream to its end, with $all
  // left as it is: as if the records after the old place were lost (an
  // indexer stopped past the stream's 24 hours).
  void LoseTheChangeRecords() {
    auto client = RawClient();
    auto streams = RawClient(/*streams=*/true);
    ASSERT_TRUE(client && streams);
    aws::Reply table = client->Call("DescribeTable", {{"TableName", Prefix() + "events"}});
    ASSERT_TRUE(table.ok()) << table.status.ToString();
    const std::string arn = std::string(table.body.at("Table").at("LatestStreamArn").as_string());
    auto shards = dynamodb::ListShards(*streams, arn);
    ASSERT_TRUE(shards.ok()) << shards.status().ToString();
    std::map<std::string, dynamodb::ShardProgress> end;
    for (const auto& shard : *shards) {
      auto place = dynamodb::ReadShardToEnd(*streams, arn, shard.id, {});
      ASSERT_TRUE(place.ok()) << place.status().ToString();
      end[shard.id] = *place;
    }
    RewriteState([&](dynamodb::IndexerState& state) {
      state.stream_arn = arn;
      state.shards = end;
    });
  }
  std::string Prefix() const { return url_.substr(url_.find("&prefix=") + 8); }

  static EventData Event(std::size_t bytes = 2) {
    EventData e;
    e.id = EventId::Random();
    e.type = "Tested";
    e.data = "\"" + std::string(bytes - 2, 'x') + "\"";
    return e;
  }

  static void Settle(Store& store, std::uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (store.LastPosition().value() < count && std::chrono::steady_clock::now() < deadline)
      store.WaitForCommit(store.LastPosition(), milliseconds(200));
    ASSERT_EQ(store.LastPosition().value(), count) << "$all did not reach the expected end";
  }

  // $all holds every version of every stream once, at 1..N, each stream in
  // version order, timestamps never going back (unless `appended_online`:
  // appends made during a rebuild come after what it took from the table);
  // returns it.
  static std::vector<RecordedEvent> ExpectWhole(Store& store, std::uint64_t total,
                                                bool appended_online = false) {
    auto all = ReadAllEvents(store);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    if (!all.ok()) return {};
    EXPECT_EQ(all->size(), total);
    std::map<std::string, std::int64_t> next_version;
    for (std::size_t i = 0; i < all->size(); ++i) {
      const RecordedEvent& e = (*all)[i];
      EXPECT_EQ(e.position.value(), i + 1);
      EXPECT_EQ(e.version.value(), next_version[e.stream]++) << e.stream;
      if (i > 0 && !appended_online) {
        EXPECT_GE(e.timestamp_ms, (*all)[i - 1].timestamp_ms) << "position " << i + 1;
      }
    }
    for (const auto& [stream, next] : next_version) {
      auto head = store.Head(stream);
      EXPECT_TRUE(head.ok()) << stream;
      if (!head.ok()) continue;
      EXPECT_EQ(head->version.value(), next - 1) << stream << ": every version is in $all";
    }
    EXPECT_TRUE(store.Check().ok()) << store.Check().ToString();
    return *all;
  }

  // Appends on several streams, interleaved, with a two-stream commit, a
  // delete and a restart, and events big enough to move out of the tip.
  // Returns how many events it wrote.
  static std::uint64_t Write(Store& store, int rounds, const std::string& gone = "gone") {
    std::uint64_t events = 0;
    for (int r = 0; r < rounds; ++r) {
      for (int s = 0; s < 4; ++s) {
        EXPECT_TRUE(
            store.Append("order-" + std::to_string(s), Expected::any(), {Event(3000)}).ok());
        ++events;
      }
      if (r % 10 == 5) {
        EXPECT_TRUE(store
                        .Commit({{"pair-a", Expected::any(), {Event(), Event()}},
                                 {"pair-b", Expected::any(), {Event()}}})
                        .ok());
        events += 3;
      }
    }
    EXPECT_TRUE(store.Append(gone, Expected::no_stream(), {Event(), Event()}).ok());
    EXPECT_TRUE(store.Delete(gone).ok());
    EXPECT_TRUE(store.Append(gone, Expected::no_stream(), {Event()}).ok());
    return events + 4;
  }

  std::string url_;
};

TEST_F(IndexRebuildTest, BuildsAllFromTheTableWhenNothingWasIndexed) {
  std::uint64_t total = 0;
  {
    auto writer = Open("&indexer=0");  // nothing indexes: the change stream is never read
    ASSERT_TRUE(writer);
    total = Write(*writer, 40);
    EXPECT_EQ(writer->LastPosition().value(), 0u);
  }
  std::uint64_t last_done = 0;
  std::uint64_t last_total = 0;
  dynamodb::RebuildOptions options;
  options.progress = [&](std::uint64_t done, std::uint64_t all) {
    last_done = done;
    last_total = all;
  };
  auto report = Rebuild(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->added, total);
  EXPECT_EQ(report->kept, 0u);
  EXPECT_EQ(report->last.value(), total);
  EXPECT_EQ(report->streams, 7u);
  EXPECT_EQ(last_done, total);
  EXPECT_EQ(last_total, total);

  // An indexing store sees it all, and goes on from the change stream's
  // end: what the rebuild took from the table is not indexed again.
  auto store = Open();
  ASSERT_TRUE(store);
  EXPECT_EQ(store->LastPosition().value(), total);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(store->Append("after", Expected::any(), {Event()}).ok());
  Settle(*store, total + 10);
  ExpectWhole(*store, total + 10);
}

TEST_F(IndexRebuildTest, KeepsThePositionsAnIndexerAssignedAndAddsWhatItMissed) {
  std::vector<RecordedEvent> before;
  std::uint64_t total = 0;
  {
    auto store = Open();
    ASSERT_TRUE(store);
    total = Write(*store, 10);
    Settle(*store, total);
    before = ExpectWhole(*store, total);
  }
  {
    auto writer = Open("&indexer=0");  // as if the indexer were stopped
    ASSERT_TRUE(writer);
    total += Write(*writer, 5, "gone-later");
  }
  auto report = Rebuild();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->kept, before.size());
  EXPECT_EQ(report->added, total - before.size());
  auto store = Open();
  ASSERT_TRUE(store);
  auto after = ExpectWhole(*store, total);
  for (std::size_t i = 0; i < before.size() && i < after.size(); ++i)
    EXPECT_EQ(after[i].id, before[i].id) << "position " << i + 1 << " moved";
  ASSERT_TRUE(store->Append("after", Expected::any(), {Event()}).ok());
  Settle(*store, total + 1);
  ExpectWhole(*store, total + 1);
}

TEST_F(IndexRebuildTest, CutsADamagedIndexAtTheFirstWrongPositionAndRemovesStaleItems) {
  std::uint64_t total = 0;
  {
    auto store = Open();
    ASSERT_TRUE(store);
    total = Write(*store, 8);
    Settle(*store, total);
  }
  // The chunk holding position 20 is replaced by one whose event 20 is a
  // copy of event 10 (a duplicate), and a chunk appears past the end, not
  // chained (as a cut index leaves them).
  auto client = RawClient();
  ASSERT_TRUE(client);
  dynamodb::AllIndex index(*client, Prefix() + "all");
  auto all = index.Read(Position(1), Position(total), 100000);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), total);
  auto start = index.ChunkStart(20);
  ASSERT_TRUE(start.ok() && *start) << "a chunk holds position 20";
  auto removed = index.RemoveFrom(**start, static_cast<std::int64_t>(total));
  ASSERT_TRUE(removed.ok());
  auto inline_chunk = [&](std::int64_t position, std::vector<RecordedEvent> events) {
    dynamodb::Chunk chunk;
    chunk.position = position;
    for (RecordedEvent& e : events) {
      chunk.entries.push_back(
          dynamodb::ChunkEntry{dynamodb::AppendRef{e.stream, e.version.value(), 1}, true});
      chunk.inline_events.push_back(std::move(e));
      ++chunk.count;
    }
    return chunk;
  };
  std::vector<RecordedEvent> damaged(all->begin() + (**start - 1), all->end());
  damaged[static_cast<std::size_t>(20 - **start)] = (*all)[9];
  ASSERT_TRUE(index.WriteChunk(inline_chunk(**start, damaged)).ok());
  ASSERT_TRUE(
      index.WriteChunk(inline_chunk(static_cast<std::int64_t>(total) + 3, {(*all)[0], (*all)[1]}))
          .ok());

  auto report = Rebuild();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->kept, 19u);
  EXPECT_EQ(report->added, total - 19);
  // The stale chunk goes. The damaged chunk is written again with its kept
  // events when it starts before position 20; when it starts at 20 (the
  // indexer's chunk boundaries follow the change records' batching) nothing
  // of it is kept, and it counts as removed too.
  const bool damaged_chunk_kept_events = **start < 20;
  EXPECT_EQ(report->removed, damaged_chunk_kept_events ? 1u : 2u) << "chunk start " << **start;
  auto store = Open();
  ASSERT_TRUE(store);
  ExpectWhole(*store, total);
}

TEST_F(IndexRebuildTest, TakesTheIndexOverFromALiveIndexerWhichGoesOnAfterIt) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Append("s", Expected::any(), {Event()}).ok());
  Settle(*store, 1);
  auto health = store->IndexerHealth();
  ASSERT_TRUE(health);
  EXPECT_TRUE(health->lease_held) << health->state;
  const auto started = std::chrono::steady_clock::now();
  auto report = Rebuild();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->kept, 1u);
  EXPECT_EQ(report->last.value(), 1u);
  // Asked through the state, the indexer hands over within about a second.
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
  ASSERT_TRUE(store->Append("s", Expected::any(), {Event()}).ok());
  Settle(*store, 2);  // it took the lease back and goes on
  ExpectWhole(*store, 2);
}

TEST_F(IndexRebuildTest, GivesUpOnAHolderThatDoesNotHandOverAndTakesItsRequestBack) {
  { ASSERT_TRUE(Open("&indexer=0")); }  // the tables
  // A holder that never reads the state (an indexer of an earlier release).
  RewriteState([](dynamodb::IndexerState& state) {
    state.owner = "earlier-release";
    state.lease_until = UnixMillisNow() + 60000;
  });
  dynamodb::RebuildOptions options;
  options.handover_timeout = milliseconds(1500);
  auto report = Rebuild(options);
  ASSERT_EQ(report.status().code(), ErrorCode::kUnavailable) << report.status().ToString();
  EXPECT_NE(report.status().message().find("'earlier-release' did not hand the index over"),
            std::string::npos)
      << report.status().ToString();
  auto client = RawClient();
  ASSERT_TRUE(client);
  dynamodb::AllIndex index(*client, Prefix() + "all");
  auto state = index.LoadState();
  ASSERT_TRUE(state.ok());
  EXPECT_FALSE(state->rebuilding) << "the request is taken back";
  EXPECT_EQ(state->owner, "earlier-release");
}

TEST_F(IndexRebuildTest, AnAppendAfterTheScanIsIndexedOnceByTheCatchUp) {
  auto writer = Open("&indexer=0");
  ASSERT_TRUE(writer);
  std::uint64_t total = Write(*writer, 5);
  dynamodb::RebuildOptions options;
  options.after_scan = [&] {
    EXPECT_TRUE(writer->Append("late", Expected::any(), {Event(), Event()}).ok());
    EXPECT_TRUE(writer->Append("order-0", Expected::any(), {Event()}).ok());
    total += 3;
  };
  auto report = Rebuild(options);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->caught_up, 3u);
  EXPECT_EQ(report->last.value(), total);
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Append("late", Expected::any(), {Event()}).ok());
  Settle(*store, total + 1);
  ExpectWhole(*store, total + 1, /*appended_online=*/true);
}

TEST_F(IndexRebuildTest, AnUnfinishedRebuildHoldsIndexersBackUntilAWholeOne) {
  auto writer = Open("&indexer=0");
  ASSERT_TRUE(writer);
  std::uint64_t total = Write(*writer, 3);
  // A rebuild that died half-way: its mark stays, its lease ran out.
  RewriteState([](dynamodb::IndexerState& state) {
    state.owner = "rebuild-died";
    state.lease_until = UnixMillisNow() - 1;
    state.rebuilding = true;
  });
  auto store = Open();
  ASSERT_TRUE(store);
  const Position seen = store->LastPosition();
  ASSERT_TRUE(store->Append("late", Expected::any(), {Event()}).ok());
  ++total;
  EXPECT_EQ(store->WaitForCommit(seen, milliseconds(1500)), seen);
  auto health = store->IndexerHealth();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->state, "rebuilding");
  EXPECT_NE(health->reason.find("did not finish"), std::string::npos) << health->reason;
  EXPECT_EQ(health->lag_events, 1u);

  auto again = Rebuild();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->last.value(), total);
  ASSERT_TRUE(store->Append("late", Expected::any(), {Event()}).ok());
  Settle(*store, total + 1);
  ExpectWhole(*store, total + 1);
}

// The test: writers append throughout a rebuild, through the store
// whose indexer holds the lease and through a writer that does not index,
// to streams old and new; $all ends with every event once.
TEST_F(IndexRebuildTest, RebuildsOnlineWhileWritersAppendThroughout) {
  std::set<std::string> streams;
  {
    auto writer = Open("&indexer=0");
    ASSERT_TRUE(writer);
    Write(*writer, 20);
    for (int s = 0; s < 4; ++s) streams.insert("order-" + std::to_string(s));
    streams.insert({"pair-a", "pair-b", "gone"});
  }
  LoseTheChangeRecords();  // what the table holds is not in $all: only a rebuild repairs it
  auto server = Open();    // indexes what comes next
  auto writer = Open("&indexer=0");
  ASSERT_TRUE(server && writer);

  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> acknowledged{0};
  Mutex mu;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Store& through = t % 2 == 0 ? *server : *writer;
      for (int i = 0; !stop.load(); ++i) {
        // An old stream, and now and then a stream made during the rebuild.
        const std::string stream = i % 5 == 4
                                       ? "new-" + std::to_string(t) + "-" + std::to_string(i / 5)
                                       : "order-" + std::to_string((t + i) % 4);
        if (through.Append(stream, Expected::any(), {Event(), Event()}).ok())
          acknowledged.fetch_add(2);
        {
          MutexLock lock(&mu);
          streams.insert(stream);
        }
        std::this_thread::sleep_for(milliseconds(5));  // a steady load, not a flood
      }
    });
  }
  std::this_thread::sleep_for(milliseconds(500));
  auto report = Rebuild();
  std::this_thread::sleep_for(milliseconds(500));
  stop.store(true);
  for (auto& thread : threads) thread.join();
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_GT(report->added, 0u);
  EXPECT_GT(report->caught_up, 0u) << "appends made during the rebuild were caught up";

  // Every version of every stream written is in $all once.
  std::uint64_t total = 0;
  for (const std::string& stream : streams) {
    auto head = server->Head(stream);
    ASSERT_TRUE(head.ok()) << stream << ": " << head.status().ToString();
    total += static_cast<std::uint64_t>(head->version.value() + 1);
  }
  EXPECT_GE(total, acknowledged.load());
  Settle(*server, total);
  ExpectWhole(*server, total, /*appended_online=*/true);
  auto health = server->IndexerHealth();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->state, "indexing") << health->reason;
  EXPECT_EQ(health->lag_events, 0u);
}

TEST_F(IndexRebuildTest, TheCliRebuildsAndRefusesAnEmbeddedStore) {
  {
    auto writer = Open("&indexer=0");
    ASSERT_TRUE(writer);
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(writer->Append("cli", Expected::any(), {Event()}).ok());
  }
  std::string output;
  const std::string indelible = INDELIBLE_PATH;
  ASSERT_EQ(testutil::RunCommand(indelible + " --data '" + url_ + "' rebuild-index", &output), 0)
      << output;
  EXPECT_NE(output.find("rebuilt $all: 3 events of 1 streams"), std::string::npos) << output;
  auto store = Open("&indexer=0");
  ASSERT_TRUE(store);
  EXPECT_EQ(store->LastPosition().value(), 3u);

  testutil::TempDir dir;
  EXPECT_NE(testutil::RunCommand(indelible + " --data " + dir.path().string() + " rebuild-index",
                                 &output),
            0);
  EXPECT_NE(output.find("not a dynamodb:// URL"), std::string::npos) << output;
}

}  // namespace
}  // namespace indelible
