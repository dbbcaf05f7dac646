// The power-cut layer on its own: files written through the FileSystem API
// (no RocksDB), cut, and read back from the real disk. What it must show:
// only what a sync covered survives, names only what a directory fsync
// covered, and nothing changes while the power is off.
#include "power_loss/power_cut_fs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "testutil/temp_dir.h"

namespace indelible::power_loss {
namespace {

using rocksdb::FSWritableFile;
using rocksdb::IOOptions;

std::string ReadDisk(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool OnDisk(const std::string& path) { return std::filesystem::exists(path); }

class PowerCutFsTest : public ::testing::Test {
 protected:
  std::unique_ptr<FSWritableFile> Open(const std::string& path) {
    std::unique_ptr<FSWritableFile> file;
    EXPECT_TRUE(fs_->NewWritableFile(path, rocksdb::FileOptions(), &file, nullptr).ok());
    return file;
  }
  void Append(FSWritableFile& file, const std::string& data) {
    ASSERT_TRUE(file.Append(data, IOOptions(), nullptr).ok());
  }
  void Sync(FSWritableFile& file) { ASSERT_TRUE(file.Sync(IOOptions(), nullptr).ok()); }
  void Close(FSWritableFile& file) { ASSERT_TRUE(file.Close(IOOptions(), nullptr).ok()); }
  void SyncDir(const std::string& dir) {
    std::unique_ptr<rocksdb::FSDirectory> d;
    ASSERT_TRUE(fs_->NewDirectory(dir, IOOptions(), &d, nullptr).ok());
    ASSERT_TRUE(d->Fsync(IOOptions(), nullptr).ok());
  }
  // A file whose name and first `synced` bytes are durable, with
  // `unsynced` more bytes written after the sync.
  void WriteTail(const std::string& path, const std::string& synced, const std::string& unsynced) {
    auto file = Open(path);
    Append(*file, synced);
    Sync(*file);
    SyncDir(ParentDir(path));
    Append(*file, unsynced);
    Close(*file);
  }
  void CutPower(std::uint64_t seed, CutMode mode) {
    fs_->SetActive(false);
    const rocksdb::Status s = fs_->Cut(seed, mode);
    ASSERT_TRUE(s.ok()) << s.ToString();
    fs_->SetActive(true);
  }

  testutil::TempDir tmp_;
  const std::string dir_ = tmp_.path().string();
  std::shared_ptr<PowerCutFileSystem> fs_ = std::make_shared<PowerCutFileSystem>();
};

TEST_F(PowerCutFsTest, WriteWithoutSyncIsGone) {
  WriteTail(tmp_.Sub("f"), "", "never synced");
  ASSERT_EQ(ReadDisk(tmp_.Sub("f")), "never synced");  // the kernel had it, before the cut
  CutPower(1, CutMode::kDrop);
  EXPECT_TRUE(OnDisk(tmp_.Sub("f")));
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), "");
  EXPECT_EQ(fs_->stats().bytes_dropped, 12u);
}

TEST_F(PowerCutFsTest, SyncedWriteStaysInEveryMode) {
  for (const CutMode mode : {CutMode::kDrop, CutMode::kTear, CutMode::kCorruptTail}) {
    for (std::uint64_t seed = 0; seed < 5; ++seed) {
      const std::string path = tmp_.Sub("f" + std::to_string(seed));
      WriteTail(path, "durable", "");
      CutPower(seed, mode);
      EXPECT_EQ(ReadDisk(path), "durable");
    }
  }
}

TEST_F(PowerCutFsTest, FlushAndRangeSyncMakeNothingDurable) {
  auto file = Open(tmp_.Sub("f"));
  SyncDir(dir_);
  Append(*file, "handed to the kernel only");
  ASSERT_TRUE(file->Flush(IOOptions(), nullptr).ok());
  ASSERT_TRUE(file->RangeSync(0, 25, IOOptions(), nullptr).ok());
  Close(*file);
  CutPower(1, CutMode::kDrop);
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), "");
}

