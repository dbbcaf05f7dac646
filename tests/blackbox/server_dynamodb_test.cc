// `indelible serve --store dynamodb://...` on DynamoDB Local: the HTTP API
// over the DynamoDB backend, and what /metrics says about its requests.
#include <thread>

#include "blackbox/server_fixture.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

// The value of a metric line "NAME VALUE" in Prometheus text; -1 if absent.
double Metric(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

TEST(ServerOnDynamoDb, AppendsReadsAllAndMetricsOfItsRequests) {
  const std::string url = testutil::DynamoDbTestUrl("server", "&index_poll_ms=10");
  ASSERT_FALSE(url.empty());
  testutil::ServerProcess server(INDELIBLE_PATH, {"serve", "--store", url});
  ASSERT_TRUE(server.Start()) << server.output();
  HttpClient http(server.port());
  // Opening wrote the table's layout marker and the index's first state.
  const std::string kPutUnits =
      "indelible_store_capacity_units_total{caller=\"store\",operation=\"PutItem\",kind="
      "\"write\",source=\"reported\"}";
  const double puts_at_start = Metric(http.Get("/metrics").body, kPutUnits);

  HttpResponse created =
      http.Post("/streams/acct-1", EventJson("Opened"), {{"If-None-Match", "*"}});
  ASSERT_EQ(created.status, 201u) << created.body;
  EXPECT_EQ(created.Header("ETag"), "\"0\"");
  HttpResponse second = http.Post("/streams/acct-1", EventJson("Deposited", R"({"amount":5})"),
                                  {{"If-Match", "\"0\""}});
  ASSERT_EQ(second.status, 201u) << second.body;
  HttpResponse stale =
      http.Post("/streams/acct-1", EventJson("Deposited"), {{"If-Match", "\"0\""}});
  EXPECT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(stale.Header("ETag"), "\"1\"");

  HttpResponse read = http.Get("/streams/acct-1");
  ASSERT_EQ(read.status, 200u) << read.body;
  EXPECT_EQ(EventsOf(read.Json()).size(), 2u);
  // $all follows the commit: both events show once indexed, in order.
  std::vector<json::object> all;
  for (int i = 0; i < 100 && all.size() < 2; ++i) {
    all = EventsOf(http.Get("/all").Json());
    if (all.size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(IntOf(all[0], "position"), 1);
  EXPECT_EQ(IntOf(all[1], "version"), 1);

  const std::string metrics = http.Get("/metrics").body;
  EXPECT_GE(Metric(metrics, "indelible_store_requests_total"), 3) << metrics;
  EXPECT_EQ(Metric(metrics, "indelible_store_throttles_total"), 0) << metrics;
  EXPECT_GE(Metric(metrics, "indelible_store_index_lag_seconds"), 0) << metrics;
  EXPECT_EQ(Metric(metrics, "indelible_store_last_position"), 2) << metrics;
  // Two appends billed at least a unit each; the reads and the indexer too.
  EXPECT_GE(Metric(metrics, "indelible_store_write_units_total"), 2) << metrics;
  EXPECT_GT(Metric(metrics, "indelible_store_read_units_total"), 0) << metrics;
  EXPECT_GT(Metric(metrics, "indelible_store_index_units_total"), 0) << metrics;
  // By operation and caller: two puts, the first also writing the listing
  // index's entry of the new stream; the stale append was refused from the
  // head cache, before any write.
  EXPECT_EQ(Metric(metrics, kPutUnits) - puts_at_start, 3) << metrics;
  EXPECT_GE(Metric(metrics, "indelible_store_index_polls_total"), 1) << metrics;

  // A second server knows nothing of acct-1: its append bets on a new
  // stream, the put is refused by version 0's item (billed by AWS, reported
  // by nobody: estimated), and it appends after the head it then reads.
  testutil::ServerProcess other(INDELIBLE_PATH, {"serve", "--store", url});
  ASSERT_TRUE(other.Start()) << other.output();
  HttpClient other_http(other.port());
  HttpResponse third = other_http.Post("/streams/acct-1", EventJson("Deposited"));
  ASSERT_EQ(third.status, 201u) << third.body;
  EXPECT_EQ(third.Header("ETag"), "\"2\"");
  const std::string other_metrics = other_http.Get("/metrics").body;
  EXPECT_GE(Metric(other_metrics,
                   "indelible_store_condition_failures_total{caller=\"store\","
                   "operation=\"PutItem\"}"),
            1)
      << other_metrics;
  EXPECT_GE(Metric(other_metrics,
                   "indelible_store_capacity_units_total{caller=\"store\","
                   "operation=\"PutItem\",kind=\"write\",source=\"estimated\"}"),
            1)
      << other_metrics;
}

}  // namespace
}  // namespace indelible
