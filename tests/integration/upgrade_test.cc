// Formats 1, 2 and 3 -> 4 (docs/FORMAT.md, "Upgrading"): a folder written by
// the last release of format 1, and one by the last of format 2, upgrade and
// read as those releases read them; `check` verifies every format; an
// upgrade killed with SIGKILL at any moment resumes and loses nothing; the
// states a crash can leave between the steps (a half-built index, format 1
// families after the flip) are recovered from.
#include <gtest/gtest.h>
#include <indelible/store.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "core/event_json.h"
#include "storage/embedded/embedded_store.h"
#include "storage/embedded/format.h"
#include "storage/embedded/format_v1.h"
#include "testutil/child_writer.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

namespace embedded = storage::embedded;

// ---- folders written by the last releases of formats 1 and 2 ----------

// tests/fixtures/vN-store.tar.gz (scripts/make-store-fixture.sh): the
// folder `vN-store` and `vN-store.jsonl`, that release's export of it.
std::string ExtractFixture(const testutil::TempDir& tmp, int format = 1) {
  const std::string name = "v" + std::to_string(format) + "-store";
  const std::string command = "tar -C " + tmp.path().string() + " -xzf " +
                              std::string(FIXTURE_DIR) + "/" + name + ".tar.gz";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return tmp.Sub(name);
}

std::vector<ExportedEvent> ReadExport(const std::string& path) {
  std::vector<ExportedEvent> events;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto event = ExportedEventFromJson(line);
    EXPECT_TRUE(event.ok()) << event.status().ToString();
    if (event.ok()) events.push_back(std::move(*event));
  }
  return events;
}

// The folder's format, -1 when it cannot be read.
int FormatOf(const std::string& dir) {
  auto format = storage::EmbeddedFolderFormat(dir);
  return format.ok() ? *format : -1;
}

std::unique_ptr<Store> OpenOrDie(const std::string& dir) {
  auto store = Store::Open("file:" + dir);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  return store.ok() ? std::move(*store) : nullptr;
}

