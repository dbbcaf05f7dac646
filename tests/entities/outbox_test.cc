// Outbound events (RuleContext::Publish): written to "outbox-<stream>" in
// the command's commit, with causation and correlation ids; never published
// again by loading or recalculating; selectable by a stream prefix; and a
// retried command writes no duplicates.
#include <indelible/subscription.h>

#include <boost/json.hpp>
#include <chrono>

#include "entities/entity_fixture.h"

namespace indelible::entity_test {
namespace {

namespace json = boost::json;

json::object Metadata(const RecordedEvent& event) {
  boost::system::error_code ec;
  json::value value = json::parse(event.metadata, ec);
  EXPECT_FALSE(ec) << event.metadata;
  return !ec && value.is_object() ? value.as_object() : json::object{};
}

std::string Text(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : "<missing>";
}

TEST_P(EntityTest, PublishedEventsGoToTheOutboxInTheSameCommitWithTheirCause) {
  auto profiles = Profiles();
  EventData follow = Follow("bob");
  follow.metadata = R"({"correlationId":"request-7","user":"ada"})";
  ASSERT_OK_AND_ASSIGN(changed, profiles.Append("user-1", {Rename("ada"), follow, Points(150)}));

  const auto inbound = Read("user-1");
  const auto outbox = Outbox("user-1");
  ASSERT_EQ(inbound.size(), 3u);
  ASSERT_EQ(outbox.size(), 2u);
  if (positions_at_commit()) {
    // One commit: its events take contiguous positions, the entity's first.
    EXPECT_EQ(outbox[0].position.value(), inbound[2].position.value() + 1);
    EXPECT_EQ(outbox[1].position.value(), inbound[2].position.value() + 2);
  } else {
    // DynamoDB indexes a commit's streams one after the other: in $all the
    // outbox follows the entity's events, in order.
    Settle();
    auto all = ReadAllEvents(store());
    ASSERT_TRUE(all.ok());
    std::vector<std::string> order;
    for (const auto& e : *all) order.push_back(e.stream + "/" + std::to_string(e.version.value()));
    EXPECT_EQ(order, (std::vector<std::string>{"user-1/0", "user-1/1", "user-1/2",
                                               "outbox-user-1/0", "outbox-user-1/1"}));
  }

  EXPECT_EQ(outbox[0].type, kFollowNotice);
  EXPECT_EQ(outbox[0].data, R"({"user":"bob"})");
  const json::object first = Metadata(outbox[0]);
  EXPECT_EQ(Text(first, "causationId"), inbound[1].id.ToString());
  EXPECT_EQ(Text(first, "correlationId"), "request-7") << "the command's correlation id is kept";
  EXPECT_EQ(Text(first, "entityStream"), "user-1");
  ASSERT_TRUE(first.contains("entityVersion"));
  EXPECT_EQ(first.at("entityVersion"), json::value(1));

  EXPECT_EQ(outbox[1].type, kPointsAwarded);
  EXPECT_EQ(outbox[1].data, R"({"amount":150})");
  const json::object second = Metadata(outbox[1]);
  EXPECT_EQ(Text(second, "causationId"), inbound[2].id.ToString());
  EXPECT_EQ(Text(second, "correlationId"), inbound[2].id.ToString())
      << "without a correlation id, the chain starts at the cause";
  EXPECT_EQ(second.at("entityVersion"), json::value(2));

  // The command reports what it published, as written.
  ASSERT_EQ(changed.published.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(changed.published[i].id, outbox[i].id);
    EXPECT_EQ(changed.published[i].type, outbox[i].type);
    EXPECT_EQ(changed.published[i].data, outbox[i].data);
    EXPECT_EQ(changed.published[i].causation_id, inbound[i + 1].id);
    EXPECT_NE(changed.published[i].id, inbound[i + 1].id);
  }
}

TEST_P(EntityTest, LoadingAndRecalculatingDoNotPublishAgain) {
  // With the state record and without: replaying stored events publishes nothing.
  EntityOptions replay;
  replay.snapshots = SnapshotPolicy::None();
  for (const EntityOptions& options : {EntityOptions{}, replay}) {
    const std::string stream = "user-" + std::to_string(options.snapshots.n());
    auto profiles = Profiles(options);
    ASSERT_TRUE(profiles.Append(stream, {Follow("bob"), Points(100)}).ok());
    ASSERT_EQ(Outbox(stream).size(), 2u);

    ASSERT_TRUE(profiles.Get(stream).ok());
    ASSERT_OK_AND_ASSIGN(recalculated, profiles.Recalculate(stream));
    EXPECT_TRUE(recalculated.published.empty());
    ASSERT_OK_AND_ASSIGN(quiet, profiles.Append(stream, {Points(1)}));
    EXPECT_TRUE(quiet.published.empty());
    ASSERT_OK_AND_ASSIGN(in_hand, profiles.AppendTo(quiet.entity, {Rename("ada")}));
    EXPECT_TRUE(in_hand.published.empty());
    ASSERT_OK_AND_ASSIGN(with_new, profiles.Recalculate(stream, {Points(300)}));
    EXPECT_EQ(with_new.published.size(), 1u) << "only the new event's rule publishes";
    EXPECT_EQ(Outbox(stream).size(), 3u);
  }
}

TEST_P(EntityTest, OutboxEventsAreSelectedByTheirStreamPrefix) {
  auto profiles = Profiles();
  ASSERT_TRUE(profiles.Append("user-1", {Follow("bob")}).ok());
  ASSERT_TRUE(store().Append("other", Expected::any(), {Points(1)}).ok());
  ASSERT_TRUE(profiles.Append("user-2", {Points(100), Follow("ada"), Points(2)}).ok());

  Settle();
  ReadAllOptions options;
  options.filter.stream_prefixes = {"outbox-"};
  auto selected = ReadAllEvents(store(), options);
  ASSERT_TRUE(selected.ok()) << selected.status().ToString();
  ASSERT_EQ(selected->size(), 3u);
  EXPECT_EQ((*selected)[0].stream, "outbox-user-1");
  EXPECT_EQ((*selected)[0].type, kFollowNotice);
  EXPECT_EQ((*selected)[1].stream, "outbox-user-2");
  EXPECT_EQ((*selected)[1].type, kPointsAwarded);
  EXPECT_EQ((*selected)[2].type, kFollowNotice);

  // A subscription (what a relay or consumer group runs on) sees the same.
  SubscriptionOptions subscribe;
  subscribe.filter.stream_prefixes = {"outbox-"};
  Subscription subscription(store(), subscribe);
  std::vector<RecordedEvent> delivered;
  for (bool caught_up = false; !caught_up;) {
    auto batch = subscription.Next(std::chrono::milliseconds(100));
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    for (auto& event : batch->events) delivered.push_back(std::move(event));
    caught_up = batch->caught_up;
  }
  ASSERT_EQ(delivered.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(delivered[i].id, (*selected)[i].id);
}

TEST_P(EntityTest, ARetriedCommandWithTheSameIdsIsReplayedAndWritesNothing) {
  auto profiles = Profiles();
  const std::vector<EventData> command = {WithId(Points(150)), WithId(Rename("ada"))};
  ASSERT_OK_AND_ASSIGN(first, profiles.Append("user-1", command));
  ASSERT_EQ(first.published.size(), 1u);
  Settle();
  const Position last = store().LastPosition();

  // The reply was lost: the client sends the same command again.
  ASSERT_OK_AND_ASSIGN(retried, profiles.Append("user-1", command));
  EXPECT_TRUE(retried.replayed);
  EXPECT_TRUE(retried.published.empty()) << "nothing was published now";
  EXPECT_EQ(retried.entity.state, (Profile{"ada", {}, 150})) << "the stored state";
  EXPECT_EQ(retried.entity.version, StreamVersion(1));
  Settle();
  EXPECT_EQ(store().LastPosition(), last);

  // Later, after the entity moved on: still a retry, still nothing written.
  ASSERT_TRUE(profiles.Append("user-1", {Points(5)}).ok());
  Settle();
  const Position later = store().LastPosition();
  ASSERT_OK_AND_ASSIGN(late, profiles.Append("user-1", command));
  EXPECT_TRUE(late.replayed);
  EXPECT_EQ(late.entity.state, (Profile{"ada", {}, 155}));
  EXPECT_EQ(late.entity.version, StreamVersion(2));
  Settle();
  EXPECT_EQ(store().LastPosition(), later);
  EXPECT_EQ(Read("user-1").size(), 3u);
  ASSERT_EQ(Outbox("user-1").size(), 1u) << "outbound ids come from the cause: no duplicate";
  EXPECT_EQ(Outbox("user-1")[0].id, first.published[0].id);
  ASSERT_OK_AND_ASSIGN(got, profiles.Get("user-1"));
  EXPECT_EQ(got.state, (Profile{"ada", {}, 155}));
}

// The rules judge a retried command against a state that already holds it:
// following bob again is rejected, spending again crosses the low-balance
// line and publishes what the first run did not. Neither may turn a command
// that landed into an error.
TEST_P(EntityTest, ARetriedCommandIsReplayedEvenWhenItsRulesNowDecideOtherwise) {
  auto profiles = Profiles();
  const std::vector<EventData> follow = {WithId(Follow("bob"))};
  ASSERT_TRUE(profiles.Append("user-1", follow).ok());
  ASSERT_OK_AND_ASSIGN(refollowed, profiles.Append("user-1", follow));
  EXPECT_TRUE(refollowed.replayed);
  EXPECT_EQ(refollowed.entity.state.following, std::vector<std::string>{"bob"});

  ASSERT_TRUE(profiles.Append("user-1", {Points(100)}).ok());
  const std::vector<EventData> spend = {WithId(Points(-40))};
  ASSERT_OK_AND_ASSIGN(spent, profiles.Append("user-1", spend));  // 100 -> 60
  EXPECT_TRUE(spent.published.empty());
  Settle();
  const Position last = store().LastPosition();
  const std::size_t outbox = Outbox("user-1").size();
  ASSERT_OK_AND_ASSIGN(respent, profiles.Append("user-1", spend));  // rules: 60 -> 20, pointsLow
  EXPECT_TRUE(respent.replayed);
  EXPECT_EQ(respent.entity.state.points, 60);
  Settle();
  EXPECT_EQ(store().LastPosition(), last) << "nothing written";
  EXPECT_EQ(Outbox("user-1").size(), outbox);
}

}  // namespace
}  // namespace indelible::entity_test
