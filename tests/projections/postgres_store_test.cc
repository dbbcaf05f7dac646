// The PostgreSQL read store against a real server (scripts/postgres.sh):
// values of every kind round-trip, transactions (queued statements
// included), errors and their codes, the statement cache, stale plans, and
// reconnecting after the server was killed.
#include <gtest/gtest.h>
#include <indelible/read_store.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testutil/postgres_server.h"

namespace indelible {
namespace {

using Rows = std::vector<SqlRow>;

// One server for the suite; each test works in a schema of its own.
class PostgresStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new testutil::PostgresServer;
    if (!server_->Start()) ADD_FAILURE() << "PostgreSQL did not start: " << server_->output();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    ASSERT_FALSE(server_->url().empty());
    static int counter = 0;
    const std::string schema = "s" + std::to_string(++counter);
    auto db = ReadStore::Open(server_->url());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->Query("CREATE SCHEMA " + schema).ok());
    url_ = server_->url() + "?options=-csearch_path%3D" + schema;
  }

  std::unique_ptr<ReadStore> Open() {
    auto db = ReadStore::Open(url_);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(*db) : nullptr;
  }

  static std::int64_t Count(ReadStore& db, const std::string& table) {
    auto rows = db.Query("SELECT COUNT(*) FROM " + table);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? SqlInt(rows->front()[0], -1) : -1;
  }

  static testutil::PostgresServer* server_;
  std::string url_;
};

testutil::PostgresServer* PostgresStoreTest::server_ = nullptr;

TEST_F(PostgresStoreTest, ValuesOfEveryKindRoundTrip) {
  auto db = Open();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->dialect(), SqlDialect::kPostgres);
  // Text that would break a statement if it were not escaped.
  const std::string tricky = "it's \\ \"q\" 'x'); DROP TABLE t; -- h\xc3\xa9 $1";
  auto tx = db->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  // The INSERT is prepared after the queued CREATE TABLE reached the server.
  ASSERT_TRUE((*tx)
                  ->Execute("CREATE TABLE t (k INT PRIMARY KEY, i BIGINT, s SMALLINT, "
                            "d DOUBLE PRECISION, r REAL, n NUMERIC, x TEXT, b BOOLEAN, z TEXT)")
                  .ok());
  const std::string insert = "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
  const auto max = std::numeric_limits<std::int64_t>::max();
  const auto min = std::numeric_limits<std::int64_t>::min();
  ASSERT_TRUE((*tx)
                  ->Execute(insert, {std::int64_t{1}, std::int64_t{-7}, std::int64_t{3}, 0.1, 2.5,
                                     std::string("3.25"), tricky, std::string("true"), nullptr})
                  .ok());
  ASSERT_TRUE((*tx)
                  ->Execute(insert, {std::int64_t{2}, max, nullptr, 1e-300, nullptr, 1.5,
                                     std::string(), nullptr, std::int64_t{42}})
                  .ok());
  ASSERT_TRUE(
      (*tx)
          ->Execute(insert, {std::int64_t{3}, min, nullptr, std::numeric_limits<double>::infinity(),
                             nullptr, std::nan(""), nullptr, nullptr, nullptr})
          .ok());
  ASSERT_TRUE((*tx)->Commit().ok());

  auto rows = db->Query("SELECT k, i, s, d, r, n, x, b, z FROM t ORDER BY k");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  const SqlRow& one = (*rows)[0];
  EXPECT_EQ(std::get<std::int64_t>(one[0]), 1);  // INT
  EXPECT_EQ(std::get<std::int64_t>(one[1]), -7);
  EXPECT_EQ(std::get<std::int64_t>(one[2]), 3);  // SMALLINT
  EXPECT_EQ(std::get<double>(one[3]), 0.1);      // exactly: no digits lost on the way
  EXPECT_EQ(std::get<double>(one[4]), 2.5);      // REAL
  EXPECT_EQ(std::get<double>(one[5]), 3.25);     // NUMERIC, from text
  EXPECT_EQ(std::get<std::string>(one[6]), tricky);
  EXPECT_EQ(std::get<std::string>(one[7]), "t");  // other types are their text
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(one[8]));
  const SqlRow& two = (*rows)[1];
  EXPECT_EQ(std::get<std::int64_t>(two[1]), max);
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(two[2]));
  EXPECT_EQ(std::get<double>(two[3]), 1e-300);
  EXPECT_EQ(std::get<double>(two[5]), 1.5);
  EXPECT_EQ(std::get<std::string>(two[6]), "");    // empty, not NULL
  EXPECT_EQ(std::get<std::string>(two[8]), "42");  // an integer into TEXT
  const SqlRow& three = (*rows)[2];
  EXPECT_EQ(std::get<std::int64_t>(three[1]), min);
  EXPECT_EQ(std::get<double>(three[3]), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(std::get<double>(three[5])));

  // Parameters out of order, repeated, and in expressions.
  auto expr = db->Query("SELECT $2 || $1 || $2, $3::bigint * 2, $4::float8 / 2, $5::int IS NULL",
                        {std::string("a"), std::string("b"), std::int64_t{21}, 5.0, nullptr});
  ASSERT_TRUE(expr.ok()) << expr.status().ToString();
  EXPECT_EQ(std::get<std::string>(expr->front()[0]), "bab");
  EXPECT_EQ(std::get<std::int64_t>(expr->front()[1]), 42);
  EXPECT_EQ(std::get<double>(expr->front()[2]), 2.5);
  EXPECT_EQ(std::get<std::string>(expr->front()[3]), "t");
  EXPECT_EQ(db->Query("SELECT $1", {std::string("a\0b", 3)}).status().code(), ErrorCode::kInvalid);
}

