// Store::ListStreams on DynamoDB (docs/DYNAMODB.md, "Listing streams"),
// beyond the conformance suite: the listing reads the sparse index over the
// tips (a tip without the index's key is not listed; a page is one Query and
// one BatchGetItem per 100 streams, whatever the table holds), and a table
// made by an earlier version, without the index and with tips that lack its
// key and `written`, gets both when a store opens it.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "aws/credentials.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tip.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

namespace json = boost::json;
using dynamodb::kListIndex;
using dynamodb::kListKey;

class DynamoDbListStreamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // No indexer: its requests would count too, and a listing needs none.
    url_ = testutil::DynamoDbTestUrl("ls", "&indexer=0");
    ASSERT_FALSE(url_.empty());
  }

  std::unique_ptr<Store> Open(const std::string& extra = "") {
    auto store = Store::Open(url_ + extra);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(*store) : nullptr;
  }

  // A raw client on the store's endpoint, to look at and change the table.
  std::unique_ptr<aws::Client> RawClient() {
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    EXPECT_TRUE(parsed.ok() && credentials.ok());
    auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
    EXPECT_TRUE(client.ok());
    return client.ok() ? std::move(*client) : nullptr;
  }
  std::string Table() const { return url_.substr(url_.find("&prefix=") + 8) + "events"; }

  static json::object TipKey(const std::string& stream) {
    return {{dynamodb::kStreamKey, dynamodb::S(stream)},
            {dynamodb::kVersionKey, dynamodb::N(dynamodb::kTipVersion)}};
  }

  // The table's description of the listing index; null if it has none.
  static const json::object* ListIndex(const json::object& described) {
    const auto* table = dynamodb::ObjectAt(described, "Table");
    const auto* indexes = table != nullptr ? table->if_contains("GlobalSecondaryIndexes") : nullptr;
    if (indexes == nullptr || !indexes->is_array()) return nullptr;
    for (const auto& index : indexes->get_array())
      if (index.is_object() && dynamodb::StringAt(index.get_object(), "IndexName") == kListIndex)
        return &index.get_object();
    return nullptr;
  }

  static EventData Event() {
    EventData e;
    e.id = EventId::Random();
    e.type = "Tested";
    e.data = "{}";
    return e;
  }

  static std::vector<std::string> Names(const StreamList& list) {
    std::vector<std::string> names;
    for (const auto& info : list.streams) names.push_back(info.stream);
    return names;
  }

  std::string url_;
};

