// The SQLite read store: one file, WAL mode, one connection per ReadStore.
#include <sqlite3.h>

#include <list>
#include <string>

#include "projections/stores.h"
#include "projections/text_map.h"

namespace indelible::projections {
namespace {

constexpr int kBusyTimeoutMs = 10000;
constexpr std::size_t kMaxCachedStatements = 256;

// A lock held too long by another writer, or a full disk, may pass; the rest
// is a mistake in the SQL or the data.
Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  std::string message = std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  const int primary = rc & 0xff;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_IOERR ||
      primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)
    return Status::Unavailable("sqlite read store: " + message);
  return Status::Invalid("sql", message);
}

class SqliteStore final : public ReadStore {
 public:
  explicit SqliteStore(sqlite3* db) : db_(db) {}
  ~SqliteStore() override {
    for (auto& [sql, entry] : statements_) sqlite3_finalize(entry.statement);
    sqlite3_close_v2(db_);
  }

  Result<std::unique_ptr<SqlTransaction>> Begin() override;
  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override {
    return Run(sql, params, true);
  }
  SqlDialect dialect() const override { return SqlDialect::kSqlite; }

  // One statement, its rows collected when `want_rows`.
  Result<std::vector<SqlRow>> Run(std::string_view sql, const std::vector<SqlValue>& params,
                                  bool want_rows);
  Status Plain(const char* sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &error);
    sqlite3_free(error);
    return rc == SQLITE_OK ? Status::Ok() : SqliteError(db_, rc, sql);
  }

 private:
  struct Cached {
    sqlite3_stmt* statement;
    std::list<std::string>::iterator age;
    // SQLite's index of $1, $2, ... (0: not used), looked up once.
    std::vector<int> slots;
  };
  Result<Cached*> Prepare(std::string_view sql);
  Status Bind(const Cached& cached, const std::vector<SqlValue>& params);

  sqlite3* db_;
  // Prepared statements by text, the least recently used evicted first.
  TextMap<Cached> statements_;
  std::list<std::string> ages_;  // most recent first
};

class SqliteTransaction final : public SqlTransaction {
 public:
  explicit SqliteTransaction(SqliteStore& store) : store_(store) {}
  ~SqliteTransaction() override {
    if (open_) (void)store_.Plain("ROLLBACK");
  }
  Status Execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    return store_.Run(sql, params, false).status();
  }
  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override {
    return store_.Run(sql, params, true);
  }
  Status Commit() override {
    if (!open_) return Status::Invalid("transaction", "already committed or rolled back");
    open_ = false;
    Status status = store_.Plain("COMMIT");
    if (!status.ok()) (void)store_.Plain("ROLLBACK");
    return status;
  }

 private:
  SqliteStore& store_;
  bool open_ = true;
};

Result<std::unique_ptr<SqlTransaction>> SqliteStore::Begin() {
  if (Status s = Plain("BEGIN IMMEDIATE"); !s.ok()) return s;
  return std::unique_ptr<SqlTransaction>(std::make_unique<SqliteTransaction>(*this));
}

Result<SqliteStore::Cached*> SqliteStore::Prepare(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) {
    ages_.splice(ages_.begin(), ages_, it->second.age);
    return &it->second;
  }
  sqlite3_stmt* statement = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &statement, &tail);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, "preparing '" + std::string(sql) + "'");
  if (statement == nullptr) return Status::Invalid("sql", "empty statement");
  if (tail != nullptr &&
      std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string::npos) {
    sqlite3_finalize(statement);
    return Status::Invalid("sql", "one statement per call: '" + std::string(sql) + "'");
  }
  if (statements_.size() >= kMaxCachedStatements) {
    auto oldest = statements_.find(ages_.back());
    sqlite3_finalize(oldest->second.statement);
    statements_.erase(oldest);
    ages_.pop_back();
  }
  // Parameters are $1, $2, ...: SQLite takes "$NNN" as a named parameter,
  // numbered by first appearance, so each is looked up by its name, once.
  Cached cached{statement, {}, {}};
  const int count = sqlite3_bind_parameter_count(statement);
  for (int n = 1; n <= count; ++n) {
    const int index = sqlite3_bind_parameter_index(statement, ("$" + std::to_string(n)).c_str());
    if (index == 0) {
      sqlite3_finalize(statement);
      return Status::Invalid("sql", "parameters are $1, $2, ... without gaps: '" +
                                        std::string(sql) + "' has no $" + std::to_string(n));
    }
    cached.slots.push_back(index);
  }
  ages_.emplace_front(sql);
  cached.age = ages_.begin();
  return &statements_.emplace(ages_.front(), std::move(cached)).first->second;
}

