// Crypto-shredding end to end through the real `indelible serve` (started
// with INDELIBLE_MASTER_KEY in its environment and --seal-metadata) and the
// CLI (docs/HTTP.md "Shredding a subject", docs/RETENTION.md): events that
// declare a subject, appended over HTTP, read back as written on every
// route and in SSE, and are stored sealed; `DELETE /subjects/{subject}`
// answers {"subject","keys"}; then every route, SSE, `indelible export`
// (through --url, and through --data once the server stopped) shows the
// subject's events as {"$redacted":true} alone, `indelible shred --url`
// shreds another, and after `indelible scavenge` the marker and the
// subject's wrapped keys are in no file of the data folder. With --auth,
// only the admin shreds; a refusal shreds nothing, and the act is on
// $audit as subject.shred.
#include <cstdlib>
#include <sstream>

#include "api/wire.h"
#include "blackbox/auth_fixture.h"
#include "core/event_json.h"
#include "integration/shredding_fixture.h"

namespace indelible {
namespace {

using shredding_test::Cast;
using shredding_test::CheckEvents;
using shredding_test::FilesHolding;
using shredding_test::IsOpened;
using shredding_test::IsRedacted;
using shredding_test::Tally;
using testutil::SseItem;
using testutil::SseReader;
using Files = std::vector<std::string>;

constexpr Millis kWait(15000);

// An event of a read, an SSE message or an export line, as the library has
// it: `data` the JSON text, or the bytes of base64 data.
RecordedEvent FromJson(const json::object& event) {
  RecordedEvent e;
  e.stream = StringOf(event, "stream");
  e.version = StreamVersion(IntOf(event, "version"));
  e.position = Position(static_cast<std::uint64_t>(IntOf(event, "position")));
  e.type = StringOf(event, "type");
  e.content_type = event.contains("contentType") ? StringOf(event, "contentType")
                                                 : std::string(kJsonContentType);
  const json::value* data = event.if_contains("data");
  if (data != nullptr && Member(event, "dataEncoding") == R"("base64")" && data->is_string())
    e.data = Base64Decode(data->as_string()).value_or("<not base64>");
  else if (data != nullptr)
    e.data = json::serialize(*data);
  const json::value* metadata = event.if_contains("metadata");
  e.metadata = metadata != nullptr ? json::serialize(*metadata) : "{}";
  if (const json::value* tags = event.if_contains("tags"); tags != nullptr && tags->is_array())
    for (const json::value& tag : tags->as_array()) e.tags.emplace_back(tag.as_string());
  return e;
}

std::vector<RecordedEvent> FromJson(const std::vector<json::object>& events) {
  std::vector<RecordedEvent> out;
  for (const json::object& event : events) out.push_back(FromJson(event));
  return out;
}

// The events of a JSON Lines export (its subjectKey lines skipped).
std::vector<RecordedEvent> ExportedEvents(const std::string& text) {
  std::vector<RecordedEvent> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.starts_with(R"({"subjectKey")")) continue;
    boost::system::error_code ec;
    const json::value event = json::parse(line, ec);
    EXPECT_FALSE(ec) << line;
    if (!ec && event.is_object()) out.push_back(FromJson(event.as_object()));
  }
  return out;
}

// The wrapped keys of `subject` in an `export --with-keys`.
std::vector<std::string> WrappedKeysIn(const std::string& text, const std::string& subject) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(R"({"subjectKey")")) continue;
    const json::value key = json::parse(line).at("subjectKey");
    const std::string name(key.at("name").as_string());
    if (name != "subject-key/" + subject && !name.starts_with("subject-key/" + subject + "/"))
      continue;
    const std::string value(key.at("value").as_string());
    out.push_back(value.substr(value.rfind(' ') + 1));
  }
  return out;
}

// `shredded`'s cast with its subject and the other swapped: for checking
// the other subject's events once it was shredded too.
Cast Swapped(const Cast& cast) {
  Cast swapped = cast;
  std::swap(swapped.subject, swapped.other);
  std::swap(swapped.marker, swapped.other_marker);
  return swapped;
}

