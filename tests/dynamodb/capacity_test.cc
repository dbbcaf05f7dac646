// Capacity units (src/aws/capacity.h, item_size.h): which operations are
// asked for their consumed capacity, how the request asks, how answers of
// one table or several are added up, what a write refused by its condition
// is estimated to cost; and, on DynamoDB Local, that the sizes the client
// reckons are the ones DynamoDB Local bills, and that the client's counters
// keep what DynamoDB reports apart from what the client estimates.
#include "aws/capacity.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>
#include <thread>

#include "aws/client.h"
#include "aws/item_size.h"
#include "testutil/dynamodb_server.h"

namespace indelible::aws {
namespace {

TEST(Capacity, ReadsWritesAndOperationsThatTakeNone) {
  EXPECT_EQ(CapacityKindOf("GetItem"), CapacityKind::kRead);
  EXPECT_EQ(CapacityKindOf("Query"), CapacityKind::kRead);
  EXPECT_EQ(CapacityKindOf("UpdateItem"), CapacityKind::kWrite);
  EXPECT_EQ(CapacityKindOf("TransactWriteItems"), CapacityKind::kWrite);
  EXPECT_EQ(CapacityKindOf("BatchWriteItem"), CapacityKind::kWrite);
  EXPECT_EQ(CapacityKindOf("DescribeTable"), CapacityKind::kNone);
  EXPECT_EQ(CapacityKindOf("GetRecords"), CapacityKind::kNone);  // the Streams API
}

TEST(Capacity, TheRequestAsksForTheTotalOnce) {
  const std::string asked = AskConsumedCapacity(R"({"TableName":"t","Key":{"s":{"S":"a}"}}})");
  const auto parsed = boost::json::parse(asked).as_object();
  EXPECT_EQ(parsed.at("ReturnConsumedCapacity"), "TOTAL");
  EXPECT_EQ(parsed.at("TableName"), "t");
  EXPECT_EQ(boost::json::parse(AskConsumedCapacity("{}")).as_object().at("ReturnConsumedCapacity"),
            "TOTAL");
  const std::string own = R"({"TableName":"t","ReturnConsumedCapacity":"INDEXES"})";
  EXPECT_EQ(AskConsumedCapacity(own), own);
}

TEST(Capacity, AnswersOfOneTableOrSeveral) {
  auto units = [](const char* answer) {
    return ConsumedUnits(boost::json::parse(answer).as_object());
  };
  EXPECT_DOUBLE_EQ(units(R"({"ConsumedCapacity":{"TableName":"t","CapacityUnits":12.0}})"), 12.0);
  EXPECT_DOUBLE_EQ(units(R"({"ConsumedCapacity":{"TableName":"t","CapacityUnits":3}})"), 3.0);
  EXPECT_DOUBLE_EQ(units(R"({"ConsumedCapacity":[{"TableName":"a","CapacityUnits":0.5},
                                                  {"TableName":"b","CapacityUnits":4.0}]})"),
                   4.5);
  EXPECT_DOUBLE_EQ(units(R"({"Item":{}})"), 0.0);
  EXPECT_DOUBLE_EQ(units(R"({"ConsumedCapacity":{"CapacityUnits":"x"}})"), 0.0);
}

namespace json = boost::json;

RefusedWrite Refused(std::string_view operation, std::string_view error_type, const char* request,
                     const char* error) {
  return RefusedWriteEstimate(operation, error_type, json::parse(request).as_object(),
                              json::parse(error).as_object());
}

// A string of `n` bytes.
std::string Bytes(std::size_t n) { return std::string(n, 'x'); }

