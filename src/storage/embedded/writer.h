// The group-commit queue's entries (engine.h, Operation): a Writer is one
// commit or checkpoint waiting for a leader; a Group is what the leader has
// decided so far. Private to the embedded engine.
#pragma once

#include <rocksdb/write_batch.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/embedded/engine.h"

namespace indelible::storage::embedded {

struct EmbeddedStore::Writer {
  std::vector<AppendRequest>* appends = nullptr;
  const CommitOptions* options = nullptr;
  // Instead of appends: a checkpoint record to put (value given) or delete.
  // It rides in a group's batch like a commit, so only the group leader
  // ever writes to RocksDB (one writer thread: RocksDB never merges batches
  // across threads) and a save shares the group's sync.
  const std::string* checkpoint_key = nullptr;
  const std::string* checkpoint_value = nullptr;
  std::size_t bytes = 0;
  // A blocking writer: its caller's last ticket, whose wake slot it sleeps
  // on (engine.h, wake_slots_). 0 for an asynchronous writer.
  std::uint64_t wake = 0;
  std::optional<Result<CommitResult>> result;
  bool staged = false;  // has records in the group's batch
  // A retry answered as a replay of an append that is not yet durable (in
  // this group or in one still syncing): the answer is only as good as that
  // append's write and sync, so it fails with them.
  bool replays_unsynced = false;
  // An asynchronous commit (CommitAsync): the writer owns its request, no
  // thread waits for it, and it is deleted once `done` has its result.
  CommitRequest owned;
  CommitCallback done;

  bool async() const { return static_cast<bool>(done); }
  // Fails with the group's write or sync: it wrote, or it vouches for
  // something that had to be written.
  bool depends_on_write() const { return staged || replays_unsynced; }
};

// What the leader has decided so far in this group, layered over the store.
struct EmbeddedStore::Group {
  rocksdb::WriteBatch batch;
  std::unordered_map<std::string, StreamHead> heads;
  std::unordered_map<EventId, store::IdRecord> ids;
  IdIndexer::Ids new_ids;  // for the indexer, once the group is written
  std::uint64_t next_position = 0;
  std::int64_t now_ms = 0;
  std::string record;  // scratch buffer for encoding
  // The events staged so far, for the AppendCondition of a later commit of
  // the group: kept only when the group holds one (track_events). The
  // events belong to the group's writers, which outlive the group.
  struct StagedEvent {
    Position position;
    const EventData* event;
  };
  bool track_events = false;
  std::vector<StagedEvent> staged_events;
};

// A group stops growing past this many bytes of events, so one slow, huge
// batch cannot hold many small commits behind it for long.
inline constexpr std::size_t kMaxGroupBytes = 8 * 1024 * 1024;

// What every commit gets once a write or sync of the log has failed
// (engine.h).
inline Status StoppedWriting() {
  return Status::Unavailable(
      "the store stopped writing after a failed write or sync of its log; restart the process");
}

// CPU time of the calling thread, in nanoseconds (StoreStats' accounting).
std::uint64_t ThreadCpuNanos();

}  // namespace indelible::storage::embedded
