// The PostgreSQL read store, through libpq: one connection per ReadStore,
// made again after it breaks (so a runner outlives a server restart).
//
// Each statement text is prepared once per connection (PQprepare) and run
// with its values bound as parameters (postgres_values.h): a value is never
// part of an SQL text, so none can change a statement, whatever it holds
// and however the session's settings (standard_conforming_strings) read
// literals. In a transaction, Execute only queues the statement and its
// values; the queue goes to the server in libpq's pipeline mode (Bind and
// Execute of each, one Sync) at the next Query or Commit, or once it is
// large: a whole batch costs one round trip. A round trip per statement
// caps a rebuild at 13-20k statements/s on loopback; pipelined, 65-70k/s.
// (libpqxx 6.4, which this store used before, has neither pipeline mode nor
// a way to reach its connection's PGconn.) The first error aborts the
// transaction, as PostgreSQL does; later calls on it return that error
// again, and Commit rolls back.
#include <libpq-fe.h>
#include <poll.h>

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

#include "projections/postgres_values.h"
#include "projections/stores.h"
#include "projections/text_map.h"

namespace indelible::projections {
namespace {

constexpr std::size_t kMaxCachedStatements = 512;
constexpr std::size_t kMaxQueuedBytes = 1 << 20;  // sent early beyond this
constexpr std::size_t kMaxQueuedStatements = 10000;
constexpr int kMaxParameters = 65535;  // the protocol's limit
constexpr const char* kBegin = "BEGIN ISOLATION LEVEL READ COMMITTED";

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

struct ConnDeleter {
  void operator()(PGconn* c) const { PQfinish(c); }
};

// A statement to send: a prepared one with its values, or a command
// without parameters (BEGIN, COMMIT).
struct Pending {
  const std::string* prepared = nullptr;  // its name in the statement cache
  const char* command = nullptr;
  std::size_t first = 0;  // its values in PgValues
  std::size_t count = 0;
};

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
    int parameters;
    std::list<std::string>::iterator age;
  };
  // An error if `tx` may not run statements: it failed, or is not current.
  Status Usable(std::uint64_t tx) const;
  // `sql` prepared if need be, with `params` appended to values_.
  Result<Pending> Statement(std::string_view sql, const std::vector<SqlValue>& params);
  Status Prepare(const std::string& name, std::string_view sql, int& parameters);
  // Sends the queue and then `last` in one pipeline; last's result (null
  // without one).
  Result<ResultPtr> Send(std::optional<Pending> last);
  Status Pipeline(const std::optional<Pending>& last, ResultPtr& result);
  // Whether the server went away since the last call, seen without a round
  // trip in what it sent: the end of the stream (after a fast shutdown's
  // notice, hence two reads). Then the store connects again before a
  // statement rather than failing it.
  bool Alive();
  // Turns a failure into a Status. An error fails the open transaction; a
  // broken connection is dropped. `called`: the server may have acted.
  Status Failed(const std::string& sqlstate, const std::string& message, bool called);
  Status Failed(const PGresult* result, bool called);
  // Runs a command without parameters outside any pipeline (DEALLOCATE, ROLLBACK).
  Status Command(const std::string& sql);
  void Drop();

  std::string url_;
  std::unique_ptr<PGconn, ConnDeleter> conn_;
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
  std::vector<Pending> queued_;
  PgValues values_;
  // What the last failure was: "cached plan must not change result type";
  // the connection lost while a call was under way.
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

bool PostgresStore::Alive() {
  if (!conn_) return false;
  for (int read = 0; read < 2 && PQstatus(conn_.get()) == CONNECTION_OK; ++read)
    (void)PQconsumeInput(conn_.get());
  while (PGnotify* n = PQnotifies(conn_.get())) PQfreemem(n);
  return PQstatus(conn_.get()) == CONNECTION_OK;
}

Status PostgresStore::Failed(const std::string& sqlstate, const std::string& message, bool called) {
  // A plan made before a table or view it reads changed its columns: the
  // statement must be prepared again, which a new connection does.
  stale_plan_ = sqlstate == "0A000" && message.find("cached plan") != std::string::npos;
  const bool lost = !conn_ || PQstatus(conn_.get()) != CONNECTION_OK;
  lost_in_call_ = lost && called;
  Status status;
  if (lost) {
    status = Status::Unavailable("PostgreSQL read store: connection lost: " + PgMessage(message));
  } else if (stale_plan_) {
    status = Status::Unavailable("PostgreSQL read store: " + PgMessage(message) +
                                 " (prepared again on a new connection)");
  } else if (!sqlstate.empty()) {
    status = PgError(sqlstate, PgMessage(message));
  } else {  // libpq's own: the connection, memory
    status = Status::Unavailable("PostgreSQL read store: " + PgMessage(message));
  }
  if (tx_ != 0 && !failed_) failed_ = status;
  if (lost || stale_plan_) Drop();
  return status;
}

Status PostgresStore::Failed(const PGresult* result, bool called) {
  const char* sqlstate = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const char* message = result ? PQresultErrorMessage(result) : "";
  if (message == nullptr || *message == '\0') message = PQerrorMessage(conn_.get());
  return Failed(sqlstate ? sqlstate : "", message, called);
}

Status PostgresStore::Command(const std::string& sql) {
  if (!Alive()) return Failed("", "the server closed the connection", false);
  ResultPtr result(PQexec(conn_.get(), sql.c_str()));
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) return Failed(result.get(), true);
  stale_plan_ = lost_in_call_ = false;
  return Status::Ok();
}

