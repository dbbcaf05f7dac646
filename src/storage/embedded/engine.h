// EmbeddedStore: the Store on RocksDB. Private to the embedded backend.
//
// Operation
//   Every commit goes through one group-commit writer (LevelDB's writer
//   queue): callers enqueue, the caller at the front becomes the leader,
//   decides every queued commit against the stream heads and writes all of
//   them in one RocksDB WriteBatch. A lone writer pays one sync per commit;
//   64 concurrent writers share one.
//
//     caller A ─┐            ┌─ decide A, B, C (expectations, retries)
//     caller B ─┼─ queue ──▶ │  one WriteBatch (no sync yet)
//     caller C ─┘  (leader A)└─ hand the lead on, then the sync stage
//
//   Durable mode pipelines the two halves: a leader writes its group to
//   RocksDB without syncing and hands the lead to the next group at once;
//   then one thread at a time syncs the write-ahead log (SyncWAL) for every
//   group written so far, publishes them and wakes their callers. So group
//   N+1 is decided and put into the memtables while group N's fdatasync
//   runs, instead of after it (docs/BENCHMARKS.md, "HTTP"). Before a
//   caller of Commit syncs, it waits, for at most a share of the recent
//   syncs' duration, for the writers the last sync answered to come back
//   (GatherCohort), so that writers in a closed loop share one sync rather
//   than alternating between two.
//
//   A group written but not yet synced is in the memtables, where a plain
//   read would see it: readers therefore read the durable view, a RocksDB
//   snapshot taken right after the last synced group was written, and
//   LastPosition() moves only when a sync covered it. No reader ever sees
//   an event that a crash could take back. Only the leader reads past the
//   view (it decides on top of the groups still syncing).
//
//   Asynchronous commits (Store::CommitAsync, what the HTTP server uses)
//   join the same queue, but no thread waits for them: the thread that
//   queues one leads if nobody is leading, and a leader goes on leading
//   while the queue's front is an asynchronous writer (it hands the lead
//   back to a waiting caller otherwise). In durable mode a sync stage thread
//   syncs their groups and calls their callbacks; a caller of Commit still
//   syncs for itself when nobody else is syncing, as above.
//
//     I/O thread: parse ─ CommitAsync ─┬─ decide, write group N ─ return
//                                      └─▶ sync stage: SyncWAL ─ done(N)
//     (group N+1 is written by the next I/O thread while N syncs)
//
//   A group's batch holds its events and one append entry per append; the
//   id entries are written behind the syncs by the id indexer
//   (id_indexer.h), which holds a group's ids in memory from its write
//   until they are in RocksDB, so the retry check, which asks the indexer
//   first, never misses one.
//
//   A failed sync stops all writing: Linux may drop the unsynced pages and
//   report success on the next fdatasync, so nothing written after it could
//   be trusted. The writers of the unsynced groups get unavailable, and so
//   does every later commit, until the process reopens the store (RocksDB
//   then recovers from what its log really holds).
//
// Concurrency
//   Safe for any number of threads. Leader-only state (the head cache, the
//   next position) is touched only by the thread at the front of the queue,
//   which the queue makes exclusive; it needs no lock of its own.
//   Readers never wait for writers: they read RocksDB snapshots. In durable
//   mode `Head` answers from a second cache, of the heads readers see
//   (durable_heads.h), which the sync stage fills before it publishes a
//   snapshot.
//
// Limitations
//   One process per data folder (RocksDB's LOCK file); a second open fails
//   with unavailable.
#pragma once

#include <rocksdb/db.h>

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <thread>
#include <unordered_map>

#include "core/mutex.h"
#include "indelible/store.h"
#include "storage/embedded/broadcast.h"
#include "storage/embedded/durable_heads.h"
#include "storage/embedded/format.h"
#include "storage/embedded/id_indexer.h"
#include "store/decide.h"

