#include "power_loss/power_cut_fs.h"

#include <rocksdb/env.h>

#include <algorithm>
#include <cstdarg>
#include <utility>

// A file left open at a cut is leaked on purpose; LeakSanitizer is told so.
#if defined(__SANITIZE_ADDRESS__)
#define INDELIBLE_POWER_CUT_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INDELIBLE_POWER_CUT_LSAN 1
#endif
#endif
#if defined(INDELIBLE_POWER_CUT_LSAN)
#include <sanitizer/lsan_interface.h>
#endif

namespace indelible::power_loss {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;
using rocksdb::Slice;
using Admit = PowerCutJournal::Admit;
using Operation = PowerCutJournal::Operation;

IOStatus PowerOff() { return IOStatus::IOError("power is off"); }

bool IsKeeper(const std::string& name) { return name.starts_with(kKeeperPrefix); }

// A file open for writing: reports what it wrote and what each sync covered.
class PowerCutWritableFile : public rocksdb::FSWritableFileWrapper {
 public:
  PowerCutWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file,
                       std::shared_ptr<PowerCutJournal> journal, FileId id)
      : FSWritableFileWrapper(file.get()),
        file_(std::move(file)),
        journal_(std::move(journal)),
        id_(id),
        epoch_(journal_->epoch()) {}

  ~PowerCutWritableFile() override {
    if (closed_) return;
    Operation op(*journal_, epoch_, Admit::kClose);
    if (op) {
      file_.reset();
      return;
    }
    // Opened before a cut: closing would write the file's old size back (see
    // Admit::kClose), so it stays open, as a dead process leaves it.
    rocksdb::FSWritableFile* abandoned = file_.release();
#if defined(INDELIBLE_POWER_CUT_LSAN)
    __lsan_ignore_object(abandoned);
#else
    (void)abandoned;
#endif
  }

  IOStatus Append(const Slice& data, const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    IOStatus s = target()->Append(data, o, d);
    if (s.ok()) journal_->Appended(id_, data.size());
    return s;
  }
  IOStatus Append(const Slice& data, const IOOptions& o, const rocksdb::DataVerificationInfo& info,
                  IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    IOStatus s = target()->Append(data, o, info, d);
    if (s.ok()) journal_->Appended(id_, data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    IOStatus s = target()->PositionedAppend(data, offset, o, d);
    if (s.ok()) journal_->Wrote(id_, offset, data.size());
    return s;
  }
  IOStatus PositionedAppend(const Slice& data, uint64_t offset, const IOOptions& o,
                            const rocksdb::DataVerificationInfo& info, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    IOStatus s = target()->PositionedAppend(data, offset, o, info, d);
    if (s.ok()) journal_->Wrote(id_, offset, data.size());
    return s;
  }
  IOStatus Truncate(uint64_t size, const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    IOStatus s = target()->Truncate(size, o, d);
    if (s.ok()) journal_->Truncated(id_, size);
    return s;
  }
  IOStatus Close(const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_, Admit::kClose);
    if (!op) return PowerOff();
    IOStatus s = target()->Close(o, d);
    closed_ = true;
    return s;
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    return target()->Flush(o, d);
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    return Synced([&] { return target()->Sync(o, d); });
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    return Synced([&] { return target()->Fsync(o, d); });
  }
  // sync_file_range(2) on Linux: it starts write-back and promises nothing
  // after a crash, so it makes nothing durable here.
  IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const IOOptions& o,
                     IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    return target()->RangeSync(offset, nbytes, o, d);
  }
  IOStatus Allocate(uint64_t offset, uint64_t len, const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    return target()->Allocate(offset, len, o, d);
  }
  void PrepareWrite(size_t offset, size_t len, const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    if (op) target()->PrepareWrite(offset, len, o, d);
  }

 private:
  // A sync covers what was written before it began.
  template <class SyncCall>
  IOStatus Synced(SyncCall sync) {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    const std::uint64_t covered = journal_->SyncStarting(id_);
    IOStatus s = sync();
    if (s.ok()) journal_->Synced(id_, covered);
    return s;
  }

  std::unique_ptr<rocksdb::FSWritableFile> file_;
  const std::shared_ptr<PowerCutJournal> journal_;
  const FileId id_;
  const std::uint64_t epoch_;
  bool closed_ = false;  // RocksDB closes a file from one thread at a time
};

