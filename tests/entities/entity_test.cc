// The entity API (include/indelible/entity.h) on every backend: rules per
// event type, loading, bad commands, rejection (nothing written), deleted
// streams and recalculation. Outbound events, concurrency and snapshots
// have their own files.
#include "entities/entity_fixture.h"

namespace indelible::entity_test {

INSTANTIATE_TEST_SUITE_P(Backends, EntityTest,
                         ::testing::Values(Backend{"memory", false}, Backend{"embedded", true},
                                           Backend{"dynamodb", false}),
                         [](const auto& param_info) { return param_info.param.name; });

namespace {

TEST_P(EntityTest, RulesApplyPerEventTypeAndGetReturnsStateVersionAndPosition) {
  auto profiles = Profiles();
  ASSERT_TRUE(store().Append("unrelated", Expected::any(), {Points(1)}).ok());  // position 1

  ASSERT_OK_AND_ASSIGN(created, profiles.Append("user-1", {Rename("ada"), Points(5)}));
  EXPECT_EQ(created.entity.state, (Profile{"ada", {}, 5}));
  EXPECT_EQ(created.entity.version, StreamVersion(1));
  // Where $all is built after the commit (DynamoDB), no position yet.
  EXPECT_EQ(created.entity.position, positions_at_commit() ? Position(3) : Position(0));
  EXPECT_EQ(created.attempts, 1);
  EXPECT_FALSE(created.replayed);
  ASSERT_OK_AND_ASSIGN(more, profiles.Append("user-1", {Follow("bob"), Points(-2)}));
  EXPECT_EQ(more.entity.state, (Profile{"ada", {"bob"}, 3}));

  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.stream, "user-1");
  EXPECT_EQ(got.state, (Profile{"ada", {"bob"}, 3}));
  EXPECT_EQ(got.version, StreamVersion(3));
  EXPECT_EQ(got.position, positions_at_commit() ? Position(5) : Position(0));
  const auto events = Read("user-1");
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].type, kRenamed);
  EXPECT_EQ(events[2].type, kFollowed);
  EXPECT_EQ(events[3].data, R"({"amount":-2})") << "the event as given, encoded by its codec";
}

