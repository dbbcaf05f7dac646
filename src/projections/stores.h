// The read-store backends behind ReadStore::Open (read_store.cc).
#pragma once

#include <memory>
#include <string_view>

#include "indelible/read_store.h"

namespace indelible::projections {

// `path` without the "sqlite:" scheme.
Result<std::unique_ptr<ReadStore>> OpenSqliteStore(std::string_view path);
// `url`: a libpq connection URL, "postgresql://..." or "postgres://...".
Result<std::unique_ptr<ReadStore>> OpenPostgresStore(std::string_view url);

}  // namespace indelible::projections