// Random-access writes are let through or refused, not tracked: they count
// as durable at once (README.md).
class PowerCutRandomRWFile : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  PowerCutRandomRWFile(std::unique_ptr<rocksdb::FSRandomRWFile> file,
                       std::shared_ptr<PowerCutJournal> journal)
      : FSRandomRWFileOwnerWrapper(std::move(file)),
        journal_(std::move(journal)),
        epoch_(journal_->epoch()) {}

  IOStatus Write(uint64_t offset, const Slice& data, const IOOptions& o,
                 IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    return op ? target()->Write(offset, data, o, d) : PowerOff();
  }
  IOStatus Flush(const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    return op ? target()->Flush(o, d) : PowerOff();
  }
  IOStatus Sync(const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    return op ? target()->Sync(o, d) : PowerOff();
  }
  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    Operation op(*journal_, epoch_);
    return op ? target()->Fsync(o, d) : PowerOff();
  }

 private:
  const std::shared_ptr<PowerCutJournal> journal_;
  const std::uint64_t epoch_;
};

// A directory's fsync makes the entries changed in it before the fsync
// began durable.
class PowerCutDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  PowerCutDirectory(std::unique_ptr<rocksdb::FSDirectory> dir, std::string path,
                    std::shared_ptr<PowerCutJournal> journal)
      : FSDirectoryWrapper(std::move(dir)),
        path_(std::move(path)),
        journal_(std::move(journal)),
        epoch_(journal_->epoch()) {}

  IOStatus Fsync(const IOOptions& o, IODebugContext* d) override {
    return Synced([&] { return FSDirectoryWrapper::Fsync(o, d); });
  }
  // RocksDB's call after a rename or a new file. On btrfs POSIX's version
  // skips the real fsync where btrfs's file fsync already logged the name;
  // the model here is POSIX's, in which only the directory fsync does, so the
  // call counts as one whatever the file system below does with it.
  IOStatus FsyncWithDirOptions(const IOOptions& o, IODebugContext* d,
                               const rocksdb::DirFsyncOptions& options) override {
    return Synced([&] { return FSDirectoryWrapper::FsyncWithDirOptions(o, d, options); });
  }

 private:
  template <class SyncCall>
  IOStatus Synced(SyncCall sync) {
    Operation op(*journal_, epoch_);
    if (!op) return PowerOff();
    const std::uint64_t started = journal_->DirSyncStarting();
    IOStatus s = sync();
    if (!s.ok()) return s;
    for (const std::string& kept : journal_->DirSynced(path_, started))
      (void)journal_->disk()->DeleteFile(kept, IOOptions(), nullptr);  // at worst, hidden litter
    return s;
  }

  const std::string path_;
  const std::shared_ptr<PowerCutJournal> journal_;
  const std::uint64_t epoch_;
};

// The info LOG: POSIX's logger writes with stdio, past the layer, so its
// lines are dropped here while the power is off. It is not tracked or cut:
// it is diagnostics, not state. (FileSystem's own logger, built on
// NewWritableFile, would be; but its writer asserts, in the Debian build,
// that nothing is logged after a failed write.)
class PowerCutLogger : public rocksdb::LoggerWrapper {
 public:
  PowerCutLogger(std::shared_ptr<rocksdb::Logger> logger, std::shared_ptr<PowerCutJournal> journal)
      : LoggerWrapper(logger.get()), logger_(std::move(logger)), journal_(std::move(journal)) {}

  void LogHeader(const char* format, va_list ap) override {
    if (Operation op(*journal_); op) LoggerWrapper::LogHeader(format, ap);
  }
  void Logv(const char* format, va_list ap) override {
    if (Operation op(*journal_); op) LoggerWrapper::Logv(format, ap);
  }
  void Logv(const rocksdb::InfoLogLevel level, const char* format, va_list ap) override {
    if (Operation op(*journal_); op) LoggerWrapper::Logv(level, format, ap);
  }
  void Flush() override {
    if (Operation op(*journal_); op) LoggerWrapper::Flush();
  }

