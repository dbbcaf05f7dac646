// The write-ahead log Envs (src/storage/embedded/log_files.h): a writer's
// WAL is sized ahead of its records, and a follower reads such a file only
// up to its last whole record, however the bytes after it look.
#include "storage/embedded/log_files.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/file_system.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "testutil/temp_dir.h"

namespace indelible::storage::embedded {
namespace {

std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// What a follower reads of the file at `path`, to its end as it sees it.
std::string FollowerReads(const std::string& path) {
  auto env = NewFollowerEnv(nullptr);
  std::unique_ptr<rocksdb::FSSequentialFile> file;
  EXPECT_TRUE(
      env->GetFileSystem()->NewSequentialFile(path, rocksdb::FileOptions(), &file, nullptr).ok());
  std::string out;
  std::string scratch(32768, '\0');
  for (;;) {
    rocksdb::Slice got;
    EXPECT_TRUE(
        file->Read(scratch.size(), rocksdb::IOOptions(), &got, scratch.data(), nullptr).ok());
    if (got.empty()) return out;
    out.append(got.data(), got.size());
  }
}

class LogFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = NewWriterEnv(nullptr);
    rocksdb::Options options;
    options.create_if_missing = true;
    options.env = env_.get();
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir_.Sub("db"), &db).ok());
    db_.reset(db);
  }

  void Put(const std::string& key, const std::string& value) {
    rocksdb::WriteOptions sync;
    sync.sync = true;
    ASSERT_TRUE(db_->Put(sync, key, value).ok());
  }

  std::string LogFile() const {
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path() / "db"))
      if (entry.path().extension() == ".log") return entry.path().string();
    ADD_FAILURE() << "no write-ahead log file";
    return "";
  }

  testutil::TempDir dir_;
  std::unique_ptr<rocksdb::Env> env_;
  std::unique_ptr<rocksdb::DB> db_;
};

TEST_F(LogFilesTest, AWritersLogIsSizedAheadAndAFollowerReadsItsRecordsOnly) {
  Put("a", "small");
  Put("b", std::string(70000, 'b'));  // three blocks: first, middle and last fragments
  Put("c", "after");
  const std::string path = LogFile();
  const std::string bytes = Bytes(path);
  const std::string records = FollowerReads(path);
  ASSERT_GT(records.size(), 70000u);
  // The file is longer than its records (so a sync does not change its
  // size), and what the follower stopped at is zeros.
  ASSERT_GT(bytes.size(), records.size() + 32768);
  EXPECT_EQ(bytes.substr(0, records.size()), records);
  EXPECT_EQ(bytes.find_first_not_of('\0', records.size()), std::string::npos);
  EXPECT_NE(records.find("after"), std::string::npos);
}

TEST_F(LogFilesTest, AFollowerStopsBeforeATornOrDamagedRecord) {
  Put("a", std::string(40000, 'a'));
  const std::string path = LogFile();
  const std::string before = FollowerReads(path);
  Put("b", "the next record");
  const std::string after = FollowerReads(path);
  ASSERT_GT(after.size(), before.size());
  const std::string next = after.substr(before.size());
  const std::string zeros(65536, '\0');
  const std::string copy = (dir_.path() / "000999.log").string();

  Write(copy, before + next.substr(0, next.size() - 3) + zeros);  // written in part
  EXPECT_EQ(FollowerReads(copy), before);
  std::string damaged = next;
  damaged[damaged.size() - 2] ^= 1;
  Write(copy, before + damaged + zeros);
  EXPECT_EQ(FollowerReads(copy), before);
  Write(copy, before + next + zeros);
  EXPECT_EQ(FollowerReads(copy), after);
  Write(copy, before + next);  // a file that ends with its records
  EXPECT_EQ(FollowerReads(copy), after);
}

}  // namespace
}  // namespace indelible::storage::embedded
