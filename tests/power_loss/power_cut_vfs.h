// PowerCutVfs: an SQLite VFS over the "unix" one that remembers what was
// made durable, so that a test can cut the power and find on disk only what
// fsync promised. The SQLite counterpart of PowerCutFileSystem
// (power_cut_fs.h), for the projections' read stores (issue 38).
//
// Operation:
//
//   PowerCutVfs& vfs = PowerCutVfs::Install(/*make_default=*/true);
//   ... sqlite3_open_v2(path, &db, flags, nullptr), write ...
//   vfs.SetActive(false);                      // the power goes off
//   sqlite3_close_v2(db);                      // its writes are refused; see below
//   std::string error = vfs.Cut(seed, CutMode::kTear);  // the disk a power loss leaves
//   vfs.SetActive(true);                       // reboot: open the database again
//
// Every change reaches the real files at once (reads see it, as a running
// system would); the layer records how to take back what no sync covered,
// and Cut does.
//
// Model (POSIX, as fsync(2) promises it, nothing more):
//   - Data. SQLite writes in place (the main database at checkpoints, the WAL
//     from its start after a restart), so where the RocksDB layer cuts an
//     unsynced tail, this one keeps undo images: each xWrite and xTruncate
//     since the file's last completed xSync is logged in order, with the bytes
//     and the size it replaced (read through the real file first). A
//     completed xSync, through any connection, makes what was written before
//     it began durable and forgets that part of the log; a failed one
//     changes nothing, nor does one the power went off during (it fails).
//     The log belongs to the file, not to the sqlite3_file: a connection
//     closed without a sync leaves its unsynced writes to the cut. One record
//     per write call.
//   - The cut, per file with a log: kDrop undoes every logged change; kTear
//     keeps a random-length prefix of them in the order they were made (the
//     last kept write possibly cut at a random byte) and undoes the rest;
//     kCorruptTail keeps them all but zeroes or garbles a random span inside
//     one random unsynced write (a torn sector). CutReordered keeps or undoes
//     each change independently: the disk may write back in any order between
//     two syncs. No damage reaches outside the range a write covered, so the
//     layer keeps the promise of SQLITE_IOCAP_POWERSAFE_OVERWRITE, which the
//     unix VFS makes and which is passed on; claims of atomic writes, safe
//     append or sequential writes are cleared (none is modelled).
//   - Names. A file created through the VFS whose name no directory sync
//     covered is deleted by a cut. The unix VFS fsyncs the folder itself in
//     the first xSync of a WAL or journal it opened with SQLITE_OPEN_CREATE
//     (UNIXFILE_DIRSYNC), invisibly to a wrapper: that xSync counts here as a
//     folder fsync (every name created or deleted in the folder before it is
//     durable). Any other file's own name counts as durable after its first
//     completed xSync: lenient for the main database file, whose creation
//     SQLite never syncs into its folder (in WAL or rollback mode the first
//     WAL or journal sync covers it anyway). xDelete(syncDir=1) is durable;
//     xDelete(syncDir=0), as SQLite deletes the WAL at the last close and the
//     rollback journal at a commit below synchronous=EXTRA, is undone by a cut:
//     a hidden hard link (kKeeperPrefix "sqlite-N") keeps the file until a
//     folder sync, and the cut renames it back.
//
// Not modelled: the -shm wal-index, passed through (SQLite truncates and
// rebuilds it from the WAL when the first connection opens after all others
// closed, so nothing in it has to survive); metadata apart from sizes and
// names; temporary files (no name, or delete-on-close) are refused while the
// power is off but not logged; memory-mapped I/O is off (xFetch maps nothing,
// so every read goes through xRead); SQLITE_FCNTL_SIZE_HINT is swallowed (the
// unix VFS would grow the file outside xWrite with a chunk size set).
//
// Concurrency: thread-safe. One mutex serializes every change, the real
// write included, so SetActive(false) returning means no write is in
// flight. A real fsync runs outside it: the power may go off while the disk
// syncs, and then that xSync fails and covers nothing, as a sync cut short
// (a power-off from another thread mostly lands there, where the time
// goes); Cut waits for it to return. Cut and Reset are for the test's
// thread, with the power off and every connection from before closed: the
// unix VFS shares POSIX locks and the mapped wal-index of a file between the
// connections of one process, so a connection leaked across a cut would hand
// its stale wal-index to the next opener. Close them after the power went
// off (sqlite3_close_v2: their writes are refused, the close goes through);
// files opened before a cut refuse every change for good, whatever the
// power.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "power_loss/power_cut_journal.h"