TEST(Capacity, ARefusedWriteCostsTheItemThatIsThere) {
  // ALL_OLD: the error carries the item there, 2000 bytes and change: 2 units.
  const std::string old_item = R"({"Item":{"k":{"S":"a"},"p":{"S":")" + Bytes(2000) + R"("}}})";
  RefusedWrite put =
      Refused("PutItem", "ConditionalCheckFailedException",
              R"({"Item":{"k":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"})",
              old_item.c_str());
  EXPECT_TRUE(put.refused);
  EXPECT_DOUBLE_EQ(put.estimated_write_units, 2.0);
  // ALL_OLD and no Item: nothing is there, 1 unit, whatever the request wrote.
  const std::string big_put = R"({"Item":{"k":{"S":")" + Bytes(5000) +
                              R"("}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"})";
  EXPECT_DOUBLE_EQ(Refused("PutItem", "ConditionalCheckFailedException", big_put.c_str(), "{}")
                       .estimated_write_units,
                   1.0);
  // Not asked: a PutItem is reckoned at its own item, 5 KB here.
  const std::string unasked = R"({"Item":{"k":{"S":")" + Bytes(5000) + R"("}}})";
  EXPECT_DOUBLE_EQ(Refused("PutItem", "ConditionalCheckFailedException", unasked.c_str(), "{}")
                       .estimated_write_units,
                   5.0);
  // ... and an UpdateItem or DeleteItem at the minimum.
  RefusedWrite update =
      Refused("UpdateItem", "ConditionalCheckFailedException", R"({"Key":{"k":{"S":"a"}}})", "{}");
  EXPECT_TRUE(update.refused);
  EXPECT_DOUBLE_EQ(update.estimated_write_units, 1.0);
  EXPECT_DOUBLE_EQ(
      Refused("UpdateItem", "ConditionalCheckFailedException",
              R"({"Key":{"k":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"})",
              old_item.c_str())
          .estimated_write_units,
      2.0);
}

TEST(Capacity, OtherErrorsAreNoRefusedWrites) {
  EXPECT_FALSE(Refused("PutItem", "ValidationException", R"({"Item":{}})", "{}").refused);
  EXPECT_FALSE(
      Refused("PutItem", "ProvisionedThroughputExceededException", R"({"Item":{}})", "{}").refused);
  // A transaction canceled for something else than a condition.
  EXPECT_FALSE(Refused("TransactWriteItems", "TransactionCanceledException",
                       R"({"TransactItems":[{"Put":{"Item":{}}}]})",
                       R"({"CancellationReasons":[{"Code":"TransactionConflict"}]})")
                   .refused);
}

TEST(Capacity, ACanceledTransactionCostsTwoUnitsPerKilobyteOfEachItem) {
  // The failed Put: the item there (ALL_OLD), 2 KB and change: 2 x 3. The
  // other Put: its own item, 1 KB: 2 x 1. The Update, no item known: 2 x 1.
  const std::string request =
      R"({"TransactItems":[
           {"Put":{"Item":{"k":{"S":"a"}},"ReturnValuesOnConditionCheckFailure":"ALL_OLD"}},
           {"Put":{"Item":{"k":{"S":")" +
      Bytes(1000) + R"("}}}},
           {"Update":{"Key":{"k":{"S":"c"}}}}]})";
  const std::string error = R"({"CancellationReasons":[
      {"Code":"ConditionalCheckFailed","Item":{"k":{"S":"a"},"p":{"S":")" +
                            Bytes(2100) + R"("}}},{"Code":"None"},{"Code":"None"}]})";
  RefusedWrite refused =
      Refused("TransactWriteItems", "TransactionCanceledException", request.c_str(), error.c_str());
  EXPECT_TRUE(refused.refused);
  EXPECT_DOUBLE_EQ(refused.estimated_write_units, 2.0 * 3 + 2.0 * 1 + 2.0 * 1);
}

