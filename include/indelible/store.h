// Store: append events to streams and read them back, per stream or in one
// global order ($all).
//
// Concurrency: a Store is safe for concurrent use by many threads without
// external synchronization. An EventCursor belongs to one thread.
//
// Opening: Store::Open("file:./data") for the embedded engine (the default,
// one folder on disk), Store::Open("memory:") for a volatile store with the
// same semantics (tests). The Store must outlive every cursor it returned.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indelible/event.h"
#include "indelible/options.h"
#include "indelible/result.h"
#include "indelible/status.h"
#include "indelible/stream_metadata.h"
#include "indelible/types.h"

namespace indelible {

// A stream's state record: the latest state of the entity the stream holds
// (include/indelible/entity.h builds on it), written in the same commit as
// the events it covers, so the two never disagree after a crash. One per
// stream: a later write replaces it; a delete (tombstone) removes it.
struct StateUpdate {
  std::string data;          // opaque to the store; up to Limits::max_state_bytes
  std::uint32_t schema = 0;  // the writer's state schema version, given back on read
};

struct StateRecord {
  std::string data;
  std::uint32_t schema = 0;
  StreamVersion version;  // the stream's version it covers (its append's last event)
  Position position;      // that event's position
};

// One stream's part of a commit.
struct AppendRequest {
  std::string stream;
  Expected expected = Expected::any();
  // At least one, except in a state-only append: no events, a state, and
  // expected = exactly(N). It rewrites the state record to cover version N
  // (recalculating an entity, rebuilding a snapshot) and reports the head
  // unchanged in its AppendResult; it fails as a conflict if the stream
  // moved past N, like any append.
  std::vector<EventData> events;
  // Written with the events, atomically; covers the append's last event.
  // Not allowed with a tombstone.
  std::optional<StateUpdate> state{};
};

struct AppendResult {
  std::string stream;
  StreamVersion first_version;  // version of the first event appended
  StreamVersion last_version;   // version of the last event: the new ETag
  Position first_position;      // position of the first event appended
  Position position;            // position of the last event appended
  // An idempotent retry: an earlier append wrote these events, this one
  // wrote nothing and reports the earlier one's result.
  bool replayed = false;
};

struct CommitResult {
  std::vector<AppendResult> appends;  // in request order
  Position position;                  // position of the commit's last event
};

struct StreamHead {
  StreamVersion version;  // last version (the tombstone's, if deleted)
  Position position;      // position of the last event
  bool deleted = false;
  // First version of the stream's current life: 0, or after a delete and a
  // restart, the tombstone's version + 1. Reads start here unless they ask
  // for deleted events (ReadStreamOptions::include_deleted). For a stream
  // whose metadata hides events (docs/RETENTION.md), the first version
  // not hidden (version + 1 when every one is): where a read starts.
  StreamVersion first_version;
};

// A stream's newest event as a listing shows it (ListStreamsOptions::last):
// its envelope, without data or metadata.
struct LastEvent {
  EventId id;
  std::string type;
  StreamVersion version;
  Position position;  // 0 on a store whose $all lags (DynamoDB) until $all has it
  std::int64_t timestamp_ms = 0;
};

// One stream as a listing shows it (Store::ListStreams).
struct StreamInfo {
  std::string stream;
  // Last version (the tombstone's if deleted). version + 1 is the number
  // of versions the stream was written: its events, and its tombstones if
  // it was deleted, including those retention hides or a scavenge removed.
  StreamVersion version;
  Position position;  // of the last event (0 on a store whose $all lags: DynamoDB)
  bool deleted = false;
  std::int64_t last_write_ms = 0;  // the last event's timestamp, Unix ms
  // With ListStreamsOptions::last: the newest event a read of the stream
  // returns (ReadLastEvent): the last event, a deleted stream's tombstone
  // (type "$deleted"); nullopt when the stream's retention hides every
  // event, or when the listing was not asked for it.
  std::optional<LastEvent> last = std::nullopt;
};

struct ListStreamsOptions {
  std::string prefix;    // names that start with it; empty: every name
  std::string category;  // names of this category (DESIGN.md); empty: every category
  std::string after;     // names that sort after it: the previous page's `next`
  std::size_t limit = 100;
  // Fill each listed stream's `last` (StreamInfo::last). Off by default: it
  // costs one more read per listed stream (a backward read of one event,
  // ReadLastEvent), up to `limit` reads a page, where the listing alone is
  // one seek per name range.
  bool last = false;
};

struct StreamList {
  std::vector<StreamInfo> streams;  // in name order (bytewise)
  // Pass as `after` to read the next page; nullopt when nothing follows.
  std::optional<std::string> next;
};

// What Store::Scavenge removed (docs/RETENTION.md).
struct ScavengeReport {
  std::uint64_t streams = 0;  // streams that had events removed
  std::uint64_t events = 0;   // events removed
  // Bytes of the records removed: the events and their index entries.
  std::uint64_t bytes = 0;
  // The backend's files before the scavenge and after its compaction (the
  // embedded engine's folder; 0 where the backend has none).
  std::uint64_t disk_bytes_before = 0;
  std::uint64_t disk_bytes_after = 0;
};

// What Store::ShredSubject deleted (docs/RETENTION.md).
struct ShredReport {
  std::string subject;
  std::uint64_t keys = 0;  // the subject's keys deleted (0: it had none)
};

// How the removal under a scavenge ends (Store::RemoveEvents): no
// compaction (the bytes leave at a later one), a compaction when some
// removal is not compacted yet, or one in any case (deleted records, such
// as a shredded subject's keys, must leave the files too).
enum class Compaction { kNone, kIfRemoved, kAlways };

// One stream's part of a scavenge: its events below `before` go.
struct ScavengeCut {
  std::string stream;
  StreamVersion before;
};

// What a backend promises about positions.
struct StoreTraits {
  // True: a commit's positions are known when Commit returns (embedded,
  // memory). False: $all order is built after the commit (DynamoDB), so
  // AppendResult positions may be 0 and $all may lag the streams.
  bool positions_at_commit = true;
  // True: an event id already written to one stream is refused on another
  // (conflict). False: ids are checked per stream only, so a retry is still
  // recognised but an id reused on another stream is written again
  // (DynamoDB: no global id index, docs/DYNAMODB.md "Idempotent retries").
  bool ids_unique_across_streams = true;
  // True: reads are served from this process's memory or local disk
  // (memory, embedded), so a point read such as Head takes microseconds.
  // False: every read is a network round trip (DynamoDB, a remote store).
  // The server runs a local point read on the thread that parsed the
  // request; anything else waits in its read pool.
  bool local_reads = true;
};

// One operation of the storage service, as one of the store's callers used
// it (StoreStats::operations): DynamoDB's "PutItem", "Query",
// "TransactWriteItems", its change stream's "GetRecords", ...
struct StoreOperationStats {
  std::string caller;     // "store": the Store's own calls; "index": the $all indexer's
  std::string operation;  // the service's name for it
  std::uint64_t calls = 0;
  // Capacity units the service reported for these calls.
  double read_units = 0;
  double write_units = 0;
  // Writes the service refused because their condition failed (a conflict,
  // or a retry meeting its own item), and what they are billed by estimate
  // from the service's sizing rules: DynamoDB bills them but reports
  // nothing, so they are not in write_units.
  std::uint64_t condition_failures = 0;
  double estimated_write_units = 0;
};

// Counters since the store was opened, for monitoring (/metrics).
struct StoreStats {
  std::uint64_t commits = 0;  // commits that wrote events (retries write none)
  std::uint64_t events = 0;   // events written
  std::uint64_t syncs = 0;    // durable syncs that acknowledged commits (0 if volatile)
  // Backends behind a network service (DynamoDB); 0 for the others.
  std::uint64_t requests = 0;        // requests the Store's calls sent, retries included
  std::uint64_t index_requests = 0;  // requests of the $all indexer (DynamoDB)
  std::uint64_t retries = 0;         // attempts after the first
  std::uint64_t throttles = 0;       // attempts the service refused as throttled
  // Retries not made because the client's retry quota was spent (the AWS
  // SDKs' "standard" mode: a throttled or failing service is not hammered).
  std::uint64_t retry_quota_refusals = 0;
  // Calls that gave up at their deadline with retries left (DynamoDB: an
  // append's `append_deadline_ms`).
  std::uint64_t deadline_failures = 0;
  // Capacity units the service reported (DynamoDB: what it bills; failed
  // conditional writes are billed but report none): the Store's calls'
  // reads and writes, and the $all indexer's reads and writes together.
  double read_units = 0;
  double write_units = 0;
  double index_units = 0;
  // The same by caller and operation, refused conditional writes' estimates
  // beside (ordered by caller, then operation; empty for the other backends).
  std::vector<StoreOperationStats> operations{};
  // Backends whose $all indexer polls a change stream (DynamoDB: GetRecords
  // calls): what an idle server costs.
  std::uint64_t index_polls = 0;
  // Backends that build $all after the commit (DynamoDB): how old the newest
  // event this process indexed was when it was indexed, in ms (0: none yet).
  std::int64_t index_lag_ms = 0;
  // Where a backend's write CPU goes (the embedded engine; 0 elsewhere), in
  // thread CPU nanoseconds: deciding commits and writing their records (the
  // commit path), syncing them to disk (the I/O path), and writing the id
  // index behind the syncs (its own thread). Divided by `events`, they are
  // the CPU an event costs on each path.
  std::uint64_t commit_cpu_ns = 0;
  std::uint64_t sync_cpu_ns = 0;
  std::uint64_t index_cpu_ns = 0;
};

// How the $all index of a backend that builds it after the commit is doing
// (DynamoDB: its indexer; docs/DYNAMODB.md, "Watching the index"), for
// /health and /metrics. Store::IndexerHealth.
struct IndexShardHealth {
  std::string id;  // the change stream's shard
  // At most how old the oldest record of the shard this process's indexer
  // has not read is: the time since its reads last reached the shard's end
  // (or the creation time of the last record it read, when it is behind).
  // The stream keeps records 24 hours; older ones are lost.
  double unread_age_seconds = 0;
  bool near_retention = false;  // unread_age_seconds past 20 hours
};

struct IndexHealth {
  // "indexing": this process holds the lease and indexes; "following":
  // another process does; "rebuilding": a rebuild holds the index, was
  // asked for, or did not finish (reason says which); "failing": this
  // process's passes keep failing (last_error; it retries); "stopped":
  // nothing indexes and nothing will until an operator acts (reason).
  std::string state;
  std::string reason;
  Position last_position;  // the last position in $all, as this process saw it
  // Events this process knows were committed and $all does not hold yet:
  // change records its indexer read and has not written in a chunk, and
  // its own acknowledged appends not yet in a chunk it wrote or followed.
  std::uint64_t lag_events = 0;
  // How long the oldest of those has waited (0 when there are none): how
  // far behind the commits this process knows of $all is.
  double lag_seconds = 0;
  // The commit time (Unix ms) of the newest event this process indexed; 0:
  // none yet (or it only follows).
  std::int64_t newest_indexed_commit_ms = 0;
  std::string indexer_id;           // this process's indexer, as leases name it
  bool indexes = false;             // this process runs an indexer (not indexer=0)
  std::string lease_owner;          // the indexer (or rebuild) that holds the index
  std::int64_t lease_until_ms = 0;  // until when (Unix ms); the holder renews it as it writes
  bool lease_held = false;          // the holder is this process
  std::uint64_t errors = 0;         // failed passes since the store opened
  std::uint64_t consecutive_errors = 0;
  std::string last_error;  // of the last failed pass
  // The shards this process's indexer reads (none while it follows).
  std::vector<IndexShardHealth> shards;
  double oldest_unread_age_seconds = 0;  // the largest of the shards'

