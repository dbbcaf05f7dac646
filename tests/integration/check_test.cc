// `check` must find damage and say what it is: a record that fails its
// checksum, an index entry that is missing, a head that disagrees.
#include <gtest/gtest.h>
#include <indelible/store.h>
#include <rocksdb/db.h>
#include <rocksdb/slice_transform.h>

#include <filesystem>
#include <fstream>

#include "storage/embedded/format.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

namespace embedded = storage::embedded;

// Fills a store with a few streams and closes it.
void Fill(const std::string& dir, int events) {
  auto store = Store::Open("file:" + dir);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  for (int i = 0; i < events; ++i) {
    EventData e;
    e.type = "Filled";
    e.data = R"({"i":)" + std::to_string(i) + "}";
    ASSERT_TRUE((*store)->Append("fill-" + std::to_string(i % 5), Expected::any(), {e}).ok());
  }
}

Status CheckFolder(const std::string& dir) {
  auto store = Store::Open("file:" + dir);
  if (!store.ok()) return store.status();
  return (*store)->Check();
}

// Runs `edit` on the raw RocksDB of a closed store, with its column families
// in the order default, log, appends, event_ids, tags.
template <class Edit>
void EditRaw(const std::string& dir, Edit edit) {
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {{rocksdb::kDefaultColumnFamilyName, {}},
                                                           {embedded::kLogFamily, {}},
                                                           {embedded::kAppendsFamily, {}},
                                                           {embedded::kEventIdsFamily, {}},
                                                           {embedded::kTagsFamily, {}}};
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  rocksdb::DBOptions options;
  options.allow_concurrent_memtable_write = false;
  // The hash-memtable family needs the same prefix extractor to reopen.
  families[3].options.prefix_extractor.reset(rocksdb::NewNoopTransform());
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, families, &handles, &db).ok());
  edit(db, handles);
  for (auto* h : handles) (void)db->DestroyColumnFamilyHandle(h);
  delete db;
}

TEST(CheckTest, HealthyStorePasses) {
  testutil::TempDir tmp;
  Fill(tmp.Sub("d"), 50);
  EXPECT_TRUE(CheckFolder(tmp.Sub("d")).ok());
}

// A scavenge's gaps are accounted for (docs/FORMAT.md, "Scavenged
// events"); a log record gone without one is damage.
TEST(CheckTest, ALogGapIsDamageUnlessAScavengeMadeIt) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 50);
  {
    auto store = Store::Open("file:" + dir);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    StreamMetadata keep;
    keep.max_count = 2;
    ASSERT_TRUE((*store)->WriteStreamMetadata("fill-0", keep).ok());
    auto report = (*store)->Scavenge();
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->events, 8u);
  }
  EXPECT_TRUE(CheckFolder(dir).ok()) << CheckFolder(dir).ToString();
  // Position 2 is fill-1's first event: nothing removed it but this.
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    ASSERT_TRUE(
        db->Delete(rocksdb::WriteOptions(), cf[1], embedded::PositionKey(Position(2))).ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("the log is missing 9 positions; scavenges removed 8 events"),
            std::string::npos)
      << s.message();
}

TEST(CheckTest, FindsAScavengedStreamWhoseRecordDisagreesWithItsIndex) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 50);
  {
    auto store = Store::Open("file:" + dir);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    StreamMetadata keep;
    keep.max_count = 2;
    ASSERT_TRUE((*store)->WriteStreamMetadata("fill-0", keep).ok());
    ASSERT_TRUE((*store)->Scavenge().ok());
  }
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    const std::string key = embedded::ScavengedKey("fill-0");
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[0], key,
                        embedded::EncodeScavenged(key, StreamVersion(5)))
                    .ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("stream 'fill-0'"), std::string::npos) << s.message();
}

TEST(CheckTest, FindsAMissingIdIndexEntry) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 20);
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    rocksdb::ReadOptions total;
    total.total_order_seek = true;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(total, cf[3]));
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), cf[3], it->key()).ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("no sound id index entry"), std::string::npos) << s.message();
}

TEST(CheckTest, FindsAnIdEntryWithoutItsEvent) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 20);
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    const EventId stray = EventId::Random();
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[3], embedded::IdKey(stray),
                        embedded::EncodeEventId(stray, Position(7)))
                    .ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("21 id records for 20 indexed events"), std::string::npos)
      << s.message();
}

// Format 3 writes the id entries behind the syncs (id_indexer.h): a crash
// can leave the progress record behind the log. The next open indexes the
// difference from the log, so retries and FindEvent see every id again.
TEST(CheckTest, IdsTheLastRunDidNotIndexAreIndexedAtOpen) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  std::vector<EventId> ids;
  {
    auto store = Store::Open("file:" + dir);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    for (int i = 0; i < 20; ++i) {
      EventData e;
      e.id = EventId::Random();
      e.type = "Filled";
      e.data = "{}";
      ids.push_back(e.id);
      ASSERT_TRUE((*store)->Append("fill-" + std::to_string(i % 5), Expected::any(), {e}).ok());
    }
  }
  // What a power loss after the syncs of positions 11-20 and before their
  // id entries reached the disk leaves.
  EditRaw(dir, [&](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    for (std::size_t i = 10; i < ids.size(); ++i)
      ASSERT_TRUE(db->Delete(rocksdb::WriteOptions(), cf[3], embedded::IdKey(ids[i])).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[0], embedded::kIdsIndexedKey,
                        embedded::EncodeIdsIndexed(Position(10)))
                    .ok());
  });
  auto store = Store::Open("file:" + dir);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_TRUE((*store)->Check().ok());
  auto found = (*store)->FindEvent(ids[15]);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->position, Position(16));
  // A retry of the 20th append is answered, not written again.
  EventData again;
  again.id = ids[19];
  again.type = "Filled";
  again.data = "{}";
  auto retried = (*store)->Append("fill-4", Expected::any(), {again});
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_TRUE(retried->replayed);
  EXPECT_EQ(retried->first_position, Position(20));
  EXPECT_EQ((*store)->LastPosition(), Position(20));
}

