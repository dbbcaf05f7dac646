// The NATS JetStream relay against a real `nats-server -js` started by
// scripts/nats-server.sh on a free loopback port: every event exactly once,
// in position order, with its subject and headers; resuming from what
// JetStream holds; refusing streams it does not own; and, end to end, the
// relay process killed with SIGKILL at random moments and NATS restarted
// while appends go on, ending with JetStream holding every event once in
// order.
#include <indelible/client.h>
#include <indelible/consumer_group.h>
#include <indelible/entity.h>
#include <indelible/nats_relay.h>
#include <indelible/store.h>
#include <nats/nats.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>

#include "gtest/gtest.h"
#include "testutil/cli_runner.h"
#include "testutil/nats_server.h"
#include "testutil/server_process.h"
#include "testutil/temp_dir.h"

// A tiny entity for the outbox test: a counter whose rule publishes
// "Counted" for every "Add" event.
struct Counter {
  std::int64_t total = 0;
};
struct Add {
  std::int64_t n = 0;
};

template <>
struct indelible::Codec<Counter> {
  static std::string Encode(const Counter& c) {
    return "{\"total\":" + std::to_string(c.total) + "}";
  }
  static Result<Counter> Decode(std::string_view json) {
    const auto colon = json.find(':');
    if (colon == std::string_view::npos) return Status::Invalid("total", "missing");
    return Counter{std::stoll(std::string(json.substr(colon + 1)))};
  }
};
template <>
struct indelible::Codec<Add> {
  static std::string Encode(const Add& a) { return "{\"n\":" + std::to_string(a.n) + "}"; }
  static Result<Add> Decode(std::string_view json) {
    const auto colon = json.find(':');
    if (colon == std::string_view::npos) return Status::Invalid("n", "missing");
    return Add{std::stoll(std::string(json.substr(colon + 1)))};
  }
};

