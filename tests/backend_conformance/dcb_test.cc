// Consistency beyond one stream (docs/DCB.md): tags on every read path,
// the specification's query semantics, and conditional appends that hold
// under races, on every backend.
#include <indelible/consumer_group.h>

#include <atomic>
#include <barrier>
#include <set>
#include <thread>

#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

class DcbTest : public ConformanceTest {
 protected:
  static EventData Tagged(std::string type, std::vector<std::string> tags,
                          std::string data = "{}") {
    EventData e = Event(std::move(type), std::move(data));
    e.tags = std::move(tags);
    return e;
  }
  std::vector<RecordedEvent> ReadByQuery(const Query& query, ReadQueryOptions options = {}) {
    Settle();
    auto events = ReadQueryEvents(store(), query, options);
    EXPECT_TRUE(events.ok()) << events.status().ToString();
    return events.ok() ? *events : std::vector<RecordedEvent>{};
  }
  // The events' data, in the order read: which events a query found.
  static std::vector<std::string> Data(const std::vector<RecordedEvent>& events) {
    std::vector<std::string> data;
    for (const auto& e : events) data.push_back(e.data);
    return data;
  }
  // The last position a read of `query` considered: where a decision's
  // condition starts.
  Position Considered(const Query& query) {
    Settle();
    auto cursor = store().ReadQuery(query);
    EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
    if (!cursor.ok()) return Position(0);
    for (; (*cursor)->Valid(); (*cursor)->Next()) {
    }
    EXPECT_TRUE((*cursor)->status().ok()) << (*cursor)->status().ToString();
    return Position((*cursor)->next_position().value() - 1);
  }
  // DynamoDB checks conditions per tag (docs/DCB.md, "DynamoDB"): an item
  // of types alone is refused there.
  bool type_only_conditions() const { return positions_at_commit(); }
};

TEST_P(DcbTest, TagsAreStoredAsASetAndReturnedByEveryReadPath) {
  EventData e = Tagged("Tagged", {"user:bob", "course:c1", "user:bob", "a"});
  auto written = store().Append("tags-1", Expected::no_stream(), {e});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const std::vector<std::string> expected = {"a", "course:c1", "user:bob"};
  auto stream = Read("tags-1");
  ASSERT_EQ(stream.size(), 1u);
  EXPECT_EQ(stream[0].tags, expected);
  auto all = All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].tags, expected);
  auto queried = ReadByQuery(Query::Of({QueryItem{{}, {"user:bob"}}}));
  ASSERT_EQ(queried.size(), 1u);
  EXPECT_EQ(queried[0].tags, expected);
  auto loaded = store().ReadStateAndEvents("tags-1");
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->events->Valid());
  EXPECT_EQ(loaded->events->event().ToOwned().tags, expected);
  if (store().traits().ids_unique_across_streams) {
    auto found = store().FindEvent(stream[0].id);
    ASSERT_TRUE(found.ok() && found->has_value());
    EXPECT_EQ((*found)->tags, expected);
  }
  // An event without tags has none.
  Put("tags-2");
  EXPECT_TRUE(Read("tags-2")[0].tags.empty());
}

TEST_P(DcbTest, BadTagsAndQueriesAreInvalidAndWriteNothing) {
  auto refused = [&](std::vector<std::string> tags, const std::string& field) {
    auto r = store().Append("bad-tags", Expected::any(), {Tagged("T", std::move(tags))});
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalid) << field;
    EXPECT_EQ(r.status().field(), field) << r.status().ToString();
  };
  refused({""}, "events[0].tags[0]");
  refused({"ok", "bell\a"}, "events[0].tags[1]");
  refused({std::string(kMaxTagBytes + 1, 't')}, "events[0].tags[0]");
  std::vector<std::string> many;
  for (std::size_t i = 0; i <= kMaxEventTags; ++i) many.push_back("t" + std::to_string(i));
  refused(many, "events[0].tags");
  EXPECT_EQ(store().Head("bad-tags").status().code(), ErrorCode::kNotFound);

  auto bad_read = store().ReadQuery(Query::Of({QueryItem{}}));
  EXPECT_EQ(bad_read.status().code(), ErrorCode::kInvalid);
  CommitOptions options;
  options.condition = AppendCondition{Query::Of({QueryItem{{"A"}, {""}}}), std::nullopt};
  auto bad_condition = store().Commit({{"bad-tags", Expected::any(), {Event()}}}, options);
  EXPECT_EQ(bad_condition.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(bad_condition.status().field(), "condition.failIfEventsMatch.items[0].tags[0]");
  EXPECT_EQ(store().Head("bad-tags").status().code(), ErrorCode::kNotFound);
}

