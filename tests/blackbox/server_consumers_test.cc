// `indelible serve` end to end: /consumers (docs/HTTP.md, "Consumer
// groups"): create, pull, ack, nack, block, retry, skip, waitFor, metrics,
// restart, bad input, and the limits: the cap on groups, pages bounded by
// bytes, long pulls that hold no thread, and a delete that wins races.
#include <atomic>
#include <future>
#include <map>
#include <thread>

#include "server_fixture.h"

namespace indelible {
namespace {

std::int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

// 200 long pulls parked on a server with 4 blocking threads: a stream
// delete (blocking pool) and a describe still answer while every pull is
// waiting; then each pull times out with an empty page and leaves no
// waiter behind. Before, each long pull held a blocking thread for its
// whole wait, so the delete queued behind them.
TEST_F(ConsumersTest, LongPullsHoldNoThreadAndLeaveNoWaiterBehind) {
  Start({"--write-threads", "4"});
  ASSERT_EQ(Append("victim", EventJson("Placed")).status, 201u);
  ASSERT_EQ(http().Request("PUT", "/consumers/idle?category=nothing").status, 201u);
  constexpr int kPulls = 200;
  const std::string request_tail =
      " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port()) +
      "\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n";
  std::vector<std::unique_ptr<testutil::RawConnection>> pulls;
  for (int i = 0; i < kPulls; ++i) {
    auto pull = std::make_unique<testutil::RawConnection>(port());
    ASSERT_TRUE(pull->connected()) << i;
    ASSERT_TRUE(pull->Send("POST /consumers/idle/pull?consumer=w" + std::to_string(i) +
                           "&waitMs=20000" + request_tail));
    pulls.push_back(std::move(pull));
  }
  // Every pull is parked (the status counts them).
  const auto parked_by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (IntOf(Info("idle"), "waiting") < kPulls && std::chrono::steady_clock::now() < parked_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(IntOf(Info("idle"), "waiting"), kPulls);

  HttpClient other(port(), Millis(15000));
  HttpResponse deleted = other.Delete("/streams/victim");
  EXPECT_TRUE(deleted.status >= 200 && deleted.status < 300)
      << "the delete did not get through: " << deleted.status << " " << deleted.error;
  HttpResponse described = other.Get("/consumers/idle");
  EXPECT_EQ(described.status, 200u) << described.error;
  int answered_early = 0;
  for (auto& pull : pulls) answered_early += pull->ReadResponse(Millis(1)).status != 0;
  EXPECT_EQ(answered_early, 0) << "those answered before the pulls timed out";

  // The pulls time out with empty pages, and nothing stays registered.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  int empty_pages = 0;
  for (auto& pull : pulls) {
    const auto left = std::chrono::duration_cast<Millis>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    HttpResponse answer = pull->ReadResponse(left);
    empty_pages += answer.status == 200 && answer.body == R"({"deliveries":[]})";
  }
  EXPECT_EQ(empty_pages, kPulls);
  const auto drained_by = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (IntOf(Info("idle"), "waiting") != 0 && std::chrono::steady_clock::now() < drained_by)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(IntOf(Info("idle"), "waiting"), 0);
}

// A long pull is answered by the commit it waits for, and by another
// consumer's ack that frees its stream's next event, well before its wait.
TEST_F(ConsumersTest, ALongPullWakesOnACommitAndOnAnAck) {
  ASSERT_EQ(http().Request("PUT", "/consumers/g").status, 201u);
  auto first = std::async(std::launch::async, [&] {
    HttpClient other(port());
    return other.Post("/consumers/g/pull?consumer=a&max=1&waitMs=30000", "");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);
  ASSERT_EQ(Append("order-1", EventJson("Shipped")).status, 201u);
  HttpResponse woke = first.get();
  ASSERT_EQ(woke.status, 200u) << woke.error;
  EXPECT_NE(woke.body.find("\"position\":1"), std::string::npos) << woke.body;
  // Event 2 waits for 1 (same stream): b's long pull gets it on a's ack.
  auto second = std::async(std::launch::async, [&] {
    HttpClient other(port());
    return other.Post("/consumers/g/pull?consumer=b&max=1&waitMs=30000", "");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(Ack("g", "1").status, 200u);
  HttpResponse freed = second.get();
  ASSERT_EQ(freed.status, 200u) << freed.error;
  EXPECT_NE(freed.body.find("\"position\":2"), std::string::npos) << freed.body;
}

// A pull's page stops at --max-page-bytes of JSON (one delivery at least);
// the events it left out are not in flight and come with the next pull.
TEST_F(ConsumersTest, APullPageStopsAtMaxPageBytes) {
  Start({"--max-page-bytes", "300000"});
  const std::string large = "\"" + std::string(100000, 'x') + "\"";
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(Append("big-" + std::to_string(i), EventJson("Large", large)).status, 201u);
  ASSERT_EQ(http().Request("PUT", "/consumers/g").status, 201u);
  HttpResponse page = http().Post("/consumers/g/pull?consumer=w&max=100", "");
  ASSERT_EQ(page.status, 200u);
  EXPECT_LE(page.body.size(), 300000u + 100);
  std::vector<std::int64_t> attempts;
  EXPECT_EQ(PullPositions("g/pull?consumer=w2&max=100", &attempts),
            (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(attempts, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(IntOf(Info("g"), "inFlight"), 4) << "left-out events are not in flight";
  Start({"--max-page-bytes", "1024"});
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=100"), (std::vector<std::int64_t>{1}))
      << "one delivery at least";
}

// --max-consumer-groups caps the groups: one more is 409 too_large; an
// existing one may be created again, and a delete makes room.
TEST_F(ConsumersTest, TheNumberOfGroupsIsCapped) {
  Start({"--max-consumer-groups", "2"});
  ASSERT_EQ(http().Request("PUT", "/consumers/a").status, 201u);
  ASSERT_EQ(http().Request("PUT", "/consumers/b").status, 201u);
  EXPECT_TRUE(IsError(http().Request("PUT", "/consumers/c"), 409, "too_large"));
  EXPECT_EQ(http().Request("PUT", "/consumers/a").status, 200u) << "the same definition again";
  EXPECT_TRUE(IsError(http().Get("/consumers/c"), 404, "not_found"));
  ASSERT_EQ(http().Delete("/consumers/b").status, 200u);
  EXPECT_EQ(http().Request("PUT", "/consumers/c").status, 201u);
}

// Workers pulling and acking while the group is deleted: once DELETE has
// answered, nothing they do brings it back.
TEST_F(ConsumersTest, ADeleteWinsOverPullsAndAcksInFlight) {
  for (int i = 0; i < 300; ++i)
    ASSERT_EQ(Append("acct-" + std::to_string(i % 10), EventJson("Placed")).status, 201u);
  for (int round = 0; round < 5; ++round) {
    const std::string group = "race-" + std::to_string(round);
    ASSERT_EQ(http().Request("PUT", "/consumers/" + group).status, 201u);
    std::atomic<bool> stop{false};
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w)
      workers.emplace_back([&, w] {
        HttpClient client(port());
        while (!stop) {
          HttpResponse page = client.Post(
              "/consumers/" + group + "/pull?consumer=w" + std::to_string(w) + "&max=3", "");
          const json::value body = page.Json();
          if (page.status != 200 || !body.is_object()) continue;
          std::string positions;
          for (const auto& d : body.as_object().at("deliveries").as_array())
            positions += (positions.empty() ? "" : ",") +
                         std::to_string(IntOf(d.as_object().at("event").as_object(), "position"));
          if (!positions.empty())
            client.Post("/consumers/" + group + "/ack", "{\"positions\":[" + positions + "]}");
        }
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ASSERT_EQ(http().Delete("/consumers/" + group).status, 200u);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // acks go on, saves would too
    stop = true;
    for (auto& worker : workers) worker.join();
    EXPECT_TRUE(IsError(http().Get("/consumers/" + group), 404, "not_found")) << group;
    EXPECT_EQ(http().Get("/consumers").body.find(group), std::string::npos) << group;
  }
  EXPECT_EQ(server().Terminate(), 0);  // the final flush on close saves nothing either
  Start();
  EXPECT_EQ(http().Get("/consumers").body, R"({"consumers":[]})");
}

// GET /consumers/{group} lists the consumers that pull: what each holds,
// its last pull and its long pulls waiting now; the list and the answers
// to acks stay without them.
TEST_F(ConsumersTest, MembersShowWhoPullsWhatTheyHoldAndTheirWaitingPulls) {
  ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);
  ASSERT_EQ(Append("order-2", EventJson("Placed")).status, 201u);
  ASSERT_EQ(http().Request("PUT", "/consumers/g").status, 201u);
  EXPECT_EQ(Member(Info("g"), "members"), "[]");
  const std::int64_t before = NowMs();
  EXPECT_EQ(PullPositions("g/pull?consumer=w1&max=1"), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(PullPositions("g/pull?consumer=w2&max=10"), (std::vector<std::int64_t>{2}));
  json::object info = Info("g");
  const json::array& members = info.at("members").as_array();
  ASSERT_EQ(members.size(), 2u) << json::serialize(info);
  EXPECT_EQ(StringOf(members[0].as_object(), "consumer"), "w1");
  EXPECT_EQ(IntOf(members[0].as_object(), "inFlight"), 1);
  EXPECT_EQ(IntOf(members[0].as_object(), "waiting"), 0);
  EXPECT_GE(IntOf(members[0].as_object(), "lastPull"), before - 5);
  EXPECT_LE(IntOf(members[0].as_object(), "lastPull"), NowMs() + 5);
  EXPECT_EQ(StringOf(members[1].as_object(), "consumer"), "w2");
  EXPECT_EQ(Member(info, "membersOmitted"), "false");
  HttpResponse acked = Ack("g", "1");
  ASSERT_EQ(acked.status, 200u);
  EXPECT_EQ(Member(acked.Json(), "members"), "<missing>") << "an ack's answer stays small";
  EXPECT_EQ(http().Get("/consumers").body.find("members"), std::string::npos);
  EXPECT_EQ(IntOf(Info("g").at("members").as_array()[0].as_object(), "inFlight"), 0);

  // A long pull shows on its member while it waits, and no longer after.
  auto waiting = std::async(std::launch::async, [&] {
    HttpClient other(port());
    return other.Post("/consumers/g/pull?consumer=w3&max=10&waitMs=20000", "");
  });
  bool seen = false;
  for (int i = 0; i < 400 && !seen; ++i) {
    const json::object now = Info("g");  // kept: the loop reads into it
    for (const auto& m : now.at("members").as_array())
      if (StringOf(m.as_object(), "consumer") == "w3" && IntOf(m.as_object(), "waiting") == 1)
        seen = true;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(seen) << json::serialize(Info("g"));
  ASSERT_EQ(Append("order-3", EventJson("Placed")).status, 201u);
  HttpResponse woken = waiting.get();
  ASSERT_EQ(woken.status, 200u) << woken.body;
  const json::object after = Info("g");
  for (const auto& m : after.at("members").as_array()) {
    EXPECT_EQ(IntOf(m.as_object(), "waiting"), 0) << json::serialize(m);
    if (StringOf(m.as_object(), "consumer") == "w3") {
      EXPECT_EQ(IntOf(m.as_object(), "inFlight"), 1);
    }
  }
}

class ParkedTest : public ConsumersTest {
 protected:
  // order-1's 1 fails and its 3 is parked behind; order-2's 2 fails.
  void ParkThree() {
    ASSERT_EQ(Append("order-1", EventJson("Placed")).status, 201u);   // 1
    ASSERT_EQ(Append("order-2", EventJson("Placed")).status, 201u);   // 2
    ASSERT_EQ(Append("order-1", EventJson("Shipped")).status, 201u);  // 3
    ASSERT_EQ(http().Request("PUT", "/consumers/g?policy=park&maxAttempts=1").status, 201u);
    ASSERT_EQ(PullPositions("g/pull?consumer=w&max=1"), (std::vector<std::int64_t>{1}));
    ASSERT_EQ(http().Post("/consumers/g/nack", R"({"position":1,"reason":"bad address"})").status,
              200u);
    ASSERT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{2}));
    ASSERT_EQ(http().Post("/consumers/g/nack", R"({"position":2})").status, 200u);
    ASSERT_TRUE(PullPositions("g/pull?consumer=w&max=10").empty());
  }
  // The parked copies: original position -> {parkedVersion, state}.
  std::map<std::int64_t, std::pair<std::int64_t, std::string>> Parked(
      const std::string& query = "") {
    HttpResponse page = http().Get("/consumers/g/parked" + query);
    EXPECT_EQ(page.status, 200u) << page.body;
    std::map<std::int64_t, std::pair<std::int64_t, std::string>> out;
    const json::value body = page.Json();
    if (!body.is_object() || !body.as_object().contains("events")) return out;
    for (const auto& item : body.as_object().at("events").as_array()) {
      const json::object& entry = item.as_object();
      const json::object& event = entry.at("event").as_object();
      EXPECT_EQ(IntOf(event, "version"), IntOf(entry, "parkedVersion"));
      const json::object& parked = event.at("metadata").as_object().at("$parked").as_object();
      out[IntOf(parked, "position")] = {IntOf(entry, "parkedVersion"), StringOf(entry, "state")};
    }
    return out;
  }
  std::string Decide(std::int64_t version, const std::string& act) {
    return "/consumers/g/parked/" + std::to_string(version) + "/" + act;
  }
};

TEST_F(ParkedTest, ParkedEventsAreListedSkippedAndRetriedOneByOne) {
  ParkThree();
  auto parked = Parked();
  ASSERT_EQ(parked.size(), 3u);
  for (const auto& [position, copy] : parked) EXPECT_EQ(copy.second, "pending") << position;
  const std::int64_t one = parked[1].first, two = parked[2].first, three = parked[3].first;

  // 3 may not pass 1, still pending: 409 naming it.
  HttpResponse refused = http().Post(Decide(three, "retry"), "");
  EXPECT_TRUE(IsError(refused, 409, "conflict")) << refused.body;
  EXPECT_NE(refused.body.find("before event " + std::to_string(one)), std::string::npos)
      << refused.body;
  // Skip it: a replay will pass it over.
  HttpResponse skipped = http().Post(Decide(three, "skip"), "");
  ASSERT_EQ(skipped.status, 200u) << skipped.body;
  EXPECT_EQ(Member(skipped.Json(), "parked"), R"({"streams":2,"events":2,"replaying":false})");
  EXPECT_EQ(Parked()[3].second, "skipped");
  EXPECT_TRUE(IsError(http().Post(Decide(three, "skip"), ""), 409, "conflict")) << "again";

  // 2 alone, marked as a replay; acked, order-2 unparks.
  ASSERT_EQ(http().Post(Decide(two, "retry"), "").status, 200u);
  EXPECT_EQ(Parked()[2].second, "retrying");
  HttpResponse pulled = http().Post("/consumers/g/pull?consumer=w&max=10", "");
  ASSERT_EQ(pulled.status, 200u);
  const json::value pulled_body = pulled.Json();
  const json::array& deliveries = pulled_body.as_object().at("deliveries").as_array();
  ASSERT_EQ(deliveries.size(), 1u) << pulled.body;
  EXPECT_EQ(IntOf(deliveries[0].as_object(), "parkedVersion"), two);
  EXPECT_EQ(IntOf(deliveries[0].as_object().at("event").as_object(), "position"), 2);
  ASSERT_EQ(Ack("g", "2").status, 200u);
  EXPECT_EQ(Parked()[2].second, "resolved");
  EXPECT_EQ(Member(Info("g"), "parked"), R"({"streams":1,"events":1,"replaying":false})");

  // The replay delivers 1, never the skipped 3.
  ASSERT_EQ(http().Post("/consumers/g/replay", "").status, 200u);
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{1}));
  ASSERT_EQ(Ack("g", "1").status, 200u);
  EXPECT_TRUE(PullPositions("g/pull?consumer=w&max=10").empty());
  EXPECT_EQ(Member(Info("g"), "parked"), R"({"streams":0,"events":0,"replaying":false})");
  for (const auto& [position, copy] : Parked()) EXPECT_EQ(copy.second, "resolved") << position;
}

TEST_F(ParkedTest, TheParkedListIsPaged) {
  ParkThree();
  HttpResponse first = http().Get("/consumers/g/parked?limit=2");
  ASSERT_EQ(first.status, 200u) << first.body;
  EXPECT_EQ(EventsOf(first.Json()).size(), 2u);
  EXPECT_EQ(Member(first.Json(), "nextVersion"), "2");
  EXPECT_EQ(Member(first.Json(), "group"), R"("g")");
  HttpResponse rest = http().Get("/consumers/g/parked?from=2&limit=2");
  EXPECT_EQ(EventsOf(rest.Json()).size(), 1u);
  EXPECT_EQ(Member(rest.Json(), "nextVersion"), "null");
}

TEST_F(ParkedTest, ParkedDecisionsSurviveKill9) {
  ParkThree();
  auto parked = Parked();
  ASSERT_EQ(http().Post(Decide(parked[3].first, "skip"), "").status, 200u);
  ASSERT_EQ(http().Post(Decide(parked[2].first, "retry"), "").status, 200u);
  server().Kill();  // kill -9: only what was saved before the answers counts
  Start();
  parked = Parked();
  EXPECT_EQ(parked[1].second, "pending");
  EXPECT_EQ(parked[2].second, "retrying");
  EXPECT_EQ(parked[3].second, "skipped");
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{2}));
  ASSERT_EQ(Ack("g", "2").status, 200u);
  ASSERT_EQ(http().Post("/consumers/g/replay", "").status, 200u);
  EXPECT_EQ(PullPositions("g/pull?consumer=w&max=10"), (std::vector<std::int64_t>{1}));
}

TEST_F(ParkedTest, BadParkedDecisionsAreRefusedAndChangeNothing) {
  ParkThree();
  const std::string status = Member(Info("g"), "parked");
  for (const char* version : {"abc", "-1", "1.5", "99999999999999999999"})
    EXPECT_TRUE(IsError(http().Post(std::string("/consumers/g/parked/") + version + "/skip", ""),
                        400, "invalid"))
        << version;
  EXPECT_TRUE(IsError(http().Post(Decide(99, "skip"), ""), 404, "not_found"));
  EXPECT_TRUE(IsError(http().Post(Decide(99, "retry"), ""), 404, "not_found"));
  EXPECT_TRUE(IsError(http().Post("/consumers/missing/parked/0/skip", ""), 404, "not_found"));
  EXPECT_TRUE(IsError(http().Get("/consumers/missing/parked"), 404, "not_found"));
  for (const char* query : {"?limit=0", "?from=-1", "?limit=x"})
    EXPECT_TRUE(IsError(http().Get(std::string("/consumers/g/parked") + query), 400, "invalid"))
        << query;
  EXPECT_EQ(Member(Info("g"), "parked"), status);
  for (const auto& [position, copy] : Parked()) EXPECT_EQ(copy.second, "pending") << position;

  // A group that blocks parks nothing.
  ASSERT_EQ(http().Request("PUT", "/consumers/b").status, 201u);
  EXPECT_TRUE(IsError(http().Post("/consumers/b/parked/0/retry", ""), 400, "invalid"));
  HttpResponse none = http().Get("/consumers/b/parked");
  ASSERT_EQ(none.status, 200u);
  EXPECT_EQ(none.body, R"({"group":"b","events":[],"nextVersion":null})");
}

}  // namespace
}  // namespace indelible
