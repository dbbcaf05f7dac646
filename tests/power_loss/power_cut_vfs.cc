#include "power_loss/power_cut_vfs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

namespace indelible::power_loss {
namespace {

// A span damaged by kCorruptTail is at most a page: enough to break a WAL
// frame's checksum or a b-tree page, as a torn sector would.
constexpr std::uint64_t kMaxDamage = 4096;

// What a device may claim that the layer does not model: atomic writes of a
// sector or a batch (SQLite would then skip its journal), appends that never
// expose garbage, writes that reach the disk in order (it would skip syncs).
constexpr int kUnmodelledCaps =
    SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_ATOMIC512 | SQLITE_IOCAP_ATOMIC1K | SQLITE_IOCAP_ATOMIC2K |
    SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_ATOMIC8K | SQLITE_IOCAP_ATOMIC16K |
    SQLITE_IOCAP_ATOMIC32K | SQLITE_IOCAP_ATOMIC64K | SQLITE_IOCAP_SAFE_APPEND |
    SQLITE_IOCAP_SEQUENTIAL | SQLITE_IOCAP_BATCH_ATOMIC;

// Journals whose first xSync the unix VFS follows with a folder fsync when
// they were opened to create (os_unix.c, isNewJrnl).
constexpr int kDirSyncedTypes =
    SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL;

std::string ParentOf(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Errno(const char* what, const std::string& path) {
  return std::string(what) + " " + path + ": " + std::strerror(errno);
}

// Whole-buffer pread/pwrite; a short read means the end of the file.
std::string ReadAt(int fd, std::uint64_t offset, std::uint64_t length) {
  std::string out(length, '\0');
  std::uint64_t done = 0;
  while (done < length) {
    const ssize_t n =
        ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::uint64_t>(n);
  }
  out.resize(done);
  return out;
}

bool WriteAt(int fd, const char* data, std::uint64_t length, std::uint64_t offset) {
  std::uint64_t done = 0;
  while (done < length) {
    const ssize_t n = ::pwrite(fd, data + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::uint64_t>(n);
  }
  return true;
}

}  // namespace

// The C callbacks. Each recovers the layer from pAppData or the handle and
// either passes the call to the unix VFS or lets the layer do it.
struct PowerCutVfsShim {
  // The sqlite3_file SQLite allocates (vfs_.szOsFile bytes): ours, then the
  // unix VFS's at kRealOffset. Plain data: SQLite hands over raw memory.
  struct File {
    sqlite3_file base;
    PowerCutVfs::Handle* handle;
  };
  static constexpr std::size_t kRealOffset = (sizeof(File) + alignof(std::max_align_t) - 1) /
                                             alignof(std::max_align_t) * alignof(std::max_align_t);

  static PowerCutVfs& Layer(sqlite3_vfs* vfs) { return *static_cast<PowerCutVfs*>(vfs->pAppData); }
  static sqlite3_vfs* Root(sqlite3_vfs* vfs) { return Layer(vfs).root_; }
  static PowerCutVfs::Handle& Of(sqlite3_file* file) {
    return *reinterpret_cast<File*>(file)->handle;
  }
  static sqlite3_file* Real(sqlite3_file* file) { return Of(file).real; }
  static const sqlite3_io_methods& RealMethods(sqlite3_file* file) {
    return *Of(file).real->pMethods;
  }

  // sqlite3_io_methods.
  static int Close(sqlite3_file* file) {
    PowerCutVfs::Handle* handle = &Of(file);
    return handle->vfs->Close(handle);
  }
  static int Read(sqlite3_file* file, void* data, int amount, sqlite3_int64 offset) {
    return RealMethods(file).xRead(Real(file), data, amount, offset);
  }
  static int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
    PowerCutVfs::Handle& handle = Of(file);
    return handle.vfs->Write(handle, data, amount, offset);
  }
  static int Truncate(sqlite3_file* file, sqlite3_int64 size) {
    PowerCutVfs::Handle& handle = Of(file);
    return handle.vfs->Truncate(handle, size);
  }
  static int Sync(sqlite3_file* file, int flags) {
    PowerCutVfs::Handle& handle = Of(file);
    return handle.vfs->Sync(handle, flags);
  }
  static int FileSize(sqlite3_file* file, sqlite3_int64* size) {
    return RealMethods(file).xFileSize(Real(file), size);
  }
  static int Lock(sqlite3_file* file, int level) {
    return RealMethods(file).xLock(Real(file), level);
  }
  static int Unlock(sqlite3_file* file, int level) {
    return RealMethods(file).xUnlock(Real(file), level);
  }
  static int CheckReservedLock(sqlite3_file* file, int* out) {
    return RealMethods(file).xCheckReservedLock(Real(file), out);
  }
  static int FileControl(sqlite3_file* file, int op, void* arg) {
    // A hint only (SQLite ignores the answer); with a chunk size set the unix
    // VFS would grow the file by ftruncate, outside the log.
    if (op == SQLITE_FCNTL_SIZE_HINT) return SQLITE_OK;
    return RealMethods(file).xFileControl(Real(file), op, arg);
  }
  static int SectorSize(sqlite3_file* file) { return RealMethods(file).xSectorSize(Real(file)); }
  static int DeviceCharacteristics(sqlite3_file* file) {
    return RealMethods(file).xDeviceCharacteristics(Real(file)) & ~kUnmodelledCaps;
  }
  static int ShmMap(sqlite3_file* file, int region, int size, int extend, void volatile** out) {
    return RealMethods(file).xShmMap(Real(file), region, size, extend, out);
  }
  static int ShmLock(sqlite3_file* file, int offset, int n, int flags) {
    return RealMethods(file).xShmLock(Real(file), offset, n, flags);
  }
  static void ShmBarrier(sqlite3_file* file) { RealMethods(file).xShmBarrier(Real(file)); }
  static int ShmUnmap(sqlite3_file* file, int delete_flag) {
    return RealMethods(file).xShmUnmap(Real(file), delete_flag);
  }
  // No mapping: SQLite then reads through xRead, which sees what the cut
  // left, and no page can change under a pointer it holds.
  static int Fetch(sqlite3_file*, sqlite3_int64, int, void** out) {
    *out = nullptr;
    return SQLITE_OK;
  }
  static int Unfetch(sqlite3_file*, sqlite3_int64, void*) { return SQLITE_OK; }

  static sqlite3_io_methods Methods(const sqlite3_io_methods& real) {
    sqlite3_io_methods m = {};
    m.iVersion = std::min(real.iVersion, 3);
    m.xClose = Close;
    m.xRead = Read;
    m.xWrite = Write;
    m.xTruncate = Truncate;
    m.xSync = Sync;
    m.xFileSize = FileSize;
    m.xLock = Lock;
    m.xUnlock = Unlock;
    m.xCheckReservedLock = CheckReservedLock;
    m.xFileControl = FileControl;
    m.xSectorSize = SectorSize;
    m.xDeviceCharacteristics = DeviceCharacteristics;
    if (m.iVersion >= 2) {
      // Without shared memory (nolockIoMethods) SQLite refuses WAL: keep the gap.
      if (real.xShmMap != nullptr) {
        m.xShmMap = ShmMap;
        m.xShmLock = ShmLock;
        m.xShmBarrier = ShmBarrier;
        m.xShmUnmap = ShmUnmap;
      }
    }
    if (m.iVersion >= 3) {
      m.xFetch = Fetch;
      m.xUnfetch = Unfetch;
    }
    return m;
  }

  // sqlite3_vfs.
  static int Open(sqlite3_vfs* vfs, sqlite3_filename name, sqlite3_file* file, int flags,
                  int* out_flags) {
    return Layer(vfs).Open(name, file, flags, out_flags);
  }
  static int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
    return Layer(vfs).Delete(name, sync_dir);
  }
  static int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
    return Root(vfs)->xAccess(Root(vfs), name, flags, out);
  }
  static int FullPathname(sqlite3_vfs* vfs, const char* name, int size, char* out) {
    return Root(vfs)->xFullPathname(Root(vfs), name, size, out);
  }
  static void* DlOpen(sqlite3_vfs* vfs, const char* name) {
    return Root(vfs)->xDlOpen(Root(vfs), name);
  }
  static void DlError(sqlite3_vfs* vfs, int size, char* out) {
    Root(vfs)->xDlError(Root(vfs), size, out);
  }
  static void (*DlSym(sqlite3_vfs* vfs, void* library, const char* symbol))(void) {
    return Root(vfs)->xDlSym(Root(vfs), library, symbol);
  }
  static void DlClose(sqlite3_vfs* vfs, void* library) { Root(vfs)->xDlClose(Root(vfs), library); }
  static int Randomness(sqlite3_vfs* vfs, int size, char* out) {
    return Root(vfs)->xRandomness(Root(vfs), size, out);
  }
  static int Sleep(sqlite3_vfs* vfs, int micros) { return Root(vfs)->xSleep(Root(vfs), micros); }
  static int CurrentTime(sqlite3_vfs* vfs, double* out) {
    return Root(vfs)->xCurrentTime(Root(vfs), out);
  }
  static int GetLastError(sqlite3_vfs* vfs, int size, char* out) {
    return Root(vfs)->xGetLastError(Root(vfs), size, out);
  }
  static int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
    return Root(vfs)->xCurrentTimeInt64(Root(vfs), out);
  }
  static int SetSystemCall(sqlite3_vfs* vfs, const char* name, sqlite3_syscall_ptr call) {
    return Root(vfs)->xSetSystemCall(Root(vfs), name, call);
  }
  static sqlite3_syscall_ptr GetSystemCall(sqlite3_vfs* vfs, const char* name) {
    return Root(vfs)->xGetSystemCall(Root(vfs), name);
  }
  static const char* NextSystemCall(sqlite3_vfs* vfs, const char* name) {
    return Root(vfs)->xNextSystemCall(Root(vfs), name);
  }
};

