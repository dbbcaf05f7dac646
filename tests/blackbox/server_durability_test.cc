// `indelible serve` stopped under load: kill -9 loses no acknowledged
// append, SIGTERM drains cleanly. Both restart the server on the same store
// folder and check every append that was answered 201.
#include <atomic>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "server_fixture.h"

namespace indelible {
namespace {

using testutil::SseReader;

// One append as the client sent it, and what the server said.
struct Sent {
  std::string stream;
  std::vector<std::string> ids;
  unsigned status = 0;
  json::value result;  // the 201 body
};

class DurabilityTest : public ServerTest {
 protected:
  // `kWriters` threads, each on its own connection, append batches of 1 to
  // 3 events with their own ids to shared streams until the server stops
  // answering.
  void StartWriters() {
    for (int w = 0; w < kWriters; ++w) {
      writers_.emplace_back([this, w, port = port()] {
        HttpClient client(port, Millis(30000));
        for (int i = 0;; ++i) {
          Sent sent;
          sent.stream = "durable-" + std::to_string((w + i) % 5);
          std::string body = "[";
          for (int e = 0; e <= (w + i) % 3; ++e) {
            sent.ids.push_back(NewUuid());
            body += (e ? "," : "") + EventJson("T", std::to_string(i), sent.ids.back());
          }
          HttpResponse r = client.Post("/streams/" + sent.stream, body + "]");
          sent.status = r.status;
          if (r.status == 201) sent.result = r.Json();
          {
            std::lock_guard lock(mutex_);
            sent_.push_back(sent);
            if (r.status == 201) ++acknowledged_;
          }
          if (r.status != 201) return;  // the server is going away
        }
      });
    }
  }

  void WaitForAcknowledged(int n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (acknowledged_ < n && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GE(acknowledged_.load(), n) << "the writers did not get going";
  }

  void JoinWriters() {
    for (auto& writer : writers_) writer.join();
    writers_.clear();
  }

  // After a restart: every acknowledged append is there with its versions
  // and positions, and an unanswered one is there entirely or not at all.
  void ExpectEveryAcknowledgedAppend() {
    std::map<std::string, json::object> by_id;
    for (const json::object& event : ReadAll()) by_id[StringOf(event, "id")] = event;
    int acknowledged = 0;
    for (const Sent& sent : sent_) {
      if (sent.status != 201) {
        EXPECT_TRUE(sent.status == 0 || sent.status == 503)
            << "an append was answered " << sent.status;
        std::size_t present = 0;
        for (const auto& id : sent.ids) present += by_id.count(id);
        EXPECT_TRUE(present == 0 || present == sent.ids.size())
            << present << " of " << sent.ids.size() << " events of one append were written";
        continue;
      }
      ++acknowledged;
      if (!sent.result.is_object()) {
        ADD_FAILURE() << "a 201 without a JSON result";
        continue;
      }
      const std::int64_t first = IntOf(sent.result.as_object(), "firstVersion");
      const std::int64_t position = IntOf(sent.result.as_object(), "position");
      const std::int64_t n = static_cast<std::int64_t>(sent.ids.size());
      EXPECT_EQ(IntOf(sent.result.as_object(), "lastVersion"), first + n - 1);
      for (std::int64_t i = 0; i < n; ++i) {
        auto found = by_id.find(sent.ids[i]);
        ASSERT_NE(found, by_id.end()) << "acknowledged event " << sent.ids[i] << " is lost";
        EXPECT_EQ(StringOf(found->second, "stream"), sent.stream);
        EXPECT_EQ(IntOf(found->second, "version"), first + i);
        EXPECT_EQ(IntOf(found->second, "position"), position - n + 1 + i);
      }
      // And the stream read agrees.
      HttpResponse read = http().Get("/streams/" + sent.stream + "?from=" + std::to_string(first) +
                                     "&limit=" + std::to_string(n));
      const std::vector<json::object> events = EventsOf(read.Json());
      ASSERT_EQ(events.size(), sent.ids.size()) << read.body;
      for (std::size_t i = 0; i < events.size(); ++i) {
        EXPECT_EQ(StringOf(events[i], "id"), sent.ids[i]);
      }
    }
    EXPECT_EQ(acknowledged, acknowledged_.load());
    std::cout << acknowledged << " acknowledged appends of " << sent_.size() << " sent\n";
  }

  static constexpr int kWriters = 6;
  std::vector<std::thread> writers_;
  std::mutex mutex_;
  std::vector<Sent> sent_;
  std::atomic<int> acknowledged_{0};
};

TEST_F(DurabilityTest, KillNineLosesNoAcknowledgedAppend) {
  StartWriters();
  WaitForAcknowledged(300);
  server().Kill();
  JoinWriters();
  ASSERT_NO_FATAL_FAILURE(Start());
  ExpectEveryAcknowledgedAppend();
  // The store takes appends again where it left off.
  EXPECT_EQ(Append("durable-0", EventJson("After")).status, 201u);
}

TEST_F(DurabilityTest, SigtermDrainsAppendsAndClosesSubscriptions) {
  SseReader subscriber(port(), "/subscribe/all?from=1");
  ASSERT_TRUE(subscriber.ReadHead());
  ASSERT_EQ(subscriber.status(), 200u);
  StartWriters();
  WaitForAcknowledged(300);
  const auto start = std::chrono::steady_clock::now();
  const std::optional<int> exit_status = server().Terminate(std::chrono::seconds(30));
  EXPECT_EQ(exit_status, 0) << "no clean exit within 30 s of SIGTERM";
  if (!exit_status) server().Kill();
  JoinWriters();
  std::cout << "stopped in "
            << std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - start)
                   .count()
            << " ms\n";

  // The subscription ended (after whatever the server had sent).
  std::int64_t last = 0;
  while (auto item = subscriber.NextMessage(Millis(10000))) {
    EXPECT_GT(std::stoll(item->id), last);
    last = std::stoll(item->id);
  }
  EXPECT_TRUE(subscriber.ended()) << "the subscription was left open";

  ASSERT_NO_FATAL_FAILURE(Start());
  ExpectEveryAcknowledgedAppend();
}

}  // namespace
}  // namespace indelible
