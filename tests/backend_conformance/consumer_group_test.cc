// Consumer groups (include/indelible/consumer_group.h) on every backend:
// at-least-once delivery, per-stream order across consumers, leases,
// back-off and the block policy, checkpoints that survive a restart, and
// read-your-writes with WaitFor.
#include <indelible/consumer_group.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

std::unique_ptr<ConsumerGroup> OpenGroup(Store& store, const std::string& name,
                                         ConsumerGroupOptions options = {}) {
  EXPECT_TRUE(ConsumerGroup::Create(store, name, options).ok());
  auto group = ConsumerGroup::Open(store, name, options);
  EXPECT_TRUE(group.ok()) << group.status().ToString();
  return group.ok() ? std::move(*group) : nullptr;
}

std::vector<std::uint64_t> Positions(const std::vector<Delivery>& batch) {
  std::vector<std::uint64_t> out;
  for (const auto& d : batch) out.push_back(d.event.position.value());
  return out;
}

std::vector<Delivery> PullOk(ConsumerGroup& group, std::string_view consumer, std::size_t max,
                             milliseconds wait = milliseconds(200)) {
  auto batch = group.Pull(consumer, max, wait);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  return batch.ok() ? std::move(*batch) : std::vector<Delivery>{};
}

TEST_P(ConformanceTest, GroupCheckpointIsTheAcknowledgedPrefix) {
  for (int i = 0; i < 3; ++i) Put("order-" + std::to_string(i), 2);  // positions 1..6
  auto group = OpenGroup(store(), "mailer");
  auto batch = PullOk(*group, "w1", 100);
  // One batch may carry several events of a stream, in order.
  EXPECT_EQ(Positions(batch), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
  ASSERT_TRUE(group->Ack(Position(2)).ok());
  EXPECT_EQ(group->info().checkpoint.value(), 0u);  // 1 is still unacknowledged
  ASSERT_TRUE(group->Ack({Position(1), Position(3)}).ok());
  EXPECT_EQ(group->info().checkpoint.value(), 3u);
  ASSERT_TRUE(group->Ack(Position(3)).ok());  // a repeated ack is fine
  ConsumerGroupInfo info = group->info();
  EXPECT_EQ(info.in_flight, 3u);
  EXPECT_EQ(info.lag_events, 3u);
  EXPECT_FALSE(info.blocked_at.has_value());
}

TEST_P(ConformanceTest, GroupHandsOutAStreamsNextEventOnlyAfterTheEarlierIsAcked) {
  Put("order-1", 3);
  auto group = OpenGroup(store(), "g");
  auto first = PullOk(*group, "w1", 1);
  ASSERT_EQ(Positions(first), (std::vector<std::uint64_t>{1}));
  EXPECT_TRUE(PullOk(*group, "w2", 10, milliseconds(20)).empty()) << "order-1 is held by w1";
  ASSERT_TRUE(group->Ack(Position(1)).ok());
  EXPECT_EQ(Positions(PullOk(*group, "w2", 10)), (std::vector<std::uint64_t>{2, 3}));
}

TEST_P(ConformanceTest, GroupNackTakesBackTheLaterEventsOfThatStreamInTheBatch) {
  Put("order-1", 3);
  Put("order-2");
  ConsumerGroupOptions options;
  options.initial_backoff = milliseconds(0);
  auto group = OpenGroup(store(), "g", options);
  ASSERT_EQ(Positions(PullOk(*group, "w", 10)), (std::vector<std::uint64_t>{1, 2, 3, 4}));
  ASSERT_TRUE(group->Nack(Position(2), "failed").ok());
  EXPECT_EQ(group->Ack(Position(3)).code(), ErrorCode::kInvalid) << "3 was taken back";
  ASSERT_TRUE(group->Ack({Position(1), Position(4)}).ok());
  auto again = PullOk(*group, "w", 10);
  ASSERT_EQ(Positions(again), (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(again[0].attempt, 2);
  EXPECT_EQ(again[1].attempt, 1) << "a taken-back event does not count an attempt";
}

TEST_P(ConformanceTest, GroupRedeliversABatchWhoseLeaseExpired) {
  Put("order-1", 3);
  ConsumerGroupOptions options;
  options.lease = milliseconds(50);
  options.initial_backoff = milliseconds(0);
  auto group = OpenGroup(store(), "g", options);
  auto batch = PullOk(*group, "dies", 10);
  ASSERT_EQ(batch.size(), 3u);
  std::this_thread::sleep_for(milliseconds(80));  // the consumer died mid-batch
  auto again = PullOk(*group, "w2", 10, seconds(2));
  EXPECT_EQ(Positions(again), (std::vector<std::uint64_t>{1, 2, 3}));
  for (const auto& d : again) EXPECT_EQ(d.attempt, 2);
  EXPECT_EQ(group->info().redeliveries, 3u);
}

TEST_P(ConformanceTest, GroupPullInOrderNeverOvertakesAnEventHeldElsewhere) {
  Put("order-1");  // 1
  Put("order-2");  // 2
  ConsumerGroupOptions options;
  // Long enough that no lease runs out while a Put syncs (a sanitizer build
  // on a loaded machine) or waits for $all to index it (DynamoDB), short
  // enough to wait out below.
  options.lease = positions_at_commit() ? milliseconds(500) : milliseconds(3000);
  options.initial_backoff = milliseconds(0);
  auto group = OpenGroup(store(), "relay", options);
  EXPECT_EQ(Positions(PullOk(*group, "dead", 1)), (std::vector<std::uint64_t>{1}));
  Put("order-3");  // 3
  // While 1 is held by a consumer that died, an in-order pull gives nothing
  // (a plain pull would give 2 and 3) ...
  EXPECT_TRUE(group->PullInOrder("relay", 10, milliseconds(0))->empty());
  // ... and once its lease expired, everything from 1 on, in order.
  std::this_thread::sleep_for(options.lease + milliseconds(30));
  EXPECT_EQ(Positions(*group->PullInOrder("relay", 2, milliseconds(200))),
            (std::vector<std::uint64_t>{1, 2}));
  // Its own deliveries in flight do not stop it: the next pull goes on.
  Put("order-1");  // 4
  Settle();
  EXPECT_EQ(Positions(*group->PullInOrder("relay", 10, milliseconds(200))),
            (std::vector<std::uint64_t>{3, 4}));
  EXPECT_EQ(Positions(PullOk(*group, "other", 10, milliseconds(0))),
            (std::vector<std::uint64_t>{}));
}

TEST_P(DurableTest, GroupCheckpointSurvivesARestartAndUnackedEventsComeAgain) {
  Put("order-1", 10);
  {
    auto group = OpenGroup(store(), "g");
    auto batch = PullOk(*group, "w1", 10);
    ASSERT_EQ(batch.size(), 10u);
    ASSERT_TRUE(group->Ack({Position(1), Position(2), Position(3)}).ok());
    ASSERT_TRUE(group->Flush().ok());
    // The consumer and its process die here: 4..10 were never acknowledged.
  }
  Open();  // the store restarts too
  auto group = ConsumerGroup::Open(store(), "g");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  EXPECT_EQ((*group)->info().checkpoint.value(), 3u);
  auto batch = PullOk(**group, "w1", 100);
  EXPECT_EQ(Positions(batch), (std::vector<std::uint64_t>{4, 5, 6, 7, 8, 9, 10}));
}

TEST_P(ConformanceTest, GroupBlocksAtExactlyTheFailingEventWhileAnotherGroupGoesOn) {
  Put("order-1");  // 1
  Put("order-2");  // 2
  Put("order-3");  // 3: the handler fails on it
  Put("order-4");  // 4
  ConsumerGroupOptions options;
  options.max_attempts = 3;
  options.initial_backoff = milliseconds(1);
  options.max_backoff = milliseconds(4);
  auto failing = OpenGroup(store(), "failing", options);
  auto healthy = OpenGroup(store(), "healthy", options);

  int attempts_on_3 = 0;
  for (int round = 0; round < 50 && !failing->info().blocked_at; ++round) {
    for (const auto& d : PullOk(*failing, "w", 10, milliseconds(50))) {
      if (d.event.position.value() == 3) {
        ++attempts_on_3;
        ASSERT_TRUE(failing->Nack(d.event.position, "smtp refused").ok());
      } else {
        ASSERT_TRUE(failing->Ack(d.event.position).ok());
      }
    }
  }
  ConsumerGroupInfo info = failing->info();
  ASSERT_TRUE(info.blocked_at.has_value());
  EXPECT_EQ(info.blocked_at->value(), 3u);
  EXPECT_EQ(attempts_on_3, 3);
  EXPECT_NE(info.blocked_reason.find("smtp refused"), std::string::npos) << info.blocked_reason;
  EXPECT_EQ(info.checkpoint.value(), 2u);  // never past the unacknowledged event
  Put("order-5");
  EXPECT_TRUE(PullOk(*failing, "w", 10, milliseconds(30)).empty()) << "a blocked group stops";

  // The other group is not held up.
  std::set<std::uint64_t> seen;
  for (int round = 0; round < 20 && seen.size() < 5; ++round)
    for (const auto& d : PullOk(*healthy, "w", 10)) {
      seen.insert(d.event.position.value());
      ASSERT_TRUE(healthy->Ack(d.event.position).ok());
    }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_EQ(healthy->info().checkpoint.value(), 5u);

  // Retry delivers it again with a fresh count; Skip moves past it.
  ASSERT_TRUE(failing->Retry().ok());
  auto retried = PullOk(*failing, "w", 10);
  ASSERT_FALSE(retried.empty());
  EXPECT_EQ(retried[0].event.position.value(), 3u);
  EXPECT_EQ(retried[0].attempt, 1);
  for (std::size_t i = 1; i < retried.size(); ++i)  // order-5, now unblocked
    ASSERT_TRUE(failing->Ack(retried[i].event.position).ok());
  for (int i = 0; i < 3 && !failing->info().blocked_at; ++i) {
    ASSERT_TRUE(failing->Nack(Position(3), "still refused").ok());
    std::this_thread::sleep_for(milliseconds(10));
    (void)PullOk(*failing, "w", 1, milliseconds(20));
  }
  ASSERT_TRUE(failing->info().blocked_at.has_value());
  ASSERT_TRUE(failing->Skip().ok());
  EXPECT_FALSE(failing->info().blocked_at.has_value());
  EXPECT_EQ(failing->Skip().code(), ErrorCode::kInvalid);  // not blocked any more
  for (const auto& d : PullOk(*failing, "w", 10)) ASSERT_TRUE(failing->Ack(d.event.position).ok());
  EXPECT_EQ(failing->info().checkpoint.value(), 5u);
}

TEST_P(ConformanceTest, GroupWaitForReturnsOnceTheCheckpointPasses) {
  auto group = OpenGroup(store(), "projector");
  const Position written = PutAt("todo-1");
  std::atomic<bool> passed{false};
  std::thread reader([&] { passed = group->WaitFor(written, seconds(20)); });
  for (const auto& d : PullOk(*group, "w", 10)) ASSERT_TRUE(group->Ack(d.event.position).ok());
  reader.join();
  EXPECT_TRUE(passed.load());
  EXPECT_FALSE(group->WaitFor(Position(written.value() + 1), milliseconds(20)));
}

TEST_P(ConformanceTest, GroupFilterSkipsEventsAndTheCheckpointPassesThem) {
  Put("todo-1");
  Put("user-1", 3);
  Put("todo-2");
  Put("user-2");
  ConsumerGroupOptions options;
  options.filter.categories = {"todo"};
  auto group = OpenGroup(store(), "todos", options);
  auto batch = PullOk(*group, "w", 10);
  EXPECT_EQ(Positions(batch), (std::vector<std::uint64_t>{1, 5}));
  ASSERT_TRUE(group->Ack({Position(1), Position(5)}).ok());
  EXPECT_EQ(group->info().checkpoint.value(), 6u);
}

TEST_P(ConformanceTest, GroupCreateOpenListDeleteAndBadInput) {
  ConsumerGroupOptions options;
  options.filter.types = {"Order.Placed"};
  ASSERT_TRUE(ConsumerGroup::Create(store(), "a", options).ok());
  EXPECT_TRUE(ConsumerGroup::Create(store(), "a", options).ok()) << "same definition: ok";
  ConsumerGroupOptions other;
  EXPECT_EQ(ConsumerGroup::Create(store(), "a", other).code(), ErrorCode::kConflict);
  ASSERT_TRUE(ConsumerGroup::Create(store(), "b.c_d-1", other).ok());
  EXPECT_EQ(ConsumerGroup::List(store()).value(), (std::vector<std::string>{"a", "b.c_d-1"}));

  EXPECT_EQ(ConsumerGroup::Open(store(), "missing").status().code(), ErrorCode::kNotFound);
  for (const char* bad : {"", "has space", "slash/no", "\x01"})
    EXPECT_EQ(ConsumerGroup::Create(store(), bad, other).code(), ErrorCode::kInvalid) << bad;
  ConsumerGroupOptions zero_attempts;
  zero_attempts.max_attempts = 0;
  EXPECT_EQ(ConsumerGroup::Create(store(), "z", zero_attempts).code(), ErrorCode::kInvalid);

  Put("order-1", 2);
  auto group = ConsumerGroup::Open(store(), "b.c_d-1");
  ASSERT_TRUE(group.ok());
  EXPECT_EQ((*group)->Ack(Position(2)).code(), ErrorCode::kInvalid) << "never delivered";
  EXPECT_EQ((*group)->Nack(Position(1), "x").code(), ErrorCode::kInvalid) << "not in flight";
  EXPECT_EQ((*group)->Pull("w", 0, milliseconds(0)).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ((*group)->Pull("", 1, milliseconds(0)).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ((*group)->Retry().code(), ErrorCode::kInvalid) << "not blocked";
  group->reset();

  ASSERT_TRUE(ConsumerGroup::Delete(store(), "a").ok());
  EXPECT_EQ(ConsumerGroup::List(store()).value(), (std::vector<std::string>{"b.c_d-1"}));
  Settle();
  EXPECT_EQ(store().LastPosition().value(), 2u) << "groups write no events";
}

// `n` events with about `bytes` bytes of data each.
std::vector<EventData> LargeEvents(int n, std::size_t bytes) {
  std::vector<EventData> events;
  for (int i = 0; i < n; ++i) {
    EventData e;
    e.id = EventId::Random();
    e.type = "Large";
    e.data = "\"" + std::string(bytes, static_cast<char>('a' + i % 26)) + "\"";
    events.push_back(std::move(e));
  }
  return events;
}

// Large events: the window reads no further once it holds window_bytes
// (it may pass it by one page, no larger than window_bytes), and a window
// of one byte still admits one event at a time.
TEST_P(ConformanceTest, GroupWindowIsBoundedByBytesAndAlwaysAdmitsOneEvent) {
  constexpr std::size_t kEventBytes = 100 * 1024;
  for (int i = 0; i < 12; ++i)
    ASSERT_TRUE(
        store()
            .Append("big-" + std::to_string(i), Expected::any(), LargeEvents(1, kEventBytes))
            .ok());
  Settle();
  ConsumerGroupOptions options;
  options.window_bytes = 250 * 1024;
  auto group = OpenGroup(store(), "bytes", options);
  auto batch = PullOk(*group, "w", 100);
  EXPECT_GE(batch.size(), 1u);
  EXPECT_LE(batch.size(), 3u) << "a window of 250 KiB holds at most a page of 100 KiB events";

  ConsumerGroupOptions tiny;
  tiny.window_bytes = 1;
  auto one = OpenGroup(store(), "one-byte", tiny);
  for (std::uint64_t position = 1; position <= 12; ++position) {
    auto single = PullOk(*one, "w", 100);
    ASSERT_EQ(Positions(single), (std::vector<std::uint64_t>{position}));
    ASSERT_TRUE(one->Ack(single.front().event.position).ok());
  }
  EXPECT_EQ(one->info().checkpoint.value(), 12u);
}

// A pull stops at its byte budget (one delivery at least); what it left out
// is not in flight and goes out, as a first attempt, on the next pull.
TEST_P(ConformanceTest, GroupPullStopsAtItsByteBudget) {
  constexpr std::size_t kEventBytes = 100 * 1024;
  // One append each: six at once would pass DynamoDB's 400 KB item limit.
  for (int i = 0; i < 6; ++i)
    ASSERT_TRUE(store().Append("big", Expected::any(), LargeEvents(1, kEventBytes)).ok());
  Settle();
  auto group = OpenGroup(store(), "budget");
  PullBudget budget;
  budget.max_bytes = 250 * 1024;
  auto first = group->Pull("w", 100, milliseconds(200), budget);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Positions(*first), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(group->info().in_flight, 2u) << "the events left out are not in flight";
  budget.size = [](const Delivery&) { return std::size_t{1}; };
  budget.max_bytes = 3;
  auto second = group->Pull("other", 100, milliseconds(0), budget);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->empty()) << "stream 'big' is held by w";
  ASSERT_TRUE(group->Ack({Position(1), Position(2)}).ok());
  auto third = group->Pull("w", 100, milliseconds(200), budget);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(Positions(*third), (std::vector<std::uint64_t>{3, 4, 5}));
  for (const auto& d : *third) EXPECT_EQ(d.attempt, 1);
  budget.max_bytes = 0;
  budget.size = {};
  auto fourth = group->Pull("w2", 100, milliseconds(0), budget);
  ASSERT_TRUE(fourth.ok());
  EXPECT_TRUE(fourth->empty());
  ASSERT_TRUE(group->Ack({Position(3), Position(4), Position(5)}).ok());
  auto last = group->Pull("w2", 100, milliseconds(200), budget);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(Positions(*last), (std::vector<std::uint64_t>{6})) << "one delivery at least";
}

// What a caller that waits without a thread relies on: a change notifies
// (at once if it came before the registration), Idle says what else to
// wait for, and a cancelled registration never runs.
TEST_P(ConformanceTest, GroupNotifiesChangesAndSaysWhatAnIdlePullWaitsFor) {
  Put("order-1", 2);
  ConsumerGroupOptions options;
  options.initial_backoff = milliseconds(5000);
  options.max_backoff = milliseconds(5000);
  auto group = OpenGroup(store(), "notify", options);
  ASSERT_EQ(Positions(PullOk(*group, "w", 1)), (std::vector<std::uint64_t>{1}));
  ASSERT_TRUE(PullOk(*group, "w2", 10, milliseconds(0)).empty());
  PullIdle idle = group->Idle();
  ASSERT_TRUE(idle.commit_after.has_value());
  EXPECT_EQ(idle.commit_after->value(), 2u);
  ASSERT_TRUE(idle.due.has_value()) << "the lease of 1 ends";

  const std::uint64_t seen = group->changes();
  int fired = 0, cancelled = 0;
  const auto ticket = group->NotifyChange(seen, [&] { ++fired; });
  EXPECT_NE(ticket, 0u);
  group->CancelNotify(group->NotifyChange(seen, [&] { ++cancelled; }));
  ASSERT_TRUE(group->Nack(Position(1), "later").ok());
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(cancelled, 0);
  EXPECT_EQ(group->NotifyChange(seen, [&] { ++fired; }), 0u) << "changed since: runs at once";
  EXPECT_EQ(fired, 2);
  idle = group->Idle();
  ASSERT_TRUE(idle.due.has_value()) << "the back-off of 1 ends";
  EXPECT_GT(*idle.due, std::chrono::steady_clock::now() + seconds(2));
}

// Delete wins every race: consumers pulling and acknowledging (a save on
// every ack), another object opened and closed over and over, and a delete
// in the middle. Once Delete returned, nothing brings the record back: not
// a later ack, not a pull, not the final flush of a close.
TEST_P(ConformanceTest, ConcurrencyGroupDeleteWinsOverPullsAcksAndCloses) {
  constexpr int kEvents = 120;
  constexpr int kRounds = 12;
  for (int i = 0; i < kEvents; ++i) Put("acct-" + std::to_string(i % 10));
  ConsumerGroupOptions options;
  options.checkpoint_interval = milliseconds(0);
  for (int round = 0; round < kRounds; ++round) {
    const std::string name = "race-" + std::to_string(round);
    ASSERT_TRUE(ConsumerGroup::Create(store(), name, options).ok());
    auto opened = ConsumerGroup::Open(store(), name, options);
    ASSERT_TRUE(opened.ok());
    std::shared_ptr<ConsumerGroup> group = std::move(*opened);
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        const std::string consumer = "w" + std::to_string(t);
        while (!stop) {
          auto batch = group->Pull(consumer, 3, milliseconds(1));
          if (!batch.ok()) continue;  // not_found once deleted
          for (const auto& d : *batch) (void)group->Ack(d.event.position);
        }
      });
    threads.emplace_back([&] {  // another object of the group, closed each time
      while (!stop) {
        auto other = ConsumerGroup::Open(store(), name, options);
        if (!other.ok()) continue;
        auto batch = (*other)->Pull("closer", 2, milliseconds(0));
        if (batch.ok())
          for (const auto& d : *batch) (void)(*other)->Ack(d.event.position);
      }
    });
    // Delete once the consumers are well under way, with events left.
    const auto until = std::chrono::steady_clock::now() + seconds(30);
    while (group->info().checkpoint.value() < 20 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(milliseconds(1));
    ASSERT_TRUE(ConsumerGroup::Delete(store(), name).ok());
    std::this_thread::sleep_for(milliseconds(20));  // the others go on a while
    stop = true;
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(group->Ack(Position(kEvents)).code(), ErrorCode::kNotFound);
    EXPECT_EQ(group->Pull("w", 1, milliseconds(0)).status().code(), ErrorCode::kNotFound);
    group.reset();  // the final flush
    EXPECT_FALSE(ConsumerGroup::Exists(store(), name).value()) << "round " << round;
    auto names = ConsumerGroup::List(store());
    ASSERT_TRUE(names.ok());
    EXPECT_EQ(std::count(names->begin(), names->end(), name), 0) << "round " << round;
  }
  ASSERT_TRUE(ConsumerGroup::Create(store(), "race-0", options).ok()) << "the name is free again";
  auto again = ConsumerGroup::Open(store(), "race-0", options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(PullOk(**again, "w", 1).size(), 1u) << "a new group, from the start";
}

// Two consumers of one group, a flaky handler and writers still appending:
// every event is acknowledged at least once, and each stream's events are
// acknowledged in version order.
TEST_P(ConformanceTest, ConcurrencyTwoConsumersKeepPerStreamOrderAndSeeEveryEvent) {
  constexpr int kStreams = 8;
  constexpr int kPerStream = 60;
  constexpr std::uint64_t kTotal = kStreams * kPerStream;
  ConsumerGroupOptions options;
  options.max_attempts = 1000;
  options.initial_backoff = milliseconds(0);
  options.max_backoff = milliseconds(1);
  auto group = OpenGroup(store(), "shared", options);

  std::thread writer([&] {
    for (int v = 0; v < kPerStream; ++v)
      for (int s = 0; s < kStreams; ++s) Put("acct-" + std::to_string(s));
  });
  std::mutex mu;
  std::map<std::string, std::vector<std::int64_t>> acked_versions;  // in ack order
  std::set<std::uint64_t> acked_positions;
  std::atomic<bool> order_broken{false};
  auto consume = [&](const std::string& name, unsigned seed) {
    std::mt19937 rng(seed);
    const auto deadline = std::chrono::steady_clock::now() + seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard lock(mu);
        if (acked_positions.size() == kTotal) return;
      }
      auto batch = group->Pull(name, 7, milliseconds(50));
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      // After a failure the stream's later events in the batch are left
      // alone: the nack took them back.
      std::set<std::string> failed_streams;
      for (const auto& d : *batch) {
        const std::string& stream = d.event.stream;
        if (failed_streams.contains(stream)) continue;
        if (rng() % 10 == 0) {
          failed_streams.insert(stream);
          ASSERT_TRUE(group->Nack(d.event.position, "flaky").ok());
          continue;
        }
        std::lock_guard lock(mu);
        auto& versions = acked_versions[stream];
        const bool repeat = acked_positions.contains(d.event.position.value());
        if (!repeat) {
          if (d.event.version.value() != static_cast<std::int64_t>(versions.size()))
            order_broken = true;
          versions.push_back(d.event.version.value());
          acked_positions.insert(d.event.position.value());
        }
        ASSERT_TRUE(group->Ack(d.event.position).ok());
      }
    }
  };
  std::thread a(consume, "a", 1u), b(consume, "b", 2u);
  a.join();
  b.join();
  writer.join();
  EXPECT_FALSE(order_broken.load());
  EXPECT_EQ(acked_positions.size(), kTotal);
  EXPECT_EQ(group->info().checkpoint.value(), kTotal);
}

}  // namespace
}  // namespace indelible::conformance