TEST_F(PowerCutFsTest, DropCutsBackToTheSyncedSize) {
  WriteTail(tmp_.Sub("f"), std::string(100, 'a'), std::string(50, 'b'));
  CutPower(7, CutMode::kDrop);
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), std::string(100, 'a'));
}

TEST_F(PowerCutFsTest, TearKeepsAPrefixOfTheUnsyncedTail) {
  const std::string synced(100, 's');
  std::string unsynced;
  for (int i = 0; i < 1000; ++i) unsynced += static_cast<char>('a' + i % 26);
  std::set<std::size_t> sizes;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const std::string path = tmp_.Sub("f" + std::to_string(seed));
    WriteTail(path, synced, unsynced);
    CutPower(seed, CutMode::kTear);
    const std::string left = ReadDisk(path);
    ASSERT_GE(left.size(), synced.size()) << "seed " << seed;
    ASSERT_LE(left.size(), synced.size() + unsynced.size()) << "seed " << seed;
    EXPECT_EQ(left, (synced + unsynced).substr(0, left.size())) << "seed " << seed;
    sizes.insert(left.size());
  }
  EXPECT_GE(sizes.size(), 10u) << "tears should fall at many places";
}

TEST_F(PowerCutFsTest, SameHistoryAndSeedCutTheSame) {
  for (const CutMode mode : {CutMode::kTear, CutMode::kCorruptTail}) {
    std::string first;
    for (int run = 0; run < 2; ++run) {
      const std::string path = tmp_.Sub("f" + std::to_string(run));
      WriteTail(path, "head", std::string(5000, 'x'));
      CutPower(42, mode);
      if (run == 0) {
        first = ReadDisk(path);
      } else {
        EXPECT_EQ(ReadDisk(path), first);
      }
    }
  }
}

TEST_F(PowerCutFsTest, CorruptTailDamagesOnlyTheUnsyncedTail) {
  const std::string synced(100, 's');
  const std::string unsynced(3000, 'u');
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const std::string path = tmp_.Sub("f" + std::to_string(seed));
    WriteTail(path, synced, unsynced);
    CutPower(seed, CutMode::kCorruptTail);
    const std::string left = ReadDisk(path);
    ASSERT_EQ(left.size(), synced.size() + unsynced.size()) << "seed " << seed;
    EXPECT_EQ(left.substr(0, synced.size()), synced) << "seed " << seed;
    EXPECT_NE(left.substr(synced.size()), unsynced) << "seed " << seed;
  }
  EXPECT_EQ(fs_->stats().files_cut, 10u);
}

TEST_F(PowerCutFsTest, NewFileWithoutDirectorySyncIsGone) {
  auto file = Open(tmp_.Sub("new"));
  Append(*file, "synced, but its name is not");
  Sync(*file);
  ASSERT_TRUE(file->Fsync(IOOptions(), nullptr).ok());
  Close(*file);
  CutPower(1, CutMode::kDrop);
  EXPECT_FALSE(OnDisk(tmp_.Sub("new")));
  EXPECT_EQ(fs_->stats().entries_undone, 1u);
}

TEST_F(PowerCutFsTest, NewFileWithDirectorySyncStays) {
  auto file = Open(tmp_.Sub("new"));
  Append(*file, "named");
  Sync(*file);
  Close(*file);
  SyncDir(dir_);
  CutPower(1, CutMode::kDrop);
  EXPECT_EQ(ReadDisk(tmp_.Sub("new")), "named");
}

TEST_F(PowerCutFsTest, SyncOfAnotherDirectoryDoesNotCount) {
  ASSERT_TRUE(fs_->CreateDir(tmp_.Sub("a"), IOOptions(), nullptr).ok());
  ASSERT_TRUE(fs_->CreateDir(tmp_.Sub("b"), IOOptions(), nullptr).ok());
  SyncDir(dir_);
  WriteTail(tmp_.Sub("a/kept"), "x", "");  // syncs a
  auto file = Open(tmp_.Sub("a/lost"));
  Sync(*file);
  Close(*file);
  SyncDir(tmp_.Sub("b"));
  CutPower(1, CutMode::kDrop);
  EXPECT_TRUE(OnDisk(tmp_.Sub("a/kept")));
  EXPECT_FALSE(OnDisk(tmp_.Sub("a/lost")));
}

