// Tags, queries and conditional commits over HTTP (docs/DCB.md, "HTTP"), on
// a server in this process serving a memory store: tags on every read
// route, GET and POST /query forward and backward paged by `next`,
// /subscribe/query catching up then going live, conditional commits (201,
// 409 naming the position, nothing written), events without a stream, the
// refusals of bad input (400 naming the field, nothing written, the server
// serving on), the rights (as /all's), and the C++ client and RemoteStore
// against the same server.
#include <gtest/gtest.h>
#include <indelible/client.h>
#include <indelible/store.h>

#include <boost/json.hpp>
#include <fstream>

#include "testutil/http_client.h"
#include "testutil/in_process_server.h"
#include "testutil/temp_dir.h"

namespace indelible {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testutil::Headers;
using testutil::HttpResponse;

::testing::AssertionResult Is(const HttpResponse& answer, unsigned status,
                              std::string_view error = {}) {
  if (answer.status == status &&
      (error.empty() || (answer.Json().is_object() && answer.Json().as_object().contains("error") &&
                         answer.Json().at("error") == json::value(error))))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << status << " " << error << ", got "
                                       << answer.status << " " << answer.body << answer.error;
}

// Every byte but the unreserved ones as %XX: a query document in a URL.
std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::vector<std::uint64_t> Positions(const json::value& page) {
  std::vector<std::uint64_t> out;
  for (const json::value& event : page.at("events").as_array())
    out.push_back(static_cast<std::uint64_t>(event.at("position").as_int64()));
  return out;
}

class ServerOn {
 public:
  explicit ServerOn(ServeOptions options = {}) {
    auto store = Store::Open("memory:");
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    options.io_threads = 2;
    server_ = std::make_unique<testutil::InProcessServer>(*store_, options);
    EXPECT_TRUE(server_->AwaitListening());
  }
  ~ServerOn() { EXPECT_TRUE(server_->Stop().ok()); }

  int port() const { return server_->port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }
  Store& store() { return *store_; }

 private:
  std::unique_ptr<Store> store_;
  std::unique_ptr<testutil::InProcessServer> server_;
};

class QueryRoutesTest : public ::testing::Test {
 protected:
  // Positions 1..6:
  //   1 course-1 CourseDefined   [course:c1]
  //   2 student-a Enrolled       [course:c1, student:a]
  //   3 student-b Enrolled       [course:c2, student:b]
  //   4 student-a Enrolled       [course:c2, student:a]
  //   5 course-2 CourseDefined   [course:c2]
  //   6 other-1  Noted           (no tags)
  void WriteCourses() {
    ASSERT_TRUE(Is(http_.Post("/streams/course-1",
                              R"({"type":"CourseDefined","data":{},"tags":["course:c1"]})"),
                   201));
    ASSERT_TRUE(Is(http_.Post("/commits", R"({"appends":[
      {"stream":"student-a","events":[{"type":"Enrolled","data":{},"tags":["student:a","course:c1"]}]},
      {"stream":"student-b","events":[{"type":"Enrolled","data":{},"tags":["course:c2","student:b"]}]}]})"),
                   201));
    ASSERT_TRUE(Is(http_.Post("/streams/student-a",
                              R"({"type":"Enrolled","data":{},"tags":["course:c2","student:a"]})"),
                   201));
    ASSERT_TRUE(Is(http_.Post("/streams/course-2",
                              R"({"type":"CourseDefined","data":{},"tags":["course:c2"]})"),
                   201));
    ASSERT_TRUE(Is(http_.Post("/streams/other-1", R"({"type":"Noted","data":{}})"), 201));
  }

  HttpResponse GetQuery(std::string_view query, std::string_view rest = {}) {
    std::string target = "/query?q=" + UrlEncode(query);
    if (!rest.empty()) target += "&" + std::string(rest);
    return http_.Get(target);
  }

  ServerOn server_;
  testutil::HttpClient http_{server_.port(), 10s};
};

