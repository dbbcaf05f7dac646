// Retries, timeouts and connection handling of the client, against a
// scripted server (fake_dynamodb.h): the emulators never throttle.
#include <gtest/gtest.h>

#include "aws/client.h"
#include "fake_dynamodb.h"

namespace indelible::aws {
namespace {

// Short backoffs, so that the tests stay quick: the policy itself is
// errors_test.cc's. The request timeout is long where the scripted server
// answers (a sanitizer build on a loaded machine can stall for a moment:
// a timeout there would be a retry the test does not expect), and short
// only where a test waits for it to fire.
std::unique_ptr<Client> MakeClient(
    const std::string& endpoint, int max_attempts = 5,
    std::chrono::milliseconds request_timeout = std::chrono::milliseconds(5000)) {
  ClientOptions o;
  o.endpoint = *net::ParseUrl(endpoint);
  o.region = "us-east-1";
  o.credentials = {"AKID", "secret", "", "test"};
  o.connect_timeout = std::chrono::milliseconds(1000);
  o.request_timeout = request_timeout;
  o.retry.max_attempts = max_attempts;
  o.retry.base = std::chrono::milliseconds(1);
  o.retry.throttle_base = std::chrono::milliseconds(2);
  o.retry.cap = std::chrono::milliseconds(10);
  return Client::Create(o).value();
}

std::unique_ptr<Client> MakeClient(const std::string& endpoint, RetryOptions retry) {
  ClientOptions o;
  o.endpoint = *net::ParseUrl(endpoint);
  o.region = "us-east-1";
  o.credentials = {"AKID", "secret", "", "test"};
  o.connect_timeout = std::chrono::milliseconds(1000);
  o.request_timeout = std::chrono::milliseconds(5000);
  o.retry = retry;
  return Client::Create(o).value();
}

RetryOptions Quick() {
  RetryOptions retry;
  retry.base = std::chrono::milliseconds(1);
  retry.throttle_base = std::chrono::milliseconds(2);
  retry.cap = std::chrono::milliseconds(10);
  return retry;
}

// The standard mode's quota (retry_strategy.h): 5xx retries take 10 tokens
// each, throttle retries 5; with the bucket empty, the error is returned
// after one attempt; successes fill it again.
TEST(Retry, TheQuotaStopsRetriesWhenSpentAndSuccessesRefillIt) {
  FakeDynamoDb server;
  std::deque<FakeDynamoDb::Answer> script(5, FakeDynamoDb::ServerError());
  server.Script(script);
  RetryOptions retry = Quick();
  retry.quota = 25;
  auto client = MakeClient(server.endpoint(), retry);
  // 25 tokens: two retries (10 each), then the third is refused.
  Reply first = client->Call("PutItem", {});
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.attempts, 3);
  EXPECT_NE(first.status.message().find("the retry quota is spent"), std::string::npos)
      << first.status.message();
  // 5 tokens left: a 5xx retry costs 10, so no retry at all.
  Reply second = client->Call("PutItem", {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.attempts, 1);
  auto c = client->counters();
  EXPECT_EQ(c.quota_refusals, 2u);
  EXPECT_EQ(c.retries, 2u);
  // The script's last error, then successes: each success without a retry
  // gives a token back; 5 of them make 10, enough for one more retry.
  Reply third = client->Call("PutItem", {});
  EXPECT_FALSE(third.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client->Call("PutItem", {}).ok());
  server.Script({FakeDynamoDb::ServerError()});
  Reply fourth = client->Call("PutItem", {});
  ASSERT_TRUE(fourth.ok()) << fourth.status.ToString();
  EXPECT_EQ(fourth.attempts, 2);
}

TEST(Retry, ThrottlesCostLessThanTransientFailures) {
  FakeDynamoDb server;
  server.Script(std::deque<FakeDynamoDb::Answer>(10, FakeDynamoDb::Throttled()));
  RetryOptions retry = Quick();
  retry.quota = 25;
  auto client = MakeClient(server.endpoint(), retry);
  Reply reply = client->Call("GetItem", {});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.attempts, 6);  // 25 tokens: five throttle retries of 5
  EXPECT_EQ(client->counters().throttles, 6u);
}

TEST(Retry, TheDeadlineBoundsTheWholeCall) {
  FakeDynamoDb server;
  FakeDynamoDb::Answer silent;
  silent.no_answer = true;
  server.Script({silent, silent, silent});
  RetryOptions retry = Quick();
  retry.deadline = std::chrono::milliseconds(400);
  auto client = MakeClient(server.endpoint(), retry);  // request timeout 5 s
  const auto start = std::chrono::steady_clock::now();
  Reply reply = client->Call("PutItem", {});
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status.code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status.message().find("deadline of 400 ms"), std::string::npos)
      << reply.status.message();
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_EQ(client->counters().deadline_failures, 1u);
}

