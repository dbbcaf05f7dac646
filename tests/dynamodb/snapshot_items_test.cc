// State records too large for the tip live in snapshot items (tip.h,
// docs/DYNAMODB.md "State records"), on DynamoDB Local: written with the
// tip in one transaction, read back whole (in parts), and, once superseded
// (by a newer record, a small one, or a delete), given the TTL attribute
// the events table's TTL deletes by; dynalite, without transactions, gets
// a clear error and nothing written.
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <chrono>
#include <thread>

#include "aws/client.h"
#include "aws/credentials.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/tip.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

namespace json = boost::json;

class SnapshotItemsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::DynamoDbTestUrl("snap", "&indexer=0");
    ASSERT_FALSE(url_.empty());
    auto store = Store::Open(url_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto parsed = dynamodb::ParseStoreUrl(url_);
    auto credentials = aws::LoadCredentials();
    ASSERT_TRUE(parsed.ok() && credentials.ok());
    auto client = aws::Client::Create(dynamodb::ClientOptionsFromUrl(*parsed, *credentials));
    ASSERT_TRUE(client.ok());
    raw_ = std::move(*client);
    table_ = parsed->table_prefix + "events";
  }

  static EventData Event() {
    EventData e;
    e.id = EventId::Random();
    e.type = "Tested";
    e.data = "{}";
    return e;
  }

  // A state record of `bytes` bytes that says which version it is for.
  static std::string StateFor(std::int64_t version, std::size_t bytes) {
    std::string data = "v" + std::to_string(version) + ":";
    for (std::size_t i = 0; data.size() < bytes; ++i) data += static_cast<char>('a' + i % 26);
    return data;
  }

  Result<CommitResult> AppendWithState(const std::string& stream, Expected expected,
                                       std::int64_t version, std::size_t bytes) {
    std::vector<AppendRequest> commit(1);
    commit[0].stream = stream;
    commit[0].expected = expected;
    commit[0].events = {Event()};
    commit[0].state = StateUpdate{StateFor(version, bytes), 2};
    return store_->Commit(std::move(commit));
  }

  // The stream's snapshot items (sort keys below 0): key -> expires_at (0: none).
  std::map<std::int64_t, std::int64_t> SnapshotItems(const std::string& stream) {
    std::map<std::int64_t, std::int64_t> found;
    auto reply = raw_->Call(
        "Query",
        {{"TableName", table_},
         {"ConsistentRead", true},
         {"KeyConditionExpression", "#s = :s AND #v < :zero"},
         {"ExpressionAttributeNames", {{"#s", "stream"}, {"#v", "version"}}},
         {"ExpressionAttributeValues", {{":s", dynamodb::S(stream)}, {":zero", dynamodb::N(0)}}}});
    EXPECT_TRUE(reply.ok()) << reply.status.ToString();
    if (!reply.ok()) return found;
    for (const auto& item : reply.body.at("Items").as_array()) {
      const auto& o = item.as_object();
      const std::int64_t key = std::stoll(std::string(o.at("version").at("N").as_string()));
      std::int64_t expires = 0;
      if (const auto* e = o.if_contains("expires_at"))
        expires = std::stoll(std::string(e->at("N").as_string()));
      found[key] = expires;
    }
    return found;
  }

  static std::int64_t NowSeconds() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // expires_at is the grace (a day) from now.
  static void ExpectMarked(std::int64_t expires) {
    EXPECT_GE(expires, NowSeconds() + 86400 - 120);
    EXPECT_LE(expires, NowSeconds() + 86400 + 5);
  }

  std::string url_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<aws::Client> raw_;
  std::string table_;
};

TEST_F(SnapshotItemsTest, LargeRecordsLiveInSnapshotItemsAndSupersededOnesGetATtl) {
  using dynamodb::SnapshotKey;
  ASSERT_TRUE(AppendWithState("big", Expected::no_stream(), 0, 100 * 1024).ok());
  auto state = store_->ReadState("big");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  ASSERT_TRUE(state->has_value());
  EXPECT_EQ((*state)->data, StateFor(0, 100 * 1024));
  EXPECT_EQ((*state)->schema, 2u);
  EXPECT_EQ((*state)->version.value(), 0);
  EXPECT_EQ(SnapshotItems("big"), (std::map<std::int64_t, std::int64_t>{{SnapshotKey(0, 0), 0}}));

  // An entity load: the tip, then the snapshot's items.
  const auto before = store_->stats().requests;
  auto loaded = store_->ReadStateAndEvents("big");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  ASSERT_TRUE(loaded->state.has_value());
  EXPECT_EQ(loaded->state->data, StateFor(0, 100 * 1024));
  EXPECT_FALSE(loaded->events->Valid());
  EXPECT_EQ(store_->stats().requests - before, 2u);

  // A newer record in two parts supersedes it.
  ASSERT_TRUE(AppendWithState("big", Expected::exactly(StreamVersion(0)), 1, 350 * 1024).ok());
  state = store_->ReadState("big");
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ((*state)->data, StateFor(1, 350 * 1024));
  auto items = SnapshotItems("big");
  ASSERT_EQ(items.size(), 3u);
  ExpectMarked(items[SnapshotKey(0, 0)]);
  EXPECT_EQ(items[SnapshotKey(1, 0)], 0);
  EXPECT_EQ(items[SnapshotKey(1, 1)], 0);

  // A record small enough for the tip supersedes both parts.
  ASSERT_TRUE(AppendWithState("big", Expected::exactly(StreamVersion(1)), 2, 1000).ok());
  state = store_->ReadState("big");
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ((*state)->data, StateFor(2, 1000));
  items = SnapshotItems("big");
  ExpectMarked(items[SnapshotKey(1, 0)]);
  ExpectMarked(items[SnapshotKey(1, 1)]);

  // So does a delete.
  ASSERT_TRUE(AppendWithState("big", Expected::exactly(StreamVersion(2)), 3, 60 * 1024).ok());
  EXPECT_EQ(SnapshotItems("big")[SnapshotKey(3, 0)], 0);
  ASSERT_TRUE(store_->Delete("big").ok());
  ExpectMarked(SnapshotItems("big")[SnapshotKey(3, 0)]);

  // The events table deletes what is marked.
  auto ttl = raw_->Call("DescribeTimeToLive", {{"TableName", table_}});
  ASSERT_TRUE(ttl.ok()) << ttl.status.ToString();
  EXPECT_EQ(ttl.body.at("TimeToLiveDescription").at("TimeToLiveStatus").as_string(), "ENABLED");
  EXPECT_EQ(ttl.body.at("TimeToLiveDescription").at("AttributeName").as_string(), "expires_at");
}