TEST_F(QueryRoutesTest, TagsComeBackSortedOnEveryReadRoute) {
  auto written =
      http_.Post("/streams/user-1",
                 R"({"id":"0b9a1c1e-6a4d-4b53-9d0e-2b8c6f1a7e01","type":"Registered","data":{},)"
                 R"("tags":["user:u1","email:a@x","user:u1"]})");
  ASSERT_TRUE(Is(written, 201));
  const json::value sorted = json::parse(R"(["email:a@x","user:u1"])");
  const auto tags_of_first = [&](const HttpResponse& answer) {
    return answer.Json().at("events").at(0).at("tags");
  };
  EXPECT_EQ(tags_of_first(http_.Get("/streams/user-1")), sorted);
  EXPECT_EQ(tags_of_first(http_.Get("/all")), sorted);
  EXPECT_EQ(tags_of_first(http_.Get("/query")), sorted);
  EXPECT_EQ(tags_of_first(http_.Post("/query", R"({"query":{"items":[{"tags":["user:u1"]}]}})")),
            sorted);
  EXPECT_EQ(http_.Get("/events/0b9a1c1e-6a4d-4b53-9d0e-2b8c6f1a7e01").Json().at("tags"), sorted);
  for (const std::string& target : std::vector<std::string>{
           "/subscribe/all", "/subscribe/streams/user-1?from=0",
           "/subscribe/query?q=" + UrlEncode(R"({"items":[{"tags":["email:a@x"]}]})")}) {
    testutil::SseReader sse(server_.port(), target);
    auto message = sse.NextMessage(10s);
    ASSERT_TRUE(message) << target;
    EXPECT_EQ(json::parse(message->data).at("tags"), sorted) << target;
  }
  // An event without tags has no member at all.
  ASSERT_TRUE(Is(http_.Post("/streams/user-2", R"({"type":"Registered","data":{}})"), 201));
  EXPECT_FALSE(http_.Get("/streams/user-2").Json().at("events").at(0).as_object().contains("tags"));
}

TEST_F(QueryRoutesTest, ItemsMatchByTypesOrTagsAndItemsOr) {
  WriteCourses();
  // No q: every event.
  EXPECT_EQ(Positions(http_.Get("/query").Json()), (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6}));
  // Types OR.
  EXPECT_EQ(Positions(GetQuery(R"({"items":[{"types":["CourseDefined","Noted"]}]})").Json()),
            (std::vector<std::uint64_t>{1, 5, 6}));
  // Tags AND.
  EXPECT_EQ(Positions(GetQuery(R"({"items":[{"tags":["course:c2","student:a"]}]})").Json()),
            (std::vector<std::uint64_t>{4}));
  // Type and tag in one item; items OR'ed.
  EXPECT_EQ(Positions(GetQuery(R"({"items":[{"types":["Enrolled"],"tags":["course:c1"]},)"
                               R"({"types":["CourseDefined"],"tags":["course:c2"]}]})")
                          .Json()),
            (std::vector<std::uint64_t>{2, 5}));
  // The query document with no items, too: every event.
  EXPECT_EQ(Positions(GetQuery(R"({"items":[]})").Json()).size(), 6u);
}

TEST_F(QueryRoutesTest, PagesForwardAndBackwardByNext) {
  WriteCourses();
  const std::string query = R"({"items":[{"types":["Enrolled"]},{"tags":["course:c2"]}]})";
  // Matches 2, 3, 4, 5. Forward by two.
  auto first = GetQuery(query, "limit=2");
  ASSERT_TRUE(Is(first, 200));
  EXPECT_EQ(Positions(first.Json()), (std::vector<std::uint64_t>{2, 3}));
  const std::int64_t next = first.Json().at("next").as_int64();
  EXPECT_GT(next, 3);
  EXPECT_LE(next, 4);
  auto second = GetQuery(query, "limit=2&from=" + std::to_string(next));
  EXPECT_EQ(Positions(second.Json()), (std::vector<std::uint64_t>{4, 5}));
  auto third =
      GetQuery(query, "limit=2&from=" + std::to_string(second.Json().at("next").as_int64()));
  EXPECT_TRUE(Positions(third.Json()).empty()) << third.body;
  EXPECT_EQ(third.Json().at("next").as_int64(), 7);

  // Backward from the end, then on from `next`.
  auto back = GetQuery(query, "limit=3&direction=backward");
  ASSERT_TRUE(Is(back, 200));
  EXPECT_EQ(Positions(back.Json()), (std::vector<std::uint64_t>{5, 4, 3}));
  const std::int64_t back_next = back.Json().at("next").as_int64();
  EXPECT_LT(back_next, 3);
  auto rest = GetQuery(query, "limit=3&direction=backward&from=" + std::to_string(back_next));
  EXPECT_EQ(Positions(rest.Json()), (std::vector<std::uint64_t>{2}));
  EXPECT_EQ(rest.Json().at("next").as_int64(), 0);

  // POST: the same pages.
  auto posted = http_.Post("/query", R"({"query":)" + query + R"(,"from":3,"limit":2})");
  ASSERT_TRUE(Is(posted, 200));
  EXPECT_EQ(Positions(posted.Json()), (std::vector<std::uint64_t>{3, 4}));
  auto posted_back =
      http_.Post("/query", R"({"query":)" + query + R"(,"from":4,"direction":"backward"})");
  EXPECT_EQ(Positions(posted_back.Json()), (std::vector<std::uint64_t>{4, 3, 2}));
  // Absent limit: up to 1000; above it, refused.
  EXPECT_TRUE(Is(GetQuery(query, "limit=1001"), 400, "invalid"));
  EXPECT_TRUE(Is(http_.Post("/query", R"({"limit":1001})"), 400, "invalid"));
}