// The upgraded folder at `dir` reads as its release exported it, answers
// retries of appends written before the upgrade, and takes new appends.
void ExpectReadsAsExported(const std::string& dir, const std::vector<ExportedEvent>& exported) {
  auto store = OpenOrDie(dir);
  ASSERT_NE(store, nullptr);
  Status check = store->Check();
  ASSERT_TRUE(check.ok()) << check.ToString();

  // $all is the export, event for event.
  auto all = store->ReadAll();
  ASSERT_TRUE(all.ok());
  std::size_t i = 0;
  for (auto& cursor = *all; cursor->Valid(); cursor->Next(), ++i) {
    ASSERT_LT(i, exported.size());
    const EventView& e = cursor->event();
    const ExportedEvent& want = exported[i];
    ASSERT_EQ(e.position, want.position);
    EXPECT_EQ(e.stream, want.stream);
    EXPECT_EQ(e.version, want.version);
    EXPECT_EQ(e.id, want.event.id);
    EXPECT_EQ(e.type, want.event.type);
    EXPECT_EQ(e.data, want.event.data);
    EXPECT_EQ(e.metadata, want.event.metadata);
    EXPECT_EQ(e.timestamp_ms, want.event.timestamp_ms.value_or(-1));
  }
  EXPECT_EQ(i, exported.size());

  // Every stream reads back whole (deleted ones with include_deleted),
  // forward and backward, and its head is its last exported event.
  std::map<std::string, std::vector<const ExportedEvent*>> streams;
  for (const auto& e : exported) streams[e.stream].push_back(&e);
  for (const auto& [name, events] : streams) {
    auto head = store->Head(name);
    ASSERT_TRUE(head.ok()) << name;
    EXPECT_EQ(head->version, events.back()->version) << name;
    EXPECT_EQ(head->position, events.back()->position) << name;
    EXPECT_EQ(head->deleted, events.back()->event.type == kDeletedEventType) << name;
    for (Direction direction : {Direction::kForward, Direction::kBackward}) {
      ReadStreamOptions options;
      options.direction = direction;
      options.include_deleted = true;
      auto cursor = store->ReadStream(name, options);
      ASSERT_TRUE(cursor.ok()) << name;
      std::size_t n = 0;
      for (; (*cursor)->Valid(); (*cursor)->Next(), ++n) {
        const ExportedEvent* want =
            events[direction == Direction::kForward ? n : events.size() - 1 - n];
        EXPECT_EQ((*cursor)->event().position, want->position) << name;
      }
      EXPECT_TRUE((*cursor)->status().ok()) << (*cursor)->status().ToString();
      EXPECT_EQ(n, events.size()) << name;
    }
  }

  // Lives and deletes as the old release left them.
  auto cart = store->Head("cart-7");
  ASSERT_TRUE(cart.ok());
  EXPECT_FALSE(cart->deleted);
  EXPECT_EQ(cart->first_version.value(), 3);
  EXPECT_EQ(store->ReadStream("gone-1", {}).status().code(), ErrorCode::kNotFound);
  auto state = store->ReadState("BANK_ACCOUNT/1");
  ASSERT_TRUE(state.ok() && state->has_value());
  EXPECT_EQ((*state)->data, R"({"balance":-275})");
  EXPECT_EQ((*state)->version.value(), 1);
  EXPECT_FALSE(store->ReadState("BANK_ACCOUNT/2")->has_value());
  auto group = store->LoadRecord("group/billing");
  ASSERT_TRUE(group.ok() && group->has_value());

  // Ids: found, and a retry of an append written before the upgrade is
  // answered with the original result.
  auto id = EventId::Parse("6f1c2a52-8f5e-4d7a-9d1e-2b3c4d5e6f71");
  ASSERT_TRUE(id.ok());
  auto found = store->FindEvent(*id);
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->stream, "retry-1");
  EventData a, b;
  a.id = *EventId::Parse("6f1c2a52-8f5e-4d7a-9d1e-2b3c4d5e6f70");
  a.type = "A";
  a.data = "{}";
  b.id = *id;
  b.type = "B";
  b.data = "{}";
  auto retried = store->Append("retry-1", Expected::no_stream(), {a, b});
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_TRUE(retried->replayed);
  EXPECT_EQ(retried->first_version.value(), 0);
  EXPECT_EQ(retried->position, (*found)->position);

  // And it takes new appends where the old release stopped.
  EventData next;
  next.type = "Returned";
  next.data = "{}";
  auto appended = store->Append("order-1", Expected::exactly(StreamVersion(5)), {next});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ(appended->position.value(), 3021u);
  EXPECT_TRUE(store->Check().ok());
}

TEST(UpgradeTest, AFolderOfTheLastFormat1ReleaseUpgradesAndReadsAsItDid) {
  testutil::TempDir tmp;
  const std::string dir = ExtractFixture(tmp);
  const std::vector<ExportedEvent> exported = ReadExport(tmp.Sub("v1-store.jsonl"));
  ASSERT_EQ(exported.size(), 3020u);

  // Before: format 1, and check verifies it as such.
  ASSERT_EQ(FormatOf(dir), 1);
  auto checked = storage::CheckEmbeddedFolderV1(dir, nullptr);
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(*checked, 3020u);

  // The upgrade reports progress that only grows and ends at its total.
  std::uint64_t last_done = 0, last_total = 0;
  bool grew = true;
  Status upgraded =
      storage::UpgradeEmbeddedStore(dir, [&](std::uint64_t done, std::uint64_t total) {
        grew = grew && done >= last_done;
        last_done = done;
        last_total = total;
      });
  ASSERT_TRUE(upgraded.ok()) << upgraded.ToString();
  EXPECT_TRUE(grew);
  EXPECT_GT(last_total, 0u);
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(FormatOf(dir), 4);
  EXPECT_EQ(storage::CheckEmbeddedFolderV1(dir, nullptr).status().code(), ErrorCode::kInvalid);
  ExpectReadsAsExported(dir, exported);
}

