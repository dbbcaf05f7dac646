// The DynamoDB client against real servers: DynamoDB Local (AWS's emulator)
// and dynalite, each started on a free loopback port by scripts/dynamodb.sh.
// Where the two differ, each test says what each does; a server that does
// not start fails the test (never a skip).
#include "aws/client.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <memory>
#include <thread>

#include "aws/errors.h"
#include "testutil/dynamodb_server.h"

namespace indelible::aws {
namespace {

namespace json = boost::json;

// Helpers for a test on one kind of server (the parameter): a table named
// after the test, keyed as the event log will be.
class DynamoDbTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    table_ = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : table_)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }

  static std::unique_ptr<Client> MakeClient(const std::string& endpoint,
                                            std::string target_prefix = "DynamoDB_20120810.",
                                            RetryOptions retry = DefaultRetryOptions()) {
    ClientOptions o;
    o.endpoint = *net::ParseUrl(endpoint);
    o.region = "us-east-1";
    o.credentials = {"AKIDTEST", "secret", "", "test"};
    o.target_prefix = std::move(target_prefix);
    o.retry = retry;
    auto client = Client::Create(o);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return std::move(*client);
  }

  const std::string& kind() const { return GetParam(); }
  bool local() const { return kind() == "local"; }

  // A table keyed as the event log will be: stream (S) and version (N).
  json::object TableRequest(const std::string& name) const {
    return {{"TableName", name},
            {"BillingMode", "PAY_PER_REQUEST"},
            {"AttributeDefinitions",
             json::array{{{"AttributeName", "stream"}, {"AttributeType", "S"}},
                         {{"AttributeName", "version"}, {"AttributeType", "N"}}}},
            {"KeySchema", json::array{{{"AttributeName", "stream"}, {"KeyType", "HASH"}},
                                      {{"AttributeName", "version"}, {"KeyType", "RANGE"}}}}};
  }
  // Creates the table and waits until it is ACTIVE.
  void CreateTable(json::object request) {
    Reply created = client_->Call("CreateTable", request);
    ASSERT_TRUE(created.ok()) << created.status.ToString();
    for (int i = 0; i < 100; ++i) {
      Reply d = client_->Call("DescribeTable", {{"TableName", request.at("TableName")}});
      ASSERT_TRUE(d.ok()) << d.status.ToString();
      if (d.body.at("Table").at("TableStatus") == "ACTIVE") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "table never became ACTIVE";
  }
  void CreateTable() { CreateTable(TableRequest(table_)); }

  json::object Event(const std::string& stream, int version, const std::string& type) const {
    return {{"stream", {{"S", stream}}},
            {"version", {{"N", std::to_string(version)}}},
            {"type", {{"S", type}}}};
  }
  // PutItem that succeeds only if no item has this key.
  json::object PutNew(json::object item) const {
    return {{"TableName", table_},
            {"Item", std::move(item)},
            {"ConditionExpression", "attribute_not_exists(#s)"},
            {"ExpressionAttributeNames", {{"#s", "stream"}}}};
  }

  std::unique_ptr<Client> client_;
  std::string table_;
};

// Tests on one server of each kind per test process, started when first
// needed, in memory.
class DynamoDbClient : public DynamoDbTest {
 protected:
  static testutil::DynamoDbServer& Server(const std::string& kind) {
    return testutil::SharedDynamoDbServer(kind);
  }

  void SetUp() override {
    DynamoDbTest::SetUp();
    ASSERT_FALSE(Server(kind()).endpoint().empty())
        << "the " << kind() << " server did not start:\n"
        << Server(kind()).output();
    client_ = MakeClient();
  }
  std::unique_ptr<Client> MakeClient(std::string target_prefix = "DynamoDB_20120810.") {
    return DynamoDbTest::MakeClient(Server(kind()).endpoint(), std::move(target_prefix));
  }
};

TEST_P(DynamoDbClient, CreatePutQueryAndCount) {
  CreateTable();
  const auto before = client_->counters();
  for (int v = 0; v < 5; ++v) {
    Reply put = client_->Call("PutItem", PutNew(Event("account-42", v, "Deposited")));
    ASSERT_TRUE(put.ok()) << put.status.ToString();
  }
  // The newest two, newest first: the shape of "state plus what follows".
  Reply q = client_->Call(
      "Query",
      {{"TableName", table_},
       {"KeyConditionExpression", "#s = :s AND #v >= :v"},
       {"ExpressionAttributeNames", {{"#s", "stream"}, {"#v", "version"}}},
       {"ExpressionAttributeValues", {{":s", {{"S", "account-42"}}}, {":v", {{"N", "1"}}}}},
       {"ScanIndexForward", false},
       {"Limit", 2}});
  ASSERT_TRUE(q.ok()) << q.status.ToString();
  const auto& items = q.body.at("Items").as_array();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].at("version").at("N"), "4");
  EXPECT_EQ(items[1].at("version").at("N"), "3");
  EXPECT_TRUE(q.body.contains("LastEvaluatedKey"));  // more to read

  // Six calls, six requests: nothing was retried.
  const auto after = client_->counters();
  EXPECT_EQ(after.calls - before.calls, 6u);
  EXPECT_EQ(after.requests - before.requests, 6u);
  EXPECT_EQ(after.retries, 0u);
  EXPECT_EQ(after.throttles, 0u);
  EXPECT_EQ(after.failures, 0u);
}