// The specification's semantics: types OR, tags AND, items OR.
TEST_P(DcbTest, QueriesMatchTypesAnyTagsAllItemsAny) {
  ASSERT_TRUE(
      store()
          .Commit(
              {{"q-1", Expected::any(), {Tagged("A", {"x"}, "1"), Tagged("B", {"x", "y"}, "2")}},
               {"q-2",
                Expected::any(),
                {Tagged("A", {"y"}, "3"), Tagged("C", {}, "4"),
                 Tagged("A", {"x", "y", "z"}, "5")}}})
          .ok());
  using V = std::vector<std::string>;
  auto q = [](std::vector<QueryItem> items) { return Query::Of(std::move(items)); };
  EXPECT_EQ(Data(ReadByQuery(q({{{}, {"x"}}}))), (V{"1", "2", "5"}));
  EXPECT_EQ(Data(ReadByQuery(q({{{}, {"x", "y"}}}))), (V{"2", "5"}));
  EXPECT_EQ(Data(ReadByQuery(q({{{"A"}, {"x"}}}))), (V{"1", "5"}));
  EXPECT_EQ(Data(ReadByQuery(q({{{"A", "B"}, {"y"}}}))), (V{"2", "3", "5"}));
  EXPECT_EQ(Data(ReadByQuery(q({{{"C"}, {}}, {{}, {"z"}}}))), (V{"4", "5"}));
  EXPECT_EQ(Data(ReadByQuery(q({{{}, {"x"}}, {{}, {"y"}}}))), (V{"1", "2", "3", "5"}));
  EXPECT_EQ(Data(ReadByQuery(q({{{}, {"nobody"}}}))), V{});
  EXPECT_EQ(Data(ReadByQuery(q({{{}, {"x", "nobody"}}}))), V{});
  EXPECT_EQ(Data(ReadByQuery(Query::All())), (V{"1", "2", "3", "4", "5"}));

  // Backward, and pages that go on from next_position().
  ReadQueryOptions backward;
  backward.direction = Direction::kBackward;
  EXPECT_EQ(Data(ReadByQuery(q({{{}, {"x"}}}), backward)), (V{"5", "2", "1"}));
  const Query xs = q({{{}, {"x"}}, {{"C"}, {}}});
  std::vector<std::string> forward_pages, backward_pages;
  for (Direction direction : {Direction::kForward, Direction::kBackward}) {
    std::optional<Position> from;
    for (int page = 0; page < 10; ++page) {
      ReadQueryOptions options;
      options.direction = direction;
      options.from = from;
      options.limit = 1;
      auto cursor = store().ReadQuery(xs, options);
      ASSERT_TRUE(cursor.ok());
      if (!(*cursor)->Valid()) break;
      (direction == Direction::kForward ? forward_pages : backward_pages)
          .emplace_back((*cursor)->event().data);
      (*cursor)->Next();
      from = (*cursor)->next_position();
      if (direction == Direction::kBackward && from->value() == 0) break;
    }
  }
  EXPECT_EQ(forward_pages, (V{"1", "2", "4", "5"}));
  EXPECT_EQ(backward_pages, (V{"5", "4", "2", "1"}));
}

