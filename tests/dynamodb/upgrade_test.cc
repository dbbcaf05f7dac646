// A table written by the release before append items (tips; docs/DYNAMODB.md,
// "Upgrading a table"), kept as a fixture: tests/dynamodb/fixtures/
// release-layout-tables.jsonl, every item of its events and $all tables,
// written by commit c11b178 (see fixtures/README.md). This release reads it
// whole, converts each stream it writes, and upgrades the rest online while
// a writer keeps writing.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <fstream>
#include <map>
#include <thread>

#include "aws/client.h"
#include "storage/dynamodb/dynamodb_store.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

namespace json = boost::json;

constexpr std::uint64_t kFixtureEvents = 86;

std::unique_ptr<aws::Client> RawClient() {
  auto& server = testutil::SharedDynamoDbServer("local");
  aws::ClientOptions options;
  options.endpoint = *net::ParseUrl("http://127.0.0.1:" + std::to_string(server.port()));
  options.region = "us-east-1";
  options.credentials.access_key_id = "test";
  options.credentials.secret_access_key = "test";
  auto client = aws::Client::Create(options);
  return client.ok() ? std::move(*client) : nullptr;
}

EventId FixtureId(int n) {
  char id[40];
  std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", n);
  return *EventId::Parse(id);
}

EventData Event(std::string type, std::string data, EventId id = EventId::Random()) {
  EventData e;
  e.id = id;
  e.type = std::move(type);
  e.data = std::move(data);
  return e;
}

std::size_t TipsLeft(aws::Client& client, const std::string& table) {
  aws::Reply reply =
      client.Call("Scan", {{"TableName", table},
                           {"FilterExpression", "#v = :tip"},
                           {"ExpressionAttributeNames", {{"#v", "version"}}},
                           {"ExpressionAttributeValues", {{":tip", {{"N", "9007199254740991"}}}}}});
  EXPECT_TRUE(reply.ok()) << reply.status.ToString();
  return reply.ok() ? reply.body.at("Items").as_array().size() : 0;
}

class UpgradeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::DynamoDbTestUrl("up", "&index_poll_ms=10&index_lease_ms=500");
    ASSERT_FALSE(url_.empty());
    prefix_ = url_.substr(url_.find("prefix=") + 7);
    client_ = RawClient();
    ASSERT_TRUE(client_);
    // The tables, as a store makes them; the layout marker it put on the
    // new, empty table goes, as an earlier release never wrote one.
    ASSERT_TRUE(Store::Open(url_ + "&indexer=0").ok());
    const json::object marker{{"block", json::object{{"N", "-2"}}},
                              {"position", json::object{{"N", "0"}}}};
    aws::Reply removed =
        client_->Call("DeleteItem", {{"TableName", prefix_ + "all"}, {"Key", marker}});
    ASSERT_TRUE(removed.ok()) << removed.status.ToString();
    std::ifstream in(std::string(INDELIBLE_SOURCE_DIR) +
                     "/tests/dynamodb/fixtures/release-layout-tables.jsonl");
    ASSERT_TRUE(in) << "the fixture is missing";
    std::string line;
    std::size_t items = 0;
    while (std::getline(in, line)) {
      const json::object entry = json::parse(line).as_object();
      const std::string table = prefix_ + std::string(entry.at("table").as_string());
      aws::Reply put =
          client_->Call("PutItem", {{"TableName", table}, {"Item", entry.at("item").as_object()}});
      ASSERT_TRUE(put.ok()) << put.status.ToString();
      ++items;
    }
    ASSERT_EQ(items, 160u);
    // A table restored from a backup has a new change stream: the rebuild
    // keeps the index items that are right and starts the indexer at the
    // stream's end (docs/DYNAMODB.md, "Rebuilding $all").
    auto rebuilt = dynamodb::RebuildDynamoDbIndex(url_, {});
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    EXPECT_EQ(rebuilt->last.value(), kFixtureEvents);
    EXPECT_EQ(rebuilt->added, 0u) << "the release's $all items are kept as they are";
  }

  static void Settle(Store& store, std::uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (store.LastPosition().value() < count && std::chrono::steady_clock::now() < deadline)
      store.WaitForCommit(store.LastPosition(), std::chrono::milliseconds(200));
    ASSERT_GE(store.LastPosition().value(), count) << "the $all indexer did not catch up";
  }

  std::string url_, prefix_;
  std::unique_ptr<aws::Client> client_;
};

