// Crypto-shredding's acceptance test on DynamoDB Local (docs/RETENTION.md,
// docs/DYNAMODB.md): a subject's marker is in no item of the store's
// tables (events, $all and checkpoints, every table of its prefix, read
// with raw Scans) nor in any record of the events table's change stream,
// before the shred or after; after it the subject's wrapped keys are in no
// item either, its events read as redacted here at once and in another
// process within the refresh, and in a store opened afterwards. The plain
// events' marker and another subject's key are found where they are: the
// search decodes what DynamoDB holds as base64 (binary attributes, the
// records' values) and would find them.
#include <indelible/subscription.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "aws/client.h"
#include "core/event_json.h"
#include "integration/shredding_fixture.h"
#include "testutil/dynamodb_server.h"

namespace indelible::shredding_test {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;
using Found = std::vector<std::string>;

std::unique_ptr<aws::Client> RawClient(std::string target_prefix = "DynamoDB_20120810.") {
  auto& server = testutil::SharedDynamoDbServer("local");
  aws::ClientOptions options;
  options.endpoint = *net::ParseUrl("http://127.0.0.1:" + std::to_string(server.port()));
  options.region = "us-east-1";
  options.credentials.access_key_id = "test";
  options.credentials.secret_access_key = "test";
  options.target_prefix = std::move(target_prefix);
  auto client = aws::Client::Create(options);
  return client.ok() ? std::move(*client) : nullptr;
}

// Whether `value` holds `needle` anywhere: in a string as it is, or in the
// bytes a base64 string decodes to (binary attributes; the records' values).
bool Holds(const json::value& value, const std::string& needle) {
  if (value.is_string()) {
    const std::string_view text = value.as_string();
    if (text.find(needle) != std::string_view::npos) return true;
    auto decoded = Base64Decode(text);
    return decoded && decoded->find(needle) != std::string::npos;
  }
  if (value.is_object()) {
    for (const auto& [key, member] : value.as_object())
      if (key.find(needle) != json::string_view::npos || Holds(member, needle)) return true;
  }
  if (value.is_array())
    for (const json::value& element : value.as_array())
      if (Holds(element, needle)) return true;
  return false;
}

class ShreddingDynamoDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Tables of their own on each run of the test (--gtest_repeat too).
    static int runs = 0;
    url_ = testutil::DynamoDbTestUrl("shred" + std::to_string(runs++), "&index_poll_ms=10");
    ASSERT_FALSE(url_.empty());
    prefix_ = url_.substr(url_.find("prefix=") + 7);
    client_ = RawClient();
    streams_client_ = RawClient("DynamoDBStreams_20120810.");
    ASSERT_TRUE(client_ && streams_client_);
    master_key_ = NewMasterKey();
    store_ = Open();
    ASSERT_TRUE(store_);
  }

  std::unique_ptr<Store> Open(milliseconds refresh = milliseconds(1000)) {
    StoreOptions options = KeyedOptions(master_key_);
    options.metadata_refresh = refresh;
    auto opened = Store::Open(url_, options);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    return opened.ok() ? std::move(*opened) : nullptr;
  }

  // Waits until $all holds `count` events (the indexer builds it after the
  // commit).
  static void Settle(Store& store, std::uint64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (store.LastPosition().value() < count && std::chrono::steady_clock::now() < deadline)
      store.WaitForCommit(store.LastPosition(), milliseconds(200));
    ASSERT_GE(store.LastPosition().value(), count) << "the $all indexer did not catch up";
  }

  // Every table of the store's prefix.
  std::vector<std::string> Tables() {
    std::vector<std::string> tables;
    json::object request;
    for (;;) {
      aws::Reply reply = client_->Call("ListTables", request);
      EXPECT_TRUE(reply.ok()) << reply.status.ToString();
      if (!reply.ok()) break;
      for (const json::value& name : reply.body.at("TableNames").as_array())
        if (name.as_string().starts_with(prefix_)) tables.emplace_back(name.as_string());
      const json::value* last = reply.body.if_contains("LastEvaluatedTableName");
      if (last == nullptr) break;
      request["ExclusiveStartTableName"] = *last;
    }
    return tables;
  }

  // The items of every table of the store that hold `needle`, named by
  // table and key.
  Found ItemsHolding(const std::string& needle) {
    Found found;
    const std::vector<std::string> tables = Tables();
    EXPECT_GE(tables.size(), 3u) << "events, all and checkpoints";
    for (const std::string& table : tables) {
      json::object request{{"TableName", table}, {"ConsistentRead", true}};
      for (;;) {
        aws::Reply reply = client_->Call("Scan", request);
        EXPECT_TRUE(reply.ok()) << table << ": " << reply.status.ToString();
        if (!reply.ok()) break;
        for (const json::value& item : reply.body.at("Items").as_array())
          if (Holds(item, needle))
            found.push_back(table + " " + json::serialize(item).substr(0, 300));
        const json::value* next = reply.body.if_contains("LastEvaluatedKey");
        if (next == nullptr) break;
        request["ExclusiveStartKey"] = *next;
      }
    }
    return found;
  }

  // The records of the events table's change stream (old and new images of
  // every write it kept) that hold `needle`.
  Found ChangeRecordsHolding(const std::string& needle) {
    Found found;
    aws::Reply table = client_->Call("DescribeTable", {{"TableName", prefix_ + "events"}});
    EXPECT_TRUE(table.ok()) << table.status.ToString();
    if (!table.ok()) return found;
    const json::value* arn = table.body.at("Table").as_object().if_contains("LatestStreamArn");
    EXPECT_TRUE(arn != nullptr) << "the events table has a change stream";
    if (arn == nullptr) return found;
    aws::Reply stream = streams_client_->Call("DescribeStream", {{"StreamArn", *arn}});
    EXPECT_TRUE(stream.ok()) << stream.status.ToString();
    if (!stream.ok()) return found;
    std::size_t records = 0;
    for (const json::value& shard : stream.body.at("StreamDescription").at("Shards").as_array()) {
      aws::Reply iterator =
          streams_client_->Call("GetShardIterator", {{"StreamArn", *arn},
                                                     {"ShardId", shard.at("ShardId")},
                                                     {"ShardIteratorType", "TRIM_HORIZON"}});
      EXPECT_TRUE(iterator.ok()) << iterator.status.ToString();
      if (!iterator.ok()) continue;
      json::value next = iterator.body.at("ShardIterator");
      // An open shard always answers with a next iterator: read until a
      // page comes back empty.
      for (int pages = 0; pages < 100 && next.is_string(); ++pages) {
        aws::Reply page =
            streams_client_->Call("GetRecords", {{"ShardIterator", next}, {"Limit", 1000}});
        EXPECT_TRUE(page.ok()) << page.status.ToString();
        if (!page.ok()) break;
        const json::array& got = page.body.at("Records").as_array();
        for (const json::value& record : got) {
          ++records;
          if (Holds(record, needle))
            found.push_back("change record " + json::serialize(record).substr(0, 300));
        }
        if (got.empty()) break;
        const json::value* more = page.body.if_contains("NextShardIterator");
        next = more != nullptr ? *more : json::value(nullptr);
      }
    }
    EXPECT_GE(records, Cast::kEvents) << "the change stream holds the commits";
    return found;
  }

  // The reads of `store`: stream reads both ways and raw, $all, a query by
  // the subject's tag and a $all subscription, each checked by CheckEvents.
  void ExpectReads(Store& store, bool shredded) {
    std::vector<RecordedEvent> seen;
    const auto add = [&](Result<std::vector<RecordedEvent>> events) {
      ASSERT_TRUE(events.ok()) << events.status().ToString();
      seen.insert(seen.end(), events->begin(), events->end());
    };
    ReadStreamOptions backward;
    backward.direction = Direction::kBackward;
    for (const std::string& stream : {cast_.Person(), cast_.Note()}) {
      add(ReadStreamEvents(store, stream, {}));
      add(ReadStreamEvents(store, stream, backward));
    }
    add(ReadAllEvents(store, {}));
    Query query;
    query.items.push_back(QueryItem{{}, {SubjectTag(cast_.subject)}});
    add(ReadQueryEvents(store, query));
    Subscription subscription(store, {});
    for (int pages = 0; pages < 100; ++pages) {
      auto batch = subscription.Next(milliseconds(1000));
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      seen.insert(seen.end(), batch->events.begin(), batch->events.end());
      if (batch->caught_up) break;
    }
    ASSERT_TRUE(subscription.caught_up());
    const Tally tally = CheckEvents(seen, cast_, shredded);
    // Per stream both ways (4 + 4), $all (4), the query (4), the subscription (4).
    EXPECT_EQ(tally.subject, 5 * Cast::kSubjectEvents);
    EXPECT_EQ(tally.other, 2 * Cast::kOtherEvents);
    EXPECT_EQ(tally.plain, 2 * Cast::kPlainEvents);

    ReadStreamOptions raw;
    raw.raw = true;
    auto stored = ReadStreamEvents(store, cast_.Person(), raw);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    ASSERT_EQ(stored->size(), 3u);
    for (const RecordedEvent& e : *stored) {
      if (shredded) {
        EXPECT_TRUE(IsRedacted(e, cast_)) << "raw";
      } else {
        EXPECT_EQ(e.content_type, kSealedContentType);
        EXPECT_EQ(e.data.find(cast_.marker), std::string::npos);
      }
    }
  }

  std::string url_, prefix_, master_key_;
  std::unique_ptr<aws::Client> client_, streams_client_;
  std::unique_ptr<Store> store_;
  Cast cast_;
};