// On DynamoDB Local: what it bills beside what the client reckons.
class CapacityOnDynamoDbLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = &testutil::SharedDynamoDbServer("local");
    ASSERT_FALSE(server_->endpoint().empty()) << "DynamoDB Local did not start:\n"
                                              << server_->output();
    ClientOptions o;
    o.endpoint = *net::ParseUrl(server_->endpoint());
    o.region = "us-east-1";
    o.credentials = {"AKIDTEST", "secret", "", "test"};
    auto client = Client::Create(o);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(*client);
    table_ = std::string("capacity_") +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
             std::to_string(std::random_device()() % 100000);
    Reply created = client_->Call(
        "CreateTable",
        {{"TableName", table_},
         {"BillingMode", "PAY_PER_REQUEST"},
         {"AttributeDefinitions", json::array{{{"AttributeName", "k"}, {"AttributeType", "S"}}}},
         {"KeySchema", json::array{{{"AttributeName", "k"}, {"KeyType", "HASH"}}}}});
    ASSERT_TRUE(created.ok()) << created.status.ToString();
  }
  void TearDown() override {
    if (client_) (void)client_->Call("DeleteTable", {{"TableName", table_}});
  }

  // An item under `key` of every kind of value, padded to exactly `size`
  // bytes by ItemSize's reckoning.
  static json::object ItemOfSize(const std::string& key, std::uint64_t size) {
    json::object item = json::parse(R"({
        "n": {"N": "-123.456"}, "big": {"N": "12345678901234567890"}, "zero": {"N": "0"},
        "b": {"B": "aGVsbG8h"}, "ok": {"BOOL": true}, "none": {"NULL": true},
        "m": {"M": {"a": {"M": {"b": {"S": "c"}}}, "l": {"L": [{"N": "1e10"}, {"S": ""}]}}},
        "ss": {"SS": ["x", "yz"]}, "ns": {"NS": ["0.001", "-1"]}, "bs": {"BS": ["aA=="]},
        "é": {"S": "€"}})")
                            .as_object();
    item["k"] = {{"S", key}};
    const std::uint64_t without_padding = ItemSize(item) + 1;  // the name "p"
    EXPECT_GE(size, without_padding);
    item["p"] = {{"S", std::string(size - without_padding, '.')}};
    EXPECT_EQ(ItemSize(item), size);
    return item;
  }

  // The units DynamoDB Local reported for a successful call.
  double Units(const char* operation, json::object request) {
    Reply reply = client_->Call(operation, request);
    EXPECT_TRUE(reply.ok()) << operation << ": " << reply.status.ToString();
    return ConsumedUnits(reply.body);
  }
  double Put(json::object item) {
    return Units("PutItem", {{"TableName", table_}, {"Item", std::move(item)}});
  }

  OperationCounters Counters(std::string_view operation) const {
    for (const OperationCounters& counters : client_->counters().operations)
      if (counters.operation == operation) return counters;
    return {};
  }

  testutil::DynamoDbServer* server_ = nullptr;
  std::unique_ptr<Client> client_;
  std::string table_;
};

TEST_F(CapacityOnDynamoDbLocal, PutItemIsBilledOnTheSizeTheClientReckons) {
  // Either side of each KB boundary: the sizes agree to the byte.
  int n = 0;
  double reported = 0;
  for (const std::uint64_t size : {200, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 4097, 10000}) {
    const double units = Put(ItemOfSize("put-" + std::to_string(n++), size));
    EXPECT_DOUBLE_EQ(units, static_cast<double>(WriteUnits(size))) << size << " bytes";
    reported += units;
  }
  const OperationCounters puts = Counters("PutItem");
  EXPECT_EQ(puts.calls, 10u);
  EXPECT_DOUBLE_EQ(puts.write_units, reported);
  EXPECT_DOUBLE_EQ(puts.read_units, 0);
  EXPECT_EQ(puts.condition_failures, 0u);
  EXPECT_DOUBLE_EQ(puts.estimated_write_units, 0);
}

TEST_F(CapacityOnDynamoDbLocal, AnUpdateIsBilledOnTheLargerImage) {
  ASSERT_DOUBLE_EQ(Put(ItemOfSize("grows", 1000)), 1.0);
  // 1000 bytes before, 2100 after: 3 units; then back to about 500: still 3.
  const json::object big = ItemOfSize("grows", 2100);
  const double grown = Units("UpdateItem", {{"TableName", table_},
                                            {"Key", {{"k", {{"S", "grows"}}}}},
                                            {"UpdateExpression", "SET p = :p"},
                                            {"ExpressionAttributeValues", {{":p", big.at("p")}}}});
  EXPECT_DOUBLE_EQ(grown, static_cast<double>(WriteUnits(2100)));
  const double shrunk = Units("UpdateItem", {{"TableName", table_},
                                             {"Key", {{"k", {{"S", "grows"}}}}},
                                             {"UpdateExpression", "REMOVE p"}});
  EXPECT_DOUBLE_EQ(shrunk, static_cast<double>(WriteUnits(2100)));
  const OperationCounters updates = Counters("UpdateItem");
  EXPECT_EQ(updates.calls, 2u);
  EXPECT_DOUBLE_EQ(updates.write_units, grown + shrunk);
}