namespace indelible::storage::embedded {

class EmbeddedStore final : public Store {
 public:
  // `env`: RocksDB's default when null (tests pass their own). A folder in
  // format 1 is upgraded first (upgrade.cc), reporting to
  // `upgrade_progress` (events done, of total) when given; a follower
  // cannot write, so it refuses one.
  static Result<std::unique_ptr<Store>> Open(const std::string& path, const StoreOptions& options,
                                             rocksdb::Env* env = nullptr,
                                             const ProgressFn& upgrade_progress = nullptr);
  ~EmbeddedStore() override;

  Result<std::optional<StateRecord>> ReadState(std::string_view stream) override;
  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id) override;
  Result<StreamHead> Head(std::string_view stream) override;
  Result<std::unique_ptr<StreamCursor>> ReadStream(std::string_view stream,
                                                   const ReadStreamOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadAll(const ReadAllOptions& options) override;
  Result<std::unique_ptr<AllCursor>> ReadQuery(const Query& query,
                                               const ReadQueryOptions& options) override;
  Position LastPosition() const override { return Position(last_position_.load()); }
  Position WaitForCommit(Position after, std::chrono::milliseconds timeout) override;
  Status Check(const ProgressFn& progress) override;
  Status SaveRecord(std::string_view name, std::string_view value) override;
  Result<std::optional<std::string>> LoadRecord(std::string_view name) override;
  Result<std::vector<std::pair<std::string, std::string>>> ListRecords(
      std::string_view prefix) override;
  Status DeleteRecord(std::string_view name) override;
  Result<std::vector<StreamInfo>> ListStreamRange(std::string_view prefix, std::string_view after,
                                                  std::size_t limit) override;
  StoreStats stats() const override;

  Status WriteHealth() const override;

  rocksdb::DB* db() const { return db_; }
  bool follower() const { return options_.follower; }
  // What readers read: in durable mode the last synced group's snapshot
  // (see Operation), released when the last holder drops it; elsewhere null,
  // the latest data (interval mode shows what the OS has, a follower what it
  // caught up with). ConsistentView is the same, but a fresh snapshot in
  // interval mode, for reads that use several iterators (a stream, check).
  using View = std::shared_ptr<const rocksdb::Snapshot>;
  View ReadView() const;
  View ConsistentView() const;
  // ReadOptions reading `view` (the latest data when it is null).
  static rocksdb::ReadOptions ReadAt(const View& view) {
    rocksdb::ReadOptions read;
    read.snapshot = view.get();
    return read;
  }
  rocksdb::ColumnFamilyHandle* log() const { return families_[1]; }
  rocksdb::ColumnFamilyHandle* appends() const { return families_[2]; }
  rocksdb::ColumnFamilyHandle* event_ids() const { return families_[3]; }
  // Null on a follower of a format 3 folder, which holds no tags.
  rocksdb::ColumnFamilyHandle* tags() const {
    return families_.size() > 4 ? families_[4] : nullptr;
  }

  // The append entry of `stream` at or before `key` (a StreamVersionKey, or
  // StreamEndKey for the stream's last append), read with `read`: one
  // SeekForPrev. nullopt when the stream has none there.
  struct FoundAppend {
    StreamVersion first_version;
    AppendEntry entry;
  };
  Result<std::optional<FoundAppend>> AppendAtOrBefore(const rocksdb::ReadOptions& read,
                                                      std::string_view stream,
                                                      std::string_view key) const;

 private:
  struct Writer;
  struct Group;

  EmbeddedStore(const StoreOptions& options) : Store(options.limits), options_(options) {}

  Result<CommitResult> CommitValidated(std::vector<AppendRequest> appends,
                                       const CommitOptions& options) override;
  std::vector<Result<CommitResult>> CommitEachValidated(
      std::vector<CommitRequest> commits) override;
  void CommitAsyncValidated(CommitRequest commit, CommitCallback done) override;

  // Queues the writers (consecutive tickets) and returns when every one has
  // its result, leading the groups that start with one of them and syncing
  // for others when nobody else is.
  void Submit(const std::vector<Writer*>& mine);
  // Queues an asynchronous writer (owned by the queue from now on) and
  // leads if nobody is leading; returns without waiting for a sync.
  void SubmitAsync(Writer* writer);
  // Called holding the lead (leading_): decides and writes groups from the
  // queue's front while it holds writers and the front is asynchronous or
  // one of the tickets [first, last] (none for an asynchronous submit).
  void Lead(std::uint64_t first, std::uint64_t last);
  // Gives each asynchronous writer its result (its callback) and deletes it.
  static void Finish(const std::vector<Writer*>& writers);
  // Durable mode: syncs the groups that hold asynchronous writers.
  void SyncStage();
  // Durable mode: returns once every ticket up to `last` (all written) is
  // synced, syncing everything written so far itself when no one else is.
  void AwaitDurable(std::uint64_t last);
  // One sync of the log for every group written so far: publishes them, or
  // fails their writers and stops all writing (see Operation). Returns the
  // wake tickets of the blocking writers it gave their final result.
  // `gather`: first wait for the cohort (GatherCohort; blocking callers).
  std::vector<std::uint64_t> SyncWritten(bool gather);
  // Before a sync: waits, for at most the missing writers' share of the
  // recent syncs' duration, until the writers the last sync finished and
  // those still in flight then (the cohort) are written, so they share this
  // sync (write_queue.cc).
  void GatherCohort();
  // After a sync that finished `finished` writers through ticket `through`.
  void LearnCohort(std::size_t finished, std::uint64_t through, std::int64_t sync_nanos);
  // After a sync: wakes the callers it finished, the first blocking caller
  // still waiting for a sync (to sync next) and the sync stage.
  void WakeAfterSync(std::vector<std::uint64_t> wake);
  // Wakes the blocking callers with these wake tickets (Writer::wake).
  void Wake(std::vector<std::uint64_t>& wake);
  Broadcast& SlotOf(std::uint64_t wake) { return wake_slots_[wake % kWakeSlots].broadcast; }
  // Puts (value given) or deletes a checkpoint record through Submit.
  Status WriteCheckpoint(const std::string& key, const std::string* value);
  // Leader only: decides and writes every writer of the group (syncing too,
  // unless the store pipelines its syncs).
  void CommitGroup(const std::vector<Writer*>& group);
  // Leader only: decides one writer's commit against the group's staged
  // state; stages its records into the batch when it succeeds.
  void DecideAndStage(Writer& writer, Group& group);
  Result<std::optional<StreamHead>> LoadHead(const std::string& stream, Group& group);
  // The first event after the condition's position that its query
  // matches, among those written (synced or not) and those the group
  // staged before this commit; nullopt when none (condition.cc).
  Result<std::optional<Position>> FirstConditionMatch(const AppendCondition& condition,
                                                      const Group& group);
  // The head of `stream` read with `read`: nullopt when it has no append.
  Result<std::optional<StreamHead>> ReadHead(const rocksdb::ReadOptions& read,
                                             std::string_view stream) const;
  // The stored (or staged) event of each event's id, if any: a retry. Ids
  // the store made (CommitOptions::ids_made_by_store) are not looked up.
  Result<std::vector<std::optional<store::IdRecord>>> LoadIds(const AppendRequest& append,
                                                              const CommitOptions& options,
                                                              Group& group);
  // What a retry of the append holding the event at `position` is answered
  // with (the latest data, as the leader reads).
  Result<store::IdRecord> ReadIdRecord(Position position);
  bool pipelined() const { return options_.durability == Durability::kSync && !options_.follower; }
  View NewSnapshot() const;
  void Publish(Position last);
  void SyncLoop();
  // After a failed write or sync of the log: no commit writes or syncs
  // again (WriteHealth says why). RocksDB's log writer is spent after an
  // error, and Debian's RocksDB asserts on a sync through it (found by the
  // power-cut layer: a leader's SyncWAL after another's failed write
  // aborted the process).
  void StopWriting(const Status& failure);
  // Reads the last position from the log (one seek).
  Result<Position> ReadLastPosition();
  // Format 1 -> 3 (upgrade.cc), at open: builds `appends` and `event_ids`
  // from format 1's families, flips the format marker, drops the old ones.
  // `v1` holds the old families' handles (streams, heads, ids; consumed).
  Status UpgradeFromV1(std::vector<rocksdb::ColumnFamilyHandle*> v1, const ProgressFn& progress,
                       const std::vector<rocksdb::ColumnFamilyDescriptor>& families);
  // Writes this build's format marker, and the id index's progress record
  // at the log's end (the index is whole), in one synced batch.
  Status FlipFormat();
  // Writes this build's format marker alone (format 3 -> 4), synced.
  Status WriteFormatMarker();
  // Drops what is left of format 1's families (consumed).
  Status DropFamilies(std::vector<rocksdb::ColumnFamilyHandle*> families);
  Result<StreamHead> HeadAt(const View& view, std::string_view stream);

  // Scavenging (scavenge.cc): one stream's events below the cut, in
  // batches, none past the id index's progress `indexed`; adds to *totals.
  struct Removed {
    std::uint64_t events = 0;
    std::uint64_t bytes = 0;
  };
  Result<ScavengeReport> RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                      const ProgressFn& progress, Compaction compact) override;
  Result<Removed> RemoveStreamEvents(const ScavengeCut& cut, Position indexed,
                                     ScavengeTotals* totals);
  Mutex scavenge_mu_;  // one scavenge at a time

