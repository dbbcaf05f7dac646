// Opening and closing an EmbeddedStore: the folder's families and their
// RocksDB options, the format marker (and the upgrades it calls for), the
// id index's progress, and a clean close.
#include <fmt/format.h>
#include <rocksdb/file_system.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"
#include "storage/embedded/format_v1.h"
#include "storage/embedded/log_files.h"

namespace indelible::storage::embedded {

namespace {

rocksdb::ColumnFamilyOptions FamilyOptions(const std::shared_ptr<rocksdb::Cache>& cache,
                                           std::size_t write_buffer, bool point_lookups = false,
                                           std::size_t hash_buckets = 0) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  // Partitioned indexes and filters: a whole-file filter or index block of a
  // large SST (megabytes at 10M events) outgrows a cache shard, is evicted
  // as soon as it is used, and was read and checksummed again on every id
  // lookup: the 10M-event fill spent 85% of its time doing that (perf:
  // XXH3 and pread copies). Partitions are small blocks the cache keeps;
  // only the small top level stays pinned.
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.pin_top_level_index_and_filter = true;
  table.format_version = 5;
  // Scans dominate reads of the log and the stream index: bigger blocks mean
  // fewer block-cache lookups and decompressions per event.
  table.block_size = 16 * 1024;
  if (point_lookups) {
    // Ids (and format 1's heads) are only ever looked up by exact key, and
    // most id lookups miss (a new event): bloom filters, the memtable's
    // included, answer those without a search or a block read. With
    // `hash_buckets`, a hash memtable keyed by the whole key, which inserts
    // random keys in O(1) but is sorted at every flush. Full scans (check)
    // need total_order_seek.
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    table.partition_filters = true;
    cf.prefix_extractor.reset(rocksdb::NewNoopTransform());
    if (hash_buckets > 0)
      cf.memtable_factory.reset(rocksdb::NewHashSkipListRepFactory(hash_buckets));
    cf.memtable_prefix_bloom_size_ratio = 0.1;
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  cf.write_buffer_size = write_buffer;
  cf.max_write_buffer_number = 3;
  cf.level_compaction_dynamic_level_bytes = true;
  // Fresh data (read most, by subscribers catching up) stays uncompressed;
  // older levels, most of the bytes, get LZ4: JSON events shrink 2-4x.
  cf.compression_per_level = {rocksdb::kNoCompression,  rocksdb::kNoCompression,
                              rocksdb::kLZ4Compression, rocksdb::kLZ4Compression,
                              rocksdb::kLZ4Compression, rocksdb::kLZ4Compression,
                              rocksdb::kLZ4Compression};
  return cf;
}

// A follower (read-only) cannot upgrade a format 1 folder.
Status NeedsUpgrade(const std::string& path) {
  return Status::Invalid(
      "data", fmt::format("data folder '{}' is in format 1; upgrade it first with `indelible "
                          "--data {} upgrade` (opening it for writing upgrades it too)",
                          path, path));
}

// Makes `path` and its missing parents through `fs`, each new folder's
// entry made durable by an fsync of the folder that holds it: RocksDB syncs
// the files it makes inside the folder and the folder itself, never the
// folder's parent, so without this a power cut soon after the first
// acknowledged append could take the whole new folder with it (ext4 keeps
// a new directory entry only once its parent is synced; found by the power
// cut layer, tests/power_loss).
Status CreateFolderDurably(rocksdb::FileSystem& fs, const std::string& path) {
  const std::filesystem::path target = std::filesystem::absolute(path).lexically_normal();
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path at = target; !at.empty() && !std::filesystem::exists(at, ec);
       at = at.parent_path()) {
    missing.push_back(at);
    if (at == at.parent_path()) break;
  }
  const rocksdb::IOOptions io;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const std::string folder = it->string();
    const std::string parent = it->parent_path().string();
    auto fail = [&](const rocksdb::IOStatus& s) {
      return Status::Unavailable(
          fmt::format("cannot create data folder '{}': {}", folder, s.ToString()));
    };
    if (rocksdb::IOStatus s = fs.CreateDirIfMissing(folder, io, nullptr); !s.ok()) return fail(s);
    std::unique_ptr<rocksdb::FSDirectory> holder;
    if (rocksdb::IOStatus s = fs.NewDirectory(parent, io, &holder, nullptr); !s.ok())
      return fail(s);
    if (rocksdb::IOStatus s = holder->Fsync(io, nullptr); !s.ok()) return fail(s);
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<Store>> EmbeddedStore::Open(const std::string& path,
                                                   const StoreOptions& options, rocksdb::Env* env,
                                                   const ProgressFn& upgrade_progress) {
  std::error_code ec;
  if (!options.create_if_missing && !std::filesystem::exists(path, ec))
    return Status::NotFound(fmt::format("data folder '{}' does not exist", path));
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec))
    return Status::Invalid("data", fmt::format("'{}' is not a folder", path));
  // RocksDB creates only the last folder of the path; make the parents too,
  // so `--store file:/var/lib/app/events` works on a fresh machine.
  if (options.create_if_missing && !options.follower) {
    auto fs = env != nullptr ? env->GetFileSystem() : rocksdb::FileSystem::Default();
    if (Status s = CreateFolderDurably(*fs, path); !s.ok()) return s;
  }

