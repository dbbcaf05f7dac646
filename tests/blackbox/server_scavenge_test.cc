// POST /scavenge and DELETE /streams/{stream}?erase=true (issue 37,
// docs/HTTP.md "Scavenging" and "Erasing a stream") against the real
// `indelible serve`: a scavenge removes what retention hides and reports
// it, a second finds nothing; an erasure leaves the tombstone alone on
// every read; bad input writes nothing; a store that cannot scavenge says
// so; with --auth only the admin scavenges, erasing needs the delete right,
// and both acts are on $audit.
#include "blackbox/auth_fixture.h"
#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

HttpResponse Scavenge(HttpClient& http, const Headers& headers = {}) {
  return http.Request("POST", "/scavenge", headers);
}

HttpResponse Erase(HttpClient& http, std::string_view stream, Headers headers = {}) {
  return http.Delete("/streams/" + std::string(stream) + "?erase=true", headers);
}

// The versions of a stream page, or of the events of `stream` in an /all page.
std::vector<std::int64_t> VersionsOf(const std::vector<json::object>& events,
                                     std::string_view stream = "") {
  std::vector<std::int64_t> out;
  for (const json::object& event : events)
    if (stream.empty() || StringOf(event, "stream") == stream)
      out.push_back(IntOf(event, "version"));
  return out;
}

std::vector<std::int64_t> Range(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  for (std::int64_t v = from; v < to; ++v) out.push_back(v);
  return out;
}

std::string Batch(int count) {
  std::string batch = "[";
  for (int i = 0; i < count; ++i)
    batch += (i > 0 ? "," : "") + EventJson("Counted", std::to_string(i));
  return batch + "]";
}

// The report's members, and nothing else.
void ExpectReport(const HttpResponse& answer, std::int64_t streams, std::int64_t events) {
  ASSERT_EQ(answer.status, 200u) << answer.body << answer.error;
  const json::value body = answer.Json();
  ASSERT_TRUE(body.is_object()) << answer.body;
  const json::object& report = body.as_object();
  EXPECT_EQ(report.size(), 6u) << answer.body;
  EXPECT_EQ(IntOf(report, "streams"), streams) << answer.body;
  EXPECT_EQ(IntOf(report, "events"), events) << answer.body;
  EXPECT_EQ(IntOf(report, "bytes") > 0, events > 0) << answer.body;
  EXPECT_GT(IntOf(report, "diskBytesBefore"), 0) << answer.body;
  EXPECT_GT(IntOf(report, "diskBytesAfter"), 0) << answer.body;
  EXPECT_GE(IntOf(report, "tookMs"), 0) << answer.body;
}

using ServerScavengeTest = ServerTest;

TEST_F(ServerScavengeTest, ScavengeRemovesWhatRetentionHidesThenNothing) {
  ASSERT_EQ(Append("s", Batch(30)).status, 201u);
  ASSERT_EQ(Append("other", Batch(3)).status, 201u);
  const HttpResponse set = http().Request(
      "PUT", "/streams/s/metadata", {{"Content-Type", "application/json"}}, R"({"maxCount":5})");
  ASSERT_EQ(set.status, 200u) << set.body;

  ExpectReport(Scavenge(http()), 1, 25);
  const HttpResponse read = http().Get("/streams/s");
  ASSERT_EQ(read.status, 200u) << read.body;
  EXPECT_EQ(VersionsOf(EventsOf(read.Json())), Range(25, 30));
  EXPECT_EQ(read.Header("ETag"), Quoted(29));
  // Gone, not hidden: lifting the setting shows nothing older.
  ASSERT_EQ(http()
                .Request("PUT", "/streams/s/metadata", {{"Content-Type", "application/json"}}, "{}")
                .status,
            200u);
  EXPECT_EQ(VersionsOf(EventsOf(http().Get("/streams/s").Json())), Range(25, 30));
  const std::vector<json::object> all = ReadAll();
  EXPECT_EQ(VersionsOf(all, "s"), Range(25, 30));
  EXPECT_EQ(VersionsOf(all, "other"), Range(0, 3)) << "a stream without retention keeps all";

  // Nothing left to remove; `{}` is the same request as no body.
  ExpectReport(http().Post("/scavenge", "{}"), 0, 0);
  ExpectReport(Scavenge(http()), 0, 0);
}

TEST_F(ServerScavengeTest, ABodyWithAnythingInItIs400) {
  ASSERT_EQ(Append("s", Batch(3)).status, 201u);
  for (const char* body : {R"({"maxCount":1})", "[]", "{", "null"}) {
    const HttpResponse bad = http().Post("/scavenge", body);
    EXPECT_TRUE(IsError(bad, 400, "invalid")) << body;
    EXPECT_EQ(Member(bad.Json(), "field"), R"("body")") << body << ": " << bad.body;
  }
  EXPECT_EQ(http().Get("/scavenge").status, 405u);
}

