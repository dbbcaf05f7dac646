// The SQLite read store: values round-trip, transactions, errors, the
// statement cache, and the default URL beside a data folder.
#include <gtest/gtest.h>
#include <indelible/read_store.h>

#include "testutil/temp_dir.h"

namespace indelible {
namespace {

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<ReadStore> Open() {
    auto db = ReadStore::Open("sqlite:" + dir_.Sub("read.db"));
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(*db) : nullptr;
  }
  testutil::TempDir dir_;
};

TEST_F(SqliteStoreTest, ValuesRoundTrip) {
  auto db = Open();
  auto tx = db->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Execute("CREATE TABLE t (i BIGINT, d DOUBLE PRECISION, s TEXT, n TEXT)").ok());
  ASSERT_TRUE((*tx)
                  ->Execute("INSERT INTO t VALUES ($1, $2, $3, $4)",
                            {std::int64_t{-7}, 2.5, std::string("h\xc3\xa9"), nullptr})
                  .ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto rows = db->Query("SELECT i, d, s, n FROM t");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  const SqlRow& row = rows->front();
  EXPECT_EQ(std::get<std::int64_t>(row[0]), -7);
  EXPECT_EQ(std::get<double>(row[1]), 2.5);
  EXPECT_EQ(std::get<std::string>(row[2]), "h\xc3\xa9");
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(row[3]));
  EXPECT_EQ(SqlInt(row[0]), -7);
  EXPECT_EQ(SqlText(row[3], "none"), "none");
}

TEST_F(SqliteStoreTest, ParametersMayAppearOutOfOrderAndRepeat) {
  auto db = Open();
  auto rows = db->Query("SELECT $2 || $1 || $2", {std::string("a"), std::string("b")});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(SqlText(rows->front()[0]), "bab");
  // As in PostgreSQL, which cannot type a parameter the statement skips.
  EXPECT_EQ(db->Query("SELECT $2", {std::string("a"), std::string("b")}).status().code(),
            ErrorCode::kInvalid);
}

TEST_F(SqliteStoreTest, UncommittedTransactionRollsBack) {
  auto db = Open();
  ASSERT_TRUE(db->Query("CREATE TABLE t (x BIGINT)").ok());
  {
    auto tx = db->Begin();
    ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES (1)").ok());
  }
  EXPECT_EQ(SqlInt(db->Query("SELECT COUNT(*) FROM t")->front()[0]), 0);
  auto other = Open();
  auto tx = db->Begin();
  ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES (2)").ok());
  EXPECT_EQ(SqlInt(other->Query("SELECT COUNT(*) FROM t")->front()[0]), 0) << "not yet committed";
  ASSERT_TRUE((*tx)->Commit().ok());
  EXPECT_EQ(SqlInt(other->Query("SELECT COUNT(*) FROM t")->front()[0]), 1);
}

TEST_F(SqliteStoreTest, ErrorsAreInvalidAndLeaveTheConnectionUsable) {
  auto db = Open();
  auto bad = db->Query("SELEC nonsense");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalid);
  EXPECT_NE(bad.status().message().find("syntax"), std::string::npos) << bad.status().ToString();
  ASSERT_TRUE(db->Query("CREATE TABLE t (k TEXT PRIMARY KEY)").ok());
  ASSERT_TRUE(db->Query("INSERT INTO t VALUES ('a')").ok());
  auto duplicate = db->Query("INSERT INTO t VALUES ('a')");
  EXPECT_EQ(duplicate.status().code(), ErrorCode::kInvalid);
  EXPECT_TRUE(db->Query("SELECT 1").ok());
  EXPECT_EQ(db->Query("SELECT 1; SELECT 2").status().code(), ErrorCode::kInvalid);
}

TEST_F(SqliteStoreTest, ManyDistinctStatementsOutgrowTheCache) {
  auto db = Open();
  for (int i = 0; i < 600; ++i) {
    auto rows = db->Query("SELECT " + std::to_string(i) + " + $1", {std::int64_t{1}});
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(SqlInt(rows->front()[0]), i + 1);
  }
}

TEST(ReadStoreUrl, DefaultsBesideTheDataFolderAndRejectsUnknownSchemes) {
  EXPECT_EQ(*ReadStore::DefaultUrlFor("file:./data/"), "sqlite:./data.read.db");
  EXPECT_EQ(ReadStore::DefaultUrlFor("memory:").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(ReadStore::Open("mysql://x").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(ReadStore::Open("sqlite:").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(ReadStore::Open("sqlite:/nonexistent-dir/x.db").status().code(),
            ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace indelible
