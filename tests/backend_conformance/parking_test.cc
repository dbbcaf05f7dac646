// The park policy of consumer groups on every backend: a failing event goes
// to $parked-<group>, later events of its stream wait behind it (parked too),
// other streams go on; ReplayParked delivers the parked events again in
// per-stream order and then unparks their streams; the parking state
// survives a restart and parking the same event twice keeps one copy.
#include <indelible/consumer_group.h>

#include <map>
#include <set>

#include "backend_conformance/conformance.h"
#include "backend_conformance/park_group.h"

namespace indelible::conformance {
namespace {

using std::chrono::milliseconds;

constexpr int kMaxAttempts = 2;

std::unique_ptr<ConsumerGroup> OpenParkGroup(Store& store, const std::string& name) {
  return conformance::OpenParkGroup(store, name, kMaxAttempts);
}

// What a handler saw, in delivery order.
struct Seen {
  std::vector<Delivery> deliveries;
  std::map<std::string, std::vector<std::int64_t>> versions_by_stream;  // handled ones
};

// Pulls until `rounds` empty pulls in a row; nacks the events `fails` picks,
// acks the rest.
template <typename Fails>
Seen Drain(ConsumerGroup& group, Fails fails, int rounds = 5) {
  Seen seen;
  for (int empty = 0; empty < rounds;) {
    auto batch = group.Pull("w", 10, milliseconds(20));
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || batch->empty()) {
      ++empty;
      continue;
    }
    empty = 0;
    std::set<std::string> failed;
    for (const Delivery& d : *batch) {
      seen.deliveries.push_back(d);
      // A handler stops a stream at its first failure in the batch: the
      // nack takes the later ones of that stream back.
      if (failed.contains(d.event.stream)) continue;
      if (fails(d)) {
        failed.insert(d.event.stream);
        EXPECT_TRUE(group.Nack(d.event.position, "handler failed").ok());
      } else {
        seen.versions_by_stream[d.event.stream].push_back(d.event.version.value());
        EXPECT_TRUE(group.Ack(d.event.position).ok());
      }
    }
  }
  return seen;
}

std::set<std::uint64_t> Positions(const std::vector<Delivery>& deliveries) {
  std::set<std::uint64_t> out;
  for (const auto& d : deliveries) out.insert(d.event.position.value());
  return out;
}

TEST_P(ConformanceTest, ParkKeepsPerStreamOrderAndReplayDeliversTheParkedEvents) {
  Put("acct-a");  // 1: the handler fails on it
  Put("acct-b");  // 2
  Put("acct-a");  // 3: waits behind 1, so it is parked too
  Put("acct-c");  // 4
  Put("acct-a");  // 5: parked
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);

  Seen first = Drain(*group, [](const Delivery& d) { return d.event.position.value() == 1; });
  // Other streams go on; acct-a's later events were never handled (the
  // first batch carried them, the nack took them back).
  EXPECT_FALSE(first.versions_by_stream.contains("acct-a"));
  EXPECT_EQ(first.versions_by_stream["acct-b"], (std::vector<std::int64_t>{0}));
  EXPECT_EQ(first.versions_by_stream["acct-c"], (std::vector<std::int64_t>{0}));
  for (const Delivery& d : first.deliveries) EXPECT_FALSE(d.parked_version.has_value());
  // Where $all is built after the commit, the parked copies may reach it
  // after the last pull: once they are in, a pull moves the checkpoint past
  // them (they are the group's own, never delivered).
  if (!positions_at_commit()) {
    Settle();
    (void)group->Pull("w", 10, milliseconds(0));
  }
  ConsumerGroupInfo info = group->info();
  EXPECT_FALSE(info.blocked_at.has_value()) << info.blocked_reason;
  EXPECT_EQ(info.parked_streams, 1u);
  EXPECT_EQ(info.parked_events, 3u);
  EXPECT_EQ(info.checkpoint, store().LastPosition()) << "parked events count as handled";

