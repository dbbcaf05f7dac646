// Rebuilding $all on DynamoDB from the events table (index_rebuild.h,
// docs/DYNAMODB.md "Rebuilding $all"), on DynamoDB Local: from nothing,
// keeping what an indexer wrote, cutting a damaged index, refusing while an
// indexer works, and failing (with indexers held back) when a writer runs.
#include "storage/dynamodb/index_rebuild.h"

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <map>
#include <set>

#include "aws/credentials.h"
#include "storage/dynamodb/all_index.h"
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

  // A raw client on the store's endpoint, for damaging the index.
  std::unique_ptr<aws::Client> RawClient() {
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    EXPECT_TRUE(parsed.ok() && credentials.ok());
    auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
    EXPECT_TRUE(client.ok());
    return client.ok() ? std::move(*client) : nullptr;
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
  // version order, timestamps never going back; returns it.
  static std::vector<RecordedEvent> ExpectWhole(Store& store, std::uint64_t total) {
    auto all = ReadAllEvents(store);
    EXPECT_TRUE(all.ok()) << all.status().ToString();
    if (!all.ok()) return {};
    EXPECT_EQ(all->size(), total);
    std::map<std::string, std::int64_t> next_version;
    for (std::size_t i = 0; i < all->size(); ++i) {
      const RecordedEvent& e = (*all)[i];
      EXPECT_EQ(e.position.value(), i + 1);
      EXPECT_EQ(e.version.value(), next_version[e.stream]++) << e.stream;
      if (i > 0) {
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
  EXPECT_EQ(report->removed, 1u);  // the stale chunk; the damaged one is written again
  auto store = Open();
  ASSERT_TRUE(store);
  ExpectWhole(*store, total);
}

TEST_F(IndexRebuildTest, RefusesWhileAnIndexerHoldsTheLease) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Append("s", Expected::any(), {Event()}).ok());
  Settle(*store, 1);
  auto report = Rebuild();
  ASSERT_EQ(report.status().code(), ErrorCode::kUnavailable) << report.status().ToString();
  EXPECT_NE(report.status().message().find("stop every process"), std::string::npos)
      << report.status().ToString();
  ASSERT_TRUE(store->Append("s", Expected::any(), {Event()}).ok());
  Settle(*store, 2);  // the store goes on as if nothing happened
}

TEST_F(IndexRebuildTest, AWriterDuringTheRebuildFailsItAndIndexersWaitForAWholeOne) {
  auto writer = Open("&indexer=0");
  ASSERT_TRUE(writer);
  std::uint64_t total = Write(*writer, 5);
  dynamodb::RebuildOptions options;
  options.after_scan = [&] {
    EXPECT_TRUE(writer->Append("late", Expected::any(), {Event()}).ok());
    ++total;
  };
  auto report = Rebuild(options);
  ASSERT_EQ(report.status().code(), ErrorCode::kUnavailable) << report.status().ToString();
  EXPECT_NE(report.status().message().find("'late' moved"), std::string::npos)
      << report.status().ToString();

  // The state says a rebuild is unfinished: an indexer does not index.
  auto store = Open();
  ASSERT_TRUE(store);
  const Position seen = store->LastPosition();
  ASSERT_TRUE(store->Append("late", Expected::any(), {Event()}).ok());
  ++total;
  EXPECT_EQ(store->WaitForCommit(seen, milliseconds(1500)), seen);

  // A whole rebuild (no writer this time) lets it go on.
  auto again = Rebuild();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->last.value(), total);
  ASSERT_TRUE(store->Append("late", Expected::any(), {Event()}).ok());
  Settle(*store, total + 1);
  ExpectWhole(*store, total + 1);
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