  bool running() const { return state == "indexing" || state == "following"; }
};

// A cursor over events, LevelDB style: errors stay on the cursor, so a read
// loop needs no try/catch:
//
//   for (; cursor->Valid(); cursor->Next()) Use(cursor->event());
//   if (!cursor->status().ok()) ...
class EventCursor {
 public:
  virtual ~EventCursor() = default;
  virtual bool Valid() const = 0;
  // REQUIRES: Valid()
  virtual void Next() = 0;
  // REQUIRES: Valid(). The view's strings stay valid until Next() or the
  // cursor's destruction.
  virtual const EventView& event() const = 0;
  // Not ok if reading stopped because of an error (not at the end).
  virtual Status status() const = 0;
};

// A cursor over one stream (Store::ReadStream).
class StreamCursor : public EventCursor {
 public:
  // Where to continue after the events passed so far (the current one,
  // while Valid(), is not passed yet): the next version to read in the
  // cursor's direction; nullopt once a backward read has passed version 0.
  virtual std::optional<StreamVersion> next_version() const = 0;
};

// A cursor over $all (Store::ReadAll).
class AllCursor : public EventCursor {
 public:
  // Where to continue after the events passed so far (the current one,
  // while Valid(), is not passed yet): the next position to read, past
  // the events the filter skipped too.
  virtual Position next_position() const = 0;
};

namespace internal {
// Private to the library (src/store/store_access.h): lets the HTTP server
// hand over a commit whose JSON it validated while parsing the request.
struct StoreAccess;
}  // namespace internal

// One commit of Store::CommitEach and Store::CommitAsync.
struct CommitRequest {
  std::vector<AppendRequest> appends;
  CommitOptions options;
};

// What Store::CommitAsync calls, once, with the commit's result.
using CommitCallback = std::function<void(Result<CommitResult>)>;

class Store {
 public:
  // Opens (creating if needed) the store named by url:
  //   file:PATH   embedded engine in folder PATH
  //   memory:     volatile in-memory store
  //   dynamodb://HOST[:PORT]?region=R&prefix=P...
  //               DynamoDB (docs/DYNAMODB.md): the tables <P>events, <P>all
  //               and <P>checkpoints, made if missing; $all is built after
  //               the commit (traits().positions_at_commit is false)
  static Result<std::unique_ptr<Store>> Open(std::string_view url,
                                             const StoreOptions& options = {});

  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Appends to several streams atomically: either every append's expectation
  // holds and all events are written, or nothing is. Each stream at most once.
  //
  // Idempotency: an append whose event ids were all written by one earlier
  // append to the same stream returns that append's original result and
  // writes nothing. A commit whose appends are all such retries writes
  // nothing; an append with only some of its ids already written, or ids
  // used on another stream, is a conflict.
  //
  // Errors: invalid, too_large (nothing written), conflict (with the actual
  // version), unavailable (storage failure; safe to retry with the same ids).
  //
  // Every commit passes the same checks before a backend sees it (names,
  // sizes against StoreOptions::limits, JSON, ids; events with a nil id get a
  // random one), here and nowhere else, so bad input is refused alike on
  // every backend and nothing is written.
  Result<CommitResult> Commit(std::vector<AppendRequest> appends,
                              const CommitOptions& options = {});

