// `indelible serve` subscriptions over Server-Sent Events (docs/HTTP.md,
// "Subscriptions"): catch-up then live with no gap and no duplicate,
// resuming, filters, stream subscriptions, heartbeats; on every backend
// of the conformance suite, DynamoDB Local included. And what a subscriber
// leaves behind: a stuck reader is cut off, a closed one leaves no waiter.
#include <atomic>
#include <thread>

#include "backend_server_fixture.h"

namespace indelible {
namespace {

using testutil::SseItem;
using testutil::SseReader;
using Ids = std::vector<std::int64_t>;

constexpr Millis kWait(15000);

json::value ParseOrNull(const std::string& text) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  return ec ? json::value(nullptr) : value;
}

class SseTest : public BackendServerTest {
 protected:
  // The next `n` messages' ids (fewer if they do not come); checks that
  // each message's data is the event at the position its id names.
  Ids Read(SseReader& reader, std::size_t n, Millis timeout = kWait) {
    Ids ids;
    while (ids.size() < n) {
      std::optional<SseItem> item = reader.NextMessage(timeout);
      if (!item) break;
      ids.push_back(std::stoll(item->id));
      const json::value event = ParseOrNull(item->data);
      EXPECT_EQ(Member(event, "position"), item->id) << item->data;
      EXPECT_NE(Member(event, "stream"), "<missing>") << item->data;
      EXPECT_NE(Member(event, "version"), "<missing>") << item->data;
      last_ = event;
    }
    return ids;
  }

  // Reads up to the `: caught-up` comment; the ids of the messages before it.
  Ids ReadToCaughtUp(SseReader& reader) {
    Ids ids;
    while (std::optional<SseItem> item = reader.Next(kWait)) {
      if (item->comment && item->data == "caught-up") return ids;
      if (!item->comment) ids.push_back(std::stoll(item->id));
    }
    ADD_FAILURE() << "no `: caught-up` comment";
    return ids;
  }

  // Nothing more arrives for a while.
  void ExpectQuiet(SseReader& reader) {
    std::optional<SseItem> item = reader.NextMessage(Millis(500));
    EXPECT_FALSE(item) << "unexpected message " << item->id << " " << item->data;
  }