namespace indelible {
namespace {

using std::chrono::milliseconds;

struct JsMessage {
  std::string subject;
  std::map<std::string, std::string> headers;
  std::string data;
};

std::string Header(natsMsg* msg, const char* key) {
  const char* value = nullptr;
  return natsMsgHeader_Get(msg, key, &value) == NATS_OK && value ? value : "";
}

// Every message of a JetStream stream, in sequence order.
std::vector<JsMessage> ReadJetStream(const std::string& url, const std::string& stream) {
  std::vector<JsMessage> out;
  natsConnection* conn = nullptr;
  jsCtx* js = nullptr;
  jsStreamInfo* info = nullptr;
  jsErrCode code{};
  EXPECT_EQ(natsConnection_ConnectTo(&conn, url.c_str()), NATS_OK);
  if (conn == nullptr) return out;
  EXPECT_EQ(natsConnection_JetStream(&js, conn, nullptr), NATS_OK);
  if (js_GetStreamInfo(&info, js, stream.c_str(), nullptr, &code) == NATS_OK) {
    for (std::uint64_t seq = info->State.FirstSeq; seq <= info->State.LastSeq && seq > 0; ++seq) {
      natsMsg* msg = nullptr;
      if (js_GetMsg(&msg, js, stream.c_str(), seq, nullptr, &code) != NATS_OK) {
        ADD_FAILURE() << "message " << seq << " of " << stream << " is missing";
        continue;
      }
      JsMessage m;
      m.subject = natsMsg_GetSubject(msg);
      for (const char* key :
           {"Nats-Msg-Id", "Indelible-Stream", "Indelible-Version", "Indelible-Position",
            "Indelible-Type", "Indelible-Metadata", "Indelible-Tags", "Content-Type"})
        m.headers[key] = Header(msg, key);
      m.data.assign(natsMsg_GetData(msg), static_cast<std::size_t>(natsMsg_GetDataLength(msg)));
      out.push_back(std::move(m));
      natsMsg_Destroy(msg);
    }
    jsStreamInfo_Destroy(info);
  }
  jsCtx_Destroy(js);
  natsConnection_Destroy(conn);
  return out;
}

// The stream's message count; 0 if it does not exist or NATS is down.
std::uint64_t JetStreamCount(const std::string& url, const std::string& stream) {
  natsConnection* conn = nullptr;
  jsCtx* js = nullptr;
  jsStreamInfo* info = nullptr;
  jsErrCode code{};
  std::uint64_t count = 0;
  natsOptions* opts = nullptr;
  natsOptions_Create(&opts);
  natsOptions_SetURL(opts, url.c_str());
  natsOptions_SetTimeout(opts, 500);
  if (natsConnection_Connect(&conn, opts) == NATS_OK &&
      natsConnection_JetStream(&js, conn, nullptr) == NATS_OK &&
      js_GetStreamInfo(&info, js, stream.c_str(), nullptr, &code) == NATS_OK) {
    count = info->State.Msgs;
    jsStreamInfo_Destroy(info);
  }
  natsOptions_Destroy(opts);
  if (js != nullptr) jsCtx_Destroy(js);
  if (conn != nullptr) natsConnection_Destroy(conn);
  return count;
}

// Waits (up to 30 s) until the stream holds more than `than` messages: a
// relay is publishing. Returns the count seen.
std::uint64_t WaitForGrowth(const std::string& url, std::uint64_t than) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  std::uint64_t count = 0;
  while ((count = JetStreamCount(url, "INDELIBLE")) <= than &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(20));
  return count;
}

// What the store holds that a relay over everything must publish.
std::vector<RecordedEvent> EventsToRelay(Store& store) {
  std::vector<RecordedEvent> out;
  auto cursor = store.ReadAll();
  EXPECT_TRUE(cursor.ok());
  for (; (*cursor)->Valid(); (*cursor)->Next())
    if ((*cursor)->event().stream.front() != '$') out.push_back((*cursor)->event().ToOwned());
  return out;
}

// JetStream holds exactly `events`, once each, in position order.
void ExpectExactlyOnceInOrder(const std::vector<JsMessage>& messages,
                              const std::vector<RecordedEvent>& events) {
  ASSERT_EQ(messages.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(messages[i].headers.at("Indelible-Position"),
              std::to_string(events[i].position.value()))
        << "message " << i + 1;
    ASSERT_EQ(messages[i].headers.at("Nats-Msg-Id"), events[i].id.ToString());
  }
}

class NatsRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(nats_.Start()) << "scripts/nats-server.sh could not start nats-server";
    auto store = Store::Open("file:" + dir_.Sub("data"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
  }
  void Put(const std::string& stream, const std::string& type, int n,
           const std::string& metadata = "{}", const std::vector<std::string>& tags = {}) {
    std::vector<EventData> events;
    for (int i = 0; i < n; ++i) {
      EventData e;
      e.id = EventId::Random();
      e.type = type;
      e.data = "{\"i\":" + std::to_string(i) + "}";
      e.metadata = metadata;
      e.tags = tags;
      events.push_back(std::move(e));
    }
    ASSERT_TRUE(store_->Append(stream, Expected::any(), std::move(events)).ok());
  }
  // One relay run over the group `group` until caught up.
  NatsRelayStats Relay(const std::string& group, NatsRelayOptions options = {},
                       const ConsumerGroupOptions& group_options = {}) {
    EXPECT_TRUE(ConsumerGroup::Create(*store_, group, group_options).ok());
    auto opened = ConsumerGroup::Open(*store_, group);
    EXPECT_TRUE(opened.ok());
    auto source = GroupRelaySource(**opened, "relay");
    options.nats_url = nats_.url();
    options.stop_when_idle = true;
    auto relay = NatsRelay::Connect(options);
    EXPECT_TRUE(relay.ok()) << relay.status().ToString();
    if (!relay.ok()) return {};
    std::atomic<bool> stop{false};
    Status s = (*relay)->Run(*source, stop);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return (*relay)->stats();
  }

  testutil::TempDir dir_;
  testutil::NatsServer nats_{dir_.Sub("nats")};
  std::unique_ptr<Store> store_;
};

TEST_F(NatsRelayTest, PublishesEveryEventOnceInPositionOrderWithSubjectAndHeaders) {
  Put("order-1", "Order.Placed", 3, R"({"user":"ann"})");
  Put("user-7", "Renamed", 2, "{}", {"user:7", "course:c1"});
  Put("order-2", "Order.Placed", 40);
  NatsRelayOptions options;
  options.batch = 16;  // several rounds
  NatsRelayStats stats = Relay("relay", options);
  EXPECT_EQ(stats.published, 45u);
  EXPECT_EQ(stats.position.value(), 45u);

  auto messages = ReadJetStream(nats_.url(), "INDELIBLE");
  ExpectExactlyOnceInOrder(messages, EventsToRelay(*store_));
  ASSERT_EQ(messages.size(), 45u);
  EXPECT_EQ(messages[0].subject, "indelible.order.Order.Placed");
  EXPECT_EQ(messages[0].headers["Indelible-Stream"], "order-1");
  EXPECT_EQ(messages[0].headers["Indelible-Version"], "0");
  EXPECT_EQ(messages[0].headers["Indelible-Type"], "Order.Placed");
  EXPECT_EQ(messages[0].headers["Indelible-Metadata"], R"({"user":"ann"})");
  EXPECT_EQ(messages[0].headers["Content-Type"], "application/json");
  EXPECT_EQ(messages[0].data, R"({"i":0})");
  EXPECT_EQ(messages[3].subject, "indelible.user.Renamed");
  EXPECT_EQ(messages[3].headers["Indelible-Metadata"], "") << "{} is left out";
  EXPECT_EQ(messages[3].headers["Indelible-Tags"], R"(["course:c1","user:7"])") << "sorted";
  EXPECT_EQ(messages[0].headers["Indelible-Tags"], "") << "no tags: left out";

  // Again: nothing new. Then new events go after the others.
  EXPECT_EQ(Relay("relay").published, 0u);
  Put("user-7", "Renamed", 5);
  EXPECT_EQ(Relay("relay").published, 5u);
  ExpectExactlyOnceInOrder(ReadJetStream(nats_.url(), "INDELIBLE"), EventsToRelay(*store_));
}

// Outbound events of an entity are events of its outbox stream: a relay
// whose group selects the outbox prefix publishes them, and only them, each
// with the causation id of the inbound event that caused it.
TEST_F(NatsRelayTest, RelaysAnEntitysOutboundEventsSelectedByTheOutboxPrefix) {
  Rules<Counter> rules{Counter{}};
  rules.On<Add>("Add", [](Counter c, const Add& a, RuleContext& ctx) {
    c.total += a.n;
    ctx.Publish("Counted", c);
    return Result<Counter>(c);
  });
  Entity<Counter> counters(*store_, rules);
  std::vector<EventId> causes;
  for (int i = 1; i <= 3; ++i) {
    auto change = counters.Append("counter-1", {MakeEvent("Add", Add{i})});
    ASSERT_TRUE(change.ok()) << change.status().ToString();
    ASSERT_EQ(change->published.size(), 1u);
    causes.push_back(change->published[0].causation_id);
  }
  Put("order-1", "Order.Placed", 2);  // not outbound: not relayed

  ConsumerGroupOptions outbox;
  outbox.filter.stream_prefixes = {"outbox-"};
  NatsRelayStats stats = Relay("outbox-relay", {}, outbox);
  EXPECT_EQ(stats.published, 3u);
  auto messages = ReadJetStream(nats_.url(), "INDELIBLE");
  ASSERT_EQ(messages.size(), 3u);
  const std::vector<std::int64_t> totals = {1, 3, 6};
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(messages[i].subject, "indelible.outbox.Counted");
    EXPECT_EQ(messages[i].headers["Indelible-Stream"], "outbox-counter-1");
    EXPECT_EQ(messages[i].data, "{\"total\":" + std::to_string(totals[i]) + "}");
    EXPECT_NE(messages[i].headers["Indelible-Metadata"].find("\"causationId\":\"" +
                                                             causes[i].ToString() + "\""),
              std::string::npos)
        << messages[i].headers["Indelible-Metadata"];
  }
}

