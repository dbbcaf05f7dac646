// The $all indexer's health on DynamoDB Local (Store::IndexerHealth,
// docs/DYNAMODB.md "Watching the index"): a store that does not index while
// nobody does, the lag while another holds the lease and after, an indexer
// stopped for good, and a real `indelible serve` whose /health and /metrics
// show it while `indelible rebuild-index` runs beside it and appends go on.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <atomic>
#include <boost/json.hpp>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "aws/credentials.h"
#include "core/clock.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/store_url.h"
#include "testutil/dynamodb_server.h"
#include "testutil/http_client.h"
#include "testutil/server_process.h"

namespace indelible {
namespace {

using std::chrono::milliseconds;
namespace json = boost::json;

class IndexHealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::DynamoDbTestUrl("ih", "&index_poll_ms=10&index_lease_ms=2000");
    ASSERT_FALSE(url_.empty());
  }

  std::unique_ptr<Store> Open(const std::string& extra = "") {
    auto store = Store::Open(url_ + extra);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  std::string Prefix() const { return url_.substr(url_.find("&prefix=") + 8); }

  // Writes the index's state as `change` makes it, as another process would.
  void RewriteState(const std::function<void(dynamodb::IndexerState&)>& change) {
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    ASSERT_TRUE(parsed.ok() && credentials.ok());
    auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
    ASSERT_TRUE(client.ok());
    dynamodb::AllIndex index(**client, Prefix() + "all");
    auto state = index.LoadState();
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    dynamodb::IndexerState after = *state;
    change(after);
    ASSERT_TRUE(index.WriteCheckpoint(*state, &after).ok());
  }

  static EventData Event() {
    EventData e;
    e.id = EventId::Random();
    e.type = "Tested";
    e.data = "{}";
    return e;
  }

  // The store's report once `done` holds for it (up to 20 s).
  static IndexHealth WaitForHealth(const Store& store,
                                   const std::function<bool(const IndexHealth&)>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (;;) {
      auto health = store.IndexerHealth();
      EXPECT_TRUE(health);
      if (!health) return {};
      if (done(*health) || std::chrono::steady_clock::now() > deadline) return *health;
      std::this_thread::sleep_for(milliseconds(50));
    }
  }

  std::string url_;
};

TEST_F(IndexHealthTest, AStoreThatDoesNotIndexWhileNobodyDoesSaysIndexingStopped) {
  auto follower = Open("&indexer=0");
  ASSERT_TRUE(follower);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(follower->Append("f", Expected::any(), {Event()}).ok());
  auto health = follower->IndexerHealth();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->state, "stopped");
  EXPECT_NE(health->reason.find("no process indexes $all"), std::string::npos) << health->reason;
  EXPECT_NE(health->reason.find("indexer=1"), std::string::npos) << health->reason;
  EXPECT_EQ(health->lag_events, 3u);
  EXPECT_FALSE(health->indexes);
  EXPECT_FALSE(health->lease_held);
  EXPECT_FALSE(health->running());

  // An indexing store comes: the follower sees it hold the lease, and its
  // appends indexed.
  auto indexer = Open();
  ASSERT_TRUE(indexer);
  const std::string id = indexer->IndexerHealth()->indexer_id;
  health = WaitForHealth(*follower, [](const IndexHealth& h) { return h.lag_events == 0; });
  EXPECT_EQ(health->state, "following") << health->reason;
  EXPECT_EQ(health->lag_events, 0u);
  EXPECT_EQ(health->lag_seconds, 0.0);
  EXPECT_EQ(health->lease_owner, id);
  EXPECT_EQ(health->last_position.value(), 3u);
  EXPECT_TRUE(health->shards.empty()) << "a follower reads no shard";
  auto own = indexer->IndexerHealth();
  EXPECT_EQ(own->state, "indexing");
  EXPECT_TRUE(own->lease_held);
  EXPECT_FALSE(own->shards.empty());
  EXPECT_LT(own->oldest_unread_age_seconds, 60.0);
  EXPECT_GT(own->newest_indexed_commit_ms, 0);
}

