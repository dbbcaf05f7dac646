// BackendServerTest: ServerTest on each backend the conformance suite runs
// on (tests/backend_conformance/backends.cc): memory, embedded (a folder),
// and DynamoDB on the shared DynamoDB Local. Instantiate with
// INSTANTIATE_TEST_SUITE_P(Backends, X, ::testing::ValuesIn(kServerBackends)).
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "blackbox/server_fixture.h"
#include "testutil/dynamodb_server.h"

namespace indelible {

inline const std::vector<std::string> kServerBackends = {"memory", "embedded", "dynamodb"};

class BackendServerTest : public ServerTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override { Start(); }

  // (Re)starts the server on this test's store with `extra` flags; the
  // embedded and DynamoDB stores keep their data, memory starts empty.
  void Start(const std::vector<std::string>& extra = {}) {
    std::string url;
    if (GetParam() == "memory") {
      url = "memory:";
    } else if (GetParam() == "embedded") {
      url = "file:" + Data();
    } else {
      if (dynamodb_url_.empty())
        dynamodb_url_ = testutil::DynamoDbTestUrl("srv", "&index_poll_ms=10");
      ASSERT_FALSE(dynamodb_url_.empty());
      url = dynamodb_url_;
    }
    StartOn(url, extra);
  }

  // Waits until $all holds `events` events (/health's lastPosition): on
  // DynamoDB positions are given after the commit, so a subscription made
  // right after an append may not see it among the stored events yet.
  void Settle(std::int64_t events) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::int64_t last = -1;
    while (std::chrono::steady_clock::now() < deadline) {
      const json::value health = http().Get("/health").Json();
      last = health.is_object() ? IntOf(health.as_object(), "lastPosition") : -1;
      if (last >= events) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL() << "$all reached " << last << " events, not " << events;
  }

  std::string dynamodb_url_;
};

}  // namespace indelible