// ReturnValuesOnConditionCheckFailure=ALL_OLD: a failed conditional write
// says what is there without a second read. DynamoDB Local (1.25.0 on) does;
// dynalite 4.0.0 accepts the parameter and ignores it: no Item.
TEST_P(DynamoDbClient, ConditionalPutFailureReturnsTheItem) {
  CreateTable();
  ASSERT_TRUE(client_->Call("PutItem", PutNew(Event("s", 0, "First"))).ok());
  json::object again = PutNew(Event("s", 0, "Second"));
  again["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD";
  Reply failed = client_->Call("PutItem", again);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status.code(), ErrorCode::kConflict);
  EXPECT_EQ(failed.error_type, "ConditionalCheckFailedException");
  EXPECT_EQ(failed.attempts, 1);  // a failed condition is an answer, not retried
  if (local()) {
    ASSERT_TRUE(failed.body.contains("Item")) << json::serialize(failed.body);
    EXPECT_EQ(failed.body.at("Item").at("type").at("S"), "First");
  } else {
    EXPECT_FALSE(failed.body.contains("Item"))
        << "dynalite learned ALL_OLD: update docs/DYNAMODB.md";
  }
}

// TransactWriteItems: all or nothing on DynamoDB Local, with the reason per
// item when a condition fails; dynalite has no transactions, and says so
// with UnknownOperationException, which must reach the caller as a clear
// error, not a silent non-atomic fallback.
TEST_P(DynamoDbClient, TransactWriteItems) {
  CreateTable();
  ASSERT_TRUE(client_->Call("PutItem", PutNew(Event("b", 0, "Existing"))).ok());
  auto put = [&](json::object item) {
    json::object p = PutNew(std::move(item));
    p["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD";
    return json::object{{"Put", std::move(p)}};
  };
  Reply ok = client_->Call(
      "TransactWriteItems",
      {{"TransactItems", json::array{put(Event("a", 0, "A0")), put(Event("c", 0, "C0"))}}});
  Reply cancelled = client_->Call(
      "TransactWriteItems",
      {{"TransactItems", json::array{put(Event("a", 1, "A1")), put(Event("b", 0, "B0"))}}});
  if (!local()) {
    for (const Reply* r : {&ok, &cancelled}) {
      ASSERT_FALSE(r->ok());
      EXPECT_EQ(r->status.code(), ErrorCode::kInvalid);
      EXPECT_EQ(r->error_type, "UnknownOperationException");
      EXPECT_NE(r->status.message().find("does not support TransactWriteItems"), std::string::npos)
          << r->status.message();
    }
    return;
  }
  ASSERT_TRUE(ok.ok()) << ok.status.ToString();
  ASSERT_FALSE(cancelled.ok());
  EXPECT_EQ(cancelled.status.code(), ErrorCode::kConflict);
  EXPECT_EQ(cancelled.error_type, "TransactionCanceledException");
  const auto reasons = CancellationReasons(cancelled.body);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0].code, "None");
  EXPECT_EQ(reasons[1].code, "ConditionalCheckFailed");
  EXPECT_EQ(reasons[1].item.at("type").at("S"), "Existing");
  // Nothing of the cancelled transaction was written.
  Reply get = client_->Call(
      "GetItem",
      {{"TableName", table_}, {"Key", {{"stream", {{"S", "a"}}}, {"version", {{"N", "1"}}}}}});
  ASSERT_TRUE(get.ok());
  EXPECT_FALSE(get.body.contains("Item"));
}

TEST_P(DynamoDbClient, ErrorsMapOntoTheVocabulary) {
  CreateTable();
  // No sort key: ValidationException.
  Reply invalid =
      client_->Call("PutItem", {{"TableName", table_}, {"Item", {{"stream", {{"S", "x"}}}}}});
  EXPECT_EQ(invalid.status.code(), ErrorCode::kInvalid) << invalid.status.ToString();
  EXPECT_EQ(invalid.error_type, "ValidationException");
  EXPECT_EQ(invalid.attempts, 1);
  Reply missing =
      client_->Call("GetItem", {{"TableName", "no_such_table"},
                                {"Key", {{"stream", {{"S", "x"}}}, {"version", {{"N", "0"}}}}}});
  EXPECT_EQ(missing.status.code(), ErrorCode::kNotFound) << missing.status.ToString();
  EXPECT_EQ(missing.error_type, "ResourceNotFoundException");
  Reply exists = client_->Call("CreateTable", TableRequest(table_));
  EXPECT_EQ(exists.status.code(), ErrorCode::kConflict) << exists.status.ToString();
  EXPECT_EQ(exists.error_type, "ResourceInUseException");
  EXPECT_EQ(client_->counters().failures, 3u);
}

