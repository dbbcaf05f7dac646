// `indelible import --from-eventlog`: a table shaped like the reference
// design's EventLog, on DynamoDB Local, imported into an embedded store by
// the real binary; twice (the second run writes nothing); and bad items.
#include "storage/dynamodb/eventlog.h"

#include <gtest/gtest.h>
#include <indelible/store.h>

#include <boost/json.hpp>

#include "testutil/dynamodb_server.h"

namespace indelible::dynamodb {
namespace {

namespace json = boost::json;

TEST(EventLogImport, IsoTimesAndDerivedIds) {
  EXPECT_EQ(ParseIsoTimeMs("1970-01-01T00:00:01.5Z"), 1500);
  EXPECT_EQ(ParseIsoTimeMs("2024-01-31T12:00:00Z"), 1706702400000);
  EXPECT_FALSE(ParseIsoTimeMs("2024-01-31 12:00").has_value());
  EXPECT_FALSE(ParseIsoTimeMs("2024-01-31T12:00:00+02:00").has_value());
  EXPECT_EQ(EventLogEventId("a", "1"), EventLogEventId("a", "1"));
  EXPECT_NE(EventLogEventId("a", "1"), EventLogEventId("a", "2"));
  EXPECT_EQ(EventLogEventId("a", "1").ToString()[14], '5') << "a version 5 UUID";
}

class EventLogImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto& server = testutil::SharedDynamoDbServer("local");
    ASSERT_FALSE(server.endpoint().empty()) << server.output();
    ::setenv("AWS_ACCESS_KEY_ID", "import", 1);
    ::setenv("AWS_SECRET_ACCESS_KEY", "import", 1);
    url_ = "dynamodb://127.0.0.1:" + std::to_string(server.port()) + "?region=us-east-1&tls=0";
    aws::ClientOptions o;
    o.endpoint = *net::ParseUrl(server.endpoint());
    o.region = "us-east-1";
    o.credentials = {"import", "import", "", "test"};
    auto client = aws::Client::Create(o);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(*client);
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    table_ = "EventLog_" + name;
    aws::Reply created = client_->Call(
        "CreateTable",
        {{"TableName", table_},
         {"BillingMode", "PAY_PER_REQUEST"},
         {"AttributeDefinitions",
          json::array{{{"AttributeName", "ID"}, {"AttributeType", "S"}},
                      {{"AttributeName", "Sequence"}, {"AttributeType", "N"}}}},
         {"KeySchema", json::array{{{"AttributeName", "ID"}, {"KeyType", "HASH"}},
                                   {{"AttributeName", "Sequence"}, {"KeyType", "RANGE"}}}}});
    ASSERT_TRUE(created.ok()) << created.status.ToString();
  }

  void Put(const std::string& id, int sequence, const std::string& event, json::object timestamp) {
    json::object item{{"ID", {{"S", id}}},
                      {"Sequence", {{"N", std::to_string(sequence)}}},
                      {"Event", {{"S", event}}}};
    if (!timestamp.empty()) item["Timestamp"] = std::move(timestamp);
    aws::Reply put = client_->Call("PutItem", {{"TableName", table_}, {"Item", std::move(item)}});
    ASSERT_TRUE(put.ok()) << put.status.ToString();
  }

  // `indelible --data file:DIR import --from-eventlog URL --table T`.
  int Import(const std::string& dir, std::string* output) {
    return testutil::RunCommand(std::string(INDELIBLE_PATH) + " --data file:" + dir +
                                    " import --from-eventlog '" + url_ + "' --table " + table_,
                                output);
  }

  std::string url_;
  std::string table_;
  std::unique_ptr<aws::Client> client_;
  testutil::TempDir tmp_;
};

TEST_F(EventLogImportTest, EachAggregateBecomesAStreamInSequenceOrder) {
  const std::string given = "0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11";
  Put("BANK_ACCOUNT/1", 1, R"({"type":"AccountCreated","data":{"id":"1"}})",
      {{"N", "1700000000000"}});
  Put("BANK_ACCOUNT/1", 2,
      R"({"Type":"Deposited","Data":{"amount":5},"Metadata":{"user":"ann"},"Id":")" + given +
          R"("})",
      {{"S", "2023-11-14T22:13:21.500Z"}});
  Put("BANK_ACCOUNT/1", 10, R"({"type":"Withdrawn","data":{"amount":2},"schema":"V2"})",
      {{"N", "1700000002"}});  // seconds
  Put("BANK_ACCOUNT/2", 7, R"({"type":"AccountCreated","data":{"id":"2"}})", {});

  std::string output;
  const std::string dir = tmp_.Sub("data");
  ASSERT_EQ(Import(dir, &output), 0) << output;
  EXPECT_NE(output.find("imported 4 events"), std::string::npos) << output;
  ASSERT_EQ(Import(dir, &output), 0) << "a second run is an idempotent retry:\n" << output;

  auto store = Store::Open("file:" + dir);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto one = ReadStreamEvents(**store, "BANK_ACCOUNT/1");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 3u) << "nothing written twice";
  EXPECT_EQ((*one)[0].type, "AccountCreated");
  EXPECT_EQ((*one)[0].timestamp_ms, 1700000000000);
  EXPECT_EQ((*one)[0].id, EventLogEventId("BANK_ACCOUNT/1", "1"));
  EXPECT_EQ((*one)[1].version.value(), 1);
  EXPECT_EQ((*one)[1].data, R"({"amount":5})");
  EXPECT_EQ((*one)[1].metadata, R"({"user":"ann"})");
  EXPECT_EQ((*one)[1].id.ToString(), given);
  EXPECT_EQ((*one)[1].timestamp_ms, 1700000001500);
  EXPECT_EQ((*one)[2].schema, "V2");
  EXPECT_EQ((*one)[2].timestamp_ms, 1700000002000);
  auto two = ReadStreamEvents(**store, "BANK_ACCOUNT/2");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->size(), 1u);
  EXPECT_EQ((*store)->LastPosition().value(), 4u);
}

TEST_F(EventLogImportTest, AnItemNotOfTheLayoutIsNamed) {
  Put("BANK_ACCOUNT/9", 3, "not json", {});
  std::string output;
  EXPECT_NE(Import(tmp_.Sub("data"), &output), 0);
  EXPECT_NE(output.find("BANK_ACCOUNT/9"), std::string::npos) << output;
  EXPECT_NE(output.find("Sequence 3"), std::string::npos) << output;

  std::string missing;
  table_ = "NoSuchEventLog";
  EXPECT_NE(Import(tmp_.Sub("other"), &missing), 0);
  EXPECT_NE(missing.find("not_found"), std::string::npos) << missing;
}

}  // namespace
}  // namespace indelible::dynamodb