// `indelible serve` with a master key in its environment (and, in
// ShredAuthTest, --auth), the CLI beside it.
class ShredServerTest : public AuthServerTest {
 protected:
  void SetUp() override {
    ::unsetenv("INDELIBLE_MASTER_KEY");  // the CLI gets its key by --master-key-file only
    std::ofstream(RolesFile()) << R"({"roles": {
      "everything": [{"allow": ["read", "write", "delete", "subscribe", "consumers", "keys",
                                "metrics"]}]
    }})";
    key_hex_ = shredding_test::Hex(shredding_test::NewMasterKey());
    std::ofstream(MasterKeyFile()) << "# the test's master key\n" << key_hex_ << "\n";
  }

  std::string MasterKeyFile() const { return tmp_.Sub("master.key"); }
  std::vector<std::string> Env() const { return {"INDELIBLE_MASTER_KEY=" + key_hex_}; }

  void StartPlain() {
    StartWith({"serve", "--store", "file:" + Data(), "--listen", "127.0.0.1:0", "--seal-metadata",
               std::string(shredding_test::kSealedField)},
              Env());
  }

  void StartWithAuth() {
    StartWith({"serve", "--store", "file:" + Data(), "--listen", "127.0.0.1:0", "--auth",
               "--roles-file", RolesFile(), "--bootstrap-key-file", KeyFile(), "--seal-metadata",
               std::string(shredding_test::kSealedField)},
              Env());
    std::ifstream in(KeyFile());
    std::getline(in, admin_);
    ASSERT_TRUE(admin_.starts_with("idl_")) << "no admin key in " << KeyFile();
  }

  // SIGTERM, and waits for a clean exit.
  void Stop() {
    ASSERT_EQ(::kill(server().pid(), SIGTERM), 0);
    ASSERT_TRUE(server().Exited(std::chrono::seconds(30))) << server().output();
    EXPECT_EQ(server().exit_code(), 0) << server().output();
  }

  Headers As(const std::string& key) const { return key.empty() ? Headers{} : Bearer(key); }

  // Appends the cast's events over HTTP, stream by stream.
  void AppendCast(const std::string& key = "") {
    for (const AppendRequest& append : cast_.Appends()) {
      const HttpResponse appended =
          http().Post("/streams/" + append.stream, api::EventsToJson(append.events), As(key));
      ASSERT_EQ(appended.status, 201u) << append.stream << ": " << appended.body;
    }
  }

  std::vector<RecordedEvent> StreamEvents(const std::string& stream, const std::string& query = "",
                                          const std::string& key = "") {
    const HttpResponse read = http().Get("/streams/" + stream + query, As(key));
    EXPECT_EQ(read.status, 200u) << stream << ": " << read.body;
    return FromJson(EventsOf(read.Json()));
  }

  // Every stream of the cast, as GET /streams/{stream}.
  std::vector<RecordedEvent> EveryStream(const std::string& query = "") {
    std::vector<RecordedEvent> out;
    for (const std::string& stream :
         {cast_.Person(), cast_.Note(), cast_.OtherPerson(), Cast::Log()}) {
      const std::vector<RecordedEvent> events = StreamEvents(stream, query);
      out.insert(out.end(), events.begin(), events.end());
    }
    return out;
  }

  std::vector<RecordedEvent> All(const std::string& query = "") {
    std::vector<RecordedEvent> out;
    const HttpResponse page = http().Get("/all?limit=10000" + query);
    EXPECT_EQ(page.status, 200u) << page.body;
    return FromJson(EventsOf(page.Json()));
  }

  // SSE /subscribe/all up to its `: caught-up` comment.
  std::vector<RecordedEvent> Subscribed() {
    SseReader reader(server().port(), "/subscribe/all");
    EXPECT_TRUE(reader.ReadHead());
    EXPECT_EQ(reader.status(), 200u);
    std::vector<RecordedEvent> out;
    while (std::optional<SseItem> item = reader.Next(kWait)) {
      if (item->comment && item->data == "caught-up") return out;
      if (item->comment) continue;
      boost::system::error_code ec;
      const json::value event = json::parse(item->data, ec);
      EXPECT_FALSE(ec) << item->data;
      if (!ec && event.is_object()) out.push_back(FromJson(event.as_object()));
    }
    ADD_FAILURE() << "no `: caught-up` comment";
    return out;
  }

  // `indelible <global> <args>`; fails the test unless it exits 0.
  std::string Cli(const std::string& global, const std::string& args) {
    const testutil::CliOutcome outcome = testutil::RunCli(INDELIBLE_PATH, global, args, "", cli_);
    EXPECT_EQ(outcome.exit_code, 0) << global << " " << args << ": " << outcome.err;
    return outcome.out;
  }
  std::string Local() const { return "--data " + Data() + " --master-key-file " + MasterKeyFile(); }

  static void ExpectCounts(const Tally& tally, std::size_t subject, std::size_t other,
                           std::size_t plain) {
    EXPECT_EQ(tally.subject, subject);
    EXPECT_EQ(tally.other, other);
    EXPECT_EQ(tally.plain, plain);
  }

  // An export after the shred: the subject's events redacted, the other
  // subject's as stored (sealed: ciphertext, or redacted once shredded
  // too), the plain ones as written; no marker of a subject anywhere.
  void ExpectExport(const std::string& text, bool other_shredded) {
    EXPECT_EQ(text.find(cast_.marker), std::string::npos);
    EXPECT_EQ(text.find(cast_.other_marker), std::string::npos);
    Tally tally;
    for (const RecordedEvent& e : ExportedEvents(text)) {
      if (cast_.OfSubject(e.stream)) {
        ++tally.subject;
        EXPECT_TRUE(IsRedacted(e, cast_));
      } else if (e.stream == cast_.OtherPerson()) {
        ++tally.other;
        if (other_shredded)
          EXPECT_TRUE(IsRedacted(e, Swapped(cast_)));
        else
          EXPECT_EQ(e.content_type, kSealedContentType);
      } else if (e.stream == Cast::Log()) {
        ++tally.plain;
        EXPECT_NE(e.data.find(cast_.plain_marker), std::string::npos) << e.data;
      }
    }
    ExpectCounts(tally, Cast::kSubjectEvents, Cast::kOtherEvents, Cast::kPlainEvents);
  }

  std::string key_hex_;
  Cast cast_;
  testutil::TempDir cli_;
};

