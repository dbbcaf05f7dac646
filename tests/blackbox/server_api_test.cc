// `indelible serve` end to end, route by route (docs/HTTP.md): appends and
// their expectations, idempotent retries, stream names, reads, head, delete.
#include "server_fixture.h"

namespace indelible {
namespace {

using ApiTest = ServerTest;

TEST_F(ApiTest, AppendAnswers201WithETagLocationAndResult) {
  HttpResponse one = Append("acc-1", EventJson("Deposited", R"({"amount":5})"));
  ASSERT_EQ(one.status, 201u) << one.body << one.error;
  EXPECT_EQ(one.Header("ETag"), "\"0\"");
  ASSERT_TRUE(one.Header("Location").has_value());
  EXPECT_NE(one.Header("Location")->find("/streams/acc-1"), std::string::npos)
      << *one.Header("Location");
  EXPECT_EQ(one.Json(), json::parse(R"({"stream":"acc-1","firstVersion":0,"lastVersion":0,
                                        "position":1})"));
  EXPECT_EQ(one.Header("Idempotent-Replay"), std::nullopt);

  // An array; a media type with parameters is still application/json.
  HttpResponse two = Append("acc-1", "[" + EventJson("A") + "," + EventJson("B") + "]",
                            {{"Content-Type", "application/json; charset=utf-8"}});
  ASSERT_EQ(two.status, 201u) << two.body;
  EXPECT_EQ(two.Header("ETag"), "\"2\"");
  EXPECT_EQ(two.Json(), json::parse(R"({"stream":"acc-1","firstVersion":1,"lastVersion":2,
                                        "position":3})"));
  EXPECT_EQ(HeadVersion("acc-1"), 2);
  EXPECT_EQ(http().connects(), 1) << "keep-alive: one connection for every request";
}

TEST_F(ApiTest, IfMatchExpectsThatVersionAndConflictsWithTheActualOne) {
  ASSERT_EQ(Append("s", EventJson("T")).status, 201u);
  HttpResponse ok = Append("s", EventJson("T"), {{"If-Match", "\"0\""}});
  ASSERT_EQ(ok.status, 201u) << ok.body;
  EXPECT_EQ(ok.Header("ETag"), "\"1\"");
  EXPECT_EQ(Member(ok.Json(), "firstVersion"), "1");

  HttpResponse stale = Append("s", EventJson("T"), {{"If-Match", "\"0\""}});
  EXPECT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(Member(stale.Json(), "actualVersion"), "1");
  EXPECT_EQ(stale.Header("ETag"), "\"1\"");
  HttpResponse ahead = Append("s", EventJson("T"), {{"If-Match", "\"7\""}});
  EXPECT_TRUE(IsError(ahead, 409, "conflict"));
  EXPECT_EQ(Member(ahead.Json(), "actualVersion"), "1");

  HttpResponse missing = Append("nothing", EventJson("T"), {{"If-Match", "\"0\""}});
  EXPECT_TRUE(IsError(missing, 409, "conflict"));
  EXPECT_EQ(Member(missing.Json(), "actualVersion"), "null");
  EXPECT_EQ(HeadVersion("s"), 1);
  EXPECT_EQ(HeadVersion("nothing"), -1);
  EXPECT_EQ(ReadAll().size(), 2u);
}

TEST_F(ApiTest, IfNoneMatchStarExpectsNoStreamAndIfMatchStarExpectsOne) {
  HttpResponse created = Append("n", EventJson("T"), {{"If-None-Match", "*"}});
  ASSERT_EQ(created.status, 201u) << created.body;
  EXPECT_EQ(created.Header("ETag"), "\"0\"");
  HttpResponse again = Append("n", EventJson("T"), {{"If-None-Match", "*"}});
  EXPECT_TRUE(IsError(again, 409, "conflict"));
  EXPECT_EQ(Member(again.Json(), "actualVersion"), "0");
  EXPECT_EQ(again.Header("ETag"), "\"0\"");

  HttpResponse exists = Append("n", EventJson("T"), {{"If-Match", "*"}});
  EXPECT_EQ(exists.status, 201u) << exists.body;
  EXPECT_EQ(exists.Header("ETag"), "\"1\"");
  HttpResponse none = Append("m", EventJson("T"), {{"If-Match", "*"}});
  EXPECT_TRUE(IsError(none, 409, "conflict"));
  EXPECT_EQ(Member(none.Json(), "actualVersion"), "null");
  EXPECT_EQ(HeadVersion("m"), -1);
  EXPECT_EQ(ReadAll().size(), 2u);
}

TEST_F(ApiTest, RetryWithTheSameIdsReplaysTheOriginalResultAndWritesNothing) {
  ASSERT_EQ(Append("other", EventJson("T")).status, 201u);
  const std::string batch =
      "[" + EventJson("A", "{}", NewUuid()) + "," + EventJson("B", "{}", NewUuid()) + "]";
  HttpResponse first = Append("idem", batch, {{"If-None-Match", "*"}});
  ASSERT_EQ(first.status, 201u) << first.body;
  EXPECT_NE(first.Header("Idempotent-Replay"), "true");
  ASSERT_EQ(Append("other", EventJson("T")).status, 201u);  // $all moves on

  // The retry's expectation no longer holds, but it is the same append.
  HttpResponse retry = Append("idem", batch, {{"If-None-Match", "*"}});
  ASSERT_EQ(retry.status, 201u) << retry.body;
  EXPECT_EQ(retry.Header("Idempotent-Replay"), "true");
  EXPECT_EQ(retry.Json(), first.Json());
  EXPECT_EQ(retry.Header("ETag"), first.Header("ETag"));
  EXPECT_EQ(HeadVersion("idem"), 1);
  EXPECT_EQ(ReadAll().size(), 4u);
}

// A conflict about event ids is not a version conflict: it says so
// ("reason":"event_id"), names the id and the stream of the request it was
// sent to, and has no actualVersion (docs/HTTP.md; openapi.json
// EventIdConflictError); a version conflict says "reason":"version".
TEST_F(ApiTest, ConflictsAboutEventIdsHaveTheirOwnShape) {
  const std::string id = NewUuid();
  ASSERT_EQ(Append("owner", EventJson("A", "{}", id)).status, 201u);
  HttpResponse elsewhere = Append("thief", EventJson("A", "{}", id));
  ASSERT_TRUE(IsError(elsewhere, 409, "conflict")) << elsewhere.body;
  const json::value body = elsewhere.Json();
  EXPECT_EQ(Member(body, "reason"), R"("event_id")") << elsewhere.body;
  EXPECT_EQ(Member(body, "eventId"), "\"" + id + "\"") << elsewhere.body;
  EXPECT_EQ(Member(body, "stream"), R"("thief")") << elsewhere.body;
  EXPECT_EQ(Member(body, "actualVersion"), "<missing>") << elsewhere.body;

  // POST /commits: a retried append beside a new one.
  const std::string retried = R"({"stream":"owner","events":[)" + EventJson("A", "{}", id) + "]}";
  const std::string fresh = R"({"stream":"fresh","events":[)" + EventJson("B") + "]}";
  HttpResponse mixed = http().Post("/commits", R"({"appends":[)" + fresh + "," + retried + "]}");
  ASSERT_TRUE(IsError(mixed, 409, "conflict")) << mixed.body;
  EXPECT_EQ(Member(mixed.Json(), "reason"), R"("event_id")") << mixed.body;
  EXPECT_EQ(Member(mixed.Json(), "stream"), R"("owner")") << mixed.body;
  EXPECT_EQ(Member(mixed.Json(), "eventId"), "\"" + id + "\"") << mixed.body;
  EXPECT_EQ(HeadVersion("fresh"), -1) << "nothing of the commit was written";

  HttpResponse stale = Append("owner", EventJson("C"), {{"If-Match", "\"7\""}});
  ASSERT_TRUE(IsError(stale, 409, "conflict")) << stale.body;
  EXPECT_EQ(Member(stale.Json(), "reason"), R"("version")") << stale.body;
  EXPECT_EQ(Member(stale.Json(), "actualVersion"), "0") << stale.body;
}

TEST_F(ApiTest, StreamNamesArePercentDecodedPathSegments) {
  HttpResponse r = Append("BANK_ACCOUNT%2F123", EventJson("Opened"));
  ASSERT_EQ(r.status, 201u) << r.body;
  EXPECT_EQ(Member(r.Json(), "stream"), "\"BANK_ACCOUNT/123\"");
  ASSERT_EQ(Append("caf%C3%A9%20au%20lait", EventJson("Brewed")).status, 201u);

  const std::vector<json::object> all = ReadAll();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(StringOf(all[0], "stream"), "BANK_ACCOUNT/123");
  EXPECT_EQ(StringOf(all[1], "stream"), "caf\xC3\xA9 au lait");
  HttpResponse read = http().Get("/streams/BANK_ACCOUNT%2F123");
  ASSERT_EQ(read.status, 200u) << read.body;
  ASSERT_EQ(EventsOf(read.Json()).size(), 1u);
  EXPECT_EQ(StringOf(EventsOf(read.Json())[0], "type"), "Opened");
  // The category is the part before the '/'.
  HttpResponse category = http().Get("/all?category=BANK_ACCOUNT");
  ASSERT_EQ(EventsOf(category.Json()).size(), 1u) << category.body;
  EXPECT_EQ(HeadVersion("BANK_ACCOUNT%2F123"), 0);
  EXPECT_EQ(HeadVersion("BANK_ACCOUNT"), -1);
}

TEST_F(ApiTest, ReadsAStreamForwardAndBackwardInPages) {
  ASSERT_EQ(Append("other", EventJson("X")).status, 201u);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Append("r", EventJson("T", std::to_string(i))).status, 201u);
  }
  auto versions = [](const HttpResponse& response) {
    std::vector<std::int64_t> out;
    for (const auto& event : EventsOf(response.Json())) out.push_back(IntOf(event, "version"));
    return out;
  };
  using V = std::vector<std::int64_t>;
  HttpResponse all = http().Get("/streams/r");
  ASSERT_EQ(all.status, 200u) << all.body;
  EXPECT_EQ(all.Header("ETag"), "\"4\"");
  EXPECT_EQ(versions(all), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(Member(all.Json(), "stream"), "\"r\"");
  EXPECT_EQ(Member(all.Json(), "nextVersion"), "null");

  HttpResponse page = http().Get("/streams/r?from=1&limit=2");
  EXPECT_EQ(versions(page), (V{1, 2}));
  EXPECT_EQ(Member(page.Json(), "nextVersion"), "3");
  EXPECT_EQ(page.Header("ETag"), "\"4\"");
  HttpResponse last = http().Get("/streams/r?from=3&limit=2&direction=forward");
  EXPECT_EQ(versions(last), (V{3, 4}));
  EXPECT_EQ(Member(last.Json(), "nextVersion"), "null");

  HttpResponse back = http().Get("/streams/r?direction=backward&limit=2");
  EXPECT_EQ(versions(back), (V{4, 3}));
  EXPECT_EQ(Member(back.Json(), "nextVersion"), "2");
  HttpResponse rest = http().Get("/streams/r?direction=backward&from=1");
  EXPECT_EQ(versions(rest), (V{1, 0}));
  EXPECT_EQ(Member(rest.Json(), "nextVersion"), "null");
}

TEST_F(ApiTest, StoredEventsCarryEverythingTheClientSentAndTheStoreAdded) {
  const std::string id = NewUuid();
  const std::string event = R"({"id":")" + id +
                            R"(","type":"Todo.Created","schema":"V1","data":{"title":"milk"},)"
                            R"("metadata":{"user":"ann"}})";
  ASSERT_EQ(Append("todo-1", event).status, 201u);
  ASSERT_EQ(Append("bin-1", R"({"type":"Blob","contentType":"application/octet-stream",)"
                            R"("dataEncoding":"base64","data":"AAEC/w=="})")
                .status,
            201u);
  const std::vector<json::object> todo = EventsOf(http().Get("/streams/todo-1").Json());
  ASSERT_EQ(todo.size(), 1u);
  EXPECT_EQ(StringOf(todo[0], "id"), id);
  EXPECT_EQ(StringOf(todo[0], "stream"), "todo-1");
  EXPECT_EQ(IntOf(todo[0], "version"), 0);
  EXPECT_EQ(IntOf(todo[0], "position"), 1);
  EXPECT_EQ(StringOf(todo[0], "type"), "Todo.Created");
  EXPECT_EQ(StringOf(todo[0], "schema"), "V1");
  EXPECT_EQ(Member(todo[0], "data"), R"({"title":"milk"})");
  EXPECT_EQ(Member(todo[0], "metadata"), R"({"user":"ann"})");
  EXPECT_GT(IntOf(todo[0], "timestamp"), 1600000000000);

  const std::vector<json::object> bin = EventsOf(http().Get("/streams/bin-1").Json());
  ASSERT_EQ(bin.size(), 1u);
  EXPECT_EQ(StringOf(bin[0], "contentType"), "application/octet-stream");
  EXPECT_EQ(StringOf(bin[0], "dataEncoding"), "base64");
  EXPECT_EQ(StringOf(bin[0], "data"), "AAEC/w==");
  // A server-made id is a UUID too.
  EXPECT_EQ(StringOf(bin[0], "id").size(), 36u) << Member(bin[0], "id");
}