PowerCutVfs::PowerCutVfs() {
  // Found before registering: once the layer is the default, a null name
  // would find the layer itself.
  root_ = sqlite3_vfs_find("unix");
  if (root_ == nullptr) root_ = sqlite3_vfs_find(nullptr);
  using Shim = PowerCutVfsShim;
  vfs_.iVersion = std::min(root_->iVersion, 3);
  vfs_.szOsFile = static_cast<int>(Shim::kRealOffset) + root_->szOsFile;
  vfs_.mxPathname = root_->mxPathname;
  vfs_.zName = kPowerCutVfsName;
  vfs_.pAppData = this;
  vfs_.xOpen = Shim::Open;
  vfs_.xDelete = Shim::Delete;
  vfs_.xAccess = Shim::Access;
  vfs_.xFullPathname = Shim::FullPathname;
  vfs_.xDlOpen = Shim::DlOpen;
  vfs_.xDlError = Shim::DlError;
  vfs_.xDlSym = Shim::DlSym;
  vfs_.xDlClose = Shim::DlClose;
  vfs_.xRandomness = Shim::Randomness;
  vfs_.xSleep = Shim::Sleep;
  vfs_.xCurrentTime = Shim::CurrentTime;
  vfs_.xGetLastError = Shim::GetLastError;
  if (vfs_.iVersion >= 2) vfs_.xCurrentTimeInt64 = Shim::CurrentTimeInt64;
  if (vfs_.iVersion >= 3) {
    vfs_.xSetSystemCall = Shim::SetSystemCall;
    vfs_.xGetSystemCall = Shim::GetSystemCall;
    vfs_.xNextSystemCall = Shim::NextSystemCall;
  }
}

