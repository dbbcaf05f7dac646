// `indelible serve` under load: concurrent appends racing on one expected
// version, and subscribers that stop reading while appends pour in.
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <latch>
#include <thread>

#include "server_fixture.h"

namespace indelible {
namespace {

using Clock = std::chrono::steady_clock;
using testutil::SseReader;

using LoadTest = ServerTest;

TEST_F(LoadTest, ConcurrentAppendsWithTheSameIfMatchGiveOneWinner) {
  constexpr int kClients = 32;
  constexpr int kRounds = 5;
  ASSERT_EQ(Append("hot", EventJson("T")).status, 201u);
  std::vector<std::unique_ptr<HttpClient>> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(std::make_unique<HttpClient>(port()));
    ASSERT_EQ(clients.back()->Get("/health").status, 200u);  // connected before the race
  }
  for (int round = 0; round < kRounds; ++round) {
    std::vector<HttpResponse> answers(kClients);
    std::latch go(kClients + 1);
    std::vector<std::thread> threads;
    for (int i = 0; i < kClients; ++i) {
      threads.emplace_back([&, i] {
        go.arrive_and_wait();
        answers[i] = clients[i]->Post("/streams/hot", EventJson("T", std::to_string(i)),
                                      {{"If-Match", Quoted(round)}});
      });
    }
    go.arrive_and_wait();
    for (auto& thread : threads) thread.join();
    int created = 0, conflicts = 0;
    for (const HttpResponse& answer : answers) {
      if (answer.status == 201) {
        ++created;
        EXPECT_EQ(answer.Header("ETag"), Quoted(round + 1));
      } else {
        EXPECT_TRUE(IsError(answer, 409, "conflict"));
        EXPECT_EQ(Member(answer.Json(), "actualVersion"), std::to_string(round + 1));
        EXPECT_EQ(answer.Header("ETag"), Quoted(round + 1));
        ++conflicts;
      }
    }
    EXPECT_EQ(created, 1) << "round " << round;
    EXPECT_EQ(conflicts, kClients - 1) << "round " << round;
    EXPECT_EQ(HeadVersion("hot"), round + 1);
  }
  EXPECT_EQ(ReadAll().size(), 1u + kRounds);
}

// Ten subscribers stop reading (a tiny receive window, and no reads) while
// 20,000 events of 1 KiB are appended: the appends go on at full speed, the
// server holds a page per subscriber rather than everything, a subscriber
// that does read gets everything meanwhile, and a stalled one that starts
// reading again catches up with every event in order.
TEST_F(LoadTest, SlowReadersNeitherBlockAppendsNorGrowTheServer) {
  // Under AddressSanitizer freed memory sits in a quarantine (256 MiB by
  // default) and would count as resident: keep it small for this server.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string saved = asan ? asan : "";
  ::setenv("ASAN_OPTIONS", (saved + (saved.empty() ? "" : ":") + "quarantine_size_mb=16").c_str(),
           1);
  // The stalled readers must outlast the appends however long those take
  // (up to the 60 s allowed below): the default 30 s write timeout would
  // cut them off first.
  Start({"--sse-write-timeout-ms", "600000"});
  if (saved.empty())
    ::unsetenv("ASAN_OPTIONS");
  else
    ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
  ASSERT_FALSE(HasFatalFailure());

  constexpr int kSlowReaders = 10;
  constexpr int kBatches = 100;
  constexpr int kBatchEvents = 200;
  constexpr std::int64_t kEvents = kBatches * kBatchEvents;
  // What the flood may add to the server's memory. The 20 MB of events
  // held once (the engine's memtable and caches) fit; each of the 10 slow
  // readers buffering what it has not read (20 MB each) does not. A bound
  // on growth, not on the total: the ASan binary's own baseline moves with
  // the code linked into it (about 250 MB here).
  constexpr long kMaxGrowthKiB = 128 * 1024;

  std::vector<std::unique_ptr<SseReader>> slow;
  for (int i = 0; i < kSlowReaders; ++i) {
    slow.push_back(std::make_unique<SseReader>(port(), "/subscribe/all?from=1", Headers{}, 4096));
    ASSERT_TRUE(slow.back()->ReadHead());
    ASSERT_EQ(slow.back()->status(), 200u);
  }
  std::atomic<std::int64_t> fast_count{0};
  std::atomic<bool> fast_in_order{true};
  std::thread fast([&, port = port()] {
    SseReader reader(port, "/subscribe/all?from=1");
    std::int64_t expected = 1;
    while (expected <= kEvents) {
      auto item = reader.NextMessage(Millis(60000));
      if (!item) break;
      if (std::stoll(item->id) != expected) fast_in_order = false;
      fast_count = expected++;
    }
  });
  std::atomic<bool> flooding{true};
  std::atomic<long> peak_rss{RssKiB(server().pid())};
  const long baseline_rss = peak_rss;
  std::thread sampler([&, pid = server().pid()] {
    while (flooding) {
      peak_rss = std::max(peak_rss.load(), RssKiB(pid));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });

  std::string batch = "[";
  for (int i = 0; i < kBatchEvents; ++i) {
    batch += (i ? "," : "") + EventJson("Filled", "\"" + std::string(1024, 'f') + "\"");
  }
  batch += "]";
  const auto start = Clock::now();
  HttpClient writer(port());
  for (int b = 0; b < kBatches; ++b) {  // no ASSERT while the threads run
    HttpResponse r = writer.Post("/streams/flood-" + std::to_string(b % 10), batch);
    EXPECT_EQ(r.status, 201u) << r.body << r.error;
    EXPECT_EQ(Member(r.Json(), "position"), std::to_string((b + 1) * kBatchEvents));
    if (r.status != 201) break;
  }
  const auto took = Clock::now() - start;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the server settle
  flooding = false;
  sampler.join();
  EXPECT_LT(took, std::chrono::seconds(60)) << "appends were held up by the stalled readers";
  EXPECT_LT(peak_rss.load() - baseline_rss, kMaxGrowthKiB)
      << "server resident memory grew from " << baseline_rss << " KiB to " << peak_rss << " KiB";
  std::cout << "appends took "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
            << " ms; server RSS " << baseline_rss << " KiB before, peak " << peak_rss << " KiB\n";

  fast.join();
  EXPECT_EQ(fast_count.load(), kEvents) << "the reading subscriber did not get everything";
  EXPECT_TRUE(fast_in_order);

  // A stalled reader starts reading: everything, in order, once.
  std::int64_t expected = 1;
  while (expected <= kEvents) {
    auto item = slow[0]->NextMessage(Millis(30000));
    ASSERT_TRUE(item) << "the stalled reader stopped at position " << expected;
    ASSERT_EQ(std::stoll(item->id), expected);
    ++expected;
  }
  auto extra = slow[0]->NextMessage(Millis(300));
  EXPECT_FALSE(extra) << "after the last event: " << extra->id;
  slow.clear();  // the others go away without reading
  EXPECT_EQ(http().Get("/health").status, 200u);
  EXPECT_EQ(HeadVersion("flood-0"), kBatchEvents * kBatches / 10 - 1);
}

}  // namespace
}  // namespace indelible