TEST_F(ShreddingDynamoDbTest, TheMarkerIsInNoItemAndTheKeysLeaveWithTheShred) {
  ASSERT_TRUE(store_->Commit(cast_.Appends()).ok());
  ASSERT_NO_FATAL_FAILURE(Settle(*store_, Cast::kEvents));
  ASSERT_NO_FATAL_FAILURE(ExpectReads(*store_, /*shredded=*/false));

  // At rest, sealed from the first write: the subject's marker (and the
  // other subject's) in no item, the plain events' in theirs.
  EXPECT_EQ(ItemsHolding(cast_.marker), Found{});
  EXPECT_EQ(ItemsHolding(cast_.other_marker), Found{});
  EXPECT_NE(ItemsHolding(cast_.plain_marker), Found{}) << "the control";
  EXPECT_EQ(ChangeRecordsHolding(cast_.marker), Found{});
  EXPECT_NE(ChangeRecordsHolding(cast_.plain_marker), Found{}) << "the control";
  const std::vector<KeyRecord> keys = KeyRecordsOf(*store_, cast_.subject);
  ASSERT_EQ(keys.size(), 2u) << "the subject's pointer and its key of an id";
  const std::vector<KeyRecord> other_keys = KeyRecordsOf(*store_, cast_.other);
  ASSERT_EQ(other_keys.size(), 2u);
  for (const KeyRecord& key : keys) EXPECT_NE(ItemsHolding(key.wrapped), Found{}) << key.name;

  // Another process that has read (and cached) the subject's key.
  std::unique_ptr<Store> elsewhere = Open(milliseconds(100));
  ASSERT_TRUE(elsewhere);
  ASSERT_NO_FATAL_FAILURE(Settle(*elsewhere, Cast::kEvents));
  auto cached = ReadStreamEvents(*elsewhere, cast_.Person(), {});
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  ASSERT_TRUE(IsOpened(cached->front(), cast_.marker));

  auto shredded = store_->ShredSubject(cast_.subject);
  ASSERT_TRUE(shredded.ok()) << shredded.status().ToString();
  EXPECT_EQ(shredded->keys, 1u);
  // Nothing for a scavenge to compact on DynamoDB (a deleted item is
  // gone), where it answers invalid until it can remove events.
  auto scavenged = store_->Scavenge();
  EXPECT_TRUE(scavenged.ok() || scavenged.status().code() == ErrorCode::kInvalid)
      << scavenged.status().ToString();

  for (const KeyRecord& key : keys) {
    EXPECT_EQ(ItemsHolding(key.wrapped), Found{}) << key.name;
    EXPECT_EQ(ItemsHolding(key.name), Found{}) << key.name;
  }
  for (const KeyRecord& key : other_keys)
    EXPECT_NE(ItemsHolding(key.wrapped), Found{}) << "the control: " << key.name;
  EXPECT_EQ(ItemsHolding(cast_.marker), Found{});
  EXPECT_EQ(ChangeRecordsHolding(cast_.marker), Found{});
  ExpectReads(*store_, /*shredded=*/true);

  // The other process: redacted within its refresh (100 ms).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::string data;
  while (std::chrono::steady_clock::now() < deadline) {
    auto read = ReadStreamEvents(*elsewhere, cast_.Person(), {});
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    data = read->front().data;
    if (data == kRedactedData) break;
    elsewhere->WaitForCommit(elsewhere->LastPosition(), milliseconds(50));
  }
  EXPECT_EQ(data, kRedactedData) << "another process still reads the subject's events";
  ExpectReads(*elsewhere, /*shredded=*/true);

  // A store opened now.
  elsewhere.reset();
  store_ = Open();
  ASSERT_TRUE(store_);
  ASSERT_NO_FATAL_FAILURE(Settle(*store_, Cast::kEvents));
  ExpectReads(*store_, /*shredded=*/true);
  EXPECT_EQ(ItemsHolding(cast_.marker), Found{});
}

}  // namespace
}  // namespace indelible::shredding_test