PowerCutVfs& PowerCutVfs::Install(bool make_default) {
  // Never destroyed: SQLite keeps a pointer to vfs_ until the process ends.
  static PowerCutVfs* const layer = new PowerCutVfs();
  MutexLock lock(&layer->mu_);
  // Registering again moves the VFS in SQLite's list, so only when needed:
  // the first time, or to become the default (Install(false) never demotes).
  if (!layer->registered_ || (make_default && sqlite3_vfs_find(nullptr) != &layer->vfs_)) {
    sqlite3_vfs_register(&layer->vfs_, make_default ? 1 : 0);
    layer->registered_ = true;
  }
  return *layer;
}

void PowerCutVfs::SetActive(bool on) {
  // Every write runs under mu_: taking it waits for the one in flight.
  MutexLock lock(&mu_);
  if (on) {
    active_ = true;
  } else {
    PowerOff();
  }
  off_after_.reset();
}

void PowerCutVfs::PowerOff() {
  if (active_) ++power_offs_;
  active_ = false;
}

bool PowerCutVfs::active() const {
  MutexLock lock(&mu_);
  return active_;
}

void PowerCutVfs::PowerOffAfter(std::uint64_t changes) {
  MutexLock lock(&mu_);
  off_after_ = changes;
}

bool PowerCutVfs::Admit(const Handle* handle) {
  if (active_ && off_after_.has_value()) {
    if (*off_after_ == 0) {
      PowerOff();
      off_after_.reset();
    } else {
      --*off_after_;
    }
  }
  if (!active_ || (handle != nullptr && handle->epoch != epoch_)) {
    ++stats_.refused;
    return false;
  }
  return true;
}