TEST_F(PostgresStoreTest, UncommittedTransactionRollsBackAndCommitsAreSeenByOthers) {
  auto db = Open();
  auto other = Open();
  ASSERT_TRUE(db->Query("CREATE TABLE t (x BIGINT)").ok());
  {
    auto tx = db->Begin();
    ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES (1)").ok());
    // Within the transaction, its statements are seen, queued or not.
    auto inside = (*tx)->Query("SELECT COUNT(*) FROM t");
    ASSERT_TRUE(inside.ok()) << inside.status().ToString();
    EXPECT_EQ(SqlInt(inside->front()[0]), 1);
    ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES (2)").ok());
    EXPECT_EQ(Count(*db, "t"), 2) << "the store's own Query runs in its open transaction";
  }
  EXPECT_EQ(Count(*db, "t"), 0);
  EXPECT_EQ(Count(*other, "t"), 0);

  auto tx = db->Begin();
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ(db->Begin().status().code(), ErrorCode::kInvalid) << "one at a time";
  auto returned = (*tx)->Query("INSERT INTO t VALUES ($1) RETURNING x * 10", {std::int64_t{3}});
  ASSERT_TRUE(returned.ok()) << returned.status().ToString();
  EXPECT_EQ(SqlInt(returned->front()[0]), 30);
  EXPECT_EQ(Count(*other, "t"), 0) << "on the server, not yet committed";
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(Count(*other, "t"), 1);
  EXPECT_EQ((*tx)->Commit().code(), ErrorCode::kInvalid);
  EXPECT_EQ((*tx)->Execute("INSERT INTO t VALUES (4)").code(), ErrorCode::kInvalid);
  EXPECT_EQ(Count(*db, "t"), 1);

  auto empty = db->Begin();
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE((*empty)->Commit().ok());
}

