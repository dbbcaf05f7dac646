// Transform: the declarative upcaster's renames, defaults and JSON Patch.
#include "schemas/transform.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace indelible::schemas {
namespace {

using Json = nlohmann::json;

std::shared_ptr<const Transform> MustParse(std::string_view renames, std::string_view defaults,
                                           std::string_view patch) {
  auto transform = Transform::Parse(renames, defaults, patch);
  EXPECT_TRUE(transform.ok()) << transform.status().message();
  return transform.ok() ? *transform : nullptr;
}

// The data after the transform, parsed; null (and a failure) on an error.
Json Applied(const std::shared_ptr<const Transform>& transform, std::string_view data) {
  if (transform == nullptr) return nullptr;
  auto out = transform->Apply(data);
  EXPECT_TRUE(out.ok()) << out.status().message();
  return out.ok() ? Json::parse(*out) : Json();
}

Status ApplyError(const std::shared_ptr<const Transform>& transform, std::string_view data) {
  if (transform == nullptr) return Status::Internal("no transform");
  auto out = transform->Apply(data);
  EXPECT_FALSE(out.ok()) << "applied: " << *out;
  return out.ok() ? Status::Ok() : out.status();
}

TEST(TransformTest, EmptyTransformKeepsNumbersAndStrings) {
  auto empty = MustParse("{}", "{}", "[]");
  std::string data = R"({
    "zero": 0, "int": 42, "negative": -17,
    "int64_max": 9223372036854775807, "int64_min": -9223372036854775808,
    "uint64_max": 18446744073709551615,
    "tenth": 0.1, "huge": 1e300, "tiny": -2.5e-8, "half": 0.5,
    "unicode": "héllo ✓ 😀 \u00e9\ud83d\ude00",
    "escaped": "tab\t quote\" backslash\\ control\u0001 slash\/ newline\n",
    "nested": [true, false, null, {"k": [1, 2.25]}]
  })";
  Json out = Applied(empty, data);
  EXPECT_EQ(out, Json::parse(data));
  EXPECT_TRUE(out["int64_max"].is_number_integer());
  EXPECT_EQ(out["int64_min"].get<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_TRUE(out["uint64_max"].is_number_unsigned());
  EXPECT_EQ(out["uint64_max"].get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(out["tenth"].get<double>(), 0.1);
  EXPECT_EQ(out["huge"].get<double>(), 1e300);
  EXPECT_EQ(out["unicode"].get<std::string>(), "héllo ✓ 😀 é😀");
  EXPECT_EQ(out["escaped"].get<std::string>(),
            "tab\t quote\" backslash\\ control\x01 slash/ newline\n");

  // Compact, as written when keys are in order; strings stay UTF-8.
  auto text = empty->Apply(R"({"a": 1, "b": [true, null, "x\u00e9\n"], "c": -2.5, "d": 0.1})");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "{\"a\":1,\"b\":[true,null,\"xé\\n\"],\"c\":-2.5,\"d\":0.1}");
}

TEST(TransformTest, ObjectKeysComeOutSorted) {
  auto text = MustParse("{}", "{}", "[]")->Apply(R"({"b": 1, "a": {"y": 2, "x": 3}})");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, R"({"a":{"x":3,"y":2},"b":1})");
}

TEST(TransformTest, IntegersBeyond64BitsBecomeDoubles) {
  auto text = MustParse("{}", "{}", "[]")->Apply(R"({"big": 123456789012345678901234567890})");
  ASSERT_TRUE(text.ok());
  Json out = Json::parse(*text);
  EXPECT_TRUE(out["big"].is_number_float());
  EXPECT_EQ(out["big"].get<double>(), 123456789012345678901234567890.0);
}

TEST(TransformTest, RenamesMoveValues) {
  auto renames =
      MustParse(R"({"/amt": "/amount", "/missing": "/never", "/a": "/b/c/d"})", "{}", "[]");
  EXPECT_EQ(Applied(renames, R"({"amt": 5, "a": {"k": [1]}, "x": 1})"),
            Json::parse(R"({"amount": 5, "b": {"c": {"d": {"k": [1]}}}, "x": 1})"));
  // A target that is there is replaced, as a JSON Patch move would.
  EXPECT_EQ(Applied(renames, R"({"amt": 5, "amount": 7, "b": {"z": 0}})"),
            Json::parse(R"({"amount": 5, "b": {"z": 0}})"));
}

