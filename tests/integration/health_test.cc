// /health and /metrics tell the truth about the store: once a sync of the
// log failed, the embedded store refuses every write until the process
// restarts, and the server must say so (503 "failed" with the reason)
// instead of "ok". The server runs in this process, on a store whose syncs
// a test file system fails on command (testutil/gated_file_system.h).
#include <gtest/gtest.h>
#include <indelible/store.h>

#include <boost/json.hpp>

#include "storage/embedded/embedded_store.h"
#include "testutil/gated_file_system.h"
#include "testutil/in_process_server.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;

TEST(HealthTest, AFailedSyncTurnsHealthToFailedWithTheReason) {
  testutil::TempDir tmp;
  testutil::SyncGate gate;
  auto env = rocksdb::NewCompositeEnv(std::make_shared<testutil::GatedFileSystem>(gate));
  auto store = storage::OpenEmbeddedStoreOnEnv(tmp.Sub("store"), {}, env.get());
  ASSERT_TRUE(store.ok()) << store.status().ToString();

  ServeOptions options;
  options.io_threads = 2;
  testutil::InProcessServer server(**store, options);
  ASSERT_TRUE(server.AwaitListening());
  testutil::HttpClient client(server.port(), 10s);
  auto health = client.Get("/health");
  ASSERT_EQ(health.status, 200u) << health.error << health.body;
  ASSERT_EQ(client.Post("/streams/acct-1", R"({"type":"Opened","data":{}})").status, 201u);

  gate.FailSyncs(true);
  auto refused = client.Post("/streams/acct-1", R"({"type":"Deposited","data":{}})");
  EXPECT_EQ(refused.status, 503u) << refused.body;

  health = client.Get("/health");
  EXPECT_EQ(health.status, 503u) << health.body;
  const auto body = health.Json();
  ASSERT_TRUE(body.is_object()) << health.body;
  EXPECT_EQ(body.at("status"), "failed") << health.body;
  ASSERT_TRUE(body.at("reason").is_string()) << health.body;
  EXPECT_NE(std::string(body.at("reason").as_string()).find("sync"), std::string::npos)
      << health.body;

  auto metrics = client.Get("/metrics");
  EXPECT_NE(metrics.body.find("\nindelible_store_write_failed 1\n"), std::string::npos);

  // Reads go on: the event acknowledged before the failure is there.
  auto read = client.Get("/streams/acct-1");
  EXPECT_EQ(read.status, 200u) << read.body;

  client.Close();
  Status stopped = server.Stop();
  EXPECT_TRUE(stopped.ok()) << stopped.ToString();
}

}  // namespace
}  // namespace indelible