TEST_F(NatsRelayTest, AGroupThatLostItsAcksSkipsWhatJetStreamHolds) {
  Put("order-1", "Placed", 30);
  EXPECT_EQ(Relay("relay").published, 30u);
  // As if the relay died after JetStream acknowledged and before the group
  // saved: the group starts over, JetStream already has everything.
  ASSERT_TRUE(ConsumerGroup::Delete(*store_, "relay").ok());
  Put("order-1", "Placed", 5);
  NatsRelayStats again = Relay("relay");
  EXPECT_EQ(again.skipped, 30u);
  EXPECT_EQ(again.published, 5u);
  ExpectExactlyOnceInOrder(ReadJetStream(nats_.url(), "INDELIBLE"), EventsToRelay(*store_));
}

TEST_F(NatsRelayTest, RefusesAnUnreachableServerAndStreamsItDoesNotOwn) {
  NatsRelayOptions nowhere;
  nowhere.nats_url = "nats://127.0.0.1:1";
  auto down = NatsRelay::Connect(nowhere);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(down.status().message().find("nats://127.0.0.1:1"), std::string::npos);

  NatsRelayOptions bad_prefix;
  bad_prefix.subject_prefix = "a*b";
  EXPECT_EQ(NatsRelay::Connect(bad_prefix).status().code(), ErrorCode::kInvalid);

  // A stream of the same name that takes other subjects.
  natsConnection* conn = nullptr;
  jsCtx* js = nullptr;
  ASSERT_EQ(natsConnection_ConnectTo(&conn, nats_.url().c_str()), NATS_OK);
  ASSERT_EQ(natsConnection_JetStream(&js, conn, nullptr), NATS_OK);
  jsStreamConfig config;
  jsStreamConfig_Init(&config);
  config.Name = "OTHER";
  const char* subjects[1] = {"other.>"};
  config.Subjects = subjects;
  config.SubjectsLen = 1;
  jsStreamInfo* info = nullptr;
  jsErrCode code{};
  ASSERT_EQ(js_AddStream(&info, js, &config, nullptr, &code), NATS_OK);
  jsStreamInfo_Destroy(info);
  NatsRelayOptions other;
  other.nats_url = nats_.url();
  other.stream = "OTHER";
  auto refused = NatsRelay::Connect(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(refused.status().message().find("other.>"), std::string::npos)
      << refused.status().message();

  // A message someone else wrote into the relay's stream: Run says so.
  Put("order-1", "Placed", 1);
  EXPECT_EQ(Relay("relay").published, 1u);
  jsPubAck* ack = nullptr;
  ASSERT_EQ(js_Publish(&ack, js, "indelible.x.y", "hi", 2, nullptr, &code), NATS_OK);
  jsPubAck_Destroy(ack);
  ASSERT_TRUE(ConsumerGroup::Create(*store_, "relay", {}).ok());
  auto group = ConsumerGroup::Open(*store_, "relay");
  ASSERT_TRUE(group.ok());
  auto source = GroupRelaySource(**group, "relay");
  NatsRelayOptions options;
  options.nats_url = nats_.url();
  auto relay = NatsRelay::Connect(options);
  ASSERT_TRUE(relay.ok());
  std::atomic<bool> stop{false};
  Status s = (*relay)->Run(*source, stop);
  EXPECT_EQ(s.code(), ErrorCode::kInvalid) << s.ToString();
  EXPECT_NE(s.message().find("did not write"), std::string::npos) << s.message();
  jsCtx_Destroy(js);
  natsConnection_Destroy(conn);
}

// `indelible --data DIR relay nats`: the group in the CLI's process, its
// figures on stdout, bad flags refused before anything is published.
TEST_F(NatsRelayTest, TheCliRelaysAFolderAndRefusesBadFlags) {
  Put("order-1", "Order.Placed", 12);
  Put("user-1", "Renamed", 3);
  store_.reset();  // the CLI opens the folder
  const std::string data = "--data " + dir_.Sub("data");
  const std::string nats = " --nats " + nats_.url();
  auto bad =
      testutil::RunCli(INDELIBLE_PATH, data, "relay nats --subject-prefix 'a*'" + nats, "", dir_);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;  // invalid
  EXPECT_NE(bad.err.find("subject prefix"), std::string::npos) << bad.err;
  auto relayed = testutil::RunCli(INDELIBLE_PATH, data,
                                  "relay nats --category order --until-caught-up" + nats, "", dir_);
  ASSERT_EQ(relayed.exit_code, 0) << relayed.err;
  EXPECT_EQ(relayed.out,
            "relayed 12 event(s) to JetStream stream INDELIBLE (0 already there), position 12\n");
  auto again = testutil::RunCli(INDELIBLE_PATH, "--json " + data,
                                "relay nats --category order --until-caught-up" + nats, "", dir_);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "{\"published\":0,\"skipped\":0,\"position\":12}\n");
  auto listed = testutil::RunCli(INDELIBLE_PATH, data, "consumers list", "", dir_);
  EXPECT_NE(listed.out.find("relay-nats-INDELIBLE checkpoint 15 of 15"), std::string::npos)
      << listed.out << ": the filtered-out user events are passed too";
  EXPECT_EQ(ReadJetStream(nats_.url(), "INDELIBLE").size(), 12u);
}

