// The embedded store under the power-cut layer (power_cut_fs.h): what it
// acknowledged is on disk after a cut. The first of issue 38's suites; this
// one holds the finding that a new data folder's own entry was never synced.
#include <gtest/gtest.h>
#include <indelible/store.h>
#include <rocksdb/env.h>

#include <memory>

#include "power_loss/power_cut_fs.h"
#include "storage/embedded/embedded_store.h"
#include "testutil/temp_dir.h"

namespace indelible::power_loss {
namespace {

std::vector<EventData> Events(int n) {
  std::vector<EventData> events;
  for (int i = 0; i < n; ++i) {
    EventData e;
    e.id = EventId::Random();
    e.type = "Noted";
    e.data = "{\"i\":" + std::to_string(i) + "}";
    events.push_back(std::move(e));
  }
  return events;
}

// A store made in folders that did not exist: its first acknowledged
// appends survive a cut, so every new folder's entry was synced into its
// parent (RocksDB syncs the files it makes and the store's folder, never
// the folder's parent). Each cut mode, a few seeds.
TEST(EmbeddedPowerCutTest, ANewStoresFolderAndItsFirstAppendsSurviveACut) {
  for (const CutMode mode : {CutMode::kDrop, CutMode::kTear, CutMode::kCorruptTail}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      testutil::TempDir tmp;
      const std::string path = tmp.Sub("new") + "/deeper/data";
      auto fs = std::make_shared<PowerCutFileSystem>();
      auto env = rocksdb::NewCompositeEnv(fs);
      {
        auto store = storage::OpenEmbeddedStoreOnEnv(path, {}, env.get());
        ASSERT_TRUE(store.ok()) << store.status().ToString();
        auto appended = (*store)->Append("s-1", Expected::no_stream(), Events(5));
        ASSERT_TRUE(appended.ok()) << appended.status().ToString();
        fs->SetActive(false);  // the power goes; the store then closes on a dead disk
      }
      ASSERT_TRUE(fs->Cut(seed, mode).ok());
      fs->SetActive(true);
      auto reopened = storage::OpenEmbeddedStore(path, {});
      ASSERT_TRUE(reopened.ok()) << "mode " << static_cast<int>(mode) << " seed " << seed << ": "
                                 << reopened.status().ToString();
      auto events = ReadStreamEvents(**reopened, "s-1");
      ASSERT_TRUE(events.ok()) << events.status().ToString();
      EXPECT_EQ(events->size(), 5u) << "mode " << static_cast<int>(mode) << " seed " << seed;
      EXPECT_TRUE((*reopened)->Check().ok()) << (*reopened)->Check().ToString();
    }
  }
}

}  // namespace
}  // namespace indelible::power_loss