TEST_F(SnapshotItemsTest, ASnapshotWithTwoStreamsAndOneWhoseItemsAreGone) {
  // A commit of two streams, one with a large record: one transaction.
  std::vector<AppendRequest> commit(2);
  commit[0].stream = "order-1";
  commit[0].expected = Expected::no_stream();
  commit[0].events = {Event(), Event()};
  commit[0].state = StateUpdate{StateFor(1, 200 * 1024), 1};
  commit[1].stream = "outbox";
  commit[1].expected = Expected::any();
  commit[1].events = {Event()};
  ASSERT_TRUE(store_->Commit(std::move(commit)).ok());
  auto state = store_->ReadState("order-1");
  ASSERT_TRUE(state.ok() && state->has_value()) << state.status().ToString();
  EXPECT_EQ((*state)->data, StateFor(1, 200 * 1024));
  EXPECT_EQ((*state)->version.value(), 1);

  // Items deleted under a reader (TTL, after a writer superseded them):
  // no record, so the entity replays the stream; not an error.
  for (const auto& [key, expires] : SnapshotItems("order-1"))
    ASSERT_TRUE(
        raw_->Call("DeleteItem",
                   {{"TableName", table_},
                    {"Key", {{"stream", dynamodb::S("order-1")}, {"version", dynamodb::N(key)}}}})
            .ok());
  state = store_->ReadState("order-1");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_FALSE(state->has_value());
  auto loaded = store_->ReadStateAndEvents("order-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_FALSE(loaded->state.has_value());
  int events = 0;
  for (auto& c = *loaded->events; c.Valid(); c.Next()) ++events;
  EXPECT_EQ(events, 2) << "every event, to replay";
}

TEST_F(SnapshotItemsTest, RacingWritersLeaveTheWinnersRecord) {
  ASSERT_TRUE(AppendWithState("race", Expected::no_stream(), 0, 80 * 1024).ok());
  std::vector<std::thread> writers;
  std::atomic<int> written{0};
  for (int w = 0; w < 8; ++w)
    writers.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        auto head = store_->Head("race");
        ASSERT_TRUE(head.ok());
        const std::int64_t version = head->version.value() + 1;
        auto result = AppendWithState("race", Expected::exactly(head->version), version, 80 * 1024);
        if (result.ok())
          ++written;
        else
          EXPECT_EQ(result.status().code(), ErrorCode::kConflict) << result.status().ToString();
      }
    });
  for (auto& t : writers) t.join();
  auto head = store_->Head("race");
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->version.value(), written.load());
  auto state = store_->ReadState("race");
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ((*state)->version, head->version);
  EXPECT_EQ((*state)->data, StateFor(head->version.value(), 80 * 1024))
      << "the record of the append that won the last version";
  EXPECT_EQ(SnapshotItems("race")[dynamodb::SnapshotKey(head->version.value(), 0)], 0)
      << "the current snapshot is not marked";
}

TEST(SnapshotItemsOnDynalite, ALargeRecordIsAClearErrorAndNothingIsWritten) {
  ::setenv("AWS_ACCESS_KEY_ID", "test", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "test", 1);
  auto& server = testutil::SharedDynamoDbServer("dynalite");
  ASSERT_FALSE(server.endpoint().empty()) << server.output();
  auto store = Store::Open("dynamodb://127.0.0.1:" + std::to_string(server.port()) +
                           "?region=us-east-1&tls=0&prefix=dynalite_snap_");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  std::vector<AppendRequest> commit(1);
  commit[0].stream = "big";
  commit[0].expected = Expected::no_stream();
  EventData event;
  event.type = "Tested";
  event.data = "{}";
  commit[0].events = {event};
  commit[0].state = StateUpdate{std::string(60 * 1024, 's'), 1};
  auto result = (*store)->Commit(std::move(commit));
  EXPECT_EQ(result.status().code(), ErrorCode::kInvalid) << result.status().ToString();
  EXPECT_NE(result.status().message().find("snapshot items"), std::string::npos)
      << result.status().ToString();
  EXPECT_EQ((*store)->Head("big").status().code(), ErrorCode::kNotFound) << "nothing written";
}

}  // namespace
}  // namespace indelible
