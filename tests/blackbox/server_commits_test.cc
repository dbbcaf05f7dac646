// The API beyond single streams (docs/HTTP.md "Commits", "State records",
// "Stream listing"): POST /commits all or nothing, state records with
// their ETag, and GET /streams paged by name, against the real server.
#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

std::string CommitOf(const std::vector<std::string>& appends) {
  std::string body = R"({"appends":[)";
  for (std::size_t i = 0; i < appends.size(); ++i) body += (i > 0 ? "," : "") + appends[i];
  return body + "]}";
}

std::string AppendOf(std::string_view stream, std::string_view expected,
                     const std::vector<std::string>& events, std::string_view state = "") {
  std::string body = R"({"stream":")" + std::string(stream) + R"(","expected":)" +
                     std::string(expected) + R"(,"events":[)";
  for (std::size_t i = 0; i < events.size(); ++i) body += (i > 0 ? "," : "") + events[i];
  body += "]";
  if (!state.empty()) body += R"(,"state":)" + std::string(state);
  return body + "}";
}

class CommitsTest : public ServerTest {
 protected:
  HttpResponse Commit(const std::vector<std::string>& appends) {
    return http().Post("/commits", CommitOf(appends));
  }
  // The stream names of one listing page, and its `next`.
  std::pair<std::vector<std::string>, std::string> Listing(const std::string& query) {
    const HttpResponse page = http().Get("/streams" + query);
    EXPECT_EQ(page.status, 200u) << page.body;
    std::vector<std::string> names;
    const json::value body = page.Json();
    if (!body.is_object()) return {names, "<no body>"};
    for (const json::value& info : body.at("streams").as_array())
      names.push_back(StringOf(info.as_object(), "stream"));
    return {names, Member(body, "next")};
  }
};

TEST_F(CommitsTest, SeveralStreamsAreWrittenTogetherWithPerStreamResults) {
  const HttpResponse made =
      Commit({AppendOf("acc-1", R"("no_stream")", {EventJson("Opened"), EventJson("Deposited")}),
              AppendOf("outbox-acc-1", R"("any")", {EventJson("Notified")})});
  ASSERT_EQ(made.status, 201u) << made.body;
  const json::value body = made.Json();
  EXPECT_EQ(Member(body, "position"), "3");
  const json::array& appends = body.at("appends").as_array();
  ASSERT_EQ(appends.size(), 2u);
  EXPECT_EQ(Member(appends[0], "stream"), "\"acc-1\"");
  EXPECT_EQ(Member(appends[0], "firstVersion"), "0");
  EXPECT_EQ(Member(appends[0], "lastVersion"), "1");
  EXPECT_EQ(Member(appends[0], "position"), "2");
  EXPECT_EQ(Member(appends[0], "replayed"), "false");
  EXPECT_EQ(Member(appends[1], "position"), "3");
  // One commit: the events are contiguous in $all, in request order.
  const std::vector<json::object> all = ReadAll();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(StringOf(all[2], "stream"), "outbox-acc-1");
}

TEST_F(CommitsTest, AFailedExpectationNamesItsStreamAndWritesNothing) {
  ASSERT_EQ(Append("acc-1", "[" + EventJson("Opened") + "]").status, 201u);
  const HttpResponse stale = Commit({AppendOf("acc-2", R"("any")", {EventJson("Opened")}),
                                     AppendOf("acc-1", "5", {EventJson("Deposited")})});
  ASSERT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(Member(stale.Json(), "stream"), "\"acc-1\"");
  EXPECT_EQ(Member(stale.Json(), "actualVersion"), "0");
  EXPECT_EQ(HeadVersion("acc-2"), -1) << "the other stream of the commit was not written";
  EXPECT_EQ(ReadAll().size(), 1u);
  // no_stream on an existing stream, exists on a missing one: the same.
  EXPECT_TRUE(
      IsError(Commit({AppendOf("acc-1", R"("no_stream")", {EventJson("X")})}), 409, "conflict"));
  const HttpResponse missing = Commit({AppendOf("acc-9", R"("exists")", {EventJson("X")})});
  ASSERT_TRUE(IsError(missing, 409, "conflict"));
  EXPECT_EQ(Member(missing.Json(), "actualVersion"), "null");
}