// Keep-alive: a hundred calls in a row on one connection; threads calling
// at once take one connection each, and no more.
TEST_P(DynamoDbClient, ConnectionsAreReused) {
  CreateTable();
  const auto before = client_->counters();
  for (int i = 0; i < 100; ++i) {
    Reply r = client_->Call(
        "GetItem",
        {{"TableName", table_}, {"Key", {{"stream", {{"S", "x"}}}, {"version", {{"N", "0"}}}}}});
    ASSERT_TRUE(r.ok()) << r.status.ToString();
  }
  EXPECT_EQ(client_->counters().connects, before.connects);  // the CreateTable's connection

  auto fresh = MakeClient();
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Reply r = fresh->Call(
            "PutItem", {{"TableName", table_}, {"Item", Event("t" + std::to_string(t), i, "E")}});
        if (!r.ok()) ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed, 0);
  EXPECT_GE(fresh->counters().connects, 1u);
  EXPECT_LE(fresh->counters().connects, static_cast<std::uint64_t>(kThreads));
  EXPECT_EQ(fresh->counters().requests, 200u);
}

// TTL and Streams, which the backend's snapshots and $all indexer need:
// DynamoDB Local has both; dynalite has neither, and must say so (it
// accepts a StreamSpecification in CreateTable and ignores it, so a
// backend has to check LatestStreamArn, not trust the request).
TEST_P(DynamoDbClient, TimeToLiveAndStreams) {
  json::object request = TableRequest(table_);
  request["StreamSpecification"] = {{"StreamEnabled", true}, {"StreamViewType", "NEW_IMAGE"}};
  CreateTable(request);
  Reply described = client_->Call("DescribeTable", {{"TableName", table_}});
  ASSERT_TRUE(described.ok());
  Reply ttl = client_->Call(
      "UpdateTimeToLive",
      {{"TableName", table_},
       {"TimeToLiveSpecification", {{"Enabled", true}, {"AttributeName", "expires"}}}});
  auto streams = MakeClient("DynamoDBStreams_20120810.");
  Reply listed = streams->Call("ListStreams", {{"TableName", table_}});
  if (local()) {
    EXPECT_TRUE(described.body.at("Table").as_object().contains("LatestStreamArn"));
    EXPECT_TRUE(ttl.ok()) << ttl.status.ToString();
    ASSERT_TRUE(listed.ok()) << listed.status.ToString();
    EXPECT_EQ(listed.body.at("Streams").as_array().size(), 1u);
  } else {
    EXPECT_FALSE(described.body.at("Table").as_object().contains("LatestStreamArn"));
    for (const auto& [reply, op] :
         {std::pair{&ttl, "UpdateTimeToLive"}, std::pair{&listed, "ListStreams"}}) {
      EXPECT_EQ(reply->status.code(), ErrorCode::kInvalid) << reply->status.ToString();
      EXPECT_NE(reply->status.message().find(std::string("does not support ") + op),
                std::string::npos)
          << reply->status.message();
    }
  }
}

// A real retry case: the server goes away and comes back on its port with
// its data (persistent, not in memory). A call made while it is down is
// refused, retried with back-off, and succeeds once it is up again; the
// client's pooled connection to the old server is replaced on the way.
using DynamoDbRestart = DynamoDbTest;

TEST_P(DynamoDbRestart, CallsRideOutARestart) {
  testutil::DynamoDbServer server(kind(), /*in_memory=*/false);
  ASSERT_TRUE(server.Start()) << server.output();
  // Enough attempts to span a JVM's start (seconds) many times over.
  RetryOptions patient = DefaultRetryOptions();
  patient.max_attempts = 40;
  patient.quota = 0;  // 40 transient retries would spend it
  patient.cap = std::chrono::milliseconds(500);
  client_ = MakeClient(server.endpoint(), "DynamoDB_20120810.", patient);
  CreateTable();
  ASSERT_TRUE(client_->Call("PutItem", PutNew(Event("kept", 0, "BeforeRestart"))).ok());

  ASSERT_TRUE(server.Stop()) << server.output();
  bool restarted = false;
  std::thread restart([&] { restarted = server.Start(); });
  Reply get =
      client_->Call("GetItem", {{"TableName", table_},
                                {"Key", {{"stream", {{"S", "kept"}}}, {"version", {{"N", "0"}}}}},
                                {"ConsistentRead", true}});
  restart.join();
  ASSERT_TRUE(restarted) << server.output();
  ASSERT_TRUE(get.ok()) << get.status.ToString();
  EXPECT_GE(get.attempts, 2);  // refused at least once while down
  EXPECT_GE(client_->counters().retries, 1u);
  ASSERT_TRUE(get.body.contains("Item")) << "the data did not survive the restart";
  EXPECT_EQ(get.body.at("Item").at("type").at("S"), "BeforeRestart");
}

INSTANTIATE_TEST_SUITE_P(Servers, DynamoDbClient, ::testing::Values("local", "dynalite"),
                         [](const auto& p) { return p.param; });
INSTANTIATE_TEST_SUITE_P(Servers, DynamoDbRestart, ::testing::Values("local", "dynalite"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace indelible::aws
