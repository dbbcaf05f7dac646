// Scavenging on the embedded engine (docs/FORMAT.md, "Scavenged events"):
// removes the events below each cut from the log with their id and tag
// entries, trims the stream's append entries to what is left, then
// compacts so RocksDB drops the bytes from its files.
//
// Each batch is atomic and leaves the folder consistent: the events it
// removes, the append entries re-keyed to the first kept version, the
// stream's "scavenged/" record and the store's totals go together, so a
// crash between batches leaves a scavenge half done, never a stream half
// indexed. It writes beside the group-commit leader, as the id indexer
// does: the leader only adds entries at new versions and never rewrites an
// old one, and a stream's last event (its head) is never removed.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/text.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {
namespace {

// Events removed per batch: bounds a batch's memory and how long it holds
// RocksDB's write path from the commits.
constexpr std::int64_t kBatchEvents = 1024;

std::uint64_t FolderBytes(const std::string& path) {
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code size_ec;
    if (it->is_regular_file(size_ec)) {
      const auto size = it->file_size(size_ec);
      if (!size_ec) bytes += size;
    }
  }
  return bytes;
}

}  // namespace

Result<ScavengeReport> EmbeddedStore::RemoveEvents(const std::vector<ScavengeCut>& cuts,
                                                   const ProgressFn& progress, Compaction compact) {
  if (follower()) return Status::Invalid("store", "this store was opened as a read-only follower");
  if (Status s = WriteHealth(); !s.ok()) return s;
  MutexLock scavenging(&scavenge_mu_);
  ScavengeReport report;
  report.disk_bytes_before = FolderBytes(db_->GetName());

  // Events past the id index's progress may still get their id entry
  // (id_indexer.h): they stay until the next scavenge. The indexer writes
  // every 50 ms; waiting for it a moment lets the newest hidden events go.
  const Position target = LastPosition();
  for (int wait = 0; wait < 100 && indexer_->indexed() < target; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const Position indexed = indexer_->indexed();
  std::string value;
  ScavengeTotals totals;
  if (rocksdb::Status s = db_->Get({}, families_[0], ToSlice(kScavengeTotalsKey), &value); s.ok()) {
    auto decoded = DecodeScavengeTotals(value);
    if (!decoded)
      return Status::Internal(
          "the scavenge totals record fails its checksum (run `indelible "
          "check`)");
    totals = *decoded;
  }

  std::uint64_t done = 0;
  for (const ScavengeCut& cut : cuts) {
    auto removed = RemoveStreamEvents(cut, indexed, &totals);
    if (!removed.ok()) return removed.status();
    if (removed->events > 0) ++report.streams;
    report.events += removed->events;
    report.bytes += removed->bytes;
    if (progress) progress(++done, cuts.size());
  }

  // Compacts when removals (these, or an erasure's before) are not yet,
  // or when asked to whatever the totals say (deleted records).
  const bool compacting =
      compact == Compaction::kAlways ||
      (compact == Compaction::kIfRemoved && totals.events > totals.compacted_events);
  if (compacting) totals.compacted_events = totals.events;
  if (report.events > 0 || compacting) {
    // Through a group commit: its sync covers the batches above, and the
    // readers' view moves past them, so no snapshot of ours keeps the
    // removed values alive through the compaction below. (Written before
    // the compaction: a crash in it leaves the bytes to RocksDB's own
    // compactions, which drop them in time.)
    const std::string totals_record = EncodeScavengeTotals(totals);
    if (Status s = WriteCheckpoint(std::string(kScavengeTotalsKey), &totals_record); !s.ok())
      return s;
  }
  if (compacting) {
    rocksdb::FlushOptions flush;
    flush.wait = true;
    if (rocksdb::Status s = db_->Flush(flush, families_); !s.ok())
      return FromRocks(s, "flushing after a scavenge");
    rocksdb::CompactRangeOptions whole;
    whole.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    for (rocksdb::ColumnFamilyHandle* family : families_) {
      if (rocksdb::Status s = db_->CompactRange(whole, family, nullptr, nullptr); !s.ok())
        return FromRocks(s, "compacting after a scavenge");
    }
  }
  report.disk_bytes_after = FolderBytes(db_->GetName());
  return report;
}

// One batch per round, of the stream's first entries up to kBatchEvents
// events; rounds go on until one removes nothing (the next entry starts at
// the cut, is the stream's last event, or is past the id index).
Result<EmbeddedStore::Removed> EmbeddedStore::RemoveStreamEvents(const ScavengeCut& cut,
                                                                 Position indexed,
                                                                 ScavengeTotals* totals) {
  Removed removed;
  const std::string& stream = cut.stream;
  const std::string lower = StreamKeyPrefix(stream);
  const std::string upper = StreamEndKey(stream);
  const rocksdb::Slice lower_slice(lower), upper_slice(upper);
  rocksdb::ColumnFamilyHandle* const tags_family = tags();
  std::vector<std::string> tags;
  std::string record;
  for (;;) {
    rocksdb::WriteBatch batch;
    std::int64_t round_events = 0;
    std::uint64_t round_bytes = 0;
    std::int64_t floor = 0;
    // The latest data: the leader never rewrites the entries below a
    // stream's head, and only this scavenge (scavenge_mu_) removes any.
    rocksdb::ReadOptions read;
    read.iterate_lower_bound = &lower_slice;
    read.iterate_upper_bound = &upper_slice;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, appends()));
    for (it->Seek(lower_slice); it->Valid() && round_events < kBatchEvents;) {
      const std::string key = it->key().ToString();
      const std::size_t entry_bytes = key.size() + it->value().size();
      std::string_view name;
      std::int64_t first = 0;
      auto entry = DecodeStreamVersionKey(key, &name, &first)
                       ? DecodeAppendEntry(key, ToView(it->value()), true)
                       : std::nullopt;
      if (!entry || name != stream)
        return Status::Internal(fmt::format(
            "stream '{}': an index entry is corrupt (run `indelible check`)", Printable(stream)));
      it->Next();
      const bool last_entry = !it->Valid();
      const std::int64_t end = first + entry->count;
      std::int64_t to =
          std::min<std::int64_t>({end, cut.before.value(), first + (kBatchEvents - round_events)});
      if (last_entry) to = std::min(to, end - 1);  // the stream's last event stays
      // Only events the id index has passed: their entries are there to go.
      to = std::min(to, first + static_cast<std::int64_t>(indexed.value()) -
                            static_cast<std::int64_t>(entry->first_position.value()) + 1);
      if (to <= first) break;

      for (std::int64_t v = first; v < to; ++v) {
        const Position position(entry->first_position.value() +
                                static_cast<std::uint64_t>(v - first));
        const std::string log_key = PositionKey(position);
        rocksdb::Status got = db_->Get({}, log(), ToSlice(log_key), &record);
        if (!got.ok())
          return got.IsNotFound()
                     ? Status::Internal(fmt::format("stream '{}' version {}: its event is missing "
                                                    "from the log (run `indelible check`)",
                                                    Printable(stream), v))
                     : FromRocks(got, "reading an event to scavenge");
        EventView view;
        if (std::string why = DecodeEvent(log_key, record, false, &view, &tags); !why.empty())
          return Status::Internal(fmt::format("event at position {}: {}", position.value(), why));
        batch.Delete(log(), ToSlice(log_key));
        batch.Delete(event_ids(), ToSlice(IdKey(view.id)));
        round_bytes += log_key.size() + record.size() + 16 + 12;  // the event, its id entry
        for (const std::string& tag : tags) {
          const std::string tag_key = TagKey(tag, position);
          if (tags_family != nullptr) batch.Delete(tags_family, ToSlice(tag_key));
          round_bytes += tag_key.size() + 4 + view.type.size();
        }
      }
      const std::uint64_t count = static_cast<std::uint64_t>(to - first);
      batch.Delete(appends(), ToSlice(key));
      round_bytes += entry_bytes;
      if (to < end) {  // the rest of the append, keyed by its first kept version
        AppendEntry rest = *entry;
        rest.first_position = Position(entry->first_position.value() + count);
        rest.count = static_cast<std::uint32_t>(entry->count - count);
        const std::string rest_key = StreamVersionKey(stream, to);
        batch.Put(appends(), ToSlice(rest_key), ToSlice(EncodeAppendEntry(rest_key, rest)));
      }
      round_events += static_cast<std::int64_t>(count);
      floor = to;
      if (to < end) break;
    }
    if (!it->status().ok()) return FromRocks(it->status(), "reading a stream's index");
    if (round_events == 0) return removed;
    const std::string floor_key = ScavengedKey(stream);
    batch.Put(families_[0], ToSlice(floor_key),
              ToSlice(EncodeScavenged(floor_key, StreamVersion(floor))));
    totals->events += static_cast<std::uint64_t>(round_events);
    totals->bytes += round_bytes;
    batch.Put(families_[0], ToSlice(kScavengeTotalsKey), ToSlice(EncodeScavengeTotals(*totals)));
    if (rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch); !s.ok())
      return FromRocks(s, "writing a scavenge batch");
    removed.events += static_cast<std::uint64_t>(round_events);
    removed.bytes += round_bytes;
  }
}

}  // namespace indelible::storage::embedded
