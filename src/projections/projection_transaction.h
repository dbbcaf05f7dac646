// The ProjectionTransaction handed to setup and apply: a read-store
// transaction whose SQL has {name} replaced by the physical table or index
// of one copy (meta.h: name__gN).
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "indelible/projection.h"
#include "projections/text_map.h"

namespace indelible::projections {

// The names of one copy, and the statements already rewritten for it.
class CopyNames {
 public:
  CopyNames(const Projection& projection, std::int64_t generation);
  std::int64_t generation() const { return generation_; }
  // `sql` with each {declared} replaced; other braces (JSON) are left.
  const std::string& Expand(std::string_view sql);

 private:
  std::int64_t generation_;
  std::set<std::string, std::less<>> declared_;
  TextMap<std::string> expanded_;
};

// Checks a projection's name and declared names before anything is written.
Status ValidateProjection(const Projection& projection);

class CopyTransaction final : public ProjectionTransaction {
 public:
  CopyTransaction(SqlTransaction& tx, SqlDialect dialect, CopyNames& names, bool rebuilding)
      : tx_(tx), dialect_(dialect), names_(names), rebuilding_(rebuilding) {}
  Status Execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    return tx_.Execute(names_.Expand(sql), params);
  }
  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    const std::vector<SqlValue>& params) override {
    return tx_.Query(names_.Expand(sql), params);
  }
  SqlDialect dialect() const override { return dialect_; }
  bool rebuilding() const override { return rebuilding_; }

 private:
  SqlTransaction& tx_;
  SqlDialect dialect_;
  CopyNames& names_;
  bool rebuilding_;
};

// Runs the projection's setup for a fresh copy, then (re)creates its views
// when `make_live`: the views of `old_tables` are dropped first.
Status SetupCopy(SqlTransaction& tx, SqlDialect dialect, const Projection& projection,
                 CopyNames& names, bool rebuilding);
Status PointViews(SqlTransaction& tx, const std::vector<std::string>& old_tables,
                  const std::vector<std::string>& new_tables, std::int64_t generation);
Status DropCopy(SqlTransaction& tx, const std::vector<std::string>& tables,
                std::int64_t generation);
// Calls apply, turning an exception into an error.
Status ApplyOne(const Projection& projection, ProjectionTransaction& tx,
                const RecordedEvent& event);

}  // namespace indelible::projections