TEST_F(ShredServerTest, AfterTheShredEveryRouteSseAndExportShowOnlyTheRedactedForm) {
  ASSERT_NO_FATAL_FAILURE(StartPlain());
  ASSERT_NO_FATAL_FAILURE(AppendCast());

  // As written on every route; sealed as stored.
  {
    SCOPED_TRACE("before the shred");
    ExpectCounts(CheckEvents(EveryStream(), cast_, false), 4, 2, 2);
    ExpectCounts(CheckEvents(All(), cast_, false), 4, 2, 2);
    ExpectCounts(CheckEvents(Subscribed(), cast_, false), 4, 2, 2);
    for (const RecordedEvent& e : StreamEvents(cast_.Person(), "?raw=1")) {
      EXPECT_EQ(e.content_type, kSealedContentType);
      EXPECT_EQ(e.data.find(cast_.marker), std::string::npos);
      EXPECT_EQ(e.metadata.find(cast_.marker), std::string::npos) << e.metadata;
    }
  }
  EXPECT_EQ(FilesHolding(Data(), cast_.marker), Files{});
  EXPECT_NE(FilesHolding(Data(), cast_.plain_marker), Files{}) << "the control";
  // The subject's keys, as a follower of the running server exports them.
  const std::vector<std::string> wrapped =
      WrappedKeysIn(Cli(Local(), "export --with-keys"), cast_.subject);
  ASSERT_EQ(wrapped.size(), 2u) << "the pointer and the key of its id";
  EXPECT_NE(FilesHolding(Data(), wrapped[0]), Files{}) << "the control";

  // On loopback without --auth, anyone may shred.
  const HttpResponse shredded = http().Delete("/subjects/" + cast_.subject);
  ASSERT_EQ(shredded.status, 200u) << shredded.body;
  EXPECT_EQ(json::serialize(shredded.Json()), R"({"subject":")" + cast_.subject + R"(","keys":1})");
  {
    SCOPED_TRACE("after the shred");
    ExpectCounts(CheckEvents(EveryStream(), cast_, true), 4, 2, 2);
    ExpectCounts(CheckEvents(All(), cast_, true), 4, 2, 2);
    ExpectCounts(CheckEvents(Subscribed(), cast_, true), 4, 2, 2);
    for (const RecordedEvent& e : StreamEvents(cast_.Person(), "?raw=1"))
      EXPECT_TRUE(IsRedacted(e, cast_)) << "raw";
    for (const RecordedEvent& e : StreamEvents(cast_.Note(), "?raw=1"))
      EXPECT_TRUE(IsRedacted(e, cast_)) << "raw";
  }
  ExpectExport(Cli("--url " + server().url(), "export"), /*other_shredded=*/false);
  // Once more: nothing left to delete.
  const HttpResponse again = http().Delete("/subjects/" + cast_.subject);
  ASSERT_EQ(again.status, 200u) << again.body;
  EXPECT_EQ(Member(again.Json(), "keys"), "0");

  // The CLI shreds the other subject through the server.
  const std::string cli_shred = Cli("--url " + server().url() + " --json", "shred " + cast_.other);
  EXPECT_EQ(cli_shred, R"({"subject":")" + cast_.other + R"(","keys":1})" + "\n");
  for (const RecordedEvent& e : StreamEvents(cast_.OtherPerson()))
    EXPECT_TRUE(IsRedacted(e, Swapped(cast_)));
  ExpectExport(Cli("--url " + server().url(), "export"), /*other_shredded=*/true);

  // The server stopped: the data folder through the CLI, with the master
  // key and without it (the ciphertext as stored: still no marker).
  ASSERT_NO_FATAL_FAILURE(Stop());
  ExpectExport(Cli(Local(), "export"), /*other_shredded=*/true);
  const std::string keyless = Cli("--data " + Data(), "export");
  EXPECT_EQ(keyless.find(cast_.marker), std::string::npos);
  EXPECT_EQ(keyless.find(cast_.other_marker), std::string::npos);
  EXPECT_EQ(ExportedEvents(keyless).size(), ExportedEvents(Cli(Local(), "export")).size());

  Cli(Local(), "scavenge");
  EXPECT_EQ(FilesHolding(Data(), cast_.marker), Files{});
  EXPECT_EQ(FilesHolding(Data(), cast_.other_marker), Files{});
  for (const std::string& key : wrapped) EXPECT_EQ(FilesHolding(Data(), key), Files{});
  EXPECT_NE(FilesHolding(Data(), cast_.plain_marker), Files{}) << "the control";
}

