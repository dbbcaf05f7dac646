#include "power_loss/power_cut_journal.h"

#include <algorithm>
#include <filesystem>
#include <utility>

namespace indelible::power_loss {
namespace {

// A span damaged by kCorruptTail is at most a page or so: enough to break a
// record's checksum, small enough to leave records after it intact.
constexpr std::uint64_t kMaxDamage = 4096;

// The disk calls of a cut: a name already gone is what the cut wanted.
void Keep(rocksdb::IOStatus* first, rocksdb::IOStatus s) {
  if (first->ok() && !s.ok() && !s.IsNotFound() && !s.IsPathNotFound()) *first = std::move(s);
}

bool Under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/';
}

}  // namespace

std::string NormalPath(const std::string& path) {
  std::string normal = std::filesystem::path(path).lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

std::string ParentDir(const std::string& path) {
  const std::string normal = NormalPath(path);
  const auto slash = normal.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : normal.substr(0, slash);
}

PowerCutJournal::PowerCutJournal(std::shared_ptr<rocksdb::FileSystem> disk)
    : disk_(std::move(disk)) {}

void PowerCutJournal::SetActive(bool active) {
  MutexLock lock(&mu_);
  active_ = active;
  off_after_.reset();  // a count armed before is spent either way
  while (!active_ && in_flight_ > 0) idle_.Wait(&mu_);
}

void PowerCutJournal::PowerOffAfter(std::uint64_t changes) {
  MutexLock lock(&mu_);
  off_after_ = changes;
}

bool PowerCutJournal::active() const {
  MutexLock lock(&mu_);
  return active_;
}

std::uint64_t PowerCutJournal::epoch() const {
  MutexLock lock(&mu_);
  return epoch_;
}

bool PowerCutJournal::Enter(bool any_epoch, std::uint64_t file_epoch, Admit admit) {
  MutexLock lock(&mu_);
  if (active_ && admit == Admit::kChange && off_after_.has_value() && (*off_after_)-- == 0) {
    active_ = false;  // this change is the first the power cut refuses
    off_after_.reset();
  }
  if ((!active_ && admit == Admit::kChange) || (!any_epoch && file_epoch != epoch_)) {
    ++stats_.refused;
    return false;
  }
  if (admit == Admit::kChange) ++stats_.changes;
  ++in_flight_;
  return true;
}

void PowerCutJournal::Leave() {
  MutexLock lock(&mu_);
  if (--in_flight_ == 0) idle_.SignalAll();
}

PowerCutJournal::Operation::Operation(PowerCutJournal& journal)
    : journal_(journal), admitted_(journal.Enter(true, 0, Admit::kChange)) {}

PowerCutJournal::Operation::Operation(PowerCutJournal& journal, std::uint64_t file_epoch,
                                      Admit admit)
    : journal_(journal), admitted_(journal.Enter(false, file_epoch, admit)) {}

PowerCutJournal::Operation::~Operation() {
  if (admitted_) journal_.Leave();
}

FileId PowerCutJournal::NewFile(const std::string& path, FileState state) {
  DropName(path);
  const FileId id = next_id_++;
  files_[id] = state;
  names_[path] = id;
  return id;
}

void PowerCutJournal::DropName(const std::string& path) {
  const auto it = names_.find(path);
  if (it == names_.end()) return;
  const FileId id = it->second;
  names_.erase(it);
  const bool named = std::any_of(names_.begin(), names_.end(),
                                 [id](const auto& name) { return name.second == id; });
  if (!named) files_.erase(id);
}

void PowerCutJournal::MoveName(const std::string& from, const std::string& to) {
  DropName(to);
  const auto it = names_.find(from);
  if (it == names_.end()) return;  // not written through the layer: all of it is durable
  names_[to] = it->second;
  names_.erase(it);
}

void PowerCutJournal::Record(DirOp op) {
  op.seq = next_seq_++;
  pending_.push_back(std::move(op));
}

FileId PowerCutJournal::Created(const std::string& path, bool existed) {
  const std::string p = NormalPath(path);
  MutexLock lock(&mu_);
  if (existed) {
    if (const auto it = names_.find(p); it != names_.end()) {
      files_[it->second] = FileState{};
      return it->second;
    }
    return NewFile(p, FileState{});
  }
  const FileId id = NewFile(p, FileState{});
  Record({DirOp::Kind::kCreate, 0, p, "", "", {ParentDir(p)}});
  return id;
}

FileId PowerCutJournal::Reopened(const std::string& path, std::uint64_t size) {
  const std::string p = NormalPath(path);
  MutexLock lock(&mu_);
  if (const auto it = names_.find(p); it != names_.end()) {
    FileState& file = files_[it->second];
    file.size = size;
    file.synced = std::min(file.synced, size);
    return it->second;
  }
  return NewFile(p, FileState{size, size});
}

void PowerCutJournal::Wrote(FileId id, std::uint64_t offset, std::uint64_t length) {
  MutexLock lock(&mu_);
  if (const auto it = files_.find(id); it != files_.end())
    it->second.size = std::max(it->second.size, offset + length);
}

void PowerCutJournal::Appended(FileId id, std::uint64_t length) {
  MutexLock lock(&mu_);
  if (const auto it = files_.find(id); it != files_.end()) it->second.size += length;
}

void PowerCutJournal::Truncated(FileId id, std::uint64_t size) {
  MutexLock lock(&mu_);
  if (const auto it = files_.find(id); it != files_.end()) {
    it->second.size = size;
    it->second.synced = std::min(it->second.synced, size);
  }
}

void PowerCutJournal::TruncatedPath(const std::string& path, std::uint64_t size) {
  FileId id = 0;
  {
    MutexLock lock(&mu_);
    const auto it = names_.find(NormalPath(path));
    if (it == names_.end()) return;
    id = it->second;
  }
  Truncated(id, size);
}

std::uint64_t PowerCutJournal::SyncStarting(FileId id) {
  MutexLock lock(&mu_);
  const auto it = files_.find(id);
  return it == files_.end() ? 0 : it->second.size;
}

void PowerCutJournal::Synced(FileId id, std::uint64_t covered) {
  MutexLock lock(&mu_);
  ++stats_.syncs;
  if (const auto it = files_.find(id); it != files_.end()) {
    FileState& file = it->second;
    file.synced = std::max(file.synced, std::min(covered, file.size));
  }
}

std::string PowerCutJournal::NewKeeperName(const std::string& path) {
  MutexLock lock(&mu_);
  return ParentDir(path) + "/" + kKeeperPrefix + std::to_string(next_keeper_++);
}

void PowerCutJournal::Deleted(const std::string& path, const std::string& kept) {
  const std::string p = NormalPath(path);
  MutexLock lock(&mu_);
  if (kept.empty()) {  // nothing to bring it back with: the deletion counts as durable
    DropName(p);
    return;
  }
  MoveName(p, kept);
  Record({DirOp::Kind::kDelete, 0, p, "", kept, {ParentDir(p)}});
}

void PowerCutJournal::Renamed(const std::string& from, const std::string& to,
                              const std::string& kept) {
  const std::string f = NormalPath(from);
  const std::string t = NormalPath(to);
  MutexLock lock(&mu_);
  if (kept.empty()) {
    DropName(t);
  } else {
    MoveName(t, kept);
  }
  MoveName(f, t);
  Record({DirOp::Kind::kRename, 0, t, f, kept, {ParentDir(f), ParentDir(t)}});
}

void PowerCutJournal::Linked(const std::string& from, const std::string& to) {
  const std::string f = NormalPath(from);
  const std::string t = NormalPath(to);
  MutexLock lock(&mu_);
  DropName(t);
  if (const auto it = names_.find(f); it != names_.end()) names_[t] = it->second;
  Record({DirOp::Kind::kLink, 0, t, f, "", {ParentDir(t)}});
}

void PowerCutJournal::DirCreated(const std::string& path) {
  const std::string p = NormalPath(path);
  MutexLock lock(&mu_);
  Record({DirOp::Kind::kMkdir, 0, p, "", "", {ParentDir(p)}});
}

std::vector<std::string> PowerCutJournal::DirDeleted(const std::string& path) {
  const std::string p = NormalPath(path);
  MutexLock lock(&mu_);
  std::vector<std::string> keepers;
  std::erase_if(pending_, [&](const DirOp& op) {
    const bool inside = Under(op.path, p) || Under(op.from, p) || Under(op.kept, p);
    if (inside && !op.kept.empty()) keepers.push_back(op.kept);
    return inside;
  });
  for (DirOp& op : pending_) op.unsynced.erase(p);
  std::vector<std::string> names;
  for (const auto& [name, id] : names_)
    if (Under(name, p)) names.push_back(name);
  for (const std::string& name : names) DropName(name);
  return keepers;
}

std::uint64_t PowerCutJournal::DirSyncStarting() {
  MutexLock lock(&mu_);
  return next_seq_;
}

std::vector<std::string> PowerCutJournal::DirSynced(const std::string& dir, std::uint64_t started) {
  const std::string d = NormalPath(dir);
  MutexLock lock(&mu_);
  ++stats_.dir_syncs;
  std::vector<std::string> keepers;
  std::erase_if(pending_, [&](DirOp& op) {
    if (op.seq < started) op.unsynced.erase(d);
    if (!op.unsynced.empty()) return false;
    if (!op.kept.empty()) keepers.push_back(op.kept);
    return true;
  });
  for (const std::string& kept : keepers) DropName(kept);
  return keepers;
}

rocksdb::Status PowerCutJournal::Cut(std::uint64_t seed, CutMode mode) {
  MutexLock lock(&mu_);
  if (active_) return rocksdb::Status::InvalidArgument("power cut with the power on");
  while (in_flight_ > 0) idle_.Wait(&mu_);
  ++stats_.cuts;
  std::mt19937_64 random(seed);
  rocksdb::IOStatus first;
  std::set<FileId> done;
  for (const auto& [path, id] : names_) {
    if (!done.insert(id).second) continue;  // a second name (a link): one inode, one cut
    ++stats_.files_tracked;
    Keep(&first, CutFile(path, files_[id], mode, random));
  }
  // Newest first: each undo finds the names as the operation left them.
  for (auto op = pending_.rbegin(); op != pending_.rend(); ++op) Keep(&first, Undo(*op));
  files_.clear();
  names_.clear();
  pending_.clear();
  ++epoch_;
  return first;
}

rocksdb::IOStatus PowerCutJournal::CutFile(const std::string& path, FileState file, CutMode mode,
                                           std::mt19937_64& random) {
  if (file.size <= file.synced) return rocksdb::IOStatus::OK();
  const std::uint64_t unsynced = file.size - file.synced;
  const rocksdb::IOOptions io;
  if (mode == CutMode::kCorruptTail) {
    const std::uint64_t start =
        file.synced + std::uniform_int_distribution<std::uint64_t>(0, unsynced - 1)(random);
    const std::uint64_t length = std::uniform_int_distribution<std::uint64_t>(
        1, std::min(kMaxDamage, file.size - start))(random);
    // Zeros: sectors the file system allocated whose write-back never
    // happened. Stale or random bytes are out of the model (journal header).
    const std::string damage(length, '\0');
    std::unique_ptr<rocksdb::FSRandomRWFile> out;
    auto s = disk_->NewRandomRWFile(path, rocksdb::FileOptions(), &out, nullptr);
    if (s.ok()) s = out->Write(start, damage, io, nullptr);
    if (s.ok()) s = out->Close(io, nullptr);
    if (s.ok()) {
      ++stats_.files_cut;
      stats_.bytes_damaged += length;
    }
    return s;
  }
  std::uint64_t keep = file.synced;
  if (mode == CutMode::kTear)
    keep += std::uniform_int_distribution<std::uint64_t>(0, unsynced)(random);
  if (keep == file.size) return rocksdb::IOStatus::OK();
  // POSIX's FileSystem has no Truncate by name in RocksDB 7.8; its writable
  // file's has, and closing one opened without preallocation keeps the size.
  std::unique_ptr<rocksdb::FSWritableFile> out;
  auto s = disk_->ReopenWritableFile(path, rocksdb::FileOptions(), &out, nullptr);
  if (s.ok()) s = out->Truncate(keep, io, nullptr);
  if (s.ok()) s = out->Close(io, nullptr);
  if (s.ok()) {
    ++stats_.files_cut;
    stats_.bytes_dropped += file.size - keep;
  }
  return s;
}

rocksdb::IOStatus PowerCutJournal::Undo(const DirOp& op) {
  const rocksdb::IOOptions io;
  rocksdb::IOStatus first;
  ++stats_.entries_undone;
  switch (op.kind) {
    case DirOp::Kind::kCreate:
    case DirOp::Kind::kLink:
      Keep(&first, disk_->DeleteFile(op.path, io, nullptr));
      break;
    case DirOp::Kind::kMkdir:
      Keep(&first, RemoveTree(op.path));
      break;
    case DirOp::Kind::kRename:
      // The file is back under its old name if it is still under the new one;
      // if something later removed it durably, neither name has it.
      if (disk_->FileExists(op.path, io, nullptr).ok()) {
        Keep(&first, disk_->RenameFile(op.path, op.from, io, nullptr));
      } else {
        ++stats_.entries_lost;
      }
      if (!op.kept.empty()) Keep(&first, disk_->RenameFile(op.kept, op.path, io, nullptr));
      break;
    case DirOp::Kind::kDelete:
      Keep(&first, disk_->RenameFile(op.kept, op.path, io, nullptr));
      break;
  }
  return first;
}

rocksdb::IOStatus PowerCutJournal::RemoveTree(const std::string& path) {
  const rocksdb::IOOptions io;
  std::vector<std::string> children;
  rocksdb::IOStatus first = disk_->GetChildren(path, io, &children, nullptr);
  for (const std::string& child : children) {
    if (child == "." || child == "..") continue;
    const std::string full = path + "/" + child;
    bool is_dir = false;
    if (disk_->IsDirectory(full, io, &is_dir, nullptr).ok() && is_dir) {
      Keep(&first, RemoveTree(full));
    } else {
      Keep(&first, disk_->DeleteFile(full, io, nullptr));
    }
  }
  Keep(&first, disk_->DeleteDir(path, io, nullptr));
  return first;
}

void PowerCutJournal::Reset() {
  MutexLock lock(&mu_);
  for (const DirOp& op : pending_) {
    if (op.kept.empty()) continue;
    (void)disk_->DeleteFile(op.kept, rocksdb::IOOptions(), nullptr);
    DropName(op.kept);
  }
  pending_.clear();
  for (auto& [id, file] : files_) file.synced = file.size;
  stats_ = PowerCutStats{};
}

PowerCutStats PowerCutJournal::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

}  // namespace indelible::power_loss
