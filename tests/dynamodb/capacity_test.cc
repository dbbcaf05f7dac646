// Capacity units (src/storage/dynamodb/capacity.h): which operations are
// asked for their consumed capacity, how the request asks, and how answers
// of one table or several are added up.
#include "aws/capacity.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

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

}  // namespace
}  // namespace indelible::aws
