// Tags, query documents, query reads and conditional commits on the wire
// (src/api/queries.h, commits.h, wire.h; docs/DCB.md, "HTTP"): what one
// side encodes the other decodes to the same value; bad documents are
// invalid naming the field; a condition's 409 becomes the same Status.
#include <gtest/gtest.h>

#include "api/commits.h"
#include "api/pages.h"
#include "api/queries.h"
#include "api/wire.h"

namespace indelible {
namespace {

TEST(ApiQueriesTest, AQueryDecodesToWhatWasEncoded) {
  const Query query = Query::Of(
      {QueryItem{{"A", "B"}, {}}, QueryItem{{}, {"user:\"x\"", "k:é"}}, QueryItem{{"C"}, {"t"}}});
  auto got = api::QueryFromJson(api::QueryToJson(query), "q");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, query);
  auto all = api::QueryFromJson(api::QueryToJson(Query::All()), "q");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->matches_all());
  EXPECT_TRUE(api::QueryFromJson("{}", "q")->matches_all());
}

TEST(ApiQueriesTest, BadQueryDocumentsNameTheField) {
  const auto field = [](std::string_view text) {
    auto got = api::QueryFromJson(text, "q");
    EXPECT_FALSE(got.ok()) << text;
    if (got.ok()) return std::string("(accepted)");
    EXPECT_EQ(got.status().code(), ErrorCode::kInvalid);
    return got.status().field();
  };
  EXPECT_EQ(field(R"({"items":[)"), "q");
  EXPECT_EQ(field("[]"), "q");
  EXPECT_EQ(field(R"({"items":{}})"), "q.items");
  EXPECT_EQ(field(R"({"items":[{}]})"), "q.items[0]");
  EXPECT_EQ(field(R"({"items":[{"types":["A"]},3]})"), "q.items[1]");
  EXPECT_EQ(field(R"({"items":[{"types":"A"}]})"), "q.items[0].types");
  EXPECT_EQ(field(R"({"items":[{"tags":["a",7]}]})"), "q.items[0].tags[1]");
  EXPECT_EQ(field(R"({"items":[{"tags":["a\u0000"]}]})"), "q.items[0].tags[0]");
  EXPECT_EQ(field(R"({"items":[{"tags":[""]}]})"), "q.items[0].tags[0]");
  EXPECT_EQ(field(R"({"items":[{"type":["A"]}]})"), "q.items[0].type");
  EXPECT_EQ(field(R"({"itemz":[]})"), "q.itemz");
  std::string many = R"({"items":[)";
  for (std::size_t i = 0; i <= kMaxQueryItems; ++i)
    many += (i > 0 ? "," : "") + std::string(R"({"types":["A"]})");
  EXPECT_EQ(field(many + "]}"), "q.items");
}

TEST(ApiQueriesTest, AQueryReadDecodesToWhatWasEncoded) {
  ReadQueryOptions options;
  options.direction = Direction::kBackward;
  options.from = Position(42);
  options.limit = 7;
  options.raw = true;
  const Query query = Query::Of({QueryItem{{"A"}, {"x"}}});
  auto got = api::QueryReadFromJson(api::QueryReadToJson(query, options));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->query, query);
  EXPECT_EQ(got->options.direction, Direction::kBackward);
  EXPECT_EQ(got->options.from, Position(42));
  EXPECT_EQ(got->limit, std::optional<std::size_t>(7));
  EXPECT_TRUE(got->options.raw);

  auto plain = api::QueryReadFromJson("{}");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->options.from);
  EXPECT_FALSE(plain->limit);
  EXPECT_EQ(plain->options.direction, Direction::kForward);
  EXPECT_EQ(api::QueryReadFromJson(R"({"limit":0})").status().field(), "limit");
  EXPECT_EQ(api::QueryReadFromJson(R"({"limit":1001})").status().field(), "limit");
  EXPECT_EQ(api::QueryReadFromJson(R"({"from":1.5})").status().field(), "from");
  EXPECT_EQ(api::QueryReadFromJson(R"({"direction":"up"})").status().field(), "direction");
  EXPECT_EQ(api::QueryReadFromJson(R"({"raw":"yes"})").status().field(), "raw");
  EXPECT_EQ(api::QueryReadFromJson(R"({"q":{}})").status().field(), "q");
  EXPECT_EQ(api::QueryReadFromJson(R"({"query":{"items":[{}]}})").status().field(),
            "query.items[0]");
}

