// The scenarios of `indelible bench`, one per file. Each starts from an empty
// store in a fresh subfolder of --data (workload and index-lag: or under a
// fresh table prefix of --store), prints its figures through the
// context's report, and returns what went wrong, if anything.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/common.h"

namespace indelible::bench {

// The disk's own fdatasync rate in the data folder (fsync_bench.cc).
Status RunFsync(Context& context);
// One writer, one event per append, exact expectation (append_bench.cc).
Status RunAppend(Context& context);
// Many writers on separate streams, one event per append (concurrent_bench.cc).
Status RunConcurrent(Context& context);
// One writer, many events per append (batch_bench.cc).
Status RunBatch(Context& context);
// Read one stream of 100,000 events (read_bench.cc).
Status RunRead(Context& context);
// Read $all of 1,000,000 events (read_all_bench.cc).
Status RunReadAll(Context& context);
// Append 10,000,000 events watching memory, then time a reopen (open_bench.cc).
Status RunOpen(Context& context);
// Subscription catch-up throughput and live latency (subscribe_bench.cc).
Status RunSubscribe(Context& context);
// Consumer group delivery throughput and live latency (group_bench.cc).
Status RunGroup(Context& context);
// Entity load latency per snapshot policy; entity vs plain appends
// (entity_bench.cc).
Status RunEntity(Context& context);
// Event schemas: appends validated and reads upcast against a plain store,
// same run (schemas_bench.cc).
Status RunSchemas(Context& context);
// Consistency beyond one stream (issue 36): tagged and conditional appends
// against plain ones, same run; query reads against the store's size, for
// stores of each of `sizes` events (dcb_bench.cc).
Status RunDcb(Context& context, const std::vector<std::uint64_t>& sizes);
// retention (issue 37): $all reads with retention set, scavenge throughput
// and what a scavenge costs concurrent appends (retention_bench.cc).
Status RunRetention(Context& context);
// Crypto-shredding: appends and $all reads of events sealed with their
// subject's key against the same events unsealed, same run, the variants
// alternating in `rounds` rounds (encryption_bench.cc).
Status RunEncryption(Context& context, int rounds);
// NatsRelay to the NATS server of --nats (relay_bench.cc).
Status RunRelay(Context& context);
// WORKLOAD.md "ledger-append v1", on the embedded engine or --store
// (workload_bench.cc).
Status RunWorkload(Context& context);
// The lag from commit to $all of a store that builds $all after the commit
// (--store, DynamoDB), under paced open-loop appends (index_lag_bench.cc).
Status RunIndexLag(Context& context);
Status RunIndexCatchup(Context& context);

}  // namespace indelible::bench
