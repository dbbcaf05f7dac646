// Behaviour of durable backends across opens: reopen keeps everything and
// the next positions continue; the folder is locked; modes and followers.
#include <atomic>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

// The opt-in mode that syncs on a timer, with a short interval.
StoreOptions IntervalDurability() {
  StoreOptions interval;
  interval.durability = Durability::kInterval;
  interval.sync_interval = std::chrono::milliseconds(5);
  return interval;
}

TEST_P(DurableTest, ReopenKeepsEverythingAndPositionsContinue) {
  Put("keep", 3);
  ASSERT_TRUE(store().Delete("keep").ok());
  Put("other", 2);
  const auto before = All();
  Open();
  const auto after = All();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].id, before[i].id);
    EXPECT_EQ(after[i].timestamp_ms, before[i].timestamp_ms);
  }
  EXPECT_TRUE(store().Head("keep")->deleted);
  EXPECT_EQ(Put("other").position.value(), before.size() + 1);
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
}

TEST_P(DurableTest, DurableFolderIsLockedAndFollowersReadIt) {
  Put("locked", 2);
  auto second = Store::Open(Url());
  EXPECT_EQ(second.status().code(), ErrorCode::kUnavailable) << second.status().ToString();

  StoreOptions follow;
  follow.follower = true;
  auto follower = Store::Open(Url(), follow);
  ASSERT_TRUE(follower.ok()) << follower.status().ToString();
  EXPECT_EQ((*follower)->LastPosition().value(), 2u);
  EXPECT_EQ((*follower)->Append("locked", Expected::any(), {Event()}).status().code(),
            ErrorCode::kInvalid);
  Put("locked");
  // The follower catches up while it waits.
  EXPECT_EQ((*follower)->WaitForCommit(Position(2), std::chrono::seconds(20)).value(), 3u);
  auto events = ReadStreamEvents(**follower, "locked");
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  EXPECT_EQ(events->size(), 3u);
}

// A follower tails the writer's newest write-ahead log, which is sized
// ahead of its records (src/storage/embedded/log_files.h): what it reads
// past the last record is zeros, or a record still being copied in. Every
// event must reach it, in order, while the writer keeps appending; batches
// of large events make records that span the log's 32 KiB blocks.
TEST_P(DurableTest, AFollowerTailingABusyWriterMissesNothing) {
  Put("tail-0");
  StoreOptions follow;
  follow.follower = true;
  auto follower = Store::Open(Url(), follow);
  ASSERT_TRUE(follower.ok()) << follower.status().ToString();

  constexpr int kAppends = 600;
  std::atomic<bool> writer_done{false};
  std::thread writer([&] {
    for (int i = 1; i <= kAppends; ++i) {
      std::vector<EventData> events = Events(1 + i % 3);
      if (i % 40 == 0)
        for (int big = 0; big < 12; ++big)
          events.push_back(Event("Big", "\"" + std::string(6000, 'b') + "\""));
      auto r = store().Append("tail-" + std::to_string(i % 7), Expected::any(), std::move(events));
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
    writer_done = true;
  });

  std::vector<RecordedEvent> seen;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    const bool done = writer_done;
    (*follower)->WaitForCommit(Position(seen.size()), std::chrono::milliseconds(200));
    ReadAllOptions from;
    from.from = Position(seen.size() + 1);
    auto more = ReadAllEvents(**follower, from);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    for (auto& e : *more) {
      ASSERT_EQ(e.position.value(), seen.size() + 1)
          << "a gap or a repeat in what the follower read";
      seen.push_back(std::move(e));
    }
    if (done && seen.size() == store().LastPosition().value()) break;
  }
  writer.join();
  const std::vector<RecordedEvent> written = All();
  ASSERT_EQ(seen.size(), written.size()) << "the follower never saw the writer's last events";
  for (std::size_t i = 0; i < written.size(); ++i) {
    EXPECT_EQ(seen[i].id, written[i].id) << "at position " << i + 1;
    EXPECT_EQ(seen[i].data, written[i].data) << "at position " << i + 1;
  }
}

TEST_P(DurableTest, MissingFolderWithoutCreateIsNotFound) {
  StoreOptions no_create;
  no_create.create_if_missing = false;
  EXPECT_EQ(Store::Open(Url() + "-missing", no_create).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(Store::Open("nosuch:thing").status().code(), ErrorCode::kInvalid);
}

TEST_P(ConformanceTest, IntervalDurabilityKeepsTheSameSemantics) {
  Open(IntervalDurability());
  Put("fast", 3);
  EXPECT_EQ(store().Append("fast", Expected::exactly(StreamVersion(0)), {Event()}).status().code(),
            ErrorCode::kConflict);
}

TEST_P(DurableTest, IntervalDurabilityKeepsAcknowledgedAppendsAcrossAReopen) {
  Open(IntervalDurability());
  Put("fast", 3);
  Open();
  EXPECT_EQ(Read("fast").size(), 3u);
}

}  // namespace
}  // namespace indelible::conformance