TEST_F(PostgresStoreTest, ErrorsAreInvalidAndLeaveTheConnectionUsable) {
  auto db = Open();
  auto bad = db->Query("SELEC nonsense");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(bad.status().message().find("syntax error"), std::string::npos)
      << bad.status().ToString();
  auto missing = db->Query("SELECT * FROM nowhere");
  EXPECT_EQ(missing.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(missing.status().message().find("nowhere"), std::string::npos);
  EXPECT_EQ(db->Query("SELECT 1; SELECT 2").status().code(), ErrorCode::kInvalid);

  ASSERT_TRUE(db->Query("CREATE TABLE t (k TEXT PRIMARY KEY)").ok());
  ASSERT_TRUE(db->Query("INSERT INTO t VALUES ($1)", {std::string("a")}).ok());
  auto duplicate = db->Query("INSERT INTO t VALUES ($1)", {std::string("a")});
  EXPECT_EQ(duplicate.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(duplicate.status().message().find("duplicate key"), std::string::npos)
      << duplicate.status().ToString();
  auto one = db->Query("SELECT 1");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(SqlInt(one->front()[0]), 1);
}

TEST_F(PostgresStoreTest, AnErrorFailsTheWholeTransactionByCommitAtTheLatest) {
  auto db = Open();
  ASSERT_TRUE(db->Query("CREATE TABLE t (k TEXT PRIMARY KEY)").ok());
  ASSERT_TRUE(db->Query("INSERT INTO t VALUES ('a')").ok());
  {
    auto tx = db->Begin();
    ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES ('b')").ok());
    // Queued, so its error may come later; never later than Commit.
    (void)(*tx)->Execute("INSERT INTO t VALUES ('a')");
    (void)(*tx)->Execute("INSERT INTO t VALUES ('c')");
    Status committed = (*tx)->Commit();
    EXPECT_EQ(committed.code(), ErrorCode::kInvalid);
    EXPECT_NE(committed.message().find("duplicate key"), std::string::npos) << committed.ToString();
  }
  EXPECT_EQ(Count(*db, "t"), 1) << "'b' and 'c' rolled back with the transaction";
  {
    // A Query after the failed statement reports the error too.
    auto tx = db->Begin();
    (void)(*tx)->Execute("INSERT INTO t VALUES ('a')");
    auto rows = (*tx)->Query("SELECT COUNT(*) FROM t");
    EXPECT_EQ(rows.status().code(), ErrorCode::kInvalid);
    EXPECT_EQ((*tx)->Execute("INSERT INTO t VALUES ('d')").code(), ErrorCode::kInvalid);
    EXPECT_EQ((*tx)->Commit().code(), ErrorCode::kInvalid);
  }
  EXPECT_EQ(Count(*db, "t"), 1);
  auto tx = db->Begin();
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES ('e')").ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(Count(*db, "t"), 2);
}

TEST_F(PostgresStoreTest, UpsertsWithOnConflict) {
  auto db = Open();
  ASSERT_TRUE(db->Query("CREATE TABLE t (id BIGINT PRIMARY KEY, title TEXT)").ok());
  const std::string upsert =
      "INSERT INTO t (id, title) VALUES ($1, $2) "
      "ON CONFLICT (id) DO UPDATE SET title = excluded.title";
  auto tx = db->Begin();
  ASSERT_TRUE((*tx)->Execute(upsert, {std::int64_t{1}, std::string("milk")}).ok());
  ASSERT_TRUE((*tx)->Execute(upsert, {std::int64_t{2}, std::string("bread")}).ok());
  ASSERT_TRUE((*tx)->Execute(upsert, {std::int64_t{1}, std::string("oat milk")}).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto rows = db->Query("SELECT id, title FROM t ORDER BY id");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(SqlText((*rows)[0][1]), "oat milk");
  EXPECT_EQ(SqlText((*rows)[1][1]), "bread");
}

TEST_F(PostgresStoreTest, StatementsArePreparedOnceAndTheCacheIsBounded) {
  auto db = Open();
  ASSERT_TRUE(db->Query("CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT)").ok());
  const std::string insert = "INSERT INTO t VALUES ($1, $2)";
  auto tx = db->Begin();
  for (int i = 0; i < 2000; ++i) {
    // ~1.5 MB in all: more than one batch is sent before the commit.
    ASSERT_TRUE((*tx)->Execute(insert, {std::int64_t{i}, std::string(700, 'v')}).ok());
  }
  ASSERT_TRUE((*tx)->Commit().ok());
  std::int64_t expected_sum = 1999 * 2000 / 2;
  for (std::int64_t id = 2000; id < 2020; ++id) {
    ASSERT_TRUE(db->Query(insert, {id, std::string("x")}).ok());
    expected_sum += id;
  }
  auto sum = db->Query("SELECT COUNT(*), SUM(id) FROM t");
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(SqlInt(sum->front()[0]), 2020);
  // SUM(BIGINT) is NUMERIC, read as a double.
  EXPECT_EQ(std::get<double>(sum->front()[1]), static_cast<double>(expected_sum));
  const std::string prepared = "SELECT COUNT(*) FROM pg_prepared_statements WHERE statement = $1";
  auto once = db->Query(prepared, {insert});
  ASSERT_TRUE(once.ok());
  EXPECT_EQ(SqlInt(once->front()[0]), 1) << "one prepared statement for 2020 runs";

  for (int i = 0; i < 600; ++i) {
    auto rows = db->Query("SELECT " + std::to_string(i) + " + $1::bigint", {std::int64_t{1}});
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_EQ(SqlInt(rows->front()[0]), i + 1);
  }
  auto all = db->Query("SELECT COUNT(*) FROM pg_prepared_statements");
  ASSERT_TRUE(all.ok());
  EXPECT_LE(SqlInt(all->front()[0]), 512) << "the oldest were deallocated";
  EXPECT_GE(SqlInt(all->front()[0]), 500);
  // Evicted statements are prepared again when they come back.
  ASSERT_TRUE(db->Query(insert, {std::int64_t{-1}, std::string("back")}).ok());
  EXPECT_EQ(Count(*db, "t"), 2021);
}

TEST_F(PostgresStoreTest, AViewReplacedWithOtherColumnsIsReadAfresh) {
  auto db = Open();
  auto other = Open();
  ASSERT_TRUE(db->Query("CREATE VIEW v AS SELECT 1 AS a").ok());
  auto before = db->Query("SELECT * FROM v");
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->front().size(), 1u);
  // As a rebuild's switch-over does: the prepared SELECT's plan is stale.
  ASSERT_TRUE(other->Query("DROP VIEW v").ok());
  ASSERT_TRUE(other->Query("CREATE VIEW v AS SELECT 1 AS a, 2 AS b").ok());
  auto after = db->Query("SELECT * FROM v");
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(after->front().size(), 2u);
  EXPECT_EQ(SqlInt(after->front()[1]), 2);
}

TEST_F(PostgresStoreTest, LockTimeoutsAndDeadlocksAreUnavailable) {
  auto db = Open();
  auto other = Open();
  ASSERT_TRUE(db->Query("CREATE TABLE t (id BIGINT PRIMARY KEY, n BIGINT)").ok());
  ASSERT_TRUE(db->Query("INSERT INTO t VALUES (1, 0), (2, 0)").ok());
  const std::string bump = "UPDATE t SET n = n + 1 WHERE id = $1 RETURNING n";
  {
    auto holder = other->Begin();
    ASSERT_TRUE((*holder)->Query(bump, {std::int64_t{1}}).ok());  // holds row 1
    ASSERT_TRUE(db->Query("SET lock_timeout = '100ms'").ok());
    auto waiter = db->Begin();
    auto timed_out = (*waiter)->Query(bump, {std::int64_t{1}});
    EXPECT_EQ(timed_out.status().code(), ErrorCode::kUnavailable) << timed_out.status().ToString();
    EXPECT_EQ((*waiter)->Commit().code(), ErrorCode::kUnavailable);
  }
  ASSERT_TRUE(db->Query("SET lock_timeout = 0").ok());
  ASSERT_TRUE(db->Query("SET deadlock_timeout = '100ms'").ok());
  ASSERT_TRUE(other->Query("SET deadlock_timeout = '100ms'").ok());
  auto first = db->Begin();
  auto second = other->Begin();
  ASSERT_TRUE((*first)->Query(bump, {std::int64_t{1}}).ok());
  ASSERT_TRUE((*second)->Query(bump, {std::int64_t{2}}).ok());
  Result<Rows> first_wait = Status::Internal("not run");
  std::thread waiting([&] { first_wait = (*first)->Query(bump, {std::int64_t{2}}); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // The victim's locks go when its transaction fails, so the other one
  // goes on and the thread ends.
  Result<Rows> second_wait = (*second)->Query(bump, {std::int64_t{1}});
  waiting.join();
  // Exactly one of them was chosen as the deadlock's victim.
  EXPECT_NE(first_wait.ok(), second_wait.ok());
  const Status& victim = first_wait.ok() ? second_wait.status() : first_wait.status();
  EXPECT_EQ(victim.code(), ErrorCode::kUnavailable) << victim.ToString();
  EXPECT_NE(victim.message().find("deadlock"), std::string::npos) << victim.ToString();
}

TEST(PostgresStoreRestart, ReconnectsAfterTheServerWasKilled) {
  testutil::PostgresServer server;
  ASSERT_TRUE(server.Start()) << server.output();
  auto opened = ReadStore::Open(server.url());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  ReadStore& db = **opened;
  ASSERT_TRUE(db.Query("CREATE TABLE t (x BIGINT)").ok());
  ASSERT_TRUE(db.Query("INSERT INTO t VALUES (1)").ok());

  ASSERT_TRUE(server.Kill()) << server.output();
  auto down = db.Query("SELECT COUNT(*) FROM t");
  EXPECT_EQ(down.status().code(), ErrorCode::kUnavailable) << down.status().ToString();
  auto still_down = db.Query("SELECT COUNT(*) FROM t");  // cannot connect
  EXPECT_EQ(still_down.status().code(), ErrorCode::kUnavailable) << still_down.status().ToString();
  EXPECT_EQ(db.Begin().status().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(ReadStore::Open(server.url()).status().code(), ErrorCode::kUnavailable);

  ASSERT_TRUE(server.Start()) << server.output();
  auto up = db.Query("SELECT COUNT(*) FROM t");
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(SqlInt(up->front()[0]), 1);

  // Killed within a transaction: Commit says so; the next one works.
  {
    auto tx = db.Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    ASSERT_TRUE((*tx)->Query("INSERT INTO t VALUES (2) RETURNING x").ok());
    ASSERT_TRUE(server.Kill()) << server.output();
    (void)(*tx)->Execute("INSERT INTO t VALUES (3)");
    EXPECT_EQ((*tx)->Commit().code(), ErrorCode::kUnavailable);
  }
  ASSERT_TRUE(server.Start()) << server.output();
  Status committed = Status::Internal("not tried");
  for (int attempt = 0; attempt < 2 && !committed.ok(); ++attempt) {
    auto tx = db.Begin();
    if (!tx.ok()) {
      committed = tx.status();
      continue;
    }
    (void)(*tx)->Execute("INSERT INTO t VALUES (4)");
    committed = (*tx)->Commit();
    if (!committed.ok()) {
      EXPECT_EQ(committed.code(), ErrorCode::kUnavailable);
    }
  }
  ASSERT_TRUE(committed.ok()) << committed.ToString();
  auto rows = db.Query("SELECT x FROM t ORDER BY x");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(SqlInt((*rows)[1][0]), 4) << "the killed transaction left nothing";

  // After a fast shutdown too.
  ASSERT_TRUE(server.Stop()) << server.output();
  EXPECT_EQ(db.Query("SELECT 1").status().code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace indelible