Status SqliteStore::Bind(const Cached& cached, const std::vector<SqlValue>& params) {
  sqlite3_stmt* statement = cached.statement;
  if (cached.slots.size() > params.size())
    return Status::Invalid("sql", "the statement has " + std::to_string(cached.slots.size()) +
                                      " parameters and " + std::to_string(params.size()) +
                                      " values were given");
  for (std::size_t i = 0; i < cached.slots.size(); ++i) {
    const int index = cached.slots[i];
    const SqlValue& value = params[i];
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::nullptr_t>(value)) {
      rc = sqlite3_bind_null(statement, index);
    } else if (const auto* n = std::get_if<std::int64_t>(&value)) {
      rc = sqlite3_bind_int64(statement, index, *n);
    } else if (const auto* d = std::get_if<double>(&value)) {
      rc = sqlite3_bind_double(statement, index, *d);
    } else {
      const auto& text = std::get<std::string>(value);
      rc = sqlite3_bind_text64(statement, index, text.data(), text.size(), SQLITE_STATIC,
                               SQLITE_UTF8);
    }
    if (rc != SQLITE_OK) return SqliteError(db_, rc, "binding $" + std::to_string(i + 1));
  }
  return Status::Ok();
}

Result<std::vector<SqlRow>> SqliteStore::Run(std::string_view sql,
                                             const std::vector<SqlValue>& params, bool want_rows) {
  auto cached = Prepare(sql);
  if (!cached.ok()) return cached.status();
  sqlite3_stmt* s = (*cached)->statement;
  if (Status bound = Bind(**cached, params); !bound.ok()) {
    sqlite3_clear_bindings(s);
    return bound;
  }
  std::vector<SqlRow> rows;
  for (;;) {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      Status error = SqliteError(db_, rc, sql);
      sqlite3_reset(s);
      return error;
    }
    if (!want_rows) continue;
    const int columns = sqlite3_column_count(s);
    SqlRow& row = rows.emplace_back();
    row.reserve(columns);
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(s, c)) {
        case SQLITE_NULL:
          row.emplace_back(nullptr);
          break;
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(s, c)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(s, c));
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
          row.emplace_back(std::string(text ? text : "", sqlite3_column_bytes(s, c)));
        }
      }
    }
  }
  // Released at once: a cached statement left mid-step would hold its read
  // snapshot open and keep the WAL from being checkpointed.
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rows;
}

}  // namespace

Result<std::unique_ptr<ReadStore>> OpenSqliteStore(std::string_view path) {
  sqlite3* db = nullptr;
  const std::string file(path);
  const int rc = sqlite3_open_v2(
      file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    Status error = Status::Unavailable("cannot open the SQLite read store '" + file +
                                       "': " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)) +
                                       " (check the folder exists and is writable)");
    sqlite3_close_v2(db);
    return error;
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  auto store = std::make_unique<SqliteStore>(db);
  // WAL: readers never wait for the projector; synchronous=FULL makes each
  // commit durable, so a checkpoint never runs ahead of what survived.
  // secure_delete: what a rebuild drops (a shredded subject's rows,
  // docs/RETENTION.md) is overwritten in the file, not left in free pages.
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
                             "PRAGMA foreign_keys=ON", "PRAGMA secure_delete=ON"}) {
    if (Status s = store->Plain(pragma); !s.ok()) return s;
  }
  return std::unique_ptr<ReadStore>(std::move(store));
}

}  // namespace indelible::projections
