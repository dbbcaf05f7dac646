// The PostgreSQL read store binds values as parameters of its prepared
// statements: they never become part of an SQL text, so no value, however
// it is quoted, can change a statement, and every one reads back exactly.
#include <gtest/gtest.h>
#include <indelible/read_store.h>

#include <string>
#include <vector>

#include "projections/read_stores.h"

namespace indelible {
namespace {

using testutil::ReadStoreKind;

// Text that an escaping mistake (quotes, backslashes with or without
// standard_conforming_strings, E'' and dollar quoting, encodings) would
// change or turn into SQL.
std::vector<std::string> HostileValues() {
  return {
      "it's",
      "''",
      "\\",
      "\\\\",
      "ends with a backslash\\",
      "\\'); DROP TABLE t; --",
      "'); DROP TABLE t; --",
      "x' || (SELECT 'injected') || '",
      "E'\\x41'",
      "\\x41\\101\\u0041",
      "$$dollar$$ $tag$ $1 $2",
      "/* comment */ -- line",
      ";\nCOMMIT;\nBEGIN;",
      "tab\tnew line\ncarriage\r",
      "h\xc3\xa9llo \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x8e\x89",  // héllo 日本 🎉
      "\xef\xbb\xbf"
      "bom and \xe2\x80\xae"
      "rtl",
      std::string(100000, '\''),
      "",
  };
}

class PostgresParamsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testutil::FreshReadStoreUrl(ReadStoreKind::kPostgres, dir_);
    ASSERT_FALSE(url_.empty());
    db_ = Open();
    ASSERT_NE(db_, nullptr);
    ASSERT_TRUE(db_->Query("CREATE TABLE t (k BIGINT PRIMARY KEY, v TEXT)").ok());
  }
  std::unique_ptr<ReadStore> Open() {
    auto db = ReadStore::Open(url_);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(*db) : nullptr;
  }
  void ExpectStored(ReadStore& db, const std::vector<std::string>& values) {
    auto rows = db.Query("SELECT k, v, v = $1 FROM t ORDER BY k", {values.front()});
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_EQ(rows->size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      EXPECT_EQ(SqlText((*rows)[i][1]), values[i]) << "value " << i;
    EXPECT_EQ(SqlText(rows->front()[2]), "t");  // and equal as a query's parameter
  }

  testutil::TempDir dir_;
  std::string url_;
  std::unique_ptr<ReadStore> db_;
};

TEST_F(PostgresParamsTest, HostileTextRoundTripsInATransactionAndAlone) {
  const auto values = HostileValues();
  const std::string insert = "INSERT INTO t VALUES ($1, $2)";
  {
    auto tx = db_->Begin();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    for (std::size_t i = 0; i < values.size(); ++i)
      ASSERT_TRUE((*tx)->Execute(insert, {static_cast<std::int64_t>(i), values[i]}).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  ExpectStored(*db_, values);
  // Run alone, and read back through a query's parameters.
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto echo = db_->Query("SELECT $1::text, length($1)", {values[i]});
    ASSERT_TRUE(echo.ok()) << echo.status().ToString();
    EXPECT_EQ(SqlText(echo->front()[0]), values[i]) << "value " << i;
  }
}

TEST_F(PostgresParamsTest, RoundTripsWithStandardConformingStringsOff) {
  // Backslashes are escapes in '' literals then: literals would need them
  // doubled; bound values are not parsed at all.
  auto db = ReadStore::Open(url_ + "%20-cstandard_conforming_strings%3Doff");
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  auto setting = (*db)->Query("SHOW standard_conforming_strings");
  ASSERT_TRUE(setting.ok()) << setting.status().ToString();
  ASSERT_EQ(SqlText(setting->front()[0]), "off");
  const auto values = HostileValues();
  auto tx = (*db)->Begin();
  ASSERT_TRUE(tx.ok());
  // SET LOCAL in the transaction as well: a change of the setting between
  // statements of one batch.
  ASSERT_TRUE((*tx)->Execute("SET LOCAL standard_conforming_strings = on").ok());
  ASSERT_TRUE((*tx)->Execute("SET LOCAL standard_conforming_strings = off").ok());
  for (std::size_t i = 0; i < values.size(); ++i)
    ASSERT_TRUE(
        (*tx)
            ->Execute("INSERT INTO t VALUES ($1, $2)", {static_cast<std::int64_t>(i), values[i]})
            .ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  ExpectStored(**db, values);
}

// What the server ran, as another session sees it: the prepared text with
// $1, never the value spelled out in SQL.
TEST_F(PostgresParamsTest, ValuesNeverAppearInTheSqlTheServerRuns) {
  auto pid = db_->Query("SELECT pg_backend_pid()");
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  const std::string marker = "marker-4f1d";
  auto tx = db_->Begin();
  ASSERT_TRUE(tx.ok());
  ASSERT_TRUE((*tx)->Execute("INSERT INTO t VALUES ($1, $2)", {std::int64_t{1}, marker}).ok());
  ASSERT_TRUE((*tx)->Commit().ok());
  auto echo = db_->Query("SELECT $1::text", {marker});
  ASSERT_TRUE(echo.ok()) << echo.status().ToString();
  auto other = Open();
  ASSERT_NE(other, nullptr);
  auto seen = other->Query("SELECT query FROM pg_stat_activity WHERE pid = $1", {pid->front()[0]});
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  ASSERT_EQ(seen->size(), 1u);
  const std::string query = SqlText(seen->front()[0]);
  EXPECT_EQ(query.find(marker), std::string::npos) << query;
  EXPECT_EQ(query, "SELECT $1::text");
}

}  // namespace
}  // namespace indelible
