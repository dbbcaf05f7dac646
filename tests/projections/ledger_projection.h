// The ledger projection of the crash and concurrency tests, and the model it
// must produce, computed from the events alone.
//
// Every event of category "acct" carries {"amount": N}. The projection
// inserts a ledger row per event (no unique key, so an event applied twice
// shows as two rows) and adds the amount to its stream's balance and 1 to
// its applied count: neither step is idempotent, so a double application or
// a lost one changes the model. Events of other categories ("noise-*") are
// filtered out and must leave no trace.
#pragma once

#include <indelible/projection.h>
#include <indelible/read_store.h>
#include <indelible/store.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace indelible::testutil {

inline constexpr std::string_view kLedgerName = "ledger";

// The amount in an event's data, or nullopt if it has none.
inline std::optional<std::int64_t> LedgerAmount(std::string_view data) {
  constexpr std::string_view kKey = "\"amount\":";
  const auto at = data.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::int64_t amount = 0;
  const char* begin = data.data() + at + kKey.size();
  auto [end, error] = std::from_chars(begin, data.data() + data.size(), amount);
  if (error != std::errc() || end == begin) return std::nullopt;
  return amount;
}

inline EventData LedgerEvent(std::int64_t amount) {
  EventData e;
  e.id = EventId::Random();
  e.type = "Booked";
  e.data = "{\"amount\":" + std::to_string(amount) + "}";
  return e;
}

// `tag` goes into every ledger row: which runner applied the event. Each
// apply sleeps `delay` first (the crash test slows its child down so that a
// kill lands mid-transaction while work is left).
inline Projection LedgerProjection(std::string tag,
                                   std::chrono::microseconds delay = std::chrono::microseconds(0)) {
  Projection p;
  p.name = std::string(kLedgerName);
  p.version = 1;
  p.filter.categories = {"acct"};
  p.tables = {"ledger", "accounts"};
  p.setup = [](ProjectionTransaction& tx) {
    for (const char* sql :
         {"CREATE TABLE {ledger} (position BIGINT NOT NULL, stream TEXT NOT NULL, "
          "amount BIGINT NOT NULL, runner TEXT NOT NULL)",
          "CREATE TABLE {accounts} (stream TEXT PRIMARY KEY, balance BIGINT NOT NULL, "
          "applied BIGINT NOT NULL)"})
      if (Status s = tx.Execute(sql); !s.ok()) return s;
    return Status::Ok();
  };
  p.apply = [tag = std::move(tag), delay](ProjectionTransaction& tx, const RecordedEvent& e) {
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    const auto amount = LedgerAmount(e.data);
    if (!amount) return Status::Invalid("data", "no amount in " + e.data);
    if (Status s =
            tx.Execute("INSERT INTO {ledger} VALUES ($1, $2, $3, $4)",
                       {static_cast<std::int64_t>(e.position.value()), e.stream, *amount, tag});
        !s.ok())
      return s;
    if (Status s = tx.Execute(
            "INSERT INTO {accounts} VALUES ($1, 0, 0) ON CONFLICT (stream) DO NOTHING", {e.stream});
        !s.ok())
      return s;
    return tx.Execute(
        "UPDATE {accounts} SET balance = balance + $2, applied = applied + 1 WHERE stream = $1",
        {e.stream, *amount});
  };
  return p;
}

struct LedgerModel {
  // (position, stream, amount), in position order.
  std::vector<std::tuple<std::int64_t, std::string, std::int64_t>> rows;
  // stream -> (balance, applied)
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> accounts;
};

// The model a replay from scratch of the events at or below `up_to` gives:
// computed from $all directly.
inline Result<LedgerModel> ExpectedLedger(Store& store, std::uint64_t up_to = UINT64_MAX) {
  auto events = ReadAllEvents(store);
  if (!events.ok()) return events.status();
  LedgerModel model;
  for (const RecordedEvent& e : *events) {
    if (e.position.value() > up_to) break;
    if (!e.stream.starts_with("acct-")) continue;
    const auto amount = LedgerAmount(e.data);
    if (!amount) return Status::Internal("no amount in " + e.data);
    model.rows.emplace_back(static_cast<std::int64_t>(e.position.value()), e.stream, *amount);
    auto& [balance, applied] = model.accounts[e.stream];
    balance += *amount;
    applied += 1;
  }
  return model;
}