  json::value last_;  // the last message's data
};

TEST_P(SseTest, CatchUpThenLiveWithTheSwitchMarked) {
  for (const char* stream : {"a-1", "b-1", "a-1", "c-1", "a-2"}) {
    ASSERT_EQ(Append(stream, EventJson("T")).status, 201u);
  }
  ASSERT_NO_FATAL_FAILURE(Settle(5));
  SseReader reader(port(), "/subscribe/all");
  ASSERT_TRUE(reader.ReadHead());
  EXPECT_EQ(reader.status(), 200u);
  EXPECT_EQ(reader.head().Header("Content-Type").value_or("").rfind("text/event-stream", 0), 0u)
      << reader.head().Header("Content-Type").value_or("no Content-Type");
  EXPECT_EQ(ReadToCaughtUp(reader), (Ids{1, 2, 3, 4, 5}));

  ASSERT_EQ(Append("b-1", "[" + EventJson("U") + "," + EventJson("V") + "]").status, 201u);
  EXPECT_EQ(Read(reader, 2), (Ids{6, 7}));
  EXPECT_EQ(Member(last_, "stream"), "\"b-1\"");
  EXPECT_EQ(Member(last_, "version"), "2");
  EXPECT_EQ(Member(last_, "type"), "\"V\"");
  ASSERT_EQ(Append("z-9", EventJson("W")).status, 201u);
  EXPECT_EQ(Read(reader, 1), (Ids{8}));
  ExpectQuiet(reader);
}

TEST_P(SseTest, NoGapAndNoDuplicateWhileAppendsRaceTheSwitch) {
  constexpr int kEvents = 300;
  std::atomic<int> appended{0};
  std::atomic<bool> done{false};
  std::thread writer([&, port = port()] {
    HttpClient client(port);
    for (int i = 0; i < kEvents; ++i) {
      if (client.Post("/streams/race-" + std::to_string(i % 7), EventJson("T")).status != 201) {
        break;
      }
      appended = i + 1;
    }
    done = true;
  });
  while (appended < 50 && !done) std::this_thread::yield();
  SseReader reader(port(), "/subscribe/all?from=1");
  const Ids ids = Read(reader, kEvents, Millis(60000));
  writer.join();
  ASSERT_EQ(appended, kEvents);
  Ids expected(kEvents);
  for (int i = 0; i < kEvents; ++i) expected[i] = i + 1;
  EXPECT_EQ(ids, expected);
  ExpectQuiet(reader);
}

TEST_P(SseTest, LastEventIdResumesAndWinsOverFrom) {
  for (int i = 0; i < 6; ++i) ASSERT_EQ(Append("r-1", EventJson("T")).status, 201u);
  ASSERT_NO_FATAL_FAILURE(Settle(6));
  SseReader resumed(port(), "/subscribe/all?from=1", {{"Last-Event-ID", "3"}});
  EXPECT_EQ(ReadToCaughtUp(resumed), (Ids{4, 5, 6}));
  SseReader from(port(), "/subscribe/all?from=5");
  EXPECT_EQ(ReadToCaughtUp(from), (Ids{5, 6}));
  SseReader end(port(), "/subscribe/all?from=end");
  EXPECT_EQ(ReadToCaughtUp(end), (Ids{}));
  ASSERT_EQ(Append("r-1", EventJson("T")).status, 201u);
  EXPECT_EQ(Read(end, 1), (Ids{7}));
  EXPECT_EQ(Read(resumed, 1), (Ids{7}));
  ExpectQuiet(end);
}

TEST_P(SseTest, FiltersAreThoseOfAll) {
  const std::pair<const char*, const char*> events[] = {
      {"todo-1", "A"}, {"acc-1", "B"}, {"todo-2", "A"}, {"todo-10", "C"}, {"acc-2", "A"}};
  for (const auto& [stream, type] : events) {
    ASSERT_EQ(Append(stream, EventJson(type)).status, 201u);
  }
  ASSERT_NO_FATAL_FAILURE(Settle(5));
  SseReader todo(port(), "/subscribe/all?category=todo");
  EXPECT_EQ(ReadToCaughtUp(todo), (Ids{1, 3, 4}));
  SseReader typed(port(), "/subscribe/all?type=A,C&prefix=todo-1");
  EXPECT_EQ(ReadToCaughtUp(typed), (Ids{1, 4}));
  SseReader both(port(), "/subscribe/all?category=acc&type=A");
  EXPECT_EQ(ReadToCaughtUp(both), (Ids{5}));

  ASSERT_EQ(Append("acc-3", EventJson("A")).status, 201u);   // 6
  ASSERT_EQ(Append("todo-3", EventJson("B")).status, 201u);  // 7
  ASSERT_EQ(Append("todo-1", EventJson("C")).status, 201u);  // 8
  EXPECT_EQ(Read(todo, 2), (Ids{7, 8}));
  EXPECT_EQ(Read(typed, 1), (Ids{8}));
  EXPECT_EQ(Read(both, 1), (Ids{6}));
  ExpectQuiet(todo);
  ExpectQuiet(typed);
  ExpectQuiet(both);
}

// A filter that skips many events reads them a scan budget at a time
// (--max-scan-events), handing the read pool back in between, and still
// finds the match past them; so does a stream subscription that starts at a
// late version.
TEST_P(SseTest, FilteredSubscriptionsReadPastManyScanBudgets) {
  ASSERT_NO_FATAL_FAILURE(Start({"--max-scan-events", "3"}));
  std::string many = "[";
  for (int i = 0; i < 30; ++i) many += std::string(i ? "," : "") + EventJson("Skipped");
  many += "]";
  ASSERT_EQ(Append("user-1", many).status, 201u);            // positions 1..30
  ASSERT_EQ(Append("todo-1", EventJson("A")).status, 201u);  // 31
  ASSERT_NO_FATAL_FAILURE(Settle(31));
  SseReader todo(port(), "/subscribe/all?category=todo");
  EXPECT_EQ(ReadToCaughtUp(todo), (Ids{31}));
  SseReader late(port(), "/subscribe/streams/user-1?from=28");
  EXPECT_EQ(ReadToCaughtUp(late), (Ids{29, 30}));
  ASSERT_EQ(Append("user-2", many).status, 201u);            // 32..61
  ASSERT_EQ(Append("todo-2", EventJson("A")).status, 201u);  // 62
  EXPECT_EQ(Read(todo, 1), (Ids{62}));
}

TEST_P(SseTest, StreamSubscriptionStartsAtAVersionAndIdsArePositions) {
  for (const char* stream : {"s-1", "x", "s-1", "x", "s-1"}) {
    ASSERT_EQ(Append(stream, EventJson("T")).status, 201u);
  }
  ASSERT_NO_FATAL_FAILURE(Settle(5));
  SseReader all(port(), "/subscribe/streams/s-1");
  EXPECT_EQ(ReadToCaughtUp(all), (Ids{1, 3, 5}));
  SseReader from(port(), "/subscribe/streams/s-1?from=1");
  EXPECT_EQ(Read(from, 2), (Ids{3, 5}));
  EXPECT_EQ(Member(last_, "version"), "2");

  ASSERT_EQ(Append("x", EventJson("T")).status, 201u);    // 6
  ASSERT_EQ(Append("s-1", EventJson("T")).status, 201u);  // 7
  EXPECT_EQ(Read(all, 1), (Ids{7}));
  EXPECT_EQ(Member(last_, "version"), "3");
  EXPECT_EQ(Read(from, 1), (Ids{7}));
  ExpectQuiet(all);
}

TEST_P(SseTest, StreamSubscriptionWaitsForAStreamCreatedLater) {
  SseReader later(port(), "/subscribe/streams/BANK%2F7");
  ASSERT_TRUE(later.ReadHead());
  EXPECT_EQ(later.status(), 200u);
  ASSERT_EQ(Append("BANK%2F70", EventJson("T")).status, 201u);
  ASSERT_EQ(Append("BANK", EventJson("T")).status, 201u);
  ASSERT_EQ(Append("BANK%2F7", EventJson("Opened")).status, 201u);
  EXPECT_EQ(Read(later, 1), (Ids{3}));
  EXPECT_EQ(Member(last_, "stream"), "\"BANK/7\"");
  EXPECT_EQ(Member(last_, "version"), "0");
  ExpectQuiet(later);
}

TEST_P(SseTest, HeartbeatCommentsKeepAnIdleStreamAlive) {
  ASSERT_NO_FATAL_FAILURE(Start({"--heartbeat-ms", "200"}));
  SseReader reader(port(), "/subscribe/all");
  int heartbeats = 0;
  while (heartbeats < 3) {
    std::optional<SseItem> item = reader.Next(Millis(5000));
    ASSERT_TRUE(item) << "no heartbeat within 5 s";
    EXPECT_TRUE(item->comment) << "a message on an empty store: " << item->data;
    if (item->comment && item->data == "heartbeat") ++heartbeats;
  }
}

TEST_P(SseTest, BadSubscriptionsAre400) {
  for (const char* target : {"/subscribe/all?from=abc", "/subscribe/all?from=-1",
                             "/subscribe/streams/%FF", "/subscribe/streams/s?from=x"}) {
    SseReader reader(port(), target);
    ASSERT_TRUE(reader.ReadHead()) << target;
    EXPECT_EQ(reader.status(), 400u) << target;
    const json::value body = ParseOrNull(reader.ReadErrorBody());
    EXPECT_EQ(Member(body, "error"), "\"invalid\"") << target;
  }
  EXPECT_EQ(http().Get("/health").status, 200u);
}

INSTANTIATE_TEST_SUITE_P(Backends, SseTest, ::testing::ValuesIn(kServerBackends),
                         [](const auto& param_info) { return param_info.param; });

// The value of the sample "NAME VALUE" in Prometheus text; -1 if absent.
double Metric(const std::string& text, const std::string& name) {
  const auto at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

// Polls /metrics until `name` is `value` (or 20 s pass); its last value.
double AwaitMetric(HttpClient& http, const std::string& name, double value) {
  double seen = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    seen = Metric(http.Get("/metrics").body, name);
    if (seen == value) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return seen;
}

using SseResourceTest = ServerTest;

TEST_F(SseResourceTest, AReaderThatTakesNothingIsDisconnectedAfterTheWriteTimeout) {
  ASSERT_NO_FATAL_FAILURE(Start({"--sse-write-timeout-ms", "300"}));
  // 12 MiB of backlog: more than the socket buffers on both sides hold, so
  // the server's writes stall once the reader stops taking them.
  const std::string data = "\"" + std::string(200 * 1024, 'x') + "\"";
  for (int i = 0; i < 60; ++i) ASSERT_EQ(Append("big-1", EventJson("Big", data)).status, 201u);
  SseReader stuck(port(), "/subscribe/all", {}, /*rcvbuf=*/4096);
  ASSERT_TRUE(stuck.ReadHead());
  ASSERT_EQ(stuck.status(), 200u);
  EXPECT_EQ(AwaitMetric(http(), "indelible_subscribers", 0), 0)
      << "a subscriber that reads nothing is still connected";
  // The server goes on serving others.
  SseReader other(port(), "/subscribe/all?from=60");
  std::optional<SseItem> item = other.NextMessage(Millis(15000));
  ASSERT_TRUE(item);
  EXPECT_EQ(item->id, "60");
}

TEST_F(SseResourceTest, AClosedSubscriberLeavesNoCommitWaiterBehind) {
  ASSERT_EQ(Append("w-1", EventJson("T")).status, 201u);
  {
    SseReader reader(port(), "/subscribe/all?from=end");
    std::optional<SseItem> item = reader.Next(Millis(15000));
    ASSERT_TRUE(item && item->comment && item->data == "caught-up");
    // Caught up, it waits for a commit; then the client goes away.
    ASSERT_EQ(AwaitMetric(http(), "indelible_commit_waiters", 1), 1);
    reader.Close();
  }
  ASSERT_EQ(AwaitMetric(http(), "indelible_subscribers", 0), 0);
  EXPECT_EQ(AwaitMetric(http(), "indelible_commit_waiters", 0), 0)
      << "the closed subscription is still registered for the next commit";
}

}  // namespace
}  // namespace indelible