TEST_F(ServerScavengeTest, EraseLeavesTheTombstoneAloneOnEveryRead) {
  ASSERT_EQ(Append("s", Batch(30)).status, 201u);
  ASSERT_EQ(Append("other", Batch(2)).status, 201u);

  const HttpResponse erased = Erase(http(), "s");
  ASSERT_EQ(erased.status, 200u) << erased.body;
  EXPECT_EQ(erased.Header("ETag"), Quoted(30));
  EXPECT_EQ(erased.Header("Location"), "/streams/s");
  const json::value body = erased.Json();
  EXPECT_EQ(Member(body, "stream"), R"("s")");
  EXPECT_EQ(Member(body, "firstVersion"), "30");
  EXPECT_EQ(Member(body, "lastVersion"), "30");

  const HttpResponse gone = http().Get("/streams/s");
  ASSERT_TRUE(IsError(gone, 404, "not_found"));
  EXPECT_EQ(Member(gone.Json(), "deleted"), "true");
  // Unlike a soft delete, nothing is left to read with includeDeleted.
  EXPECT_EQ(VersionsOf(EventsOf(http().Get("/streams/s?includeDeleted=true").Json())),
            std::vector<std::int64_t>{30});

  const std::vector<json::object> all = ReadAll();
  std::vector<json::object> of_s;
  for (const json::object& event : all)
    if (StringOf(event, "stream") == "s") of_s.push_back(event);
  ASSERT_EQ(of_s.size(), 1u) << "only the tombstone of s is in $all";
  EXPECT_EQ(StringOf(of_s[0], "type"), "$deleted");
  EXPECT_EQ(IntOf(of_s[0], "version"), 30);
  EXPECT_EQ(json::serialize(of_s[0].at("data")), R"({"erased":true})");
  EXPECT_EQ(VersionsOf(all, "other"), Range(0, 2));

  // The records went at once; the next scavenge only compacts.
  ExpectReport(Scavenge(http()), 0, 0);
  // The stream may start again, its numbering going on.
  const HttpResponse again = Append("s", EventJson("Reborn"));
  ASSERT_EQ(again.status, 201u) << again.body;
  EXPECT_EQ(Member(again.Json(), "firstVersion"), "31");
}

TEST_F(ServerScavengeTest, EraseExpectationsAndBadInputWriteNothing) {
  ASSERT_EQ(Append("s", Batch(3)).status, 201u);  // versions 0..2

  for (const char* value : {"maybe", "", "TRUE", "1"}) {
    const HttpResponse bad = http().Delete(std::string("/streams/s?erase=") + value);
    EXPECT_TRUE(IsError(bad, 400, "invalid")) << value;
    EXPECT_EQ(Member(bad.Json(), "field"), R"("erase")") << value << ": " << bad.body;
  }
  const HttpResponse no_stream = Erase(http(), "s", {{"If-None-Match", "*"}});
  ASSERT_TRUE(IsError(no_stream, 400, "invalid"));
  EXPECT_EQ(Member(no_stream.Json(), "field"), R"("If-None-Match")");
  const HttpResponse stale = Erase(http(), "s", {{"If-Match", Quoted(1)}});
  ASSERT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(Member(stale.Json(), "actualVersion"), "2");
  EXPECT_EQ(stale.Header("ETag"), Quoted(2));
  EXPECT_TRUE(IsError(Erase(http(), "never-written"), 404, "not_found"));
  EXPECT_TRUE(IsError(Erase(http(), "%24audit"), 400, "invalid"));

  // Every refusal left the stream as it was.
  EXPECT_EQ(VersionsOf(EventsOf(http().Get("/streams/s").Json())), Range(0, 3));
  EXPECT_EQ(VersionsOf(ReadAll(), "s"), Range(0, 3));

  // erase=false is the soft delete: the events stay for includeDeleted.
  ASSERT_EQ(http().Delete("/streams/s?erase=false").status, 200u);
  EXPECT_EQ(VersionsOf(EventsOf(http().Get("/streams/s?includeDeleted=true").Json())), Range(0, 4));
  // An erasure of a soft-deleted stream keeps its tombstone and hides (and
  // removes) the events before it: the usual order, delete then forget.
  const HttpResponse erased = Erase(http(), "s");
  ASSERT_EQ(erased.status, 200u) << erased.body;
  EXPECT_EQ(erased.Header("ETag"), Quoted(3)) << "the soft delete's tombstone";
  EXPECT_EQ(VersionsOf(ReadAll(), "s"), std::vector<std::int64_t>{3});
}

TEST_F(ServerScavengeTest, AStoreThatCannotScavengeSaysSo) {
  StartOn("memory:");
  ASSERT_EQ(Append("s", Batch(5)).status, 201u);
  const HttpResponse refused = Scavenge(http());
  ASSERT_TRUE(IsError(refused, 400, "invalid"));
  EXPECT_NE(refused.body.find("cannot remove events"), std::string::npos) << refused.body;
  // Erasing works on every backend: the events are hidden at once.
  ASSERT_EQ(Erase(http(), "s").status, 200u);
  EXPECT_EQ(VersionsOf(ReadAll(), "s"), std::vector<std::int64_t>{5});
}

