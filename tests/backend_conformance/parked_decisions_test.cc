// Per-event decisions on parked events (ConsumerGroup::SkipParked,
// RetryParked, ReadParked) on every backend: a skipped copy is never
// delivered again and its stream unparks once nothing of it is pending; a
// retry delivers one copy alone and never passes an earlier pending copy of
// its stream; bad requests change nothing; the decisions survive a restart.
// And the members of a group (info().members).
#include <indelible/consumer_group.h>

#include <future>
#include <map>
#include <set>
#include <thread>

#include "backend_conformance/conformance.h"
#include "backend_conformance/park_group.h"

namespace indelible::conformance {
namespace {

using std::chrono::milliseconds;

constexpr int kMaxAttempts = 1;

std::unique_ptr<ConsumerGroup> OpenParkGroup(Store& store, const std::string& name) {
  return conformance::OpenParkGroup(store, name, kMaxAttempts);
}

// Pulls until `rounds` empty pulls in a row; nacks the events whose
// positions are in `fails` (and stops their stream in that batch), acks the
// rest. Returns what was delivered.
std::vector<Delivery> Drain(ConsumerGroup& group, const std::set<std::uint64_t>& fails = {},
                            int rounds = 3) {
  std::vector<Delivery> seen;
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
      seen.push_back(d);
      if (failed.contains(d.event.stream)) continue;
      if (!d.parked_version && fails.contains(d.event.position.value())) {
        failed.insert(d.event.stream);
        EXPECT_TRUE(group.Nack(d.event.position, "handler failed").ok());
      } else {
        EXPECT_TRUE(group.Ack(d.event.position).ok());
      }
    }
  }
  return seen;
}

std::int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<std::uint64_t> Positions(const std::vector<Delivery>& deliveries) {
  std::vector<std::uint64_t> out;
  for (const auto& d : deliveries) out.push_back(d.event.position.value());
  return out;
}

// The parked copies by their original's position, with their state.
std::map<std::uint64_t, ParkedCopy> Parked(ConsumerGroup& group) {
  std::map<std::uint64_t, ParkedCopy> out;
  auto page = group.ReadParked(StreamVersion(0), 1000);
  EXPECT_TRUE(page.ok()) << page.status().ToString();
  if (!page.ok()) return out;
  EXPECT_FALSE(page->next.has_value());
  for (ParkedCopy& copy : page->events) {
    const std::string& m = copy.copy.metadata;
    const auto at = m.find(R"("position":)");
    EXPECT_NE(at, std::string::npos) << m;
    if (at == std::string::npos) continue;
    out.emplace(std::stoull(m.substr(at + 11)), std::move(copy));
  }
  return out;
}

StreamVersion VersionOf(ConsumerGroup& group, std::uint64_t position) {
  auto parked = Parked(group);
  EXPECT_TRUE(parked.contains(position)) << position;
  return parked.contains(position) ? parked.at(position).copy.version : StreamVersion(999999);
}

ParkedState StateOf(ConsumerGroup& group, std::uint64_t position) {
  auto parked = Parked(group);
  EXPECT_TRUE(parked.contains(position)) << position;
  return parked.contains(position) ? parked.at(position).state : ParkedState::kResolved;
}

TEST_P(ConformanceTest, SkipParkedDiscardsOneEventAndAReplayPassesItOver) {
  Put("acct-a");  // 1: fails
  Put("acct-b");  // 2: fails
  Put("acct-a");  // 3: parked behind 1
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, {1, 2});
  auto parked = Parked(*group);
  ASSERT_EQ(parked.size(), 3u);
  for (const auto& [position, copy] : parked)
    EXPECT_EQ(copy.state, ParkedState::kPending) << position;
  EXPECT_NE(parked.at(1).copy.metadata.find("handler failed"), std::string::npos);

  // Skipping acct-a's later event keeps acct-a parked (1 is pending).
  const StreamVersion three = parked.at(3).copy.version;
  ASSERT_TRUE(group->SkipParked(three).ok());
  EXPECT_EQ(StateOf(*group, 3), ParkedState::kSkipped);
  EXPECT_EQ(group->info().parked_streams, 2u);
  EXPECT_EQ(group->info().parked_events, 2u);
  // Again, or a retry of it: a conflict, nothing changed.
  EXPECT_EQ(group->SkipParked(three).code(), ErrorCode::kConflict);
  EXPECT_EQ(group->RetryParked(three).code(), ErrorCode::kConflict);
  EXPECT_EQ(group->info().parked_events, 2u);

  // A replay delivers 1 and 2, not 3, and unparks both streams.
  ASSERT_TRUE(group->ReplayParked().ok());
  std::vector<Delivery> replay = Drain(*group);
  EXPECT_EQ(Positions(replay), (std::vector<std::uint64_t>{1, 2}));
  for (const Delivery& d : replay) EXPECT_TRUE(d.parked_version.has_value());
  ConsumerGroupInfo info = group->info();
  EXPECT_EQ(info.parked_streams, 0u);
  EXPECT_EQ(info.parked_events, 0u);
  EXPECT_FALSE(info.replaying);
  for (const auto& [position, copy] : Parked(*group))
    EXPECT_EQ(copy.state, ParkedState::kResolved) << position;
  // Resolved copies take no decision.
  EXPECT_EQ(group->SkipParked(parked.at(1).copy.version).code(), ErrorCode::kConflict);
  EXPECT_EQ(group->RetryParked(parked.at(2).copy.version).code(), ErrorCode::kConflict);
}