TEST_P(DcbTest, AConditionHoldsUntilAMatchingEventIsWrittenAfterItsPosition) {
  const Query taken = Query::Of({QueryItem{{"NameClaimed"}, {"name:alice"}}});
  Put("unrelated");
  const Position seen = Considered(taken);
  CommitOptions options;
  options.condition = AppendCondition{taken, seen};
  auto first = store().Commit(
      {{"user-1", Expected::no_stream(), {Tagged("NameClaimed", {"name:alice", "user:1"})}}},
      options);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  Settle();

  // The same decision again, by another writer: its condition fails.
  auto second = store().Commit(
      {{"user-2", Expected::no_stream(), {Tagged("NameClaimed", {"name:alice", "user:2"})}}},
      options);
  ASSERT_EQ(second.status().code(), ErrorCode::kConflict) << second.status().ToString();
  ASSERT_TRUE(second.status().condition_position().has_value());
  if (positions_at_commit()) {
    EXPECT_EQ(*second.status().condition_position(), first->position.value());
  }
  EXPECT_EQ(store().Head("user-2").status().code(), ErrorCode::kNotFound);

  // A retry of the first commit, ids and all, is its original answer.
  auto retried = store().Commit({{"user-1", Expected::no_stream(), {[&] {
                                    EventData e = Tagged("NameClaimed", {"name:alice", "user:1"});
                                    e.id = Read("user-1")[0].id;
                                    return e;
                                  }()}}},
                                options);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_TRUE(retried->appends[0].replayed);

  // Read again, past the claim: other names are still free.
  const Query bob = Query::Of({QueryItem{{"NameClaimed"}, {"name:bob"}}});
  options.condition = AppendCondition{bob, Considered(bob)};
  EXPECT_TRUE(
      store()
          .Commit(
              {{"user-2", Expected::no_stream(), {Tagged("NameClaimed", {"name:bob", "user:2"})}}},
              options)
          .ok());

  // Without `after`, any matching event fails it.
  options.condition = AppendCondition{taken, std::nullopt};
  auto any = store().Commit({{"user-3", Expected::any(), {Event()}}}, options);
  EXPECT_TRUE(any.status().condition_position().has_value()) << any.status().ToString();

  // A stream expectation and a condition in one commit: the expectation is
  // reported first, and nothing is written when either fails.
  options.condition = AppendCondition{bob, Considered(bob)};
  auto both = store().Commit({{"user-1", Expected::no_stream(), {Event()}}}, options);
  EXPECT_EQ(both.status().code(), ErrorCode::kConflict);
  EXPECT_FALSE(both.status().condition_position().has_value());
  EXPECT_EQ(both.status().actual_version(), 0);
  EXPECT_EQ(Read("user-1").size(), 1u);
}

TEST_P(DcbTest, AConditionOnTypesAloneOrOnEverythingIsCheckedWhereTheBackendCan) {
  const Query of_type = Query::Of({QueryItem{{"Rare"}, {}}});
  CommitOptions options;
  options.condition = AppendCondition{of_type, Considered(of_type)};
  if (!type_only_conditions()) {
    auto refused = store().Commit({{"t-1", Expected::any(), {Event()}}}, options);
    EXPECT_EQ(refused.status().code(), ErrorCode::kInvalid) << refused.status().ToString();
    return;
  }
  ASSERT_TRUE(store().Commit({{"t-1", Expected::any(), {Event("Rare")}}}, options).ok());
  auto again = store().Commit({{"t-2", Expected::any(), {Event("Rare")}}}, options);
  EXPECT_TRUE(again.status().condition_position().has_value()) << again.status().ToString();
  // Query::All as a condition: nothing at all may have been written since.
  options.condition = AppendCondition{Query::All(), store().LastPosition()};
  ASSERT_TRUE(store().Commit({{"t-3", Expected::any(), {Event()}}}, options).ok());
  auto stale = store().Commit({{"t-4", Expected::any(), {Event()}}}, options);
  EXPECT_EQ(stale.status().condition_position(), store().LastPosition().value());
}

