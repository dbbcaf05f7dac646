// PowerCutFileSystem: a RocksDB FileSystem over the real one that remembers
// what was made durable, so that a test can cut the power and find on disk
// only what fsync promised. Test infrastructure (issue 38), after RocksDB's
// FaultInjectionTestFS, which Debian does not install.
//
// Operation:
//
//   auto fs = std::make_shared<PowerCutFileSystem>();
//   auto env = rocksdb::NewCompositeEnv(fs);  // options.env = env.get()
//   ... open the DB and write ...
//   fs->SetActive(false);          // the power goes off: no write reaches the disk
//   delete db;                     // or leak it: its files stay refused
//   fs->Cut(seed, CutMode::kTear); // the disk as a power loss leaves it
//   fs->SetActive(true);           // reboot, open the DB again (here or on the plain Env)
//
// Every change goes to the real files at once (reads see it, as a running
// system would); the layer records what each sync covered, and Cut takes back
// the rest. What counts as durable is PowerCutJournal's model
// (power_cut_journal.h): a file's bytes up to its last Sync/Fsync, a
// directory entry once its directory was fsynced.
//
// Concurrency: thread-safe; RocksDB calls it from many threads. SetActive,
// Cut and Reset are for the test's thread; Cut and Reset while nothing
// writes.
//
// Limitations (README.md): writes inside a file's unsynced tail are not
// reordered; truncation, deletion of a directory and the LOCK file count as
// durable at once; random-access writes (NewRandomRWFile) count as durable;
// ReuseWritableFile (recycled logs) is refused; a file opened before a cut
// and closed after it is leaked, not closed (closing would write its size
// back).
#pragma once

#include <rocksdb/file_system.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "power_loss/power_cut_journal.h"

namespace indelible::power_loss {

class PowerCutFileSystem : public rocksdb::FileSystemWrapper {
 public:
  // `disk` must be a file system of real files that supports links (for the
  // keepers of deleted files): FileSystem::Default() does.
  explicit PowerCutFileSystem(
      std::shared_ptr<rocksdb::FileSystem> disk = rocksdb::FileSystem::Default());

  // Power on (true, the start) or off. While off, every write, sync, create,
  // rename, link and delete fails with IOError("power is off") and changes
  // nothing; reads work. Turning it off waits for the changes in flight.
  void SetActive(bool active);
  bool active() const;
  // The power goes off at the `changes`-th change from now (PowerCutJournal).
  void PowerOffAfter(std::uint64_t changes);
  // Requires the power off and every DB on the layer closed or abandoned.
  // Makes the real files look as after a power loss, deterministically for a
  // given history and `seed`: each file's unsynced tail is dropped, torn or
  // damaged (`mode`); directory operations no directory fsync covered are
  // undone, newest first (a new name disappears, a rename goes back, a
  // deleted or replaced file comes back). Then the history is forgotten (the
  // disk is what survived) and files opened before stay refused for good.
  // Returns the first disk error met; the cut goes on past it.
  rocksdb::Status Cut(std::uint64_t seed, CutMode mode);
  // Everything on disk counts as durable; counters back to 0.
  void Reset();
  PowerCutStats stats() const;

  const char* Name() const override { return "PowerCutFileSystem"; }

  rocksdb::IOStatus NewWritableFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& fname,
                                       const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& fname, const std::string& old_fname,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& fname, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewLogger(const std::string& fname, const rocksdb::IOOptions& options,
                              std::shared_ptr<rocksdb::Logger>* result,
                              rocksdb::IODebugContext* dbg) override;

  rocksdb::IOStatus DeleteFile(const std::string& fname, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& src, const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus LinkFile(const std::string& src, const std::string& target,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus Truncate(const std::string& fname, size_t size,
                             const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus CreateDirIfMissing(const std::string& dirname,
                                       const rocksdb::IOOptions& options,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteDir(const std::string& dirname, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override;

  // Listings hide the keepers (kKeeperPrefix) of deleted files.
  rocksdb::IOStatus GetChildren(const std::string& dir, const rocksdb::IOOptions& options,
                                std::vector<std::string>* result,
                                rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus GetChildrenFileAttributes(const std::string& dir,
                                              const rocksdb::IOOptions& options,
                                              std::vector<rocksdb::FileAttributes>* result,
                                              rocksdb::IODebugContext* dbg) override;

 private:
  // Shared with every file and directory opened through the layer, so that a
  // leaked DB's files outlive neither their refusal nor the journal.
  const std::shared_ptr<PowerCutJournal> journal_;
};

}  // namespace indelible::power_loss