TEST(TransformTest, RenamesApplyInTheOrderWritten) {
  // Sorted, "/a" would go first and "/b"'s value would be lost.
  auto renames = MustParse(R"({"/b": "/c", "/a": "/b"})", "{}", "[]");
  EXPECT_EQ(Applied(renames, R"({"a": 1, "b": 2})"), Json::parse(R"({"b": 1, "c": 2})"));
}

TEST(TransformTest, RenameFromAnArrayAndIntoExistingArrayElements) {
  auto renames = MustParse(R"({"/items/0": "/first", "/rest/1/n": "/rest/0/n"})", "{}", "[]");
  EXPECT_EQ(Applied(renames, R"({"items": ["a", "b"], "rest": [{}, {"n": 1}]})"),
            Json::parse(R"({"first": "a", "items": ["b"], "rest": [{"n": 1}, {}]})"));
}

TEST(TransformTest, RenameRefusesATargetBelowAScalar) {
  auto renames = MustParse(R"({"/a": "/b/c"})", "{}", "[]");
  Status status = ApplyError(renames, R"({"a": 1, "b": 2})");
  EXPECT_EQ(status.code(), ErrorCode::kInvalid);
  EXPECT_EQ(status.field(), "renames");
  EXPECT_EQ(status.message(), "renames['/a']: cannot set '/b/c': '/b' is not an object");
}

TEST(TransformTest, DefaultsFillWhatIsMissing) {
  auto defaults = MustParse(
      "{}", R"({"/channel": "web", "/note": "x", "/meta/source": {"kind": "import"}})", "[]");
  EXPECT_EQ(
      Applied(defaults, R"({"note": null})"),
      Json::parse(R"({"channel": "web", "note": null, "meta": {"source": {"kind": "import"}}})"));
  EXPECT_EQ(Applied(defaults, R"({"channel": "app", "meta": {"source": 1, "other": 2}})"),
            Json::parse(R"({"channel": "app", "note": "x", "meta": {"source": 1, "other": 2}})"));
}

TEST(TransformTest, DefaultsStepIntoArrayElements) {
  auto defaults = MustParse("{}", R"({"/items/0/qty": 1})", "[]");
  EXPECT_EQ(Applied(defaults, R"({"items": [{"sku": "a"}, {}]})"),
            Json::parse(R"({"items": [{"sku": "a", "qty": 1}, {}]})"));
  Status status = ApplyError(defaults, R"({"items": []})");
  EXPECT_EQ(status.field(), "defaults");
  EXPECT_EQ(status.message(), "defaults['/items/0/qty']: '/items' is an array without element '0'");
}

TEST(TransformTest, DefaultsRefuseAParentThatIsNotAnObject) {
  auto defaults = MustParse("{}", R"({"/a/b": 1})", "[]");
  for (const char* data : {R"({"a": 5})", R"({"a": [1]})", R"({"a": null})"}) {
    Status status = ApplyError(defaults, data);
    EXPECT_EQ(status.code(), ErrorCode::kInvalid) << data;
    EXPECT_EQ(status.field(), "defaults");
    EXPECT_EQ(status.message(), "defaults['/a/b']: '/a' is not an object") << data;
  }
  EXPECT_EQ(ApplyError(defaults, "[1, 2]").message(),
            "defaults['/a/b']: the data is an array without element 'a'");
  EXPECT_EQ(ApplyError(MustParse("{}", R"({"/a": 1})", "[]"), "5").message(),
            "defaults['/a']: the data is not an object");
}