void PowerCutVfs::DirSynced(const std::string& dir, std::uint64_t started) {
  ++stats_.dir_syncs;
  for (auto& [path, inode] : live_)
    if (inode->named < started && ParentOf(path) == dir) inode->name_durable = true;
  std::erase_if(deleted_, [&](const std::shared_ptr<Inode>& inode) {
    if (inode->named >= started || ParentOf(inode->deleted_from) != dir) return false;
    ::unlink(inode->path.c_str());  // the deletion is durable: the keeper has done its job
    return true;
  });
}

PowerCutVfs::Inode* PowerCutVfs::Logged(const Handle& handle) {
  Inode* inode = handle.inode.get();
  return inode != nullptr && !inode->path.empty() ? inode : nullptr;
}

int PowerCutVfs::SizeOf(const Inode& inode, sqlite3_file* real, sqlite3_int64* size) {
  // Not the unix VFS's xFileSize: it reports a 1-byte file as empty (an OS X
  // msdos work-around, ticket #3260), and the byte would be lost.
  struct stat st = {};
  if (::stat(inode.path.c_str(), &st) == 0) {
    *size = st.st_size;
    return SQLITE_OK;
  }
  return real->pMethods->xFileSize(real, size);
}

void PowerCutVfs::NameDurable(Inode& inode) {
  inode.name_durable = true;
  std::erase_if(deleted_, [&](const std::shared_ptr<Inode>& old) {
    if (old->deleted_from != inode.path) return false;
    ::unlink(old->path.c_str());
    return true;
  });
}

int PowerCutVfs::Open(const char* name, sqlite3_file* file, int flags, int* out_flags) {
  auto* ours = reinterpret_cast<PowerCutVfsShim::File*>(file);
  ours->base.pMethods = nullptr;
  ours->handle = nullptr;
  auto* real =
      reinterpret_cast<sqlite3_file*>(reinterpret_cast<char*>(file) + PowerCutVfsShim::kRealOffset);
  real->pMethods = nullptr;
  const bool logged = name != nullptr && (flags & SQLITE_OPEN_DELETEONCLOSE) == 0;
  const bool create = (flags & SQLITE_OPEN_CREATE) != 0;

  MutexLock lock(&mu_);
  const bool existed = !logged || !create || ::access(name, F_OK) == 0;
  // Creating a name is a change; opening what is there is not.
  if (!existed && !Admit(nullptr)) return SQLITE_IOERR;
  const int rc = root_->xOpen(root_, name, real, flags, out_flags);
  // Wrapped even when the open failed if the unix VFS left methods set:
  // SQLite then calls xClose, which must reach the real file.
  if (real->pMethods == nullptr) return rc;
  auto handle = std::make_unique<Handle>();
  handle->vfs = this;
  handle->real = real;
  handle->methods = PowerCutVfsShim::Methods(*real->pMethods);
  handle->epoch = epoch_;
  handle->dir_sync_pending = create && (flags & kDirSyncedTypes) != 0;
  if (rc == SQLITE_OK && logged) {
    std::shared_ptr<Inode>& inode = live_[name];
    // A name the layer knew but that is gone from disk (removed behind its
    // back) starts over as a new file.
    if (inode == nullptr || !existed) {
      inode = std::make_shared<Inode>();
      inode->path = name;
      inode->name_durable = existed;
      inode->named = next_seq_++;
    }
    handle->inode = inode;
  }
  ours->handle = handle.release();
  ours->base.pMethods = &ours->handle->methods;
  return rc;
}

int PowerCutVfs::Close(Handle* handle) {
  // Closing changes no byte (POSIX close), so it goes through with the power
  // off and after a cut: the unix VFS must release its locks and its inode.
  const int rc = handle->real->pMethods->xClose(handle->real);
  MutexLock lock(&mu_);  // the inode's count and fields are mu_'s
  delete handle;
  return rc;
}