// The model in the read store, through the views, read by `db` (a
// ReadStore, or a SqlTransaction for a consistent view).
template <class Db>
Result<LedgerModel> ActualLedger(Db& db) {
  LedgerModel model;
  auto rows = db.Query("SELECT position, stream, amount FROM ledger ORDER BY position, stream", {});
  if (!rows.ok()) return rows.status();
  for (const SqlRow& r : *rows) model.rows.emplace_back(SqlInt(r[0]), SqlText(r[1]), SqlInt(r[2]));
  auto accounts = db.Query("SELECT stream, balance, applied FROM accounts", {});
  if (!accounts.ok()) return accounts.status();
  for (const SqlRow& r : *accounts) model.accounts[SqlText(r[0])] = {SqlInt(r[1]), SqlInt(r[2])};
  return model;
}

// The first differences (at most `limit`), empty when the models are equal.
inline std::string LedgerDiff(const LedgerModel& expected, const LedgerModel& actual,
                              int limit = 10) {
  std::string out;
  int found = 0;
  auto note = [&](const std::string& line) {
    if (found++ < limit) out += line + "\n";
  };
  if (expected.rows.size() != actual.rows.size())
    note("ledger rows: expected " + std::to_string(expected.rows.size()) + ", got " +
         std::to_string(actual.rows.size()));
  for (std::size_t i = 0; i < std::max(expected.rows.size(), actual.rows.size()); ++i) {
    auto row = [](const auto& rows, std::size_t at) {
      if (at >= rows.size()) return std::string("(none)");
      const auto& [position, stream, amount] = rows[at];
      return std::to_string(position) + " " + stream + " " + std::to_string(amount);
    };
    if (i >= expected.rows.size() || i >= actual.rows.size() || expected.rows[i] != actual.rows[i])
      note("ledger row " + std::to_string(i) + ": expected " + row(expected.rows, i) + ", got " +
           row(actual.rows, i));
  }
  std::map<std::string, bool> streams;
  for (const auto& [stream, _] : expected.accounts) streams[stream] = true;
  for (const auto& [stream, _] : actual.accounts) streams[stream] = true;
  for (const auto& [stream, _] : streams) {
    auto value = [&](const LedgerModel& m) {
      auto it = m.accounts.find(stream);
      if (it == m.accounts.end()) return std::string("(none)");
      return "balance " + std::to_string(it->second.first) + " applied " +
             std::to_string(it->second.second);
    };
    if (value(expected) != value(actual))
      note("account " + stream + ": expected " + value(expected) + ", got " + value(actual));
  }
  if (found > limit) out += "... and " + std::to_string(found - limit) + " more\n";
  return out;
}

// The projection's checkpoint in the read store (0 before its first copy).
inline Result<std::int64_t> LedgerCheckpoint(ReadStore& db) {
  auto rows = db.Query("SELECT position FROM indelible_projections WHERE name = $1",
                       {std::string(kLedgerName)});
  if (!rows.ok()) return rows.status();
  return rows->empty() ? 0 : SqlInt(rows->front()[0]);
}

// The same in a transaction, and the projection's row locked until it ends,
// as runners lock it (SQLite's write transactions lock the whole database
// from their start): no runner commits meanwhile.
inline Result<std::int64_t> LockLedgerCheckpoint(SqlTransaction& tx, SqlDialect dialect) {
  auto rows = tx.Query(std::string("SELECT position FROM indelible_projections WHERE name = $1") +
                           (dialect == SqlDialect::kPostgres ? " FOR UPDATE" : ""),
                       {std::string(kLedgerName)});
  if (!rows.ok()) return rows.status();
  return rows->empty() ? 0 : SqlInt(rows->front()[0]);
}

// Appends `events` events in commits of up to 50 (ten streams, five events
// each), to acct-0 .. acct-(streams-1), with a "noise" event now and then.
inline Status AppendLedgerEvents(Store& store, int events, int streams, std::mt19937& rng) {
  while (events > 0) {
    std::map<std::string, std::vector<EventData>> by_stream;
    for (int i = 0; i < 50 && events > 0; ++i, --events) {
      const std::string stream = "acct-" + std::to_string(rng() % streams);
      by_stream[stream].push_back(LedgerEvent(static_cast<std::int64_t>(rng() % 2001) - 500));
    }
    by_stream["noise-" + std::to_string(rng() % 3)].push_back(LedgerEvent(1));
    std::vector<AppendRequest> appends;
    for (auto& [stream, batch] : by_stream)
      appends.push_back(AppendRequest{.stream = stream, .events = std::move(batch)});
    auto committed = store.Commit(std::move(appends));
    if (!committed.ok()) return committed.status();
  }
  return Status::Ok();
}

}  // namespace indelible::testutil
