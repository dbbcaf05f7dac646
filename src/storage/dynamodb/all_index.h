// AllIndex: the `$all` table of the DynamoDB backend, `<prefix>all`
// (docs/DYNAMODB.md, "$all"), written by the indexer (indexer.h) after the
// commit: a chain of chunks, each holding consecutive positions.
//
//   block (N, partition)   the chunk's first position >> kBlockBits, so that
//                          one partition holds 65,536 positions and a read
//                          from any position is a Query or two
//   position (N, sort)     the chunk's first position, 1, 2, ...
//   n (N)                  positions in the chunk
//   r (B)                  its entries in position order, each an append:
//                          stream, first version, event count, and whether
//                          its events are inline (varints, length-prefixed
//                          stream). An entry not inline refers to the
//                          append item (stream, first) of the events table
//                          (append_item.h), which holds the events
//   e (L of M)             the events of inline entries, in order, each as
//                          an event item (tip.h's EventItem): appends whose
//                          events live only in a tip of the earlier layout,
//                          and the rebuild's
//   c (S)                  JSON: the change stream's place after this chunk
//                          in the shards it read ({shard: {seq, part}})
//   o (S), l (N)           the lease: the writer, and until when (Unix ms)
//                          it keeps the work
//
// An item without `n` is one whole event at its position (the earlier
// layout: one index item per event); it reads as a chunk of one inline
// event, so an upgraded store reads its old $all and chains chunks after it.
//
// The chain: a chunk at position P of n positions is followed by the chunk
// at P + n. A chunk is written by PutItem on attribute_not_exists(position)
// at the key the chain's end gives, so of two writers that computed the
// same next chunk only one writes, and a position is never given twice.
//
//   block = -1, position = 0: the checkpoint, one JSON document (S) written
//   now and then with the chain's end as of then (`next`), the full map of
//   shard places there, the lease, and `rebuilding`; attribute `rev` is
//   raised by each checkpoint write and fences them. The current state is
//   the checkpoint plus every chunk chained after it.
//
// Concurrency: thread-safe (the Client is; nothing mutable here).
// Lifetime: the Client must outlive it.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/client.h"
#include "indelible/options.h"
#include "indelible/store.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/tag_index.h"

namespace indelible::dynamodb {

inline constexpr int kBlockBits = 16;

// A position whose append a scavenge removed (scavenge.h): Read and
// ReadAsStored give it as an event of this type carrying its stream,
// version and position only, so that readers step over it, `check` counts
// it, and a rebuild keeps it where it is. The store never writes the type
// (types starting with `$` are its own).
inline constexpr std::string_view kRemovedEventType = "$removed";
inline bool IsRemoved(const RecordedEvent& event) { return event.type == kRemovedEventType; }

// Where the indexer is in one shard of the change stream.
struct ShardProgress {
  // The last record whose events are all indexed; empty: none yet.
  std::string sequence;
  // Events of the next record (after `sequence`) already indexed: a record
  // of more inline events than a chunk takes is indexed in parts.
  std::int64_t part = 0;
  bool done = false;  // the shard is closed and read to its end

  bool operator==(const ShardProgress&) const = default;
};

// One append in a chunk.
struct ChunkEntry {
  AppendRef ref;          // stream, first version, events
  bool in_chunk = false;  // its events are in the chunk's `e`, not (only) in the events table
};

struct Chunk {
  std::int64_t position = 0;  // the first position: the key
  std::int64_t count = 0;     // `n`
  std::vector<ChunkEntry> entries;
  std::vector<RecordedEvent> inline_events;     // those of the inline entries, in order
  std::map<std::string, ShardProgress> places;  // `c`
  std::string owner;                            // `o`
  std::int64_t lease_until = 0;                 // `l`

  std::int64_t end() const { return position + count; }
};

struct IndexerState {
  std::int64_t rev = 0;              // the checkpoint's, raised by every checkpoint write (fence)
  std::int64_t next = 1;             // the next position to assign: the chain's end
  std::int64_t checkpoint_next = 1;  // the chain's end as the stored checkpoint says
  std::string stream_arn;            // the change stream read; empty until the first checkpoint
  std::map<std::string, ShardProgress> shards;
  // Lease: the writer of the newest chunk (or of the checkpoint, when no
  // chunk follows it) keeps the work until lease_until (Unix ms); others
  // follow the chain and take over after it.
  std::string owner;
  std::int64_t lease_until = 0;
  // An index rebuild (index_rebuild.h) started and has not finished: the
  // index may lack events, so indexers wait until a rebuild completes.
  bool rebuilding = false;
  // The checkpoint is in the earlier release's format (one transaction per
  // chunk of event items): a checkpoint in this one is written before the
  // first chunk, which fences out an indexer of that release.
  bool earlier_format = false;

