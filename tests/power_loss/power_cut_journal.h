// PowerCutJournal: what a PowerCutFileSystem (power_cut_fs.h) knows about
// durability, and the cut that turns the real files into what a power loss
// would leave. The file system's wrappers report every change to it; only
// they and the tests of the layer should call it.
//
// Model (POSIX, as fsync(2) and rename(2) promise it, nothing more):
//   - A file's bytes are durable up to the size it had when its last
//     Sync/Fsync began. RangeSync is sync_file_range(2) on Linux, which
//     promises nothing after a crash, so it counts for nothing; Flush is a
//     hand-over to the kernel and counts for nothing either.
//   - A directory entry (create, rename, link, delete, mkdir) is durable once
//     every directory it touches has been fsynced after it; a file's own
//     fsync does not make its name durable.
//
// Concurrency: thread-safe; every member takes mu_. Cut holds it while it
// rewrites the disk, which is safe because the power is off by then and
// SetActive(false) has waited for every operation in flight.
#pragma once

#include <rocksdb/file_system.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/mutex.h"

namespace indelible::power_loss {

// What a cut does to each file's unsynced tail (the bytes written after the
// size its last sync covered).
enum class CutMode {
  kDrop,  // Gone: the file ends where its last sync ended.
  kTear,  // A random-length prefix stays, possibly ending mid-write.
  // All of it stays, but a random span of it reads as zeros: sectors the
  // file system allocated (the size grew) whose write-back never happened,
  // with later ones written. Stale or random bytes, which only a file system
  // that exposes old blocks (ext4 data=writeback) leaves, are not modelled:
  // RocksDB's manifest does not survive them in its unsynced tail (the DB no
  // longer opens; docs/RELIABILITY.md). The SQLite layer (power_cut_vfs.h)
  // garbles too: SQLite's WAL checksums survive it.
  kCorruptTail,
};

// Counters since construction or Reset(), for reports.
struct PowerCutStats {
  std::uint64_t cuts = 0;
  std::uint64_t files_tracked = 0;   // files whose synced size was known, summed over cuts
  std::uint64_t files_cut = 0;       // files whose unsynced tail a cut dropped, tore or damaged
  std::uint64_t bytes_dropped = 0;   // unsynced bytes removed by cuts
  std::uint64_t bytes_damaged = 0;   // unsynced bytes overwritten by kCorruptTail
  std::uint64_t entries_undone = 0;  // directory operations a cut took back
  std::uint64_t entries_lost = 0;    // undone renames whose file was already gone (both names lost)
  std::uint64_t syncs = 0;           // file syncs completed with the power on
  std::uint64_t dir_syncs = 0;       // directory fsyncs completed with the power on
  std::uint64_t refused = 0;         // changes refused because the power was off
  std::uint64_t changes = 0;         // changes let through (writes, syncs, names)
};

// A file as the journal knows it, whatever names it has (renames move the
// name, not the data; a link gives it a second one).
using FileId = std::uint64_t;

// Hidden names under which the journal keeps the data of a file whose
// deletion (or replacement by a rename) no directory fsync has covered yet,
// so that a cut can bring it back. The file system hides them from listings.
inline constexpr char kKeeperPrefix[] = ".power-cut-kept-";

class PowerCutJournal {
 public:
  // `disk` is the real file system the cut rewrites and keepers live on.
  explicit PowerCutJournal(std::shared_ptr<rocksdb::FileSystem> disk);

  PowerCutJournal(const PowerCutJournal&) = delete;
  PowerCutJournal& operator=(const PowerCutJournal&) = delete;

  const std::shared_ptr<rocksdb::FileSystem>& disk() const { return disk_; }

  // Power. Turning it off waits until no admitted operation is in flight, so
  // that afterwards nothing written through the layer reaches the disk.
  void SetActive(bool active) EXCLUDES(mu_);
  bool active() const EXCLUDES(mu_);
  // Turns the power off at the `changes`-th change from now, which is
  // refused with every one after it: a cut at a moment counted in disk
  // operations (inside a flush, a recovery, a manifest's rewrite) rather
  // than in time. 0: at the next change. Replaces an earlier count.
  void PowerOffAfter(std::uint64_t changes) EXCLUDES(mu_);
  // Counts cuts: a file opened before the last cut is refused for good.
  std::uint64_t epoch() const EXCLUDES(mu_);

  // kChange: a write, sync or name change, refused while the power is off.
  // kClose: closing a file, which changes no byte and is let through with the
  // power off (a dead process's descriptors close too), but never after a
  // cut: POSIX's close trims preallocated space to the size it wrote, which
  // would give a cut file its tail back.
  enum class Admit { kChange, kClose };

  // Brackets one operation on the disk; Cut waits for those in flight. Not
  // admitted (and counted as refused) when `admit` forbids it or, for a
  // file, when it was opened before the last cut (`file_epoch` given).
  class Operation {
   public:
    explicit Operation(PowerCutJournal& journal);
    Operation(PowerCutJournal& journal, std::uint64_t file_epoch, Admit admit = Admit::kChange);
    ~Operation();
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;
    explicit operator bool() const { return admitted_; }

   private:
    PowerCutJournal& journal_;
    const bool admitted_;
  };

