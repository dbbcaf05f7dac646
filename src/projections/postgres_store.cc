// The PostgreSQL read store, through libpqxx 6.4: one connection per
// ReadStore, made again after it breaks (so a runner outlives a server
// restart).
//
// Each statement text is prepared once per connection (PQprepare, through
// pqxx's prepare_now) and run with SQL `EXECUTE name('v1', NULL, ...)`.
// In a transaction, Execute only queues its EXECUTE; the queue goes to the
// server as one multi-statement query at the next Query or Commit, or once it
// is large: a whole batch costs one round trip. A round trip per statement
// caps a rebuild at 13-20k statements/s on loopback; batched, 65-70k/s.
// (libpqxx 6.4 has no API for libpq's pipeline mode, which was measured no
// faster here.) Values travel as quoted literals (PQescapeStringConn), which
// the server converts to each parameter's type as it would text-format bound
// values. The first error aborts the transaction, as PostgreSQL does; later
// calls on it return that error again, and Commit rolls back.
#include <cstdint>
#include <list>
#include <optional>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>

#include "projections/postgres_values.h"
#include "projections/stores.h"
#include "projections/text_map.h"

namespace indelible::projections {
namespace {

constexpr std::size_t kMaxCachedStatements = 512;
constexpr std::size_t kMaxQueuedBytes = 1 << 20;  // sent early beyond this
constexpr std::string_view kBegin = "BEGIN ISOLATION LEVEL READ COMMITTED;\n";

class PostgresStore final : public ReadStore {
 public:
  explicit PostgresStore(std::string url) : url_(std::move(url)) {}

  Result<std::unique_ptr<SqlTransaction>> Begin() override;
  // Outside a transaction, a statement whose cached plan went stale (a view
  // it reads was replaced with other columns by a rebuild) is run once more
  // on a new connection, where it is prepared afresh.
  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override {
    auto rows = Run(tx_, sql, params);
    if (!rows.ok() && tx_ == 0 && stale_plan_) rows = Run(0, sql, params);
    return rows;
  }
  SqlDialect dialect() const override { return SqlDialect::kPostgres; }

  Status Connect();
  // Transaction `tx` (0: none) queues a statement, or runs one for its rows.
  Status Queue(std::uint64_t tx, std::string_view sql, const std::vector<SqlValue>& params);
  Result<std::vector<SqlRow>> Run(std::uint64_t tx, std::string_view sql,
                                  const std::vector<SqlValue>& params);
  // Commits or rolls back transaction `tx`.
  Status End(std::uint64_t tx, bool commit);

 private:
  struct Cached {
    std::string name;
    std::list<std::string>::iterator age;
  };
  // An error if `tx` may not run statements: it failed, or is not current.
  Status Usable(std::uint64_t tx) const;
  // "EXECUTE name('a', NULL)", the statement prepared first if need be.
  Result<std::string> Statement(std::string_view sql, const std::vector<SqlValue>& params);
  // Sends the queue and then `last` in one round trip; last's result.
  Result<pqxx::result> Send(std::string_view last);
  // Runs `call` (libpqxx), its exceptions turned into a Status. An error
  // fails the open transaction; a broken connection is dropped.
  template <class F>
  Status Guard(F&& call);
  void Drop();

  std::string url_;
  std::unique_ptr<pqxx::connection> conn_;
  // Prepared statements by text, the least recently used deallocated first.
  TextMap<Cached> statements_;
  std::list<std::string> ages_;  // most recent first
  std::uint64_t next_name_ = 0;
  // The open transaction (0: none): its number, whether BEGIN has been sent,
  // the error that failed it, and its statements not yet sent.
  std::uint64_t tx_ = 0;
  std::uint64_t next_tx_ = 0;
  bool began_ = false;
  std::optional<Status> failed_;
  std::string queued_;
  // What the last failed Guard saw: "cached plan must not change result
  // type"; the connection lost while a call was under way.
  bool stale_plan_ = false;
  bool lost_in_call_ = false;
};

class PostgresTransaction final : public SqlTransaction {
 public:
  PostgresTransaction(PostgresStore& store, std::uint64_t id) : store_(store), id_(id) {}
  ~PostgresTransaction() override {
    if (!done_) (void)store_.End(id_, false);
  }
  Status Execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    return store_.Queue(id_, sql, params);
  }
  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override {
    return store_.Run(id_, sql, params);
  }
  Status Commit() override {
    if (done_) return Status::Invalid("transaction", "already committed or rolled back");
    done_ = true;
    return store_.End(id_, true);
  }

