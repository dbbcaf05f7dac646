#include "storage/embedded/durable_heads.h"

#include <algorithm>

namespace indelible::storage::embedded {

DurableHeads::DurableHeads(std::size_t max_entries)
    : max_per_shard_(std::max<std::size_t>(1, max_entries / kShards)) {}

// Forgets a full shard. Its floor rises to every sequence it forgot and to
// `sequence`: a reader whose snapshot is older may have read a head that a
// forgotten entry had replaced, and must not Remember it.
void DurableHeads::Clear(Shard& shard, Sequence sequence) {
  Sequence floor = std::max(shard.floor, sequence);
  for (const auto& [stream, entry] : shard.entries) floor = std::max(floor, entry.since);
  shard.entries.clear();
  shard.floor = floor;
}

void DurableHeads::Publish(const Heads& heads, Sequence sequence) {
  for (const auto& [stream, head] : heads) {
    Shard& shard = ShardOf(stream);
    MutexLock lock(&shard.mu);
    auto it = shard.entries.find(std::string_view(stream));
    if (it != shard.entries.end()) {
      it->second = Entry{head, sequence};
      continue;
    }
    if (shard.entries.size() >= max_per_shard_) Clear(shard, sequence);
    shard.entries.emplace(stream, Entry{head, sequence});
  }
}

std::optional<StreamHead> DurableHeads::Find(std::string_view stream, Sequence sequence) const {
  const Shard& shard = ShardOf(stream);
  MutexLock lock(&shard.mu);
  auto it = shard.entries.find(stream);
  if (it == shard.entries.end() || it->second.since > sequence) return std::nullopt;
  return it->second.head;
}

void DurableHeads::Remember(std::string_view stream, const StreamHead& head, Sequence sequence) {
  Shard& shard = ShardOf(stream);
  MutexLock lock(&shard.mu);
  if (sequence < shard.floor || shard.entries.find(stream) != shard.entries.end()) return;
  if (shard.entries.size() >= max_per_shard_) {
    Clear(shard, sequence);
    if (sequence < shard.floor) return;  // it forgot a head newer than this one
  }
  shard.entries.emplace(std::string(stream), Entry{head, sequence});
}

}  // namespace indelible::storage::embedded