TEST_F(PowerCutFsTest, NewDirectoryWithoutParentSyncIsGone) {
  ASSERT_TRUE(fs_->CreateDirIfMissing(tmp_.Sub("db"), IOOptions(), nullptr).ok());
  WriteTail(tmp_.Sub("db/file"), "synced in a synced folder", "");
  CutPower(1, CutMode::kDrop);
  EXPECT_FALSE(OnDisk(tmp_.Sub("db")));
}

TEST_F(PowerCutFsTest, UnsyncedRenameIsUndone) {
  WriteTail(tmp_.Sub("tmp"), "content", "");
  ASSERT_TRUE(fs_->RenameFile(tmp_.Sub("tmp"), tmp_.Sub("CURRENT"), IOOptions(), nullptr).ok());
  CutPower(1, CutMode::kDrop);
  EXPECT_FALSE(OnDisk(tmp_.Sub("CURRENT")));
  EXPECT_EQ(ReadDisk(tmp_.Sub("tmp")), "content");
}

TEST_F(PowerCutFsTest, UnsyncedRenameOverAFileBringsTheOldOneBack) {
  WriteTail(tmp_.Sub("CURRENT"), "old", "");
  WriteTail(tmp_.Sub("tmp"), "new", "");
  ASSERT_TRUE(fs_->RenameFile(tmp_.Sub("tmp"), tmp_.Sub("CURRENT"), IOOptions(), nullptr).ok());
  ASSERT_EQ(ReadDisk(tmp_.Sub("CURRENT")), "new");
  CutPower(1, CutMode::kDrop);
  EXPECT_EQ(ReadDisk(tmp_.Sub("CURRENT")), "old");
  EXPECT_EQ(ReadDisk(tmp_.Sub("tmp")), "new");
}

TEST_F(PowerCutFsTest, SyncedRenameStaysAndLeavesNoKeeper) {
  WriteTail(tmp_.Sub("CURRENT"), "old", "");
  WriteTail(tmp_.Sub("tmp"), "new", "");
  ASSERT_TRUE(fs_->RenameFile(tmp_.Sub("tmp"), tmp_.Sub("CURRENT"), IOOptions(), nullptr).ok());
  SyncDir(dir_);
  CutPower(1, CutMode::kDrop);
  EXPECT_EQ(ReadDisk(tmp_.Sub("CURRENT")), "new");
  EXPECT_FALSE(OnDisk(tmp_.Sub("tmp")));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(PowerCutFsTest, UnsyncedDeleteIsUndoneAndItsKeeperHidden) {
  WriteTail(tmp_.Sub("old.log"), "acknowledged", " and more");
  ASSERT_TRUE(fs_->DeleteFile(tmp_.Sub("old.log"), IOOptions(), nullptr).ok());
  std::vector<std::string> children;
  ASSERT_TRUE(fs_->GetChildren(dir_, IOOptions(), &children, nullptr).ok());
  EXPECT_TRUE(children.empty()) << children.front();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);  // the keeper
  CutPower(3, CutMode::kDrop);
  EXPECT_EQ(ReadDisk(tmp_.Sub("old.log")), "acknowledged");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(PowerCutFsTest, SyncedDeleteStays) {
  WriteTail(tmp_.Sub("old.log"), "obsolete", "");
  ASSERT_TRUE(fs_->DeleteFile(tmp_.Sub("old.log"), IOOptions(), nullptr).ok());
  SyncDir(dir_);
  CutPower(1, CutMode::kDrop);
  EXPECT_FALSE(OnDisk(tmp_.Sub("old.log")));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 0);
}