 private:
  const std::shared_ptr<rocksdb::Logger> logger_;
  const std::shared_ptr<PowerCutJournal> journal_;
};

}  // namespace

PowerCutFileSystem::PowerCutFileSystem(std::shared_ptr<rocksdb::FileSystem> disk)
    : FileSystemWrapper(disk), journal_(std::make_shared<PowerCutJournal>(disk)) {}

void PowerCutFileSystem::SetActive(bool active) { journal_->SetActive(active); }
bool PowerCutFileSystem::active() const { return journal_->active(); }
void PowerCutFileSystem::PowerOffAfter(std::uint64_t changes) { journal_->PowerOffAfter(changes); }
rocksdb::Status PowerCutFileSystem::Cut(std::uint64_t seed, CutMode mode) {
  return journal_->Cut(seed, mode);
}
void PowerCutFileSystem::Reset() { journal_->Reset(); }
PowerCutStats PowerCutFileSystem::stats() const { return journal_->stats(); }

IOStatus PowerCutFileSystem::NewWritableFile(const std::string& fname,
                                             const rocksdb::FileOptions& options,
                                             std::unique_ptr<rocksdb::FSWritableFile>* result,
                                             IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  const bool existed = target()->FileExists(fname, options.io_options, dbg).ok();
  IOStatus s = target()->NewWritableFile(fname, options, result, dbg);
  if (!s.ok()) return s;
  const FileId id = journal_->Created(fname, existed);
  *result = std::make_unique<PowerCutWritableFile>(std::move(*result), journal_, id);
  return s;
}

IOStatus PowerCutFileSystem::ReopenWritableFile(const std::string& fname,
                                                const rocksdb::FileOptions& options,
                                                std::unique_ptr<rocksdb::FSWritableFile>* result,
                                                IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  const bool existed = target()->FileExists(fname, options.io_options, dbg).ok();
  IOStatus s = target()->ReopenWritableFile(fname, options, result, dbg);
  if (!s.ok()) return s;
  std::uint64_t size = 0;
  if (existed) s = target()->GetFileSize(fname, options.io_options, &size, dbg);
  if (!s.ok()) return s;
  const FileId id = existed ? journal_->Reopened(fname, size) : journal_->Created(fname, false);
  *result = std::make_unique<PowerCutWritableFile>(std::move(*result), journal_, id);
  return s;
}

// Recycling overwrites a log from its start, so its unsynced part would not
// be a tail; the model has no place for that.
IOStatus PowerCutFileSystem::ReuseWritableFile(const std::string&, const std::string&,
                                               const rocksdb::FileOptions&,
                                               std::unique_ptr<rocksdb::FSWritableFile>*,
                                               IODebugContext*) {
  return IOStatus::NotSupported("PowerCutFileSystem does not model recycled log files");
}

IOStatus PowerCutFileSystem::NewRandomRWFile(const std::string& fname,
                                             const rocksdb::FileOptions& options,
                                             std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                             IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  const bool existed = target()->FileExists(fname, options.io_options, dbg).ok();
  IOStatus s = target()->NewRandomRWFile(fname, options, result, dbg);
  if (!s.ok()) return s;
  if (!existed) (void)journal_->Created(fname, false);
  *result = std::make_unique<PowerCutRandomRWFile>(std::move(*result), journal_);
  return s;
}

IOStatus PowerCutFileSystem::NewDirectory(const std::string& name, const IOOptions& options,
                                          std::unique_ptr<rocksdb::FSDirectory>* result,
                                          IODebugContext* dbg) {
  IOStatus s = target()->NewDirectory(name, options, result, dbg);
  if (!s.ok()) return s;
  *result = std::make_unique<PowerCutDirectory>(std::move(*result), NormalPath(name), journal_);
  return s;
}