TEST_F(CommitsTest, ARetriedCommitIsReplayedNotWrittenTwice) {
  const std::string a = NewUuid(), b = NewUuid();
  const std::vector<std::string> commit = {
      AppendOf("acc-1", R"("no_stream")", {EventJson("Opened", "{}", a)}),
      AppendOf("outbox-acc-1", R"("any")", {EventJson("Notified", "{}", b)})};
  const HttpResponse first = Commit(commit);
  ASSERT_EQ(first.status, 201u) << first.body;
  EXPECT_FALSE(first.Header("Idempotent-Replay").has_value());
  const HttpResponse again = Commit(commit);
  ASSERT_EQ(again.status, 201u) << again.body;
  EXPECT_EQ(again.Header("Idempotent-Replay").value_or(""), "true");
  EXPECT_EQ(Member(again.Json().at("appends").at(0), "replayed"), "true");
  EXPECT_EQ(Member(again.Json(), "position"), Member(first.Json(), "position"));
  EXPECT_EQ(ReadAll().size(), 2u);
}

TEST_F(CommitsTest, BadCommitsAreInvalidNamingTheFieldAndWriteNothing) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[]", "body"},
      {"{}", "appends"},
      {R"({"appends":[]})", "appends"},
      {R"({"appends":{}})", "appends"},
      // Without a stream: events without one ($dcb, docs/DCB.md), and none given.
      {R"({"appends":[{"expected":"any","events":[]}]})", "appends[0].events"},
      {R"({"appends":[{"stream":7,"events":[]}]})", "appends[0].stream"},
      {CommitOf({AppendOf("a", R"("sometimes")", {EventJson("X")})}), "appends[0].expected"},
      {CommitOf({AppendOf("a", "-1", {EventJson("X")})}), "appends[0].expected"},
      {CommitOf({AppendOf("a", "1.5", {EventJson("X")})}), "appends[0].expected"},
      {CommitOf({AppendOf("a", R"("any")", {R"({"data":{}})"})}), "appends[0].events[0].type"},
      {R"({"appends":[{"stream":"a","events":{"type":"X"}}]})", "appends[0].events"},
      {R"({"appends":[{"stream":"a","evnts":[]}]})", "appends[0].evnts"},
      {R"({"appends":[{"stream":"a","stream":"b","events":[{"type":"X"}]}]})", "appends[0].stream"},
      {CommitOf({AppendOf("a", R"("any")", {EventJson("X")}, R"({"schema":1})")}),
       "appends[0].state.data"},
      {CommitOf({AppendOf("a", R"("any")", {EventJson("X")}, R"({"data":1,"schema":-2})")}),
       "appends[0].state.schema"},
      {CommitOf({AppendOf("a", R"("any")", {EventJson("X")},
                          R"({"data":"%%%","dataEncoding":"base64"})")}),
       "appends[0].state.data"},
      {CommitOf({AppendOf("a", R"("any")", {EventJson("X")}),
                 AppendOf("a", R"("any")", {EventJson("Y")})}),
       "appends[1].stream"},
      {CommitOf({AppendOf("$audit", R"("any")", {EventJson("X")})}), "appends[0].stream"},
      {CommitOf({AppendOf("a", R"("any")", {})}), "appends[0].events"},  // no events, no state
  };
  for (const auto& [body, field] : cases) {
    const HttpResponse refused = http().Post("/commits", body);
    EXPECT_TRUE(IsError(refused, 400, "invalid")) << body;
    EXPECT_EQ(Member(refused.Json(), "field"), "\"" + field + "\"") << body;
  }
  EXPECT_TRUE(ReadAll().empty());
  EXPECT_EQ(http().Get("/health").status, 200u) << "the server stays up";
}

TEST_F(CommitsTest, TheAppendLimitsApplyToTheWholeCommit) {
  // 600 + 600 events: each under the 1000 of one append, together over it.
  std::vector<std::string> many(600, EventJson("X"));
  const HttpResponse refused =
      Commit({AppendOf("a", R"("any")", many), AppendOf("b", R"("any")", many)});
  EXPECT_TRUE(IsError(refused, 413, "too_large")) << refused.body.substr(0, 300);
  EXPECT_TRUE(ReadAll().empty());
}