  // Follower mode (StoreOptions::follower): a RocksDB secondary instance,
  // with its own folder for RocksDB's logs.
  std::string secondary_path_;

  const StoreOptions options_;
  // The Env db_ was opened with (log_files.h): outlives it.
  std::unique_ptr<rocksdb::Env> files_;
  rocksdb::DB* db_ = nullptr;
  // default, log, appends, event_ids, tags (absent: tags())
  std::vector<rocksdb::ColumnFamilyHandle*> families_;

  Mutex writers_mu_;
  std::deque<Writer*> writers_ GUARDED_BY(writers_mu_);  // queued, not yet taken by a leader
  std::uint64_t last_ticket_ GUARDED_BY(writers_mu_) = 0;
  // Every writer with a ticket <= written_through_ has been decided and
  // written (not necessarily synced): the writer of written_through_ + 1
  // leads next. Every writer with a ticket <= done_through_ has its final
  // result (durable mode only: elsewhere a written ticket is done).
  std::atomic<std::uint64_t> written_through_{0};
  std::atomic<std::uint64_t> done_through_{0};
  // A thread holds the lead (Lead), and every ticket up to taken_through_ has
  // left the queue for a group. Written under writers_mu_; read without it
  // by waiters deciding whether to look (then checked again under it).
  std::atomic<bool> leading_{false};
  std::atomic<std::uint64_t> taken_through_{0};
  // A blocking caller sleeps on the slot of its last ticket (Writer::wake),
  // and is woken only when its writers were written or synced, or the lead
  // is handed to it. One futex for all (as before) woke every one of 64
  // waiting writers at every group and every sync, to find one or two
  // concerned: a third of the process's time went to switching threads.
  // Slots are shared modulo kWakeSlots: a shared one costs a spurious
  // wake-up, never a lost one (every wait re-checks its condition).
  static constexpr std::size_t kWakeSlots = 128;
  struct alignas(64) WakeSlot {
    Broadcast broadcast;
  };
  std::array<WakeSlot, kWakeSlots> wake_slots_;
  Broadcast durable_;  // bumped after a sync ends: the sync stage waits on it

