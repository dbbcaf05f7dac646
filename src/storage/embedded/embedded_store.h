// The embedded engine: a durable Store in one folder, on RocksDB.
#pragma once

#include <memory>
#include <string>

#include "indelible/store.h"

namespace rocksdb {
class Env;
}

namespace indelible::storage {

Result<std::unique_ptr<Store>> OpenEmbeddedStore(const std::string& path,
                                                 const StoreOptions& options);

// The same on a RocksDB Env of the caller's (it must outlive the store): the
// tests' seam for holding or failing the log's syncs.
Result<std::unique_ptr<Store>> OpenEmbeddedStoreOnEnv(const std::string& path,
                                                      const StoreOptions& options,
                                                      rocksdb::Env* env);

}  // namespace indelible::storage