  // Several independent commits in one call: each is all or nothing on its
  // own, one failing does not affect the others, and the results come in
  // order. The embedded engine gives them as few group commits (syncs) as it
  // can, so a server can gather many clients' appends without a blocked
  // thread for each. Each commit is checked as Commit checks it.
  std::vector<Result<CommitResult>> CommitEach(std::vector<CommitRequest> commits);

  // One commit, without waiting for it: hands the request to the backend and
  // returns; `done` gets what Commit would have returned, exactly once.
  // Commits in flight at once share group commits (one sync) as CommitEach's
  // do, with no thread blocked per commit: what a server needs.
  //
  // Where `done` runs: on the calling thread, before CommitAsync returns,
  // when the request fails Commit's checks, and on backends without an
  // asynchronous path (memory; a remote store, which blocks the caller for
  // its round trip). Otherwise on a thread of the store's: the embedded
  // engine's sync stage (durable mode) or the thread that wrote the group
  // (interval mode), DynamoDB's commit thread. `done` must be quick and must
  // not block: post the work it starts elsewhere.
  //
  // Embedded engine: the calling thread may decide and write the group its
  // commit joins (and the groups queued behind it) before returning, but
  // never waits for a sync. Readers see the events only after their sync,
  // as with Commit. The store must outlive every commit in flight: a
  // backend's destructor waits for them and calls their `done`.
  void CommitAsync(CommitRequest commit, CommitCallback done);