TEST(TransformTest, PointersWithEscapes) {
  auto transform = MustParse(R"({"/a~1b": "/c~0d/e~1f"})", R"({"/x~1y/~0": true})",
                             R"([{"op": "add", "path": "/m~1n", "value": {"~": 1}},
                                 {"op": "replace", "path": "/m~1n/~0", "value": 2}])");
  EXPECT_EQ(Applied(transform, R"({"a/b": 1})"),
            Json::parse(R"({"c~d": {"e/f": 1}, "x/y": {"~": true}, "m/n": {"~": 2}})"));
}

TEST(TransformTest, EveryPatchOperation) {
  auto patch = MustParse("{}", "{}", R"([
    {"op": "test", "path": "/items/1/sku", "value": "b"},
    {"op": "add", "path": "/items/1", "value": {"sku": "new"}},
    {"op": "add", "path": "/items/-", "value": {"sku": "last"}},
    {"op": "remove", "path": "/items/0"},
    {"op": "replace", "path": "/items/0/sku", "value": "NEW"},
    {"op": "move", "from": "/items/2", "path": "/moved"},
    {"op": "copy", "from": "/moved/sku", "path": "/copied"},
    {"op": "test", "path": "/items", "value": [{"sku": "NEW"}, {"sku": "b"}]},
    {"op": "add", "path": "/total", "value": 2},
    {"op": "remove", "path": "/gone"}
  ])");
  EXPECT_EQ(Applied(patch, R"({"items": [{"sku": "a"}, {"sku": "b"}], "gone": 1})"),
            Json::parse(R"({"items": [{"sku": "NEW"}, {"sku": "b"}],
                            "moved": {"sku": "last"}, "copied": "last", "total": 2})"));
}

TEST(TransformTest, PatchOnTheWholeData) {
  auto replace = MustParse("{}", "{}", R"([{"op": "replace", "path": "", "value": {"v": 2}}])");
  EXPECT_EQ(Applied(replace, R"({"v": 1})"), Json::parse(R"({"v": 2})"));
  auto test = MustParse("{}", "{}", R"([{"op": "test", "path": "", "value": {"b": 2, "a": 1}}])");
  EXPECT_EQ(Applied(test, R"({"a": 1, "b": 2})"), Json::parse(R"({"a": 1, "b": 2})"));
}

TEST(TransformTest, FailingTestIsInvalid) {
  auto patch = MustParse("{}", "{}", R"([{"op": "add", "path": "/x", "value": 0},
                                         {"op": "test", "path": "/a", "value": 1}])");
  Status status = ApplyError(patch, R"({"a": 2})");
  EXPECT_EQ(status.code(), ErrorCode::kInvalid);
  EXPECT_EQ(status.field(), "patch");
  EXPECT_EQ(status.message(), "patch[1]: test failed at '/a': found 2, expected 1");
  EXPECT_EQ(ApplyError(patch, "{}").message(),
            "patch[1]: test failed: nothing at '/a', expected 1");
  // Numbers are equal by value, and 1.0 is 1.
  EXPECT_EQ(Applied(patch, R"({"a": 1.0})"), Json::parse(R"({"a": 1.0, "x": 0})"));
}