// A consumer group lives as long as the server: what it read ahead of its
// consumers before the shred goes out redacted after it, as its first
// delivery and again after a nack.
TEST_F(ShredServerTest, AConsumerGroupDeliversRedactedAfterTheShred) {
  ASSERT_NO_FATAL_FAILURE(StartPlain());
  ASSERT_EQ(
      http()
          .Request("PUT", "/consumers/mailer?category=person&initialBackoffMs=1&maxBackoffMs=1")
          .status,
      201u);
  ASSERT_NO_FATAL_FAILURE(AppendCast());
  const auto pull = [&](int max) {
    const HttpResponse pulled = http().Post(
        "/consumers/mailer/pull?consumer=w1&waitMs=2000&max=" + std::to_string(max), "");
    EXPECT_EQ(pulled.status, 200u) << pulled.body;
    std::vector<RecordedEvent> out;
    const json::value body = pulled.Json();
    if (!body.is_object() || !body.as_object().contains("deliveries")) return out;
    for (const json::value& d : body.at("deliveries").as_array())
      out.push_back(FromJson(d.at("event").as_object()));
    return out;
  };
  const std::vector<RecordedEvent> first = pull(1);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(IsOpened(first[0], cast_.marker));

  ASSERT_EQ(http().Delete("/subjects/" + cast_.subject).status, 200u);
  const HttpResponse nacked = http().Post(
      "/consumers/mailer/nack",
      R"({"position":)" + std::to_string(first[0].position.value()) + R"(,"reason":"again"})");
  ASSERT_EQ(nacked.status, 200u) << nacked.body;
  std::vector<RecordedEvent> delivered;
  for (int pulls = 0; pulls < 20 && delivered.size() < 3 + Cast::kOtherEvents; ++pulls) {
    for (const RecordedEvent& e : pull(100)) {
      delivered.push_back(e);
      const HttpResponse acked = http().Post(
          "/consumers/mailer/ack", R"({"positions":[)" + std::to_string(e.position.value()) + "]}");
      EXPECT_EQ(acked.status, 200u) << acked.body;
    }
  }
  const Tally tally = CheckEvents(delivered, cast_, /*shredded=*/true);
  EXPECT_EQ(tally.subject, 3u);
  EXPECT_EQ(tally.other, Cast::kOtherEvents);
}

