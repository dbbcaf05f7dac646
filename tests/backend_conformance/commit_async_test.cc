// Store::CommitAsync: the same decisions as Commit, answered through a
// callback exactly once; a refused request is answered before the call
// returns; racing asynchronous commits give one winner per version; what
// an answer names is readable when it comes; closing the store answers
// whatever is still in flight.
#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

using namespace std::chrono_literals;

CommitRequest One(std::string stream, Expected expected, std::vector<EventData> events) {
  CommitRequest commit;
  commit.appends.push_back(AppendRequest{std::move(stream), expected, std::move(events)});
  return commit;
}

// Submits and waits for the answer, counting the callback's calls.
Result<CommitResult> CommitAndWait(Store& store, CommitRequest commit) {
  std::promise<Result<CommitResult>> answered;
  std::atomic<int> calls{0};
  store.CommitAsync(std::move(commit), [&](Result<CommitResult> result) {
    if (++calls == 1) answered.set_value(std::move(result));
  });
  auto result = answered.get_future().get();
  std::this_thread::sleep_for(1ms);  // a second call would come now
  EXPECT_EQ(calls.load(), 1) << "the callback ran more than once";
  return result;
}

TEST_P(ConformanceTest, CommitAsyncDecidesAsCommitDoes) {
  const EventData retried = Event();
  auto first = CommitAndWait(store(), One("async-a", Expected::no_stream(), {retried, Event()}));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->appends[0].first_version.value(), 0);
  EXPECT_EQ(first->appends[0].last_version.value(), 1);

  auto conflict = CommitAndWait(store(), One("async-a", Expected::no_stream(), Events(1)));
  EXPECT_EQ(conflict.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(conflict.status().actual_version(), 1);
  EXPECT_FALSE(conflict.status().event_id_conflict()) << "a version conflict";
  EXPECT_EQ(conflict.status().stream(), "async-a");

  auto replay = CommitAndWait(store(), One("async-a", Expected::no_stream(), {retried, Event()}));
  EXPECT_EQ(replay.status().code(), ErrorCode::kConflict) << "a partial retry is a conflict";

  CommitRequest both;  // atomic across streams
  both.appends.push_back(AppendRequest{"async-b", Expected::any(), Events(1)});
  both.appends.push_back(AppendRequest{"async-a", Expected::exactly(StreamVersion(1)), Events(2)});
  auto committed = CommitAndWait(store(), std::move(both));
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  EXPECT_EQ(committed->appends[1].last_version.value(), 3);

  EXPECT_EQ(Read("async-a").size(), 4u);
  EXPECT_EQ(Read("async-b").size(), 1u);
}

TEST_P(ConformanceTest, CommitAsyncRefusesBadInputBeforeReturning) {
  bool answered = false;
  Status status;
  store().CommitAsync(One("", Expected::any(), Events(1)), [&](Result<CommitResult> result) {
    answered = true;
    status = result.status();
  });
  ASSERT_TRUE(answered) << "a refused request must be answered on the calling thread";
  EXPECT_EQ(status.code(), ErrorCode::kInvalid);
  EXPECT_EQ(status.field(), "stream");

  answered = false;
  store().CommitAsync(One("async-bad", Expected::any(), {Event("T", "{not json")}),
                      [&](Result<CommitResult> result) {
                        answered = true;
                        status = result.status();
                      });
  ASSERT_TRUE(answered);
  EXPECT_EQ(status.code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().Head("async-bad").status().code(), ErrorCode::kNotFound);
}

// What the answer names is readable by the time it comes: a client that got
// 201 and reads its stream sees its event.
TEST_P(ConformanceTest, CommitAsyncAnswersOnlyWhatReadersCanSee) {
  std::atomic<int> unseen{0};
  std::atomic<int> answered{0};
  constexpr int kCommits = 40;
  for (int i = 0; i < kCommits; ++i) {
    store().CommitAsync(One("async-visible-" + std::to_string(i % 4), Expected::any(), Events(1)),
                        [&](Result<CommitResult> result) {
                          if (result.ok()) {
                            const AppendResult& a = result->appends[0];
                            auto head = store().Head(a.stream);
                            if (!head.ok() || head->version < a.last_version) ++unseen;
                          }
                          ++answered;
                        });
  }
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (answered.load() < kCommits && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  ASSERT_EQ(answered.load(), kCommits);
  EXPECT_EQ(unseen.load(), 0) << "an answer came before its events were readable";
}

// Threads race asynchronous commits on one stream, each with the exact
// version it read: per version one winner, the others conflicts naming it.
TEST_P(ConformanceTest, ConcurrencyAsyncCommitsRaceOnOneStream) {
  const int threads = 8;
  const int rounds = GetParam().name == "dynamodb" ? 8 : 30;
  std::atomic<int> unexpected{0};
  std::atomic<int> won{0};
  std::vector<std::thread> racers;
  for (int t = 0; t < threads; ++t) {
    racers.emplace_back([&] {
      for (int round = 0; round < rounds; ++round) {
        auto head = store().Head("async-race");
        const Expected expected =
            head.ok() ? Expected::exactly(head->version) : Expected::no_stream();
        auto result = CommitAndWait(store(), One("async-race", expected, Events(1)));
        if (result.ok()) {
          ++won;
        } else if (result.status().code() != ErrorCode::kConflict) {
          ++unexpected;
          ADD_FAILURE() << result.status().ToString();
        }
      }
    });
  }
  for (auto& racer : racers) racer.join();
  EXPECT_EQ(unexpected.load(), 0);
  const auto events = Read("async-race");
  EXPECT_EQ(events.size(), static_cast<std::size_t>(won.load()));
  for (std::size_t v = 0; v < events.size(); ++v)
    EXPECT_EQ(events[v].version.value(), static_cast<std::int64_t>(v));
  EXPECT_GE(won.load(), rounds) << "every round has at least one winner";
}

// A store closed with commits in flight answers every one of them, and the
// ones it acknowledged are there when it is opened again.
TEST_P(DurableTest, ClosingAnswersEveryAsyncCommit) {
  std::mutex mu;
  std::vector<AppendResult> acknowledged;
  std::atomic<int> answered{0};
  constexpr int kCommits = 200;
  for (int i = 0; i < kCommits; ++i) {
    store().CommitAsync(One("async-close-" + std::to_string(i % 8), Expected::any(), Events(2)),
                        [&](Result<CommitResult> result) {
                          if (result.ok()) {
                            std::lock_guard lock(mu);
                            acknowledged.push_back(result->appends[0]);
                          }
                          ++answered;
                        });
  }
  Open();  // closes the store first
  EXPECT_EQ(answered.load(), kCommits);
  EXPECT_EQ(acknowledged.size(), static_cast<std::size_t>(kCommits));
  for (const AppendResult& a : acknowledged) {
    auto head = store().Head(a.stream);
    ASSERT_TRUE(head.ok()) << head.status().ToString();
    EXPECT_GE(head->version.value(), a.last_version.value()) << a.stream << " lost an ack";
  }
}

}  // namespace
}  // namespace indelible::conformance