TEST(TransformTest, MissingPathsAreInvalid) {
  struct Case {
    const char* op;
    const char* data;
    const char* message;
  };
  const Case cases[] = {
      {R"({"op": "remove", "path": "/a"})", "{}", "patch[0]: remove: nothing at '/a'"},
      {R"({"op": "remove", "path": "/a/b"})", R"({"a": 5})", "patch[0]: remove: nothing at '/a/b'"},
      {R"({"op": "replace", "path": "/a", "value": 1})", "{}",
       "patch[0]: replace at '/a': key 'a' not found"},
      {R"({"op": "add", "path": "/a/b", "value": 1})", "{}",
       "patch[0]: add at '/a/b': key 'a' not found"},
      {R"({"op": "add", "path": "/a/b", "value": 1})", R"({"a": 5})",
       "patch[0]: add at '/a/b': '/a' is not an object or an array"},
      {R"({"op": "add", "path": "/a/b", "value": 1})", R"({"a": null})",
       "patch[0]: add at '/a/b': '/a' is not an object or an array"},
      {R"({"op": "add", "path": "/a/5", "value": 1})", R"({"a": [1]})",
       "patch[0]: add at '/a/5': array index 5 is out of range"},
      {R"({"op": "replace", "path": "/a/-", "value": 1})", R"({"a": [1]})",
       "patch[0]: replace at '/a/-': array index '-' (1) is out of range"},
      {R"({"op": "move", "from": "/a", "path": "/b"})", "{}", "patch[0]: move: nothing at '/a'"},
      {R"({"op": "copy", "from": "/a", "path": "/b"})", "{}", "patch[0]: copy: nothing at '/a'"},
      {R"({"op": "copy", "from": "/a", "path": "/b/c"})", R"({"a": 1, "b": "s"})",
       "patch[0]: copy at '/b/c': '/b' is not an object or an array"},
      // After the remove, /arr/1 is the 7: a move checks the parent then.
      {R"({"op": "move", "from": "/arr/0", "path": "/arr/1/x"})", R"({"arr": [5, {}, 7]})",
       "patch[0]: move at '/arr/1/x': '/arr/1' is not an object or an array"},
  };
  for (const Case& c : cases) {
    auto patch = MustParse("{}", "{}", std::string("[") + c.op + "]");
    Status status = ApplyError(patch, c.data);
    EXPECT_EQ(status.code(), ErrorCode::kInvalid) << c.op;
    EXPECT_EQ(status.field(), "patch") << c.op;
    EXPECT_EQ(status.message(), c.message) << c.op << " on " << c.data;
  }
}

TEST(TransformTest, PartsApplyInOrder) {
  // The rename makes /b, so the default for /b does not apply, and the
  // patch sees both.
  auto transform = MustParse(R"({"/a": "/b"})", R"({"/b": 0, "/c": 3})",
                             R"([{"op": "test", "path": "/b", "value": 1},
                                 {"op": "test", "path": "/c", "value": 3},
                                 {"op": "remove", "path": "/c"}])");
  EXPECT_EQ(Applied(transform, R"({"a": 1})"), Json::parse(R"({"b": 1})"));
  // Without /a, the default fills /b and the patch's test refuses it.
  EXPECT_EQ(ApplyError(transform, "{}").message(),
            "patch[0]: test failed at '/b': found 0, expected 1");
}

TEST(TransformTest, RealisticUpcast) {
  // V1 {"amt": 5, "cur": "EUR"} to V2 {"amount": {"value": 5, "currency":
  // "EUR"}, "channel": "web"}.
  auto v1_to_v2 = MustParse(R"({"/amt": "/amount/value", "/cur": "/amount/currency"})",
                            R"({"/channel": "web", "/amount/currency": "EUR"})",
                            R"([{"op": "test", "path": "/amount/value", "value": 5},
                                {"op": "remove", "path": "/legacy"}])");
  auto out = v1_to_v2->Apply(R"({"amt": 5, "cur": "EUR", "legacy": true})");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, R"({"amount":{"currency":"EUR","value":5},"channel":"web"})");

  auto general = MustParse(R"({"/amt": "/amount/value", "/cur": "/amount/currency"})",
                           R"({"/channel": "web", "/amount/currency": "EUR"})", "[]");
  EXPECT_EQ(Applied(general, R"({"amt": 5, "cur": "EUR"})"),
            Json::parse(R"({"amount": {"value": 5, "currency": "EUR"}, "channel": "web"})"));
  EXPECT_EQ(Applied(general, R"({"amt": 12.5, "cur": "USD", "channel": "app"})"),
            Json::parse(R"({"amount": {"value": 12.5, "currency": "USD"}, "channel": "app"})"));
  // A V1 event written without a currency gets the default.
  EXPECT_EQ(Applied(general, R"({"amt": 7})"),
            Json::parse(R"({"amount": {"value": 7, "currency": "EUR"}, "channel": "web"})"));
}