TEST(UpgradeTest, AFolderOfTheLastFormat2ReleaseUpgradesAndReadsAsItDid) {
  testutil::TempDir tmp;
  const std::string dir = ExtractFixture(tmp, 2);
  const std::vector<ExportedEvent> exported = ReadExport(tmp.Sub("v2-store.jsonl"));
  ASSERT_EQ(exported.size(), 3020u);
  ASSERT_EQ(FormatOf(dir), 2);
  {
    // A follower reads format 2 as it is, and checks it.
    StoreOptions follower;
    follower.follower = true;
    auto reader = Store::Open("file:" + dir, follower);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->LastPosition().value(), 3020u);
    Status check = (*reader)->Check();
    EXPECT_TRUE(check.ok()) << check.ToString();
    auto found = (*reader)->FindEvent(*EventId::Parse("6f1c2a52-8f5e-4d7a-9d1e-2b3c4d5e6f71"));
    ASSERT_TRUE(found.ok() && found->has_value());
  }
  EXPECT_EQ(FormatOf(dir), 2);
  ASSERT_TRUE(storage::UpgradeEmbeddedStore(dir, nullptr).ok());
  EXPECT_EQ(FormatOf(dir), 4);
  ExpectReadsAsExported(dir, exported);
}
// Format 3 (the releases before tags) -> 4: the same records and families
// but `tags`. Made here from a format 4 folder without tags by dropping the
// family and putting format 3's marker back, which is all that differs.
TEST(UpgradeTest, AFormat3FolderIsReadByAFollowerAndUpgradedByAWriter) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("data");
  {
    auto store = OpenOrDie(dir);
    for (int i = 0; i < 20; ++i) {
      EventData e;
      e.type = "Deposited";
      e.data = "{}";
      ASSERT_TRUE(store->Append("acct-" + std::to_string(i % 3), Expected::any(), {e}).ok());
    }
  }
  {
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const std::string& name : names)
      families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), dir, families, &handles, &db).ok());
    for (auto* handle : handles) {
      if (handle->GetName() == embedded::kTagsFamily) {
        EXPECT_TRUE(db->DropColumnFamily(handle).ok());
      } else if (handle->GetName() == rocksdb::kDefaultColumnFamilyName) {
        EXPECT_TRUE(db->Put({}, handle, embedded::kFormatKey, embedded::kFormatValueV3).ok());
      }
    }
    for (auto* handle : handles) EXPECT_TRUE(db->DestroyColumnFamilyHandle(handle).ok());
    delete db;
  }
  ASSERT_EQ(FormatOf(dir), 3);
  {
    StoreOptions follower;
    follower.follower = true;
    auto reader = Store::Open("file:" + dir, follower);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->LastPosition().value(), 20u);
    auto tagged = ReadQueryEvents(**reader, Query::Of({QueryItem{{}, {"any:tag"}}}));
    ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
    EXPECT_TRUE(tagged->empty());
    auto typed = ReadQueryEvents(**reader, Query::Of({QueryItem{{"Deposited"}, {}}}));
    ASSERT_TRUE(typed.ok());
    EXPECT_EQ(typed->size(), 20u);
    Status check = (*reader)->Check();
    EXPECT_TRUE(check.ok()) << check.ToString();
  }
  EXPECT_EQ(FormatOf(dir), 3) << "a follower writes nothing";
  auto store = OpenOrDie(dir);
  EXPECT_EQ(FormatOf(dir), 4);
  EventData tagged;
  tagged.type = "Deposited";
  tagged.data = "{}";
  tagged.tags = {"account:1"};
  ASSERT_TRUE(store->Append("acct-1", Expected::any(), {tagged}).ok());
  auto found = ReadQueryEvents(*store, Query::Of({QueryItem{{}, {"account:1"}}}));
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].position.value(), 21u);
  EXPECT_TRUE(store->Check().ok()) << store->Check().ToString();
}

