// Rebuilding `$all` on DynamoDB from the events table itself
// (docs/DYNAMODB.md, "Rebuilding $all"), for what the change stream cannot
// repair: a stream that was off, an indexer stopped longer than the stream
// keeps records (24 h), a replaced stream, or a damaged index. Online:
// writers keep writing, and the servers' indexers hand the index over and
// take it back.
//
// Operation:
//   1. Lease: the state is marked `rebuilding`. A live indexer holding the
//      lease notices (it reads the checkpoint's rev every second,
//      indexer.h), writes no more and hands the lease back; one whose lease
//      ran out gets a few seconds to do so. Then the rebuild takes the
//      lease. While the mark is there no indexer indexes, even if this
//      rebuild dies.
//   2. The change stream's end, per shard, before the scan: every append
//      whose change record comes before it is in the scan.
//   3. Heads: one Scan of the table gives every stream's head.
//   4. Keep what is right: the stored index is read from position 1; it is
//      kept up to the first position that is not the next version of its
//      stream (a gap, a duplicate, an event the table lacks). Positions a
//      reader or a consumer checkpoint already holds stay the same. There
//      the chain is cut: every item from the chunk holding that position on
//      (to a block past the old end) is deleted, and the kept events of that
//      chunk are written again.
//   5. Add what is missing: each stream's versions after its last indexed
//      one up to its scanned head, read with one Query per page, merged
//      across streams by commit timestamp (version order within a stream),
//      at the next positions, as chunks of inline events chained like the
//      indexer's (AllIndex).
//   6. Catch up: still holding the lease, the indexer's own passes read
//      the change stream from step 2's place and index what was appended
//      since, skipping records of appends at or below the scanned heads
//      (step 5 indexed those), until they reach the stream's end at least
//      2 s after the scan (records reach the stream in well under a second).
//      A second scan then checks that $all holds every head it finds (a head
//      it lacks reached the table without a change record: the stream was
//      off), and the state is written with the catch-up's place, the lease
//      handed back and `rebuilding` cleared: the servers' indexers go on
//      from there, and nothing is indexed twice.
//
// Concurrency: one rebuild at a time per index (the lease); writers and
// indexers of this release may run. An indexer of an earlier release does
// not hand over: the rebuild gives up after handover_timeout, saying so.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "aws/client.h"
#include "indelible/options.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/stream_table.h"

namespace indelible::dynamodb {

struct RebuildOptions {
  // The lease's holder, as the state names it; empty: "rebuild-" and a
  // random number, unique to this run.
  std::string owner;
  // How long the lease lasts after each write; renewed as the rebuild goes.
  std::chrono::milliseconds lease{60000};
  // How long a live indexer may take to hand the index over (step 1).
  std::chrono::milliseconds handover_timeout{60000};
  ProgressFn progress;  // (events added so far, events to add)
  // Called after the heads were scanned (step 3): tests append here to
  // play a writer whose appends only the catch-up indexes.
  std::function<void()> after_scan;
};

struct RebuildReport {
  std::uint64_t streams = 0;    // streams in the table
  std::uint64_t kept = 0;       // positions of the old index kept as they were
  std::uint64_t added = 0;      // events given positions by this rebuild
  std::uint64_t removed = 0;    // index items past the new end, deleted
  std::uint64_t caught_up = 0;  // events appended during the rebuild, indexed by its catch-up
  Position last;                // the last position of $all now
};

// The rebuild above, on these tables. `stream_arn`: the events table's
// change stream (CreateOrCheckTable's answer); the catch-up's place in it
// becomes the indexer's. Errors: unavailable (an indexer did not hand the
// index over; another rebuild holds it; another indexer wrote; a head
// reached the table without a change record), the clients' errors,
// internal (the events table itself is damaged, a gap in the stream).
Result<RebuildReport> RebuildIndex(StreamTable& events, AllIndex& index, aws::Client& streams,
                                   const std::string& stream_arn, const RebuildOptions& options);

}  // namespace indelible::dynamodb