  // One stream: Commit({{stream, expected, events}}).
  Result<AppendResult> Append(std::string stream, Expected expected, std::vector<EventData> events);

  // Soft delete: appends a tombstone ($deleted) with the given expectation
  // (any, exists or exactly). The events stay in the log and in $all; reads
  // of the stream answer not_found until an append restarts it.
  Result<AppendResult> Delete(std::string stream, Expected expected = Expected::any());

  // Stream metadata (stream_metadata.h, docs/RETENTION.md): the settings of
  // `stream`, kept as the last event of `$$<stream>`. A stream that never
  // had any reads as the default (no retention) with no version. invalid
  // for a bad name or a metadata stream's own name.
  virtual Result<StoredStreamMetadata> ReadStreamMetadata(std::string_view stream);
  // Replaces the metadata of `stream` (which need not exist yet);
  // `expected` is checked against the metadata's own version (no_stream:
  // never written), a mismatch is a conflict reporting that version.
  // Returns the new version (the ETag). Retention applies to every read
  // that starts after it returns (Store::Open's stores; on a store shared
  // by several processes, DynamoDB or an embedded follower, within
  // StoreOptions::metadata_refresh); the bytes stay until a scavenge.
  virtual Result<StreamVersion> WriteStreamMetadata(std::string_view stream,
                                                    const StreamMetadata& metadata,
                                                    Expected expected = Expected::any());

