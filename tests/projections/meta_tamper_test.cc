// A tampered indelible_projections row (someone with write access to the
// read store, or a damaged file) must not turn the table names it holds
// into SQL: a rebuild or a runner that reads them back refuses them with a
// clear error, and nothing else is dropped or created. Each hostile name is
// one statement (a read store runs one per call), so it would have dropped
// a table or view of someone else's had it gone into the DDL.
#include <gtest/gtest.h>
#include <indelible/projection.h>

#include "projections/read_stores.h"

namespace indelible {
namespace {

using testutil::ReadStoreKind;

Projection Notes() {
  Projection p;
  p.name = "notes";
  p.filter.categories = {"note"};
  p.tables = {"notes"};
  p.setup = [](ProjectionTransaction& tx) {
    return tx.Execute("CREATE TABLE {notes} (position BIGINT PRIMARY KEY)");
  };
  p.apply = [](ProjectionTransaction& tx, const RecordedEvent& e) {
    return tx.Execute("INSERT INTO {notes} VALUES ($1)",
                      {static_cast<std::int64_t>(e.position.value())});
  };
  return p;
}

class MetaTamperTest : public ::testing::TestWithParam<ReadStoreKind> {
 protected:
  void SetUp() override {
    auto store = Store::Open("memory:");
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    EventData e;
    e.id = EventId::Random();
    e.type = "Noted";
    e.data = "{}";
    ASSERT_TRUE(store_->Append("note-1", Expected::any(), {e}).ok());
    url_ = testutil::FreshReadStoreUrl(GetParam(), dir_);
    ASSERT_FALSE(url_.empty());
    auto db = ReadStore::Open(url_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    auto runner = ProjectionRunner::Open(*store_, url_, Notes());
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    ASSERT_TRUE((*runner)->CatchUp().ok());
    // Someone else's table and view in the same database.
    for (const char* sql : {"CREATE TABLE victim (x BIGINT)", "INSERT INTO victim VALUES (7)",
                            "CREATE VIEW victim_view AS SELECT x FROM victim"})
      ASSERT_TRUE(db_->Query(sql).ok()) << sql;
  }

  // Open reads the row too (it makes the first copy if there is none), so
  // the refusal may come from it, before Rebuild is reached.
  Status OpenAndRebuild() {
    auto runner = ProjectionRunner::Open(*store_, url_, Notes());
    if (!runner.ok()) return runner.status();
    return (*runner)->Rebuild({});
  }

  // Plants `columns` (an SQL SET list) in the projection's row, directly.
  void Tamper(const std::string& columns) {
    auto done = db_->Query("UPDATE indelible_projections SET " + columns + " WHERE name = 'notes'");
    ASSERT_TRUE(done.ok()) << done.status().ToString();
  }

  bool Exists(const std::string& relation) {
    return db_->Query("SELECT * FROM " + relation + " LIMIT 0").ok();
  }

  // The error names the projection and the altered row; the victims and
  // the live copy are untouched, no new copy was made, the row is as planted.
  void ExpectRefusedAndUntouched(const Status& status, std::int64_t building_generation) {
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), ErrorCode::kInvalid) << status.ToString();
    EXPECT_NE(status.message().find("indelible_projections"), std::string::npos)
        << status.ToString();
    EXPECT_NE(status.message().find("'notes'"), std::string::npos) << status.ToString();
    EXPECT_TRUE(Exists("victim"));
    EXPECT_TRUE(Exists("victim_view"));
    auto x = db_->Query("SELECT x FROM victim_view");
    ASSERT_TRUE(x.ok());
    ASSERT_EQ(x->size(), 1u);
    EXPECT_EQ(SqlInt(x->front()[0]), 7);
    EXPECT_TRUE(Exists("notes"));
    EXPECT_TRUE(Exists("notes__g1"));
    for (int g = 2; g <= building_generation + 1; ++g)
      EXPECT_FALSE(Exists("notes__g" + std::to_string(g))) << "copy " << g << " was made";
    auto row = db_->Query(
        "SELECT generation, building_generation FROM indelible_projections WHERE name = 'notes'");
    ASSERT_TRUE(row.ok());
    EXPECT_EQ(SqlInt(row->front()[0]), 1);
    EXPECT_EQ(SqlInt(row->front()[1], -1), building_generation);
  }

  testutil::TempDir dir_;
  std::unique_ptr<Store> store_;
  std::string url_;
  std::unique_ptr<ReadStore> db_;
};

// An abandoned rebuild's copy is dropped first: "DROP TABLE IF EXISTS
// victim --__g5" would have dropped the table.
TEST_P(MetaTamperTest, RebuildRefusesAHostileNameOfAnAbandonedCopy) {
  Tamper("building_generation = 5, building_tables = 'victim --'");
  Status rebuilt = OpenAndRebuild();
  ExpectRefusedAndUntouched(rebuilt, 5);
  EXPECT_NE(rebuilt.message().find("victim --"), std::string::npos) << rebuilt.ToString();
}

// The switch-over drops the live copy's views: "DROP VIEW IF EXISTS
// victim_view --" would have dropped the view.
TEST_P(MetaTamperTest, RebuildRefusesAHostileNameOfTheLiveCopy) {
  Tamper("tables = 'notes,victim_view --'");
  ExpectRefusedAndUntouched(OpenAndRebuild(), -1);
}

// A runner reads the row before every batch: it stops there too.
TEST_P(MetaTamperTest, RunnerRefusesAHostileName) {
  Tamper("tables = 'notes,victim_view --'");
  auto runner = ProjectionRunner::Open(*store_, url_, Notes());
  if (runner.ok()) {
    auto applied = (*runner)->CatchUp();
    ExpectRefusedAndUntouched(applied.status(), -1);
  } else {
    ExpectRefusedAndUntouched(runner.status(), -1);
  }
}

INSTANTIATE_TEST_SUITE_P(ReadStores, MetaTamperTest,
                         ::testing::Values(ReadStoreKind::kSqlite, ReadStoreKind::kPostgres),
                         testutil::KindName);

}  // namespace
}  // namespace indelible
