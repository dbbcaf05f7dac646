// GET and PUT /streams/{stream}/metadata (issue 37, docs/HTTP.md "Stream
// metadata") against the real `indelible serve`: the document and its
// ETag, expectations and their conflicts, bad bodies that write nothing,
// retention hiding events from stream reads and /all, and with --auth the
// delete right, '$' streams and the $audit entry.
#include "blackbox/auth_fixture.h"
#include "blackbox/server_fixture.h"

namespace indelible {
namespace {

std::string MetadataPath(std::string_view stream) {
  return "/streams/" + std::string(stream) + "/metadata";
}

HttpResponse PutMetadata(HttpClient& http, std::string_view stream, std::string_view body,
                         Headers headers = {}) {
  headers.emplace_back("Content-Type", "application/json");
  return http.Request("PUT", MetadataPath(stream), headers, body);
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

using ServerMetadataTest = ServerTest;

TEST_F(ServerMetadataTest, NeverWrittenThenWrittenReadsBackWithItsETag) {
  const HttpResponse none = http().Get(MetadataPath("orders-1"));
  ASSERT_EQ(none.status, 200u) << none.body;
  EXPECT_EQ(none.body, R"({"stream":"orders-1","version":null,"metadata":{}})");
  EXPECT_FALSE(none.Header("ETag")) << "no version, no ETag";

  // The stream itself need not exist.
  const HttpResponse first =
      PutMetadata(http(), "orders-1", R"({"maxCount":10,"custom":{"owner":"billing"}})",
                  {{"If-None-Match", "*"}});
  ASSERT_EQ(first.status, 200u) << first.body;
  EXPECT_EQ(first.body, R"({"stream":"orders-1","version":0})");
  EXPECT_EQ(first.Header("ETag"), Quoted(0));

  const HttpResponse read = http().Get(MetadataPath("orders-1"));
  ASSERT_EQ(read.status, 200u) << read.body;
  EXPECT_EQ(read.Header("ETag"), Quoted(0));
  EXPECT_EQ(read.Json(), json::parse(R"({"stream":"orders-1","version":0,
                                        "metadata":{"maxCount":10,"custom":{"owner":"billing"}}})"));

  // A write replaces the document (no merge), at the next version.
  const HttpResponse second = PutMetadata(
      http(), "orders-1", R"({"maxAge":86400,"truncateBefore":3})", {{"If-Match", Quoted(0)}});
  ASSERT_EQ(second.status, 200u) << second.body;
  EXPECT_EQ(second.Header("ETag"), Quoted(1));
  const HttpResponse any = PutMetadata(http(), "orders-1", R"({"maxAge":60,"maxCount":null})");
  ASSERT_EQ(any.status, 200u) << any.body;
  EXPECT_EQ(Member(any.Json(), "version"), "2");
  const HttpResponse last = http().Get(MetadataPath("orders-1"));
  EXPECT_EQ(last.Header("ETag"), Quoted(2));
  EXPECT_EQ(Member(last.Json(), "metadata"), R"({"maxAge":60})");

  // A name with '/' is one segment, percent-encoded.
  ASSERT_EQ(PutMetadata(http(), "BANK%2F7", R"({"maxCount":5})").status, 200u);
  EXPECT_EQ(Member(http().Get(MetadataPath("BANK%2F7")).Json(), "stream"), R"("BANK/7")");
}

TEST_F(ServerMetadataTest, AWrongExpectationIsAConflictWithTheMetadatasVersion) {
  ASSERT_EQ(PutMetadata(http(), "s", R"({"maxCount":3})").status, 200u);
  ASSERT_EQ(PutMetadata(http(), "s", R"({"maxCount":4})").status, 200u);  // version 1

  const HttpResponse stale =
      PutMetadata(http(), "s", R"({"maxCount":9})", {{"If-Match", Quoted(0)}});
  ASSERT_TRUE(IsError(stale, 409, "conflict"));
  EXPECT_EQ(Member(stale.Json(), "actualVersion"), "1");
  EXPECT_EQ(Member(stale.Json(), "reason"), R"("version")");
  EXPECT_EQ(stale.Header("ETag"), Quoted(1));

  const HttpResponse exists =
      PutMetadata(http(), "s", R"({"maxCount":9})", {{"If-None-Match", "*"}});
  ASSERT_TRUE(IsError(exists, 409, "conflict"));
  EXPECT_EQ(Member(exists.Json(), "actualVersion"), "1");

  // Never written: the conflict has no version, and no ETag.
  const HttpResponse missing =
      PutMetadata(http(), "t", R"({"maxCount":9})", {{"If-Match", Quoted(0)}});
  ASSERT_TRUE(IsError(missing, 409, "conflict"));
  EXPECT_EQ(Member(missing.Json(), "actualVersion"), "null");
  EXPECT_FALSE(missing.Header("ETag"));

  // Nothing of the refused writes.
  const HttpResponse read = http().Get(MetadataPath("s"));
  EXPECT_EQ(read.Header("ETag"), Quoted(1));
  EXPECT_EQ(Member(read.Json(), "metadata"), R"({"maxCount":4})");
  EXPECT_EQ(Member(http().Get(MetadataPath("t")).Json(), "version"), "null");
}

TEST_F(ServerMetadataTest, ABadBodyIs400NamingTheKeyAndWritesNothing) {
  ASSERT_EQ(PutMetadata(http(), "s", R"({"maxCount":3})").status, 200u);
  // A typo must not silently keep every event.
  const HttpResponse typo = PutMetadata(http(), "s", R"({"maxcount":2})");
  ASSERT_TRUE(IsError(typo, 400, "invalid"));
  EXPECT_NE(typo.body.find("maxcount"), std::string::npos) << typo.body;
  for (const auto& [body, field] : std::vector<std::pair<std::string, std::string>>{
           {R"({"maxCount":0})", "maxCount"},
           {R"({"maxAge":"1d"})", "maxAge"},
           {R"({"truncateBefore":-1})", "truncateBefore"},
           {R"({"custom":[1]})", "custom"},
           {R"([{"maxCount":1}])", "metadata"},
           {R"({"maxCount":)", "metadata"},
           {"", "metadata"}}) {
    const HttpResponse bad = PutMetadata(http(), "s", body);
    EXPECT_TRUE(IsError(bad, 400, "invalid")) << body;
    EXPECT_EQ(Member(bad.Json(), "field"), "\"" + field + "\"") << body << ": " << bad.body;
  }
  const HttpResponse bad_header =
      PutMetadata(http(), "s", R"({"maxCount":1})", {{"If-Match", "W/\"0\""}});
  ASSERT_TRUE(IsError(bad_header, 400, "invalid"));
  EXPECT_EQ(Member(bad_header.Json(), "field"), R"("If-Match")");

  const HttpResponse read = http().Get(MetadataPath("s"));
  EXPECT_EQ(read.Header("ETag"), Quoted(0));
  EXPECT_EQ(Member(read.Json(), "metadata"), R"({"maxCount":3})");
  EXPECT_EQ(HeadVersion("%24%24s"), 0) << "the refused writes appended nothing to $$s";

  // A metadata stream has no metadata of its own; a bad name is a bad name.
  for (const char* stream : {"%24%24s", "bad%01name"}) {
    const HttpResponse get = http().Get(MetadataPath(stream));
    EXPECT_TRUE(IsError(get, 400, "invalid")) << stream;
    EXPECT_EQ(Member(get.Json(), "field"), R"("stream")") << get.body;
    EXPECT_TRUE(IsError(PutMetadata(http(), stream, R"({"maxCount":1})"), 400, "invalid"))
        << stream;
  }
}

TEST_F(ServerMetadataTest, MaxCountHidesTheOlderEventsFromStreamReadsAndAll) {
  std::string batch = "[";
  for (int i = 0; i < 5; ++i) batch += (i > 0 ? "," : "") + EventJson("Counted");
  ASSERT_EQ(Append("r", batch + "]").status, 201u);
  ASSERT_EQ(Append("other", EventJson("Kept")).status, 201u);
  ASSERT_EQ(VersionsOf(ReadAll(), "r"), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));

  ASSERT_EQ(PutMetadata(http(), "r", R"({"maxCount":2})").status, 200u);

  const HttpResponse read = http().Get("/streams/r");
  ASSERT_EQ(read.status, 200u) << read.body;
  EXPECT_EQ(VersionsOf(EventsOf(read.Json())), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(read.Header("ETag"), Quoted(4)) << "the stream's version is unchanged";
  const std::vector<json::object> all = ReadAll();
  EXPECT_EQ(VersionsOf(all, "r"), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(VersionsOf(all, "other"), (std::vector<std::int64_t>{0}));

  // Retention is a setting, not an erasure: unset, the events read again.
  ASSERT_EQ(PutMetadata(http(), "r", "{}").status, 200u);
  EXPECT_EQ(VersionsOf(EventsOf(http().Get("/streams/r").Json())),
            (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
}

// --auth: reading needs `read`, writing needs `delete` (a 403 says why),
// '$' streams are the admin's, and a write is on $audit.
class AuthMetadataTest : public AuthServerTest {
 protected:
  void SetUp() override {
    std::ofstream(RolesFile()) << R"({"roles": {
      "orders-writer": [{"allow": ["write", "read"], "categories": ["orders"]}],
      "orders-retention": [{"allow": ["read", "delete"], "categories": ["orders"]}]
    }})";
    StartAuth();
  }
};

TEST_F(AuthMetadataTest, WritingNeedsTheDeleteRightAndIsAudited) {
  AppendAsAdmin("orders-1");
  const std::string writer = MakeKey("writer", {"orders-writer"});
  const std::string keeper = MakeKey("keeper", {"orders-retention"});

  const HttpResponse read = http().Get(MetadataPath("orders-1"), Bearer(writer));
  EXPECT_EQ(read.status, 200u) << read.body;
  EXPECT_TRUE(IsRefusal(http().Get(MetadataPath("payments-1"), Bearer(writer)), 403));

  const HttpResponse denied = PutMetadata(http(), "orders-1", R"({"maxCount":1})", Bearer(writer));
  ASSERT_TRUE(IsRefusal(denied, 403));
  EXPECT_NE(denied.body.find("delete right"), std::string::npos) << denied.body;
  EXPECT_NE(denied.body.find("metadata"), std::string::npos) << denied.body;
  EXPECT_NE(denied.body.find("hide"), std::string::npos) << denied.body;
  EXPECT_EQ(Member(http().Get(MetadataPath("orders-1"), Bearer(admin())).Json(), "version"),
            "null");
  EXPECT_TRUE(AuditOf("audit.stream.metadata").empty()) << "a refusal writes nothing";

  // '$' streams are the admin role's, whatever the rules say.
  EXPECT_TRUE(IsRefusal(PutMetadata(http(), "%24audit", R"({"maxCount":1})", Bearer(keeper)), 403));
  EXPECT_TRUE(IsRefusal(http().Get(MetadataPath("%24audit"), Bearer(keeper)), 403));

  const HttpResponse written =
      PutMetadata(http(), "orders-1", R"({"maxCount":1,"custom":{"why":"gdpr"}})", Bearer(keeper));
  ASSERT_EQ(written.status, 200u) << written.body;
  const std::vector<json::object> audit = AuditOf("audit.stream.metadata");
  ASSERT_EQ(audit.size(), 1u);
  const json::value& data = audit[0].at("data");
  EXPECT_EQ(Member(data, "act"), R"("stream.metadata")");
  EXPECT_EQ(Member(data, "principal"), R"("key:keeper")");
  EXPECT_EQ(Member(data, "target"), R"("orders-1")");
  EXPECT_EQ(Member(data, "outcome"), R"("ok")");
  EXPECT_EQ(Member(data, "status"), "200");
  // What was set, its custom keys left out.
  EXPECT_EQ(Member(data, "detail"), R"("{\"maxCount\":1}")");
}

}  // namespace
}  // namespace indelible