TEST(Retry, ExpiredCredentialsSendNothing) {
  FakeDynamoDb server;
  class Expired final : public CredentialsProvider {
   public:
    Result<std::shared_ptr<const Credentials>> Current() const override {
      return Status::Unavailable("the AWS credentials from test expired");
    }
    std::string source() const override { return "test"; }
  };
  ClientOptions o;
  o.endpoint = *net::ParseUrl(server.endpoint());
  o.region = "us-east-1";
  o.credentials_provider = std::make_shared<Expired>();
  auto client = Client::Create(o).value();
  Reply reply = client->Call("PutItem", {});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(reply.attempts, 0);
  EXPECT_EQ(server.requests(), 0);
  EXPECT_EQ(client->counters().credential_failures, 1u);
}

TEST(Retry, ThrottlesAreRetriedAndCounted) {
  FakeDynamoDb server;
  server.Script({FakeDynamoDb::Throttled(), FakeDynamoDb::Throttled()});
  auto client = MakeClient(server.endpoint());
  Reply reply = client->Call("GetItem", {{"TableName", "t"}});
  ASSERT_TRUE(reply.ok()) << reply.status.ToString();
  EXPECT_EQ(reply.attempts, 3);
  const auto c = client->counters();
  EXPECT_EQ(c.calls, 1u);
  EXPECT_EQ(c.requests, 3u);
  EXPECT_EQ(c.retries, 2u);
  EXPECT_EQ(c.throttles, 2u);
  EXPECT_EQ(c.failures, 0u);
  EXPECT_EQ(c.connects, 1u);  // a 400 keeps the connection
  EXPECT_EQ(server.requests(), 3);
}

TEST(Retry, ServerErrorsGiveUpAfterMaxAttempts) {
  FakeDynamoDb server;
  server.Script({FakeDynamoDb::ServerError(), FakeDynamoDb::ServerError(),
                 FakeDynamoDb::ServerError(), FakeDynamoDb::ServerError()});
  auto client = MakeClient(server.endpoint(), 3);
  Reply reply = client->Call("PutItem", {});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status.code(), ErrorCode::kUnavailable);
  EXPECT_EQ(reply.error_type, "InternalServerError");
  EXPECT_NE(reply.status.message().find("(after 3 attempts)"), std::string::npos)
      << reply.status.message();
  EXPECT_EQ(server.requests(), 3);
  EXPECT_EQ(client->counters().failures, 1u);
}

TEST(Retry, ValidationErrorsAreNotRetried) {
  FakeDynamoDb server;
  server.Script({{400, R"({"__type":"com.amazon.coral.validate#ValidationException",
                           "message":"bad"})"}});
  auto client = MakeClient(server.endpoint());
  Reply reply = client->Call("PutItem", {});
  EXPECT_EQ(reply.status.code(), ErrorCode::kInvalid);
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_EQ(server.requests(), 1);
}

TEST(Retry, DamagedBodyIsRetried) {
  FakeDynamoDb server;
  server.Script({{200, R"({"Item":{}})", false, false, true}});
  auto client = MakeClient(server.endpoint());
  Reply reply = client->Call("GetItem", {});
  ASSERT_TRUE(reply.ok()) << reply.status.ToString();
  EXPECT_EQ(reply.attempts, 2);
  EXPECT_EQ(client->counters().retries, 1u);
}

TEST(Retry, NoAnswerTimesOutAndIsRetried) {
  FakeDynamoDb server;
  FakeDynamoDb::Answer silent;
  silent.no_answer = true;
  server.Script({silent});
  auto client = MakeClient(server.endpoint(), 5, std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  Reply reply = client->Call("GetItem", {});
  ASSERT_TRUE(reply.ok()) << reply.status.ToString();
  EXPECT_EQ(reply.attempts, 2);
  // The silent connection was dropped after the timeout, and a new one made.
  EXPECT_EQ(server.connections(), 2);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
}

TEST(Retry, ConnectionRefusedIsUnavailableAfterRetries) {
  std::string endpoint;
  {
    FakeDynamoDb gone;  // a port that was free a moment ago, and is closed now
    endpoint = gone.endpoint();
  }
  auto client = MakeClient(endpoint, 3);
  Reply reply = client->Call("GetItem", {});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status.code(), ErrorCode::kUnavailable);
  EXPECT_NE(reply.status.message().find("connection refused"), std::string::npos)
      << reply.status.message();
  EXPECT_EQ(client->counters().connects, 3u);
  EXPECT_EQ(client->counters().retries, 2u);
}

TEST(Retry, ConnectionClosedWhileIdleIsReplacedQuietly) {
  FakeDynamoDb server;
  FakeDynamoDb::Answer then_close;
  then_close.close_after = true;
  server.Script({then_close});
  auto client = MakeClient(server.endpoint());
  ASSERT_TRUE(client->Call("GetItem", {}).ok());
  // The server closed the pooled connection; the next call notices before
  // sending, and opens another without a retry.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  Reply reply = client->Call("GetItem", {});
  ASSERT_TRUE(reply.ok()) << reply.status.ToString();
  EXPECT_EQ(reply.attempts, 1);
  EXPECT_EQ(client->counters().retries, 0u);
  EXPECT_EQ(server.connections(), 2);
}

}  // namespace
}  // namespace indelible::aws