  Position last_position() const { return Position(static_cast<std::uint64_t>(next - 1)); }
  // `chunk` written after this state: its end, places and lease.
  void Apply(const Chunk& chunk);
};

// The packing of a chunk's entries and of a tag page's (LEB128 varints).
void PutVarint(std::string& out, std::uint64_t v);
std::optional<std::uint64_t> GetVarint(std::string_view& in);
// One page of a Query's Items; `more` (optional): whether there are more.
Result<std::vector<boost::json::object>> QueryItems(aws::Client& client,
                                                    boost::json::object request, bool* more);

class AllIndex {
 public:
  // events_table: the table whose append items the chunks refer to; empty:
  // `table` with its "all" suffix replaced by "events" (the store's naming).
  AllIndex(aws::Client& client, std::string table, std::string events_table = {});

  // Creates the table and a checkpoint (next = 1), or checks them.
  Status CreateOrCheck();

  // The checkpoint and the chunks chained after it, read consistently: one
  // GetItem and a Query per block the chain crosses after it.
  // `seen` (optional) is called with each chunk applied.
  Result<IndexerState> LoadState(const std::function<void(const Chunk&)>& seen = nullptr);
  // Applies to *state the chunks chained after state->next (none: nothing
  // changes). Returns how many there were.
  Result<std::size_t> Follow(IndexerState* state,
                             const std::function<void(const Chunk&)>& seen = nullptr);
  // The checkpoint's rev, read eventually consistent (an owner's cheap look
  // for another's checkpoint: a stale answer is only older).
  Result<std::int64_t> ReadRev();
  // Chunks chained from `next` (the first at exactly `next`), until one ends
  // past `stop` or `max_chunks` were read or the chain ends.
  Result<std::vector<Chunk>> ChainFrom(std::int64_t next, std::int64_t stop,
                                       std::size_t max_chunks);

  // Writes `chunk` at its position, if no item is there, with the pages of
  // the tag index its tagged events make (tag_index.h) in the same
  // transaction (a plain PutItem when there are none). conflict: another
  // writer chained a chunk there first.
  Status WriteChunk(const Chunk& chunk, const std::vector<TagPage>& tag_pages = {});
  // Writes `after` as the checkpoint on condition that the stored rev is
  // still before.rev; sets after->rev = before.rev + 1. conflict: another
  // checkpoint was written.
  Status WriteCheckpoint(const IndexerState& before, IndexerState* after);

  // The item of `chunk` (for its size) and its attribute size by DynamoDB's
  // sizing rules (aws/item_size.h): a chunk of references is kept at most
  // kReferenceBytes (one write unit), one with inline events kInlineBytes.
  boost::json::object ChunkItem(const Chunk& chunk) const;
  static std::int64_t ItemBytes(const boost::json::object& item);
  static constexpr std::int64_t kReferenceBytes = 1024;
  static constexpr std::int64_t kInlineBytes = 16 << 10;

  // Indexed events with positions in [from, through], at most `limit`, in
  // position order; fewer only when through is reached. internal when a
  // position up to there is missing; a removed one is a kRemovedEventType
  // event. The chunks by Query, the referenced
  // appends by BatchGetItem of the events table. With `streams` (a $all
  // read's filter), appends of streams it cannot match are not read: their
  // events come back with stream, version and position only, which the
  // same filter then skips.
  Result<std::vector<RecordedEvent>> Read(Position from, Position through, std::size_t limit,
                                          const AllFilter* streams = nullptr);

  // What the chain holds from `from` on, at most about `limit` events (whole
  // chunks), without Read's gap check: for the rebuild, which looks for
  // damage. Stops where the chain stops, or before the first chunk whose
  // references the events table does not hold.
  Result<std::vector<RecordedEvent>> ReadAsStored(Position from, std::size_t limit);

  // The first position of the chunk holding `position`; nullopt: none does.
  Result<std::optional<std::int64_t>> ChunkStart(std::int64_t position);

  // Deletes every index item whose key is in [from, through] (BatchWriteItem,
  // 25 a request); returns how many. For the rebuild: items past the chain's
  // end, which a chunk must not find in its place.
  Result<std::uint64_t> RemoveFrom(std::int64_t from, std::int64_t through);

  // After a scavenge (scavenge.h): rewrites every chunk holding inline
  // events (a rebuild's, the earlier layout's) of an append wholly below
  // its stream's floor in `floors`, that entry turned into a reference,
  // which reads as removed; its events leave the index. One Scan of the
  // table (billed on all of it) and a PutItem per chunk changed. Returns
  // the events dropped.
  Result<std::uint64_t> DropInline(const std::map<std::string, std::int64_t>& floors);

  const std::string& table() const { return table_; }
  const std::string& events_table() const { return events_table_; }
  // The tag index in events_table (tag_index.h), read with this client.
  TagIndex tags() const;

 private:
  // The chunk whose key is the greatest <= position in `block`.
  Result<std::optional<Chunk>> LastChunkAtOrBefore(std::int64_t block, std::int64_t position);
  // The events of `chunks` at positions [from, through], references resolved.
  Result<std::vector<RecordedEvent>> Resolve(const std::vector<Chunk>& chunks, std::int64_t from,
                                             std::int64_t through,
                                             const AllFilter* streams = nullptr);

  aws::Client& client_;
  std::string table_;
  std::string events_table_;
};

}  // namespace indelible::dynamodb
