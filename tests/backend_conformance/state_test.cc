// State records (AppendRequest::state, Store::ReadState) on every backend:
// written atomically with the events they cover, replaced by later writes,
// untouched by appends without one, by conflicts and by idempotent retries,
// removed by a delete, limited in size, and kept across a restart.
#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

AppendRequest WithState(const std::string& stream, Expected expected, int events, std::string state,
                        std::uint32_t schema = 1) {
  AppendRequest append{stream, expected, {}};
  for (int i = 0; i < events; ++i) {
    EventData e;
    e.id = EventId::Random();
    e.type = "Tested";
    e.data = "{}";
    append.events.push_back(std::move(e));
  }
  append.state = StateUpdate{std::move(state), schema};
  return append;
}

std::optional<StateRecord> State(Store& store, const std::string& stream) {
  auto record = store.ReadState(stream);
  EXPECT_TRUE(record.ok()) << record.status().ToString();
  return record.ok() ? *record : std::nullopt;
}

TEST_P(ConformanceTest, StateRecordIsWrittenWithTheEventsItCovers) {
  EXPECT_FALSE(State(store(), "acct-1").has_value()) << "no stream, no record";
  Put("other", 2);  // positions 1, 2
  auto committed = store().Commit({WithState("acct-1", Expected::no_stream(), 3, R"({"b":3})", 7)});
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  auto record = State(store(), "acct-1");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->data, R"({"b":3})");
  EXPECT_EQ(record->schema, 7u);
  EXPECT_EQ(record->version.value(), 2);  // the append's last event
  // Where $all is built after the commit (DynamoDB) the record has none.
  EXPECT_EQ(record->position.value(), positions_at_commit() ? 5u : 0u);

  // An append without a state record leaves it as it was.
  Put("acct-1");
  EXPECT_EQ(State(store(), "acct-1")->version.value(), 2);
  // A later one replaces it.
  ASSERT_TRUE(
      store()
          .Commit({WithState("acct-1", Expected::exactly(StreamVersion(3)), 1, R"({"b":5})")})
          .ok());
  record = State(store(), "acct-1");
  EXPECT_EQ(record->data, R"({"b":5})");
  EXPECT_EQ(record->version.value(), 4);
  EXPECT_EQ(record->schema, 1u);
}