TEST(UpgradeTest, OpeningAFormat1FolderForWritingUpgradesItAndAFollowerIsToldTo) {
  testutil::TempDir tmp;
  const std::string dir = ExtractFixture(tmp);
  StoreOptions follower;
  follower.follower = true;
  auto reader = Store::Open("file:" + dir, follower);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), ErrorCode::kInvalid) << reader.status().ToString();
  EXPECT_NE(reader.status().message().find("upgrade"), std::string::npos);
  {
    auto store = OpenOrDie(dir);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->LastPosition().value(), 3020u);
    EXPECT_TRUE(store->Check().ok());
  }
  EXPECT_EQ(FormatOf(dir), 4);
  // Upgrading a current folder is nothing to do.
  EXPECT_TRUE(storage::UpgradeEmbeddedStore(dir, nullptr).ok());
}

// Runs `edit` on the raw RocksDB of a closed folder, every family open.
template <class Edit>
void EditFamilies(const std::string& dir, Edit edit) {
  std::vector<std::string> names;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies({}, dir, &names).ok());
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (const auto& name : names) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open({}, dir, families, &handles, &db).ok());
  edit(db, names, handles);
  for (auto* h : handles) (void)db->DestroyColumnFamilyHandle(h);
  delete db;
}

TEST(UpgradeTest, CheckOfAFormat1FolderFindsDamage) {
  testutil::TempDir tmp;
  const std::string dir = ExtractFixture(tmp);
  EditFamilies(dir, [](rocksdb::DB* db, const std::vector<std::string>& names,
                       std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == embedded::v1::kHeadsFamily) {
        StreamHead wrong{StreamVersion(9), Position(3), false, StreamVersion(0)};
        ASSERT_TRUE(
            db->Put({}, handles[i], "order-1", embedded::v1::EncodeHead("order-1", wrong)).ok());
      }
  });
  auto checked = storage::CheckEmbeddedFolderV1(dir, nullptr);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.status().message().find("stream 'order-1': head record"), std::string::npos)
      << checked.status().ToString();
}

// ---- a big format 1 folder, for kills mid-upgrade ------------------------

// What the engine of format 1 wrote for each append (the last release's
// engine.cc, DecideAndStage): the event records, one stream entry per event
// with the append's run counting down, one id record per event, the head.
// Written here directly with format 1's encoders (format_v1.h) because no
// build writes format 1 any more; the fixture test above guards that real
// release output upgrades the same way.
struct V1Stream {
  std::int64_t version = -1;
  Position position;
  bool deleted = false;
  std::int64_t life_first = 0;
};

struct V1Folder {
  std::map<std::string, V1Stream> heads;
  std::vector<EventId> ids;
  std::uint64_t events = 0;
};

