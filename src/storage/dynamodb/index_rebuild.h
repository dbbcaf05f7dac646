// Rebuilding `$all` on DynamoDB from the events table itself
// (docs/DYNAMODB.md, "Rebuilding $all"), for what the change stream cannot
// repair: a stream that was off, an indexer stopped longer than the stream
// keeps records (24 h), a replaced stream, or a damaged index.
//
// Operation:
//   1. Lease: the rebuild takes the indexer's lease (refused while a live
//      indexer holds it) and marks the state `rebuilding`, so that no
//      indexer works until a rebuild completes, even if this one dies.
//   2. Heads: one Scan of the tips gives every stream's head.
//   3. Keep what is right: the stored index is read from position 1; it is
//      kept up to the first position that is not the next version of its
//      stream (a gap, a duplicate, an event the table lacks). Positions a
//      reader or a consumer checkpoint already holds stay the same. There
//      the chain is cut: every item from the chunk holding that position on
//      (to a block past the old end) is deleted, and the kept events of that
//      chunk are written again.
//   4. Add what is missing: each stream's versions after its last indexed
//      one, read with one Query per page, merged across streams by commit
//      timestamp (version order within a stream), at the next positions, as
//      chunks of inline events chained like the indexer's (AllIndex).
//   5. (Part of 3: nothing past the new end is left for a chunk to meet.)
//   6. The change stream's end is read, the heads are scanned again, and
//      the state is written with the stream's end as the indexer's place,
//      the lease handed back, `rebuilding` cleared. If a head moved since
//      step 2, a writer ran during the rebuild: the state stays
//      `rebuilding` and the rebuild fails, saying to stop the writers and
//      run it again (which keeps what this run added).
//
// Offline: writers and other indexers must be stopped, since an append
// made during the rebuild could be indexed twice (by the scan and by the
// change stream). Step 6 detects that case instead of finishing.
//
// Concurrency: one rebuild at a time per index (the lease).
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
  ProgressFn progress;  // (events added so far, events to add)
  // Called after the heads were scanned (step 2): tests append here to
  // play a writer that was not stopped.
  std::function<void()> after_scan;
};

struct RebuildReport {
  std::uint64_t streams = 0;  // streams in the table
  std::uint64_t kept = 0;     // positions of the old index kept as they were
  std::uint64_t added = 0;    // events given positions by this rebuild
  std::uint64_t removed = 0;  // index items past the new end, deleted
  Position last;              // the last position of $all now
};

// The rebuild above, on these tables. `stream_arn`: the events table's
// change stream (CreateOrCheckTable's answer); the place after its last
// record becomes the indexer's. Errors: unavailable (a live indexer holds
// the lease; a writer ran during the rebuild; another indexer wrote), the
// clients' errors, internal (the events table itself is damaged).
Result<RebuildReport> RebuildIndex(StreamTable& events, AllIndex& index, aws::Client& streams,
                                   const std::string& stream_arn, const RebuildOptions& options);

}  // namespace indelible::dynamodb
