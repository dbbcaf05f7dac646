// indelible-messagedb-bench: WORKLOAD.md "ledger-append v1" against Message
// DB (eventide's message store on PostgreSQL), the peer the workload names
// first, so scripts/bench-messagedb.sh can put the two side by side in one
// run. The same data (bench/events.h), the same phases and checks as
// `indelible bench workload` (but the payload size: Message DB stores the
// data as jsonb, which rewrites the text), reading every event's data,
// through Message DB's own functions:
//   append    message_store.write_message(id, stream, 'Deposited', data,
//             NULL, expected_version), expected -1 for a new stream
//   read      message_store.get_stream_messages(stream, position, PAGE)
//   read_all  message_store.get_category_messages('account', position, PAGE)
// Durable as PostgreSQL's defaults are (fsync=on, synchronous_commit=on);
// the line says which settings the server reported.
//
//   EVENTS= STREAMS= CLIENTS= PAGE= indelible-messagedb-bench URI
//
// libpq directly (as src/projections does): one connection per client, one
// prepared statement per function, text parameters.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/events.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Params {
  std::uint64_t events = 20000, streams = 200, page = 1000;
  int clients = 1;
  std::uint64_t per_stream() const { return events / streams; }
};

std::uint64_t EnvNumber(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || value == 0) {
    std::fprintf(stderr, "indelible-messagedb-bench: %s must be a positive number, not '%s'\n",
                 name, text);
    std::exit(2);
  }
  return value;
}

// A connection and its error, closed on destruction.
class Connection {
 public:
  explicit Connection(const std::string& uri) : conn_(PQconnectdb(uri.c_str())) {
    if (PQstatus(conn_) != CONNECTION_OK) {
      error_ = PQerrorMessage(conn_);
      return;
    }
    // Message DB's functions call each other unqualified: its own role
    // sets this search path (roles/message-store.sql); we connect as the
    // cluster's superuser.
    Exec("SET search_path TO message_store, public");
  }
  ~Connection() { PQfinish(conn_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  const std::string& error() const { return error_; }
  bool Prepare(const char* name, const char* sql) {
    return Check(PQprepare(conn_, name, sql, 0, nullptr), PGRES_COMMAND_OK);
  }
  // Runs a prepared statement with text parameters; the rows, or nullptr
  // with error() set.
  std::unique_ptr<PGresult, void (*)(PGresult*)> Run(const char* name,
                                                     const std::vector<std::string>& values) {
    std::vector<const char*> raw;
    for (const std::string& v : values) raw.push_back(v.c_str());
    PGresult* result =
        PQexecPrepared(conn_, name, static_cast<int>(raw.size()), raw.data(), nullptr, nullptr, 0);
    if (PQresultStatus(result) != PGRES_TUPLES_OK) {
      error_ = PQresultErrorMessage(result);
      PQclear(result);
      return {nullptr, PQclear};
    }
    return {result, PQclear};
  }
  std::string Scalar(const char* sql) {
    PGresult* result = PQexec(conn_, sql);
    std::string value;
    if (PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) > 0)
      value = PQgetvalue(result, 0, 0);
    else
      error_ = PQresultErrorMessage(result);
    PQclear(result);
    return value;
  }
  bool Exec(const char* sql) { return Check(PQexec(conn_, sql), PGRES_COMMAND_OK); }

 private:
  bool Check(PGresult* result, ExecStatusType want) {
    const bool ok = PQresultStatus(result) == want;
    if (!ok) error_ = PQresultErrorMessage(result);
    PQclear(result);
    return ok;
  }
  PGconn* conn_;
  std::string error_;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "indelible-messagedb-bench: %s\n", what.c_str());
  std::exit(1);
}

std::vector<std::string> OwnedStreams(const Params& p, int client) {
  std::vector<std::string> owned;
  for (std::uint64_t s = static_cast<std::uint64_t>(client); s < p.streams;
       s += static_cast<std::uint64_t>(p.clients))
    owned.push_back(indelible::bench::AccountStream(s));
  return owned;
}

constexpr const char* kWrite =
    "SELECT message_store.write_message($1, $2, 'Deposited', $3::jsonb, NULL, $4::bigint)";

void AppendRounds(const std::string& uri, const Params& p, int client, std::string* error) {
  Connection db(uri);
  if (!db.error().empty() || !db.Prepare("write", kWrite)) {
    *error = db.error();
    return;
  }
  const std::vector<std::string> owned = OwnedStreams(p, client);
  std::mt19937 rng(static_cast<std::uint32_t>(1000 + client));
  for (std::uint64_t r = 0; r < p.per_stream(); ++r) {
    const std::string expected = std::to_string(static_cast<std::int64_t>(r) - 1);
    for (const std::string& stream : owned) {
      indelible::EventData event = indelible::bench::DepositedEvent(stream, r, 200, rng);
      if (!db.Run("write", {event.id.ToString(), stream, event.data, expected})) {
        *error = fmt::format("appending to {}: {}", stream, db.error());
        return;
      }
    }
  }
}