V1Folder WriteV1Folder(const std::string& dir, std::uint64_t target_events) {
  V1Folder folder;
  rocksdb::DBOptions options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families = {{rocksdb::kDefaultColumnFamilyName, {}},
                                                           {embedded::kLogFamily, {}},
                                                           {embedded::v1::kStreamsFamily, {}},
                                                           {embedded::v1::kHeadsFamily, {}},
                                                           {embedded::v1::kIdsFamily, {}}};
  std::vector<rocksdb::ColumnFamilyHandle*> cf;
  rocksdb::DB* db = nullptr;
  EXPECT_TRUE(rocksdb::DB::Open(options, dir, families, &cf, &db).ok());
  if (db == nullptr) return folder;
  EXPECT_TRUE(db->Put({}, cf[0], embedded::kFormatKey, embedded::v1::kFormatValue).ok());
  std::mt19937_64 random(7);
  rocksdb::WriteBatch batch;
  std::uint64_t position = 1;
  std::string record;
  while (folder.events < target_events) {
    const std::string stream = "acct-" + std::to_string(random() % 500);
    V1Stream& head = folder.heads[stream];
    // One append in 40 deletes a live stream; the next one starts a life.
    const bool tombstone = head.version >= 0 && !head.deleted && random() % 40 == 0;
    const std::uint32_t count = tombstone ? 1 : 1 + static_cast<std::uint32_t>(random() % 6);
    if (head.deleted) head.life_first = head.version + 1;
    const Position first(position);
    const std::int64_t first_version = head.version + 1;
    for (std::uint32_t i = 0; i < count; ++i) {
      EventData e;
      e.id = EventId::Random();
      e.type = tombstone ? std::string(kDeletedEventType) : "Deposited";
      e.data = R"({"amount":)" + std::to_string(random() % 1000) + "}";
      const StreamVersion version(first_version + i);
      embedded::EncodeEvent(e, stream, version, Position(position), 1700000000000, &record);
      batch.Put(cf[1], embedded::PositionKey(Position(position)), record);
      const std::string key = embedded::StreamVersionKey(stream, version.value());
      batch.Put(cf[2], key, embedded::v1::EncodeStreamEntry(key, {Position(position), count - i}));
      batch.Put(cf[4], embedded::IdKey(e.id),
                embedded::v1::EncodeId(
                    e.id, {Position(position), first, StreamVersion(first_version), count}));
      if (folder.ids.size() < 1000) folder.ids.push_back(e.id);
      ++position;
    }
    head.version = first_version + count - 1;
    head.position = Position(position - 1);
    head.deleted = tombstone;
    StreamHead state{StreamVersion(head.version), head.position, head.deleted,
                     StreamVersion(head.life_first)};
    batch.Put(cf[3], stream, embedded::v1::EncodeHead(stream, state));
    folder.events += count;
    if (batch.Count() > 8192) {
      EXPECT_TRUE(db->Write({}, &batch).ok());
      batch.Clear();
    }
  }
  EXPECT_TRUE(db->Write({}, &batch).ok());
  EXPECT_TRUE(db->Flush({}, cf).ok());
  for (auto* h : cf) (void)db->DestroyColumnFamilyHandle(h);
  delete db;
  return folder;
}

// Everything the format 1 folder held reads back from the upgraded one.
void ExpectUpgradedWhole(const std::string& dir, const V1Folder& folder) {
  ASSERT_EQ(FormatOf(dir), 4);
  auto store = OpenOrDie(dir);
  ASSERT_NE(store, nullptr);
  Status check = store->Check();
  ASSERT_TRUE(check.ok()) << check.ToString();
  EXPECT_EQ(store->LastPosition().value(), folder.events);
  for (const auto& [name, want] : folder.heads) {
    auto head = store->Head(name);
    ASSERT_TRUE(head.ok()) << name;
    EXPECT_EQ(head->version.value(), want.version) << name;
    EXPECT_EQ(head->position, want.position) << name;
    EXPECT_EQ(head->deleted, want.deleted) << name;
    EXPECT_EQ(head->first_version.value(), want.life_first) << name;
  }
  for (const EventId& id : folder.ids) {
    auto found = store->FindEvent(id);
    ASSERT_TRUE(found.ok() && found->has_value()) << id.ToString();
  }
}

