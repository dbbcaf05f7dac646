// Subscriptions (include/indelible/subscription.h) on every backend: stored
// events then live ones, no gap and no duplicate at the switch, exact
// resume from a checkpoint, filters, stream subscriptions, bounded pages.
#include <indelible/subscription.h>

#include <atomic>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Reads until `count` events arrived or 60 s passed with nothing new.
std::vector<RecordedEvent> Collect(Subscription& sub, std::size_t count) {
  std::vector<RecordedEvent> events;
  auto quiet_since = std::chrono::steady_clock::now();
  while (events.size() < count && std::chrono::steady_clock::now() - quiet_since < seconds(60)) {
    auto batch = sub.Next(milliseconds(200));
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok()) break;
    if (!batch->events.empty()) quiet_since = std::chrono::steady_clock::now();
    for (auto& event : batch->events) events.push_back(std::move(event));
  }
  return events;
}

// Positions 1..n, each once, in order.
void ExpectPositionsOneTo(const std::vector<RecordedEvent>& events, std::uint64_t n) {
  ASSERT_EQ(events.size(), n);
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(events[i].position.value(), i + 1) << i;
}

TEST_P(ConformanceTest, SubscriptionDeliversStoredThenLiveEventsWithoutGapOrDuplicate) {
  for (int s = 0; s < 12; ++s) Put("account-" + std::to_string(s), 100);  // 1,200: three pages
  Settle();
  Subscription sub(store(), {});
  std::vector<RecordedEvent> events;
  bool caught_up = false;
  while (!caught_up) {
    auto batch = sub.Next(seconds(5));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    EXPECT_LE(batch->events.size(), 500u);
    for (auto& event : batch->events) events.push_back(std::move(event));
    caught_up = batch->caught_up;
  }
  EXPECT_TRUE(sub.caught_up());
  ExpectPositionsOneTo(events, 1200);
  EXPECT_EQ(sub.position().value(), 1200u);

  // Live: appended while the subscriber waits inside Next.
  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(100));
    for (int i = 0; i < 10; ++i) Put("live-1");
  });
  auto live = Collect(sub, 10);
  writer.join();
  events.insert(events.end(), live.begin(), live.end());
  ExpectPositionsOneTo(events, 1210);
}

TEST_P(ConformanceTest, SubscriptionSignalsCaughtUpAtOnceOnAnEmptyStoreThenTimesOut) {
  Subscription sub(store(), {});
  auto first = sub.Next(seconds(30));  // the signal does not wait for the timeout
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->caught_up);
  EXPECT_TRUE(first->events.empty());
  auto second = sub.Next(milliseconds(50));  // nothing new: empty after the timeout
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->events.empty());
  EXPECT_TRUE(second->caught_up);
  EXPECT_EQ(sub.position().value(), 0u);
}

TEST_P(ConformanceTest, SubscriptionResumesExactlyAfterItsCheckpoint) {
  Put("order-1", 10);
  Settle();
  SubscriptionOptions options;
  options.page_events = 4;
  Subscription first(store(), options);
  auto batch = first.Next(seconds(1));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->events.size(), 4u);
  EXPECT_FALSE(batch->caught_up);
  const Position checkpoint = first.position();
  EXPECT_EQ(checkpoint.value(), 4u);

  options.after = checkpoint;
  options.page_events = 500;
  Subscription resumed(store(), options);
  auto rest = Collect(resumed, 6);
  ASSERT_EQ(rest.size(), 6u);
  for (std::size_t i = 0; i < rest.size(); ++i) EXPECT_EQ(rest[i].position.value(), 5 + i);
}

TEST_P(ConformanceTest, SubscriptionFiltersAndItsCheckpointPassesSkippedEvents) {
  Put("todo-1", 2);
  ASSERT_TRUE(store().Append("user-1", Expected::any(), Events(3, "User.Renamed")).ok());
  ASSERT_TRUE(store().Append("todo-2", Expected::any(), Events(1, "Todo.Done")).ok());
  Put("user-2", 4);  // positions 7..10: filtered out, after the last match
  Settle();

  SubscriptionOptions options;
  options.filter.categories = {"todo"};
  Subscription todos(store(), options);
  auto batch = todos.Next(seconds(1));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->events.size(), 3u);
  EXPECT_TRUE(batch->caught_up);
  EXPECT_EQ(batch->events[0].stream, "todo-1");
  EXPECT_EQ(batch->events[2].stream, "todo-2");
  EXPECT_EQ(todos.position().value(), 10u);  // a restart need not rescan 7..10

  SubscriptionOptions by_type;
  by_type.filter.types = {"User.Renamed"};
  Subscription renames(store(), by_type);
  auto renamed = renames.Next(seconds(1));
  ASSERT_TRUE(renamed.ok());
  ASSERT_EQ(renamed->events.size(), 3u);
  for (const auto& event : renamed->events) EXPECT_EQ(event.type, "User.Renamed");
}

