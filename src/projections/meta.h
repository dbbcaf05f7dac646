// The projections' own tables in a read store: one row per projection in
// indelible_projections (its live copy, checkpoint, rebuild under way,
// block), and indelible_parked. Every runner transaction starts by locking
// its row (LockRow), which orders it against a rebuild's switch-over and
// fences out a second runner.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/read_store.h"

namespace indelible::projections {

struct MetaRow {
  std::string name;
  int version = 0;
  std::int64_t generation = 0;
  std::uint64_t position = 0;
  std::vector<std::string> tables;  // of the live copy
  std::optional<std::int64_t> building_generation;
  std::uint64_t building_position = 0;
  std::vector<std::string> building_tables;
  std::optional<std::uint64_t> blocked_at;
  std::string blocked_reason;
  std::string operator_action;  // "retry" or "skip", set while blocked
  std::int64_t parked = 0;      // ReadRow and ReadRows only
};

// Creates the tables if missing (own transaction).
Status EnsureMetaTables(ReadStore& db);
// The row, locked until the transaction ends; nullopt if there is none.
// Invalid if its table names are not IsTableName: they would go into DDL.
Result<std::optional<MetaRow>> LockRow(SqlTransaction& tx, SqlDialect dialect,
                                       std::string_view name);
Result<std::optional<MetaRow>> ReadRow(ReadStore& db, std::string_view name);
Result<std::vector<MetaRow>> ReadRows(ReadStore& db);
// Sets operator_action on a blocked projection; invalid if it is not blocked.
Status SetOperatorAction(ReadStore& db, std::string_view name, std::string_view action);

// A declared table or index: 1 to 48 ASCII letters, digits and single '_',
// starting with a letter, so that {name} and name__gN stay unambiguous and
// the name can go into SQL as it is. Names read back from the read store
// (LockRow) are checked again: the row may have been changed by anyone who
// can write to the database.
bool IsTableName(std::string_view name);

// name__gN: a declared table or index in copy N.
std::string PhysicalName(std::string_view name, std::int64_t generation);
std::string JoinNames(const std::vector<std::string>& names);

}  // namespace indelible::projections
