// WORKLOAD.md "ledger-append v1": its parameters, its three phases, and the
// checks of the store after the append phase. Run in-process on the Store
// API (transport=in-process), so it measures the store without a network.
#pragma once

#include <cstdint>

#include "bench/common.h"

namespace indelible::bench {

inline constexpr std::size_t kWorkloadPayloadBytes = 200;

struct WorkloadParams {
  std::uint64_t events = 20000;  // EVENTS, a multiple of streams
  std::uint64_t streams = 200;   // STREAMS
  int clients = 1;               // CLIENTS, divides streams
  std::size_t page = 1000;       // PAGE
  std::uint64_t per_stream() const { return events / streams; }
};

// From the environment (EVENTS, STREAMS, CLIENTS, PAGE), then the flags
// (--events, --streams, --clients, --page) on top; invalid if they break
// the workload's rules.
Result<WorkloadParams> ReadWorkloadParams(const Options& options);

// After the append phase: the event count, every stream's versions, every
// payload's size, and one append with a stale version rejected (writing
// nothing). Untimed.
Status CheckAppended(Store& store, const WorkloadParams& params);

// Phase 2 and 3; each returns an error if a check fails.
Status ReadStreamsPaged(Store& store, const WorkloadParams& params, int client);
Status ReadAllPaged(Store& store, const WorkloadParams& params);

}  // namespace indelible::bench
