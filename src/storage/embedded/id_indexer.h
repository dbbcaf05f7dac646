// IdIndexer: the id index (`event_ids`) written behind the syncs, off the
// commit path (format 3; docs/FORMAT.md, "Id entries"). Private to the
// embedded engine.
//
// Operation
//   A commit's write batch holds its events and one append entry per
//   append, and no id entry: an append of N events is N + 1 keys. The
//   leader hands each written group's ids to the indexer (Add), which keeps
//   them in memory, findable, until a sync has made their events durable
//   (Durable). Its thread then writes their id entries together with the
//   progress record (kIdsIndexedKey) in batches, without a sync of its
//   own, and only then forgets them; it does so once 256 durable ids wait,
//   or every 50 ms, not after every sync. The next sync of the log covers
//   those batches; a crash that loses one (power loss; `kill -9` loses
//   nothing the process wrote) leaves the progress record behind the log,
//   and the next open indexes the difference from the log (IndexFromLog).
//
//     leader:  decide, write group ─ Add(ids) ─────────────────────────┐
//     sync:    SyncWAL ─ publish ─ Durable(last)                        │
//     indexer:            Put id entries + progress ─ forget ◀──────────┘
//
//   So an id that a written group holds is, at every moment, here or in
//   `event_ids` (written before forgotten): Find here first, then RocksDB,
//   never misses one. That is what the idempotent-retry check and FindEvent
//   do.
//
// Concurrency
//   Add: the group-commit leader only, in position order. Find, Durable:
//   any thread. Stop: once, by the store's destructor, after the last
//   Durable and before RocksDB closes.
//
// Limitations
//   Memory holds the ids written and not yet indexed: the groups waiting
//   for a sync and the indexer's lag behind it (up to 50 ms). A follower
//   (read-only) finds an id once the writer's indexer wrote its entry.
//   The indexer's writes share RocksDB's write path with the commits: a
//   commit's write waits while a batch of ids goes into the memtable
//   (~0.3 ms for 256). Only an id index outside this RocksDB instance
//   would take them off the commits' path (docs/BENCHMARKS.md, "Format
//   3").
#pragma once

#include <rocksdb/db.h>

#include <atomic>
#include <deque>
#include <optional>
#include <span>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "indelible/store.h"
#include "storage/embedded/broadcast.h"

namespace indelible::storage::embedded {

class IdIndexer {
 public:
  // Ids in position order, each with its event's position.
  using Ids = std::vector<std::pair<EventId, Position>>;

  // `indexed`: every event up to it already has its id entry. The families
  // must outlive the indexer. Starts the thread.
  IdIndexer(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* defaults,
            rocksdb::ColumnFamilyHandle* ids, Position indexed);
  ~IdIndexer();  // Stop()
  IdIndexer(const IdIndexer&) = delete;
  IdIndexer& operator=(const IdIndexer&) = delete;

  // The ids of a group just written (not yet synced), after those of every
  // group written before it.
  void Add(Ids ids);
  // The position of `id` if a group handed over holds it and it is not in
  // `event_ids` yet; nullopt otherwise (look in `event_ids` then).
  std::optional<Position> Find(const EventId& id) const;
  // Every event up to `last` is durable: index them.
  void Durable(Position last);
  // Indexes every durable id, then ends the thread. Idempotent.
  void Stop();
  // Every event up to this position has its id entry in `event_ids`.
  Position indexed() const { return Position(indexed_.load()); }
  // CPU the indexer's thread spent indexing (StoreStats::index_cpu_ns).
  std::uint64_t cpu_ns() const { return cpu_ns_.load(std::memory_order_relaxed); }

  // At open: writes the id entries of the log's events after `from` (where
  // an earlier run's progress record stopped) and the progress record, in
  // batches. Returns the last position indexed.
  static Result<Position> IndexFromLog(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* defaults,
                                       rocksdb::ColumnFamilyHandle* log,
                                       rocksdb::ColumnFamilyHandle* ids, Position from);

 private:
  void Run();
  // Writes the durable ids handed over (up to kMaxBatchIds, in batches of
  // kWriteIds) and forgets them; false when RocksDB refused a write (the
  // rest are kept).
  bool IndexDurable(Ids* taken);
  // Moves the ids of the handed-over groups whose events are durable into
  // `out`, in position order (whole groups, about kMaxBatchIds at most).
  void TakeDurable(Ids* out);
  // One batch: the id entries of `ids` (in position order) and the progress
  // record at the last one.
  rocksdb::Status Write(std::span<const std::pair<EventId, Position>> ids);

  rocksdb::DB* const db_;
  rocksdb::ColumnFamilyHandle* const defaults_;
  rocksdb::ColumnFamilyHandle* const ids_;

  mutable Mutex mu_;
  std::unordered_map<EventId, Position> pending_ GUARDED_BY(mu_);
  std::deque<Ids> groups_ GUARDED_BY(mu_);  // handed over, not yet indexed, in order

  std::atomic<std::uint64_t> durable_{0};
  std::atomic<std::uint64_t> indexed_{0};
  std::atomic<std::uint64_t> cpu_ns_{0};
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> stop_{false};
  Broadcast wake_;
  std::thread thread_;
};

}  // namespace indelible::storage::embedded
