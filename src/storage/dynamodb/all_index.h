// AllIndex: the `$all` table of the DynamoDB backend, `<prefix>all`
// (docs/DYNAMODB.md, "$all"): every event again, in position order, written
// by the indexer (indexer.h) after the commit, and the indexer's own state.
//
//   block (N, partition)   position >> kBlockBits, so that one partition
//                          holds 65,536 positions and a read from any
//                          position is one Query of one or two blocks
//   position (N, sort)     the event's position, 1, 2, ...
//   stream, version, and the envelope (tip.h's EventItem): the event itself,
//   so that a page of $all is one Query, not one read per event
//
//   block = -1, position = 0: the indexer's state, one JSON document (S)
//   with the next position to assign and its place in the change stream,
//   and `rev`, raised by every write: the fence between two indexers.
//
// An index write is one TransactWriteItems: the chunk's index items and the
// state, on condition that `rev` is what the writer read. So positions and
// the change-stream place move together, and of two indexers working from
// the same state only one writes.
//
// Concurrency: thread-safe (the Client is; nothing mutable here).
// Lifetime: the Client must outlive it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "aws/client.h"
#include "indelible/store.h"

namespace indelible::dynamodb {

inline constexpr int kBlockBits = 16;

// Where the indexer is in one shard of the change stream.
struct ShardProgress {
  // The last record whose events are all indexed; empty: none yet.
  std::string sequence;
  // Events of the next record (after `sequence`) already indexed: a record
  // of more events than a transaction takes is indexed in parts.
  std::int64_t part = 0;
  bool done = false;  // the shard is closed and read to its end
};

struct IndexerState {
  std::int64_t rev = 0;    // raised by every write (fence)
  std::int64_t next = 1;   // the next position to assign
  std::string stream_arn;  // the change stream read; empty until the first write
  std::map<std::string, ShardProgress> shards;
  // Lease: the indexer that wrote last keeps the work until lease_until
  // (Unix ms); others wait, reading the state, and take over after it.
  std::string owner;
  std::int64_t lease_until = 0;
  // An index rebuild (index_rebuild.h) started and has not finished: the
  // index may lack events, so indexers wait until a rebuild completes.
  bool rebuilding = false;

  Position last_position() const { return Position(static_cast<std::uint64_t>(next - 1)); }
};

class AllIndex {
 public:
  AllIndex(aws::Client& client, std::string table);

  // Creates the table and the indexer's state (next = 1), or checks them.
  Status CreateOrCheck();

  // The indexer's state, read consistently. One GetItem.
  Result<IndexerState> LoadState();

  // Writes `events` (each with its position set, from before.next on, in
  // order) and `after` in one transaction, on condition that the stored
  // rev is still before.rev. conflict: another indexer wrote first.
  // REQUIRES: at most kMaxChunkEvents events, after.rev == before.rev + 1.
  Status Write(const IndexerState& before, const IndexerState& after,
               const std::vector<RecordedEvent>& events);
  static constexpr std::size_t kMaxChunkEvents = 99;      // + the state: 100 items
  static constexpr std::size_t kMaxChunkBytes = 3 << 20;  // of the 4 MB a transaction takes

  // Indexed events with positions in [from, through], at most `limit`, in
  // position order; fewer only when through is reached. One Query per
  // block touched (more past 1 MB pages).
  Result<std::vector<RecordedEvent>> Read(Position from, Position through, std::size_t limit);

  // What is stored from `from` on, at most `limit` events, in position
  // order, without Read's gap check: for the rebuild, which looks for
  // damage. Stops at the first block with nothing from `from` on.
  Result<std::vector<RecordedEvent>> ReadAsStored(Position from, std::size_t limit);

  // Deletes the index items at these positions (BatchWriteItem, 25 a
  // request). For the rebuild: positions past the state's `next`, which
  // no reader reads.
  Status Remove(const std::vector<Position>& positions);

  const std::string& table() const { return table_; }

 private:
  // One Query of one block, positions [from, to], at most `limit` items.
  Result<std::vector<RecordedEvent>> QueryBlock(std::int64_t from, std::int64_t to,
                                                std::size_t limit);

  aws::Client& client_;
  std::string table_;
};

}  // namespace indelible::dynamodb