TEST_F(QueryRoutesTest, SubscribeQueryCatchesUpThenGoesLive) {
  WriteCourses();
  testutil::SseReader sse(
      server_.port(), "/subscribe/query?q=" + UrlEncode(R"({"items":[{"tags":["course:c2"]}]})"));
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    auto message = sse.NextMessage(10s);
    ASSERT_TRUE(message);
    ids.push_back(message->id);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"3", "4", "5"}));
  // A live event that does not match, then one that does: only the second.
  ASSERT_TRUE(Is(
      http_.Post("/streams/course-3", R"({"type":"CourseDefined","data":{},"tags":["course:c3"]})"),
      201));
  ASSERT_TRUE(Is(http_.Post("/streams/student-c",
                            R"({"type":"Enrolled","data":{},"tags":["course:c2","student:c"]})"),
                 201));
  auto live = sse.NextMessage(10s);
  ASSERT_TRUE(live);
  EXPECT_EQ(live->id, "8");
  EXPECT_EQ(json::parse(live->data).at("stream"), "student-c");
  const auto& comments = sse.comments();
  EXPECT_NE(std::find(comments.begin(), comments.end(), "caught-up"), comments.end());

  // Resumed with Last-Event-ID: what follows it, and no more.
  testutil::SseReader resumed(
      server_.port(), "/subscribe/query?q=" + UrlEncode(R"({"items":[{"tags":["course:c2"]}]})"),
      {{"Last-Event-ID", "4"}});
  auto after = resumed.NextMessage(10s);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->id, "5");
  auto then = resumed.NextMessage(10s);
  ASSERT_TRUE(then);
  EXPECT_EQ(then->id, "8");
}

TEST_F(QueryRoutesTest, ConditionalCommitsSucceedOrAnswer409WritingNothing) {
  WriteCourses();
  const std::string condition =
      R"("condition":{"failIfEventsMatch":{"items":[{"tags":["course:c2"]}]},"after":)";
  // Nothing matching after 5: written.
  auto ok = http_.Post("/commits", R"({"appends":[{"stream":"student-d","events":[)"
                                   R"({"type":"Enrolled","data":{},"tags":["course:c2"]}]}],)" +
                                       condition + "5}}");
  ASSERT_TRUE(Is(ok, 201));
  EXPECT_EQ(ok.Json().at("position"), 7);
  // The same decision made at 4: event 5 broke it (and 7 would too).
  auto refused = http_.Post("/commits", R"({"appends":[{"stream":"student-e","events":[)"
                                        R"({"type":"Enrolled","data":{}}]}],)" +
                                            condition + "4}}");
  ASSERT_TRUE(Is(refused, 409, "conflict"));
  EXPECT_EQ(refused.Json().at("reason"), "condition");
  EXPECT_EQ(refused.Json().at("position"), 5);
  EXPECT_FALSE(refused.Json().at("message").as_string().empty());
  EXPECT_EQ(server_.store().LastPosition().value(), 7u);
  EXPECT_TRUE(Is(http_.Get("/streams/student-e"), 404, "not_found"));
  // `after` omitted: any matching event at all fails it.
  auto none = http_.Post("/commits", R"({"appends":[{"stream":"x-1","events":[{"type":"A"}]}],)"
                                     R"("condition":{"failIfEventsMatch":{"items":[)"
                                     R"({"types":["Noted"]}]}}})");
  ASSERT_TRUE(Is(none, 409, "conflict"));
  EXPECT_EQ(none.Json().at("position"), 6);
  // With a stream expectation that fails too: the expectation is reported.
  auto both = http_.Post("/commits", R"({"appends":[{"stream":"course-1","expected":7,)"
                                     R"("events":[{"type":"A"}]}],)" +
                                         condition + "4}}");
  ASSERT_TRUE(Is(both, 409, "conflict"));
  EXPECT_EQ(both.Json().at("reason"), "version");
  EXPECT_EQ(server_.store().LastPosition().value(), 7u);
}

