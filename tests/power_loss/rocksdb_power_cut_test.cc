// RocksDB itself on the power-cut layer: the property the product promises
// rests on it. Every write acknowledged with WriteOptions::sync must be there
// after any cut, and the DB must open (default recovery mode, which is
// kPointInTimeRecovery in RocksDB 7.8).
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "power_loss/power_cut_fs.h"
#include "testutil/temp_dir.h"

namespace indelible::power_loss {
namespace {

std::string Key(int n) {
  char key[16];
  std::snprintf(key, sizeof key, "k%08d", n);
  return key;
}

std::string Value(int n) { return std::string(200, static_cast<char>('a' + n % 26)) + Key(n); }

rocksdb::Options DbOptions(rocksdb::Env* env) {
  rocksdb::Options options;
  options.env = env;
  options.create_if_missing = true;
  options.write_buffer_size = 64 << 10;  // a flush or two per round, and compactions
  return options;
}

// Returns how many of `keys` are missing or wrong.
int Missing(rocksdb::DB& db, const std::map<std::string, std::string>& keys) {
  int missing = 0;
  for (const auto& [key, value] : keys) {
    std::string got;
    if (!db.Get(rocksdb::ReadOptions(), key, &got).ok() || got != value) ++missing;
  }
  return missing;
}

// Rounds of: open through the layer, write (a third of the writes synced,
// then a run of unsynced ones), cut the power with the DB closed while off,
// in turn dropping, tearing and damaging unsynced tails. The folder is made
// beforehand, outside the layer, as the embedded store makes its own
// (storage/embedded/open.cc): RocksDB does not fsync the parent of a folder
// it creates, so under this model a new DB's folder is lost whole (README).
TEST(RocksDbPowerCutTest, EverySyncedWriteSurvivesEveryCut) {
  testutil::TempDir tmp;
  const std::string path = tmp.Sub("db");
  std::filesystem::create_directories(path);
  auto fs = std::make_shared<PowerCutFileSystem>();
  auto env = rocksdb::NewCompositeEnv(fs);
  std::map<std::string, std::string> synced;  // acknowledged with sync=true
  std::map<std::string, std::string> unsynced;
  constexpr int kRounds = 30;
  constexpr int kWritesPerRound = 600;
  int n = 0;
  for (int round = 0; round < kRounds; ++round) {
    rocksdb::DB* db = nullptr;
    const rocksdb::Status opened = rocksdb::DB::Open(DbOptions(env.get()), path, &db);
    ASSERT_TRUE(opened.ok()) << "round " << round << ": " << opened.ToString();
    ASSERT_EQ(Missing(*db, synced), 0) << "round " << round << ": synced writes lost";
    // Then a run of unsynced writes, so that cuts fall inside a longer tail.
    const int unsynced_run = round * 37 % 400;
    for (int i = 0; i < kWritesPerRound + unsynced_run; ++i, ++n) {
      rocksdb::WriteOptions write;
      write.sync = i < kWritesPerRound && i % 3 == 0;
      ASSERT_TRUE(db->Put(write, Key(n), Value(n)).ok());
      (write.sync ? synced : unsynced)[Key(n)] = Value(n);
    }
    fs->SetActive(false);
    (void)db->Close();  // fails, the power is off; it releases the files and the LOCK
    delete db;
    const auto mode = static_cast<CutMode>(round % 3);
    const rocksdb::Status cut = fs->Cut(static_cast<std::uint64_t>(round), mode);
    ASSERT_TRUE(cut.ok()) << cut.ToString();
    fs->SetActive(true);
  }

  rocksdb::DB* db = nullptr;
  const rocksdb::Status opened = rocksdb::DB::Open(DbOptions(rocksdb::Env::Default()), path, &db);
  ASSERT_TRUE(opened.ok()) << opened.ToString();
  EXPECT_EQ(Missing(*db, synced), 0);
  const int unsynced_lost = Missing(*db, unsynced);
  delete db;

  const PowerCutStats stats = fs->stats();
  std::cout << "cuts " << stats.cuts << ", synced writes " << synced.size() << " (0 lost)"
            << ", unsynced writes " << unsynced.size() << " (" << unsynced_lost << " lost)"
            << ", files cut " << stats.files_cut << " of " << stats.files_tracked
            << ", bytes dropped " << stats.bytes_dropped << ", bytes damaged "
            << stats.bytes_damaged << ", entries undone " << stats.entries_undone << " (lost "
            << stats.entries_lost << "), syncs " << stats.syncs << ", dir syncs " << stats.dir_syncs
            << ", refused " << stats.refused << "\n";
  EXPECT_GT(stats.files_cut, 0u);
  EXPECT_GT(unsynced_lost, 0) << "no cut took anything: the layer is not under RocksDB";
}

}  // namespace
}  // namespace indelible::power_loss
