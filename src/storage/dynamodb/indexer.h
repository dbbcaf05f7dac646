// Indexer: builds `$all` on DynamoDB after the commit (docs/DYNAMODB.md,
// "$all"). It reads the events table's change stream (DynamoDB Streams,
// NEW_AND_OLD_IMAGES), finds in each record the append it made
// (change_records.h), gives its events the next positions, and chains
// chunks of them to the AllIndex (all_index.h): references to the append
// items, or the events themselves for a tip of the earlier layout.
//
// Operation (one pass):
//   1. Lease: the newest chunk (or the checkpoint) names the indexer that
//      keeps the work and until when; any other follows the chain (so its
//      last_position() moves too) and takes over once the lease ran out,
//      by writing a checkpoint naming itself (fenced: one of several wins).
//   2. Shards in order: a shard is read only after its parent is read to its
//      end, so one stream's appends are indexed in the order they were made.
//   3. GetRecords on each readable shard; the appends found wait in memory
//      until they fill a chunk (about 1 KB of references: one write unit)
//      or the oldest has waited `batch`; then the chunk is written with the
//      change stream's place it reached, by a PutItem at the chain's end
//      that only succeeds if no chunk is there. An indexer that finds one
//      there lost the race: it reloads and follows, quietly (races_lost).
//      After a crash the next indexer reads the checkpoint and the chunks
//      chained after it: it resumes where the last chunk left off, so an
//      event is never indexed twice or skipped.
//   4. Checkpoint: every checkpoint_every, or checkpoint_chunks chunks, and
//      at Stop, the chain's end and every shard's place are written to the
//      checkpoint, so that a start reads few chunks.
//   5. Gap check: an append whose first version is not the one after the
//      last indexed for its stream stops the indexer with an internal error
//      (status()).
//   6. Idle: a pass that finds no record doubles the wait before the next,
//      from poll_interval up to idle_poll_max; a record or Nudge() (a commit
//      in this process) resets it.
//   7. Handover: a pass reads the checkpoint's `rev` every state_check;
//      when another wrote a checkpoint (a rebuild asking for the index or
//      handing it back, an indexer that took a lease this one thought it
//      held) it reloads the state.
//      A state marked `rebuilding` while it holds the lease makes it write
//      what it holds no more, hand the lease back at the chain's place and
//      wait (index_rebuild.h) until the rebuild completes.
//
// A rebuild's catch-up (finish_rebuild) is an indexer too: it holds the
// rebuild's lease, indexes while the state says `rebuilding`, and skips
// records of appends the rebuild took from the table (skip_through).
//
// Health (Health()): the lease, the lag this process knows of
// (CommitTracker), each shard's unread age, failures, and why it stopped.
//
// Concurrency: Pass() belongs to one thread (Start()'s, or a caller's when
// not started), and so do caught_up(), FinishRebuild() and written_heads();
// last_position(), WaitFor(), Nudge(), stats(), status(), Committed() and
// Health() are safe from any thread.
// Lifetime: the clients and the index must outlive it; the destructor stops
// the thread.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "aws/client.h"
#include "core/mutex.h"
#include "indelible/store.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/change_stream.h"
#include "storage/dynamodb/tag_index.h"

namespace indelible::dynamodb {

struct IndexerOptions {
  std::string stream_arn;  // the events table's LatestStreamArn
  std::string owner;       // this indexer's name in the lease (unique per process)
  // The first wait of an idle indexer before it asks the stream again;
  // doubled while idle up to idle_poll_max. Nudge() cuts the wait short.
  std::chrono::milliseconds poll_interval{50};
  std::chrono::milliseconds idle_poll_max{1000};
  // How long an append read waits for others to share its chunk (0: a
  // chunk at the end of every pass that read one).
  std::chrono::milliseconds batch{100};
  // Never index: passes only follow the chain (a store opened with indexer=0).
  bool follow_only = false;
  // How long a lease lasts after the owner's last chunk.
  std::chrono::milliseconds lease{10000};
  // How often the checkpoint is written while chunks are: after this long,
  // or after this many chunks, whichever comes first.
  std::chrono::milliseconds checkpoint_every{30000};
  std::size_t checkpoint_chunks = 100;
  // How often a pass reads the checkpoint's rev (one eventually consistent
  // GetItem) to notice a rebuild's request or hand-back, or another's claim.
  std::chrono::milliseconds state_check{1000};
  // A rebuild's catch-up (index_rebuild.h): indexes under the rebuild's
  // lease while the state says `rebuilding`, and skips change records of
  // appends whose versions are all at or below skip_through[stream] (the
  // rebuild took them from the table).
  bool finish_rebuild = false;
  std::unordered_map<std::string, std::int64_t> skip_through;
  // Tests: called before each chunk is written, with its tag pages;
  // returning false stops there as a crash would (nothing of the chunk is
  // written, and the pass fails).
  std::function<bool(const Chunk&, const std::vector<TagPage>&)> before_chunk_write;
};

// What this process knows was committed and $all does not hold yet: its own
// acknowledged appends (Committed, from the store) and the change records
// its indexer read, until a chunk holding them is written or followed
// (Indexed). Per stream: the last version indexed and the commits after it
// with their commit times. Thread-safe.
class CommitTracker {
 public:
  void Committed(const std::string& stream, std::int64_t first, std::int64_t last,
                 std::int64_t commit_ms);
  void Indexed(const std::string& stream, std::int64_t last);
  void Clear();
  bool empty() const;
  struct Lag {
    std::uint64_t events = 0;
    std::int64_t oldest_commit_ms = 0;  // 0: nothing waits
  };
  Lag lag() const;