TEST_F(QueryRoutesTest, AppendsWithoutAStreamGoToDcb) {
  auto written = http_.Post(
      "/commits", R"({"appends":[{"events":[{"type":"UsernameClaimed","data":{},)"
                  R"("tags":["username:alice"]}]},{"stream":"user-1","events":[{"type":"X"}]}]})");
  ASSERT_TRUE(Is(written, 201));
  EXPECT_EQ(written.Json().at("appends").at(0).at("stream"), "$dcb");
  auto all = http_.Get("/all");
  EXPECT_EQ(all.Json().at("events").at(0).at("stream"), "$dcb");
  auto found = GetQuery(R"({"items":[{"tags":["username:alice"]}]})");
  ASSERT_EQ(Positions(found.Json()), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(found.Json().at("events").at(0).at("version"), 0);
  // A state record needs a stream; an empty name is no stream-less append.
  EXPECT_TRUE(Is(http_.Post("/commits", R"({"appends":[{"events":[{"type":"A"}],)"
                                        R"("state":{"data":{}}}]})"),
                 400, "invalid"));
  EXPECT_TRUE(Is(http_.Post("/commits", R"({"appends":[{"stream":"","events":[{"type":"A"}]}]})"),
                 400, "invalid"));
  EXPECT_EQ(server_.store().LastPosition().value(), 2u);
}

TEST_F(QueryRoutesTest, BadInputIsRefusedNamingTheFieldAndWritesNothing) {
  WriteCourses();
  const auto field_of = [](const HttpResponse& answer) {
    return std::string(answer.Json().at("field").as_string());
  };
  auto malformed = http_.Get("/query?q=" + UrlEncode("{\"items\":["));
  ASSERT_TRUE(Is(malformed, 400, "invalid"));
  EXPECT_EQ(field_of(malformed), "q");
  auto empty_item = GetQuery(R"({"items":[{"types":["A"]},{}]})");
  ASSERT_TRUE(Is(empty_item, 400, "invalid"));
  EXPECT_EQ(field_of(empty_item), "q.items[1]");
  std::string many = R"({"items":[{"tags":[)";
  for (int i = 0; i < 33; ++i) many += (i > 0 ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  many += "]}]}";
  auto too_many = http_.Post("/query", R"({"query":)" + many + "}");
  ASSERT_TRUE(Is(too_many, 400, "invalid"));
  EXPECT_EQ(field_of(too_many).rfind("query.items[0]", 0), 0u) << too_many.body;
  auto control = GetQuery(R"({"items":[{"tags":["a\u0001b"]}]})");
  ASSERT_TRUE(Is(control, 400, "invalid"));
  EXPECT_EQ(field_of(control), "q.items[0].tags[0]");
  EXPECT_TRUE(Is(GetQuery(R"({"items":[{"kinds":["A"]}]})"), 400, "invalid"));
  EXPECT_TRUE(Is(GetQuery("{}", "direction=sideways"), 400, "invalid"));
  EXPECT_TRUE(Is(http_.Post("/query", R"({"query":{},"from":-1})"), 400, "invalid"));
  EXPECT_TRUE(Is(http_.Post("/query", "[1]"), 400, "invalid"));
  EXPECT_TRUE(Is(http_.Get("/subscribe/query?q=" + UrlEncode("{\"items\":[{}]}")), 400, "invalid"));

  // Commits: the event's tags, the condition's query and `after`.
  const std::string appends = R"({"appends":[{"stream":"bad-1","events":[{"type":"A"}]}],)";
  std::string tags = R"({"appends":[{"stream":"bad-1","events":[{"type":"A","tags":[)";
  for (int i = 0; i < 33; ++i) tags += (i > 0 ? ",\"t" : "\"t") + std::to_string(i) + "\"";
  tags += "]}]}]}";
  auto too_many_tags = http_.Post("/commits", tags);
  ASSERT_TRUE(Is(too_many_tags, 400, "invalid"));
  EXPECT_NE(field_of(too_many_tags).find("tags"), std::string::npos) << too_many_tags.body;
  auto control_tag = http_.Post("/streams/bad-1", R"({"type":"A","tags":["ok","a\nb"]})");
  ASSERT_TRUE(Is(control_tag, 400, "invalid"));
  EXPECT_NE(field_of(control_tag).find("tags"), std::string::npos) << control_tag.body;
  auto bad_after = http_.Post(
      "/commits", appends + R"("condition":{"failIfEventsMatch":{},"after":"yesterday"}})");
  ASSERT_TRUE(Is(bad_after, 400, "invalid"));
  EXPECT_EQ(field_of(bad_after), "condition.after");
  auto negative_after =
      http_.Post("/commits", appends + R"("condition":{"failIfEventsMatch":{},"after":-1}})");
  ASSERT_TRUE(Is(negative_after, 400, "invalid"));
  EXPECT_EQ(field_of(negative_after), "condition.after");
  auto no_query = http_.Post("/commits", appends + R"("condition":{"after":3}})");
  ASSERT_TRUE(Is(no_query, 400, "invalid"));
  EXPECT_EQ(field_of(no_query), "condition.failIfEventsMatch");
  auto bad_item = http_.Post(
      "/commits", appends + R"("condition":{"failIfEventsMatch":{"items":[{"tags":[]}]}}})");
  ASSERT_TRUE(Is(bad_item, 400, "invalid"));
  EXPECT_EQ(field_of(bad_item), "condition.failIfEventsMatch.items[0]");

  EXPECT_EQ(server_.store().LastPosition().value(), 6u);
  EXPECT_TRUE(Is(http_.Get("/health"), 200));
}

TEST_F(QueryRoutesTest, TheClientAndRemoteStoreReadQueryAndCommitOnACondition) {
  WriteCourses();
  auto store = OpenRemoteStore(server_.url());
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const Query c2 = Query::Of({QueryItem{{}, {"course:c2"}}});
  ReadQueryOptions small;
  small.limit = 2;
  auto forward = ReadQueryEvents(**store, c2);
  ASSERT_TRUE(forward.ok()) << forward.status().ToString();
  ASSERT_EQ(forward->size(), 3u);
  EXPECT_EQ(forward->at(0).position.value(), 3u);
  EXPECT_EQ(forward->at(0).tags, (std::vector<std::string>{"course:c2", "student:b"}));
  ReadQueryOptions backward;
  backward.direction = Direction::kBackward;
  auto reversed = ReadQueryEvents(**store, c2, backward);
  ASSERT_TRUE(reversed.ok()) << reversed.status().ToString();
  ASSERT_EQ(reversed->size(), 3u);
  EXPECT_EQ(reversed->at(0).position.value(), 5u);
  EXPECT_EQ(reversed->at(2).position.value(), 3u);

  // Decide at 4, commit on that condition: refused naming 5, nothing written.
  EventData enrolled;
  enrolled.type = "Enrolled";
  enrolled.data = "{}";
  enrolled.tags = {"student:z", "course:c2"};
  CommitOptions options;
  options.condition = AppendCondition{c2, Position(4)};
  auto refused = (*store)->Commit({{"student-z", Expected::any(), {enrolled}}}, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(refused.status().condition_position(), std::optional<std::uint64_t>(5));
  EXPECT_EQ(server_.store().LastPosition().value(), 6u);
  options.condition->after = Position(6);
  auto written = (*store)->Commit({{"student-z", Expected::any(), {enrolled}}}, options);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  auto stored = ReadStreamEvents(server_.store(), "student-z");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->at(0).tags, (std::vector<std::string>{"course:c2", "student:z"}));

  // Without a stream, through the RemoteStore.
  EventData claimed;
  claimed.type = "UsernameClaimed";
  claimed.data = "{}";
  claimed.tags = {"username:zed"};
  auto streamless =
      (*store)->Commit({{std::string(kStreamlessStream), Expected::any(), {claimed}}});
  ASSERT_TRUE(streamless.ok()) << streamless.status().ToString();
  EXPECT_EQ(streamless->appends.at(0).stream, "$dcb");

  // The client's subscription by query.
  auto client = Client::Connect(server_.url());
  ASSERT_TRUE(client.ok());
  auto subscription = (*client)->SubscribeQuery(Query::Of({QueryItem{{}, {"student:z"}}}));
  ASSERT_TRUE(subscription.ok()) << subscription.status().ToString();
  auto event = (*subscription)->Next(10s);
  ASSERT_TRUE(event.ok() && event->has_value()) << event.status().ToString();
  EXPECT_EQ((*event)->stream, "student-z");
  EXPECT_EQ((*event)->tags, (std::vector<std::string>{"course:c2", "student:z"}));
  EXPECT_EQ((*client)->SubscribeQuery(Query::Of({QueryItem{}})).status().code(),
            ErrorCode::kInvalid);
}

// Authentication on: the rights of /all for queries, the admin's for
// events without a stream.
class QueryRoutesAuthTest : public ::testing::Test {
 protected:
  static ServeOptions WithAuth(const testutil::TempDir& dir) {
    std::ofstream(dir.Sub("roles.json"))
        << R"({"roles":{"course-reader":[{"allow":["read","subscribe"],"categories":["course"]}]}})";
    ServeOptions options;
    options.auth.enabled = true;
    options.auth.bootstrap_key_file = dir.Sub("admin.key");
    options.auth.roles_file = dir.Sub("roles.json");
    return options;
  }

  std::string MakeKey(std::string_view name, std::string_view role) {
    auto made = http_.Post(
        "/keys",
        R"({"name":")" + std::string(name) + R"(","roles":[")" + std::string(role) + "\"]}",
        Admin());
    EXPECT_TRUE(Is(made, 201));
    return std::string(made.Json().at("key").as_string());
  }

  void SetUp() override {
    std::ifstream file(dir_.Sub("admin.key"));
    std::getline(file, admin_key_);
    ASSERT_FALSE(admin_key_.empty());
    writer_key_ = MakeKey("writer-1", "writer");
    course_key_ = MakeKey("course-1", "course-reader");
  }

  Headers Admin() const { return {{"Authorization", "Bearer " + admin_key_}}; }
  Headers Writer() const { return {{"Authorization", "Bearer " + writer_key_}}; }
  Headers CourseReader() const { return {{"Authorization", "Bearer " + course_key_}}; }

  testutil::TempDir dir_;
  ServerOn server_{WithAuth(dir_)};
  testutil::HttpClient http_{server_.port(), 10s};
  std::string admin_key_, writer_key_, course_key_;
};

TEST_F(QueryRoutesAuthTest, QueriesSeeWhatAllShowsAndStreamlessNeedsAdmin) {
  const std::string streamless =
      R"({"appends":[{"events":[{"type":"Claimed","data":{},"tags":["t:1"]}]}]})";
  auto denied = http_.Post("/commits", streamless, Writer());
  ASSERT_TRUE(Is(denied, 403, "unauthorized"));
  EXPECT_NE(denied.Json().at("message").as_string().find("$dcb"), json::string::npos)
      << denied.body;
  ASSERT_TRUE(Is(http_.Post("/commits", streamless, Admin()), 201));
  ASSERT_TRUE(
      Is(http_.Post("/streams/course-1", R"({"type":"Defined","tags":["t:1"]})", Writer()), 201));
  ASSERT_TRUE(
      Is(http_.Post("/streams/order-1", R"({"type":"Placed","tags":["t:1"]})", Writer()), 201));
  // Positions 1 and 2 are the keys' entries in $audit.
  EXPECT_EQ(server_.store().LastPosition().value(), 5u);

  const std::string target = "/query?q=" + UrlEncode(R"({"items":[{"tags":["t:1"]}]})");
  // The admin sees all three; a writer (reader of every stream) not the
  // '$' stream, as in /all; a course reader its category alone.
  EXPECT_EQ(Positions(http_.Get(target, Admin()).Json()), (std::vector<std::uint64_t>{3, 4, 5}));
  EXPECT_EQ(Positions(http_.Get("/all", Writer()).Json()), (std::vector<std::uint64_t>{4, 5}));
  EXPECT_EQ(Positions(http_.Get(target, Writer()).Json()), (std::vector<std::uint64_t>{4, 5}));
  auto narrowed = http_.Get(target, CourseReader());
  ASSERT_TRUE(Is(narrowed, 200));
  EXPECT_EQ(Positions(narrowed.Json()), (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(narrowed.Json().at("next"), 6);
  EXPECT_EQ(Positions(http_.Post("/query", "{}", CourseReader()).Json()),
            (std::vector<std::uint64_t>{4}));
  EXPECT_TRUE(Is(http_.Get(target), 401, "unauthorized"));

  testutil::SseReader sse(server_.port(), "/subscribe/query", CourseReader());
  auto message = sse.NextMessage(10s);
  ASSERT_TRUE(message);
  EXPECT_EQ(message->id, "4");
}

}  // namespace
}  // namespace indelible