TEST_P(ConformanceTest, StateRecordIsAllOrNothingWithItsCommit) {
  ASSERT_TRUE(store().Commit({WithState("acct-1", Expected::any(), 1, "v0")}).ok());
  // A conflict on another stream of the same commit: neither state moves.
  Put("acct-2");
  auto failed = store().Commit({WithState("acct-1", Expected::exactly(StreamVersion(0)), 1, "v1"),
                                WithState("acct-2", Expected::no_stream(), 1, "w1")});
  ASSERT_EQ(failed.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(State(store(), "acct-1")->data, "v0");
  EXPECT_FALSE(State(store(), "acct-2").has_value());
  // Both streams in one commit: both records.
  ASSERT_TRUE(store()
                  .Commit({WithState("acct-1", Expected::exactly(StreamVersion(0)), 1, "v1"),
                           WithState("acct-2", Expected::exactly(StreamVersion(0)), 2, "w1")})
                  .ok());
  EXPECT_EQ(State(store(), "acct-1")->data, "v1");
  EXPECT_EQ(State(store(), "acct-2")->version.value(), 2);
}

TEST_P(ConformanceTest, StateRecordIsNotRewrittenByAnIdempotentRetry) {
  AppendRequest first = WithState("acct-1", Expected::no_stream(), 1, "v0");
  const std::vector<EventData> events = first.events;
  ASSERT_TRUE(store().Commit({first}).ok());
  ASSERT_TRUE(store().Commit({WithState("acct-1", Expected::any(), 1, "v1")}).ok());
  AppendRequest retry{"acct-1", Expected::no_stream(), events};
  retry.state = StateUpdate{"stale", 1};
  auto replayed = store().Commit({retry});
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  EXPECT_TRUE(replayed->appends[0].replayed);
  EXPECT_EQ(State(store(), "acct-1")->data, "v1") << "the retry wrote nothing";
}

TEST_P(ConformanceTest, StateRecordIsRemovedByADeleteAndRefusedWhereItCannotBe) {
  ASSERT_TRUE(store().Commit({WithState("acct-1", Expected::any(), 2, "v")}).ok());
  ASSERT_TRUE(store().Delete("acct-1").ok());
  EXPECT_FALSE(State(store(), "acct-1").has_value());
  // Restarted: a new record covers the new life.
  ASSERT_TRUE(store().Commit({WithState("acct-1", Expected::no_stream(), 1, "new")}).ok());
  EXPECT_EQ(State(store(), "acct-1")->version.value(), 3);

  StoreOptions small;
  small.limits.max_state_bytes = 10;
  Open(small);
  auto too_big = store().Commit({WithState("acct-9", Expected::any(), 1, std::string(11, 'x'))});
  EXPECT_EQ(too_big.status().code(), ErrorCode::kTooLarge);
  EXPECT_EQ(store().Head("acct-9").status().code(), ErrorCode::kNotFound) << "nothing written";
  EXPECT_EQ(store().ReadState("").status().code(), ErrorCode::kInvalid);
  EXPECT_TRUE(store().ReadState("$parked-x").ok()) << "reserved names are readable";
}

TEST_P(ConformanceTest, StateOnlyAppendRewritesTheRecordAtAnExactVersion) {
  ASSERT_TRUE(store().Commit({WithState("acct-1", Expected::any(), 3, "v2")}).ok());
  Put("other");
  Settle();
  const Position last = store().LastPosition();
  auto rewritten = store().Commit(
      {WithState("acct-1", Expected::exactly(StreamVersion(2)), 0, "recalculated", 4)});
  ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
  EXPECT_EQ(rewritten->appends[0].last_version.value(), 2) << "the head, unchanged";
  EXPECT_EQ(rewritten->appends[0].position.value(), positions_at_commit() ? 3u : 0u);
  EXPECT_EQ(store().LastPosition(), last) << "no event written";
  auto record = State(store(), "acct-1");
  EXPECT_EQ(record->data, "recalculated");
  EXPECT_EQ(record->schema, 4u);
  EXPECT_EQ(record->version.value(), 2);
  EXPECT_EQ(record->position.value(), positions_at_commit() ? 3u : 0u);
  EXPECT_EQ(ReadStreamEvents(store(), "acct-1")->size(), 3u);

  // A stale version conflicts and leaves the record alone.
  auto stale = store().Commit({WithState("acct-1", Expected::exactly(StreamVersion(1)), 0, "x")});
  EXPECT_EQ(stale.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(stale.status().actual_version(), 2);
  EXPECT_EQ(State(store(), "acct-1")->data, "recalculated");
  // It needs an exact version, and no events without a state is still invalid.
  EXPECT_EQ(store().Commit({WithState("acct-1", Expected::any(), 0, "x")}).status().code(),
            ErrorCode::kInvalid);
  EXPECT_EQ(store()
                .Commit({AppendRequest{"acct-1", Expected::exactly(StreamVersion(2)), {}}})
                .status()
                .code(),
            ErrorCode::kInvalid);
  EXPECT_EQ(store()
                .Commit({WithState("missing", Expected::exactly(StreamVersion(0)), 0, "x")})
                .status()
                .code(),
            ErrorCode::kConflict);
  EXPECT_FALSE(State(store(), "missing").has_value());
  // With events on another stream, in one commit.
  auto both = store().Commit({WithState("acct-1", Expected::exactly(StreamVersion(2)), 0, "v2b"),
                              WithState("acct-2", Expected::no_stream(), 1, "w0")});
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(State(store(), "acct-1")->data, "v2b");
  EXPECT_EQ(State(store(), "acct-2")->data, "w0");
}

TEST_P(DurableTest, StateRecordSurvivesARestartAndCheckVerifiesIt) {
  ASSERT_TRUE(store().Commit({WithState("acct-1", Expected::any(), 3, R"({"b":1})", 2)}).ok());
  Open();
  auto record = State(store(), "acct-1");
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->data, R"({"b":1})");
  EXPECT_EQ(record->schema, 2u);
  EXPECT_EQ(record->version.value(), 2);
  EXPECT_TRUE(store().Check().ok());
}

}  // namespace
}  // namespace indelible::conformance
