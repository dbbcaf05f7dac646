// DynamoDB's error documents onto our error vocabulary, and the back-off
// policy between retries.
#include "aws/errors.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <random>

#include "net/retry.h"

namespace indelible::aws {
namespace {

Status Map(std::string_view json, int http_status = 400, std::string_view op = "PutItem") {
  return MapError("http://127.0.0.1:8000", op, http_status, boost::json::parse(json).as_object());
}

TEST(Errors, TypesMapOntoTheVocabulary) {
  const auto conflict = Map(
      R"({"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
          "Message":"The conditional request failed"})");
  EXPECT_EQ(conflict.code(), ErrorCode::kConflict);
  EXPECT_EQ(conflict.message(),
            "DynamoDB PutItem failed: ConditionalCheckFailedException: The conditional request "
            "failed");
  EXPECT_EQ(Map(R"({"__type":"x#ResourceNotFoundException","message":"no table"})").code(),
            ErrorCode::kNotFound);
  const auto invalid = Map(R"({"__type":"com.amazon.coral.validate#ValidationException"})");
  EXPECT_EQ(invalid.code(), ErrorCode::kInvalid);
  EXPECT_EQ(invalid.field(), "request");
  EXPECT_EQ(Map(R"({"__type":"x#ValidationException",
                    "message":"Item size has exceeded the maximum allowed size"})")
                .code(),
            ErrorCode::kTooLarge);
  EXPECT_EQ(Map(R"({"__type":"x#UnrecognizedClientException"})").code(), ErrorCode::kUnauthorized);
  EXPECT_EQ(Map(R"({"__type":"x#ProvisionedThroughputExceededException"})").code(),
            ErrorCode::kUnavailable);
  EXPECT_EQ(Map(R"({"__type":"x#InternalServerError"})", 500).code(), ErrorCode::kUnavailable);
  EXPECT_EQ(Map(R"({"__type":"x#SerializationException"})").code(), ErrorCode::kInternal);
  const auto unknown = Map(R"({"__type":"com.amazon.coral.service#UnknownOperationException"})",
                           400, "TransactWriteItems");
  EXPECT_EQ(unknown.code(), ErrorCode::kInvalid);
  EXPECT_NE(unknown.message().find(
                "the DynamoDB endpoint http://127.0.0.1:8000 does not support TransactWriteItems"),
            std::string::npos)
      << unknown.message();
}

TEST(Errors, TransactionCancellationReasons) {
  const auto doc = boost::json::parse(R"({
    "__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
    "Message":"Transaction cancelled [None, ConditionalCheckFailed]",
    "CancellationReasons":[{"Code":"None"},
      {"Code":"ConditionalCheckFailed","Message":"The conditional request failed",
       "Item":{"version":{"N":"7"}}}]})")
                       .as_object();
  const auto reasons = CancellationReasons(doc);
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[0].code, "None");
  EXPECT_EQ(reasons[1].code, "ConditionalCheckFailed");
  EXPECT_EQ(reasons[1].item.at("version").at("N").as_string(), "7");
  const auto status = MapError("e", "TransactWriteItems", 400, doc);
  EXPECT_EQ(status.code(), ErrorCode::kConflict);
  EXPECT_NE(status.message().find("[None, ConditionalCheckFailed]"), std::string::npos);
  EXPECT_EQ(Map(R"({"__type":"x#TransactionCanceledException",
                    "CancellationReasons":[{"Code":"TransactionConflict"}]})")
                .code(),
            ErrorCode::kUnavailable);
}

TEST(Errors, WhatIsRetried) {
  EXPECT_TRUE(IsThrottle("ProvisionedThroughputExceededException"));
  EXPECT_TRUE(IsThrottle("ThrottlingException"));
  EXPECT_TRUE(IsThrottle("RequestLimitExceeded"));
  EXPECT_FALSE(IsThrottle("ConditionalCheckFailedException"));
  EXPECT_TRUE(IsRetryable(500, "InternalServerError"));
  EXPECT_TRUE(IsRetryable(503, ""));
  EXPECT_TRUE(IsRetryable(400, "TransactionConflictException"));
  EXPECT_FALSE(IsRetryable(400, "ValidationException"));
  EXPECT_FALSE(IsRetryable(400, "TransactionCanceledException"));
}

TEST(Backoff, CeilingDoublesUpToTheCap) {
  net::RetryPolicy p;
  p.max_attempts = 10;
  p.base = std::chrono::milliseconds(25);
  p.cap = std::chrono::milliseconds(1000);
  EXPECT_EQ(net::BackoffCeiling(p, 1).count(), 25);
  EXPECT_EQ(net::BackoffCeiling(p, 2).count(), 50);
  EXPECT_EQ(net::BackoffCeiling(p, 3).count(), 100);
  EXPECT_EQ(net::BackoffCeiling(p, 6).count(), 800);
  EXPECT_EQ(net::BackoffCeiling(p, 7).count(), 1000);
  EXPECT_EQ(net::BackoffCeiling(p, 1000).count(), 1000);  // no overflow
}

TEST(Backoff, FullJitterSpreadsOverTheWholeRange) {
  net::RetryPolicy p;
  p.max_attempts = 10;
  p.base = std::chrono::milliseconds(25);
  p.cap = std::chrono::milliseconds(1000);
  std::mt19937_64 random(42);
  std::int64_t low = 1 << 30, high = -1;
  double sum = 0;
  constexpr int kDraws = 20000;
  for (int i = 0; i < kDraws; ++i) {
    const auto d = net::BackoffDelay(p, 4, random()).count();  // ceiling 200
    ASSERT_GE(d, 0);
    ASSERT_LE(d, 200);
    low = std::min(low, d);
    high = std::max(high, d);
    sum += static_cast<double>(d);
  }
  // Uniform over [0, 200]: both ends are reached, and the mean is near 100.
  EXPECT_EQ(low, 0);
  EXPECT_EQ(high, 200);
  EXPECT_NEAR(sum / kDraws, 100.0, 3.0);
}

}  // namespace
}  // namespace indelible::aws