TEST(UpgradeTest, AnUpgradeKilledAtAnyMomentResumesAndLosesNothing) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  auto start = std::chrono::steady_clock::now();
  const V1Folder folder = WriteV1Folder(dir, 60000);
  ASSERT_TRUE(storage::CheckEmbeddedFolderV1(dir, nullptr).ok());
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::fprintf(stderr, "format 1 folder of %llu events written and checked in %.1f s\n",
               static_cast<unsigned long long>(folder.events), seconds());
  // `indelible upgrade` in a child, killed after a random wait that grows
  // round by round, until one round finishes by itself or flips the marker.
  std::mt19937 random(std::random_device{}());
  int kills_in_format1 = 0;
  for (int round = 0; round < 12; ++round) {
    testutil::ChildWriter child(INDELIBLE_BINARY, {"--data", dir, "upgrade"});
    ASSERT_TRUE(child.ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(
        std::uniform_int_distribution<int>(20, 100 + 150 * round)(random)));
    const bool killed = child.KillAndWait();
    auto format = storage::EmbeddedFolderFormat(dir);
    ASSERT_TRUE(format.ok()) << format.status().ToString();
    ASSERT_TRUE(*format == 1 || *format == 4);
    std::fprintf(stderr, "round %d: %s, format %d after %.1f s\n", round,
                 killed ? "killed" : "finished", *format, seconds());
    if (!killed || *format == 4) break;
    ++kills_in_format1;
    // Whatever the kill left, format 1 still checks clean.
    auto checked = storage::CheckEmbeddedFolderV1(dir, nullptr);
    ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  }
  EXPECT_GT(kills_in_format1, 0) << "no kill landed before the upgrade finished";
  ASSERT_TRUE(storage::UpgradeEmbeddedStore(dir, nullptr).ok());
  ExpectUpgradedWhole(dir, folder);
}

// The two states between the upgrade's steps, made on purpose.
TEST(UpgradeTest, AHalfBuiltFormat2IndexIsClearedAndLeftoverFormat1FamiliesDropped) {
  testutil::TempDir tmp;
  const std::string dir = tmp.Sub("d");
  const V1Folder folder = WriteV1Folder(dir, 5000);
  // Stopped mid-build: the new families with wrong entries, marker still 1.
  EditFamilies(dir, [](rocksdb::DB* db, const std::vector<std::string>&,
                       std::vector<rocksdb::ColumnFamilyHandle*>&) {
    rocksdb::ColumnFamilyHandle* appends = nullptr;
    rocksdb::ColumnFamilyHandle* ids = nullptr;
    ASSERT_TRUE(db->CreateColumnFamily({}, embedded::kAppendsFamily, &appends).ok());
    ASSERT_TRUE(db->CreateColumnFamily({}, embedded::kEventIdsFamily, &ids).ok());
    const std::string key = embedded::StreamVersionKey("acct-0", 77);
    ASSERT_TRUE(db->Put({}, appends, key,
                        embedded::EncodeAppendEntry(key, {Position(1), 1, StreamVersion(0), false}))
                    .ok());
    const EventId stray = EventId::Random();
    ASSERT_TRUE(
        db->Put({}, ids, embedded::IdKey(stray), embedded::EncodeEventId(stray, Position(1))).ok());
    (void)db->DestroyColumnFamilyHandle(appends);
    (void)db->DestroyColumnFamilyHandle(ids);
  });
  ASSERT_EQ(FormatOf(dir), 1);
  ASSERT_TRUE(storage::UpgradeEmbeddedStore(dir, nullptr).ok());
  ExpectUpgradedWhole(dir, folder);

  // Stopped after the flip: format 1's families still there, marker 3.
  EditFamilies(dir, [](rocksdb::DB* db, const std::vector<std::string>&,
                       std::vector<rocksdb::ColumnFamilyHandle*>&) {
    for (const char* name :
         {embedded::v1::kStreamsFamily, embedded::v1::kHeadsFamily, embedded::v1::kIdsFamily}) {
      rocksdb::ColumnFamilyHandle* family = nullptr;
      ASSERT_TRUE(db->CreateColumnFamily({}, name, &family).ok());
      ASSERT_TRUE(db->Put({}, family, "junk", "junk").ok());
      (void)db->DestroyColumnFamilyHandle(family);
    }
  });
  { auto store = OpenOrDie(dir); }
  std::vector<std::string> names;
  ASSERT_TRUE(rocksdb::DB::ListColumnFamilies({}, dir, &names).ok());
  for (const char* name :
       {embedded::v1::kStreamsFamily, embedded::v1::kHeadsFamily, embedded::v1::kIdsFamily})
    EXPECT_EQ(std::find(names.begin(), names.end(), name), names.end()) << name;
  ExpectUpgradedWhole(dir, folder);
}

}  // namespace
}  // namespace indelible