TEST_F(DynamoDbListStreamsTest, APageIsOneIndexQueryAndOneNewestItemQueryPerStream) {
  auto store = Open();
  ASSERT_TRUE(store);
  // The index: version 0's items' `lk` and the name, keys only.
  auto client = RawClient();
  aws::Reply described = client->Call("DescribeTable", {{"TableName", Table()}});
  ASSERT_TRUE(described.ok()) << described.status.ToString();
  const json::object* index = ListIndex(described.body);
  ASSERT_NE(index, nullptr) << json::serialize(described.body);
  EXPECT_EQ(
      json::serialize(index->at("KeySchema")),
      R"([{"AttributeName":"lk","KeyType":"HASH"},{"AttributeName":"stream","KeyType":"RANGE"}])");
  EXPECT_EQ(json::serialize(index->at("Projection")), R"({"ProjectionType":"KEYS_ONLY"})");
  EXPECT_EQ(dynamodb::StringAt(*index, "IndexStatus"), "ACTIVE");

  // 130 streams, one with many appends: the table holds more items than
  // streams.
  std::vector<std::string> streams;
  for (int i = 0; i < 130; ++i) {
    char name[16];
    std::snprintf(name, sizeof(name), "s-%03d", i);
    streams.emplace_back(name);
    ASSERT_TRUE(store->Append(name, Expected::any(), {Event(), Event()}).ok());
  }
  for (int i = 0; i < 70; ++i) ASSERT_TRUE(store->Append("s-000", Expected::any(), {Event()}).ok());
  ASSERT_TRUE(store->ListStreams({"", "", "", 1}).ok());  // the first looks at the index's status

  auto requests = [&] { return store->stats().requests; };
  auto before = requests();
  auto page = store->ListStreams({"", "", "", 3});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Names(*page), (std::vector<std::string>{"s-000", "s-001", "s-002"}));
  EXPECT_EQ(page->streams[0].version.value(), 71);
  // The page asks the index for one name more, to know whether a page
  // follows, and reads that stream too.
  EXPECT_EQ(requests() - before, 5u) << "one Query of the index, one of each stream's newest item";

  before = requests();
  page = store->ListStreams({"", "", "s-050", 100});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->streams.size(), 79u);
  EXPECT_EQ(page->streams.front().stream, "s-051");
  EXPECT_EQ(requests() - before, 80u) << "from `after`: a key condition, not a walk";

  before = requests();
  page = store->ListStreams({"", "", "", 1000});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Names(*page), streams);
  EXPECT_EQ(requests() - before, 131u) << "one Query of the index, one per stream";

  // What lists a stream is its entry in the index, not a scan of the
  // table: a stream whose version 0 lacks the index's key is not listed.
  aws::Reply removed = client->Call(
      "UpdateItem", {{"TableName", Table()},
                     {"Key", {{"stream", {{"S", "s-001"}}}, {"version", {{"N", "0"}}}}},
                     {"UpdateExpression", "REMOVE #k"},
                     {"ExpressionAttributeNames", {{"#k", kListKey}}}});
  ASSERT_TRUE(removed.ok()) << removed.status.ToString();
  page = store->ListStreams({"", "", "", 3});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(Names(*page), (std::vector<std::string>{"s-000", "s-002", "s-003"}));
}

// On a DynamoDB Local of its own, not the one ctest shares across the run:
// DynamoDB Local drops and builds indexes as jobs on a pool of ten threads
// that also runs a TTL pass over every table with TTL on, one job per table.
// On the shared instance (hundreds of tables by then) the index jobs queued
// behind those passes for over two minutes on CI; here they wait for this
// test's few tables only.
class DynamoDbOlderTableTest : public DynamoDbListStreamsTest {
 protected:
  void SetUp() override {
    ::unsetenv("INDELIBLE_DYNAMODB_LOCAL_ENDPOINT_FILE");
    DynamoDbListStreamsTest::SetUp();
  }
};

