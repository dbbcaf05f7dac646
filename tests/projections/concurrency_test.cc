// Two runners of the same projection, each started in this process with
// connections of its own, race on one read store while four threads
// append (and each is stopped and started again now and then, so that the
// lead changes hands): they fence each other (the projection's row locked,
// generation and checkpoint checked), so every event is applied exactly
// once.
#include <gtest/gtest.h>
#include <indelible/projection.h>
#include <indelible/store.h>

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "projections/ledger_projection.h"
#include "projections/read_stores.h"

namespace indelible {
namespace {

using namespace std::chrono_literals;
using testutil::ReadStoreKind;

class ProjectionConcurrencyTest : public ::testing::TestWithParam<ReadStoreKind> {};

TEST_P(ProjectionConcurrencyTest, TwoRunnersOfOneProjectionApplyEachEventOnce) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  testutil::TempDir dir;
  const std::string url = testutil::FreshReadStoreUrl(GetParam(), dir);
  ASSERT_FALSE(url.empty());
  auto store = Store::Open("memory:");
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(testutil::AppendLedgerEvents(**store, 300, 20, rng).ok());

  std::vector<std::unique_ptr<ProjectionRunner>> runners;
  for (const char* tag : {"a", "b"}) {
    ProjectionOptions options;
    options.batch_events = 1 + rng() % 10;
    options.initial_backoff = 5ms;
    options.max_backoff = 100ms;
    auto runner = ProjectionRunner::Open(**store, url, testutil::LedgerProjection(tag), options);
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    runners.push_back(std::move(*runner));
  }
  // Both start at once: they also race to make the first copy.
  for (auto& runner : runners) runner->Start();

  std::atomic<int> writing{4};
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&store, &writing, seed = rng()] {
      std::mt19937 local(seed);
      for (int i = 0; i < 100; ++i) {
        EXPECT_TRUE(testutil::AppendLedgerEvents(**store, 1 + local() % 5, 20, local).ok());
        std::this_thread::sleep_for(std::chrono::microseconds(local() % 2000));
      }
      --writing;
    });
  }
  // Left alone, the runner that holds the lock tends to keep it (SQLite's
  // busy handler sleeps, the holder does not), so now and then one is
  // stopped for a moment and the other must take over from its checkpoint,
  // with events of its own to apply; then both race again.
  for (int pause = 0; writing > 0 || pause < 4; ++pause) {
    ProjectionRunner& paused = *runners[pause % 2];
    ProjectionRunner& other = *runners[1 - pause % 2];
    paused.Stop();
    // No ASSERT while the writers run: their threads must be joined.
    EXPECT_TRUE(testutil::AppendLedgerEvents(**store, 5, 20, rng).ok());
    EXPECT_TRUE(other.WaitFor((*store)->LastPosition(), 30s)) << "pause " << pause;
    paused.Start();
    std::this_thread::sleep_for(std::chrono::milliseconds(10 + rng() % 30));
  }
  for (auto& writer : writers) writer.join();
  const Position last = (*store)->LastPosition();
  for (auto& runner : runners)
    EXPECT_TRUE(runner->WaitFor(last, 60s)) << "a runner did not reach the end";
  for (auto& runner : runners) runner->Stop();

  auto db = ReadStore::Open(url);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto status = runners[0]->status();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->position.value(), last.value());
  EXPECT_EQ(status->generation, 1);
  EXPECT_FALSE(status->blocked_at.has_value()) << status->blocked_reason;
  auto expected = testutil::ExpectedLedger(**store);
  auto actual = testutil::ActualLedger(**db);
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  ASSERT_TRUE(actual.ok()) << actual.status().ToString();
  EXPECT_EQ(testutil::LedgerDiff(*expected, *actual), "");
  // Both really worked (or the fencing was never put to the test).
  auto by_runner = (*db)->Query("SELECT runner, COUNT(*) FROM ledger GROUP BY runner ORDER BY 1");
  ASSERT_TRUE(by_runner.ok()) << by_runner.status().ToString();
  std::string counts;
  for (const SqlRow& r : *by_runner)
    counts += SqlText(r[0]) + "=" + std::to_string(SqlInt(r[1])) + " ";
  std::printf("events applied by runner: %s(of %zu)\n", counts.c_str(), expected->rows.size());
  EXPECT_EQ(by_runner->size(), 2u) << "one runner applied everything: " << counts;
}

INSTANTIATE_TEST_SUITE_P(ReadStores, ProjectionConcurrencyTest,
                         ::testing::Values(ReadStoreKind::kSqlite, ReadStoreKind::kPostgres),
                         testutil::KindName);

}  // namespace
}  // namespace indelible
