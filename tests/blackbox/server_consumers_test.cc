// `indelible serve` end to end: /consumers (docs/HTTP.md, "Consumer
// groups"): create, pull, ack, nack, block, retry, skip, waitFor, metrics,
// restart, and bad input.
#include <future>
#include <thread>

#include "server_fixture.h"

namespace indelible {
namespace {

class ConsumersTest : public ServerTest {
 protected:
  // The positions of a pull's deliveries.
  std::vector<std::int64_t> PullPositions(const std::string& query,
                                          std::vector<std::int64_t>* attempts = nullptr) {
    HttpResponse pulled = http().Post("/consumers/" + query, "");
    EXPECT_EQ(pulled.status, 200u) << pulled.body << pulled.error;
    std::vector<std::int64_t> positions;
    const json::value body = pulled.Json();
    if (!body.is_object() || !body.as_object().contains("deliveries")) return positions;
    for (const auto& d : body.as_object().at("deliveries").as_array()) {
      positions.push_back(IntOf(d.as_object().at("event").as_object(), "position"));
      if (attempts) attempts->push_back(IntOf(d.as_object(), "attempt"));
    }
    return positions;
  }
  HttpResponse Ack(const std::string& group, const std::string& positions) {
    return http().Post("/consumers/" + group + "/ack", "{\"positions\":[" + positions + "]}");
  }
  json::object Info(const std::string& group) {
    HttpResponse info = http().Get("/consumers/" + group);
    EXPECT_EQ(info.status, 200u) << info.body;
    const json::value body = info.Json();
    return body.is_object() ? body.as_object() : json::object();
  }
};

TEST_F(ConsumersTest, CreatePullAckAndTheCheckpoint) {
  for (const char* stream : {"order-1", "order-1", "user-1", "order-2"})
    ASSERT_EQ(Append(stream, EventJson("Placed")).status, 201u);
  HttpResponse created = http().Request("PUT", "/consumers/mailer?category=order");
  EXPECT_EQ(created.status, 201u) << created.body;
  EXPECT_EQ(http().Request("PUT", "/consumers/mailer?category=order").status, 200u);
  EXPECT_TRUE(IsError(http().Request("PUT", "/consumers/mailer?category=user"), 409, "conflict"));

  EXPECT_EQ(PullPositions("mailer/pull?consumer=w1&max=10"), (std::vector<std::int64_t>{1, 2, 4}));
  ASSERT_EQ(Ack("mailer", "1,2").status, 200u);
  json::object info = Info("mailer");
  EXPECT_EQ(IntOf(info, "checkpoint"), 3) << json::serialize(info) << ": 3 is filtered out";
  EXPECT_EQ(IntOf(info, "inFlight"), 1);
  ASSERT_EQ(Ack("mailer", "4").status, 200u);
  EXPECT_EQ(IntOf(Info("mailer"), "checkpoint"), 4);

  HttpResponse list = http().Get("/consumers");
  ASSERT_EQ(list.status, 200u);
  EXPECT_NE(list.body.find("\"group\":\"mailer\""), std::string::npos) << list.body;
}

TEST_F(ConsumersTest, AFailingEventBlocksTheGroupUntilSkippedAndMetricsSayIt) {
  ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);
  ASSERT_EQ(Append("order-2", EventJson("Placed")).status, 201u);
  ASSERT_EQ(http().Request("PUT", "/consumers/g?maxAttempts=2&initialBackoffMs=0").status, 201u);
  for (int attempt = 1; attempt <= 2; ++attempt) {
    std::vector<std::int64_t> attempts;
    auto positions = PullPositions("g/pull?consumer=w&max=1&waitMs=2000", &attempts);
    ASSERT_EQ(positions, (std::vector<std::int64_t>{1}));
    EXPECT_EQ(attempts, (std::vector<std::int64_t>{attempt}));
    ASSERT_EQ(http().Post("/consumers/g/nack", R"({"position":1,"reason":"no smtp"})").status,
              200u);
  }
  json::object info = Info("g");
  EXPECT_EQ(Member(info, "blocked").find("\"position\":1"), 1u) << json::serialize(info);
  EXPECT_NE(Member(info, "blocked").find("no smtp"), std::string::npos);
  EXPECT_TRUE(PullPositions("g/pull?consumer=w&max=10").empty()) << "a blocked group stops";