TEST_F(ApiTest, UnknownStreamIs404AndHeadGivesVersionAndPosition) {
  HttpResponse read = http().Get("/streams/ghost");
  EXPECT_TRUE(IsError(read, 404, "not_found"));
  EXPECT_NE(Member(read.Json(), "deleted"), "true");
  EXPECT_TRUE(IsError(http().Get("/streams/ghost/head"), 404, "not_found"));

  ASSERT_EQ(Append("x", EventJson("T")).status, 201u);
  ASSERT_EQ(Append("h", "[" + EventJson("T") + "," + EventJson("T") + "]").status, 201u);
  HttpResponse head = http().Get("/streams/h/head");
  ASSERT_EQ(head.status, 200u) << head.body;
  EXPECT_EQ(head.Header("ETag"), "\"1\"");
  EXPECT_EQ(head.Json(), json::parse(R"({"stream":"h","version":1,"position":3,"deleted":false,
                                         "firstVersion":0})"));
}

TEST_F(ApiTest, DeleteIsSoftAndTheStreamStartsAgainWithItsNumbering) {
  ASSERT_EQ(Append("d", "[" + EventJson("A") + "," + EventJson("B") + "]").status, 201u);
  HttpResponse stale = http().Delete("/streams/d", {{"If-Match", "\"0\""}});
  EXPECT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(Member(stale.Json(), "actualVersion"), "1");

  HttpResponse deleted = http().Delete("/streams/d", {{"If-Match", "\"1\""}});
  ASSERT_EQ(deleted.status, 200u) << deleted.body;
  EXPECT_EQ(deleted.Header("ETag"), "\"2\"");
  EXPECT_EQ(deleted.Json(), json::parse(R"({"stream":"d","firstVersion":2,"lastVersion":2,
                                            "position":3})"));
  HttpResponse gone = http().Get("/streams/d");
  EXPECT_TRUE(IsError(gone, 404, "not_found"));
  EXPECT_EQ(Member(gone.Json(), "deleted"), "true");
  const HttpResponse head = http().Get("/streams/d/head");
  EXPECT_EQ(Member(head.Json(), "deleted"), "true") << head.status << head.body;

  // Audit: the events are still there.
  HttpResponse audit = http().Get("/streams/d?includeDeleted=true");
  ASSERT_EQ(audit.status, 200u) << audit.body;
  const std::vector<json::object> events = EventsOf(audit.Json());
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(StringOf(events[0], "type"), "A");
  EXPECT_EQ(StringOf(events[1], "type"), "B");
  EXPECT_EQ(ReadAll().size(), 3u);  // A, B and the tombstone

  EXPECT_TRUE(IsError(Append("d", EventJson("C"), {{"If-Match", "*"}}), 409, "conflict"));
  EXPECT_TRUE(IsError(Append("d", EventJson("C"), {{"If-Match", "\"2\""}}), 409, "conflict"));
  HttpResponse again = Append("d", EventJson("C"), {{"If-None-Match", "*"}});
  ASSERT_EQ(again.status, 201u) << again.body;
  EXPECT_EQ(Member(again.Json(), "firstVersion"), "3");
  EXPECT_EQ(http().Get("/streams/d").status, 200u);
}

}  // namespace
}  // namespace indelible
