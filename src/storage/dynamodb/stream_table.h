// StreamTable: the per-stream half of the DynamoDB backend, on one table
// laid out as docs/DYNAMODB.md ("Table layout") says: appends with their
// expectations and idempotent retries, reads of one stream, its head, and
// moving events out of the tip item. The full Store (positions, $all, state
// records) is built on it.
//
// Operation: an append is one conditional UpdateItem on the stream's tip
// (condition: the tip is as the writer believes; ALL_OLD on failure), so
// the common case is one request, and a conflict reports the actual version
// from the failed request itself. When the tip holds more than
// `spill_bytes` or `spill_appends`, the writer moves its events to items
// of their own (MoveOutOfTip): event items first (idempotent puts), then a
// conditional tip update that drops them. Readers merge both by version.
//
// Concurrency: thread-safe (the Client is; the object holds no mutable
// state). Any number of processes may share a table.
//
// Lifetime: the Client must outlive the StreamTable.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/client.h"
#include "indelible/store.h"
#include "storage/dynamodb/tables.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {

struct StreamTableOptions {
  std::string table;  // the full name: the URL's prefix + "events"
  // Event bytes (TipBytes) held in the tip past which they move out. With
  // appends of at most max_append_bytes, the tip stays under 64 + 256 KiB,
  // well inside DynamoDB's 400 KB item.
  std::int64_t spill_bytes = 64 * 1024;
  // Appends held in the tip past which they move out: each is an attribute
  // the spill's REMOVE names, and expressions are limited to 4 KB.
  std::int64_t spill_appends = 64;
  // The largest append the tip takes (TipBytes of its events). Larger is
  // too_large for now (docs/DYNAMODB.md: large events, next step).
  std::int64_t max_append_bytes = 256 * 1024;
  // Appends moved out of the tip whose ids the tip keeps for retries.
  std::size_t retry_window_appends = 32;
  // ... and at most this many of their ids together, so that the window
  // stays a small part of the tip item.
  std::size_t retry_window_ids = 512;
  // The largest state record (AppendRequest::state) the tip holds beside up
  // to spill_bytes + max_append_bytes of events. A larger one goes to
  // snapshot items (tip.h) written in one TransactWriteItems with the tip:
  // an append then costs that transaction, a read of the tip's size, and a
  // write marking the snapshot it superseded.
  std::int64_t max_state_bytes = 48 * 1024;
  // How long a superseded snapshot item stays before its TTL (expires_at)
  // lets DynamoDB delete it: a reader that has just read the tip's pointer
  // to it still finds it.
  std::chrono::seconds snapshot_grace{86400};
  // The store's limits (Store::Commit checks requests against them before
  // they come here; the table needs max_append_events for its version rule).
  Limits limits;
};

class StreamTable {
 public:
  StreamTable(aws::Client& client, StreamTableOptions options);

  // Creates the table (on-demand billing, change stream on: the $all
  // indexer reads it) and waits until it is active, or checks that an
  // existing one has the keys this layout needs (invalid otherwise).
  Status CreateOrCheck();
  TableSpec Spec() const;

  // Appends to one stream, or to several atomically (TransactWriteItems;
  // an endpoint without it, dynalite, answers invalid naming it). Rules of
  // include/indelible/store.h and storage/decide.h: expectations, deletes
  // (tombstones), idempotent retries (recognised while the ids are in the
  // tip: see the retry window in docs/DYNAMODB.md). Positions in the
  // results are 0: $all is assigned later, by the indexer.
  // State records ride in the tip, written by the append's own request.
  // Not yet: appends larger than max_append_bytes, state records larger
  // than max_state_bytes (too_large).
  // options: allow_reserved (Delete's tombstone, internal streams) and
  // keep_timestamps (import) as for Store::Commit. REQUIRES: the request has
  // passed Store::Commit's checks (ValidateCommit: every event has an id).
  Result<CommitResult> Commit(std::vector<AppendRequest> appends,
                              const CommitOptions& options = {});
  Result<AppendResult> Append(std::string stream, Expected expected, std::vector<EventData> events);

