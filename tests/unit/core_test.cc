// Unit tests of core pieces with no storage: ids, names, JSON, the codec.
#include <gtest/gtest.h>
#include <indelible/options.h>
#include <indelible/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <set>
#include <thread>
#include <vector>

#include "core/event_json.h"
#include "core/json_check.h"
#include "core/text.h"

namespace indelible {
namespace {

TEST(EventIdTest, ParsesOnlyTheCanonicalFormAndRoundTrips) {
  auto id = EventId::Parse("0D6F2A52-8c1e-4d3b-9a57-3c2b1e0f9a11");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->ToString(), "0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11");
  for (const char* bad :
       {"", "0d6f2a528c1e4d3b9a573c2b1e0f9a11", "{0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a11}",
        "0d6f2a52-8c1e-4d3b-9a57-3c2b1e0f9a1g", "0d6f2a52-8c1e-4d3b-9a57_3c2b1e0f9a11"}) {
    auto parsed = EventId::Parse(bad);
    EXPECT_EQ(parsed.status().code(), ErrorCode::kInvalid) << bad;
    EXPECT_EQ(parsed.status().field(), "id");
  }
  EventId a = EventId::Random(), b = EventId::Random();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.ToString()[14], '4');  // version 4
  EXPECT_TRUE(EventId().is_nil());
  EXPECT_EQ(EventId::Parse(a.ToString())->bytes(), a.bytes());
}

// Threads, processes and forked children each draw their own ids: a shared
// or small seed would hand two of them the same sequence.
TEST(EventIdTest, RandomIdsDifferAcrossThreadsAndForkedChildren) {
  constexpr int kThreads = 8, kEach = 20000;
  std::vector<std::vector<EventId>> made(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&made, t] {
      for (int i = 0; i < kEach; ++i) made[t].push_back(EventId::Random());
    });
  for (auto& thread : threads) thread.join();
  std::set<EventId> seen;
  for (const auto& ids : made)
    for (const EventId& id : ids) {
      EXPECT_TRUE(seen.insert(id).second) << id.ToString();
      EXPECT_EQ(id.bytes()[6] >> 4, 4);       // version 4
      EXPECT_EQ(id.bytes()[8] & 0xC0, 0x80);  // RFC 9562 variant
    }

  // A child made by fork() starts with a copy of this thread's pool: it must
  // not hand out the ids its parent will.
  (void)EventId::Random();
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const EventId id = EventId::Random();
    const bool sent = ::write(pipe_fds[1], id.bytes().data(), 16) == 16;
    ::_exit(sent ? 0 : 1);
  }
  const EventId parents = EventId::Random();
  std::array<std::uint8_t, 16> childs{};
  ASSERT_EQ(::read(pipe_fds[0], childs.data(), childs.size()), 16);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  EXPECT_NE(EventId(childs), parents);
}

TEST(TextTest, Utf8ValidationRejectsOverlongSurrogatesAndTruncation) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xE2\x82"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\x80"));              // lone continuation
  EXPECT_TRUE(HasControlCharacter("a\tb"));
  EXPECT_TRUE(HasControlCharacter("a\x7F"));
  EXPECT_TRUE(HasControlCharacter("a\xC2\x85"));  // U+0085, a C1 control
  EXPECT_FALSE(HasControlCharacter("a\xC2\xA0"));
  EXPECT_EQ(Printable("a\nb"), "a\\x0ab");
}

