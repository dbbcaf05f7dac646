// The PostgreSQL read store in a build without it (INDELIBLE_WITH_POSTGRES=OFF,
// README "Build options"): built instead of postgres_store.cc and
// postgres_values.cc, so ReadStore::Open("postgresql://...") says what is
// missing.
#include "indelible/config.h"
#include "projections/stores.h"

namespace indelible::projections {

Result<std::unique_ptr<ReadStore>> OpenPostgresStore(std::string_view) {
  return Status::Invalid("read store", INDELIBLE_NO_POSTGRES);
}

}  // namespace indelible::projections