int PowerCutVfs::Write(Handle& handle, const void* data, int amount, sqlite3_int64 offset) {
  MutexLock lock(&mu_);
  if (!Admit(&handle)) return SQLITE_IOERR_WRITE;
  sqlite3_file* real = handle.real;
  if (Inode* inode = Logged(handle); inode != nullptr && amount > 0) {
    sqlite3_int64 size = 0;
    if (const int rc = SizeOf(*inode, real, &size); rc != SQLITE_OK) return rc;
    Change change;
    change.offset = static_cast<std::uint64_t>(offset);
    change.length = static_cast<std::uint64_t>(amount);
    change.size_before = static_cast<std::uint64_t>(size);
    if (offset < size) {
      // Past the end there is nothing to keep: undoing shrinks to size_before.
      const auto kept = std::min<sqlite3_int64>(amount, size - offset);
      change.original.resize(static_cast<std::size_t>(kept));
      const int rc =
          real->pMethods->xRead(real, change.original.data(), static_cast<int>(kept), offset);
      if (rc != SQLITE_OK) return rc;
    }
    // Logged before the write: a failed or partial one is undone the same way.
    inode->changes.push_back(std::move(change));
  }
  return real->pMethods->xWrite(real, data, amount, offset);
}

int PowerCutVfs::Truncate(Handle& handle, sqlite3_int64 size) {
  MutexLock lock(&mu_);
  if (!Admit(&handle)) return SQLITE_IOERR_TRUNCATE;
  sqlite3_file* real = handle.real;
  Inode* inode = Logged(handle);
  if (inode == nullptr) return real->pMethods->xTruncate(real, size);
  sqlite3_int64 before = 0;
  if (const int rc = SizeOf(*inode, real, &before); rc != SQLITE_OK) return rc;
  Change change;
  change.truncate = true;
  change.offset = static_cast<std::uint64_t>(size);
  change.size_before = static_cast<std::uint64_t>(before);
  if (size < before) {
    change.original.resize(static_cast<std::size_t>(before - size));
    const int rc =
        real->pMethods->xRead(real, change.original.data(), static_cast<int>(before - size), size);
    if (rc != SQLITE_OK) return rc;
  }
  const int rc = real->pMethods->xTruncate(real, size);
  // The size it left, which a chunk size may round up: what a kept
  // truncation sets again.
  sqlite3_int64 after = 0;
  if (SizeOf(*inode, real, &after) != SQLITE_OK) after = size;
  change.length = static_cast<std::uint64_t>(after);
  if (after != before) inode->changes.push_back(std::move(change));
  return rc;
}

int PowerCutVfs::Sync(Handle& handle, int flags) {
  std::size_t covered = 0;  // the changes made before the sync began
  std::uint64_t started = 0;
  std::uint64_t power_offs = 0;
  {
    MutexLock lock(&mu_);
    if (!Admit(&handle)) return SQLITE_IOERR_FSYNC;
    if (Inode* inode = Logged(handle); inode != nullptr) covered = inode->changes.size();
    started = next_seq_++;
    power_offs = power_offs_;
    ++syncs_in_flight_;
  }
  // Outside mu_: the power may go off while the disk syncs (where the time
  // goes), and the sync then never completed.
  const int rc = handle.real->pMethods->xSync(handle.real, flags);
  MutexLock lock(&mu_);
  if (--syncs_in_flight_ == 0) syncs_done_.SignalAll();
  if (rc != SQLITE_OK) return rc;  // a failed fsync promises nothing
  if (power_offs_ != power_offs || handle.epoch != epoch_) {
    ++stats_.refused;
    return SQLITE_IOERR_FSYNC;
  }
  ++stats_.syncs;
  Inode* inode = Logged(handle);
  if (inode != nullptr) {
    // fsync covers the inode, whichever descriptor wrote: the log up to the
    // sync's start goes (Reset may have emptied it meanwhile).
    std::vector<Change>& changes = inode->changes;
    if (covered >= changes.size()) {
      std::vector<Change>().swap(changes);
    } else {
      changes.erase(changes.begin(), changes.begin() + static_cast<std::ptrdiff_t>(covered));
    }
    // An unlinked file (a keeper) has no name of its own to make durable.
    if (!inode->name_durable && inode->deleted_from.empty()) NameDurable(*inode);
  }
  if (handle.dir_sync_pending) {
    handle.dir_sync_pending = false;
    // os_unix.c fsyncs the folder of a journal opened to create right after
    // its first successful fsync.
    if (inode != nullptr && inode->deleted_from.empty()) DirSynced(ParentOf(inode->path), started);
  }
  return rc;
}

