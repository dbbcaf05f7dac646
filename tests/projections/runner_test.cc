// ProjectionRunner on SQLite and PostgreSQL: applying with the checkpoint,
// resuming, failure policies, rebuild and version changes.
#include <gtest/gtest.h>
#include <indelible/projection.h>

#include <thread>

#include "projections/read_stores.h"

namespace indelible {
namespace {

using testutil::ReadStoreKind;

// Every "item" event becomes a row; a counter counts applications, so an
// event applied twice would show.
Projection Items(int version = 1) {
  Projection p;
  p.name = "items";
  p.version = version;
  p.filter.categories = {"item"};
  p.tables = {"items", "totals"};
  p.indexes = {"items_by_type"};
  p.setup = [](ProjectionTransaction& tx) {
    for (const char* sql :
         {"CREATE TABLE {items} (position BIGINT PRIMARY KEY, stream TEXT, type TEXT)",
          "CREATE INDEX {items_by_type} ON {items} (type)",
          "CREATE TABLE {totals} (k TEXT PRIMARY KEY, n BIGINT NOT NULL)",
          "INSERT INTO {totals} VALUES ('applied', 0)"})
      if (Status s = tx.Execute(sql); !s.ok()) return s;
    return Status::Ok();
  };
  p.apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
    if (Status s = tx.Execute("INSERT INTO {items} VALUES ($1, $2, $3)",
                              {static_cast<std::int64_t>(e.position.value()), e.stream, e.type});
        !s.ok())
      return s;
    return tx.Execute("UPDATE {totals} SET n = n + 1 WHERE k = 'applied'");
  };
  return p;
}

EventData Event(std::string type) {
  EventData e;
  e.id = EventId::Random();
  e.type = std::move(type);
  e.data = "{}";
  return e;
}

class RunnerTest : public ::testing::TestWithParam<ReadStoreKind> {
 protected:
  void SetUp() override {
    auto store = Store::Open("memory:");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    url_ = testutil::FreshReadStoreUrl(GetParam(), dir_);
    ASSERT_FALSE(url_.empty());
    auto db = ReadStore::Open(url_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
  }
  void Append(const std::string& stream, int n, const std::string& type = "Added") {
    for (int i = 0; i < n; ++i)
      ASSERT_TRUE(store_->Append(stream, Expected::any(), {Event(type)}).ok());
  }
  std::int64_t Scalar(const std::string& sql) {
    auto rows = db_->Query(sql);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() && !rows->empty() ? SqlInt(rows->front()[0], -1) : -1;
  }
  std::unique_ptr<ProjectionRunner> Runner(Projection p, ProjectionOptions o = {}) {
    auto runner = ProjectionRunner::Open(*store_, url_, std::move(p), o);
    EXPECT_TRUE(runner.ok()) << runner.status().ToString();
    return runner.ok() ? std::move(*runner) : nullptr;
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
  std::string url_;
  std::unique_ptr<ReadStore> db_;
};

TEST_P(RunnerTest, AppliesMatchingEventsOnceAndKeepsTheCheckpointWithThem) {
  Append("item-1", 3);
  Append("other-1", 2);
  Append("item-2", 2);
  auto runner = Runner(Items());
  auto applied = runner->CatchUp();
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(*applied, 5u);
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 5);
  EXPECT_EQ(Scalar("SELECT n FROM totals"), 5);
  auto status = runner->status();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->position.value(), 7u);
  EXPECT_EQ(status->generation, 1);
  // A second runner resumes from the checkpoint: nothing applied twice.
  runner.reset();
  Append("item-3", 1);
  auto again = Runner(Items());
  EXPECT_EQ(*again->CatchUp(), 1u);
  EXPECT_EQ(Scalar("SELECT n FROM totals"), 6);
}

TEST_P(RunnerTest, StartedRunnerFollowsLiveAppendsAndWaitForSeesThem) {
  auto runner = Runner(Items());
  runner->Start();
  for (int i = 0; i < 20; ++i) {
    auto result =
        store_->Append("item-" + std::to_string(i % 3), Expected::any(), {Event("Added")});
    ASSERT_TRUE(result.ok());
    ASSERT_TRUE(runner->WaitFor(result->position, std::chrono::seconds(10)));
    EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), i + 1);
  }
  runner->Stop();
}