TEST_F(IndexHealthTest, LagGrowsWhileAnotherHoldsTheLeaseAndReturnsToZero) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Append("a", Expected::any(), {Event()}).ok());
  // Once its chunk is written: a chunk after the checkpoint below would
  // name it the holder again.
  auto health = WaitForHealth(
      *store, [](const IndexHealth& h) { return h.lease_held && h.last_position.value() == 1; });
  ASSERT_TRUE(health.lease_held) << health.state << ": " << health.reason;
  ASSERT_EQ(health.last_position.value(), 1u);
  // Another process takes the lease (as one would after ours ran out) and
  // then indexes nothing: the store's indexer notices within a second.
  RewriteState([](dynamodb::IndexerState& state) {
    state.owner = "elsewhere";
    state.lease_until = UnixMillisNow() + 8000;
  });
  health = WaitForHealth(*store, [](const IndexHealth& h) { return h.lease_owner == "elsewhere"; });
  ASSERT_EQ(health.lease_owner, "elsewhere")
      << health.state << " " << health.reason << " " << health.last_error << " " << health.errors;
  EXPECT_EQ(health.state, "following");
  EXPECT_FALSE(health.lease_held);

  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store->Append("b", Expected::any(), {Event()}).ok());
  EXPECT_EQ(store->IndexerHealth()->lag_events, 3u);
  std::this_thread::sleep_for(milliseconds(1100));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store->Append("c", Expected::any(), {Event()}).ok());
  health = *store->IndexerHealth();
  EXPECT_EQ(health.lag_events, 6u);
  EXPECT_GE(health.lag_seconds, 1.0);
  EXPECT_EQ(store->LastPosition().value(), 1u);

  // The lease runs out: the store's indexer takes it and catches up.
  health = WaitForHealth(*store, [](const IndexHealth& h) { return h.lag_events == 0; });
  EXPECT_EQ(health.lag_events, 0u);
  EXPECT_EQ(health.lag_seconds, 0.0);
  EXPECT_EQ(health.state, "indexing");
  EXPECT_TRUE(health.lease_held);
  EXPECT_EQ(health.lease_owner, health.indexer_id);
  EXPECT_EQ(store->LastPosition().value(), 7u);
}

TEST_F(IndexHealthTest, AnIndexerStoppedForGoodSaysWhy) {
  auto store = Open();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Append("a", Expected::any(), {Event()}).ok());
  WaitForHealth(*store,
                [](const IndexHealth& h) { return h.lease_held && h.last_position.value() == 1; });
  // The change stream it reads is not the table's any more (turned off and
  // on): nothing but a rebuild repairs $all.
  RewriteState([](dynamodb::IndexerState& state) {
    state.stream_arn = "arn:aws:dynamodb:us-east-1:000000000000:table/x/stream/replaced";
    state.owner = "elsewhere";
    state.lease_until = 1;
  });
  auto health = WaitForHealth(*store, [](const IndexHealth& h) { return h.state == "stopped"; });
  EXPECT_EQ(health.state, "stopped");
  EXPECT_NE(health.reason.find("change stream was replaced"), std::string::npos) << health.reason;
  EXPECT_FALSE(health.running());
  EXPECT_GE(health.errors, 1u);
}

// $all of the store holds every version of `streams` once, at 1..N, each
// stream in version order; returns N.
std::uint64_t ExpectExactlyOnce(Store& store, const std::set<std::string>& streams) {
  std::uint64_t total = 0;
  for (const std::string& stream : streams) {
    auto head = store.Head(stream);
    EXPECT_TRUE(head.ok()) << stream;
    if (head.ok()) total += static_cast<std::uint64_t>(head->version.value() + 1);
  }
  auto all = ReadAllEvents(store);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  if (!all.ok()) return 0;
  EXPECT_EQ(all->size(), total);
  std::map<std::string, std::int64_t> next_version;
  for (std::size_t i = 0; i < all->size(); ++i) {
    const RecordedEvent& e = (*all)[i];
    EXPECT_EQ(e.position.value(), i + 1);
    EXPECT_EQ(e.version.value(), next_version[e.stream]++) << e.stream;
  }
  return total;
}