TEST_P(EntityTest, GetOfAMissingStreamIsNotFound) {
  auto got = Profiles().Get("user-1");
  ASSERT_EQ(got.status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(got.status().deleted());
  EXPECT_EQ(HeadVersion("user-1"), -1) << "reading wrote nothing";
}

TEST_P(EntityTest, EventTypesWithoutARuleAreSkippedOnLoad) {
  // Both ways of loading: from the state record and by replaying it all.
  EntityOptions replay;
  replay.snapshots = SnapshotPolicy::None();
  for (const EntityOptions& options : {EntityOptions{}, replay}) {
    const std::string stream = "user-" + std::to_string(options.snapshots.n());
    auto profiles = Profiles(options);
    ASSERT_TRUE(profiles.Append(stream, {Rename("ada"), Points(5)}).ok());
    EventData note;
    note.type = "NOTE_WRITTEN";
    note.data = R"({"text":"not the entity's business"})";
    ASSERT_TRUE(store().Append(stream, Expected::any(), {note, note}).ok());
    ASSERT_TRUE(profiles.Append(stream, {Points(1)}).ok());
    ASSERT_TRUE(store().Append(stream, Expected::any(), {note}).ok());

    ASSERT_OK_AND_ASSIGN(got, profiles.Get(stream));
    EXPECT_EQ(got.state, (Profile{"ada", {}, 6}));
    EXPECT_EQ(got.version, StreamVersion(5)) << "the version is the stream's, note included";
  }
}

TEST_P(EntityTest, AnEventTypeWithoutARuleIsInvalidAndWritesNothing) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada")}).ok());
  EventData unknown;
  unknown.type = "NOTE_WRITTEN";
  unknown.data = "{}";
  auto first = profiles.Append("user-1", {unknown});
  EXPECT_EQ(first.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(first.status().field(), "events[0].type");
  auto second = profiles.Append("user-1", {Points(100), unknown});
  EXPECT_EQ(second.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(second.status().field(), "events[1].type");
  auto on_new = profiles.Append("user-2", {unknown});
  EXPECT_EQ(on_new.status().field(), "events[0].type");

  EXPECT_EQ(HeadVersion("user-1"), 0);
  EXPECT_EQ(HeadVersion("user-2"), -1);
  EXPECT_TRUE(Outbox("user-1").empty());
  EXPECT_EQ(profiles.Append("user-1", {}).status().code(), ErrorCode::kInvalid)
      << "a command needs an event";
}

TEST_P(EntityTest, AnEventTheCodecRejectsIsInvalidAndWritesNothing) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada")}).ok());
  EventData bad = Points(1);
  bad.data = R"({"amount":"lots"})";
  auto appended = profiles.Append("user-1", {Points(100), bad});
  ASSERT_EQ(appended.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(appended.status().field(), "events[1].data.amount") << "the codec's field";
  EXPECT_EQ(appended.status().message(), "expected an integer") << "the codec's reason";
  EXPECT_EQ(HeadVersion("user-1"), 0);
  EXPECT_TRUE(Outbox("user-1").empty());
}

TEST_P(EntityTest, ARejectionFailsTheCommandWithItsReasonAndWritesNothing) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada"), Points(150)}).ok());
  const auto record_before = StateOf("user-1");
  ASSERT_TRUE(record_before.has_value());
  ASSERT_EQ(Outbox("user-1").size(), 1u);
  Settle();
  const Position last = store().LastPosition();

  auto rejected = profiles.Append("user-1", {Points(-151)});
  ASSERT_EQ(rejected.status().code(), ErrorCode::kRejected);
  EXPECT_EQ(rejected.status().message(), "not enough points");

  // The second event of a command is rejected: the first one, and what its
  // rule published, go too.
  auto second = profiles.Append("user-1", {Points(500), Rename("")});
  ASSERT_EQ(second.status().code(), ErrorCode::kRejected);
  EXPECT_EQ(second.status().message(), "a name is required");
  auto on_new = profiles.Append("user-2", {Follow("bob"), Follow("bob")});
  ASSERT_EQ(on_new.status().code(), ErrorCode::kRejected);
  EXPECT_EQ(on_new.status().message(), "already following bob");

  EXPECT_EQ(HeadVersion("user-1"), 1);
  EXPECT_EQ(HeadVersion("user-2"), -1);
  EXPECT_EQ(Outbox("user-1").size(), 1u);
  EXPECT_TRUE(Outbox("user-2").empty());
  Settle();
  EXPECT_EQ(store().LastPosition(), last) << "no event anywhere";
  const auto record_after = StateOf("user-1");
  ASSERT_TRUE(record_after.has_value());
  EXPECT_EQ(record_after->data, record_before->data);
  EXPECT_EQ(record_after->version, record_before->version);
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state, (Profile{"ada", {}, 150}));
}