  // $parked-ledger holds the three, in order, with where they came from.
  auto parked = Read("$parked-ledger");
  ASSERT_EQ(parked.size(), 3u);
  std::vector<std::string> from;
  for (const auto& copy : parked) from.push_back(copy.metadata);
  EXPECT_NE(from[0].find(R"("stream":"acct-a","version":0,"position":1)"), std::string::npos)
      << from[0];
  EXPECT_NE(from[0].find("handler failed"), std::string::npos) << from[0];
  EXPECT_NE(from[1].find(R"("position":3)"), std::string::npos) << from[1];
  EXPECT_NE(from[2].find(R"("position":5)"), std::string::npos) << from[2];

  // A new event of the parked stream is parked behind the others.
  const Position fourth = PutAt("acct-a");
  EXPECT_TRUE(Drain(*group, [](const Delivery&) { return false; }).deliveries.empty());
  EXPECT_EQ(group->info().parked_events, 4u);

  // Replay: the originals again, in order, marked as replays; the handler
  // now succeeds.
  ASSERT_TRUE(group->ReplayParked().ok());
  EXPECT_TRUE(group->info().replaying);
  Seen replay = Drain(*group, [](const Delivery&) { return false; });
  ASSERT_EQ(replay.deliveries.size(), 4u);
  EXPECT_EQ(replay.versions_by_stream["acct-a"], (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(replay.deliveries[0].event.position.value(), 1u);
  EXPECT_EQ(replay.deliveries[3].event.position, fourth);
  for (const Delivery& d : replay.deliveries) {
    EXPECT_TRUE(d.parked_version.has_value());
    EXPECT_EQ(d.event.stream, "acct-a");
    EXPECT_EQ(d.event.metadata, "{}") << "the original metadata comes back";
  }
  info = group->info();
  EXPECT_EQ(info.parked_streams, 0u);
  EXPECT_EQ(info.parked_events, 0u);
  EXPECT_FALSE(info.replaying);

  // Unparked: the stream's new events are delivered again.
  const Position fifth = PutAt("acct-a");
  Seen after = Drain(*group, [](const Delivery&) { return false; });
  ASSERT_EQ(after.deliveries.size(), 1u);
  EXPECT_EQ(after.deliveries[0].event.position, fifth);
  EXPECT_FALSE(after.deliveries[0].parked_version.has_value());
}

TEST_P(ConformanceTest, ParkedEventThatFailsAgainOnReplayStaysParkedWithItsStream) {
  Put("acct-a");  // 1: fails, also on the first replay
  Put("acct-b");  // 2: fails once, then its replay succeeds
  Put("acct-a");  // 3: parked behind 1
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, [](const Delivery& d) { return d.event.position.value() <= 2; });
  EXPECT_EQ(group->info().parked_streams, 2u);
  EXPECT_EQ(group->info().parked_events, 3u);

  ASSERT_TRUE(group->ReplayParked().ok());
  Seen replay = Drain(*group, [](const Delivery& d) { return d.event.stream == "acct-a"; });
  // acct-a's first event failed again: its second was not handled.
  EXPECT_FALSE(replay.versions_by_stream.contains("acct-a"));
  EXPECT_EQ(replay.versions_by_stream["acct-b"], (std::vector<std::int64_t>{0}));
  ConsumerGroupInfo info = group->info();
  EXPECT_FALSE(info.replaying);
  EXPECT_EQ(info.parked_streams, 1u);  // acct-b is unparked, acct-a is not
  EXPECT_EQ(info.parked_events, 2u);
  Put("acct-a");  // still parked behind
  EXPECT_TRUE(Drain(*group, [](const Delivery&) { return false; }).deliveries.empty());

  ASSERT_TRUE(group->ReplayParked().ok());
  Seen second = Drain(*group, [](const Delivery&) { return false; });
  EXPECT_EQ(second.versions_by_stream["acct-a"], (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(group->info().parked_streams, 0u);
}

TEST_P(ConformanceTest, ParkIsOnlyForParkGroupsAndStoreStreamsAreNotDelivered) {
  Put("acct-a");
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, [](const Delivery&) { return true; });
  ASSERT_EQ(Read("$parked-ledger").size(), 1u);
  Settle();  // the parked copy in $all too (DynamoDB indexes after the commit)
  // A group over everything does not get the parked copy (a '$' stream) ...
  ASSERT_TRUE(ConsumerGroup::Create(store(), "everything", {}).ok());
  auto everything = ConsumerGroup::Open(store(), "everything");
  ASSERT_TRUE(everything.ok());
  Seen all = Drain(**everything, [](const Delivery&) { return false; });
  EXPECT_EQ(Positions(all.deliveries), (std::set<std::uint64_t>{1}));
  // ... unless its filter names the store's streams.
  ConsumerGroupOptions parked_only;
  parked_only.filter.stream_prefixes = {"$parked-"};
  ASSERT_TRUE(ConsumerGroup::Create(store(), "inspector", parked_only).ok());
  auto inspector = ConsumerGroup::Open(store(), "inspector");
  ASSERT_TRUE(inspector.ok());
  Seen copies = Drain(**inspector, [](const Delivery&) { return false; });
  ASSERT_EQ(copies.deliveries.size(), 1u);
  EXPECT_EQ(copies.deliveries[0].event.stream, "$parked-ledger");
  // Replay with nothing parked is a no-op.
  EXPECT_TRUE((*everything)->ReplayParked().ok());
  EXPECT_FALSE((*everything)->info().replaying);
}

TEST_P(DurableTest, ParkingSurvivesARestartAndAReparkAfterACrashKeepsOneCopy) {
  Put("acct-a");  // 1
  auto before_park = store().LoadRecord("group/ledger");
  ASSERT_TRUE(before_park.ok());
  {
    auto group = OpenParkGroup(store(), "ledger");
    ASSERT_NE(group, nullptr);
    before_park = store().LoadRecord("group/ledger");
    (void)Drain(*group, [](const Delivery&) { return true; });
    EXPECT_EQ(group->info().parked_events, 1u);
  }
  ASSERT_EQ(Read("$parked-ledger").size(), 1u);
  // The process died after the copy was committed and before the record
  // was saved: put the old record back.
  ASSERT_TRUE(before_park.ok() && before_park->has_value());
  ASSERT_TRUE(store().SaveRecord("group/ledger", **before_park).ok());
  Open();
  {
    auto group = ConsumerGroup::Open(store(), "ledger");
    ASSERT_TRUE(group.ok());
    EXPECT_EQ((*group)->info().parked_streams, 0u);
    (void)Drain(**group, [](const Delivery&) { return true; });  // fails again: parked again
    EXPECT_EQ((*group)->info().parked_streams, 1u);
    Put("acct-a");  // 3 (2 is the copy): parked behind
    (void)Drain(**group, [](const Delivery&) { return false; });
    ASSERT_TRUE((*group)->ReplayParked().ok());
  }
  EXPECT_EQ(Read("$parked-ledger").size(), 2u) << "the re-park was an idempotent retry";

  // The replay pass started before the restart goes on after it.
  Open();
  auto group = ConsumerGroup::Open(store(), "ledger");
  ASSERT_TRUE(group.ok());
  ConsumerGroupInfo info = (*group)->info();
  EXPECT_TRUE(info.replaying);
  EXPECT_EQ(info.parked_streams, 1u);
  EXPECT_EQ(info.parked_events, 2u);
  Seen replay = Drain(**group, [](const Delivery&) { return false; });
  EXPECT_EQ(replay.versions_by_stream["acct-a"], (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ((*group)->info().parked_streams, 0u);
}

}  // namespace
}  // namespace indelible::conformance