TEST_F(PowerCutFsTest, PowerOffRefusesEveryChangeAndChangesNothing) {
  auto file = Open(tmp_.Sub("f"));
  Append(*file, "before");
  SyncDir(dir_);
  fs_->SetActive(false);
  const IOOptions io;
  EXPECT_TRUE(file->Append("after", io, nullptr).IsIOError());
  EXPECT_TRUE(file->Flush(io, nullptr).IsIOError());
  EXPECT_TRUE(file->Sync(io, nullptr).IsIOError());
  EXPECT_TRUE(file->Fsync(io, nullptr).IsIOError());
  std::unique_ptr<FSWritableFile> other;
  EXPECT_TRUE(fs_->NewWritableFile(tmp_.Sub("g"), {}, &other, nullptr).IsIOError());
  EXPECT_TRUE(fs_->RenameFile(tmp_.Sub("f"), tmp_.Sub("h"), io, nullptr).IsIOError());
  EXPECT_TRUE(fs_->LinkFile(tmp_.Sub("f"), tmp_.Sub("h"), io, nullptr).IsIOError());
  EXPECT_TRUE(fs_->DeleteFile(tmp_.Sub("f"), io, nullptr).IsIOError());
  EXPECT_TRUE(fs_->Truncate(tmp_.Sub("f"), 0, io, nullptr).IsIOError());
  EXPECT_TRUE(fs_->CreateDir(tmp_.Sub("d"), io, nullptr).IsIOError());
  std::unique_ptr<rocksdb::FSDirectory> d;
  ASSERT_TRUE(fs_->NewDirectory(dir_, io, &d, nullptr).ok());
  EXPECT_TRUE(d->Fsync(io, nullptr).IsIOError());
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), "before");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
  // Reads still work.
  std::unique_ptr<rocksdb::FSSequentialFile> in;
  ASSERT_TRUE(fs_->NewSequentialFile(tmp_.Sub("f"), {}, &in, nullptr).ok());
  char buf[16];
  rocksdb::Slice got;
  ASSERT_TRUE(in->Read(sizeof buf, io, &got, buf, nullptr).ok());
  EXPECT_EQ(got.ToString(), "before");
  EXPECT_GE(fs_->stats().refused, 11u);
  Close(*file);  // closing changes no byte: allowed
  ASSERT_TRUE(fs_->Cut(1, CutMode::kDrop).ok());
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), "");
}

TEST_F(PowerCutFsTest, PowerGoesOffAtTheCountedChange) {
  auto file = Open(tmp_.Sub("f"));
  SyncDir(dir_);
  fs_->PowerOffAfter(2);
  Append(*file, "a");  // change 0
  Sync(*file);         // change 1
  EXPECT_TRUE(fs_->active());
  EXPECT_TRUE(file->Append("b", IOOptions(), nullptr).IsIOError());  // change 2: off
  EXPECT_FALSE(fs_->active());
  EXPECT_TRUE(file->Append("c", IOOptions(), nullptr).IsIOError());
  Close(*file);
  ASSERT_TRUE(fs_->Cut(1, CutMode::kDrop).ok());
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), "a");
  // Turning the power on spends a count not reached.
  fs_->SetActive(true);
  fs_->PowerOffAfter(0);
  fs_->SetActive(false);
  fs_->SetActive(true);
  WriteTail(tmp_.Sub("g"), "on", "");
  EXPECT_TRUE(fs_->active());
}

TEST_F(PowerCutFsTest, FileOpenedBeforeACutStaysRefused) {
  auto file = Open(tmp_.Sub("f"));
  SyncDir(dir_);
  CutPower(1, CutMode::kDrop);
  EXPECT_TRUE(file->Append("from a dead process", IOOptions(), nullptr).IsIOError());
  EXPECT_TRUE(file->Close(IOOptions(), nullptr).IsIOError());
  file.reset();  // left open on purpose (see Admit::kClose), not closed
  WriteTail(tmp_.Sub("g"), "after the reboot", "");
  EXPECT_EQ(ReadDisk(tmp_.Sub("f")), "");
  EXPECT_EQ(ReadDisk(tmp_.Sub("g")), "after the reboot");
}

TEST_F(PowerCutFsTest, CutRefusedWithThePowerOn) {
  EXPECT_TRUE(fs_->Cut(1, CutMode::kDrop).IsInvalidArgument());
}

}  // namespace
}  // namespace indelible::power_loss