// --auth: DELETE /subjects/{subject} is the admin role's alone (every right
// on every stream is not enough); a refusal shreds nothing and leaves no
// subject.shred on $audit; the admin's shred is there with its answer.
TEST_F(ShredServerTest, WithAuthOnlyTheAdminShredsAndTheActIsAudited) {
  ASSERT_NO_FATAL_FAILURE(StartWithAuth());
  ASSERT_NO_FATAL_FAILURE(AppendCast(admin()));
  const std::string everything = MakeKey("everything", {"everything"});
  const std::string target = "/subjects/" + cast_.subject;

  const HttpResponse denied = http().Delete(target, Bearer(everything));
  ASSERT_TRUE(IsRefusal(denied, 403));
  EXPECT_NE(denied.body.find("admin role"), std::string::npos) << denied.body;
  EXPECT_TRUE(IsRefusal(http().Delete(target), 401));
  EXPECT_TRUE(AuditOf("audit.subject.shred").empty()) << "a refusal writes nothing";
  for (const RecordedEvent& e : StreamEvents(cast_.Person(), "", everything))
    EXPECT_TRUE(IsOpened(e, cast_.marker)) << "nothing was shredded";

  const HttpResponse shredded = http().Delete(target, Bearer(admin()));
  ASSERT_EQ(shredded.status, 200u) << shredded.body;
  EXPECT_EQ(Member(shredded.Json(), "keys"), "1");
  for (const RecordedEvent& e : StreamEvents(cast_.Person(), "", everything))
    EXPECT_TRUE(IsRedacted(e, cast_));
  for (const RecordedEvent& e : StreamEvents(cast_.OtherPerson(), "", everything))
    EXPECT_TRUE(IsOpened(e, cast_.other_marker));

  const std::vector<json::object> audited = AuditOf("audit.subject.shred");
  ASSERT_EQ(audited.size(), 1u);
  const json::value& done = audited[0].at("data");
  EXPECT_EQ(Member(done, "act"), R"("subject.shred")");
  EXPECT_EQ(Member(done, "principal"), R"("key:bootstrap")");
  EXPECT_EQ(Member(done, "outcome"), R"("ok")");
  EXPECT_EQ(Member(done, "status"), "200");
  const json::value detail = json::parse(json::value_to<std::string>(done.at("detail")));
  EXPECT_EQ(Member(detail, "subject"), "\"" + cast_.subject + "\"");
  EXPECT_EQ(Member(detail, "keys"), "1");
  // The audit trail holds no marker: it records the act, not the data.
  const HttpResponse audit = http().Get("/streams/$audit?limit=10000", Bearer(admin()));
  EXPECT_EQ(audit.body.find(cast_.marker), std::string::npos);
}

}  // namespace
}  // namespace indelible