TEST(CheckTest, FindsAnIdIndexProgressRecordPastTheLog) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 5);
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[0], embedded::kIdsIndexedKey,
                        embedded::EncodeIdsIndexed(Position(9)))
                    .ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("says position 9, past the log's end (5)"), std::string::npos)
      << s.message();
}

TEST(CheckTest, FindsARecordThatFailsItsChecksum) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 10);
  // Rewrite position 5's record with one byte of its data changed but the
  // old checksum: only our record CRC can notice.
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    const std::string key = embedded::PositionKey(Position(5));
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), cf[1], key, &value).ok());
    value[value.size() - 2] ^= 0x01;
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[1], key, value).ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("event at position 5: checksum mismatch"), std::string::npos)
      << s.message();
}

// fill-0 holds versions 0, 1, ... one event per append (Fill).
TEST(CheckTest, FindsAnAppendEntryThatDisagreesWithItsEvents) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 10);
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    // Version 1 of fill-0 claims to be a tombstone: its event is not one.
    const std::string key = embedded::StreamVersionKey("fill-0", 1);
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), cf[2], key, &value).ok());
    auto entry = embedded::DecodeAppendEntry(key, value, true);
    ASSERT_TRUE(entry.has_value());
    entry->deleted = true;
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), cf[2], key, embedded::EncodeAppendEntry(key, *entry))
            .ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("stream 'fill-0' version 1: index entry says life from 0 (deleted)"),
            std::string::npos)
      << s.message();
}

TEST(CheckTest, FindsAMissingAppendEntryAndOneThatPointsElsewhere) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 10);
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    ASSERT_TRUE(
        db->Delete(rocksdb::WriteOptions(), cf[2], embedded::StreamVersionKey("fill-1", 0)).ok());
    const std::string key = embedded::StreamVersionKey("fill-2", 1);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[2], key,
                        embedded::EncodeAppendEntry(key, {Position(1), 1, StreamVersion(0), false}))
                    .ok());
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("stream 'fill-1' starts at version 1, not 0"), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("stream 'fill-2' version 1: the index says position 1"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("stream index covers 9 events of 10"), std::string::npos)
      << s.message();
}

TEST(CheckTest, FindsADamagedStateRecordAndACheckpointRecord) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  {
    auto store = Store::Open("file:" + dir);
    ASSERT_TRUE(store.ok());
    AppendRequest append{"acct-1", Expected::any(), {}};
    EventData e;
    e.type = "Opened";
    e.data = "{}";
    append.events.push_back(e);
    append.state = StateUpdate{R"({"balance":0})", 1};
    ASSERT_TRUE((*store)->Commit({append}).ok());
    ASSERT_TRUE((*store)->SaveRecord("group/g", R"({"checkpoint":1})").ok());
  }
  EXPECT_TRUE(CheckFolder(dir).ok());
  EditRaw(dir, [](rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*>& cf) {
    for (const std::string& key :
         {embedded::StateKey("acct-1"), embedded::CheckpointKey("group/g")}) {
      std::string value;
      ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), cf[0], key, &value).ok());
      value[value.size() - 2] ^= 0x01;
      ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), cf[0], key, value).ok());
    }
  });
  Status s = CheckFolder(dir);
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("state record of stream 'acct-1' fails its checksum"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("checkpoint record 'group/g' fails its checksum"), std::string::npos)
      << s.message();
  auto store = Store::Open("file:" + dir);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->ReadState("acct-1").status().code(), ErrorCode::kInternal);
  EXPECT_EQ((*store)->LoadRecord("group/g").status().code(), ErrorCode::kInternal);
}

TEST(CheckTest, FindsAFlippedByteOnDisk) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  Fill(dir, 2000);  // closing flushes the memtables into .sst files
  std::filesystem::path largest;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".sst" &&
        (largest.empty() || entry.file_size() > std::filesystem::file_size(largest)))
      largest = entry.path();
  ASSERT_FALSE(largest.empty());
  {
    std::fstream file(largest, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(std::filesystem::file_size(largest) / 3));
    char byte = 0;
    file.read(&byte, 1);
    file.seekp(static_cast<std::streamoff>(std::filesystem::file_size(largest) / 3));
    byte = static_cast<char>(byte ^ 0x5a);
    file.write(&byte, 1);
  }
  // RocksDB's block checksum or ours catches it: either way not ok, and the
  // message says corruption or checksum.
  Status s = CheckFolder(dir);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.message().find("orruption") != std::string::npos ||
              s.message().find("checksum") != std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace indelible
