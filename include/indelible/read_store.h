// ReadStore: a connection to the SQL database that holds read models:
// SQLite (the embedded default, one file) or PostgreSQL. Projections
// (projection.h) write to it; queries read from it.
//
// SQL is the database's own; parameters are written $1, $2, ... in both
// dialects and bound from a vector of SqlValue, so one statement text
// usually serves both (upserts: INSERT ... ON CONFLICT (...) DO UPDATE).
// Statements are prepared once per connection and reused.
//
// Operation:
//
//   auto db = ReadStore::Open("sqlite:./data.read.db");
//   auto rows = (*db)->Query("SELECT title FROM todos WHERE id = $1", {id});
//   auto tx = (*db)->Begin();
//   (*tx)->Execute("UPDATE todos SET title = $1 WHERE id = $2", {title, id});
//   Status s = (*tx)->Commit();  // a transaction not committed rolls back
//
// Errors: a database error is `unavailable` when retrying may help (the
// server is down, a lock timed out, a serialization failure) and `invalid`
// (bad SQL, a constraint) otherwise; the message is the database's own.
// With PostgreSQL, Execute may send its statement without waiting for the
// answer (statements of one transaction are pipelined): its error then
// comes from a later Query or from Commit.
//
// Concurrency: a ReadStore is one connection, used by one thread at a time:
// open one per thread (a runner opens its own). SQLite files are opened in
// WAL mode, so readers are not blocked by a writer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "indelible/result.h"
#include "indelible/status.h"

namespace indelible {

// NULL, an integer, a float or text (text also carries JSON and bytes).
using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

// Column readers: a NULL or a value of another kind gives the fallback.
std::int64_t SqlInt(const SqlValue& value, std::int64_t fallback = 0);
std::string SqlText(const SqlValue& value, std::string fallback = {});

enum class SqlDialect : std::uint8_t { kSqlite, kPostgres };

class SqlTransaction {
 public:
  virtual ~SqlTransaction() = default;  // rolls back unless committed
  // Runs a statement whose rows are not needed (DDL, INSERT, UPDATE).
  virtual Status Execute(std::string_view sql, const std::vector<SqlValue>& params = {}) = 0;
  virtual Result<std::vector<SqlRow>> Query(std::string_view sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  // Durable when it returns ok (SQLite: synchronous=FULL in WAL mode).
  // Once Commit failed, the transaction is rolled back.
  virtual Status Commit() = 0;
};

class ReadStore {
 public:
  // "sqlite:PATH" (the file is created if missing) or a libpq URL,
  // "postgresql://USER@HOST:PORT/DATABASE" (the database must exist).
  static Result<std::unique_ptr<ReadStore>> Open(std::string_view url);
  // The read store beside an embedded data folder: the URL "file:DIR"
  // gives "sqlite:DIR.read.db" (beside the folder, not inside it, so the
  // event store's folder holds only its own files). "dynamodb://...prefix=P"
  // gives "sqlite:./Pread.db" in the working directory (one process; share
  // a PostgreSQL read store between several). Other URLs: invalid.
  static Result<std::string> DefaultUrlFor(std::string_view store_url);

  virtual ~ReadStore() = default;
  // Starts a write transaction. SQLite: BEGIN IMMEDIATE (one writer at a
  // time; others wait up to 10 s). PostgreSQL: READ COMMITTED.
  virtual Result<std::unique_ptr<SqlTransaction>> Begin() = 0;
  // One query in a transaction of its own.
  virtual Result<std::vector<SqlRow>> Query(std::string_view sql,
                                            const std::vector<SqlValue>& params = {}) = 0;
  virtual SqlDialect dialect() const = 0;
};

}  // namespace indelible