TEST_P(DcbTest, EventsWithoutAStreamGoToTheDcbStream) {
  auto written = store().Commit(
      {{std::string(kStreamlessStream), Expected::any(), {Tagged("Loose", {"k:1"})}}});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->appends[0].stream, kStreamlessStream);
  auto found = ReadByQuery(Query::Of({QueryItem{{}, {"k:1"}}}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].stream, kStreamlessStream);
  EXPECT_EQ(Read(std::string(kStreamlessStream)).size(), 1u);
  // An empty name is no stream at all, and another `$` stream stays reserved.
  EXPECT_EQ(store().Append("", Expected::any(), {Event()}).status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(store().Append("$other", Expected::any(), {Event()}).status().code(),
            ErrorCode::kInvalid);
}

// A parked copy (consumer groups' park policy) keeps its original's tags in
// its metadata, not as tags: it must not count as a second event in a
// query or a condition. A replay hands the tags back.
TEST_P(DcbTest, AParkedCopyIsNotFoundByQueriesAndItsReplayKeepsTheTags) {
  ASSERT_TRUE(store().Append("order-1", Expected::any(), {Tagged("Placed", {"order:1"})}).ok());
  Settle();
  ConsumerGroupOptions options;
  options.policy = FailurePolicy::kPark;
  options.max_attempts = 1;
  ASSERT_TRUE(ConsumerGroup::Create(store(), "dcb-park", options).ok());
  auto group = ConsumerGroup::Open(store(), "dcb-park");
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  for (int pulls = 0; pulls < 20 && (*group)->info().parked_events == 0; ++pulls) {
    auto batch = (*group)->Pull("w", 10, std::chrono::milliseconds(20));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (const Delivery& d : *batch) ASSERT_TRUE((*group)->Nack(d.event.position, "no").ok());
  }
  ASSERT_EQ((*group)->info().parked_events, 1u);
  Settle();
  EXPECT_EQ(ReadByQuery(Query::Of({QueryItem{{}, {"order:1"}}})).size(), 1u);
  ASSERT_TRUE((*group)->ReplayParked().ok());
  std::optional<Delivery> replayed;
  for (int pulls = 0; pulls < 50 && !replayed; ++pulls) {
    auto batch = (*group)->Pull("w", 10, std::chrono::milliseconds(20));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (const Delivery& d : *batch) {
      if (d.parked_version) replayed = d;
      ASSERT_TRUE((*group)->Ack(d.event.position).ok());
    }
  }
  ASSERT_TRUE(replayed.has_value());
  EXPECT_EQ(replayed->event.tags, (std::vector<std::string>{"order:1"}));
}

// Two commits of one CommitEach decided on the same read: the second sees
// the first (in the same group on the embedded engine) and fails.
TEST_P(DcbTest, CommitsInOneBatchSeeEachOthersEvents) {
  const Query seat = Query::Of({QueryItem{{"Seated"}, {"seat:7"}}});
  const Position seen = Considered(seat);
  std::vector<CommitRequest> commits;
  for (int i = 0; i < 2; ++i) {
    CommitRequest c;
    c.appends = {{"guest-" + std::to_string(i), Expected::any(), {Tagged("Seated", {"seat:7"})}}};
    c.options.condition = AppendCondition{seat, seen};
    commits.push_back(std::move(c));
  }
  auto results = store().CommitEach(std::move(commits));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].ok() + results[1].ok(), 1)
      << results[0].status().ToString() << " / " << results[1].status().ToString();
  Settle();
  EXPECT_EQ(ReadByQuery(seat).size(), 1u);
}