  rocksdb::DBOptions db_options;
  // WAL files sized ahead for the writer, read to their last whole record
  // by a follower (log_files.h).
  std::unique_ptr<rocksdb::Env> files = options.follower ? NewFollowerEnv(env) : NewWriterEnv(env);
  db_options.env = files.get();
  db_options.create_if_missing = options.create_if_missing;
  db_options.create_missing_column_families = true;
  db_options.max_background_jobs = 2;
  // Bounds memtable memory across all families (the 10M-event bench keeps
  // resident memory under 512 MiB with this).
  db_options.db_write_buffer_size = 192 * 1024 * 1024;
  db_options.max_open_files = 1024;
  db_options.max_log_file_size = 8 * 1024 * 1024;
  db_options.keep_log_file_num = 3;
  db_options.max_total_wal_size = 256 * 1024 * 1024;
  // Our group-commit leader is RocksDB's only writer, so concurrent memtable
  // writes buy nothing, and the hash memtables of heads and ids need it off.
  db_options.allow_concurrent_memtable_write = false;

  auto cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {
      {rocksdb::kDefaultColumnFamilyName, FamilyOptions(cache, 4 << 20)},
      {kLogFamily, FamilyOptions(cache, 64 << 20)},
      // Heads are SeekForPrev to a stream's last entry: ordered, so a
      // skiplist memtable and no bloom filter.
      {kAppendsFamily, FamilyOptions(cache, 32 << 20)},
      // Ids are written by the indexer (id_indexer.h), off the commit path
      // but through the same RocksDB write path, so a commit's write waits
      // while an indexer's batch goes into the memtable: a hash memtable
      // (about 1 us per id) holds it back less than a skiplist (2.4 us),
      // which would spare the flush its sort (measured: 156 k against
      // 141 k events/s of 100-event appends, total CPU 6.9 against 6.2 us
      // per event; docs/BENCHMARKS.md, "Format 3").
      {kEventIdsFamily, FamilyOptions(cache, 32 << 20, true, 256 * 1024)},
      // Tag entries are read in key order (a tag's events by position):
      // a skiplist memtable.
      {kTagsFamily, FamilyOptions(cache, 16 << 20)},
  };
  // Format 1's families, when the folder still has them (an upgrade to do,
  // or one stopped after its marker flip): opened with the options they
  // were written with, then upgraded from and dropped.
  std::vector<std::string> existing;
  if (std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec))
    (void)rocksdb::DB::ListColumnFamilies(db_options, path, &existing);
  auto has = [&](const char* name) {
    return std::find(existing.begin(), existing.end(), name) != existing.end();
  };
  if (options.follower && has(v1::kStreamsFamily) && !has(kAppendsFamily))
    return NeedsUpgrade(path);
  // A follower cannot make a family: a folder of format 3 that no writer
  // opened since has no `tags`, and no tagged events either.
  if (options.follower && !existing.empty() && !has(kTagsFamily)) families.pop_back();
  const std::size_t current_families = families.size();
  if (has(v1::kStreamsFamily) || has(v1::kHeadsFamily) || has(v1::kIdsFamily)) {
    families.push_back({v1::kStreamsFamily, FamilyOptions(cache, 32 << 20)});
    families.push_back({v1::kHeadsFamily, FamilyOptions(cache, 16 << 20, true, 64 * 1024)});
    families.push_back({v1::kIdsFamily, FamilyOptions(cache, 32 << 20, true, 256 * 1024)});
  }

  std::unique_ptr<EmbeddedStore> store(new EmbeddedStore(options));
  store->files_ = std::move(files);
  rocksdb::Status s;
  if (options.follower) {
    if (!std::filesystem::exists(path, ec))
      return Status::NotFound(fmt::format("data folder '{}' does not exist", path));
    // A secondary instance keeps its own info log; it lives in a temporary
    // folder removed on close.
    std::string secondary =
        (std::filesystem::temp_directory_path() / "indelible-follower-XXXXXX").string();
    if (::mkdtemp(secondary.data()) == nullptr)
      return Status::Unavailable("cannot create a temporary folder for a follower");
    store->secondary_path_ = secondary;
    db_options.max_open_files = -1;  // required by secondary instances
    s = rocksdb::DB::OpenAsSecondary(db_options, path, secondary, families, &store->families_,
                                     &store->db_);
  } else {
    s = rocksdb::DB::Open(db_options, path, families, &store->families_, &store->db_);
  }
  if (!s.ok()) {
    if (s.IsIOError() && s.ToString().find("lock") != std::string::npos)
      return Status::Unavailable(fmt::format(
          "data folder '{}' is in use by another process (or store); close it first", path));
    return FromRocks(s, fmt::format("opening data folder '{}'", path));
  }

  std::vector<rocksdb::ColumnFamilyHandle*> v1_families(
      store->families_.begin() + static_cast<std::ptrdiff_t>(current_families),
      store->families_.end());
  store->families_.resize(current_families);
  if (options.follower) {  // a reader only; the writer upgrades and drops them
    for (auto* family : v1_families) (void)store->db_->DestroyColumnFamilyHandle(family);
    v1_families.clear();
  }

  // The format marker: written once into an empty store, checked ever after.
  std::string format;
  s = store->db_->Get(rocksdb::ReadOptions(), store->families_[0], ToSlice(kFormatKey), &format);
  auto last = store->ReadLastPosition();
  if (!last.ok()) return last.status();
  if (s.IsNotFound()) {
    if (last->value() > 0)
      return Status::Internal(
          fmt::format("data folder '{}' has events but no format marker", path));
    if (!options.follower)
      if (Status flipped = store->FlipFormat(); !flipped.ok()) return flipped;
  } else if (!s.ok()) {
    return FromRocks(s, "reading the format marker");
  } else if (format == v1::kFormatValue) {
    if (options.follower) return NeedsUpgrade(path);
    if (Status up = store->UpgradeFromV1(std::move(v1_families), upgrade_progress, families);
        !up.ok())
      return up;
  } else if (format != kFormatValue && format != kFormatValueV3 && format != kFormatValueV2) {
    return Status::Invalid("data", fmt::format("data folder '{}' has format '{}'; this build "
                                               "reads '{}' and upgrades '{}', '{}' and '{}'",
                                               path, format, kFormatValue, kFormatValueV3,
                                               kFormatValueV2, v1::kFormatValue));
  } else {
    // An upgrade from format 1 that stopped after flipping the marker:
    // finish it.
    if (!v1_families.empty())
      if (Status dropped = store->DropFamilies(std::move(v1_families)); !dropped.ok())
        return dropped;
    // Format 2's id index is whole (written with each commit), and its
    // records are format 3's: the flip is the upgrade. A follower reads
    // either as it is.
    if (format == kFormatValueV2 && !options.follower)
      if (Status flipped = store->FlipFormat(); !flipped.ok()) return flipped;
    // Format 3's records are format 4's without tags, and its `tags`
    // family, just made, is empty, as it should be: the marker is the
    // upgrade, so an older build refuses the folder once it may hold tags.
    if (format == kFormatValueV3 && !options.follower)
      if (Status marked = store->WriteFormatMarker(); !marked.ok()) return marked;
  }
  if (!options.follower) {
    // Index what the last run synced and did not index (id_indexer.h).
    std::string value;
    s = store->db_->Get(rocksdb::ReadOptions(), store->families_[0], ToSlice(kIdsIndexedKey),
                        &value);
    if (!s.ok() && !s.IsNotFound()) return FromRocks(s, "reading the id index's progress");
    auto indexed = s.ok() ? DecodeIdsIndexed(value) : std::nullopt;
    if (!indexed)
      return Status::Internal(fmt::format(
          "data folder '{}' lacks a sound id index progress record (run `indelible check`)", path));
    auto through = IdIndexer::IndexFromLog(store->db_, store->families_[0], store->log(),
                                           store->event_ids(), *indexed);
    if (!through.ok()) return through.status();
    store->indexer_ =
        std::make_unique<IdIndexer>(store->db_, store->families_[0], store->event_ids(), *through);
  }
  // Open time does not depend on the number of events: the last position is
  // the last key of the log, one seek.
  store->last_position_ = last->value();
  store->next_position_ = store->last_position_ + 1;
  // Everything RocksDB recovered is in its log (and the format marker was
  // written with a sync): the store starts durable.
  if (store->pipelined()) {
    MutexLock lock(&store->view_mu_);  // not shared yet: uncontended, for the analysis
    store->durable_view_ = store->NewSnapshot();
  }

  if (options.durability == Durability::kInterval)
    store->sync_thread_ = std::thread([raw = store.get()] { raw->SyncLoop(); });
  if (store->pipelined())
    store->sync_stage_ = std::thread([raw = store.get()] { raw->SyncStage(); });
  return std::unique_ptr<Store>(std::move(store));
}