  HttpResponse metrics = http().Get("/metrics");
  EXPECT_NE(metrics.body.find("indelible_consumer_blocked{group=\"g\"} 1"), std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("indelible_consumer_redeliveries_total{group=\"g\"} 1"),
            std::string::npos);

  ASSERT_EQ(http().Post("/consumers/g/skip", "").status, 200u);
  EXPECT_EQ(Member(Info("g"), "blocked"), "null");
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{2}));
  EXPECT_TRUE(IsError(http().Post("/consumers/g/retry", ""), 400, "invalid")) << "not blocked";
}

TEST_F(ConsumersTest, ParkPolicyParksTheFailingStreamAndReplayDeliversIt) {
  ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);   // 1: fails
  ASSERT_EQ(Append("order-2", EventJson("Placed")).status, 201u);   // 2
  ASSERT_EQ(Append("order-1", EventJson("Shipped")).status, 201u);  // 3: parked behind 1
  EXPECT_TRUE(IsError(http().Request("PUT", "/consumers/g?policy=drop"), 400, "invalid"));
  ASSERT_EQ(http().Request("PUT", "/consumers/g?policy=park&maxAttempts=1").status, 201u);
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=1"), (std::vector<std::int64_t>{1}));
  ASSERT_EQ(http().Post("/consumers/g/nack", R"({"position":1,"reason":"bad address"})").status,
            200u);
  // Not blocked: order-2 goes on, order-1's next event is parked, not delivered.
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{2}));
  ASSERT_EQ(Ack("g", "2").status, 200u);
  EXPECT_TRUE(PullPositions("g/pull?consumer=w&max=10").empty());
  json::object info = Info("g");
  EXPECT_EQ(Member(info, "blocked"), "null") << json::serialize(info);
  EXPECT_EQ(Member(info, "parked"), R"({"streams":1,"events":2,"replaying":false})");
  HttpResponse parked = http().Get("/streams/%24parked-g");
  ASSERT_EQ(parked.status, 200u) << parked.body;
  EXPECT_NE(parked.body.find("bad address"), std::string::npos) << parked.body;
  HttpResponse metrics = http().Get("/metrics");
  EXPECT_NE(metrics.body.find("indelible_consumer_parked_events{group=\"g\"} 2"), std::string::npos)
      << metrics.body;

  ASSERT_EQ(http().Post("/consumers/g/replay", "").status, 200u);
  HttpResponse replay = http().Post("/consumers/g/pull?consumer=w&max=10", "");
  ASSERT_EQ(replay.status, 200u);
  const json::value replayed = replay.Json();
  const json::array& deliveries = replayed.as_object().at("deliveries").as_array();
  ASSERT_EQ(deliveries.size(), 2u) << replay.body;
  EXPECT_EQ(IntOf(deliveries[0].as_object().at("event").as_object(), "position"), 1);
  EXPECT_EQ(IntOf(deliveries[0].as_object(), "parkedVersion"), 0);
  EXPECT_EQ(IntOf(deliveries[1].as_object().at("event").as_object(), "position"), 3);
  ASSERT_EQ(Ack("g", "1,3").status, 200u);
  EXPECT_TRUE(PullPositions("g/pull?consumer=w&max=10").empty());  // the pass ends
  EXPECT_EQ(Member(Info("g"), "parked"), R"({"streams":0,"events":0,"replaying":false})");
  ASSERT_EQ(Append("order-1", EventJson("Delivered")).status, 201u);
  std::vector<std::int64_t> after = PullPositions("g/pull?consumer=w&max=10&waitMs=2000");
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0], IntOf(http().Get("/streams/order-1/head").Json().as_object(), "position"));
  EXPECT_TRUE(IsError(http().Post("/consumers/missing/replay", ""), 404, "not_found"));
}