TEST(TransformTest, BadTransformsAreRefusedAtParse) {
  struct Case {
    const char* renames;
    const char* defaults;
    const char* patch;
    const char* field;
    const char* message;  // the start of the message
  };
  const Case cases[] = {
      {"{", "{}", "[]", "renames", "renames: not JSON ("},
      {"", "{}", "[]", "renames", "renames: not JSON ("},
      {"[]", "{}", "[]", "renames", "renames: not an object"},
      {R"({"/a": 1})", "{}", "[]", "renames",
       "renames['/a']: target is not a JSON Pointer (not a string)"},
      {R"({"/a": "b"})", "{}", "[]", "renames",
       "renames['/a']: target is not a JSON Pointer ('b': "},
      {R"({"/a": "/b~2"})", "{}", "[]", "renames",
       "renames['/a']: target is not a JSON Pointer ('/b~2': "},
      {R"({"a": "/b"})", "{}", "[]", "renames",
       "renames['a']: source is not a JSON Pointer ('a': "},
      {R"({"": "/b"})", "{}", "[]", "renames", "renames['']: source is \"\", the whole data"},
      {R"({"/a": ""})", "{}", "[]", "renames", "renames['/a']: target is \"\", the whole data"},
      {R"({"/a": "/a"})", "{}", "[]", "renames", "renames['/a']: target is the source"},
      {R"({"/a": "/a/b"})", "{}", "[]", "renames",
       "renames['/a']: target '/a/b' is inside the source"},
      {"{}", "1", "[]", "defaults", "defaults: not an object"},
      {"{}", "{] ", "[]", "defaults", "defaults: not JSON ("},
      {"{}", R"({"x": 1})", "[]", "defaults",
       "defaults['x']: the key is not a JSON Pointer ('x': "},
      {"{}", R"({"/~": 1})", "[]", "defaults", "defaults['/~']: the key is not a JSON Pointer"},
      {"{}", R"({"": 1})", "[]", "defaults", "defaults['']: the key is \"\", the whole data"},
      {"{}", "{}", "{}", "patch", "patch: not an array of RFC 6902 operations"},
      {"{}", "{}", "[", "patch", "patch: not JSON ("},
      {"{}", "{}", "[1]", "patch", "patch[0]: not an object"},
      {"{}", "{}", R"([{"path": "/a"}])", "patch", "patch[0]: needs 'op', a string"},
      {"{}", "{}", R"([{"op": 1, "path": "/a"}])", "patch", "patch[0]: needs 'op', a string"},
      {"{}", "{}",
       R"([{"op": "test", "path": "/a", "value": 1}, {"op": "remove", "path": "/a"},
           {"op": "mvoe", "from": "/a", "path": "/b"}])",
       "patch", "patch[2]: op 'mvoe' is not an RFC 6902 operation"},
      {"{}", "{}", R"([{"op": "remove"}])", "patch",
       "patch[0]: op 'remove' needs 'path', a JSON Pointer string"},
      {"{}", "{}", R"([{"op": "remove", "path": 3}])", "patch",
       "patch[0]: op 'remove' needs 'path', a JSON Pointer string"},
      {"{}", "{}", R"([{"op": "remove", "path": "a"}])", "patch",
       "patch[0]: 'path' is not a JSON Pointer ('a': "},
      {"{}", "{}", R"([{"op": "add", "path": "/a"}])", "patch", "patch[0]: op 'add' needs 'value'"},
      {"{}", "{}", R"([{"op": "replace", "path": "/a"}])", "patch",
       "patch[0]: op 'replace' needs 'value'"},
      {"{}", "{}", R"([{"op": "test", "path": "/a"}])", "patch",
       "patch[0]: op 'test' needs 'value'"},
      {"{}", "{}", R"([{"op": "move", "path": "/a"}])", "patch",
       "patch[0]: op 'move' needs 'from', a JSON Pointer string"},
      {"{}", "{}", R"([{"op": "copy", "path": "/a", "from": "x"}])", "patch",
       "patch[0]: 'from' is not a JSON Pointer ('x': "},
      {"{}", "{}", R"([{"op": "remove", "path": ""}])", "patch",
       "patch[0]: op 'remove' cannot remove the whole data"},
      {"{}", "{}", R"([{"op": "move", "from": "/a", "path": "/a/b"}])", "patch",
       "patch[0]: op 'move' from '/a' into itself ('/a/b')"},
  };
  for (const Case& c : cases) {
    auto transform = Transform::Parse(c.renames, c.defaults, c.patch);
    ASSERT_FALSE(transform.ok()) << c.renames << " " << c.defaults << " " << c.patch;
    EXPECT_EQ(transform.status().code(), ErrorCode::kInvalid);
    EXPECT_EQ(transform.status().field(), c.field) << c.message;
    EXPECT_TRUE(transform.status().message().starts_with(c.message))
        << transform.status().message() << "\nexpected to start with: " << c.message;
  }
}