  // Removes for good the bytes of the events the streams' retention hides
  // (docs/RETENTION.md), their index entries with them, then compacts so
  // the space is given back. Online: appends and reads go on; a cursor made
  // before keeps what it saw. A stream's last event is always kept (its
  // version goes on numbering the stream), even when retention hides it.
  // An event's id is forgotten with it: a retry of a removed event is
  // written again. $all positions are never reused: a read of $all steps
  // over the gaps, a read of a stream from a removed version starts at its
  // first kept one. `progress`: streams done of streams with retention.
  // DynamoDB removes whole append items (docs/DYNAMODB.md, "Scavenging").
  // invalid on a backend that cannot remove events (a remote store, whose
  // server scavenges by POST /scavenge; memory).
  virtual Result<ScavengeReport> Scavenge(const ProgressFn& progress = nullptr);

  // Hard delete (erasure, docs/RETENTION.md): appends a tombstone
  // ($deleted, data {"erased":true}) with the given expectation (any,
  // exists or exactly) and, in the same commit, sets the stream's metadata
  // to hide every event before it (truncateBefore; its other settings
  // kept); then removes those events' records where the backend can
  // (embedded: at once, their bytes leave the files at the next scavenge's
  // compaction; DynamoDB: at once; memory: never). Irreversible: nothing brings the
  // events back. Reads see what Delete leaves (not_found, deleted), and
  // $all and subscriptions the tombstone alone, so read models learn of
  // the erasure. The stream may start again, its numbering continuing. A
  // stream already deleted keeps its tombstone (no second one: the answer
  // is that tombstone's append, replayed) and only the metadata and the
  // removal are written. not_found for a stream that never existed.
  virtual Result<AppendResult> Erase(std::string_view stream, Expected expected = Expected::any());

