// The real `indelible serve` on DynamoDB (DynamoDB Local behind the fake's
// front) while the front throttles 30 % of its requests for 10 s, as a table
// over its capacity does: appends from several threads with client-made
// ids go on, every acknowledged append is stored exactly once, and
// /metrics shows the throttles, the retries and the retry quota.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dynamodb/fake_aws.h"
#include "testutil/dynamodb_server.h"
#include "testutil/temp_dir.h"

namespace indelible::testutil {
namespace {

TEST(ThrottleTest, AcknowledgedAppendsAreStoredOnceThroughThrottling) {
  auto& dynamodb = SharedDynamoDbServer("local");
  ASSERT_FALSE(dynamodb.endpoint().empty()) << dynamodb.output();
  FakeAws fake({.dynamodb = dynamodb.endpoint()});
  ASSERT_TRUE(fake.Start()) << fake.output();

  TempDir tmp;
  const std::string home = tmp.Sub("home");
  std::filesystem::create_directories(home);
  static const unsigned run = std::random_device()() % 100000;
  const std::string prefix = "throttle_" + std::to_string(run) + "_";
  if (std::getenv("INDELIBLE_DYNAMODB_LOCAL_ENDPOINT_FILE") != nullptr)
    DropTablesAtExit(dynamodb.endpoint(), prefix);
  // Static keys (the emulator checks none) in an environment of its own.
  std::vector<std::string> env = IsolatedServer::SanitizerEnv();
  for (const std::string& v :
       {"HOME=" + home, "AWS_CONFIG_FILE=" + home + "/no-config",
        "AWS_SHARED_CREDENTIALS_FILE=" + home + "/no-credentials",
        std::string("AWS_EC2_METADATA_DISABLED=true"), std::string("AWS_ACCESS_KEY_ID=test"),
        std::string("AWS_SECRET_ACCESS_KEY=test")})
    env.push_back(v);
  IsolatedServer server(INDELIBLE_PATH,
                        {"--data",
                         "dynamodb://127.0.0.1:" + std::to_string(fake.dynamodb_port()) +
                             "?region=eu-test-1&prefix=" + prefix + "&tls=0",
                         "serve", "--listen", "127.0.0.1:0"},
                        env, tmp.Sub("server.log"));
  ASSERT_TRUE(server.Start()) << server.LogTail();

  // 5 s of appends, 10 s of them with 30 % throttled, 5 s more.
  const auto start = std::chrono::steady_clock::now();
  AppendLoadResult load;
  std::thread appender([&] {
    load = RunAppendLoad(server.url(), "throttled", 8, start + std::chrono::seconds(20));
  });
  std::this_thread::sleep_for(std::chrono::seconds(5));
  const boost::json::object before = fake.Stats();
  EXPECT_TRUE(fake.Throttle(0.3, 10));  // no ASSERT: the appender must be joined
  std::this_thread::sleep_for(std::chrono::seconds(10));
  const boost::json::object during = fake.Stats();
  appender.join();
  const boost::json::object stats = fake.Stats();

  EXPECT_GT(load.acknowledged, 0u);
  EXPECT_EQ(load.failed, 0u) << "appends failed although each had attempts left: "
                             << ::testing::PrintToString(load.failures) << "\n"
                             << server.LogTail();
  ASSERT_FALSE(stats.empty());
  EXPECT_GT(stats.at("throttled").as_int64(), 0) << boost::json::serialize(stats);

  // Every acknowledged id exactly once in its stream; an append that failed
  // may or may not have been stored, but once at most.
  std::uint64_t read = 0;
  for (const auto& [stream, acknowledged] : load.ids) {
    std::string error;
    const auto stored = ReadStreamIds(server.url(), stream, &error);
    ASSERT_TRUE(stored.has_value()) << stream << ": " << error;
    std::map<std::string, int> times;
    for (const std::string& id : *stored) ++times[id];
    for (const auto& [id, n] : times)
      EXPECT_EQ(n, 1) << stream << " holds " << id << " " << n << " times";
    for (const std::string& id : acknowledged) {
      EXPECT_EQ(times.count(id), 1u) << stream << " lost acknowledged " << id;
    }
    if (stored->size() > acknowledged.size()) {
      EXPECT_LE(stored->size() - acknowledged.size(), load.failed) << stream;
    }
    read += acknowledged.size();
  }
  EXPECT_EQ(read, load.acknowledged);

  net::HttpClientOptions o;
  o.endpoint = *net::ParseUrl(server.url());
  auto client = net::HttpClient::Create(o);
  ASSERT_TRUE(client.ok());
  net::Exchange metrics =
      (*client)->Send((*client)->MakeRequest(net::http::verb::get, "/metrics"), net::RetryPolicy{});
  ASSERT_TRUE(metrics.ok()) << metrics.status.ToString();
  const std::string& text = metrics.response.body();
  EXPECT_GT(MetricValue(text, "indelible_store_throttles_total").value_or(0), 0) << text;
  EXPECT_GT(MetricValue(text, "indelible_store_retries_total").value_or(0), 0) << text;
  EXPECT_TRUE(MetricValue(text, "indelible_store_retry_quota_refusals_total").has_value()) << text;
  const long long window_requests =
      during.empty() || before.empty()
          ? -1
          : during.at("requests").as_int64() - before.at("requests").as_int64();
  std::printf(
      "%llu appends; the front had %lld requests in the 10 s window and throttled %lld, %lld "
      "requests in all; the server counted %.0f throttles, %.0f retries, %.0f quota refusals\n",
      static_cast<unsigned long long>(load.acknowledged), window_requests,
      static_cast<long long>(stats.at("throttled").as_int64()),
      static_cast<long long>(stats.at("requests").as_int64()),
      MetricValue(text, "indelible_store_throttles_total").value_or(-1),
      MetricValue(text, "indelible_store_retries_total").value_or(-1),
      MetricValue(text, "indelible_store_retry_quota_refusals_total").value_or(-1));
  EXPECT_EQ(server.Stop(), 0) << server.LogTail();
}

}  // namespace
}  // namespace indelible::testutil