 private:
  PostgresStore& store_;
  std::uint64_t id_;
  bool done_ = false;
};

template <class F>
Status PostgresStore::Guard(F&& call) {
  std::string sqlstate, what;
  bool transient = false;  // a pqxx::failure without an SQLSTATE
  bool called = false;
  try {
    // Whether the server went away since the last call, seen without a
    // round trip in what it sent: the end of the stream (after a fast
    // shutdown's notice, hence two reads). Then the store connects again
    // before a statement, rather than failing it; and libpqxx 6.4 leaks the
    // PGresult of a statement that fails so (fixed in 7.x: jtv/libpqxx#500).
    conn_->get_notifs();
    conn_->get_notifs();
    if (!conn_->is_open()) throw pqxx::broken_connection("the server closed the connection");
    called = true;
    call();
    stale_plan_ = lost_in_call_ = false;
    return Status::Ok();
  } catch (const pqxx::sql_error& e) {
    sqlstate = e.sqlstate();
    what = e.what();
  } catch (const pqxx::failure& e) {  // broken_connection; transaction_rollback (40xxx)
    transient = true;
    what = e.what();
  } catch (const std::exception& e) {
    what = e.what();
  }
  // A plan made before a table or view it reads changed its columns: the
  // statement must be prepared again, which a new connection does.
  stale_plan_ = sqlstate == "0A000" && what.find("cached plan") != std::string::npos;
  const bool lost = !conn_->is_open();
  lost_in_call_ = lost && called;
  Status status;
  if (lost) {
    status = Status::Unavailable("PostgreSQL read store: connection lost: " + PgMessage(what));
  } else if (stale_plan_) {
    status = Status::Unavailable("PostgreSQL read store: " + PgMessage(what) +
                                 " (prepared again on a new connection)");
  } else if (!sqlstate.empty()) {
    status = PgError(sqlstate, PgMessage(what));
  } else if (transient) {
    status = Status::Unavailable("PostgreSQL read store: " + PgMessage(what));
  } else {
    status = Status::Internal("PostgreSQL read store: " + what);
  }
  if (tx_ != 0 && !failed_) failed_ = status;
  if (lost || stale_plan_) Drop();
  return status;
}

void PostgresStore::Drop() {
  conn_.reset();
  statements_.clear();
  ages_.clear();
  queued_.clear();
  began_ = false;  // the server rolled it back
  if (tx_ != 0 && !failed_)
    failed_ = Status::Unavailable("PostgreSQL read store: the connection was lost");
}

Status PostgresStore::Connect() {
  if (conn_ && Guard([] {}).ok()) return Status::Ok();
  Drop();
  try {
    conn_ = std::make_unique<pqxx::connection>(url_);
  } catch (const std::exception& e) {  // the URL, which may hold a password, stays out
    return Status::Unavailable("cannot connect to the PostgreSQL read store: " +
                               PgMessage(e.what()));
  }
  return Status::Ok();
}

Result<std::unique_ptr<SqlTransaction>> PostgresStore::Begin() {
  if (tx_ != 0) return Status::Invalid("transaction", "a transaction is already open");
  if (Status s = Connect(); !s.ok()) return s;
  tx_ = ++next_tx_;
  began_ = false;
  failed_.reset();
  queued_ = kBegin;  // sent with the first statements
  return std::unique_ptr<SqlTransaction>(std::make_unique<PostgresTransaction>(*this, tx_));
}

Status PostgresStore::Usable(std::uint64_t tx) const {
  if (tx != tx_) return Status::Invalid("transaction", "already committed or rolled back");
  if (failed_) return *failed_;
  return Status::Ok();
}

Status PostgresStore::Queue(std::uint64_t tx, std::string_view sql,
                            const std::vector<SqlValue>& params) {
  if (Status s = Usable(tx); !s.ok()) return s;
  auto statement = Statement(sql, params);
  if (!statement.ok()) return statement.status();
  queued_ += *statement;
  queued_ += ";\n";
  return queued_.size() < kMaxQueuedBytes ? Status::Ok() : Send("").status();
}

Result<std::vector<SqlRow>> PostgresStore::Run(std::uint64_t tx, std::string_view sql,
                                               const std::vector<SqlValue>& params) {
  if (Status s = tx != 0 ? Usable(tx) : Connect(); !s.ok()) return s;
  auto statement = Statement(sql, params);
  if (!statement.ok()) return statement.status();
  auto result = Send(*statement);
  if (!result.ok()) return result.status();
  return PgRows(*result);
}

Status PostgresStore::End(std::uint64_t tx, bool commit) {
  if (tx != tx_) return Status::Invalid("transaction", "already committed or rolled back");
  Status status = failed_.value_or(Status::Ok());
  if (commit && status.ok() && (began_ || queued_ != kBegin)) {
    status = Send("COMMIT").status();
    if (lost_in_call_)  // the COMMIT was sent, its answer never came
      status = Status::Unavailable(status.message() +
                                   " (during COMMIT: whether it committed is unknown)");
  }
  const bool rollback = began_ && conn_ && (!commit || !status.ok());
  tx_ = 0;  // before the ROLLBACK, which must not fail a transaction
  began_ = false;
  failed_.reset();
  queued_.clear();
  // After a failed COMMIT the transaction may be over already: a ROLLBACK
  // then only draws a warning.
  if (rollback) (void)Guard([&] { pqxx::nontransaction(*conn_).exec("ROLLBACK"); });
  return status;
}

Result<std::string> PostgresStore::Statement(std::string_view sql,
                                             const std::vector<SqlValue>& params) {
  std::string name;
  if (auto it = statements_.find(sql); it != statements_.end()) {
    ages_.splice(ages_.begin(), ages_, it->second.age);
    name = it->second.name;
  } else {
    // Queued statements go first: this one may use a table they create.
    if (auto sent = Send(""); !sent.ok()) return sent.status();
    if (statements_.size() >= kMaxCachedStatements) {
      const auto oldest = statements_.find(ages_.back());
      const std::string old = oldest->second.name;
      statements_.erase(oldest);
      ages_.pop_back();
      if (Status s = Guard([&] { conn_->unprepare(old); }); !s.ok()) return s;
    }
    name = "indelible_" + std::to_string(++next_name_);
    Status prepared = Guard([&] {
      conn_->prepare(name, std::string(sql));
      conn_->prepare_now(name);
    });
    if (!prepared.ok()) {
      // pqxx keeps the definition of a statement the server refused.
      if (conn_) (void)Guard([&] { conn_->unprepare(name); });
      return prepared;
    }
    ages_.emplace_front(sql);
    statements_.emplace(ages_.front(), Cached{name, ages_.begin()});
  }
  auto arguments = PgArguments(*conn_, params);
  if (!arguments.ok()) return arguments.status();
  return "EXECUTE " + name + *arguments;
}

Result<pqxx::result> PostgresStore::Send(std::string_view last) {
  std::string text = std::move(queued_);
  queued_.clear();
  text += last;
  if (text.empty()) return pqxx::result();
  if (tx_ != 0) began_ = true;
  pqxx::result result;
  Status sent = Guard([&] { result = pqxx::nontransaction(*conn_).exec(text); });
  if (!sent.ok()) return sent;
  return result;
}

}  // namespace

Result<std::unique_ptr<ReadStore>> OpenPostgresStore(std::string_view url) {
  // libpq waits for ever on a host that drops packets; a runner should not.
  std::string with_timeout(url);
  if (with_timeout.find("connect_timeout=") == std::string::npos)
    with_timeout += (with_timeout.find('?') == std::string::npos ? "?" : "&") +
                    std::string("connect_timeout=10");
  auto store = std::make_unique<PostgresStore>(std::move(with_timeout));
  if (Status s = store->Connect(); !s.ok()) return s;
  return std::unique_ptr<ReadStore>(std::move(store));
}

}  // namespace indelible::projections