void PostgresStore::Drop() {
  conn_.reset();
  statements_.clear();
  ages_.clear();
  queued_.clear();
  values_.Clear();
  began_ = false;  // the server rolled it back
  if (tx_ != 0 && !failed_)
    failed_ = Status::Unavailable("PostgreSQL read store: the connection was lost");
}

Status PostgresStore::Connect() {
  if (Alive()) return Status::Ok();
  Drop();
  std::unique_ptr<PGconn, ConnDeleter> conn(PQconnectdb(url_.c_str()));
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    // libpq's message, which leaves out the URL and so its password.
    return Status::Unavailable("cannot connect to the PostgreSQL read store: " +
                               PgMessage(conn ? PQerrorMessage(conn.get()) : "out of memory"));
  }
  // Notices (DROP ... IF EXISTS of nothing) are not errors: no stderr lines.
  PQsetNoticeProcessor(
      conn.get(), [](void*, const char*) {}, nullptr);
  // Sending never blocks: Pipeline reads answers while it writes.
  if (PQsetnonblocking(conn.get(), 1) != 0)
    return Status::Unavailable("PostgreSQL read store: " + PgMessage(PQerrorMessage(conn.get())));
  conn_ = std::move(conn);
  return Status::Ok();
}

Result<std::unique_ptr<SqlTransaction>> PostgresStore::Begin() {
  if (tx_ != 0) return Status::Invalid("transaction", "a transaction is already open");
  if (Status s = Connect(); !s.ok()) return s;
  tx_ = ++next_tx_;
  began_ = false;
  failed_.reset();
  queued_.clear();
  values_.Clear();
  queued_.push_back(Pending{nullptr, kBegin, 0, 0});  // sent with the first statements
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
  queued_.push_back(*statement);
  if (values_.bytes() < kMaxQueuedBytes && queued_.size() < kMaxQueuedStatements)
    return Status::Ok();
  return Send(std::nullopt).status();
}

Result<std::vector<SqlRow>> PostgresStore::Run(std::uint64_t tx, std::string_view sql,
                                               const std::vector<SqlValue>& params) {
  if (Status s = tx != 0 ? Usable(tx) : Connect(); !s.ok()) return s;
  auto statement = Statement(sql, params);
  if (!statement.ok()) return statement.status();
  auto result = Send(*statement);
  if (!result.ok()) return result.status();
  return PgRows(result->get());
}

Status PostgresStore::End(std::uint64_t tx, bool commit) {
  if (tx != tx_) return Status::Invalid("transaction", "already committed or rolled back");
  Status status = failed_.value_or(Status::Ok());
  const bool anything = began_ || queued_.size() > 1;  // more than BEGIN
  if (commit && status.ok() && anything) {
    status = Send(Pending{nullptr, "COMMIT", 0, 0}).status();
    if (lost_in_call_)  // the COMMIT was sent, its answer never came
      status = Status::Unavailable(status.message() +
                                   " (during COMMIT: whether it committed is unknown)");
  }
  const bool rollback = began_ && conn_ && (!commit || !status.ok());
  tx_ = 0;  // before the ROLLBACK, which must not fail a transaction
  began_ = false;
  failed_.reset();
  queued_.clear();
  values_.Clear();
  // After a failed COMMIT the transaction may be over already: a ROLLBACK
  // then only draws a warning.
  if (rollback) (void)Command("ROLLBACK");
  return status;
}

Status PostgresStore::Prepare(const std::string& name, std::string_view sql, int& parameters) {
  if (!Alive()) return Failed("", "the server closed the connection", false);
  const std::string text(sql);
  ResultPtr prepared(PQprepare(conn_.get(), name.c_str(), text.c_str(), 0, nullptr));
  if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) return Failed(prepared.get(), true);
  ResultPtr described(PQdescribePrepared(conn_.get(), name.c_str()));
  if (PQresultStatus(described.get()) != PGRES_COMMAND_OK) return Failed(described.get(), true);
  parameters = PQnparams(described.get());
  return Status::Ok();
}