TEST_P(ConformanceTest, SkippingAStreamsLastPendingEventUnparksIt) {
  Put("acct-a");  // 1: fails
  Put("acct-b");  // 2
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, {1});
  const Position later = PutAt("acct-a");  // parked behind 1
  (void)Drain(*group);
  EXPECT_EQ(group->info().parked_events, 2u);
  ASSERT_TRUE(group->SkipParked(VersionOf(*group, 1)).ok());
  EXPECT_EQ(group->info().parked_streams, 1u) << "the later event is still pending";
  ASSERT_TRUE(group->SkipParked(VersionOf(*group, later.value())).ok());
  EXPECT_EQ(group->info().parked_streams, 0u);
  EXPECT_EQ(group->info().parked_events, 0u);
  // Unparked: acct-a's new events flow again; the skipped ones never come.
  const Position next = PutAt("acct-a");
  EXPECT_EQ(Positions(Drain(*group)), (std::vector<std::uint64_t>{next.value()}));
  ASSERT_TRUE(group->ReplayParked().ok());
  EXPECT_TRUE(Drain(*group).empty());
}

TEST_P(ConformanceTest, RetryParkedDeliversOneEventAloneInItsStreamsOrder) {
  Put("acct-a");  // 1: fails
  Put("acct-b");  // 2: fails
  Put("acct-a");  // 3: parked behind 1
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, {1, 2});
  const StreamVersion one = VersionOf(*group, 1);
  const StreamVersion two = VersionOf(*group, 2);
  const StreamVersion three = VersionOf(*group, 3);

  // 3 cannot pass 1, still pending: refused, naming 1's version.
  Status refused = group->RetryParked(three);
  EXPECT_EQ(refused.code(), ErrorCode::kConflict);
  EXPECT_NE(refused.message().find("before event " + std::to_string(one.value())),
            std::string::npos)
      << refused.message();
  EXPECT_EQ(StateOf(*group, 3), ParkedState::kPending);

  // acct-b's alone: delivered with its parked version; acked, acct-b unparks.
  ASSERT_TRUE(group->RetryParked(two).ok());
  EXPECT_TRUE(group->RetryParked(two).ok()) << "a repeated retry changes nothing";
  EXPECT_EQ(StateOf(*group, 2), ParkedState::kRetrying);
  auto batch = group->Pull("w", 10, milliseconds(200));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(Positions(*batch), (std::vector<std::uint64_t>{2}));
  EXPECT_EQ((*batch)[0].parked_version, two);
  EXPECT_EQ((*batch)[0].event.stream, "acct-b");
  // In flight: a skip waits for its ack or nack.
  EXPECT_EQ(group->SkipParked(two).code(), ErrorCode::kConflict);
  ASSERT_TRUE(group->Ack(Position(2)).ok());
  EXPECT_EQ(StateOf(*group, 2), ParkedState::kResolved);
  EXPECT_EQ(group->info().parked_streams, 1u);
  EXPECT_EQ(group->info().parked_events, 2u);
  const Position b = PutAt("acct-b");
  EXPECT_EQ(Positions(Drain(*group)), (std::vector<std::uint64_t>{b.value()}));

  // acct-a's first: alone (3 stays parked), then 3 may be retried.
  ASSERT_TRUE(group->RetryParked(one).ok());
  EXPECT_EQ(Positions(Drain(*group)), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(group->info().parked_streams, 1u);
  EXPECT_EQ(StateOf(*group, 3), ParkedState::kPending);
  ASSERT_TRUE(group->RetryParked(three).ok());
  EXPECT_EQ(Positions(Drain(*group)), (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(group->info().parked_streams, 0u);
  EXPECT_EQ(group->info().parked_events, 0u);
}

TEST_P(ConformanceTest, ARetryThatFailsAgainStaysPendingAndAReplayRefusesRetries) {
  Put("acct-a");  // 1: fails
  Put("acct-a");  // 2: parked behind
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, {1});
  const StreamVersion one = VersionOf(*group, 1);
  ASSERT_TRUE(group->RetryParked(one).ok());
  auto batch = group->Pull("w", 10, milliseconds(200));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(Positions(*batch), (std::vector<std::uint64_t>{1}));
  ASSERT_TRUE(group->Nack(Position(1), "still broken").ok());  // max_attempts 1: gives up
  EXPECT_EQ(StateOf(*group, 1), ParkedState::kPending);
  EXPECT_EQ(group->info().parked_events, 2u);
  EXPECT_TRUE(Drain(*group).empty());

  ASSERT_TRUE(group->ReplayParked().ok());
  EXPECT_EQ(group->RetryParked(one).code(), ErrorCode::kConflict) << "the pass delivers it";
  EXPECT_EQ(Positions(Drain(*group)), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(group->info().parked_streams, 0u);
}

TEST_P(ConformanceTest, BadParkedDecisionsAreRefusedAndChangeNothing) {
  Put("acct-a");
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, {1});
  const std::string before = **store().LoadRecord("group/ledger");
  EXPECT_EQ(group->SkipParked(StreamVersion(7)).code(), ErrorCode::kNotFound);
  EXPECT_EQ(group->RetryParked(StreamVersion(7)).code(), ErrorCode::kNotFound);
  EXPECT_EQ(group->SkipParked(StreamVersion(-1)).code(), ErrorCode::kInvalid);
  EXPECT_EQ(**store().LoadRecord("group/ledger"), before);
  EXPECT_EQ(group->info().parked_events, 1u);
  auto empty = group->ReadParked(StreamVersion(5), 10);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->events.empty());
  EXPECT_EQ(group->ReadParked(StreamVersion(0), 0).status().code(), ErrorCode::kInvalid);

  // A group that blocks has nothing parked: its decisions are invalid.
  ASSERT_TRUE(ConsumerGroup::Create(store(), "blocker", {}).ok());
  auto blocker = ConsumerGroup::Open(store(), "blocker");
  ASSERT_TRUE(blocker.ok());
  EXPECT_EQ((*blocker)->SkipParked(StreamVersion(0)).code(), ErrorCode::kInvalid);
  EXPECT_EQ((*blocker)->RetryParked(StreamVersion(0)).code(), ErrorCode::kInvalid);
  auto none = (*blocker)->ReadParked(StreamVersion(0), 10);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->events.empty());
}

