// ParallelCommits (src/storage/parallel_commits.h): the CommitEach of
// backends whose commits are remote round trips. Commits on different
// streams must be in flight together; commits sharing a stream must run one
// after another in their given order; results come back in order.
#include "store/parallel_commits.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace indelible::store {
namespace {

using Chains = std::vector<std::vector<std::size_t>>;

CommitRequest On(std::vector<std::string> streams) {
  CommitRequest commit;
  for (auto& stream : streams) commit.appends.push_back({std::move(stream), Expected::any(), {}});
  return commit;
}

std::vector<CommitRequest> Batch(std::vector<std::vector<std::string>> streams_of_each) {
  std::vector<CommitRequest> commits;
  for (auto& streams : streams_of_each) commits.push_back(On(std::move(streams)));
  return commits;
}

TEST(CommitChains, CommitsSharingAStreamFormOneChainInOrder) {
  EXPECT_EQ(CommitChains(Batch({{"a"}, {"b"}, {"a", "c"}, {"d"}, {"c"}})),
            (Chains{{0, 2, 4}, {1}, {3}}));
  // A later commit joins two chains that began apart.
  EXPECT_EQ(CommitChains(Batch({{"a"}, {"b"}, {"c"}, {"b", "a"}})), (Chains{{0, 1, 3}, {2}}));
  EXPECT_EQ(CommitChains(Batch({{"x"}, {"y"}, {"z"}})), (Chains{{0}, {1}, {2}}));
  EXPECT_EQ(CommitChains(Batch({{"s"}, {"s"}, {"s"}})), (Chains{{0, 1, 2}}));
  EXPECT_TRUE(CommitChains({}).empty());
}

// A commit function that records what runs at once, per stream and overall,
// and can hold each commit until `hold_until_in_flight` are running. The hold
// gives up once, for every commit, after a deadline (long, so a starved
// thread on a loaded CI machine still arrives in time), so a sequential
// implementation fails on max_in_flight() instead of hanging.
class Recorder {
 public:
  explicit Recorder(int hold_until_in_flight = 0) : hold_(hold_until_in_flight) {}