TEST_F(CommitsTest, StateRecordsComeBackWithTheVersionTheyCover) {
  EXPECT_TRUE(IsError(http().Get("/streams/acc-1/state"), 404, "not_found"));
  ASSERT_EQ(Commit({AppendOf("acc-1", R"("no_stream")", {EventJson("Opened"), EventJson("Paid")},
                             R"({"data":{"balance":10, "owner":"ann"},"schema":2})")})
                .status,
            201u);
  const HttpResponse state = http().Get("/streams/acc-1/state");
  ASSERT_EQ(state.status, 200u) << state.body;
  EXPECT_EQ(state.Header("ETag").value_or(""), "\"1\"");
  const json::value body = state.Json();
  EXPECT_EQ(Member(body, "stream"), "\"acc-1\"");
  EXPECT_EQ(Member(body, "version"), "1");
  EXPECT_EQ(Member(body, "position"), "2");
  EXPECT_EQ(Member(body, "schema"), "2");
  EXPECT_EQ(Member(body, "data"), R"({"balance":10,"owner":"ann"})");

  // The envelope of POST /streams/{stream} carries one too.
  const HttpResponse enveloped =
      Append("acc-1", R"({"events":[{"type":"Paid"}],"state":{"data":{"balance":20}}})",
             {{"If-Match", "\"1\""}});
  ASSERT_EQ(enveloped.status, 201u) << enveloped.body;
  EXPECT_EQ(Member(http().Get("/streams/acc-1/state").Json(), "data"), R"({"balance":20})");
  // A state-only append (no events, an exact version) rewrites it in place.
  ASSERT_EQ(Append("acc-1", R"({"events":[],"state":{"data":"c3RhdGU=","dataEncoding":"base64"}})",
                   {{"If-Match", "\"2\""}})
                .status,
            201u);
  const json::value raw = http().Get("/streams/acc-1/state").Json();
  EXPECT_EQ(Member(raw, "data"), R"("c3RhdGU=")");
  EXPECT_EQ(Member(raw, "dataEncoding"), R"("base64")");
  EXPECT_EQ(Member(raw, "version"), "2");
  EXPECT_EQ(HeadVersion("acc-1"), 2);

  // A delete drops it; a bad envelope is refused.
  ASSERT_EQ(http().Delete("/streams/acc-1").status, 200u);
  EXPECT_TRUE(IsError(http().Get("/streams/acc-1/state"), 404, "not_found"));
  EXPECT_TRUE(IsError(Append("acc-2", R"({"events":[{"type":"X"}],"stat":{}})"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Get("/streams/%01/state"), 400, "invalid"));
}

TEST_F(CommitsTest, TheListingPagesByNameWithFilters) {
  EXPECT_EQ(Listing(""), (std::pair<std::vector<std::string>, std::string>{{}, "null"}));
  for (const char* stream :
       {"orders-2", "orders-1", "orders", "orders%2Feu", "ordersx-1", "orders.z", "pay-1"})
    ASSERT_EQ(Append(stream, EventJson("X")).status, 201u) << stream;
  ASSERT_EQ(http().Delete("/streams/pay-1").status, 200u);

  const std::vector<std::string> everything = {"orders",    "orders-1",  "orders-2", "orders.z",
                                               "orders/eu", "ordersx-1", "pay-1"};
  EXPECT_EQ(Listing("?limit=1000").first, everything);
  // Pages of 3 chained through `next`: every name once, in order.
  std::vector<std::string> paged;
  std::string after;
  for (int pages = 0; pages < 10; ++pages) {
    auto [names, next] = Listing("?limit=3" + (after.empty() ? "" : "&after=" + after));
    paged.insert(paged.end(), names.begin(), names.end());
    if (next == "null") break;
    after = json::parse(next).as_string().c_str();
    if (after == "orders/eu") after = "orders%2Feu";
  }
  EXPECT_EQ(paged, everything);

  EXPECT_EQ(Listing("?category=orders").first,
            (std::vector<std::string>{"orders", "orders-1", "orders-2", "orders/eu"}));
  EXPECT_EQ(Listing("?prefix=orders-").first, (std::vector<std::string>{"orders-1", "orders-2"}));
  EXPECT_EQ(Listing("?category=orders&prefix=orders%2F").first,
            (std::vector<std::string>{"orders/eu"}));
  EXPECT_EQ(Listing("?category=orders&after=orders-1").first,
            (std::vector<std::string>{"orders-2", "orders/eu"}));

  const json::value page = http().Get("/streams?prefix=pay").Json();
  const json::object& pay = page.at("streams").at(0).as_object();
  EXPECT_EQ(Member(pay, "deleted"), "true");
  EXPECT_EQ(Member(pay, "version"), "1") << "the tombstone's version";
  EXPECT_GT(IntOf(pay, "lastWrite"), 1700000000000);
  EXPECT_GT(IntOf(pay, "position"), 0);

  EXPECT_TRUE(IsError(http().Get("/streams?category=a-b"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Get("/streams?limit=0"), 400, "invalid"));
  EXPECT_TRUE(IsError(http().Get("/streams?limit=1001"), 400, "invalid"));
}

TEST_F(CommitsTest, TheDescriptionIsServed) {
  const HttpResponse description = http().Get("/openapi.json");
  ASSERT_EQ(description.status, 200u);
  const json::value body = description.Json();
  EXPECT_TRUE(Member(body, "openapi").starts_with("\"3.1")) << description.body.substr(0, 200);
  EXPECT_NE(Member(body, "paths").find("/commits"), std::string::npos);
}

}  // namespace
}  // namespace indelible