 private:
  struct Waiting {
    std::int64_t indexed = -1;                     // the last version known indexed
    std::map<std::int64_t, std::int64_t> commits;  // last version -> commit ms
  };
  // The streams indexed lately, and how far: an append whose chunk came
  // before Committed was called for it is not counted as waiting.
  static constexpr std::size_t kRecent = 4096;
  static constexpr std::size_t kMaxStreams = 100000;
  mutable Mutex mu_;
  std::unordered_map<std::string, Waiting> waiting_ GUARDED_BY(mu_);
  std::unordered_map<std::string, std::int64_t> recent_ GUARDED_BY(mu_);
  std::deque<std::string> recent_order_ GUARDED_BY(mu_);
};

struct IndexerStats {
  std::uint64_t events = 0;       // events this indexer indexed
  std::uint64_t writes = 0;       // chunks and checkpoints it wrote
  std::uint64_t chunks = 0;       // of which chunks
  std::uint64_t get_records = 0;  // GetRecords calls: the change stream asked
  std::int64_t lag_ms = 0;        // commit-to-indexed age of the newest event it indexed
  bool owner = false;             // holds the lease now
  // Writes refused because another indexer wrote first: a race for the
  // lease lost (indexers started together), which is no failure.
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
  Status Prime();

  // One pass (above). Returns how many events it indexed (wrote in chunks);
  // an error leaves the index as the last chunk written made it.
  Result<std::size_t> Pass();
  // Writes what the passes read and still hold (chunks), now. For callers
  // that run passes themselves.
  Result<std::size_t> Flush();

  // Runs passes on a thread of its own until Stop() or the destructor. A
  // failing pass is retried after a back-off; a gap or a replaced change
  // stream stops it (status()). Stop writes what it holds and a checkpoint
  // that hands the lease back, if it holds it.
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

  // The store's acknowledged appends, for the lag (CommitTracker).
  void Committed(const std::string& stream, std::int64_t first, std::int64_t last,
                 std::int64_t commit_ms) {
    tracker_.Committed(stream, first, last, commit_ms);
  }
  // The health report (IndexHealth in store.h) as of the last pass.
  IndexHealth Health() const;

  // For a rebuild's catch-up (finish_rebuild), between its own passes:
  // whether the last pass read every shard to its end, and nothing waits.
  bool caught_up() const { return caught_up_ && pending_.empty(); }
  // Writes what waits, then a checkpoint handing the lease back with
  // `rebuilding` cleared: the index is whole from here on.
  Status FinishRebuild();
  // The last version of each stream a chunk of this indexer holds.
  const std::unordered_map<std::string, std::int64_t>& written_heads() const {
    return written_heads_;
  }

 private:
  // An append read and not yet in a chunk, or the part of one that is not.
  struct Pending {
    std::string shard;
    std::string sequence;        // its record's
    std::string before;          // the shard's place before that record
    std::int64_t part_from = 0;  // events of the record in earlier chunks
    std::int64_t total = 0;      // events of the record
    AppendRef ref;               // the whole append (ref.count == total)
    bool in_chunk = false;
    std::vector<RecordedEvent> events;  // in_chunk: events part_from.. of the record
    // A reference's events that carry tags (for the tag index, tag_index.h).
    struct Tagged {
      std::int64_t offset = 0;  // in the append
      std::string type;
      std::vector<std::string> tags;
    };
    std::vector<Tagged> tagged;
    std::chrono::steady_clock::time_point read_at;
    std::int64_t timestamp_ms = 0;  // of its last event
  };