TEST_F(ConsumersTest, WaitForAnswersOnceTheCheckpointPassesAWrite) {
  ASSERT_EQ(http().Request("PUT", "/consumers/projector").status, 201u);
  HttpResponse appended = Append("todo-1", EventJson("Todo.Created"));
  ASSERT_EQ(appended.status, 201u);
  const std::int64_t position = IntOf(appended.Json().as_object(), "position");
  auto waiting = std::async(std::launch::async, [&] {
    HttpClient other(port());
    return other.Get("/consumers/projector?waitFor=" + std::to_string(position) + "&timeout=20000");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(PullPositions("projector/pull?consumer=p&max=10"),
            (std::vector<std::int64_t>{position}));
  ASSERT_EQ(Ack("projector", std::to_string(position)).status, 200u);
  HttpResponse answered = waiting.get();
  ASSERT_EQ(answered.status, 200u) << answered.body;
  EXPECT_EQ(Member(answered.Json(), "reached"), "true");
  HttpResponse not_yet = http().Get("/consumers/projector?waitFor=99&timeout=10");
  EXPECT_EQ(Member(not_yet.Json(), "reached"), "false");
}

TEST_F(ConsumersTest, TheCheckpointSurvivesAServerRestart) {
  for (int i = 0; i < 5; ++i) ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);
  ASSERT_EQ(http().Request("PUT", "/consumers/g").status, 201u);
  ASSERT_EQ(PullPositions("g/pull?consumer=w&max=2").size(), 2u);
  ASSERT_EQ(Ack("g", "1,2").status, 200u);
  EXPECT_EQ(server().Terminate(), 0);  // SIGTERM: the group saves its checkpoint on close
  Start();
  EXPECT_EQ(IntOf(Info("g"), "checkpoint"), 2);
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{3, 4, 5}));
}

TEST_F(ConsumersTest, BadRequestsAreRefusedAndChangeNothing) {
  ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);
  EXPECT_TRUE(IsError(http().Request("PUT", "/consumers/bad%20name"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Request("PUT", "/consumers/g?maxAttempts=0"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Get("/consumers/missing"), 404, "not_found"));
  EXPECT_TRUE(IsError(http().Post("/consumers/missing/pull?consumer=w", ""), 404, "not_found"));
  ASSERT_EQ(http().Request("PUT", "/consumers/g").status, 201u);
  EXPECT_TRUE(IsError(http().Post("/consumers/g/pull", ""), 400, "invalid")) << "no consumer";
  EXPECT_TRUE(IsError(http().Post("/consumers/g/pull?consumer=w&max=0", ""), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Post("/consumers/g/ack", "not json"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Post("/consumers/g/ack", R"({"positions":[]})"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Post("/consumers/g/ack", R"({"positions":["1"]})"), 400, "invalid"));
  EXPECT_TRUE(IsError(Ack("g", "1"), 400, "invalid")) << "never delivered";
  EXPECT_TRUE(IsError(http().Post("/consumers/g/nack", R"({"position":1})"), 400, "invalid"));
  EXPECT_TRUE(IsError(
      http().Post("/consumers/g/ack", R"({"positions":[1]})", {{"Content-Type", "text/plain"}}),
      415, "invalid"));
  EXPECT_EQ(IntOf(Info("g"), "checkpoint"), 0);
  EXPECT_EQ(http().Get("/health").status, 200u);

  ASSERT_EQ(http().Delete("/consumers/g").status, 200u);
  EXPECT_TRUE(IsError(http().Get("/consumers/g"), 404, "not_found"));
  EXPECT_TRUE(IsError(http().Delete("/consumers/g"), 404, "not_found"));
}

}  // namespace
}  // namespace indelible