TEST_P(ConformanceTest, ReadParkedPagesByCountAndBytes) {
  Put("acct-a");  // 1: fails, then 2 and 3 are parked behind
  Put("acct-a");
  Put("acct-a");
  auto group = OpenParkGroup(store(), "ledger");
  ASSERT_NE(group, nullptr);
  (void)Drain(*group, {1});
  auto first = group->ReadParked(StreamVersion(0), 2);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->events.size(), 2u);
  EXPECT_EQ(first->events[0].copy.stream, "$parked-ledger");
  EXPECT_EQ(first->next, StreamVersion(2));
  auto rest = group->ReadParked(*first->next, 2);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->events.size(), 1u);
  EXPECT_FALSE(rest->next.has_value());
  auto small = group->ReadParked(StreamVersion(0), 10, 1);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small->events.size(), 1u) << "one copy at least, then the byte budget";
  EXPECT_EQ(small->next, StreamVersion(1));
}

TEST_P(DurableTest, ParkedDecisionsSurviveARestart) {
  Put("acct-a");  // 1: fails
  Put("acct-b");  // 2: fails
  Put("acct-a");  // 3: parked behind 1
  StreamVersion two, three;
  {
    auto group = OpenParkGroup(store(), "ledger");
    ASSERT_NE(group, nullptr);
    (void)Drain(*group, {1, 2});
    two = VersionOf(*group, 2);
    three = VersionOf(*group, 3);
    ASSERT_TRUE(group->SkipParked(three).ok());
    ASSERT_TRUE(group->RetryParked(two).ok());
  }
  Open();
  auto group = ConsumerGroup::Open(store(), "ledger");
  ASSERT_TRUE(group.ok());
  EXPECT_EQ(StateOf(**group, 3), ParkedState::kSkipped);
  EXPECT_EQ(StateOf(**group, 2), ParkedState::kRetrying);
  EXPECT_EQ(StateOf(**group, 1), ParkedState::kPending);
  // The retry goes on: 2 alone; then a replay gives 1, never 3.
  EXPECT_EQ(Positions(Drain(**group)), (std::vector<std::uint64_t>{2}));
  ASSERT_TRUE((*group)->ReplayParked().ok());
  EXPECT_EQ(Positions(Drain(**group)), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ((*group)->info().parked_streams, 0u);
}

TEST_P(DurableTest, ASkippedEventIsNotDeliveredWhenTheWindowReadsItAgain) {
  Put("acct-a");  // 1: stays in flight, so the checkpoint stays at 0
  Put("acct-b");  // 2: fails, parked
  {
    auto group = OpenParkGroup(store(), "ledger");
    ASSERT_NE(group, nullptr);
    auto batch = group->Pull("w", 10, milliseconds(200));
    ASSERT_TRUE(batch.ok());
    ASSERT_EQ(Positions(*batch), (std::vector<std::uint64_t>{1, 2}));
    ASSERT_TRUE(group->Nack(Position(2), "bad").ok());
    EXPECT_EQ(group->info().checkpoint, Position(0));
    // acct-b's only parked event: skipped, acct-b unparks.
    ASSERT_TRUE(group->SkipParked(VersionOf(*group, 2)).ok());
    EXPECT_EQ(group->info().parked_streams, 0u);
  }  // kill -9 now would lose nothing more: the skip was saved
  Open();
  auto group = ConsumerGroup::Open(store(), "ledger");
  ASSERT_TRUE(group.ok());
  EXPECT_EQ(Positions(Drain(**group)), (std::vector<std::uint64_t>{1}))
      << "the window reads 2 again, and passes it over";
}

TEST_P(ConformanceTest, AGroupListsTheConsumersThatPull) {
  Put("order-1");
  Put("order-2");
  ASSERT_TRUE(ConsumerGroup::Create(store(), "mailer", {}).ok());
  auto opened = ConsumerGroup::Open(store(), "mailer");
  ASSERT_TRUE(opened.ok());
  ConsumerGroup& group = **opened;
  EXPECT_TRUE(group.info().members.empty());
  const std::int64_t before = NowMs();
  auto batch = group.Pull("w1", 10, milliseconds(200));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 2u);
  ASSERT_TRUE(group.Pull("w2", 10, milliseconds(0)).ok());
  ConsumerGroupInfo info = group.info();
  ASSERT_EQ(info.members.size(), 2u);
  EXPECT_EQ(info.members[0].consumer, "w1");
  EXPECT_EQ(info.members[0].in_flight, 2u);
  EXPECT_GE(info.members[0].last_pull_ms, before - 5);
  EXPECT_LE(info.members[0].last_pull_ms, NowMs() + 5);
  EXPECT_EQ(info.members[1].consumer, "w2");
  EXPECT_EQ(info.members[1].in_flight, 0u);
  EXPECT_FALSE(info.members_omitted);
  EXPECT_TRUE(group.info(false).members.empty());
  ASSERT_TRUE(group.Ack((*batch)[0].event.position).ok());
  EXPECT_EQ(group.info().members[0].in_flight, 1u);

  // A pull that waits shows on its member while it waits.
  auto waiting =
      std::async(std::launch::async, [&] { return group.Pull("w3", 10, milliseconds(3000)).ok(); });
  bool seen = false;
  for (int i = 0; i < 200 && !seen; ++i) {
    for (const ConsumerGroupMember& m : group.info().members)
      if (m.consumer == "w3" && m.waiting == 1) seen = true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  EXPECT_TRUE(seen);
  Put("order-3");
  EXPECT_TRUE(waiting.get());
  for (const ConsumerGroupMember& m : group.info().members) EXPECT_EQ(m.waiting, 0u) << m.consumer;

  // At the bound, a new name takes the place of the member idle longest.
  for (std::size_t i = 0; i < ConsumerGroup::kMaxMembers; ++i)
    ASSERT_TRUE(group.Pull("x" + std::to_string(i), 1, milliseconds(0)).ok());
  info = group.info();
  EXPECT_EQ(info.members.size(), ConsumerGroup::kMaxMembers);
  std::set<std::string> names;
  for (const ConsumerGroupMember& m : info.members) names.insert(m.consumer);
  EXPECT_TRUE(names.contains("w1")) << "it holds an event: kept";
  EXPECT_FALSE(names.contains("w2")) << "idle the longest: forgotten";
  EXPECT_TRUE(names.contains("x" + std::to_string(ConsumerGroup::kMaxMembers - 1)));
  EXPECT_FALSE(info.members_omitted);
}

}  // namespace
}  // namespace indelible::conformance