  Result<CommitResult> Commit(std::vector<AppendRequest> appends, const CommitOptions&) {
    {
      std::unique_lock lock(mu_);
      for (const auto& append : appends) {
        if (!busy_.insert(append.stream).second) overlapped_same_stream_ = true;
        order_[append.stream].push_back(append.events.empty() ? "" : append.events[0].type);
      }
      max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
      changed_.notify_all();
      if (!changed_.wait_for(lock, std::chrono::seconds(30),
                             [&] { return gave_up_ || in_flight_ >= hold_; })) {
        gave_up_ = true;
        changed_.notify_all();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard lock(mu_);
    --in_flight_;
    CommitResult result;
    for (const auto& append : appends) {
      busy_.erase(append.stream);
      AppendResult one;
      one.stream = append.stream;
      result.appends.push_back(one);
    }
    return result;
  }

  ParallelCommits::CommitFn Fn() {
    return [this](std::vector<AppendRequest> appends, const CommitOptions& options) {
      return Commit(std::move(appends), options);
    };
  }

  int max_in_flight() {
    std::lock_guard lock(mu_);
    return max_in_flight_;
  }
  bool overlapped_same_stream() {
    std::lock_guard lock(mu_);
    return overlapped_same_stream_;
  }
  std::vector<std::string> order(const std::string& stream) {
    std::lock_guard lock(mu_);
    return order_[stream];
  }

 private:
  const int hold_;
  std::mutex mu_;
  std::condition_variable changed_;
  int in_flight_ = 0, max_in_flight_ = 0;
  bool gave_up_ = false;
  std::set<std::string> busy_;
  bool overlapped_same_stream_ = false;
  std::map<std::string, std::vector<std::string>> order_;
};

TEST(ParallelCommits, CommitsOnDifferentStreamsAreInFlightTogether) {
  Recorder recorder(/*hold_until_in_flight=*/4);
  ParallelCommits parallel(4, recorder.Fn());
  auto results = parallel.CommitEach(Batch({{"a"}, {"b"}, {"c"}, {"d"}}));
  // All four were running at once (in turn, the hold would have given up
  // with one in flight). Elapsed time proves nothing on a loaded machine.
  EXPECT_EQ(recorder.max_in_flight(), 4);
  ASSERT_EQ(results.size(), 4u);
  const char* streams[] = {"a", "b", "c", "d"};
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(results[i].ok());
    EXPECT_EQ(results[i]->appends[0].stream, streams[i]);
  }
}

TEST(ParallelCommits, NeverMoreThanItsThreads) {
  Recorder recorder;
  ParallelCommits parallel(3, recorder.Fn());
  std::vector<std::vector<std::string>> streams;
  for (int i = 0; i < 24; ++i) streams.push_back({"s" + std::to_string(i)});
  auto results = parallel.CommitEach(Batch(streams));
  EXPECT_EQ(results.size(), 24u);
  EXPECT_LE(recorder.max_in_flight(), 3);
  EXPECT_GE(recorder.max_in_flight(), 2);
}

TEST(ParallelCommits, CommitsSharingAStreamRunInTurnAndInOrder) {
  Recorder recorder;
  ParallelCommits parallel(8, recorder.Fn());
  std::vector<CommitRequest> commits;
  for (int i = 0; i < 20; ++i) {
    CommitRequest commit = On({i % 2 == 0 ? "even" : "odd"});
    if (i == 7) commit.appends.push_back({"even", Expected::any(), {}});  // joins the chains
    EventData event;
    event.type = std::to_string(i);
    for (auto& append : commit.appends) append.events.push_back(event);
    commits.push_back(std::move(commit));
  }
  auto results = parallel.CommitEach(std::move(commits));
  EXPECT_FALSE(recorder.overlapped_same_stream());
  std::vector<std::string> expected_even, expected_odd;
  for (int i = 0; i < 20; ++i) {
    (i % 2 == 0 ? expected_even : expected_odd).push_back(std::to_string(i));
    if (i == 7) expected_even.push_back("7");
  }
  EXPECT_EQ(recorder.order("even"), expected_even);
  EXPECT_EQ(recorder.order("odd"), expected_odd);
  ASSERT_EQ(results.size(), 20u);
}

std::string Name(int caller, int round, int i) {
  return "c" + std::to_string(caller) + "-" + std::to_string(round) + "-" + std::to_string(i);
}

TEST(ParallelCommits, ConcurrencyManyCallersEachGetTheirOwnResults) {
  Recorder recorder;
  ParallelCommits parallel(4, recorder.Fn());
  std::vector<std::thread> callers;
  std::atomic<int> right{0};
  for (int t = 0; t < 6; ++t) {
    callers.emplace_back([&, t] {
      for (int round = 0; round < 10; ++round) {
        std::vector<std::vector<std::string>> streams;
        for (int i = 0; i < 5; ++i) streams.push_back({Name(t, round, i)});
        auto results = parallel.CommitEach(Batch(streams));
        for (int i = 0; i < 5; ++i)
          if (results[static_cast<std::size_t>(i)]->appends[0].stream == Name(t, round, i)) ++right;
      }
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(right.load(), 6 * 10 * 5);
  // Each caller works on its own calls, and the 3 workers help whoever asked.
  EXPECT_LE(recorder.max_in_flight(), 6 + 3);
}

TEST(ParallelCommits, OneThreadCommitsInTurnOnTheCaller) {
  Recorder recorder;
  ParallelCommits parallel(1, recorder.Fn());
  auto results = parallel.CommitEach(Batch({{"a"}, {"b"}, {"c"}}));
  EXPECT_EQ(results.size(), 3u);
  EXPECT_EQ(recorder.max_in_flight(), 1);
  EXPECT_TRUE(parallel.CommitEach({}).empty());
}

}  // namespace
}  // namespace indelible::store
