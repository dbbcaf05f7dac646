// Indexer: builds `$all` on DynamoDB after the commit (docs/DYNAMODB.md,
// "$all"). It reads the events table's change stream (DynamoDB Streams,
// NEW_AND_OLD_IMAGES), finds in each tip update the events the append
// added (versions old head + 1 .. new head, held in the new image), gives
// them the next positions, and writes them to the AllIndex with its place in
// the stream, in one transaction per chunk.
//
// Operation (one pass):
//   1. Lease: the state names the indexer that wrote last and until when it
//      keeps the work; any other waits, re-reading the state (so its
//      last_position() moves too), and takes over once the lease ran out.
//   2. Shards in order: a shard is read only after its parent is read to its
//      end, so one stream's updates are indexed in the order they were made.
//   3. GetRecords on each readable shard; chunks of at most 99 events are
//      written with the state (AllIndex::Write), so after a crash the next
//      indexer resumes exactly where the last write left off: an event is
//      never indexed twice or skipped.
//      Two indexers that find the lease free at once both write; the
//      state's rev lets one through, and the other (conflict) has lost the
//      race: it reloads the state and follows, quietly (races_lost).
//   4. Gap check: a tip update whose old head is not the head last indexed
//      for its stream stops the indexer with an internal error (status()).
//
// Concurrency: Pass() belongs to one thread (Start()'s, or a caller's when
// not started); last_position(), WaitFor(), Nudge() and status() are safe
// from any thread.
// Lifetime: the clients and the index must outlive it; the destructor stops
// the thread.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "aws/client.h"
#include "core/mutex.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/change_stream.h"

namespace indelible::dynamodb {

struct IndexerOptions {
  std::string stream_arn;  // the events table's LatestStreamArn
  std::string owner;       // this indexer's name in the lease (unique per process)
  // How long an idle indexer waits before asking the stream again; Nudge()
  // cuts the wait short (a commit in this process).
  std::chrono::milliseconds poll_interval{50};
  // Never index: passes only read the state (a store opened with indexer=0).
  bool follow_only = false;
  // How long a lease lasts after the owner's last write.
  std::chrono::milliseconds lease{10000};
};

struct IndexerStats {
  std::uint64_t events = 0;  // events this indexer indexed
  std::uint64_t writes = 0;  // transactions (and state writes) it made
  std::int64_t lag_ms = 0;   // commit-to-indexed age of the newest event it indexed
  bool owner = false;        // holds the lease now
  // Writes refused because another indexer wrote the state first: a race
  // for the lease lost (indexers started together), which is no failure.
  std::uint64_t races_lost = 0;
};

class Indexer {
 public:
  Indexer(aws::Client& streams, AllIndex& index, IndexerOptions options);
  ~Indexer();
  Indexer(const Indexer&) = delete;
  Indexer& operator=(const Indexer&) = delete;

  // Reads the stored state once, so that last_position() is right from the
  // start (a process that reads $all at once, as `indelible export` does).
  // Call before Start().
  Status Prime() { return LoadState(); }

  // One pass (above). Returns how many events it indexed; an error leaves
  // the state as the last successful write made it.
  Result<std::size_t> Pass();

  // Runs passes on a thread of its own until Stop() or the destructor. A
  // failing pass is retried after a back-off; a gap or a replaced change
  // stream stops it (status()). Stop hands the lease back if it holds it.
  void Start();
  void Stop();
  // Asks the thread for a pass now: a commit was just made.
  void Nudge();

  // The last position indexed, as this process last saw it.
  Position last_position() const { return Position(last_position_.load()); }
  // Blocks until last_position() > after or the timeout passes; returns it.
  Position WaitFor(Position after, std::chrono::milliseconds timeout);
  // ok, or why the indexer stopped or its last pass failed.
  Status status() const;
  IndexerStats stats() const;

 private:
  Status LoadState();
  Status ListShards();
  Result<std::size_t> ReadShard(const ShardInfo& shard, IndexerState& work);
  Status Flush(IndexerState& work, std::vector<RecordedEvent>& chunk);
  Result<std::size_t> LostRace(std::size_t indexed);
  void Publish(const IndexerState& state);
  void SetStatus(Status status);
  void Loop();

  aws::Client& streams_;
  AllIndex& index_;
  const IndexerOptions options_;

  // Pass()'s own, touched by one thread only.
  std::optional<IndexerState> state_;
  std::vector<ShardInfo> shards_;
  std::chrono::steady_clock::time_point shards_listed_{};
  std::map<std::string, std::string> iterators_;  // shard -> next iterator, valid for state_
  std::unordered_map<std::string, std::int64_t> indexed_heads_;  // stream -> head indexed
  bool stopped_for_good_ = false;
  bool lost_race_ = false;  // the last Flush met another indexer's write

  std::atomic<std::uint64_t> last_position_{0};
  std::atomic<std::uint64_t> events_{0};
  std::atomic<std::uint64_t> writes_{0};
  std::atomic<std::int64_t> lag_ms_{0};
  std::atomic<bool> owner_{false};
  std::atomic<std::uint64_t> races_lost_{0};

  mutable Mutex mu_;
  CondVar changed_;  // last_position_ moved, a nudge, or stop
  bool nudged_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  Status status_ GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace indelible::dynamodb
