// The embedded engine: a durable Store in one folder, on RocksDB.
#pragma once

#include <memory>
#include <string>

#include "indelible/store.h"

namespace indelible::storage {

Result<std::unique_ptr<Store>> OpenEmbeddedStore(const std::string& path,
                                                 const StoreOptions& options);

}  // namespace indelible::storage