  // Crypto-shredding (docs/RETENTION.md): deletes every key of `subject`
  // (the events tagged "subject:<subject>"), so that each of its events
  // reads as redacted (kRedactedData) on every path from then on, in this
  // process at once and in others sharing the store within
  // StoreOptions::metadata_refresh. Irreversible. The ciphertext stays
  // until retention or erasure removes it; without the key it is noise.
  // A later event of the subject gets a new key. invalid when the store
  // has no master key (StoreOptions::master_keys) or the subject is not
  // 1 to 120 bytes of UTF-8 without control characters.
  virtual Result<ShredReport> ShredSubject(std::string_view subject);
  // Master key rotation: wraps every subject key with the first master
  // key, unwrapping with whichever key of StoreOptions::master_keys
  // wrapped it. Returns the keys rewrapped (those already under the first
  // master key are left alone). invalid without master keys; not_found
  // naming the key's fingerprint when a subject key was wrapped by a
  // master key not given.
  virtual Result<std::uint64_t> RewrapSubjectKeys(const ProgressFn& progress = nullptr);

  // The stream's last version and position; not_found if it never existed.
  // A deleted stream reports its tombstone with deleted = true.
  virtual Result<StreamHead> Head(std::string_view stream) = 0;

  // not_found if the stream does not exist, or is deleted and
  // !options.include_deleted. Events the stream's retention hides
  // (stream_metadata.h) are not returned by this or any other read
  // (ReadAll, ReadQuery, FindEvent, ReadStateAndEvents); `limit` counts
  // the events returned.
  virtual Result<std::unique_ptr<StreamCursor>> ReadStream(
      std::string_view stream, const ReadStreamOptions& options = {}) = 0;

  // Every event in position order, filtered. The cursor sees the events
  // committed when it was made, and no later ones.
  virtual Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options = {}) = 0;

