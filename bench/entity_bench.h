// The `entity` scenario's entity: a running tally of the benchmarks' ledger
// events (events.h), with Boost.JSON codecs as an application would write
// them, so that load and append figures include decoding each event and
// encoding the state. Its two halves: load latency per snapshot policy
// (entity_load_bench.cc) and appends/s against plain appends
// (entity_append_bench.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "bench/common.h"
#include "indelible/entity.h"

namespace indelible::bench {

// The state: a few integers, as a balance or counter entity has.
struct Tally {
  std::int64_t balance = 0;
  std::int64_t deposits = 0;
  std::int64_t last_seq = -1;
};

// The fields of a `Deposited` ledger payload the rule reads (the memo and
// the rest are parsed and skipped, as an application's codec would).
struct Deposit {
  std::int64_t seq = 0;
  std::int64_t amount = 0;
};

inline constexpr const char* kDeposited = "Deposited";

// One rule: Deposited adds its amount. Publishes nothing (no outbox).
Rules<Tally> TallyRules();

// Load latency of entities of 10, 1,000 and 100,000 events under each
// snapshot policy.
Status RunEntityLoads(Context& context);
// Entity appends (EveryWrite) against plain appends of the same events.
Status RunEntityAppends(Context& context);

}  // namespace indelible::bench

template <>
struct indelible::Codec<indelible::bench::Tally> {
  static std::string Encode(const indelible::bench::Tally& value);
  static indelible::Result<indelible::bench::Tally> Decode(std::string_view json);
};
// Decode only: the bench makes its events with events.h, not MakeEvent.
template <>
struct indelible::Codec<indelible::bench::Deposit> {
  static indelible::Result<indelible::bench::Deposit> Decode(std::string_view json);
};