int PowerCutVfs::Delete(const char* name, int sync_dir) {
  MutexLock lock(&mu_);
  if (!Admit(nullptr)) return SQLITE_IOERR_DELETE;
  const std::string path = name;
  const auto it = live_.find(path);
  const bool durable_name = it == live_.end() || it->second->name_durable;
  // A hidden hard link keeps a file whose deletion no folder sync covers,
  // for the cut to bring back. Not needed when the folder is synced at once
  // or the name was never durable; not made when there is no such file (the
  // unix VFS gives SQLite its answer) or no link can be made (then the
  // deletion counts as durable at once).
  const std::string keeper =
      ParentOf(path) + "/" + kKeeperPrefix + "sqlite-" + std::to_string(next_keeper_);
  const bool kept = sync_dir == 0 && durable_name && ::link(name, keeper.c_str()) == 0;
  const int rc = root_->xDelete(root_, name, sync_dir);
  if (!kept) {
    if (rc != SQLITE_OK) return rc;
    if (it != live_.end()) {
      // Handles still open on it write to an unlinked file: no longer logged.
      it->second->path.clear();
      live_.erase(it);
    }
    if (sync_dir != 0) DirSynced(ParentOf(path), next_seq_++);
    return rc;
  }
  ++next_keeper_;
  if (rc != SQLITE_OK) {
    ::unlink(keeper.c_str());
    return rc;
  }
  std::shared_ptr<Inode> inode;
  if (it != live_.end()) {
    inode = std::move(it->second);
    live_.erase(it);
  } else {
    inode = std::make_shared<Inode>();  // untouched through the layer: all of it durable
  }
  inode->path = keeper;
  inode->deleted_from = path;
  inode->named = next_seq_++;
  deleted_.push_back(std::move(inode));
  return rc;
}

std::string PowerCutVfs::Cut(std::uint64_t seed, CutMode mode) {
  switch (mode) {
    case CutMode::kDrop:
      return CutWith(seed, Plan::kDrop);
    case CutMode::kTear:
      return CutWith(seed, Plan::kTear);
    case CutMode::kCorruptTail:
      return CutWith(seed, Plan::kCorruptTail);
  }
  return "unknown cut mode";
}

std::string PowerCutVfs::CutReordered(std::uint64_t seed) { return CutWith(seed, Plan::kReorder); }

std::string PowerCutVfs::CutWith(std::uint64_t seed, Plan plan) {
  MutexLock lock(&mu_);
  if (active_) return "power cut with the power on";
  // A sync in flight fails once it returns (the power went off under it);
  // waiting for it keeps the real fsync off files the cut rewrites.
  while (syncs_in_flight_ > 0) syncs_done_.Wait(&mu_);
  ++stats_.cuts;
  std::mt19937_64 random(seed);
  std::string first;
  const auto keep = [&first](std::string error) {
    if (first.empty()) first = std::move(error);
  };
  // Data first, names after: a deleted file is cut under its keeper's name.
  // A new name about to go needs no cut.
  for (const auto& [path, inode] : live_)
    if (inode->name_durable) keep(CutFile(*inode, plan, random));
  for (const auto& inode : deleted_) keep(CutFile(*inode, plan, random));
  for (const auto& [path, inode] : live_) {
    if (inode->name_durable) continue;
    if (::unlink(path.c_str()) == 0) {
      ++stats_.names_undone;
    } else if (errno != ENOENT) {
      keep(Errno("unlink", path));
    }
  }
  // Newest first, so that the oldest deletion of a name decides what it holds.
  for (auto it = deleted_.rbegin(); it != deleted_.rend(); ++it) {
    if (::rename((*it)->path.c_str(), (*it)->deleted_from.c_str()) == 0) {
      ++stats_.deletes_undone;
    } else {
      keep(Errno("rename", (*it)->path));
    }
  }
  live_.clear();
  deleted_.clear();
  ++epoch_;
  return first;
}