  // The stream's events from version `from`, at most `limit`, in version
  // order; not_found if the stream has no tip. One Query in the common case
  // (more pages past 1 MB; again if a concurrent move left a gap). *head,
  // if given, is the stream's head when the Query reached the tip (it does
  // unless `limit` events came before it), nullopt otherwise.
  Result<std::vector<RecordedEvent>> ReadStream(std::string_view stream, StreamVersion from,
                                                std::size_t limit,
                                                std::optional<StreamHead>* head = nullptr);

  // The stream's head (position 0); not_found if it has no tip. One GetItem.
  Result<StreamHead> Head(std::string_view stream);

  // The stream's tip, whole: head, the events it holds, the state record.
  // not_found if the stream has none. One GetItem.
  Result<Tip> ReadTip(std::string_view stream);

  // The stream's state record (position 0); nullopt if none, or no stream.
  // One GetItem (and one Query when the record is in snapshot items).
  Result<std::optional<StateRecord>> ReadState(std::string_view stream);

  // Fills tip.state from the snapshot items tip.snapshot names (one Query);
  // nothing to do when the tip holds the record. Items that are gone (an
  // expired snapshot a slow reader's tip still named) leave it empty: the
  // entity then replays the stream.
  Status LoadSnapshot(std::string_view stream, Tip& tip);

  // Every stream's head (position 0), from one Scan of the table that keeps
  // the tips (paged: a request per 1 MB read, since a Scan reads the event
  // items too). Consistent reads. For the $all rebuild.
  Result<std::map<std::string, StreamHead>> ScanHeads();

  // The streams whose names start with `prefix` and sort (bytewise) after
  // `after`, in name order, at most `limit` (Store::ListStreamRange): one
  // Query of the listing index (kListIndex; more only past 1 MB of keys)
  // and one consistent BatchGetItem of the tips per 100 streams, for head,
  // deleted and `written` (position 0: $all has the positions). A tip
  // written before `written` was costs one Query more (its last event).
  // The index is eventually consistent: a stream made a moment ago may be
  // missing. invalid for a prefix or `after` that is not UTF-8 (DynamoDB
  // keys are). REQUIRES: the index is ACTIVE (IndexStatus).
  Result<std::vector<StreamInfo>> ListStreams(std::string_view prefix, std::string_view after,
                                              std::size_t limit);

  // Gives every tip without the listing index's partition attribute (a tip
  // written before the index was) that attribute: one Scan of the table and
  // one UpdateItem per such tip. Idempotent, safe beside writers. Returns
  // how many tips it changed. Spec()'s before_adding_index runs it.
  Result<std::size_t> AddListKeys() const;

  const std::string& table() const { return options_.table; }

  // Moves up to 100 of the oldest appends held in the tip to event items of
  // their own: WriteEventItems, then one conditional tip update. Returns how
  // many events moved (0 if another writer moved them first). Safe to run
  // concurrently with appends, reads and other moves.
  Result<std::size_t> MoveOutOfTip(std::string_view stream);

  // The first half of MoveOutOfTip alone: writes the tip's events as items
  // (idempotent puts) and leaves the tip as it is, as a writer that dies
  // half-way does. Tests use it; readers never see an event twice.
  Result<std::size_t> WriteEventItems(std::string_view stream);

 private:
  struct Write;
  // After a commit: moves a tip's events out when it grew past the spill
  // thresholds, and marks the snapshot items each state write superseded.
  // `attributes`: the UpdateItem's UPDATED_NEW (null after a transaction,
  // which returns none: the tip is read instead). Failures are left for
  // the next writer (a move) or to storage (an unmarked item).
  void AfterCommit(std::vector<Write>& writes, const boost::json::value* attributes);
  // Gives parts [from_part, ref.parts) of a snapshot its expires_at.
  void MarkSuperseded(std::string_view stream, SnapshotRef ref, std::int64_t from_part);
  Status PutEventItems(const std::vector<const TipAppend*>& appends);
  Result<std::size_t> Move(std::string_view stream, bool update_tip);

  aws::Client& client_;
  StreamTableOptions options_;
};

}  // namespace indelible::dynamodb
