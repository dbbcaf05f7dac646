#include "projections/meta.h"

#include <chrono>

#include "core/clock.h"

namespace indelible::projections {
namespace {

constexpr std::string_view kColumns =
    "SELECT name, version, generation, position, tables, building_generation, "
    "building_position, building_tables, blocked_at, blocked_reason, operator_action";

// LockRow starts every batch: it leaves out the parked count (for status).
const std::string& LockSql(SqlDialect dialect) {
  static const std::string sqlite =
      std::string(kColumns) + " FROM indelible_projections WHERE name = $1";
  static const std::string postgres = sqlite + " FOR UPDATE";
  return dialect == SqlDialect::kPostgres ? postgres : sqlite;
}

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    if (comma > start) names.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

MetaRow FromRow(const SqlRow& r) {
  MetaRow row;
  row.name = SqlText(r[0]);
  row.version = static_cast<int>(SqlInt(r[1]));
  row.generation = SqlInt(r[2]);
  row.position = static_cast<std::uint64_t>(SqlInt(r[3]));
  row.tables = SplitNames(SqlText(r[4]));
  if (!std::holds_alternative<std::nullptr_t>(r[5])) row.building_generation = SqlInt(r[5]);
  row.building_position = static_cast<std::uint64_t>(SqlInt(r[6]));
  row.building_tables = SplitNames(SqlText(r[7]));
  if (!std::holds_alternative<std::nullptr_t>(r[8]))
    row.blocked_at = static_cast<std::uint64_t>(SqlInt(r[8]));
  row.blocked_reason = SqlText(r[9]);
  row.operator_action = SqlText(r[10]);
  if (r.size() > 11) row.parked = SqlInt(r[11]);
  return row;
}

// Names that went in through ValidateProjection come back the same; any
// other text was put there by hand or by damage, and must not become SQL.
Status CheckNames(const MetaRow& row) {
  for (const auto& [column, names] :
       {std::pair{"tables", &row.tables}, std::pair{"building_tables", &row.building_tables}}) {
    for (const std::string& name : *names) {
      if (IsTableName(name)) continue;
      return Status::Invalid("indelible_projections",
                             "the indelible_projections row of projection '" + row.name +
                                 "' holds '" + name + "' in " + column +
                                 ", which is not a table name: the row was changed outside "
                                 "indelible; nothing was run with it (restore the row, or "
                                 "delete it and the projection's tables, then rebuild)");
    }
  }
  return Status::Ok();
}

std::string Select(std::string_view where) {
  return std::string(kColumns) +
         ", (SELECT COUNT(*) FROM indelible_parked WHERE projection = p.name) "
         "FROM indelible_projections p " +
         std::string(where);
}

}  // namespace

Status EnsureMetaTables(ReadStore& db) {
  auto tx = db.Begin();
  if (!tx.ok()) return tx.status();
  // BIGINT and TEXT mean the same to SQLite and PostgreSQL.
  for (const char* sql : {
           "CREATE TABLE IF NOT EXISTS indelible_projections ("
           "name TEXT PRIMARY KEY, version BIGINT NOT NULL, generation BIGINT NOT NULL, "
           "position BIGINT NOT NULL, tables TEXT NOT NULL, building_generation BIGINT, "
           "building_position BIGINT NOT NULL DEFAULT 0, building_tables TEXT NOT NULL DEFAULT '', "
           "blocked_at BIGINT, blocked_reason TEXT NOT NULL DEFAULT '', "
           "operator_action TEXT NOT NULL DEFAULT '', updated_ms BIGINT NOT NULL DEFAULT 0)",
           "CREATE TABLE IF NOT EXISTS indelible_parked ("
           "projection TEXT NOT NULL, position BIGINT NOT NULL, stream TEXT NOT NULL, "
           "version BIGINT NOT NULL, type TEXT NOT NULL, reason TEXT NOT NULL, "
           "parked_ms BIGINT NOT NULL, PRIMARY KEY (projection, position))",
       }) {
    if (Status s = (*tx)->Execute(sql); !s.ok()) return s;
  }
  return (*tx)->Commit();
}

Result<std::optional<MetaRow>> LockRow(SqlTransaction& tx, SqlDialect dialect,
                                       std::string_view name) {
  // SQLite's BEGIN IMMEDIATE already holds the database's write lock.
  auto rows = tx.Query(LockSql(dialect), {std::string(name)});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<MetaRow>();
  MetaRow row = FromRow(rows->front());
  if (Status s = CheckNames(row); !s.ok()) return s;
  return std::optional<MetaRow>(std::move(row));
}

Result<std::optional<MetaRow>> ReadRow(ReadStore& db, std::string_view name) {
  auto rows = db.Query(Select("WHERE name = $1"), {std::string(name)});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return std::optional<MetaRow>();
  return std::optional<MetaRow>(FromRow(rows->front()));
}

Result<std::vector<MetaRow>> ReadRows(ReadStore& db) {
  auto rows = db.Query(Select("ORDER BY name"));
  if (!rows.ok()) return rows.status();
  std::vector<MetaRow> out;
  for (const SqlRow& r : *rows) out.push_back(FromRow(r));
  return out;
}

Status SetOperatorAction(ReadStore& db, std::string_view name, std::string_view action) {
  if (Status s = EnsureMetaTables(db); !s.ok()) return s;
  auto tx = db.Begin();
  if (!tx.ok()) return tx.status();
  auto row = LockRow(**tx, db.dialect(), name);
  if (!row.ok()) return row.status();
  if (!row->has_value())
    return Status::NotFound("no projection '" + std::string(name) + "' in this read store");
  if (!(*row)->blocked_at)
    return Status::Invalid("projection", "projection '" + std::string(name) +
                                             "' is not blocked: nothing to " + std::string(action));
  if (Status s =
          (*tx)->Execute("UPDATE indelible_projections SET operator_action = $2 WHERE name = $1",
                         {std::string(name), std::string(action)});
      !s.ok())
    return s;
  return (*tx)->Commit();
}

bool IsTableName(std::string_view name) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (name.empty() || name.size() > 48 || !letter(name[0])) return false;
  if (name.find("__") != std::string_view::npos) return false;
  for (char c : name)
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '_') return false;
  return true;
}

std::string PhysicalName(std::string_view name, std::int64_t generation) {
  return std::string(name) + "__g" + std::to_string(generation);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

}  // namespace indelible::projections
