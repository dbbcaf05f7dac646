// DurableHeads: the heads readers see, by stream, so that `Head` is a hash
// lookup and not an iterator over the stream index (format 2 keeps no head
// record: a head is the stream's last append entry, found by SeekForPrev,
// which cost /head about 16 % of its rate against format 1's point read).
//
// Readers read a published snapshot (the durable view), and the cache must
// never answer a head newer or older than that snapshot holds. Each entry
// carries the sequence number from which it is the stream's head:
//  - the sync stage calls Publish with the heads of the groups a sync made
//    durable *before* it publishes their snapshot, and always overwrites;
//  - a reader that missed reads the head from its snapshot and Remembers it
//    under its snapshot's sequence, only if no entry exists (a Publish may
//    have put a newer one there meanwhile);
//  - Find answers only when the entry's sequence is at or below the
//    reader's: a publish newer than the reader's snapshot is not its head.
// A shard that grows past its bound is cleared; its floor then rises to the
// newest sequence it forgot, and a reader whose snapshot is older may not
// Remember into it (its head may predate a publish the clear forgot).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/mutex.h"
#include "store/decide.h"

namespace indelible::storage::embedded {

class DurableHeads {
 public:
  using Sequence = std::uint64_t;
  using Heads = std::vector<std::pair<std::string, StreamHead>>;

  explicit DurableHeads(std::size_t max_entries);

  // The heads a sync made durable, in commit order (a later one for the same
  // stream wins), which readers see from the snapshot of sequence `sequence`
  // on. Called by one thread at a time, before that snapshot is published.
  void Publish(const Heads& heads, Sequence sequence);

  // The head of `stream` in the snapshot of sequence `sequence`, when known.
  std::optional<StreamHead> Find(std::string_view stream, Sequence sequence) const;

  // A head read from the snapshot of sequence `sequence`.
  void Remember(std::string_view stream, const StreamHead& head, Sequence sequence);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Entry {
    StreamHead head;
    Sequence since = 0;
  };
  struct Shard {
    mutable Mutex mu;
    std::unordered_map<std::string, Entry, Hash, std::equal_to<>> entries GUARDED_BY(mu);
    Sequence floor GUARDED_BY(mu) = 0;
  };
  static constexpr std::size_t kShards = 16;

  static void Clear(Shard& shard, Sequence sequence) REQUIRES(shard.mu);

  Shard& ShardOf(std::string_view stream) const { return shards_[Hash{}(stream) % kShards]; }

  const std::size_t max_per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace indelible::storage::embedded