EmbeddedStore::~EmbeddedStore() {
  // No commit is being queued now (the store outlives its callers), but
  // asynchronous ones may still wait for their sync: the stage ends once
  // every one of them has its result.
  if (sync_stage_.joinable()) {
    stop_sync_stage_.store(true);
    async_written_.NotifyAll();
    sync_stage_.join();
  }
  // Every sync is done: index what they made durable, so that a clean
  // reopen has nothing to index.
  if (indexer_) indexer_->Stop();
  // An upgrade that failed between dropping and making a family again left
  // no handle for it.
  std::erase(families_, nullptr);
  if (sync_thread_.joinable()) {
    {
      MutexLock lock(&sync_mu_);
      stopping_ = true;
    }
    sync_cv_.SignalAll();
    sync_thread_.join();
  }
  if (db_ != nullptr && options_.follower) {
    for (auto* family : families_) (void)db_->DestroyColumnFamilyHandle(family);
    (void)db_->Close();
    delete db_;
    db_ = nullptr;
    std::error_code ec;
    std::filesystem::remove_all(secondary_path_, ec);
  }
  // Snapshots must be released before the database closes; every cursor
  // (which holds a view) is gone by now.
  durable_view_.reset();
  unsynced_.view.reset();
  if (db_ != nullptr) {
    if (options_.durability == Durability::kInterval && !sync_failed_.load()) (void)db_->SyncWAL();
    // RocksDB keeps memtables in its write-ahead log on close; the next open
    // would replay up to db_write_buffer_size of it. Flushing now keeps a
    // clean reopen fast (a crash still replays, bounded by that size).
    rocksdb::FlushOptions flush;
    flush.allow_write_stall = true;
    (void)db_->Flush(flush, families_);
    for (auto* family : families_) (void)db_->DestroyColumnFamilyHandle(family);
    (void)db_->Close();
    delete db_;
  }
}

}  // namespace indelible::storage::embedded
