// Read stores for the projection tests: a fresh SQLite file, or a fresh
// schema in one real PostgreSQL server per test binary (started on first
// use through scripts/postgres.sh, stopped at exit).
#pragma once

#include <gtest/gtest.h>
#include <indelible/read_store.h>

#include <atomic>
#include <memory>
#include <string>

#include "testutil/postgres_server.h"
#include "testutil/temp_dir.h"

namespace indelible::testutil {

enum class ReadStoreKind { kSqlite, kPostgres };

inline std::string KindName(const ::testing::TestParamInfo<ReadStoreKind>& info) {
  return info.param == ReadStoreKind::kSqlite ? "Sqlite" : "Postgres";
}

// The server shared by every PostgreSQL test of this binary.
inline PostgresServer* SharedPostgres() {
  static std::unique_ptr<PostgresServer> server = [] {
    auto s = std::make_unique<PostgresServer>();
    if (!s->Start()) {
      ADD_FAILURE() << "PostgreSQL did not start: " << s->output();
      return std::unique_ptr<PostgresServer>();
    }
    return s;
  }();
  return server.get();
}

// A URL of a read store no other test uses. Empty (and a test failure) if
// PostgreSQL could not be started.
inline std::string FreshReadStoreUrl(ReadStoreKind kind, const TempDir& dir) {
  static std::atomic<int> counter{0};
  const int n = ++counter;
  if (kind == ReadStoreKind::kSqlite)
    return "sqlite:" + dir.Sub("read" + std::to_string(n) + ".db");
  PostgresServer* server = SharedPostgres();
  if (server == nullptr) return {};
  const std::string schema = "t" + std::to_string(::getpid()) + "_" + std::to_string(n);
  auto db = ReadStore::Open(server->url());
  if (!db.ok()) {
    ADD_FAILURE() << db.status().ToString();
    return {};
  }
  auto created = (*db)->Query("CREATE SCHEMA " + schema);
  if (!created.ok()) {
    ADD_FAILURE() << created.status().ToString();
    return {};
  }
  // libpq's options parameter: every connection of this URL uses the schema.
  return server->url() + "?options=-csearch_path%3D" + schema;
}

}  // namespace indelible::testutil