TEST_P(RunnerTest, FailingProjectionBlocksItselfOnlyUntilRetried) {
  Append("item-1", 2);
  Append("item-2", 1, "Poison");
  Append("item-3", 2);
  std::atomic<bool> broken{true};
  Projection fragile = Items();
  fragile.name = "fragile";
  auto inner = fragile.apply;
  fragile.apply = [&broken, inner](ProjectionTransaction& tx, const RecordedEvent& e) {
    if (e.type == "Poison" && broken) return Status::Invalid("data", "cannot handle Poison");
    return inner(tx, e);
  };
  Projection healthy = Items();
  healthy.name = "healthy";
  healthy.tables = {"items2"};
  healthy.indexes = {};
  healthy.setup = [](ProjectionTransaction& tx) {
    return tx.Execute("CREATE TABLE {items2} (position BIGINT PRIMARY KEY)");
  };
  healthy.apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
    return tx.Execute("INSERT INTO {items2} VALUES ($1)",
                      {static_cast<std::int64_t>(e.position.value())});
  };
  ProjectionOptions quick;
  quick.max_attempts = 3;
  quick.initial_backoff = std::chrono::milliseconds(1);
  auto bad = Runner(fragile, quick);
  auto good = Runner(healthy, quick);
  ASSERT_TRUE(bad->CatchUp().ok());
  ASSERT_TRUE(good->CatchUp().ok());
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items2"), 5) << "the healthy projection went on";
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 2) << "the fragile one stopped before Poison";
  EXPECT_EQ(Scalar("SELECT n FROM totals"), 2);
  auto status = bad->status();
  ASSERT_TRUE(status.ok());
  ASSERT_TRUE(status->blocked_at.has_value());
  EXPECT_EQ(status->blocked_at->value(), 3u);
  EXPECT_NE(status->blocked_reason.find("cannot handle Poison"), std::string::npos);
  EXPECT_NE(status->blocked_reason.find("item-2@0"), std::string::npos);
  // Still blocked on the next run, until an operator retries.
  ASSERT_TRUE(bad->CatchUp().ok());
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 2);
  broken = false;
  ASSERT_TRUE(RetryProjection(*db_, "fragile").ok());
  ASSERT_TRUE(bad->CatchUp().ok());
  ASSERT_TRUE(bad->CatchUp().ok());
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 5);
  EXPECT_EQ(Scalar("SELECT n FROM totals"), 5);
  EXPECT_FALSE(bad->status()->blocked_at.has_value());
  EXPECT_EQ(RetryProjection(*db_, "fragile").code(), ErrorCode::kInvalid) << "not blocked";
}

TEST_P(RunnerTest, SkipPassesOverTheBlockingEventAndParkRecordsIt) {
  Append("item-1", 1);
  Append("item-2", 1, "Poison");
  Append("item-3", 1);
  auto poisoned = [](Projection p, std::string name) {
    p.name = std::move(name);
    auto inner = p.apply;
    p.apply = [inner](ProjectionTransaction& tx, const RecordedEvent& e) {
      if (e.type == "Poison") throw std::runtime_error("boom");
      return inner(tx, e);
    };
    return p;
  };
  ProjectionOptions quick;
  quick.max_attempts = 2;
  quick.initial_backoff = std::chrono::milliseconds(1);
  auto blocked = Runner(poisoned(Items(), "skipper"), quick);
  ASSERT_TRUE(blocked->CatchUp().ok());
  ASSERT_TRUE(blocked->status()->blocked_at.has_value());
  ASSERT_TRUE(blocked->Skip().ok());
  ASSERT_TRUE(blocked->CatchUp().ok());
  ASSERT_TRUE(blocked->CatchUp().ok());
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 2);
  EXPECT_EQ(blocked->status()->position.value(), 3u);

  Projection parker = poisoned(Items(), "parker");
  parker.tables = {"p_items"};
  parker.indexes = {};
  parker.setup = [](ProjectionTransaction& tx) {
    return tx.Execute("CREATE TABLE {p_items} (position BIGINT PRIMARY KEY)");
  };
  parker.apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
    if (e.type == "Poison") throw std::runtime_error("boom");
    return tx.Execute("INSERT INTO {p_items} VALUES ($1)",
                      {static_cast<std::int64_t>(e.position.value())});
  };
  quick.policy = FailurePolicy::kPark;
  auto parking = Runner(parker, quick);
  ASSERT_TRUE(parking->CatchUp().ok());
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM p_items"), 2);
  EXPECT_EQ(parking->status()->parked, 1);
  EXPECT_FALSE(parking->status()->blocked_at.has_value());
  auto parked =
      db_->Query("SELECT stream, reason FROM indelible_parked WHERE projection = 'parker'");
  ASSERT_TRUE(parked.ok());
  ASSERT_EQ(parked->size(), 1u);
  EXPECT_EQ(SqlText((*parked)[0][0]), "item-2");
  EXPECT_NE(SqlText((*parked)[0][1]).find("boom"), std::string::npos);
}

