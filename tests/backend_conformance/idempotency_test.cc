// Idempotent retries keyed by event ids, for every expectation.
#include <future>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

void ExpectSameResult(const AppendResult& a, const AppendResult& b) {
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.first_version, b.first_version);
  EXPECT_EQ(a.last_version, b.last_version);
  EXPECT_EQ(a.first_position, b.first_position);
  EXPECT_EQ(a.position, b.position);
}

TEST_P(ConformanceTest, FullRetryReturnsTheOriginalResultForEveryExpectation) {
  const std::vector<Expected> expectations = {Expected::any(), Expected::no_stream(),
                                              Expected::exists(),
                                              Expected::exactly(StreamVersion(0))};
  int n = 0;
  for (const Expected& expected : expectations) {
    const std::string stream = "retry-" + std::to_string(n++);
    if (expected.kind() == Expected::Kind::kExists || expected.kind() == Expected::Kind::kExactly)
      Put(stream);
    auto events = Events(3);
    auto first = store().Append(stream, expected, events);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    Put(stream);  // another append in between: the stale expectation must not matter
    const Position before = store().LastPosition();
    auto retry = store().Append(stream, expected, events);
    ASSERT_TRUE(retry.ok()) << expected.ToString() << ": " << retry.status().ToString();
    ExpectSameResult(*first, *retry);
    EXPECT_FALSE(first->replayed);
    EXPECT_TRUE(retry->replayed);
    EXPECT_EQ(store().LastPosition(), before) << "a retry wrote something";
    // A subset of the original append's ids is the same append.
    auto subset = store().Append(stream, expected, {events[1], events[2]});
    ASSERT_TRUE(subset.ok()) << subset.status().ToString();
    ExpectSameResult(*first, *subset);
    EXPECT_TRUE(subset->replayed);
  }
}

// Events sent without ids get fresh ones the store does not look up
// (CommitOptions::ids_made_by_store); they are still the key of a retry once
// a client has them, and a caller cannot claim the flag for ids it gives.
TEST_P(ConformanceTest, IdsTheStoreMadeKeyRetriesAndTheFlagIsTheStoresOwn) {
  std::vector<EventData> nameless = Events(3);
  for (EventData& e : nameless) e.id = EventId();
  auto made = store().Append("made-ids", Expected::no_stream(), nameless);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Settle();
  std::vector<RecordedEvent> stored = Read("made-ids");
  ASSERT_EQ(stored.size(), 3u);
  std::vector<EventData> resent;
  for (const RecordedEvent& e : stored) {
    EXPECT_FALSE(e.id.is_nil());
    EventData again = Event(e.type, e.data);
    again.id = e.id;
    resent.push_back(std::move(again));
  }
  EXPECT_NE(stored[0].id, stored[1].id);
  if (GetParam().name != "dynamodb") {  // which finds no event by id (find_event_test.cc)
    auto found = store().FindEvent(stored[2].id);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    ASSERT_TRUE(found->has_value()) << "an id the store made is not indexed";
    EXPECT_EQ((*found)->position, stored[2].position);
  }
  const Position before = store().LastPosition();
  CommitOptions claimed;
  claimed.ids_made_by_store = true;  // overwritten by the store's checks
  auto retry = store().Commit({{"made-ids", Expected::no_stream(), resent}}, claimed);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  ASSERT_EQ(retry->appends.size(), 1u);
  EXPECT_TRUE(retry->appends[0].replayed);
  ExpectSameResult(*made, retry->appends[0]);
  CommitRequest async;
  async.appends.push_back({"made-ids", Expected::any(), resent});
  async.options.ids_made_by_store = true;
  std::promise<Result<CommitResult>> answered;
  store().CommitAsync(std::move(async),
                      [&](Result<CommitResult> result) { answered.set_value(std::move(result)); });
  auto replayed = answered.get_future().get();
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_TRUE(replayed->appends[0].replayed);
  EXPECT_EQ(store().LastPosition(), before) << "a retry of ids the store made wrote again";
  EXPECT_EQ(Read("made-ids").size(), 3u);
  if (store().traits().ids_unique_across_streams) {
    auto elsewhere = store().Append("made-ids-thief", Expected::any(), {resent[0]});
    EXPECT_EQ(elsewhere.status().code(), ErrorCode::kConflict);
  }
}