IOStatus PowerCutFileSystem::NewLogger(const std::string& fname, const IOOptions& options,
                                       std::shared_ptr<rocksdb::Logger>* result,
                                       IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  std::shared_ptr<rocksdb::Logger> logger;
  IOStatus s = target()->NewLogger(fname, options, &logger, dbg);
  if (s.ok()) *result = std::make_shared<PowerCutLogger>(std::move(logger), journal_);
  return s;
}

IOStatus PowerCutFileSystem::DeleteFile(const std::string& fname, const IOOptions& options,
                                        IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  // A second link keeps the data until a directory fsync makes the deletion
  // durable, so that a cut can bring the file back.
  std::string kept = journal_->NewKeeperName(fname);
  if (!target()->LinkFile(fname, kept, options, dbg).ok()) kept.clear();
  IOStatus s = target()->DeleteFile(fname, options, dbg);
  if (!s.ok()) {
    if (!kept.empty()) (void)target()->DeleteFile(kept, options, dbg);
    return s;
  }
  journal_->Deleted(fname, kept);
  return s;
}

IOStatus PowerCutFileSystem::RenameFile(const std::string& src, const std::string& dst,
                                        const IOOptions& options, IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  std::string kept;  // the file the rename replaces, kept as a deleted one is
  if (target()->FileExists(dst, options, dbg).ok()) {
    kept = journal_->NewKeeperName(dst);
    if (!target()->LinkFile(dst, kept, options, dbg).ok()) kept.clear();
  }
  IOStatus s = target()->RenameFile(src, dst, options, dbg);
  if (!s.ok()) {
    if (!kept.empty()) (void)target()->DeleteFile(kept, options, dbg);
    return s;
  }
  journal_->Renamed(src, dst, kept);
  return s;
}

IOStatus PowerCutFileSystem::LinkFile(const std::string& src, const std::string& dst,
                                      const IOOptions& options, IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  IOStatus s = target()->LinkFile(src, dst, options, dbg);
  if (s.ok()) journal_->Linked(src, dst);
  return s;
}

IOStatus PowerCutFileSystem::Truncate(const std::string& fname, size_t size,
                                      const IOOptions& options, IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  IOStatus s = target()->Truncate(fname, size, options, dbg);
  if (s.ok()) journal_->TruncatedPath(fname, size);
  return s;
}

IOStatus PowerCutFileSystem::CreateDir(const std::string& dirname, const IOOptions& options,
                                       IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  IOStatus s = target()->CreateDir(dirname, options, dbg);
  if (s.ok()) journal_->DirCreated(dirname);
  return s;
}

IOStatus PowerCutFileSystem::CreateDirIfMissing(const std::string& dirname,
                                                const IOOptions& options, IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  const bool existed = target()->FileExists(dirname, options, dbg).ok();
  IOStatus s = target()->CreateDirIfMissing(dirname, options, dbg);
  if (s.ok() && !existed) journal_->DirCreated(dirname);
  return s;
}

IOStatus PowerCutFileSystem::DeleteDir(const std::string& dirname, const IOOptions& options,
                                       IODebugContext* dbg) {
  Operation op(*journal_);
  if (!op) return PowerOff();
  for (const std::string& kept : journal_->DirDeleted(dirname))
    (void)target()->DeleteFile(kept, options, dbg);
  return target()->DeleteDir(dirname, options, dbg);
}

IOStatus PowerCutFileSystem::GetChildren(const std::string& dir, const IOOptions& options,
                                         std::vector<std::string>* result, IODebugContext* dbg) {
  IOStatus s = target()->GetChildren(dir, options, result, dbg);
  std::erase_if(*result, IsKeeper);
  return s;
}

IOStatus PowerCutFileSystem::GetChildrenFileAttributes(const std::string& dir,
                                                       const IOOptions& options,
                                                       std::vector<rocksdb::FileAttributes>* result,
                                                       IODebugContext* dbg) {
  IOStatus s = target()->GetChildrenFileAttributes(dir, options, result, dbg);
  std::erase_if(*result, [](const rocksdb::FileAttributes& a) { return IsKeeper(a.name); });
  return s;
}

}  // namespace indelible::power_loss