// --auth: only the admin role scavenges (every right on every stream is
// not enough), erasing needs `delete` on the stream, refusals write
// nothing, and both acts are on $audit.
class AuthScavengeTest : public AuthServerTest {
 protected:
  void SetUp() override {
    std::ofstream(RolesFile()) << R"({"roles": {
      "orders-writer": [{"allow": ["write", "read"], "categories": ["orders"]}],
      "orders-eraser": [{"allow": ["read", "delete"], "categories": ["orders"]}],
      "everything": [{"allow": ["read", "write", "delete", "subscribe", "consumers", "keys",
                                "metrics"]}]
    }})";
    StartAuth();
  }
};

TEST_F(AuthScavengeTest, OnlyTheAdminScavengesAndErasingNeedsDelete) {
  for (int i = 0; i < 5; ++i) AppendAsAdmin("orders-1");
  AppendAsAdmin("orders-2");
  const std::string writer = MakeKey("writer", {"orders-writer"});
  const std::string eraser = MakeKey("eraser", {"orders-eraser"});
  const std::string everything = MakeKey("everything", {"everything"});
  const HttpResponse set = http().Request(
      "PUT", "/streams/orders-1/metadata",
      {{"Content-Type", "application/json"}, Bearer(admin())[0]}, R"({"maxCount":2})");
  ASSERT_EQ(set.status, 200u) << set.body;

  for (const std::string& key : {writer, eraser, everything}) {
    const HttpResponse denied = Scavenge(http(), Bearer(key));
    ASSERT_TRUE(IsRefusal(denied, 403));
    EXPECT_NE(denied.body.find("admin role"), std::string::npos) << denied.body;
  }
  EXPECT_TRUE(IsRefusal(Scavenge(http()), 401));
  EXPECT_TRUE(AuditOf("audit.store.scavenge").empty()) << "a refusal writes nothing";

  const HttpResponse scavenged = Scavenge(http(), Bearer(admin()));
  ExpectReport(scavenged, 1, 3);
  const std::vector<json::object> scavenges = AuditOf("audit.store.scavenge");
  ASSERT_EQ(scavenges.size(), 1u);
  const json::value& done = scavenges[0].at("data");
  EXPECT_EQ(Member(done, "act"), R"("store.scavenge")");
  EXPECT_EQ(Member(done, "principal"), R"("key:bootstrap")");
  EXPECT_EQ(Member(done, "outcome"), R"("ok")");
  EXPECT_EQ(Member(done, "status"), "200");
  // The detail is the report.
  const json::value detail = json::parse(json::value_to<std::string>(done.at("detail")));
  EXPECT_EQ(Member(detail, "events"), "3");
  EXPECT_EQ(Member(detail, "streams"), "1");

  // Erasing: `write` is not enough; `delete` on the stream is.
  const HttpResponse denied = Erase(http(), "orders-2", Bearer(writer));
  ASSERT_TRUE(IsRefusal(denied, 403));
  EXPECT_NE(denied.body.find("delete right"), std::string::npos) << denied.body;
  EXPECT_TRUE(IsRefusal(Erase(http(), "payments-1", Bearer(eraser)), 403));
  const HttpResponse intact = http().Get("/streams/orders-2", Bearer(admin()));
  ASSERT_EQ(intact.status, 200u) << intact.body;
  EXPECT_EQ(VersionsOf(EventsOf(intact.Json())), std::vector<std::int64_t>{0});
  EXPECT_TRUE(AuditOf("audit.stream.erase").empty()) << "a refusal writes nothing";

  const HttpResponse erased = Erase(http(), "orders-2", Bearer(eraser));
  ASSERT_EQ(erased.status, 200u) << erased.body;
  EXPECT_TRUE(IsError(http().Get("/streams/orders-2", Bearer(admin())), 404, "not_found"));
  const std::vector<json::object> erasures = AuditOf("audit.stream.erase");
  ASSERT_EQ(erasures.size(), 1u);
  const json::value& data = erasures[0].at("data");
  EXPECT_EQ(Member(data, "act"), R"("stream.erase")");
  EXPECT_EQ(Member(data, "principal"), R"("key:eraser")");
  EXPECT_EQ(Member(data, "target"), R"("orders-2")");
  EXPECT_EQ(Member(data, "outcome"), R"("ok")");
  EXPECT_TRUE(AuditOf("audit.stream.delete").empty()) << "an erasure is not a soft delete";

  // A bad `erase` is on record as the erasure it asked for, refused.
  EXPECT_TRUE(
      IsError(http().Delete("/streams/orders-1?erase=maybe", Bearer(eraser)), 400, "invalid"));
  const std::vector<json::object> after = AuditOf("audit.stream.erase");
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(Member(after[1].at("data"), "outcome"), R"("invalid")");
  EXPECT_EQ(http().Get("/streams/orders-1/head", Bearer(admin())).status, 200u);
}

}  // namespace
}  // namespace indelible