TEST_P(ConformanceTest, StreamSubscriptionWaitsForItsStreamAndDeliversTheTombstone) {
  Put("other-1", 3);
  SubscriptionOptions options;
  options.stream = "later-1";
  Subscription sub(store(), options);
  auto empty = sub.Next(seconds(5));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->caught_up);
  EXPECT_TRUE(empty->events.empty());

  std::thread writer([&] {
    std::this_thread::sleep_for(milliseconds(100));
    Put("other-1");
    Put("later-1", 2);
    ASSERT_TRUE(store().Delete("later-1").ok());
    Put("later-1");  // a new life after the delete
  });
  auto events = Collect(sub, 4);
  writer.join();
  ASSERT_EQ(events.size(), 4u);
  for (const auto& event : events) EXPECT_EQ(event.stream, "later-1");
  EXPECT_EQ(events[0].version.value(), 0);
  EXPECT_EQ(events[2].type, kDeletedEventType);
  EXPECT_EQ(events[3].version.value(), 3);

  // Resuming after the second event delivers the tombstone and what followed.
  options.after = events[1].position;
  Subscription resumed(store(), options);
  auto rest = Collect(resumed, 2);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].position, events[2].position);
  EXPECT_EQ(rest[1].position, events[3].position);
}

TEST_P(ConformanceTest, SubscriptionPagesStayBoundedForLargeEvents) {
  const std::string big = "{\"memo\":\"" + std::string(1000, 'x') + "\"}";
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(store().Append("big-1", Expected::any(), {Event("Big", big)}).ok());
  Settle();  // caught up means "with what $all holds": let it hold all 50
  SubscriptionOptions options;
  options.page_bytes = 4096;  // about four of these events
  Subscription sub(store(), options);
  std::size_t delivered = 0, batches = 0;
  for (;;) {
    auto batch = sub.Next(seconds(1));
    ASSERT_TRUE(batch.ok());
    EXPECT_LE(batch->events.size(), 5u);
    delivered += batch->events.size();
    ++batches;
    if (batch->caught_up) break;
  }
  EXPECT_EQ(delivered, 50u);
  EXPECT_GE(batches, 10u);
}

// A filter that matches nothing for a long way costs one scan budget per
// read: Next(0) hands control back with an empty page that is not caught up
// and a position past what it looked at, and reading on finds the match.
TEST_P(ConformanceTest, FilteredSubscriptionScansAtMostItsBudgetPerRead) {
  Put("user-1", 25);  // positions 1..25: filtered out
  ASSERT_TRUE(store().Append("todo-1", Expected::any(), Events(1, "Todo.Created")).ok());
  Settle();
  SubscriptionOptions options;
  options.filter.categories = {"todo"};
  options.max_scan = 10;
  Subscription sub(store(), options);

  auto first = sub.Next(milliseconds(0));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->events.empty());
  EXPECT_FALSE(first->caught_up);
  EXPECT_EQ(sub.position().value(), 10u);

  std::vector<RecordedEvent> events;
  int reads = 1;
  while (!sub.caught_up() && reads < 100) {
    auto batch = sub.Next(milliseconds(0));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    ++reads;
    for (auto& event : batch->events) events.push_back(std::move(event));
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].stream, "todo-1");
  EXPECT_EQ(events[0].position.value(), 26u);
  EXPECT_GE(reads, 3);  // 1..10, 11..20, 21..26 at least

  // With time to spare, Next reads on by itself.
  Subscription patient(store(), options);
  auto batch = patient.Next(seconds(5));
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->events.size(), 1u);
  EXPECT_TRUE(batch->caught_up);
}

TEST_P(ConformanceTest, SubscriptionOptionsAreValidated) {
  SubscriptionOptions filtered_stream;
  filtered_stream.stream = "todo-1";
  filtered_stream.filter.types = {"Todo.Created"};
  SubscriptionOptions bad_name;
  bad_name.stream = std::string("bad\x01name");
  SubscriptionOptions empty_page;
  empty_page.page_events = 0;
  SubscriptionOptions no_scan;
  no_scan.max_scan = 0;
  for (const auto& options : {filtered_stream, bad_name, empty_page, no_scan}) {
    Subscription sub(store(), options);
    auto batch = sub.Next(milliseconds(10));
    ASSERT_FALSE(batch.ok());
    EXPECT_EQ(batch.status().code(), ErrorCode::kInvalid) << batch.status().ToString();
  }
}

// A subscriber that starts while 8 writers append sees every position once,
// in order, whether it reads pages of stored events or waits for live ones.
TEST_P(ConformanceTest, ConcurrencySubscriberStartedDuringHeavyAppendsSeesEveryPositionOnce) {
  constexpr int kWriters = 8;
  constexpr int kAppends = 150;  // of 1..3 events each
  std::atomic<std::uint64_t> written{0};
  std::atomic<int> writers_done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kAppends; ++i) {
        const int n = 1 + (i + w) % 3;
        auto r = store().Append("heavy-" + std::to_string(w), Expected::any(), Events(n));
        EXPECT_TRUE(r.ok()) << r.status().ToString();
        written += static_cast<std::uint64_t>(n);
      }
      ++writers_done;
    });
  }
  while (written.load() < 100) std::this_thread::yield();  // start mid-stream
  SubscriptionOptions options;
  options.page_events = 64;
  Subscription sub(store(), options);
  std::vector<RecordedEvent> events;
  const auto deadline = std::chrono::steady_clock::now() + seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    auto batch = sub.Next(milliseconds(100));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (auto& event : batch->events) events.push_back(std::move(event));
    if (writers_done.load() == kWriters && events.size() == written.load()) break;
  }
  for (auto& t : writers) t.join();
  ExpectPositionsOneTo(events, written.load());
}

}  // namespace
}  // namespace indelible::conformance