// 32 writers claim one user name at once, several rounds: one wins each.
TEST_P(DcbTest, ThirtyTwoWritersRaceForOneUserNameAndExactlyOneWins) {
  constexpr int kWriters = 32;
  constexpr int kRounds = 4;
  std::barrier sync(kWriters);
  std::atomic<int> winners[kRounds] = {};
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRounds; ++round) {
        const std::string name = "username:user" + std::to_string(round);
        const Query claimed = Query::Of({QueryItem{{"UsernameClaimed"}, {name}}});
        sync.arrive_and_wait();
        auto cursor = store().ReadQuery(claimed);
        if (!cursor.ok()) {
          ++unexpected;
          sync.arrive_and_wait();
          continue;
        }
        bool taken = (*cursor)->Valid();
        for (; (*cursor)->Valid(); (*cursor)->Next()) {
        }
        const Position seen((*cursor)->next_position().value() - 1);
        if (!taken) {
          CommitOptions options;
          options.condition = AppendCondition{claimed, seen};
          const std::string stream = "account-" + std::to_string(round) + "-" + std::to_string(t);
          auto r = store().Commit(
              {{stream, Expected::no_stream(), {Tagged("UsernameClaimed", {name})}}}, options);
          if (r.ok())
            ++winners[round];
          else if (!r.status().condition_position())
            ++unexpected;
        }
        sync.arrive_and_wait();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  for (int round = 0; round < kRounds; ++round) {
    EXPECT_EQ(winners[round].load(), 1) << round;
    EXPECT_EQ(
        ReadByQuery(Query::Of({QueryItem{{}, {"username:user" + std::to_string(round)}}})).size(),
        1u)
        << round;
  }
}

// A course of 10 seats, 50 students enrolling at once, each re-reading and
// retrying on a conflict: exactly 10 get in.
TEST_P(DcbTest, FiftyEnrolmentsAgainstTenSeatsGiveExactlyTen) {
  constexpr int kStudents = 50;
  constexpr std::size_t kSeats = 10;
  const Query enrolled = Query::Of({QueryItem{{"StudentEnrolled"}, {"course:c42"}}});
  std::barrier sync(kStudents);
  std::atomic<int> admitted{0}, turned_away{0}, unexpected{0};
  std::vector<std::thread> threads;
  for (int s = 0; s < kStudents; ++s) {
    threads.emplace_back([&, s] {
      sync.arrive_and_wait();
      for (int attempt = 0; attempt < 200; ++attempt) {
        auto cursor = store().ReadQuery(enrolled);
        if (!cursor.ok()) return void(++unexpected);
        std::size_t seats_taken = 0;
        for (; (*cursor)->Valid(); (*cursor)->Next()) ++seats_taken;
        if (seats_taken >= kSeats) return void(++turned_away);
        CommitOptions options;
        options.condition =
            AppendCondition{enrolled, Position((*cursor)->next_position().value() - 1)};
        const std::string student = "student:s" + std::to_string(s);
        auto r = store().Commit({{"enrolment-c42-s" + std::to_string(s),
                                  Expected::no_stream(),
                                  {Tagged("StudentEnrolled", {"course:c42", student})}}},
                                options);
        if (r.ok()) return void(++admitted);
        if (!r.status().condition_position()) return void(++unexpected);
        if (!positions_at_commit())  // let the index show the winner before reading again
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      ++unexpected;  // 200 conflicts in a row
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(admitted.load(), static_cast<int>(kSeats));
  EXPECT_EQ(turned_away.load(), kStudents - static_cast<int>(kSeats));
  EXPECT_EQ(ReadByQuery(enrolled).size(), kSeats);
}

TEST_P(DurableTest, TagsAndTheirIndexSurviveAReopen) {
  EventData e = Event("K");
  e.tags = {"keep:2", "keep:1"};
  ASSERT_TRUE(store().Append("kept", Expected::any(), {e}).ok());
  Open();
  auto found = ReadQueryEvents(store(), Query::Of({QueryItem{{"K"}, {"keep:2", "keep:1"}}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].tags, (std::vector<std::string>{"keep:1", "keep:2"}));
  EXPECT_TRUE(store().Check().ok()) << store().Check().ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, DcbTest,
                         ::testing::Values(Backend{"memory", false}, Backend{"embedded", true},
                                           Backend{"dynamodb", false}),
                         [](const auto& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace indelible::conformance
