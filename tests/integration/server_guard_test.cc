// Nothing a request does ends the server: a route handler that throws
// anything at all, or answers with a header that would split the response
// or a status that is not HTTP, gets its client a 500 naming a request id,
// the server logs it and serves on. The routes here misbehave on purpose
// (ServeOptions::routes, the embedding API the examples use).
#include <gtest/gtest.h>
#include <indelible/server.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <stdexcept>

#include "testutil/http_client.h"
#include "testutil/in_process_server.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;

std::vector<HttpRoute> MisbehavingRoutes() {
  auto route = [](std::string pattern, std::function<HttpResponse(const HttpRequest&)> fn) {
    return HttpRoute{"GET", std::move(pattern), std::move(fn), "", ""};
  };
  return {
      route("/throws/int", [](const HttpRequest&) -> HttpResponse { throw 42; }),
      route("/throws/std",
            [](const HttpRequest&) -> HttpResponse { throw std::runtime_error("boom"); }),
      route("/split",
            [](const HttpRequest&) {
              return HttpResponse{200, {{"X-Note", "a\r\nSet-Cookie: stolen=1"}}, "{}"};
            }),
      route("/bad-name",
            [](const HttpRequest&) {
              return HttpResponse{200, {{"X Bad:", "v"}}, "{}"};
            }),
      route("/status",
            [](const HttpRequest&) {
              return HttpResponse{1000, {}, "{}"};
            }),
      route("/fine", [](const HttpRequest&) { return HttpResponse::Json(200, R"({"ok":true})"); }),
  };
}

class ServerGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open("memory:");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    ServeOptions options;
    options.io_threads = 2;
    options.routes = MisbehavingRoutes();
    server_ = std::make_unique<testutil::InProcessServer>(*store_, options);
    ASSERT_TRUE(server_->AwaitListening());
  }
  void TearDown() override {
    if (server_) {
      EXPECT_TRUE(server_->Stop().ok());
    }
  }

  std::unique_ptr<Store> store_;
  std::unique_ptr<testutil::InProcessServer> server_;
};

TEST_F(ServerGuardTest, EveryMisbehaviourIsA500WithARequestIdAndTheServerGoesOn) {
  testutil::HttpClient client(server_->port(), 10s);
  for (const char* target : {"/throws/int", "/throws/std", "/split", "/bad-name", "/status"}) {
    auto answer = client.Get(target);
    ASSERT_EQ(answer.status, 500u) << target << ": " << answer.error << answer.body;
    const auto body = answer.Json();
    ASSERT_TRUE(body.is_object()) << answer.body;
    EXPECT_EQ(body.at("error"), "internal") << target;
    const auto id = answer.Header("X-Request-Id");
    ASSERT_TRUE(id.has_value()) << target;
    if (std::string_view(target).starts_with("/throws")) {
      EXPECT_NE(std::string(body.at("message").as_string()).find(*id), std::string::npos)
          << target << ": " << answer.body;
    }
    EXPECT_FALSE(answer.Header("Set-Cookie").has_value()) << "the response was split";
    // The same connection, and the server, go on.
    EXPECT_EQ(client.Get("/fine").status, 200u) << "after " << target;
  }
}

}  // namespace
}  // namespace indelible