  // The events matching `query` (query.h), in position order or, with
  // Direction::kBackward, its reverse. The cursor's next_position() is
  // where to continue in its direction. Items with tags read the backend's
  // tag index, so their cost grows with the events that carry the tags, not
  // with the store; items of types alone scan $all (memory, embedded).
  // invalid for a malformed query (ValidateQuery). Like ReadAll, the cursor
  // sees the events committed when it was made.
  virtual Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                                       const ReadQueryOptions& options = {});

  // Position of the last committed event (0 when empty).
  virtual Position LastPosition() const = 0;

  // Blocks until an event past `after` is committed or the timeout passes;
  // returns LastPosition() at that moment. Lets subscribers wait without polling.
  virtual Position WaitForCommit(Position after, std::chrono::milliseconds timeout) = 0;

  // Records: small named values the layers above keep beside the
  // events (consumer groups: their definition and checkpoint). They are not
  // events and never appear in $all or a stream. The last save wins, and a
  // save is as durable as an append in the store's durability mode. Names
  // are 1 to 256 bytes without control characters; values up to 64 KiB.
  // A backend that keeps none (a remote store) answers invalid.
  virtual Status SaveRecord(std::string_view name, std::string_view value);
  // nullopt if there is no record of that name.
  virtual Result<std::optional<std::string>> LoadRecord(std::string_view name);
  // Every record whose name starts with `prefix`, in name order.
  virtual Result<std::vector<std::pair<std::string, std::string>>> ListRecords(
      std::string_view prefix);
  // Removes the record; ok if there was none.
  virtual Status DeleteRecord(std::string_view name);

  // The event whose id is `id`, in whatever stream holds it; nullopt if no
  // committed event has it. invalid on a backend that keeps no index of
  // events by id (DynamoDB: docs/DYNAMODB.md); read it by stream and
  // version, or by position, there.
  virtual Result<std::optional<RecordedEvent>> FindEvent(const EventId& id);

  // The stream's state record; nullopt if none was written (or the stream
  // was deleted since). invalid for a name no append could have written,
  // and on a backend that keeps none (a remote store).
  virtual Result<std::optional<StateRecord>> ReadState(std::string_view stream);

  // An entity's load in one call: the stream's state record (nullopt if
  // none) and a cursor over the events after it, or over the whole current
  // life of the stream without a record. Errors as ReadStream: not_found
  // for a missing or deleted stream. The default calls ReadState, then
  // ReadStream; a backend that keeps both in one item (DynamoDB's tip)
  // answers with one read when the events after the record are there too.
  struct StateAndEvents {
    std::optional<StateRecord> state;
    std::unique_ptr<StreamCursor> events;
  };
  virtual Result<StateAndEvents> ReadStateAndEvents(std::string_view stream);

  // The streams, in name order, a page at a time: a page costs one seek per
  // name range (a category is three: `C`, `C-...`, `C/...`) and `limit`
  // entries, never a walk over every stream. Deleted streams are listed
  // (deleted = true); `$` streams too. invalid for a category holding `-`
  // or `/`, a limit of 0, or a backend that keeps no listing.
  virtual Result<StreamList> ListStreams(const ListStreamsOptions& options = {});

  virtual StoreTraits traits() const { return {}; }

  // Safe to call from any thread at any time; the counters are read one by
  // one, so they may be a moment apart.
  virtual StoreStats stats() const { return {}; }

  // Whether the store can still write: ok, or the error every commit now
  // gets and why (the embedded store stops writing for good after a failed
  // sync of its log; the process must reopen it). Safe from any thread; for
  // /health and /metrics.
  virtual Status WriteHealth() const { return Status::Ok(); }

  // The $all indexer's health, for backends that build $all after the
  // commit (DynamoDB); nullopt for the others (memory, embedded: $all is
  // the log). Safe from any thread; a few reads of the service at most.
  virtual std::optional<IndexHealth> IndexerHealth() const { return std::nullopt; }

  // Verifies every stored record's checksum and every index against the log.
  // ok, or internal with a message naming the first problems found.
  virtual Status Check(const ProgressFn& progress = nullptr) = 0;

 protected:
  // `limits`: what Commit holds every request to before the backend sees it.
  explicit Store(const Limits& limits) : limits_(limits) {}

  // What a backend implements: one commit whose request has passed
  // Commit's checks (every event has an id; names, sizes and JSON are valid).
  virtual Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                               const CommitOptions& options) = 0;
  // Several such commits, results in order. The default runs
  // CommitValidated for each in turn.
  virtual std::vector<Result<CommitResult>> CommitEachValidated(std::vector<CommitRequest> commits);
  // CommitAsync's half: a commit that passed the checks. The default runs
  // CommitValidated on the calling thread and calls `done` with its result.
  virtual void CommitAsyncValidated(CommitRequest commit, CommitCallback done);

  // What Scavenge is built on: removes the events of each cut's stream
  // below its `before` (never a stream's last event), and compacts. The
  // default answers invalid (the backend cannot remove events).
  virtual Result<ScavengeReport> RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                              const ProgressFn& progress,
                                              Compaction compact = Compaction::kIfRemoved);

  // What ListStreams is built on: the streams whose names start with
  // `prefix` and sort after `after`, in name order, at most `limit`. The
  // default answers invalid (the backend keeps no listing).
  virtual Result<std::vector<StreamInfo>> ListStreamRange(std::string_view prefix,
                                                          std::string_view after,
                                                          std::size_t limit);

 private:
  friend struct internal::StoreAccess;
  Limits limits_;
};

// Reads a whole stream or $all page into owned events (convenience for tests
// and small reads).
Result<std::vector<RecordedEvent>> ReadStreamEvents(Store& store, std::string_view stream,
                                                    const ReadStreamOptions& options = {});
Result<std::vector<RecordedEvent>> ReadAllEvents(Store& store, const ReadAllOptions& options = {});

// The newest event of `stream` that a read returns, its tombstone if it was
// deleted: one backward read of one event (include_deleted, raw: the
// envelope needs no upcasting or opening). nullopt when the stream's
// retention hides every event (stream_metadata.h) or the stream does not
// exist; other errors as ReadStream.
Result<std::optional<LastEvent>> ReadLastEvent(Store& store, std::string_view stream);
Result<std::vector<RecordedEvent>> ReadQueryEvents(Store& store, const Query& query,
                                                   const ReadQueryOptions& options = {});

}  // namespace indelible
