// Format 1 -> 3 and 2 -> 3, in place, when a writer opens an older folder
// (`indelible upgrade` runs the same with progress). docs/FORMAT.md,
// "Upgrading".
//
// The log is the same in every format; only the indexes change. Format 2
// and 3 have the same families (3 writes the id index behind the syncs and
// records how far it got), so 2 -> 3 is the flip alone. From format 1 the
// new families are built beside format 1's from a scan of them, and the
// format marker flips in a synced write after everything it depends on, so
// a crash at any point leaves either a format 1 folder (with a half-built
// index that the next attempt clears) or a format 3 folder (whose leftover
// format 1 families the next open drops). No reader or writer runs during
// it: it happens inside Open.
#include <fmt/format.h>
#include <rocksdb/write_batch.h>

#include <cstring>

#include "core/text.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"
#include "storage/embedded/format_v1.h"

namespace indelible::storage::embedded {
namespace {

// Records per WriteBatch: big enough that the batch overhead vanishes,
// small enough to keep memory flat.
constexpr std::size_t kBatchRecords = 4096;

Status Corrupt(std::string_view what) {
  return Status::Internal(fmt::format(
      "cannot upgrade: {} (run `indelible check` on the folder; it is still in format 1, "
      "unchanged)",
      what));
}

}  // namespace

Status EmbeddedStore::DropFamilies(std::vector<rocksdb::ColumnFamilyHandle*> families) {
  Status result;
  for (auto* family : families) {
    rocksdb::Status s = db_->DropColumnFamily(family);
    if (!s.ok() && result.ok()) result = FromRocks(s, "dropping format 1's index families");
    (void)db_->DestroyColumnFamilyHandle(family);
  }
  return result;
}

Status EmbeddedStore::FlipFormat() {
  auto last = ReadLastPosition();
  if (!last.ok()) return last.status();
  rocksdb::WriteBatch batch;
  batch.Put(families_[0], ToSlice(kIdsIndexedKey), EncodeIdsIndexed(*last));
  batch.Put(families_[0], ToSlice(kFormatKey), ToSlice(kFormatValue));
  rocksdb::WriteOptions sync;
  sync.sync = true;
  return FromRocks(db_->Write(sync, &batch),
                   fmt::format("writing the format marker '{}'", kFormatValue));
}

Status EmbeddedStore::WriteFormatMarker() {
  rocksdb::WriteBatch batch;
  batch.Put(families_[0], ToSlice(kFormatKey), ToSlice(kFormatValue));
  rocksdb::WriteOptions sync;
  sync.sync = true;
  return FromRocks(db_->Write(sync, &batch),
                   fmt::format("writing the format marker '{}'", kFormatValue));
}

Status EmbeddedStore::UpgradeFromV1(std::vector<rocksdb::ColumnFamilyHandle*> v1,
                                    const ProgressFn& progress,
                                    const std::vector<rocksdb::ColumnFamilyDescriptor>& families) {
  // The handles are released on every path (dropped only on success).
  struct Release {
    rocksdb::DB* db;
    std::vector<rocksdb::ColumnFamilyHandle*>* handles;
    ~Release() {
      for (auto* h : *handles) (void)db->DestroyColumnFamilyHandle(h);
    }
  } release{db_, &v1};
  if (v1.size() != 3) return Corrupt("the folder says format 1 but lacks its index families");
  rocksdb::ColumnFamilyHandle* old_streams = v1[0];
  rocksdb::ColumnFamilyHandle* old_ids = v1[2];

  // 1. A format 2 index from an attempt that stopped before its flip is
  //    cleared: dropped and made again, empty.
  for (std::size_t i : {std::size_t{2}, std::size_t{3}}) {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), families_[i]));
    it->SeekToFirst();
    if (!it->Valid()) continue;
    it.reset();
    const std::string name = families_[i]->GetName();
    rocksdb::Status s = db_->DropColumnFamily(families_[i]);
    (void)db_->DestroyColumnFamilyHandle(families_[i]);
    families_[i] = nullptr;
    if (s.ok()) s = db_->CreateColumnFamily(families[i].options, name, &families_[i]);
    if (!s.ok()) return FromRocks(s, "clearing a half-built format 2 index");
  }

  auto last = ReadLastPosition();  // (Open sets last_position_ after this)
  if (!last.ok()) return last.status();
  const std::uint64_t events = last->value();
  const std::uint64_t total = std::max<std::uint64_t>(events * 2, 1);
  std::uint64_t done = 0;
  rocksdb::WriteBatch batch;
  auto flush = [&]() -> Status {
    if (batch.Count() == 0) return Status::Ok();
    rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch);
    batch.Clear();
    if (progress) progress(done, total);
    return FromRocks(s, "writing the format 2 index");
  };

  // 2. The stream index: one entry per append. Format 1 has one per event,
  //    whose `run` counts down to 1 across an append; an append starts
  //    where the previous run ended. The head fields a format 2 entry
  //    carries are replayed append by append as the engine decides them
  //    (decide.cc, Advance): a tombstone is an append of one `$deleted`
  //    event, and the next append starts a new life.
  rocksdb::ReadOptions scan;
  scan.readahead_size = 4 * 1024 * 1024;
  scan.total_order_seek = true;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(scan, old_streams));
  std::string stream;
  std::int64_t next_version = 0;
  std::uint32_t run_left = 0;
  StreamVersion life_first(0);
  bool deleted = false;
  std::string record;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string_view name;
    std::int64_t version = 0;
    if (!DecodeStreamVersionKey(ToView(it->key()), &name, &version))
      return Corrupt("a format 1 stream index key is malformed");
    auto entry = v1::DecodeStreamEntry(ToView(it->key()), ToView(it->value()), true);
    if (!entry)
      return Corrupt(fmt::format("stream '{}' version {}: its index entry fails its checksum",
                                 Printable(name), version));
    if (name != stream) {
      stream = std::string(name);
      next_version = 0;
      run_left = 0;
      life_first = StreamVersion(0);
      deleted = false;
    }
    if (version != next_version)
      return Corrupt(fmt::format("stream '{}' jumps from version {} to {}", Printable(name),
                                 next_version - 1, version));
    next_version = version + 1;
    ++done;
    if (run_left > 0) {
      if (entry->run != run_left)
        return Corrupt(fmt::format("stream '{}' version {}: its run does not continue the append's",
                                   Printable(name), version));
      --run_left;
      continue;
    }
    bool tombstone = false;
    if (entry->run == 1) {
      const std::string key = PositionKey(entry->position);
      rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), log(), ToSlice(key), &record);
      if (!s.ok()) return FromRocks(s, "reading an event of the log");
      EventView event;
      if (std::string why = DecodeEvent(key, record, true, &event); !why.empty())
        return Corrupt(fmt::format("event at position {}: {}", entry->position.value(), why));
      tombstone = event.type == kDeletedEventType;
    }
    if (version > 0 && deleted) life_first = StreamVersion(version);
    deleted = tombstone;
    const std::string key = StreamVersionKey(stream, version);
    batch.Put(
        appends(), key,
        EncodeAppendEntry(key, AppendEntry{entry->position, entry->run, life_first, deleted}));
    run_left = entry->run - 1;
    if (batch.Count() >= kBatchRecords)
      if (Status s = flush(); !s.ok()) return s;
  }
  if (!it->status().ok()) return FromRocks(it->status(), "reading format 1's stream index");

  // 3. The id index: the same keys, the position only.
  it.reset(db_->NewIterator(scan, old_ids));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = ToView(it->key());
    auto stored = v1::DecodeId(key, ToView(it->value()), true);
    if (key.size() != 16 || !stored) return Corrupt("a format 1 id record fails its checksum");
    std::array<std::uint8_t, 16> bytes;
    std::memcpy(bytes.data(), key.data(), 16);
    batch.Put(event_ids(), it->key(), EncodeEventId(EventId(bytes), stored->position));
    ++done;
    if (batch.Count() >= kBatchRecords)
      if (Status s = flush(); !s.ok()) return s;
  }
  if (!it->status().ok()) return FromRocks(it->status(), "reading format 1's id index");
  it.reset();
  if (Status s = flush(); !s.ok()) return s;

  // 4. The flip: a synced write, so the log holds everything above before
  //    it (RocksDB recovers a prefix of its log), then the old families go.
  //    The id index is whole, so its progress record says the log's end.
  if (Status s = FlipFormat(); !s.ok()) return s;
  std::vector<rocksdb::ColumnFamilyHandle*> old = std::move(v1);
  v1.clear();
  if (progress) progress(total, total);
  return DropFamilies(std::move(old));
}

}  // namespace indelible::storage::embedded
