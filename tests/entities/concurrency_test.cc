// Optimistic concurrency of entity commands: a stale state in hand is caught
// by the expected version and the command is reapplied to the fresh state;
// many writers on one entity see each rule's verdict on the state that
// really precedes their event.
#include <atomic>
#include <latch>
#include <thread>

#include "entities/entity_fixture.h"

namespace indelible::entity_test {
namespace {

TEST_P(EntityTest, AppendToAStaleStateRetriesOnTheFreshOne) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada"), Points(10)}).ok());
  ASSERT_OK_AND_ASSIGN(stale, profiles.Get("user-1"));
  ASSERT_TRUE(profiles.Append("user-1", {Follow("bob")}).ok());  // after our read

  ASSERT_OK_AND_ASSIGN(changed, profiles.AppendTo(stale, {Points(5)}));
  EXPECT_EQ(changed.attempts, 2);
  EXPECT_EQ(changed.entity.state, (Profile{"ada", {"bob"}, 15})) << "both changes";
  EXPECT_EQ(changed.entity.version, StreamVersion(3));
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state, (Profile{"ada", {"bob"}, 15}));
  EXPECT_EQ(Read("user-1").size(), 4u);

  // A fresh state in hand commits at once, without reading.
  ASSERT_OK_AND_ASSIGN(next, profiles.AppendTo(changed.entity, {Points(1)}));
  EXPECT_EQ(next.attempts, 1);
  EXPECT_EQ(next.entity.state.points, 16);
  EXPECT_EQ(next.entity.version, StreamVersion(4));
}

TEST_P(EntityTest, AStaleStateIsAConflictWhenNoRetryIsAllowed) {
  EntityOptions once;
  once.max_attempts = 1;
  auto profiles = Profiles(once);
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada")}).ok());
  ASSERT_OK_AND_ASSIGN(stale, profiles.Get("user-1"));
  ASSERT_TRUE(profiles.Append("user-1", {Points(150)}).ok());
  Settle();
  const Position last = store().LastPosition();
  const auto record = StateOf("user-1");

  auto conflict = profiles.AppendTo(stale, {Points(100)});
  ASSERT_EQ(conflict.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(conflict.status().actual_version(), 1);
  Settle();
  EXPECT_EQ(store().LastPosition(), last) << "nothing written";
  EXPECT_EQ(Outbox("user-1").size(), 1u) << "the award of the failed command is not out";
  EXPECT_EQ(StateOf("user-1")->data, record->data);

  // A stale state of a stream that did not exist yet: no_stream fails too.
  Loaded<Profile> never;
  never.stream = "user-2";
  ASSERT_TRUE(profiles.Append("user-2", {Rename("bob")}).ok());
  EXPECT_EQ(profiles.AppendTo(never, {Rename("eve")}).status().code(), ErrorCode::kConflict);
  EXPECT_EQ(HeadVersion("user-2"), 0);
}

// 16 threads follow the same user at once; the rule rejects following
// someone already followed. Exactly one may win, whatever the interleaving:
// every other command must be reapplied to the winner's state and rejected.
TEST_P(EntityTest, ConcurrentIdenticalCommandsLetExactlyOneThrough) {
  EntityOptions patient;
  patient.max_attempts = 50;  // enough that every loser reaches the rule's verdict
  auto profiles = Profiles(patient);
  constexpr int kThreads = 16;
  // First on a stream that does not exist yet (no_stream races), then on
  // the existing one (exact-version races).
  for (const std::string user : {"carol", "dave"}) {
    std::latch start(kThreads);
    std::vector<Status> results(kThreads);
    std::vector<int> attempts(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        start.arrive_and_wait();
        auto changed = profiles.Append("user-1", {Follow(user)});
        results[t] = changed.ok() ? Status::Ok() : changed.status();
        if (changed.ok()) attempts[t] = changed->attempts;
      });
    }
    for (auto& thread : threads) thread.join();

    int ok = 0;
    int rejected = 0;
    for (const Status& s : results) {
      if (s.ok()) {
        ++ok;
      } else if (s.code() == ErrorCode::kRejected) {
        ++rejected;
        EXPECT_EQ(s.message(), "already following " + user);
      } else {
        ADD_FAILURE() << "unexpected: " << s.ToString();
      }
    }
    EXPECT_EQ(ok, 1) << user;
    EXPECT_EQ(rejected, kThreads - 1) << user;

    int followed = 0;
    for (const auto& event : Read("user-1"))
      followed += event.type == kFollowed && event.data.find(user) != std::string::npos ? 1 : 0;
    EXPECT_EQ(followed, 1) << "exactly one " << kFollowed << " of " << user << " in the stream";
    int notices = 0;
    for (const auto& event : Outbox("user-1"))
      notices += event.data.find(user) != std::string::npos ? 1 : 0;
    EXPECT_EQ(notices, 1) << "and one outbound notice";
  }
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state.following, (std::vector<std::string>{"carol", "dave"}));
  EXPECT_EQ(got.version, StreamVersion(1));
}

// Different commands from many threads all land, each applied once, on
// top of one another (no lost update).
TEST_P(EntityTest, ConcurrentCommandsAllLandWithoutLostUpdates) {
  EntityOptions patient;
  patient.max_attempts = 200;
  auto profiles = Profiles(patient);
  constexpr int kThreads = 8;
  constexpr int kEach = 10;
  std::latch start(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < kEach; ++i)
        if (!profiles.Append("user-1", {Points(1)}).ok()) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state.points, kThreads * kEach);
  EXPECT_EQ(got.version, StreamVersion(kThreads * kEach - 1));
}

}  // namespace
}  // namespace indelible::entity_test