// The relay as a process (`indelible --url ... relay nats`), so it can die.
pid_t SpawnRelay(const std::vector<std::string>& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::vector<char*> argv;
    std::string binary = INDELIBLE_PATH;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

int WaitExit(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -2;  // timed out
}

TEST_F(NatsRelayTest, KillNineAtRandomMomentsAndANatsRestartLoseAndDuplicateNothing) {
  store_.reset();  // the server opens the folder
  testutil::ServerProcess server(INDELIBLE_PATH, {"serve", "--store", "file:" + dir_.Sub("data")});
  ASSERT_TRUE(server.Start()) << server.output();
  auto client = Client::Connect(server.url());
  ASSERT_TRUE(client.ok());

  // Appends go on during the whole run.
  std::atomic<bool> stop_writer{false};
  std::atomic<int> appended{0};
  std::thread writer([&] {
    auto c = Client::Connect(server.url());
    ASSERT_TRUE(c.ok());
    for (int i = 0; !stop_writer.load(); ++i) {
      std::vector<EventData> events(5);
      for (auto& e : events) {
        e.id = EventId::Random();
        e.type = "Account.Credited";
        e.data = R"({"amount":1})";
      }
      auto r = (*c)->Append("acct-" + std::to_string(i % 17), Expected::any(), std::move(events));
      if (r.ok()) appended += 5;
      std::this_thread::sleep_for(milliseconds(2));
    }
  });

  const std::vector<std::string> relay_args = {"--url",   server.url(), "relay",      "nats",
                                               "--nats",  nats_.url(),  "--lease-ms", "500",
                                               "--batch", "64"};
  // Each round: a relay starts, is seen publishing, and is killed a random
  // moment later, mid-stream.
  std::mt19937 random(20261123);
  std::uniform_int_distribution<int> delay_ms(0, 300);
  std::uint64_t stored = 0;
  for (int round = 0; round < 8; ++round) {
    const pid_t relay = SpawnRelay(relay_args);
    const std::uint64_t before = stored;
    stored = WaitForGrowth(nats_.url(), stored);
    ASSERT_GT(stored, before) << "the relay of round " << round << " published nothing";
    if (round == 3) {
      // NATS goes away under the running relay and comes back on its port;
      // the same relay process must go on publishing.
      ASSERT_TRUE(nats_.Stop());
      std::this_thread::sleep_for(milliseconds(700));
      ASSERT_TRUE(nats_.Start());
      const std::uint64_t at_restart = JetStreamCount(nats_.url(), "INDELIBLE");
      stored = WaitForGrowth(nats_.url(), at_restart);
      ASSERT_GT(stored, at_restart) << "the relay did not resume after the NATS restart";
    }
    std::this_thread::sleep_for(milliseconds(delay_ms(random)));
    ::kill(relay, SIGKILL);
    int status = 0;
    ::waitpid(relay, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status)) << "the relay exited by itself in round " << round;
  }
  stop_writer.store(true);
  writer.join();
  ASSERT_GT(appended.load(), 500);

  std::vector<std::string> final_args = relay_args;
  final_args.push_back("--until-caught-up");
  EXPECT_EQ(WaitExit(SpawnRelay(final_args), std::chrono::seconds(120)), 0);
  ASSERT_EQ(server.Terminate(), 0);

  auto store = Store::Open("file:" + dir_.Sub("data"));
  ASSERT_TRUE(store.ok());
  const std::vector<RecordedEvent> events = EventsToRelay(**store);
  EXPECT_EQ(events.size(), static_cast<std::size_t>(appended.load()));
  ExpectExactlyOnceInOrder(ReadJetStream(nats_.url(), "INDELIBLE"), events);
}

}  // namespace
}  // namespace indelible