TEST_P(RunnerTest, ChangedVersionRebuildsIntoANewCopy) {
  Append("item-1", 4);
  auto v1 = Runner(Items(1));
  ASSERT_TRUE(v1->CatchUp().ok());
  v1.reset();
  Append("item-2", 2);
  auto v2 = Runner(Items(2));
  ASSERT_TRUE(v2->CatchUp().ok());
  auto status = v2->status();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->version, 2);
  EXPECT_EQ(status->generation, 2);
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 6);
  EXPECT_EQ(Scalar("SELECT n FROM totals"), 6);
  // The old copy is gone; the old program may not write any more.
  EXPECT_FALSE(db_->Query("SELECT COUNT(*) FROM items__g1").ok());
  auto v1_again = Runner(Items(1));
  EXPECT_EQ(v1_again->CatchUp().status().code(), ErrorCode::kInvalid);
}

TEST_P(RunnerTest, RebuildWhileServingSwitchesAtomically) {
  Append("item-1", 200);
  auto live = Runner(Items());
  live->Start();
  ASSERT_TRUE(live->WaitFor(store_->LastPosition(), std::chrono::seconds(10)));
  std::atomic<bool> done{false};
  std::atomic<int> reads{0};
  // Readers see a whole copy: count and newest position always agree.
  std::thread reader([&] {
    auto db = ReadStore::Open(url_);
    ASSERT_TRUE(db.ok());
    while (!done) {
      auto rows = (*db)->Query(
          "SELECT (SELECT COUNT(*) FROM items), (SELECT n FROM totals), "
          "(SELECT COALESCE(MAX(position), 0) FROM items)");
      ASSERT_TRUE(rows.ok()) << rows.status().ToString();
      const SqlRow& r = rows->front();
      ASSERT_EQ(SqlInt(r[0]), SqlInt(r[1]));
      ASSERT_EQ(SqlInt(r[0]), SqlInt(r[2]));
      ++reads;
    }
  });
  std::thread writer([&] {
    for (int i = 0; i < 100 && !done; ++i) Append("item-2", 1);
  });
  std::vector<RebuildProgress> reports;
  auto rebuilder = Runner(Items());
  Status rebuilt = rebuilder->Rebuild([&](const RebuildProgress& p) { reports.push_back(p); });
  writer.join();
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.ToString();
  ASSERT_TRUE(live->WaitFor(store_->LastPosition(), std::chrono::seconds(10)));
  done = true;
  reader.join();
  live->Stop();
  EXPECT_GT(reads.load(), 0);
  EXPECT_FALSE(reports.empty());
  EXPECT_EQ(live->status()->generation, 2);
  EXPECT_EQ(Scalar("SELECT COUNT(*) FROM items"), 300);
  EXPECT_EQ(Scalar("SELECT n FROM totals"), 300);
}

TEST_P(RunnerTest, BadProjectionsAreRefusedBeforeAnythingIsWritten) {
  Projection ghost = Items();
  ghost.tables.push_back("ghost");  // declared, never created by setup
  auto opened = ProjectionRunner::Open(*store_, url_, ghost);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(opened.status().message().find("{ghost}"), std::string::npos);
  for (auto bad : {std::string("Upper"), std::string(""), std::string(65, 'a')}) {
    Projection p = Items();
    p.name = bad;
    EXPECT_EQ(ProjectionRunner::Open(*store_, url_, p).status().code(), ErrorCode::kInvalid);
  }
  Projection twice = Items();
  twice.indexes = {"items"};
  EXPECT_EQ(ProjectionRunner::Open(*store_, url_, twice).status().code(), ErrorCode::kInvalid);
  auto rows = db_->Query("SELECT COUNT(*) FROM indelible_projections");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(SqlInt(rows->front()[0]), 0) << "nothing was written";
}

INSTANTIATE_TEST_SUITE_P(ReadStores, RunnerTest,
                         ::testing::Values(ReadStoreKind::kSqlite, ReadStoreKind::kPostgres),
                         testutil::KindName);

}  // namespace
}  // namespace indelible