TEST_F(IndexHealthTest, ServeShowsTheIndexAndRebuildIndexRunsBesideItWhileItTakesAppends) {
  testutil::ServerProcess server(INDELIBLE_PATH, {"serve", "--store", url_});
  ASSERT_TRUE(server.Start()) << server.output();
  testutil::HttpClient http(server.port());

  // Appends over HTTP, all the while.
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> acknowledged{0};
  std::thread appender([&] {
    testutil::HttpClient client(server.port());
    for (int i = 0; !stop.load(); ++i) {
      auto answer = client.Post("/streams/web-" + std::to_string(i % 3),
                                R"([{"type":"Clicked","data":{"n":1}}])");
      if (answer.status == 201) acknowledged.fetch_add(1);
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  json::value index;
  while (std::chrono::steady_clock::now() < deadline) {
    auto health = http.Get("/health");
    ASSERT_EQ(health.status, 200u) << health.body;
    index = health.Json().at("index");
    if (index.at("lease").at("held").as_bool() && index.at("lastPosition").as_int64() > 0) break;
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(index.at("state").as_string(), "indexing") << json::serialize(index);
  EXPECT_TRUE(index.at("indexes").as_bool());
  EXPECT_EQ(index.at("lease").at("owner").as_string(), index.at("indexer").as_string());
  EXPECT_TRUE(index.as_object().contains("lagEvents")) << json::serialize(index);
  EXPECT_TRUE(index.as_object().contains("lagSeconds")) << json::serialize(index);
  EXPECT_FALSE(index.at("shards").as_array().empty()) << json::serialize(index);
  auto metrics = http.Get("/metrics");
  ASSERT_EQ(metrics.status, 200u);
  for (const char* line :
       {"\nindelible_index_lag_events ", "\nindelible_index_lag_seconds ",
        "\nindelible_index_lease_held 1\n", "\nindelible_index_running 1\n",
        "\nindelible_index_oldest_unread_record_age_seconds ", "\nindelible_index_errors_total "})
    EXPECT_NE(metrics.body.find(line), std::string::npos) << line;

  // rebuild-index beside it: the server hands the index over, /health
  // says so while the rebuild runs, and the server takes it back.
  std::string output;
  std::atomic<int> exit_code{-2};
  std::thread rebuild([&] {
    exit_code.store(testutil::RunCommand(
        std::string(INDELIBLE_PATH) + " --data '" + url_ + "' rebuild-index", &output));
  });
  bool saw_rebuilding = false;
  while (exit_code.load() == -2) {
    auto health = http.Get("/health");
    EXPECT_EQ(health.status, 200u) << "a rebuild does not make the server unready";
    if (health.status == 200 && health.Json().at("index").at("state").as_string() == "rebuilding")
      saw_rebuilding = true;
    std::this_thread::sleep_for(milliseconds(50));
  }
  rebuild.join();
  ASSERT_EQ(exit_code.load(), 0) << output;
  EXPECT_NE(output.find("rebuilt $all"), std::string::npos) << output;
  EXPECT_TRUE(saw_rebuilding);
  std::this_thread::sleep_for(milliseconds(500));
  stop.store(true);
  appender.join();
  EXPECT_GT(acknowledged.load(), 0u);

  // The server indexes again, to the end, and $all holds each append once.
  json::value last;
  const auto settle = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < settle) {
    last = http.Get("/health").Json().at("index");
    if (last.at("lagEvents").as_int64() == 0 && last.at("lease").at("held").as_bool() &&
        last.at("lastPosition").as_int64() >= static_cast<std::int64_t>(acknowledged.load()))
      break;
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(last.at("state").as_string(), "indexing") << json::serialize(last);
  EXPECT_EQ(last.at("lagEvents").as_int64(), 0) << json::serialize(last);
  auto reader = Open("&indexer=0");
  ASSERT_TRUE(reader);
  const std::uint64_t total = ExpectExactlyOnce(*reader, {"web-0", "web-1", "web-2"});
  EXPECT_EQ(total, acknowledged.load());
  EXPECT_EQ(static_cast<std::uint64_t>(last.at("lastPosition").as_int64()), total);
  EXPECT_EQ(server.Terminate().value_or(-1), 0);
}

}  // namespace
}  // namespace indelible
