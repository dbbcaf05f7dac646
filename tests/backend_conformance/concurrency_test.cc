// Many threads racing: one winner per version, and readers tailing $all see
// every position exactly once, in order.
#include <atomic>
#include <barrier>
#include <map>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

TEST_P(ConformanceTest, ConcurrencySixteenThreadsRaceOnOneStream) {
  constexpr int kThreads = 16;
  constexpr int kRounds = 40;
  std::barrier sync(kThreads);
  std::atomic<int> winners[kRounds] = {};
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < kRounds; ++round) {
        sync.arrive_and_wait();  // every thread tries the same version at once
        const Expected expected =
            round == 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(round - 1));
        auto result = store().Append("race", expected, {Event()});
        if (result.ok()) {
          ++winners[round];
          if (result->last_version.value() != round) ++unexpected;
        } else if (result.status().code() != ErrorCode::kConflict ||
                   result.status().actual_version() != round) {
          ++unexpected;
        }
        sync.arrive_and_wait();  // the round is decided before the next starts
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  for (int round = 0; round < kRounds; ++round) EXPECT_EQ(winners[round].load(), 1) << round;
  auto events = Read("race");
  ASSERT_EQ(events.size(), static_cast<std::size_t>(kRounds));
  for (int v = 0; v < kRounds; ++v) EXPECT_EQ(events[v].version.value(), v);
}

TEST_P(ConformanceTest, ConcurrencyWritersOnSeparateStreamsWhileTwoReadersTailAll) {
  constexpr int kWriters = 64;
  constexpr int kAppends = 25;  // of 2 events each
  constexpr std::uint64_t kTotal = kWriters * kAppends * 2;
  std::atomic<bool> failed{false};

  auto tail = [&](std::vector<RecordedEvent>* seen) {
    Position next(1);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (next.value() <= kTotal && std::chrono::steady_clock::now() < deadline) {
      store().WaitForCommit(Position(next.value() - 1), std::chrono::milliseconds(100));
      auto cursor = store().ReadAll(ReadAllOptions{next, SIZE_MAX, {}});
      if (!cursor.ok()) return void(failed = true);
      for (; (*cursor)->Valid(); (*cursor)->Next()) {
        seen->push_back((*cursor)->event().ToOwned());
        next = (*cursor)->event().position.next();
      }
    }
  };
  std::vector<RecordedEvent> seen_a, seen_b;
  std::thread reader_a(tail, &seen_a), reader_b(tail, &seen_b);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      const std::string stream = "tailed-" + std::to_string(w);
      for (int i = 0; i < kAppends; ++i) {
        auto expected =
            i == 0 ? Expected::no_stream() : Expected::exactly(StreamVersion(2 * i - 1));
        if (!store().Append(stream, expected, Events(2)).ok()) failed = true;
      }
    });
  }
  for (auto& t : writers) t.join();
  reader_a.join();
  reader_b.join();
  ASSERT_FALSE(failed.load());
  for (const auto* seen : {&seen_a, &seen_b}) {
    ASSERT_EQ(seen->size(), kTotal);
    std::map<std::string, std::int64_t> next_version;
    for (std::size_t i = 0; i < seen->size(); ++i) {
      const RecordedEvent& e = (*seen)[i];
      ASSERT_EQ(e.position.value(), i + 1) << "gap or repeat at " << i;
      EXPECT_EQ(e.version.value(), next_version[e.stream]++) << e.stream;
    }
  }
}

}  // namespace
}  // namespace indelible::conformance