  Result<std::size_t> PassOnce();
  // After each pass: the health snapshot and the failure counts.
  void Observe(const Result<std::size_t>& result);
  void ViewState();  // the state's lease and mark into the health snapshot
  // Hands the lease back at the chain's place to a rebuild that asked for
  // it, dropping what was read and not written.
  void HandOverToRebuild();
  // A chunk written or followed: its appends are indexed (the lag).
  void SeeChunk(const Chunk& chunk);
  // Whether another wrote a checkpoint since this owner's last (step 7).
  Result<bool> CheckpointMoved();
  Status LoadState();
  Status ListShards();
  Result<std::size_t> ReadShard(const ShardInfo& shard);
  // Writes chunks while what waits fills one; all of it when `all`.
  Status WritePending(bool all, std::size_t* indexed);
  // The tag index pages of `chunk`, whose first `taken` pieces are
  // pending_'s first ones.
  Result<std::vector<TagPage>> TagPages(const Chunk& chunk, std::size_t taken);
  Status WriteCheckpoint(bool release, bool end_rebuild = false);
  Result<std::size_t> LostRace(std::size_t indexed);
  void Forget();
  void Publish(const IndexerState& state);
  void SetStatus(Status status);
  void Loop();

  aws::Client& streams_;
  AllIndex& index_;
  const IndexerOptions options_;

  // Pass()'s own, touched by one thread only.
  std::optional<IndexerState> state_;                 // as the chain stands (written)
  std::map<std::string, ShardProgress> read_places_;  // where reading reached (pending included)
  std::deque<Pending> pending_;
  std::vector<ShardInfo> shards_;
  std::chrono::steady_clock::time_point shards_listed_{};
  std::map<std::string, std::string> iterators_;  // shard -> next iterator, valid for read_places_
  std::unordered_map<std::string, std::int64_t> indexed_heads_;  // stream -> last version read
  std::size_t chunks_since_checkpoint_ = 0;
  std::chrono::steady_clock::time_point checkpointed_at_ = std::chrono::steady_clock::now();
  bool read_records_ = false;  // the last pass read records
  bool stopped_for_good_ = false;
  bool lost_race_ = false;            // the last write met another indexer's
  bool caught_up_ = false;            // the last pass read every shard to its end
  bool waiting_for_rebuild_ = false;  // the last pass found the state `rebuilding`
  std::chrono::steady_clock::time_point state_checked_ = std::chrono::steady_clock::now();
  // Per shard: at most how old (Unix ms) its oldest unread record is.
  std::map<std::string, std::int64_t> unread_since_ms_;
  std::unordered_map<std::string, std::int64_t> written_heads_;  // finish_rebuild only
  // Per tag, how many events carrying it the chain holds up to
  // tag_counts_next_ (the end of this indexer's last chunk): the tag index
  // pages' running `k`. Read from the last page when not known here.
  std::unordered_map<std::string, std::int64_t> tag_counts_;
  std::int64_t tag_counts_next_ = 0;

  CommitTracker tracker_;
  std::int64_t seen_next_ = 0;   // the chain's end as far as the tracker saw chunks
  bool saw_rebuilding_ = false;  // a state loaded since the last Clear was `rebuilding`
  std::atomic<std::int64_t> newest_indexed_ms_{0};

  std::atomic<std::uint64_t> last_position_{0};
  std::atomic<std::uint64_t> events_{0};
  std::atomic<std::uint64_t> writes_{0};
  std::atomic<std::uint64_t> chunks_{0};
  std::atomic<std::uint64_t> get_records_{0};
  std::atomic<std::int64_t> lag_ms_{0};
  std::atomic<bool> owner_{false};
  std::atomic<std::uint64_t> races_lost_{0};

  mutable Mutex mu_;
  CondVar changed_;  // last_position_ moved, a nudge, or stop
  bool nudged_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  Status status_ GUARDED_BY(mu_);
  // The health snapshot, as of the last pass.
  struct View {
    bool known = false;  // a state was read
    std::string owner;
    std::int64_t lease_until = 0;
    bool rebuilding = false;
    bool stopped = false;
    std::uint64_t errors = 0;
    std::uint64_t consecutive_errors = 0;
    std::string last_error;
    std::map<std::string, std::int64_t> unread_since_ms;
  };
  View view_ GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace indelible::dynamodb