TEST(NamesTest, StreamNamesAndCategories) {
  EXPECT_TRUE(ValidateStreamName("BANK_ACCOUNT/123").ok());
  EXPECT_TRUE(ValidateStreamName(std::string(256, 'x')).ok());
  EXPECT_FALSE(ValidateStreamName(std::string(257, 'x')).ok());
  EXPECT_FALSE(ValidateStreamName("$parked-g").ok());
  EXPECT_TRUE(ValidateStreamName("$parked-g", true).ok());
  EXPECT_EQ(StreamCategory("account-42"), "account");
  EXPECT_EQ(StreamCategory("BANK_ACCOUNT/123"), "BANK_ACCOUNT");
  EXPECT_EQ(StreamCategory("a/b-c"), "a");
  EXPECT_EQ(StreamCategory("plain"), "plain");
  EXPECT_EQ(Expected::exactly(StreamVersion(4)).ToString(), "exactly 4");
  AllFilter filter;
  filter.categories = {"account"};
  filter.types = {"Deposited", "Withdrawn"};
  EXPECT_TRUE(filter.Matches("account-1", "Withdrawn"));
  EXPECT_FALSE(filter.Matches("account-1", "Opened"));
  EXPECT_FALSE(filter.Matches("accounting-1", "Deposited"));
}

TEST(JsonCheckTest, ValidatesWithoutBuildingADocument) {
  EXPECT_EQ(CheckJson(R"({"a":[1,2.5,"x",null,true]})"), "");
  EXPECT_EQ(CheckJson("42"), "");
  EXPECT_NE(CheckJson(""), "");
  EXPECT_NE(CheckJson("{\"a\":}"), "");
  EXPECT_NE(CheckJson("{} x"), "");
  EXPECT_EQ(CheckJson("{}", JsonShape::kObject), "");
  EXPECT_EQ(CheckJson("[]", JsonShape::kObject), "not a JSON object");
}

TEST(EventJsonTest, EventsRoundTripThroughTheExportForm) {
  RecordedEvent e{
      EventId::Random(),  "account-1",       StreamVersion(3),    Position(9),   "Deposited", "V1",
      "application/json", R"({"amount":5})", R"({"user":"ann"})", 1700000000123, {}};
  auto parsed = ExportedEventFromJson(EventToJson(e.view()));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->stream, "account-1");
  EXPECT_EQ(parsed->version.value(), 3);
  EXPECT_EQ(parsed->position.value(), 9u);
  EXPECT_EQ(parsed->event.id, e.id);
  EXPECT_EQ(parsed->event.data, e.data);
  EXPECT_EQ(parsed->event.metadata, e.metadata);
  EXPECT_EQ(parsed->event.schema, "V1");
  EXPECT_EQ(parsed->event.timestamp_ms, 1700000000123);

  RecordedEvent bytes = e;
  bytes.content_type = "application/octet-stream";
  bytes.data = std::string("\x00\xff\x10", 3);
  auto raw = ExportedEventFromJson(EventToJson(bytes.view()));
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(raw->event.data, bytes.data);
  EXPECT_EQ(raw->event.content_type, "application/octet-stream");
}

// An export line is the user's file: a number Boost.JSON reads as uint64
// (past int64) once ended `indelible import` with an uncaught exception
// (found by fuzz_event_json). Each is a clear error naming the field.
TEST(EventJsonTest, ExportLinesWithNumbersPastInt64AreInvalid) {
  for (const char* field : {"version", "position", "timestamp"}) {
    std::string line = R"({"type":"A","stream":"s-1","version":0,"position":1,"timestamp":1})";
    const std::string key = std::string("\"") + field + "\":";
    const auto at = line.find(key) + key.size();
    line.replace(at, line.find_first_of(",}", at) - at, "18446744073709551615");
    auto parsed = ExportedEventFromJson(line);
    ASSERT_FALSE(parsed.ok()) << line;
    EXPECT_EQ(parsed.status().code(), ErrorCode::kInvalid) << line;
    EXPECT_EQ(parsed.status().field(), field) << line;
  }
}

TEST(EventJsonTest, ClientEventsNameTheBadField) {
  auto ok = EventsFromJson(R"([{"type":"A"},{"type":"B","data":[1],"metadata":{"m":1}}])");
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].data, "null");
  EXPECT_EQ((*ok)[1].data, "[1]");
  EXPECT_EQ(EventsFromJson(R"([{"type":"A"},{"data":1}])").status().field(), "[1].type");
  EXPECT_EQ(EventsFromJson(R"({"type":"A","id":"nope"})").status().field(), "id");
  EXPECT_EQ(EventsFromJson(R"({"type":"A","metadata":[]})").status().field(), "metadata");
  EXPECT_EQ(EventsFromJson("{oops").status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(EventsFromJson("7").status().code(), ErrorCode::kInvalid);
}

