// What the power-cut suite checks after each cut, on the store reopened
// (power_cut_suite.cc): nothing acknowledged lost, no commit by half, the
// store's own `check` clean, a retry of an acknowledged commit answered as
// the original (the id index), the consumer group's checkpoint never past
// an event it did not deliver, every acknowledged subject key readable and
// every acknowledged shred gone. Each failure is a line in `findings`.
#pragma once

#include <indelible/store.h>

#include <cstdint>
#include <string>
#include <vector>

#include "power_loss/cut_ledger.h"

namespace indelible::power_loss {

struct CheckCounts {
  std::uint64_t store_checks = 0;       // `check` runs, each clean or a finding
  std::uint64_t acked_events = 0;       // acknowledged events looked up
  std::uint64_t commits = 0;            // commits found whole (acknowledged or not)
  std::uint64_t retries = 0;            // acknowledged commits sent again
  std::uint64_t group_resumes = 0;      // consumer group checkpoints checked
  std::uint64_t delivered_checked = 0;  // deliveries found where they were delivered
  std::uint64_t keys_checked = 0;       // subject keys (and shreds) checked
  std::uint64_t projections = 0;        // read models compared with a rebuild
  std::uint64_t upgrades = 0;           // format upgrades cut and finished
};

using Findings = std::vector<std::string>;

// Every check but the consumer group's drain, in that order.
void CheckAfterCut(Store& store, CutLedger& ledger, const std::vector<std::string>& master_keys,
                   CheckCounts& counts, Findings& findings);

// The end of a folder's life: the group delivers what is left, and then
// has delivered every event its filter matches.
void DrainAndCheckGroup(Store& store, CutLedger& ledger, CheckCounts& counts, Findings& findings);

}  // namespace indelible::power_loss