TEST_F(CapacityOnDynamoDbLocal, ReadsAreBilledPer4Kilobytes) {
  ASSERT_GT(Put(ItemOfSize("read", 5000)), 0);
  const json::object key = {{"k", {{"S", "read"}}}};
  EXPECT_DOUBLE_EQ(
      Units("GetItem", {{"TableName", table_}, {"Key", key}, {"ConsistentRead", true}}),
      ReadUnits(5000, true));
  EXPECT_DOUBLE_EQ(Units("GetItem", {{"TableName", table_}, {"Key", key}}), ReadUnits(5000, false));
  const OperationCounters gets = Counters("GetItem");
  EXPECT_EQ(gets.calls, 2u);
  EXPECT_DOUBLE_EQ(gets.read_units, ReadUnits(5000, true) + ReadUnits(5000, false));
  EXPECT_DOUBLE_EQ(gets.write_units, 0);
}

TEST_F(CapacityOnDynamoDbLocal, ARefusedWriteIsCountedAndEstimatedNotReported) {
  ASSERT_DOUBLE_EQ(Put(ItemOfSize("there", 1500)), 2.0);
  const OperationCounters before = Counters("PutItem");
  // A small item where a 1500-byte one is: DynamoDB reports nothing; the
  // item there (ALL_OLD) is what AWS bills, 2 units.
  Reply refused = client_->Call("PutItem", {{"TableName", table_},
                                            {"Item", ItemOfSize("there", 300)},
                                            {"ConditionExpression", "attribute_not_exists(k)"},
                                            {"ReturnValuesOnConditionCheckFailure", "ALL_OLD"}});
  ASSERT_EQ(refused.error_type, "ConditionalCheckFailedException") << refused.status.ToString();
  EXPECT_DOUBLE_EQ(ConsumedUnits(refused.body), 0);
  OperationCounters after = Counters("PutItem");
  EXPECT_EQ(after.calls, before.calls + 1);
  EXPECT_DOUBLE_EQ(after.write_units, before.write_units);
  EXPECT_EQ(after.condition_failures, 1u);
  EXPECT_DOUBLE_EQ(after.estimated_write_units, 2.0);
  // Without ALL_OLD the item there is unknown: reckoned at the one written.
  refused = client_->Call("PutItem", {{"TableName", table_},
                                      {"Item", ItemOfSize("there", 300)},
                                      {"ConditionExpression", "attribute_not_exists(k)"}});
  ASSERT_EQ(refused.error_type, "ConditionalCheckFailedException");
  after = Counters("PutItem");
  EXPECT_EQ(after.condition_failures, 2u);
  EXPECT_DOUBLE_EQ(after.estimated_write_units, 2.0 + 1.0);
  EXPECT_DOUBLE_EQ(after.write_units, before.write_units);
  EXPECT_DOUBLE_EQ(client_->counters().write_units, before.write_units);

  // A transaction whose condition fails: 2 units per KB of each item.
  Reply canceled = client_->Call(
      "TransactWriteItems",
      {{"TransactItems",
        json::array{{{"Put",
                      {{"TableName", table_},
                       {"Item", ItemOfSize("there", 300)},
                       {"ConditionExpression", "attribute_not_exists(k)"},
                       {"ReturnValuesOnConditionCheckFailure", "ALL_OLD"}}}},
                    {{"Put", {{"TableName", table_}, {"Item", ItemOfSize("new", 1100)}}}}}}});
  ASSERT_EQ(canceled.error_type, "TransactionCanceledException") << canceled.status.ToString();
  const OperationCounters transactions = Counters("TransactWriteItems");
  EXPECT_EQ(transactions.calls, 1u);
  EXPECT_EQ(transactions.condition_failures, 1u);
  EXPECT_DOUBLE_EQ(transactions.write_units, 0);
  EXPECT_DOUBLE_EQ(transactions.estimated_write_units, 2.0 * 2 + 2.0 * 2);
}

}  // namespace
}  // namespace indelible::aws
