// StreamTable: the per-stream half of the DynamoDB backend, on one table
// laid out as docs/DYNAMODB.md ("Append items") says: appends with their
// expectations and idempotent retries, reads of one stream, its head, state
// records, and the earlier layout's tips, read as they are and converted to
// append items when a stream is next written. The full Store (positions,
// $all) is built on it.
//
// Operation: an append is one conditional PutItem of an item of its own at
// the stream's next version (condition: no item there; ALL_OLD on
// failure), so the common case is one request, billed on that item alone.
// The writer learns the head from its HeadCache (what this process last
// wrote or read), or, when it has none, from one Query of the stream's
// newest items, which also yields the retry window.
//
// Concurrency: thread-safe (the Client and the HeadCache are). Any number
// of processes may share a table.
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
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/head_cache.h"
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
  // The largest append (TipBytes of its events): an append item, or a tip
  // of the earlier layout, takes no more. Larger is too_large for now
  // (docs/DYNAMODB.md: large events, next step).
  std::int64_t max_append_bytes = 256 * 1024;
  // The retry window: the newest appends of a stream whose first ids a
  // writer checks before it writes (read with the head when not cached), so
  // that a retry sent with a fresh expectation is recognised. Tips of the
  // earlier layout kept as many moved-out appends.
  std::size_t retry_window_appends = 32;
  // Streams whose heads a process remembers (HeadCache); 0: none (every
  // append reads the head first).
  std::size_t head_cache_streams = 10000;
  // The table may hold tips of the earlier layout (it was written by an
  // earlier release and not upgraded yet: the store reads a marker when it
  // opens). A writer then never bets that a stream it knows nothing of is
  // new: a stream whose first events are still in its tip has no item at
  // version 0 to refuse the bet.
  bool legacy_tips_possible = true;
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

  // The stream's head (position 0); not_found if it has no items. One
  // Query (its newest item, or its tip).
  Result<StreamHead> Head(std::string_view stream);

  // The stream as a writer sees it: one consistent Query of its newest
  // items (the retry window's worth), or its tip if it still has one.
  // Fills the cache. exists = false when the stream has nothing.
  Result<StreamView> Observe(std::string_view stream);

  // What an entity load needs (Store::ReadStateAndEvents): the head, the
  // newest state record of the current life, and the events after it that
  // the read met (versions from `events_from` to the head, unless
  // `complete` is false: then the caller reads the rest). Items are read
  // newest first, a few at a time, until a record or the life's start: one
  // Query when the record is recent. not_found when the stream has nothing.
  struct EntityLoad {
    StreamHead head;
    std::optional<StateRecord> state;
    std::vector<RecordedEvent> events;  // ascending
    std::int64_t events_from = 0;
    bool complete = false;
  };
  Result<EntityLoad> LoadEntity(std::string_view stream);

  // The stream's tip, whole: head, the events it holds, the state record.
  // not_found if the stream has none (it was made by append items, or was
  // converted). One GetItem.
  Result<Tip> ReadTip(std::string_view stream);

  // The events of appends by their items' keys (append_item.h): for the
  // $all index, which refers to them.
  Result<std::vector<std::vector<RecordedEvent>>> ReadAppends(const std::vector<AppendRef>& refs) {
    return ReadAppendItems(client_, options_.table, refs);
  }

  // The stream's floor (scavenge.h): versions below it may have been
  // removed by a scavenge; nullopt when none ever was. One GetItem.
  Result<std::optional<std::int64_t>> Floor(std::string_view stream);

  // Converts a stream of the earlier layout to append items, online: moves
  // every event out of its tip, hands the tip's state record, life and
  // listing key to items, and deletes the tip on condition that no writer
  // moved its head meanwhile (otherwise it starts again). Returns whether
  // there was a tip. Safe beside writers of this release and readers.
  Result<bool> ConvertStream(std::string_view stream);

  // The streams that still have a tip (one Scan filtered to tips).
  Result<std::vector<std::string>> ListTips();

  // The stream's state record (position 0); nullopt if none, or no stream.
  // LoadEntity's reads (and one Query when the record is in snapshot items).
  Result<std::optional<StateRecord>> ReadState(std::string_view stream);

  // Fills tip.state from the snapshot items tip.snapshot names (one Query);
  // nothing to do when the tip holds the record. Items that are gone (an
  // expired snapshot a slow reader's tip still named) leave it empty: the
  // entity then replays the stream.
  Status LoadSnapshot(std::string_view stream, Tip& tip);
  // The same for a reference found in an append item.
  Result<std::optional<StateRecord>> LoadSnapshot(std::string_view stream, SnapshotRef ref);

  // Every stream's head (position 0), from one Scan of the table (paged: a
  // request per 1 MB read): the newest append item's end, or the tip's
  // head. Consistent reads. For the $all rebuild.
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
  // Set once by the store when it opens, before any commit.
  void set_legacy_tips_possible(bool possible) { options_.legacy_tips_possible = possible; }

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
  // Reads the newest `limit` items of the stream (descending, consistent),
  // the tip first when there is one.
  Result<std::vector<boost::json::object>> NewestItems(std::string_view stream, std::size_t limit);
  // The view of a stream from its newest items.
  Result<StreamView> ViewOf(std::string_view stream, const std::vector<boost::json::object>& items);
  // Keeps the newest appends of `window` within the retry window's bounds.
  void TrimWindow(std::vector<WindowAppend>& window) const;
  // The item of the append that begins at `first`, if any (GetItem).
  Result<std::optional<AppendItem>> GetAppend(std::string_view stream, std::int64_t first);
  // Learns what is there after a write failed its condition, or before a
  // write with no view: reads the stream and converts a tip it finds.
  Status Refresh(Write& w);
  // After a write: the cache learns the new head and window, and the
  // snapshot a new record replaced gets its TTL.
  void Remember(Write& w);
  // What a commit's tags add to its transaction (tag_index.h): the counter
  // of each tag its events carry, and the checks of its condition.
  struct TagWrites;
  Result<TagWrites> PlanTags(const std::vector<AppendRequest>& appends,
                             const CommitOptions& options);
  // The position a failed condition names: the first event after `after`
  // the tag index lists for a condition tag (docs/DYNAMODB.md).
  Position ConditionPosition(const TagWrites& tags, std::int64_t after);
  // Gives parts [from_part, ref.parts) of a snapshot its expires_at.
  void MarkSuperseded(std::string_view stream, SnapshotRef ref, std::int64_t from_part);
  Status PutEventItems(const std::vector<const TipAppend*>& appends);
  Result<std::size_t> Move(std::string_view stream, bool update_tip);

  aws::Client& client_;
  StreamTableOptions options_;
  HeadCache cache_;
};

}  // namespace indelible::dynamodb