TEST(ApiQueriesTest, ACommitCarriesItsConditionTagsAndStreamlessAppends) {
  EventData event;
  event.id = EventId::Random();
  event.type = "UsernameClaimed";
  event.data = "{}";
  event.tags = {"username:alice", "user:u-1"};
  std::vector<AppendRequest> sent;
  sent.push_back(AppendRequest{std::string(kStreamlessStream), Expected::any(), {event}});
  sent.push_back(AppendRequest{"user-1", Expected::no_stream(), {event}});
  const AppendCondition condition{Query::Of({QueryItem{{}, {"username:alice"}}}), Position(9)};

  const std::string body = api::CommitToJson(sent, condition);
  auto got = api::CommitFromJson(body);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->condition);
  EXPECT_EQ(*got->condition, condition);
  ASSERT_EQ(got->appends.size(), 2u);
  // Sent without `stream`, read as the stream-less events' stream.
  EXPECT_NE(body.find(R"({"expected":"any","events")"), std::string::npos) << body;
  EXPECT_EQ(got->appends[0].stream, kStreamlessStream);
  EXPECT_EQ(got->appends[1].stream, "user-1");
  EXPECT_EQ(got->appends[0].events[0].tags, event.tags);

  // `after` left out: nullopt.
  auto no_after = api::CommitFromJson(
      R"({"appends":[{"events":[{"type":"A"}]}],"condition":{"failIfEventsMatch":{}}})");
  ASSERT_TRUE(no_after.ok()) << no_after.status().ToString();
  EXPECT_FALSE(no_after->condition->after);
  EXPECT_TRUE(no_after->condition->fail_if_events_match.matches_all());

  const auto field = [](std::string_view text) {
    auto decoded = api::CommitFromJson(text);
    return decoded.ok() ? std::string("(accepted)") : decoded.status().field();
  };
  const std::string appends = R"({"appends":[{"stream":"a","events":[{"type":"A"}]}],)";
  EXPECT_EQ(field(appends + R"("condition":{"after":1}})"), "condition.failIfEventsMatch");
  EXPECT_EQ(field(appends + R"("condition":{"failIfEventsMatch":{},"after":"x"}})"),
            "condition.after");
  EXPECT_EQ(field(appends + R"("condition":{"failIfEventsMatch":{},"before":1}})"),
            "condition.before");
  EXPECT_EQ(field(appends + R"("condition":[]})"), "condition");
  EXPECT_EQ(field(R"({"appends":[{"stream":7,"events":[]}]})"), "appends[0].stream");
}

TEST(ApiQueriesTest, EventsCarryTagsBothWays) {
  EventData event;
  event.id = EventId::Random();
  event.type = "A";
  event.data = "{}";
  event.tags = {"a", "b"};
  const std::string body = api::EventsToJson({event});
  auto decoded = api::AppendBodyFromJson(body);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->events.at(0).tags, event.tags);

  RecordedEvent stored;
  stored.id = event.id;
  stored.stream = "s-1";
  stored.position = Position(3);
  stored.type = "A";
  stored.data = "{}";
  stored.metadata = "{}";
  stored.tags = {"a", "b"};
  AllPage page;
  page.events.push_back(stored);
  page.next = Position(4);
  auto read = api::AllPageFromJson(api::AllPageToJson(page));
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->events.at(0).tags, stored.tags);
  stored.tags.clear();
  page.events = {stored};
  EXPECT_EQ(api::AllPageToJson(page).find("tags"), std::string::npos);
}

TEST(ApiQueriesTest, AConditionConflictTravelsWithItsPosition) {
  const Status conflict = Status::ConditionConflict("the condition failed at 12", 12);
  const std::string body = api::StatusToJson(conflict);
  EXPECT_NE(body.find(R"("reason":"condition")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("position":12)"), std::string::npos) << body;
  const Status back = api::StatusFromAnswer(409, body);
  EXPECT_EQ(back.code(), ErrorCode::kConflict);
  EXPECT_EQ(back.condition_position(), std::optional<std::uint64_t>(12));
  EXPECT_EQ(back.message(), conflict.message());
  // A stream's conflict is not mistaken for one.
  const Status version = api::StatusFromAnswer(
      409,
      R"({"error":"conflict","reason":"version","actualVersion":3,"stream":"a","message":"m"})");
  EXPECT_FALSE(version.condition_position());
}

}  // namespace
}  // namespace indelible