TEST(TransformTest, DataThatIsNotJsonIsInvalid) {
  auto transform = MustParse(R"({"/a": "/b"})", "{}", "[]");
  for (std::string data : {"", "{", "nan", "{} x", "{'a': 1}", "\"\xff\"", "[1,]"}) {
    Status status = ApplyError(transform, data);
    EXPECT_EQ(status.code(), ErrorCode::kInvalid) << data;
    EXPECT_EQ(status.field(), "data") << data;
    EXPECT_TRUE(status.message().starts_with("data is not JSON (")) << status.message();
  }
}

TEST(TransformTest, DeepNestingIsRefusedNotOverflowed) {
  auto empty = MustParse("{}", "{}", "[]");
  std::string deep(200'000, '[');
  Status status = ApplyError(empty, deep + std::string(200'000, ']'));
  EXPECT_EQ(status.message(), "data nested deeper than 512 levels");
  std::string fine = std::string(100, '[') + std::string(100, ']');
  auto out = empty->Apply(fine);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, fine);
  EXPECT_FALSE(Transform::Parse("{}", "{}", deep).ok());
}

TEST(TransformTest, ManyThreadsApplyOneTransform) {
  auto transform = MustParse(R"({"/amt": "/amount/value"})", R"({"/channel": "web"})",
                             R"([{"op": "copy", "from": "/amount/value", "path": "/copy"}])");
  ASSERT_NE(transform, nullptr);
  constexpr int kThreads = 8;
  constexpr int kEach = 300;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        int amount = t * kEach + i;
        auto out = transform->Apply(R"({"amt": )" + std::to_string(amount) + "}");
        std::string expected = R"({"amount":{"value":)" + std::to_string(amount) +
                               R"(},"channel":"web","copy":)" + std::to_string(amount) + "}";
        if (!out.ok() || *out != expected) ++wrong[t];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// Not a timed assertion: prints what one Apply costs on a ~200-byte event,
// for the record (the dev preset is a debug ASan build: expect it slow).
TEST(TransformCost, ApplyOnATypicalEvent) {
  auto transform = MustParse(R"({"/amt": "/amount"})", R"({"/channel": "web"})",
                             R"([{"op": "replace", "path": "/status", "value": "paid"}])");
  ASSERT_NE(transform, nullptr);
  std::string event =
      R"({"orderId":"ord-2026-000123","customer":{"id":"cus-42","name":"Ada Lovelace"},)"
      R"("amt":1999,"currency":"EUR","status":"new","items":[{"sku":"book-1","qty":2},)"
      R"({"sku":"pen-7","qty":1}],"placedAt":"2026-11-28T21:00:00Z"})";
  ASSERT_GT(event.size(), 190u);
  constexpr int kRounds = 2000;
  auto start = std::chrono::steady_clock::now();
  std::size_t bytes = 0;
  for (int i = 0; i < kRounds; ++i) {
    auto out = transform->Apply(event);
    ASSERT_TRUE(out.ok());
    bytes += out->size();
  }
  auto elapsed = std::chrono::steady_clock::now() - start;
  double micros = std::chrono::duration<double, std::micro>(elapsed).count() / kRounds;
  std::printf("Transform::Apply, %zu-byte event, 1 rename + 1 default + 1 patch op: %.2f us\n",
              event.size(), micros);
  EXPECT_GT(bytes, 0u);
}

}  // namespace
}  // namespace indelible::schemas
