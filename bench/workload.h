// WORKLOAD.md "ledger-append v1": its parameters, its three phases, and the
// checks of the store after the append phase. Run on the Store API: the
// embedded engine in process (transport=in-process), so it measures the
// store without a network, or a DynamoDB store (--store, transport=dynamodb).
#pragma once

#include <atomic>
#include <cstdint>

#include "bench/common.h"

namespace indelible::bench {

inline constexpr std::size_t kWorkloadPayloadBytes = 200;

struct WorkloadParams {
  std::uint64_t events = 20000;  // EVENTS, a multiple of streams
  std::uint64_t streams = 200;   // STREAMS
  int clients = 1;               // CLIENTS, divides streams
  std::size_t page = 1000;       // PAGE
  // PER_APPEND: events per append call. WORKLOAD.md says 1; more is an
  // extension of ours (the DynamoDB bill of batched appends), and the
  // output says so. Divides PER_STREAM.
  std::uint64_t per_append = 1;
  std::uint64_t per_stream() const { return events / streams; }
};

// From the environment (EVENTS, STREAMS, CLIENTS, PAGE, PER_APPEND), then the flags
// (--events, --streams, --clients, --page) on top; invalid if they break
// the workload's rules.
Result<WorkloadParams> ReadWorkloadParams(const Options& options);

// After the append phase, untimed. CheckStreamHeads: every stream's head
// is at version PER_STREAM - 1, and one append with a stale version is
// rejected as a conflict naming that version, the head unchanged.
// CheckAllEvents: LastPosition() is EVENTS (so the rejected append wrote
// nothing) and $all holds every event once, each stream's versions in
// order, every payload of 200 bytes; on a store whose positions come after
// the commit (traits().positions_at_commit false), call it once the index
// has caught up. CheckAppended: both, for stores with positions at commit.
Status CheckStreamHeads(Store& store, const WorkloadParams& params);
Status CheckAllEvents(Store& store, const WorkloadParams& params);
Status CheckAppended(Store& store, const WorkloadParams& params);

// Phase 2 and 3; each returns an error if a check fails. `done`, if given,
// counts the events read (for a progress line).
Status ReadStreamsPaged(Store& store, const WorkloadParams& params, int client,
                        std::atomic<std::uint64_t>* done = nullptr);
Status ReadAllPaged(Store& store, const WorkloadParams& params,
                    std::atomic<std::uint64_t>* done = nullptr);

}  // namespace indelible::bench