  // Data. `existed`: the name was there before NewWritableFile truncated it
  // (the truncation is taken as durable, the name was already).
  FileId Created(const std::string& path, bool existed) EXCLUDES(mu_);
  // Opened to append; an unknown file's current `size` is taken as durable.
  FileId Reopened(const std::string& path, std::uint64_t size) EXCLUDES(mu_);
  void Wrote(FileId id, std::uint64_t offset, std::uint64_t length) EXCLUDES(mu_);
  void Appended(FileId id, std::uint64_t length) EXCLUDES(mu_);
  // Truncation is taken as durable: the synced size shrinks with the file.
  void Truncated(FileId id, std::uint64_t size) EXCLUDES(mu_);
  void TruncatedPath(const std::string& path, std::uint64_t size) EXCLUDES(mu_);
  // A sync covers what was written before it began: SyncStarting returns that
  // size, to be handed to Synced once the sync succeeded.
  std::uint64_t SyncStarting(FileId id) EXCLUDES(mu_);
  void Synced(FileId id, std::uint64_t covered) EXCLUDES(mu_);

  // Names. `kept` is the keeper holding the data the operation unlinked, or
  // empty when there was none or it could not be made (then that loss is
  // durable at once).
  std::string NewKeeperName(const std::string& path) EXCLUDES(mu_);
  void Deleted(const std::string& path, const std::string& kept) EXCLUDES(mu_);
  void Renamed(const std::string& from, const std::string& to, const std::string& kept)
      EXCLUDES(mu_);
  void Linked(const std::string& from, const std::string& to) EXCLUDES(mu_);
  void DirCreated(const std::string& path) EXCLUDES(mu_);
  // A directory removed is taken as durable, with everything pending in it;
  // returns the keepers inside it, for the caller to unlink before rmdir.
  std::vector<std::string> DirDeleted(const std::string& path) EXCLUDES(mu_);
  // A directory fsync covers the operations recorded before it began.
  // DirSynced returns the keepers no longer needed, for the caller to unlink.
  std::uint64_t DirSyncStarting() EXCLUDES(mu_);
  std::vector<std::string> DirSynced(const std::string& dir, std::uint64_t started) EXCLUDES(mu_);

  // Requires the power off; waits for the closes in flight. Rewrites the disk as a power loss would
  // leave it (deterministic given the history and `seed`), then forgets the history: what is on
  // disk now counts as durable. Bumps the epoch.
  rocksdb::Status Cut(std::uint64_t seed, CutMode mode) EXCLUDES(mu_);
  // Declares everything on disk durable, unlinks the keepers and zeroes the
  // counters.
  void Reset() EXCLUDES(mu_);
  PowerCutStats stats() const EXCLUDES(mu_);

 private:
  struct FileState {
    std::uint64_t size = 0;    // bytes written through the layer, the file's length
    std::uint64_t synced = 0;  // the prefix a completed sync covered
  };
  struct DirOp {
    enum class Kind { kCreate, kDelete, kRename, kLink, kMkdir };
    Kind kind;
    std::uint64_t seq;
    std::string path;                // created, deleted, renamed or linked to
    std::string from;                // kRename, kLink: the source
    std::string kept;                // the keeper of the data this unlinked, if any
    std::set<std::string> unsynced;  // directories still to fsync for it to be durable
  };

  bool Enter(bool any_epoch, std::uint64_t file_epoch, Admit admit) EXCLUDES(mu_);
  void Leave() EXCLUDES(mu_);
  FileId NewFile(const std::string& path, FileState state) REQUIRES(mu_);
  void MoveName(const std::string& from, const std::string& to) REQUIRES(mu_);
  void DropName(const std::string& path) REQUIRES(mu_);
  void Record(DirOp op) REQUIRES(mu_);
  rocksdb::IOStatus CutFile(const std::string& path, FileState file, CutMode mode,
                            std::mt19937_64& random) REQUIRES(mu_);
  rocksdb::IOStatus Undo(const DirOp& op) REQUIRES(mu_);
  rocksdb::IOStatus RemoveTree(const std::string& path) REQUIRES(mu_);

  const std::shared_ptr<rocksdb::FileSystem> disk_;
  mutable Mutex mu_;
  CondVar idle_;  // signalled when in_flight_ drops to 0
  bool active_ GUARDED_BY(mu_) = true;
  std::optional<std::uint64_t> off_after_ GUARDED_BY(mu_);  // PowerOffAfter's count
  std::uint64_t epoch_ GUARDED_BY(mu_) = 0;
  int in_flight_ GUARDED_BY(mu_) = 0;
  FileId next_id_ GUARDED_BY(mu_) = 1;
  std::uint64_t next_seq_ GUARDED_BY(mu_) = 1;
  std::uint64_t next_keeper_ GUARDED_BY(mu_) = 1;
  std::map<FileId, FileState> files_ GUARDED_BY(mu_);
  std::map<std::string, FileId> names_ GUARDED_BY(mu_);  // sorted: cuts are deterministic
  std::vector<DirOp> pending_ GUARDED_BY(mu_);           // in the order they happened
  PowerCutStats stats_ GUARDED_BY(mu_);
};

// The normal form of a path the journal keys on ("a//b/" -> "a/b"), and the
// folder holding it.
std::string NormalPath(const std::string& path);
std::string ParentDir(const std::string& path);

}  // namespace indelible::power_loss