Result<Pending> PostgresStore::Statement(std::string_view sql,
                                         const std::vector<SqlValue>& params) {
  if (params.size() > static_cast<std::size_t>(kMaxParameters))
    return Status::Invalid("sql", "more than 65535 values");
  auto it = statements_.find(sql);
  if (it != statements_.end()) {
    ages_.splice(ages_.begin(), ages_, it->second.age);
  } else {
    // Queued statements go first: this one may use a table they create.
    if (auto sent = Send(std::nullopt); !sent.ok()) return sent.status();
    if (statements_.size() >= kMaxCachedStatements) {
      const auto oldest = statements_.find(ages_.back());
      const std::string old = oldest->second.name;
      statements_.erase(oldest);
      ages_.pop_back();
      if (Status s = Command("DEALLOCATE " + old); !s.ok()) return s;
    }
    const std::string name = "indelible_" + std::to_string(++next_name_);
    int parameters = 0;
    if (Status s = Prepare(name, sql, parameters); !s.ok()) return s;
    ages_.emplace_front(sql);
    it = statements_.emplace(ages_.front(), Cached{name, parameters, ages_.begin()}).first;
  }
  const Cached& cached = it->second;
  if (static_cast<std::size_t>(cached.parameters) != params.size())
    return Status::Invalid("sql", "the statement has " + std::to_string(cached.parameters) +
                                      " parameters and " + std::to_string(params.size()) +
                                      " values were given: '" + std::string(sql) + "'");
  Pending pending{&cached.name, nullptr, values_.size(), params.size()};
  if (Status s = values_.Append(params); !s.ok()) return s;
  return pending;
}

Result<ResultPtr> PostgresStore::Send(std::optional<Pending> last) {
  if (queued_.empty() && !last) return ResultPtr();
  if (tx_ != 0) began_ = true;
  ResultPtr result;
  Status sent = Pipeline(last, result);
  queued_.clear();
  values_.Clear();
  if (!sent.ok()) return sent;
  stale_plan_ = lost_in_call_ = false;
  return result;
}

Status PostgresStore::Pipeline(const std::optional<Pending>& last, ResultPtr& result) {
  if (!Alive()) return Failed("", "the server closed the connection", false);
  PGconn* conn = conn_.get();
  const std::vector<const char*> values = values_.Pointers();
  auto send = [&](const Pending& p) {
    if (p.prepared == nullptr)
      return PQsendQueryParams(conn, p.command, 0, nullptr, nullptr, nullptr, nullptr, 0);
    return PQsendQueryPrepared(conn, p.prepared->c_str(), static_cast<int>(p.count),
                               p.count ? &values[p.first] : nullptr, nullptr, nullptr, 0);
  };
  // Mid-pipeline, the connection's state is unknown: it is not used again,
  // and whatever was sent may or may not have run.
  auto broken = [&](const std::string& sqlstate, const std::string& message) {
    Status status = Failed(sqlstate, message.empty() ? PQerrorMessage(conn) : message, true);
    lost_in_call_ = true;
    Drop();
    return status;
  };
  if (PQenterPipelineMode(conn) != 1) return broken("", "");
  std::size_t statements = 0;
  for (const Pending& p : queued_) {
    if (send(p) != 1) return broken("", "");
    ++statements;
  }
  if (last) {
    if (send(*last) != 1) return broken("", "");
    ++statements;
  }
  if (PQpipelineSync(conn) != 1) return broken("", "");
  // Write it all; read what comes meanwhile, so a server blocked on its
  // answers to us never blocks our writing.
  for (int flushed; (flushed = PQflush(conn)) != 0;) {
    if (flushed < 0) return broken("", "");
    pollfd fd{PQsocket(conn), POLLIN | POLLOUT, 0};
    if (::poll(&fd, 1, -1) < 0) continue;
    if ((fd.revents & POLLIN) != 0 && PQconsumeInput(conn) == 0) return broken("", "");
  }
  // The answers in order: each statement's result then a null, and the
  // Sync's. After an error the rest are PGRES_PIPELINE_ABORTED.
  std::optional<std::string> sqlstate, message;
  std::size_t index = 0;
  for (bool synced = false; !synced;) {
    ResultPtr r(PQgetResult(conn));
    if (!r) {
      if (PQstatus(conn) != CONNECTION_OK || index > statements)
        return broken(sqlstate.value_or(""), message.value_or(""));
      ++index;
      continue;
    }
    switch (PQresultStatus(r.get())) {
      case PGRES_PIPELINE_SYNC:
        synced = true;
        break;
      case PGRES_PIPELINE_ABORTED:
        break;
      case PGRES_COMMAND_OK:
      case PGRES_TUPLES_OK:
      case PGRES_EMPTY_QUERY:
        if (last && index + 1 == statements) result = std::move(r);
        break;
      default:  // PGRES_FATAL_ERROR, or an answer no statement of ours gives (COPY)
        if (!message) {
          const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
          sqlstate = state ? state : "";
          message = PQresultErrorMessage(r.get());
          if (message->empty())
            message = "unexpected answer " + std::string(PQresStatus(PQresultStatus(r.get())));
        }
        if (PQstatus(conn) != CONNECTION_OK) return broken(*sqlstate, *message);
    }
  }
  if (PQexitPipelineMode(conn) != 1) return broken("", "");
  if (message) return Failed(*sqlstate, *message, true);
  return Status::Ok();
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