TEST_P(ConformanceTest, PartialOverlapIsAConflictAndWritesNothing) {
  auto events = Events(2);
  ASSERT_TRUE(store().Append("overlap", Expected::any(), events).ok());
  Settle();  // on DynamoDB $all moves after the commit: wait, then compare
  const Position before = store().LastPosition();
  const EventData fresh = Event();
  auto mixed = store().Append("overlap", Expected::any(), {events[0], fresh});
  EXPECT_EQ(mixed.status().code(), ErrorCode::kConflict);
  // A conflict about ids, not versions: it names the new id and its stream.
  EXPECT_TRUE(mixed.status().event_id_conflict()) << mixed.status().ToString();
  EXPECT_EQ(mixed.status().event_id(), fresh.id.ToString());
  EXPECT_EQ(mixed.status().stream(), "overlap");
  EXPECT_FALSE(mixed.status().actual_version().has_value());
  EXPECT_EQ(store().LastPosition(), before);
  EXPECT_EQ(Read("overlap").size(), 2u);
}

TEST_P(ConformanceTest, IdUsedOnAnotherStreamIsAConflict) {
  auto events = Events(1);
  ASSERT_TRUE(store().Append("owner", Expected::any(), events).ok());
  auto elsewhere = store().Append("thief", Expected::any(), events);
  if (!store().traits().ids_unique_across_streams) {
    // DynamoDB checks ids per stream only: the documented limit.
    EXPECT_TRUE(elsewhere.ok()) << elsewhere.status().ToString();
    EXPECT_FALSE(elsewhere->replayed);
    return;
  }
  EXPECT_EQ(elsewhere.status().code(), ErrorCode::kConflict);
  EXPECT_TRUE(elsewhere.status().event_id_conflict()) << elsewhere.status().ToString();
  EXPECT_EQ(elsewhere.status().event_id(), events[0].id.ToString());
  EXPECT_EQ(elsewhere.status().stream(), "thief");
  EXPECT_EQ(store().Head("thief").status().code(), ErrorCode::kNotFound);
}

TEST_P(ConformanceTest, RetryOfAMultiStreamCommitReturnsTheOriginalResults) {
  std::vector<AppendRequest> commit = {{"multi-a", Expected::no_stream(), Events(2)},
                                       {"multi-b", Expected::no_stream(), Events(1)}};
  auto first = store().Commit(commit);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Settle();  // on DynamoDB $all moves after the commit: wait, then compare
  const Position before = store().LastPosition();
  auto retry = store().Commit(commit);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  ASSERT_EQ(retry->appends.size(), 2u);
  ExpectSameResult(first->appends[0], retry->appends[0]);
  ExpectSameResult(first->appends[1], retry->appends[1]);
  EXPECT_EQ(store().LastPosition(), before);
  // Mixing a retried append with a new one is a conflict.
  std::vector<AppendRequest> mixed = {{"multi-c", Expected::any(), Events(1)}, commit[0]};
  auto refused = store().Commit(mixed);
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_TRUE(refused.status().event_id_conflict()) << refused.status().ToString();
  EXPECT_EQ(refused.status().stream(), "multi-a") << "names the retried append";
  EXPECT_EQ(refused.status().event_id(), commit[0].events[0].id.ToString());
  EXPECT_EQ(store().LastPosition(), before);
}

TEST_P(DurableTest, RetryAfterReopenReturnsTheOriginalResult) {
  auto events = Events(2);
  auto first = store().Append("reopen", Expected::no_stream(), events);
  ASSERT_TRUE(first.ok());
  Open();
  const Position before = store().LastPosition();
  auto retry = store().Append("reopen", Expected::no_stream(), events);
  ASSERT_TRUE(retry.ok()) << retry.status().ToString();
  ExpectSameResult(*first, *retry);
  EXPECT_EQ(store().LastPosition(), before);
}

}  // namespace
}  // namespace indelible::conformance
