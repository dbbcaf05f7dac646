// The memory backend: a volatile Store with exactly the semantics of the
// embedded engine, for tests and for programs that need no durability.
#pragma once

#include <memory>

#include "indelible/store.h"

namespace indelible::storage {

Result<std::unique_ptr<Store>> OpenMemoryStore(const StoreOptions& options);

}  // namespace indelible::storage