namespace indelible::power_loss {

// The name the VFS is registered under, for sqlite3_open_v2's zVfs.
inline constexpr char kPowerCutVfsName[] = "power-cut";

// Counters since start-up or Reset(), for reports.
struct PowerCutVfsStats {
  std::uint64_t cuts = 0;
  std::uint64_t files_cut = 0;       // files whose unsynced changes a cut undid, tore or damaged
  std::uint64_t writes_undone = 0;   // unsynced xWrite/xTruncate calls taken back, whole or part
  std::uint64_t bytes_undone = 0;    // bytes of unsynced writes a cut took back
  std::uint64_t bytes_damaged = 0;   // bytes kCorruptTail overwrote
  std::uint64_t names_undone = 0;    // new files no folder sync covered, removed by cuts
  std::uint64_t deletes_undone = 0;  // xDelete(syncDir=0) calls a cut took back
  std::uint64_t syncs = 0;           // xSync calls completed with the power on
  std::uint64_t dir_syncs = 0;       // folder syncs seen (a journal's first xSync, xDelete(.., 1))
  // Changes refused (power off, a file from before a cut), and syncs the
  // power went off during.
  std::uint64_t refused = 0;
};

class PowerCutVfs {
 public:
  // Registers the VFS (once per process; the object lives until exit).
  // make_default: every sqlite3_open with a null VFS name uses it from now
  // on (the projections open so); false leaves the default alone.
  static PowerCutVfs& Install(bool make_default);

  PowerCutVfs(const PowerCutVfs&) = delete;
  PowerCutVfs& operator=(const PowerCutVfs&) = delete;

  sqlite3_vfs* vfs() { return &vfs_; }

  // Power on (true, the start) or off. While off, every xWrite, xTruncate,
  // xSync and xDelete, and every xOpen that would create a file, fails with
  // an SQLITE_IOERR code and changes nothing; reads work. Turning it off
  // waits for the write in flight; an xSync in flight fails and makes
  // nothing durable. Either way cancels PowerOffAfter.
  void SetActive(bool on) EXCLUDES(mu_);
  bool active() const EXCLUDES(mu_);
  // Lets `changes` more changes through, then turns the power off: the next
  // one is refused, with every one after it. A cut at a moment counted in
  // disk operations: mid-transaction, mid-checkpoint.
  void PowerOffAfter(std::uint64_t changes) EXCLUDES(mu_);

  // Requires the power off and no connection from before left open (see
  // Concurrency above). Rewrites the real files as a power loss would leave
  // them, deterministically for a given history and `seed`: the unsynced
  // changes of each file dropped, torn or damaged (`mode`), new names no
  // folder sync covered removed, deletions none covered brought back. Then
  // forgets the history (what is on disk counts as durable). Returns the
  // first disk error met, empty if none; the cut goes on past it.
  std::string Cut(std::uint64_t seed, CutMode mode) EXCLUDES(mu_);
  // As Cut, but each unsynced change is kept or undone independently, whole
  // (names as in Cut).
  std::string CutReordered(std::uint64_t seed) EXCLUDES(mu_);
  // Everything on disk counts as durable; the keepers go; counters to 0.
  void Reset() EXCLUDES(mu_);
  PowerCutVfsStats stats() const EXCLUDES(mu_);

 private:
  friend struct PowerCutVfsShim;  // the C callbacks (power_cut_vfs.cc)