void ReadStreams(const std::string& uri, const Params& p, int client, std::string* error) {
  Connection db(uri);
  if (!db.error().empty() ||
      !db.Prepare("read",
                  "SELECT position, data FROM message_store.get_stream_messages($1, "
                  "$2::bigint, $3::bigint)")) {
    *error = db.error();
    return;
  }
  for (const std::string& stream : OwnedStreams(p, client)) {
    std::uint64_t next = 0;
    for (;;) {
      auto rows = db.Run("read", {stream, std::to_string(next), std::to_string(p.page)});
      if (!rows) {
        *error = db.error();
        return;
      }
      const int n = PQntuples(rows.get());
      for (int i = 0; i < n; ++i) {
        if (std::strtoull(PQgetvalue(rows.get(), i, 0), nullptr, 10) != next) {
          *error = fmt::format("{}: version {} out of order", stream, next);
          return;
        }
        ++next;
      }
      if (static_cast<std::uint64_t>(n) < p.page) break;
    }
    if (next != p.per_stream()) {
      *error = fmt::format("{} holds {} events, not {}", stream, next, p.per_stream());
      return;
    }
  }
}

std::string ReadAll(const std::string& uri, const Params& p) {
  Connection db(uri);
  if (!db.error().empty() ||
      !db.Prepare("all",
                  "SELECT global_position, data FROM message_store.get_category_messages("
                  "'account', $1::bigint, $2::bigint)"))
    return db.error();
  std::uint64_t from = 1, seen = 0, last = 0;
  for (;;) {
    auto rows = db.Run("all", {std::to_string(from), std::to_string(p.page)});
    if (!rows) return db.error();
    const int n = PQntuples(rows.get());
    for (int i = 0; i < n; ++i) {
      const std::uint64_t at = std::strtoull(PQgetvalue(rows.get(), i, 0), nullptr, 10);
      if (at <= last) return fmt::format("global position {} after {}", at, last);
      last = at;
      ++seen;
    }
    if (static_cast<std::uint64_t>(n) < p.page) break;
    from = last + 1;
  }
  if (seen != p.events) return fmt::format("the category holds {} events, not {}", seen, p.events);
  return {};
}

// After the append phase, untimed: the count, every stream at its last
// version, and one append with a stale version refused.
std::string CheckAppended(Connection& db, const Params& p) {
  const std::string count = db.Scalar("SELECT count(*) FROM message_store.messages");
  if (count != std::to_string(p.events))
    return fmt::format("{} messages stored, not {}", count, p.events);
  const std::string wrong =
      db.Scalar(fmt::format("SELECT count(*) FROM (SELECT stream_name, max(position) AS v FROM "
                            "message_store.messages GROUP BY stream_name) s WHERE v <> {}",
                            p.per_stream() - 1)
                    .c_str());
  if (wrong != "0") return fmt::format("{} streams not at version {}", wrong, p.per_stream() - 1);
  std::mt19937 rng(7);
  const std::string stream = indelible::bench::AccountStream(0);
  indelible::EventData stale = indelible::bench::DepositedEvent(stream, 0, 200, rng);
  if (!db.Prepare("stale", kWrite)) return db.error();
  if (db.Run("stale", {stale.id.ToString(), stream, stale.data, "0"}) != nullptr)
    return "an append with a stale expected version was accepted";
  if (db.error().find("Wrong expected version") == std::string::npos)
    return "the stale append failed otherwise: " + db.error();
  return {};
}

template <typename Phase>
double Timed(int clients, Phase phase) {
  std::vector<std::string> errors(static_cast<std::size_t>(clients));
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back(phase, c, &errors[static_cast<std::size_t>(c)]);
  for (auto& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const std::string& e : errors)
    if (!e.empty()) Fail(e);
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: EVENTS= STREAMS= CLIENTS= PAGE= indelible-messagedb-bench URI\n");
    return 2;
  }
  const std::string uri = argv[1];
  Params p;
  p.events = EnvNumber("EVENTS", p.events);
  p.streams = EnvNumber("STREAMS", p.streams);
  p.clients = static_cast<int>(EnvNumber("CLIENTS", 1));
  p.page = EnvNumber("PAGE", p.page);
  if (p.events % p.streams != 0 || p.streams % static_cast<std::uint64_t>(p.clients) != 0)
    Fail("EVENTS must be a multiple of STREAMS, and CLIENTS must divide STREAMS");

  Connection admin(uri);
  if (!admin.error().empty()) Fail("cannot connect to " + uri + ": " + admin.error());
  // Every run starts from an empty store.
  if (!admin.Exec("TRUNCATE message_store.messages RESTART IDENTITY"))
    Fail("emptying message_store.messages (is Message DB installed?): " + admin.error());
  const std::string durability =
      fmt::format("fsync={},synchronous_commit={}", admin.Scalar("SHOW fsync"),
                  admin.Scalar("SHOW synchronous_commit"));
  const std::string version = admin.Scalar("SELECT message_store.message_store_version()");

  auto line = [&](const char* op, double seconds, int clients, const std::string& extra) {
    std::printf(
        "peer=messagedb op=%s events=%llu seconds=%.6f events_per_s=%.0f clients=%d streams=%llu "
        "page=%llu durability=%s transport=libpq message_db=%s%s\n",
        op, static_cast<unsigned long long>(p.events), seconds,
        static_cast<double>(p.events) / seconds, clients,
        static_cast<unsigned long long>(p.streams), static_cast<unsigned long long>(p.page),
        durability.c_str(), version.c_str(), extra.c_str());
    std::fflush(stdout);
  };

  const double append =
      Timed(p.clients, [&](int c, std::string* error) { AppendRounds(uri, p, c, error); });
  if (std::string why = CheckAppended(admin, p); !why.empty()) Fail("check: " + why);
  line("append", append, p.clients, " checks=ok");
  const double read =
      Timed(p.clients, [&](int c, std::string* error) { ReadStreams(uri, p, c, error); });
  line("read", read, p.clients, "");
  const double read_all = Timed(1, [&](int, std::string* error) { *error = ReadAll(uri, p); });
  line("read_all", read_all, 1, "");
  return 0;
}