std::string PowerCutVfs::CutFile(const Inode& inode, Plan plan, std::mt19937_64& random) {
  const std::vector<Change>& changes = inode.changes;
  if (changes.empty()) return "";
  const int fd = ::open(inode.path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? "" : Errno("open", inode.path);
  std::string error;
  const auto fail = [&](const char* what) {
    if (error.empty()) error = Errno(what, inode.path);
  };
  const std::size_t n = changes.size();
  // Undo all of them, newest first. Once the changes after i are undone the
  // file is as change i left it, so its bytes are read back first: what
  // keeping it writes again.
  std::vector<std::string> written(n);
  for (std::size_t i = n; i-- > 0;) {
    const Change& c = changes[i];
    if (!c.truncate) written[i] = ReadAt(fd, c.offset, c.length);
    if (::ftruncate(fd, static_cast<off_t>(c.size_before)) != 0) fail("ftruncate");
    if (!WriteAt(fd, c.original.data(), c.original.size(), c.offset)) fail("pwrite");
  }
  // How much of each change survives: its bytes for a write, 0 or 1 for a
  // truncation.
  std::vector<std::uint64_t> kept(n, 0);
  const auto whole = [&](std::size_t i) { return changes[i].truncate ? 1 : changes[i].length; };
  switch (plan) {
    case Plan::kDrop:
      break;
    case Plan::kTear: {
      const std::size_t prefix = std::uniform_int_distribution<std::size_t>(0, n)(random);
      for (std::size_t i = 0; i < prefix; ++i) kept[i] = whole(i);
      if (prefix < n && !changes[prefix].truncate)
        kept[prefix] =
            std::uniform_int_distribution<std::uint64_t>(0, changes[prefix].length - 1)(random);
      break;
    }
    case Plan::kCorruptTail:
      for (std::size_t i = 0; i < n; ++i) kept[i] = whole(i);
      break;
    case Plan::kReorder:
      for (std::size_t i = 0; i < n; ++i) kept[i] = random() % 2 == 1 ? whole(i) : 0;
      break;
  }
  bool changed = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Change& c = changes[i];
    if (kept[i] < whole(i)) {
      changed = true;
      ++stats_.writes_undone;
      if (!c.truncate) stats_.bytes_undone += c.length - kept[i];
    }
    if (kept[i] == 0) continue;
    if (c.truncate) {
      if (::ftruncate(fd, static_cast<off_t>(c.length)) != 0) fail("ftruncate");
    } else {
      // A write that failed or fell short left fewer bytes: so does its redo.
      const std::uint64_t length = std::min<std::uint64_t>(kept[i], written[i].size());
      if (!WriteAt(fd, written[i].data(), length, c.offset)) fail("pwrite");
    }
  }
  if (plan == Plan::kCorruptTail) {
    std::vector<std::size_t> writes;
    for (std::size_t i = 0; i < n; ++i)
      if (!changes[i].truncate && changes[i].length > 0) writes.push_back(i);
    struct stat st = {};
    if (!writes.empty() && ::fstat(fd, &st) == 0) {
      const Change& c = changes[writes[random() % writes.size()]];
      const std::uint64_t start =
          c.offset + std::uniform_int_distribution<std::uint64_t>(0, c.length - 1)(random);
      std::uint64_t length = std::uniform_int_distribution<std::uint64_t>(
          1, std::min(kMaxDamage, c.offset + c.length - start))(random);
      std::string damage(length, '\0');
      if (random() % 2 == 1)
        for (char& ch : damage) ch = static_cast<char>(random());
      // A later truncation may have taken the span away: nothing to damage.
      const auto size = static_cast<std::uint64_t>(st.st_size);
      length = start < size ? std::min(length, size - start) : 0;
      if (length > 0) {
        if (!WriteAt(fd, damage.data(), length, start)) fail("pwrite");
        stats_.bytes_damaged += length;
        changed = true;
      }
    }
  }
  if (changed) ++stats_.files_cut;
  if (::close(fd) != 0) fail("close");
  return error;
}

void PowerCutVfs::Reset() {
  MutexLock lock(&mu_);
  for (auto& [path, inode] : live_) {
    std::vector<Change>().swap(inode->changes);
    inode->name_durable = true;
  }
  for (const auto& inode : deleted_) ::unlink(inode->path.c_str());
  deleted_.clear();
  stats_ = PowerCutVfsStats{};
}

PowerCutVfsStats PowerCutVfs::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

}  // namespace indelible::power_loss