  // Durable mode: written groups waiting for a sync.
  struct Unsynced {
    std::uint64_t through = 0;  // the last written ticket
    Position position;          // the last written position
    View view;                  // a snapshot right after that write
    std::vector<Writer*> writers;
    bool wrote = false;         // anything went to RocksDB since the last sync
    std::size_t async = 0;      // asynchronous writers among `writers`
    DurableHeads::Heads heads;  // the heads those groups wrote, in order
  };
  Mutex unsynced_mu_;
  Unsynced unsynced_ GUARDED_BY(unsynced_mu_);
  std::atomic<bool> syncing_{false};  // one sync at a time
  // The syncer's own (the thread holding syncing_; its exchange and store
  // order them): how many writers the next sync gathers before it starts,
  // the recent syncs' average duration (nanoseconds; it bounds the wait),
  // and how many syncs start at once after a gathering that waited in vain
  // (16, doubling after each such wait up to 1024, back to 16 once a wait
  // gathers its cohort).
  std::uint64_t cohort_ = 1;
  std::int64_t sync_nanos_ = 0;
  std::uint32_t gather_pause_ = 0;
  std::uint32_t gather_backoff_ = kGatherPauseSyncs;  // the next pause after a wait in vain
  static constexpr std::uint32_t kGatherPauseSyncs = 16;
  static constexpr std::uint32_t kGatherPauseMaxSyncs = 1024;
  // A syncer waits for writes (GatherCohort): leaders wake it on written_.
  std::atomic<bool> gathering_{false};
  Broadcast written_;
  std::atomic<bool> sync_failed_{false};
  // What the failed sync said, for WriteHealth (set before sync_failed_).
  mutable Mutex failure_mu_;
  std::string failure_ GUARDED_BY(failure_mu_);
  mutable Mutex view_mu_;
  View durable_view_ GUARDED_BY(view_mu_);
  // The heads of durable_view_ and of the views before it, for Head.
  DurableHeads durable_heads_{kMaxCachedHeads};

