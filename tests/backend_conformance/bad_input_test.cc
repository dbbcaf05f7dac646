// Bad input: each case is rejected with the right code and field, and
// nothing is written.
#include "backend_conformance/conformance.h"

namespace indelible::conformance {
namespace {

struct BadCase {
  std::string name;
  AppendRequest append;
  ErrorCode code;
  std::string field;  // substring of Status::field()
};

TEST_P(ConformanceTest, BadInputIsRejectedAndNothingIsWritten) {
  StoreOptions small;
  small.limits.max_event_bytes = 1000;
  small.limits.max_append_events = 5;
  small.limits.max_append_bytes = 2500;
  Open(small);
  Put("exists");
  auto with = [](std::function<void(EventData&)> edit) {
    EventData e = Event();
    edit(e);
    return std::vector<EventData>{e};
  };
  EventData dup = Event();
  const std::vector<BadCase> cases = {
      {"empty name", {"", Expected::any(), Events(1)}, ErrorCode::kInvalid, "stream"},
      {"long name",
       {std::string(257, 'a'), Expected::any(), Events(1)},
       ErrorCode::kInvalid,
       "stream"},
      {"bad utf8", {"bad\xC3(", Expected::any(), Events(1)}, ErrorCode::kInvalid, "stream"},
      {"overlong utf8", {"x\xC0\xAF", Expected::any(), Events(1)}, ErrorCode::kInvalid, "stream"},
      {"control char", {"bad\nname", Expected::any(), Events(1)}, ErrorCode::kInvalid, "stream"},
      {"reserved", {"$all", Expected::any(), Events(1)}, ErrorCode::kInvalid, "stream"},
      {"no events", {"s", Expected::any(), {}}, ErrorCode::kInvalid, "events"},
      {"empty type",
       {"s", Expected::any(), with([](EventData& e) { e.type = ""; })},
       ErrorCode::kInvalid,
       "type"},
      {"reserved type",
       {"s", Expected::any(), with([](EventData& e) { e.type = "$deleted"; })},
       ErrorCode::kInvalid,
       "type"},
      {"bad json",
       {"s", Expected::any(), with([](EventData& e) { e.data = "{\"a\":"; })},
       ErrorCode::kInvalid,
       "data"},
      {"trailing json",
       {"s", Expected::any(), with([](EventData& e) { e.data = "{} {}"; })},
       ErrorCode::kInvalid,
       "data"},
      {"metadata array",
       {"s", Expected::any(), with([](EventData& e) { e.metadata = "[]"; })},
       ErrorCode::kInvalid,
       "metadata"},
      {"event too large",
       {"s", Expected::any(),
        with([](EventData& e) { e.data = "\"" + std::string(1200, 'x') + "\""; })},
       ErrorCode::kTooLarge,
       "events[0]"},
      {"too many events", {"s", Expected::any(), Events(6)}, ErrorCode::kTooLarge, "events"},
      {"append too large",
       {"s", Expected::any(),
        [] {
          auto v = Events(4);
          for (auto& e : v) e.data = "\"" + std::string(700, 'y') + "\"";
          return v;
        }()},
       ErrorCode::kTooLarge,
       "events"},
      {"duplicate ids", {"s", Expected::any(), {dup, dup}}, ErrorCode::kInvalid, "id"},
      {"negative version",
       {"exists", Expected::exactly(StreamVersion(-1)), Events(1)},
       ErrorCode::kInvalid,
       "expected"},
  };
  const Position before = store().LastPosition();
  for (const BadCase& c : cases) {
    auto result = store().Commit({c.append});
    EXPECT_EQ(result.status().code(), c.code) << c.name << ": " << result.status().ToString();
    EXPECT_NE(result.status().field().find(c.field), std::string::npos)
        << c.name << ": field '" << result.status().field() << "'";
    EXPECT_FALSE(result.status().message().empty()) << c.name;
  }
  EXPECT_EQ(store().LastPosition(), before);
  EXPECT_EQ(store().Head("s").status().code(), ErrorCode::kNotFound);
  // Arbitrary bytes are fine under another content type.
  EventData bytes = Event();
  bytes.content_type = "application/octet-stream";
  bytes.data = "{not json";
  EXPECT_TRUE(store().Append("s", Expected::any(), {bytes}).ok());
}

// Reads name the malformed stream name as invalid (not "not found", which
// would hide the caller's bug); the store's reserved names stay readable.
TEST_P(ConformanceTest, ReadsOfMalformedStreamNamesAreInvalid) {
  for (const std::string& name :
       {std::string(), std::string(257, 'a'), std::string("bad\xC3("), std::string("bad\nname")}) {
    EXPECT_EQ(store().Head(name).status().code(), ErrorCode::kInvalid) << name;
    EXPECT_EQ(store().Head(name).status().field(), "stream") << name;
    EXPECT_EQ(store().ReadStream(name).status().code(), ErrorCode::kInvalid) << name;
  }
  EXPECT_EQ(store().Head("$parked-x").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store().ReadStream("$parked-x").status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace indelible::conformance
