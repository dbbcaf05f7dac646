// What the embedded engine can tell about its syncs, for the figures that
// infer events per sync. The only file of the benchmarks that looks inside
// the engine; everything else uses the public API.
#pragma once

#include <cstdint>
#include <optional>

#include "indelible/store.h"

namespace indelible::bench {

struct WalStats {
  std::uint64_t writes = 0;  // RocksDB write batches (our commit groups)
  std::uint64_t syncs = 0;   // WAL syncs
  // RocksDB prints counts of 10,000 and more in thousands, rounded down.
  bool approximate = false;
};

// Cumulative since the store was opened; nullopt when the store is not the
// embedded engine or the engine does not report it.
std::optional<WalStats> ReadWalStats(Store& store);

}  // namespace indelible::bench