TEST_P(EntityTest, ADeletedStreamIsNotFoundAndAnAppendRestartsItFromTheInitialState) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada"), Follow("bob"), Points(7)}).ok());
  ASSERT_TRUE(store().Delete("user-1").ok());  // the tombstone is version 3

  auto got = profiles.Get("user-1");
  ASSERT_EQ(got.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(got.status().deleted());
  auto recalculated = profiles.Recalculate("user-1");
  EXPECT_EQ(recalculated.status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE(recalculated.status().deleted());

  // Following bob again is no rejection: the new life starts from nothing.
  ASSERT_OK_AND_ASSIGN(restarted, profiles.Append("user-1", {Follow("bob")}));
  EXPECT_EQ(restarted.entity.state, (Profile{"", {"bob"}, 0}));
  EXPECT_EQ(restarted.entity.version, StreamVersion(4)) << "numbering goes on after the tombstone";
  ASSERT_OK_AND_ASSIGN(again, profiles.Get("user-1"));
  EXPECT_EQ(again.state, (Profile{"", {"bob"}, 0}));
  EXPECT_EQ(again.version, StreamVersion(4));
  EntityOptions replay;
  replay.snapshots = SnapshotPolicy::None();
  ASSERT_OK_AND_ASSIGN(replayed, Profiles(replay).Get("user-1"));
  EXPECT_EQ(replayed.state, again.state) << "replaying reads the current life only";
  EXPECT_EQ(replayed.events_read, 1);
}

TEST_P(EntityTest, RecalculateRepairsAWrongStateRecordWithoutWritingEvents) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada"), Points(150), Follow("bob")}).ok());
  const std::size_t outbox = Outbox("user-1").size();
  ASSERT_EQ(outbox, 2u);
  // As buggy rules would have left it: a state-only commit at the head.
  const Profile wrong{"eve", {}, 999};
  AppendRequest overwrite{"user-1", Expected::exactly(StreamVersion(2)), {}};
  overwrite.state = StateUpdate{Codec<Profile>::Encode(wrong), 1};
  ASSERT_TRUE(store().Commit({overwrite}).ok());
  ASSERT_OK_AND_ASSIGN(misled, profiles.Get("user-1"));
  EXPECT_EQ(misled.state, wrong) << "Get trusts the record";
  Settle();
  const Position last = store().LastPosition();

  ASSERT_OK_AND_ASSIGN(fixed, profiles.Recalculate("user-1"));
  const Profile right{"ada", {"bob"}, 150};
  EXPECT_EQ(fixed.entity.state, right);
  EXPECT_EQ(fixed.entity.version, StreamVersion(2));
  EXPECT_EQ(fixed.entity.events_read, 3) << "it replays everything";
  EXPECT_TRUE(fixed.published.empty()) << "replayed rules publish nothing";
  Settle();
  EXPECT_EQ(store().LastPosition(), last) << "no event written";
  EXPECT_EQ(Outbox("user-1").size(), outbox);
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state, right);
  EXPECT_EQ(got.events_read, 0) << "from the rewritten record";
  EXPECT_EQ(StateOf("user-1")->data, Codec<Profile>::Encode(right));
}

TEST_P(EntityTest, RecalculateWithEventsAppendsThem) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Rename("ada")}).ok());
  ASSERT_OK_AND_ASSIGN(changed, profiles.Recalculate("user-1", {Points(200), Follow("bob")}));
  const Profile expected{"ada", {"bob"}, 200};
  EXPECT_EQ(changed.entity.state, expected);
  EXPECT_EQ(changed.entity.version, StreamVersion(2));
  ASSERT_EQ(changed.published.size(), 2u) << "new events publish as in an Append";
  EXPECT_EQ(Read("user-1").size(), 3u);
  EXPECT_EQ(Outbox("user-1").size(), 2u);
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state, expected);

  // On a new stream, events start it; rejections hold as in an Append.
  ASSERT_OK_AND_ASSIGN(started, profiles.Recalculate("user-2", {Rename("bob")}));
  EXPECT_EQ(started.entity.version, StreamVersion(0));
  EXPECT_EQ(profiles.Recalculate("user-2", {Points(-1)}).status().code(), ErrorCode::kRejected);
  EXPECT_EQ(HeadVersion("user-2"), 0);
}

TEST_P(EntityTest, RecalculateOfAMissingStreamWithoutEventsIsNotFound) {
  auto recalculated = Profiles().Recalculate("user-1");
  ASSERT_EQ(recalculated.status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(recalculated.status().deleted());
  EXPECT_EQ(HeadVersion("user-1"), -1);
  EXPECT_FALSE(StateOf("user-1").has_value());
}

}  // namespace
}  // namespace indelible::entity_test