  // One logged xWrite or xTruncate: what undoing it puts back.
  struct Change {
    bool truncate = false;
    std::uint64_t offset = 0;       // xWrite: where; xTruncate: the size asked for
    std::uint64_t length = 0;       // xWrite: bytes written; xTruncate: the size it left
    std::uint64_t size_before = 0;  // the file's size before it
    std::string original;           // the bytes it replaced (or cut off), from `offset`
  };
  // A file as the layer knows it, shared by its open sqlite3_files.
  struct Inode {
    std::string path;             // its name, or its keeper's once deleted; empty: gone for good
    std::string deleted_from;     // non-empty: deleted, the cut renames `path` back to it
    bool name_durable = true;     // false: created, no folder sync since
    std::uint64_t named = 0;      // the name operation's sequence number (next_seq_)
    std::vector<Change> changes;  // since its last completed xSync, in order
  };
  // How a cut treats a file's changes: CutMode's three, or CutReordered.
  enum class Plan { kDrop, kTear, kCorruptTail, kReorder };

  // Per sqlite3_file; the fields below `vfs`, `real` and `methods` are read
  // and written under mu_ only.
  struct Handle {
    PowerCutVfs* vfs = nullptr;
    sqlite3_file* real = nullptr;     // the unix VFS's file, right after ours
    sqlite3_io_methods methods = {};  // ours, at the real file's iVersion
    std::shared_ptr<Inode> inode;     // null: a temporary file, not logged
    std::uint64_t epoch = 0;          // the cut count when opened
    bool dir_sync_pending = false;    // the unix VFS syncs the folder in the first xSync
  };

  PowerCutVfs();

  // Whether a change may go through (power on, file not from before a cut);
  // counts the refusals and PowerOffAfter's countdown.
  bool Admit(const Handle* handle) REQUIRES(mu_);
  // The inode whose changes the handle's writes are logged in, or null (a
  // temporary file, or one deleted for good while open).
  static Inode* Logged(const Handle& handle);
  // The real size of the file.
  static int SizeOf(const Inode& inode, sqlite3_file* real, sqlite3_int64* size);
  // Turns the power off (from on): syncs in flight will fail.
  void PowerOff() REQUIRES(mu_);
  // A folder fsync that began when next_seq_ was `started`: every name
  // created or deleted in `dir` before it is durable.
  void DirSynced(const std::string& dir, std::uint64_t started) REQUIRES(mu_);
  // The file's own name is durable (its first sync): a keeper of an earlier
  // file of that name is no longer needed.
  void NameDurable(Inode& inode) REQUIRES(mu_);
  std::string CutWith(std::uint64_t seed, Plan plan) EXCLUDES(mu_);
  std::string CutFile(const Inode& inode, Plan plan, std::mt19937_64& random) REQUIRES(mu_);

  // The callbacks' work, under mu_ (a real fsync outside it).
  int Open(const char* name, sqlite3_file* file, int flags, int* out_flags) EXCLUDES(mu_);
  int Delete(const char* name, int sync_dir) EXCLUDES(mu_);
  int Close(Handle* handle) EXCLUDES(mu_);
  int Write(Handle& handle, const void* data, int amount, sqlite3_int64 offset) EXCLUDES(mu_);
  int Truncate(Handle& handle, sqlite3_int64 size) EXCLUDES(mu_);
  int Sync(Handle& handle, int flags) EXCLUDES(mu_);

  sqlite3_vfs vfs_ = {};
  sqlite3_vfs* root_ = nullptr;  // the unix VFS
  mutable Mutex mu_;
  bool registered_ GUARDED_BY(mu_) = false;
  bool active_ GUARDED_BY(mu_) = true;
  std::optional<std::uint64_t> off_after_ GUARDED_BY(mu_);
  std::uint64_t epoch_ GUARDED_BY(mu_) = 0;
  std::uint64_t power_offs_ GUARDED_BY(mu_) = 0;  // a sync that saw it change was cut short
  int syncs_in_flight_ GUARDED_BY(mu_) = 0;       // Cut waits for them to fail
  CondVar syncs_done_;                            // signalled when syncs_in_flight_ drops to 0
  std::uint64_t next_seq_ GUARDED_BY(mu_) = 1;    // orders name operations and folder syncs
  std::uint64_t next_keeper_ GUARDED_BY(mu_) = 1;
  std::map<std::string, std::shared_ptr<Inode>> live_ GUARDED_BY(mu_);  // by name: cuts in order
  std::vector<std::shared_ptr<Inode>> deleted_ GUARDED_BY(mu_);         // in deletion order
  PowerCutVfsStats stats_ GUARDED_BY(mu_);
};

}  // namespace indelible::power_loss