TEST_F(DynamoDbOlderTableTest, AnOlderTableGetsTheIndexWhenAStoreOpensIt) {
  // The earlier layout, from before the listing index: tips without `lk`
  // and `written` (tip.h), written by hand as an older release did. a-1's
  // three events are in its tip; b-1's first event moved to an item of its
  // own; c-1 is deleted (its tombstone in the tip).
  {
    auto store = Open();  // the tables, as this release makes them
    ASSERT_TRUE(store);
  }
  auto raw = RawClient();
  std::string all_table = Table();
  all_table.replace(all_table.rfind("events"), 6, "all");
  ASSERT_TRUE(
      raw->Call("DeleteItem", {{"TableName", all_table},
                               {"Key", {{"block", {{"N", "-2"}}}, {"position", {{"N", "0"}}}}}})
          .ok());  // the layout marker: an older release wrote none
  std::int64_t clock = 1700000000000;
  auto envelope = [&](const std::string& type) {
    EventData e = Event();
    e.type = type;
    return json::object{{"M", dynamodb::Envelope(e, ++clock)}};
  };
  auto put = [&](json::object item) {
    aws::Reply r = raw->Call("PutItem", {{"TableName", Table()}, {"Item", std::move(item)}});
    ASSERT_TRUE(r.ok()) << r.status.ToString();
  };
  auto tip = [&](const std::string& stream, int head, bool deleted, int held_first,
                 json::array held) {
    const auto count = static_cast<std::int64_t>(held.size());
    put(json::object{{"stream", dynamodb::S(stream)},
                     {"version", dynamodb::N(dynamodb::kTipVersion)},
                     {"head", dynamodb::N(head)},
                     {"first", dynamodb::N(0)},
                     {"deleted", {{"BOOL", deleted}}},
                     {dynamodb::AppendAttribute(held_first),
                      {{"M", {{"b", dynamodb::N(200 * count)}, {"e", {{"L", std::move(held)}}}}}}},
                     {"bytes", dynamodb::N(200 * count)},
                     {"count", dynamodb::N(1)}});
  };
  auto moved = [&](const std::string& stream, int version) {
    json::object item = envelope("Moved").at("M").as_object();
    item["stream"] = dynamodb::S(stream);
    item["version"] = dynamodb::N(version);
    put(std::move(item));
  };
  tip("a-1", 2, false, 0, json::array{envelope("E"), envelope("E"), envelope("E")});
  moved("b-1", 0);
  tip("b-1", 1, false, 1, json::array{envelope("E")});
  moved("c-1", 0);
  tip("c-1", 1, true, 1, json::array{envelope(std::string(kDeletedEventType))});
  auto client = RawClient();
  aws::Reply dropped = client->Call(
      "UpdateTable", {{"TableName", Table()},
                      {"GlobalSecondaryIndexUpdates",
                       json::array{json::object{{"Delete", {{"IndexName", kListIndex}}}}}}});
  ASSERT_TRUE(dropped.ok()) << dropped.status.ToString();
  // DynamoDB Local drops and builds indexes in the background (above); the
  // waits are bounded generously (this is not a speed check).
  const auto dropping = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    aws::Reply described = client->Call("DescribeTable", {{"TableName", Table()}});
    ASSERT_TRUE(described.ok()) << described.status.ToString();
    if (ListIndex(described.body) == nullptr) break;
    ASSERT_LT(std::chrono::steady_clock::now(), dropping) << "the index was not dropped";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Opening it gives the tips their key and the table the index.
  auto store = Open();
  ASSERT_TRUE(store);
  const auto building = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    auto status = dynamodb::IndexStatus(*client, Table(), std::string(kListIndex));
    ASSERT_TRUE(status.ok()) << status.status().ToString();
    ASSERT_NE(*status, "") << "the open did not add the index";
    if (*status == "ACTIVE") break;
    ASSERT_LT(std::chrono::steady_clock::now(), building) << "the index never became ACTIVE";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto list = store->ListStreams();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(Names(*list), (std::vector<std::string>{"a-1", "b-1", "c-1"}));
  // Tips without `written` answer their last event's timestamp, read from
  // the tip (a-1) or from the event's own item (b-1, c-1's tombstone).
  for (const auto& info : list->streams) {
    ReadStreamOptions last;
    last.direction = Direction::kBackward;
    last.limit = 1;
    last.include_deleted = true;
    auto events = ReadStreamEvents(*store, info.stream, last);
    ASSERT_TRUE(events.ok() && events->size() == 1) << info.stream;
    EXPECT_EQ(info.deleted, info.stream == "c-1") << info.stream;
    EXPECT_EQ(info.last_write_ms, events->back().timestamp_ms) << info.stream;
    EXPECT_GT(info.last_write_ms, 0) << info.stream;
    EXPECT_EQ(info.version, events->back().version) << info.stream;
  }
  EXPECT_EQ(list->streams[2].version.value(), 1) << "c-1's tombstone";

  // New streams and appends carry on as on a new table.
  ASSERT_TRUE(store->Append("a-0", Expected::no_stream(), {Event()}).ok());
  ASSERT_TRUE(store->Append("b-1", Expected::any(), {Event()}).ok());
  list = store->ListStreams({"", "", "", 2});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(Names(*list), (std::vector<std::string>{"a-0", "a-1"}));
  list = store->ListStreams({"b", "", "", 2});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->streams.size(), 1u);
  EXPECT_EQ(list->streams[0].version.value(), 2);

  // Opening it again changes nothing more.
  store.reset();
  store = Open();
  ASSERT_TRUE(store);
  list = store->ListStreams();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  EXPECT_EQ(list->streams.size(), 4u);
}

}  // namespace
}  // namespace indelible
