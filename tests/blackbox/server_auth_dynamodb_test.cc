// API keys on a DynamoDB deployment (docs/SECURITY.md, "API keys"): two
// servers on one table see the same keys, and a key revoked through one is
// refused by the other within its key cache's lifetime.
#include "blackbox/auth_fixture.h"
#include "testutil/dynamodb_server.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;

TEST(AuthOnDynamoDb, ARevocationReachesTheOtherServerWithinTheKeyCache) {
  const std::string url = testutil::DynamoDbTestUrl("auth", "&index_poll_ms=10");
  ASSERT_FALSE(url.empty());
  testutil::TempDir tmp;
  const std::string key_file = tmp.Sub("admin.key");
  const auto serve = [&](const std::string& name) {
    std::filesystem::create_directories(tmp.Sub(name));
    return std::make_unique<Launched>(
        INDELIBLE_PATH,
        std::vector<std::string>{"serve", "--store", url, "--listen", "127.0.0.1:0", "--auth",
                                 "--key-cache-ms", "500", "--bootstrap-key-file", key_file},
        tmp.Sub(name));
  };
  // A makes the admin key; B finds it registered in the table.
  auto a = serve("a");
  ASSERT_TRUE(a->Start()) << a->output();
  auto b = serve("b");
  ASSERT_TRUE(b->Start()) << b->output();
  std::string admin;
  std::getline(std::ifstream(key_file), admin);
  HttpClient on_a(a->port()), on_b(b->port());

  const HttpResponse made =
      on_a.Post("/keys", R"({"name":"shared","roles":["writer"]})", Bearer(admin));
  ASSERT_EQ(made.status, 201u) << made.body;
  const std::string key = StringOf(made.Json().as_object(), "key");
  ASSERT_EQ(on_a.Post("/streams/orders-1", EventJson("A"), Bearer(key)).status, 201u);
  ASSERT_EQ(on_b.Post("/streams/orders-1", EventJson("B"), Bearer(key)).status, 201u);
  // Both servers hold it in their caches now; B's answer just before the
  // revoke is an acceptance, so the refusal below is the revoke's doing.
  ASSERT_EQ(on_b.Get("/streams/orders-1", Bearer(key)).status, 200u);
  const HttpResponse revoked = on_a.Delete("/keys/" + key.substr(4, 16), Bearer(admin));
  const auto at = std::chrono::steady_clock::now();
  ASSERT_EQ(revoked.status, 200u) << revoked.body;

  EXPECT_TRUE(IsRefusal(on_a.Get("/streams/orders-1", Bearer(key)), 401)) << "A: at once";
  HttpResponse answer;
  while (std::chrono::steady_clock::now() - at < 5s) {
    answer = on_b.Get("/streams/orders-1", Bearer(key));
    if (answer.status != 200) break;
    std::this_thread::sleep_for(20ms);
  }
  const auto took = std::chrono::steady_clock::now() - at;
  EXPECT_TRUE(IsRefusal(answer, 401)) << "B still takes the revoked key";
  // --key-cache-ms 500, and slack for a loaded machine.
  EXPECT_LT(took, 3s) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                      << " ms";
  // The admin key goes on working on both.
  EXPECT_EQ(on_b.Get("/keys", Bearer(admin)).status, 200u);
  EXPECT_EQ(on_a.Get("/keys", Bearer(admin)).status, 200u);
}

}  // namespace
}  // namespace indelible