// The body is parsed once (core/event_json.h): strings are decoded from
// their text, escapes included, and data and metadata are kept as sent,
// compacted, and valid JSON by construction (the server does not check
// them again).
TEST(EventJsonTest, OneParseKeepsWhatWasSent) {
  auto events = EventsFromJson(
      " [ {\"type\" : \"Caf\\u00e9\", \"sch\\u0065ma\":\"V\\\"2\", \"data\" : { \"n\" : 1.50 ,"
      " \"big\":123456789012345678901234567890, \"s\":\"a b\" } , \"metadata\": {\"k\": [ 1, 2 ]} "
      "} ] ");
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->size(), 1u);
  const EventData& e = (*events)[0];
  EXPECT_EQ(e.type, "Caf\xc3\xa9");
  EXPECT_EQ(e.schema, "V\"2");
  EXPECT_EQ(e.data, R"({"n":1.50,"big":123456789012345678901234567890,"s":"a b"})");
  EXPECT_EQ(e.metadata, R"({"k":[1,2]})");
  EXPECT_TRUE(CheckJson(e.data).empty());
  EXPECT_TRUE(CheckJson(e.metadata, JsonShape::kObject).empty());

  // A key sent twice, even spelled differently, is refused.
  EXPECT_EQ(EventsFromJson(R"({"type":"A","typ\u0065":"B"})").status().field(), "type");
  // A bad value anywhere in the body refuses the whole body.
  EXPECT_EQ(EventsFromJson(R"([{"type":"A"},{"type":"B","data":{"x":}}])").status().field(),
            "body");
  EXPECT_EQ(EventsFromJson(R"({"type":7})").status().field(), "type");
  EXPECT_EQ(EventsFromJson(R"({"type":"A","metadata":"m"})").status().field(), "metadata");
  auto no_metadata = EventsFromJson(R"({"type":"A","metadata":null})");
  ASSERT_TRUE(no_metadata.ok());
  EXPECT_EQ((*no_metadata)[0].metadata, "{}");
}

TEST(EventJsonTest, Base64DataDecodesWithAndWithoutPadding) {
  auto data_of = [](std::string_view base64) -> Result<std::string> {
    auto events =
        EventsFromJson(std::string(R"({"type":"Blob","contentType":"application/octet-stream",)") +
                       R"("dataEncoding":"base64","data":")" + std::string(base64) + "\"}");
    if (!events.ok()) return events.status();
    return (*events)[0].data;
  };
  EXPECT_EQ(*data_of("AAEC"), std::string("\x00\x01\x02", 3));
  EXPECT_EQ(*data_of("AAEC/w=="), std::string("\x00\x01\x02\xff", 4));
  EXPECT_EQ(*data_of("AAEC//8="), std::string("\x00\x01\x02\xff\xff", 5));
  EXPECT_EQ(*data_of(""), "");
  for (const char* bad : {"AAEC/w=", "AAEC/w===", "AA=C", "AAEC*w==", "AAEC/w==x"})
    EXPECT_EQ(data_of(bad).status().field(), "data") << bad;
}

}  // namespace
}  // namespace indelible

namespace indelible {
namespace {

TEST(HexTest, EncodesLowercaseAndDecodesEitherCase) {
  EXPECT_EQ(HexEncode(std::string("\x00\x9f\xff", 3)), "009fff");
  EXPECT_EQ(HexDecode("009fFF"), std::string("\x00\x9f\xff", 3));
  EXPECT_EQ(HexDecode(""), std::string());
  EXPECT_FALSE(HexDecode("abc").has_value());
  EXPECT_FALSE(HexDecode("zz").has_value());
}

}  // namespace
}  // namespace indelible