TEST_F(UpgradeTest, TheReleaseLayoutIsReadWrittenAndUpgradedOnline) {
  auto opened = Store::Open(url_);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Store& store = **opened;

  // Every event of the release's layout reads back: in items, in tips, both.
  auto acct1 = ReadStreamEvents(store, "acct-1");
  ASSERT_TRUE(acct1.ok()) << acct1.status().ToString();
  ASSERT_EQ(acct1->size(), 70u);
  for (int v = 0; v < 70; ++v) {
    EXPECT_EQ((*acct1)[v].version.value(), v);
    EXPECT_EQ((*acct1)[v].data, "{\"seq\":" + std::to_string(v) + "}");
    EXPECT_EQ((*acct1)[v].id, FixtureId(v + 1));
  }
  auto acct2 = ReadStreamEvents(store, "acct-2");
  ASSERT_TRUE(acct2.ok());
  ASSERT_EQ(acct2->size(), 5u);
  EXPECT_EQ((*acct2)[3].type, "Withdrawn");
  auto order = store.Head("order-1");
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(order->version.value(), 4);
  EXPECT_EQ(order->first_version.value(), 3) << "restarted after its tombstone at 2";
  auto order_events = ReadStreamEvents(store, "order-1");
  ASSERT_TRUE(order_events.ok());
  ASSERT_EQ(order_events->size(), 2u);
  EXPECT_EQ((*order_events)[0].data, "{\"again\":true}");
  auto state = store.ReadState("ent-1");
  ASSERT_TRUE(state.ok() && *state);
  EXPECT_EQ((*state)->data, "state-2");
  EXPECT_EQ((*state)->schema, 2u);
  auto big = store.ReadState("ent-big");
  ASSERT_TRUE(big.ok() && *big);
  EXPECT_EQ((*big)->data, std::string(60 * 1024, 'z')) << "a record in snapshot items";
  auto listed = store.ListStreams();
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::map<std::string, std::int64_t> versions;
  for (const auto& s : listed->streams) versions[s.stream] = s.version.value();
  EXPECT_EQ(versions, (std::map<std::string, std::int64_t>{{"acct-1", 69},
                                                           {"acct-2", 4},
                                                           {"ent-1", 2},
                                                           {"ent-big", 0},
                                                           {"order-1", 4},
                                                           {"pair-a", 0},
                                                           {"pair-b", 0}}));
  auto all = ReadAllEvents(store);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), kFixtureEvents);
  for (std::size_t i = 0; i < all->size(); ++i) EXPECT_EQ((*all)[i].position.value(), i + 1);

  // Writing a stream converts it. A retry of the release's last append to
  // acct-1 (its fixed id) is still recognised, and the next append follows.
  auto retry = store.Append("acct-1", Expected::exactly(StreamVersion(68)),
                            {Event("Deposited", "{\"seq\":69}", FixtureId(70))});
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  EXPECT_TRUE(retry->replayed);
  EXPECT_EQ(retry->last_version.value(), 69);
  auto next = store.Append("acct-1", Expected::exactly(StreamVersion(69)),
                           {Event("Deposited", "{\"seq\":70}")});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->last_version.value(), 70);
  acct1 = ReadStreamEvents(store, "acct-1");
  ASSERT_TRUE(acct1.ok());
  EXPECT_EQ(acct1->size(), 71u);
  std::vector<AppendRequest> commit(1);
  commit[0].stream = "ent-1";
  commit[0].expected = Expected::exactly(StreamVersion(2));
  commit[0].events = {Event("Changed", "{\"n\":3}")};
  commit[0].state = StateUpdate{"state-3", 2};
  ASSERT_TRUE(store.Commit(std::move(commit)).ok());
  state = store.ReadState("ent-1");
  ASSERT_TRUE(state.ok() && *state);
  EXPECT_EQ((*state)->data, "state-3");
  EXPECT_EQ((*state)->version.value(), 3);
  const std::size_t tips_before = TipsLeft(*client_, prefix_ + "events");
  EXPECT_EQ(tips_before, 5u) << "acct-1 and ent-1 were converted when written";

  // The upgrade converts the rest while a writer keeps appending to them.
  std::atomic<int> written{0};
  std::thread writer([&] {
    const char* streams[] = {"acct-2", "order-1", "pair-a", "ent-big"};
    for (int i = 0; i < 40; ++i) {
      auto r = store.Append(streams[i % 4], Expected::any(), {Event("During", "{}")});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (r.ok()) ++written;
    }
  });
  std::size_t reported_total = 0;
  auto converted = dynamodb::UpgradeDynamoDbLayout(
      url_, [&](std::size_t, std::size_t total) { reported_total = total; });
  writer.join();
  ASSERT_TRUE(converted.ok()) << converted.status().ToString();
  EXPECT_LE(*converted, tips_before);
  EXPECT_EQ(TipsLeft(*client_, prefix_ + "events"), 0u);

  // $all holds every event once, the release's and the new ones, in order.
  const std::uint64_t total = kFixtureEvents + 2 + static_cast<std::uint64_t>(written.load());
  Settle(store, total);
  all = ReadAllEvents(store);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), total);
  std::map<std::string, std::int64_t> next_version;
  for (std::size_t i = 0; i < all->size(); ++i) {
    const RecordedEvent& e = (*all)[i];
    EXPECT_EQ(e.position.value(), i + 1);
    EXPECT_EQ(e.version.value(), next_version[e.stream]++) << e.stream;
  }
  big = store.ReadState("ent-big");
  ASSERT_TRUE(big.ok() && *big) << "appends without a record leave the last one";
  EXPECT_EQ((*big)->version.value(), 0);
  EXPECT_EQ((*big)->data.size(), 60u * 1024);

  // The table is marked: a new stream's first append bets again (1 request).
  auto fresh = Store::Open(url_ + "&indexer=0");
  ASSERT_TRUE(fresh.ok());
  const auto before = (*fresh)->stats().requests;
  ASSERT_TRUE((*fresh)->Append("brand-new", Expected::no_stream(), {Event("Made", "{}")}).ok());
  EXPECT_EQ((*fresh)->stats().requests - before, 1u);
}

}  // namespace
}  // namespace indelible
