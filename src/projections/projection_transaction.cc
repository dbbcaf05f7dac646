#include "projections/projection_transaction.h"

#include <exception>

#include "projections/meta.h"

namespace indelible::projections {
namespace {

// Every name that goes into DDL here, whether declared by the program or
// read back from the read store (LockRow checks those already, with a
// clearer message): nothing else is ever run.
Status CheckTableNames(const std::vector<std::string>& names) {
  for (const std::string& name : names)
    if (!IsTableName(name))
      return Status::Invalid("projection.tables",
                             "'" + name + "' is not a table name: refused in SQL");
  return Status::Ok();
}

}  // namespace

CopyNames::CopyNames(const Projection& projection, std::int64_t generation)
    : generation_(generation) {
  declared_.insert(projection.tables.begin(), projection.tables.end());
  declared_.insert(projection.indexes.begin(), projection.indexes.end());
}

const std::string& CopyNames::Expand(std::string_view sql) {
  auto it = expanded_.find(sql);
  if (it != expanded_.end()) return it->second;
  std::string out;
  out.reserve(sql.size() + 16);
  std::size_t i = 0;
  while (i < sql.size()) {
    if (sql[i] == '{') {
      const std::size_t close = sql.find('}', i + 1);
      if (close != std::string_view::npos) {
        std::string_view name = sql.substr(i + 1, close - i - 1);
        if (declared_.count(name) > 0) {
          out += PhysicalName(name, generation_);
          i = close + 1;
          continue;
        }
      }
    }
    out += sql[i++];
  }
  return expanded_.emplace(std::string(sql), std::move(out)).first->second;
}

Status ValidateProjection(const Projection& projection) {
  const std::string& name = projection.name;
  if (name.empty() || name.size() > 64 ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos)
    return Status::Invalid("projection.name", "projection name '" + name +
                                                  "' must be 1 to 64 of a-z, 0-9, '_' and '-'");
  if (!projection.apply || !projection.setup)
    return Status::Invalid("projection", "projection '" + name + "' needs setup and apply");
  std::set<std::string> seen;
  for (const auto* list : {&projection.tables, &projection.indexes}) {
    for (const std::string& table : *list) {
      if (!IsTableName(table))
        return Status::Invalid("projection.tables",
                               "'" + table + "' in projection '" + name +
                                   "' must be 1 to 48 letters, digits and single '_', "
                                   "starting with a letter");
      if (!seen.insert(table).second)
        return Status::Invalid("projection.tables", "'" + table + "' is declared twice");
    }
  }
  return Status::Ok();
}

Status SetupCopy(SqlTransaction& tx, SqlDialect dialect, const Projection& projection,
                 CopyNames& names, bool rebuilding) {
  // A copy left by an abandoned rebuild may hold these names.
  if (Status s = DropCopy(tx, projection.tables, names.generation()); !s.ok()) return s;
  CopyTransaction copy(tx, dialect, names, rebuilding);
  try {
    if (Status s = projection.setup(copy); !s.ok()) return s;
  } catch (const std::exception& e) {
    return Status::Internal("setup of projection '" + projection.name + "' threw: " + e.what());
  }
  // SQLite would accept a view over a table that setup forgot.
  for (const std::string& table : projection.tables) {
    if (!tx.Query("SELECT * FROM " + PhysicalName(table, names.generation()) + " LIMIT 0").ok())
      return Status::Invalid("projection.tables", "setup of projection '" + projection.name +
                                                      "' did not create {" + table + "}");
  }
  return Status::Ok();
}

Status PointViews(SqlTransaction& tx, const std::vector<std::string>& old_tables,
                  const std::vector<std::string>& new_tables, std::int64_t generation) {
  if (Status s = CheckTableNames(old_tables); !s.ok()) return s;
  if (Status s = CheckTableNames(new_tables); !s.ok()) return s;
  for (const std::string& table : old_tables)
    if (Status s = tx.Execute("DROP VIEW IF EXISTS " + table); !s.ok()) return s;
  for (const std::string& table : new_tables) {
    if (Status s = tx.Execute("DROP VIEW IF EXISTS " + table); !s.ok()) return s;
    if (Status s = tx.Execute("CREATE VIEW " + table + " AS SELECT * FROM " +
                              PhysicalName(table, generation));
        !s.ok())
      return s;
  }
  return Status::Ok();
}

Status DropCopy(SqlTransaction& tx, const std::vector<std::string>& tables,
                std::int64_t generation) {
  if (Status s = CheckTableNames(tables); !s.ok()) return s;
  for (const std::string& table : tables)
    if (Status s = tx.Execute("DROP TABLE IF EXISTS " + PhysicalName(table, generation)); !s.ok())
      return s;
  return Status::Ok();
}

Status ApplyOne(const Projection& projection, ProjectionTransaction& tx,
                const RecordedEvent& event) {
  try {
    return projection.apply(tx, event);
  } catch (const std::exception& e) {
    return Status::Internal("projection '" + projection.name + "' threw: " + e.what());
  } catch (...) {
    return Status::Internal("projection '" + projection.name + "' threw");
  }
}

}  // namespace indelible::projections