  // Leader-only (see Concurrency above). The head cache is a plain map
  // bounded by clearing: heads are small and a miss costs one seek of the
  // stream index, so an LRU would buy little (so for durable_heads_).
  static constexpr std::size_t kMaxCachedHeads = 256 * 1024;
  std::uint64_t next_position_ = 1;
  std::unordered_map<std::string, StreamHead> head_cache_;

  std::atomic<std::uint64_t> last_position_{0};
  std::atomic<std::uint64_t> commits_{0};  // for stats(); written by the leader
  std::atomic<std::uint64_t> events_{0};
  std::atomic<std::uint64_t> syncs_{0};
  std::atomic<std::uint64_t> commit_cpu_ns_{0};  // StoreStats: CPU of CommitGroup
  std::atomic<std::uint64_t> sync_cpu_ns_{0};    // StoreStats: CPU of SyncWAL
  Mutex commit_mu_;
  CondVar committed_;  // signalled when last_position_ moves

  // Writes the id entries behind the syncs (id_indexer.h); null for a
  // follower, which writes nothing.
  std::unique_ptr<IdIndexer> indexer_;

  // Durable mode: the sync stage (SyncStage), woken when a group with
  // asynchronous writers is written.
  std::thread sync_stage_;
  Broadcast async_written_;
  std::atomic<bool> stop_sync_stage_{false};

  // Durability::kInterval only.
  std::thread sync_thread_;
  Mutex sync_mu_;
  CondVar sync_cv_;
  bool stopping_ GUARDED_BY(sync_mu_) = false;
};

inline rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
inline std::string_view ToView(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

// rocksdb::Status -> our vocabulary: I/O trouble is unavailable (retry may
// work), corruption and the rest internal.
Status FromRocks(const rocksdb::Status& s, std::string_view what);

}  // namespace indelible::storage::embedded
