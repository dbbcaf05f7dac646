// JsonSchema: Compile's drafts and refusals, Validate's pointers and rule
// texts, and many threads validating with one compiled schema.
#include "schemas/json_schema.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace indelible::schemas {
namespace {

std::shared_ptr<const JsonSchema> MustCompile(std::string_view schema) {
  auto compiled = JsonSchema::Compile(schema);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  return compiled.ok() ? *compiled : nullptr;
}

// The refusal's message; fails the test when Compile accepts.
std::string Refusal(std::string_view schema) {
  auto compiled = JsonSchema::Compile(schema);
  EXPECT_FALSE(compiled.ok()) << schema;
  if (compiled.ok()) return "";
  EXPECT_EQ(compiled.status().code(), ErrorCode::kInvalid);
  EXPECT_EQ(compiled.status().field(), "schema");
  return compiled.status().message();
}

// "pointer -> rule", or "valid".
std::string Check(const JsonSchema& schema, std::string_view document) {
  auto failure = schema.Validate(document);
  return failure ? failure->pointer + " -> " + failure->rule : "valid";
}

constexpr std::string_view kOrder = R"({
  "type": "object",
  "required": ["id", "amount"],
  "properties": {
    "id": {"type": "string", "minLength": 3},
    "amount": {"type": "number", "minimum": 5},
    "currency": {"enum": ["EUR", "USD"]},
    "customer": {
      "type": "object",
      "properties": {"address": {"type": "object", "required": ["city"],
                                 "properties": {"city": {"type": "string"}}}}
    },
    "items": {"type": "array", "maxItems": 3,
              "items": {"type": "object", "properties": {"price": {"type": "number"}}}},
    "a/b": {"type": "integer"},
    "m~n": {"type": "integer"}
  }
})";

TEST(JsonSchemaCompile, DraftIsChosenByDollarSchemaAndDefaultsToDraft07) {
  EXPECT_EQ(MustCompile(R"({"type": "string"})")->draft(), "draft-07");
  EXPECT_EQ(MustCompile(R"({"$schema": "http://json-schema.org/draft-07/schema#"})")->draft(),
            "draft-07");
  EXPECT_EQ(MustCompile(R"({"$schema": "http://json-schema.org/draft-04/schema#"})")->draft(),
            "draft-04");
  EXPECT_EQ(MustCompile(R"({"$schema": "https://json-schema.org/draft-04/schema"})")->draft(),
            "draft-04");
}

TEST(JsonSchemaCompile, TheDraftDecidesWhatAKeywordMeans) {
  // exclusiveMinimum is a boolean beside minimum in draft-04, a number in draft-07.
  auto draft04 = MustCompile(R"({"$schema": "http://json-schema.org/draft-04/schema#",
                                 "minimum": 5, "exclusiveMinimum": true})");
  EXPECT_EQ(Check(*draft04, "5"), " -> exclusiveMinimum: 5 is not greater than 5");
  EXPECT_EQ(Check(*draft04, "6"), "valid");
  EXPECT_NE(Refusal(R"({"minimum": 5, "exclusiveMinimum": true})"), "");
  auto draft07 = MustCompile(R"({"exclusiveMinimum": 5})");
  EXPECT_EQ(Check(*draft07, "5"), " -> exclusiveMinimum: 5 is not greater than 5");
  // Boolean schemas are draft-07's.
  EXPECT_EQ(Check(*MustCompile(R"({"properties": {"x": false}})"), R"({"x": 1})"),
            " -> properties: 'x' does not match its schema");
  EXPECT_NE(Refusal(R"({"$schema": "http://json-schema.org/draft-04/schema#",
                        "properties": {"x": false}})"),
            "");
}

TEST(JsonSchemaCompile, RefusesOtherDraftsNamingTheSupportedOnes) {
  for (std::string_view uri :
       {"http://json-schema.org/draft-03/schema#", "http://json-schema.org/draft-06/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema", "urn:mine"}) {
    const std::string message =
        Refusal(std::string(R"({"$schema": ")") + std::string(uri) + R"(", "type": "string"})");
    EXPECT_NE(message.find(std::string(uri)), std::string::npos) << message;
    EXPECT_NE(message.find("draft-04"), std::string::npos) << message;
    EXPECT_NE(message.find("draft-07"), std::string::npos) << message;
  }
  EXPECT_EQ(Refusal(R"({"$schema": 7})"), "$schema must be a string");
}

TEST(JsonSchemaCompile, RefusesWhatIsNotASchema) {
  EXPECT_EQ(Refusal(R"({"type": )").rfind("not JSON: ", 0), 0u);
  EXPECT_EQ(Refusal("[1, 2]"), "a schema is a JSON object or a boolean, not array");
  EXPECT_EQ(Refusal(R"("string")"), "a schema is a JSON object or a boolean, not string");
  EXPECT_NE(Refusal(R"({"maxLength": "ten"})").find("maxLength"), std::string::npos);
  EXPECT_NE(Refusal(R"({"properties": {"a": 3}})"), "");
  EXPECT_NE(Refusal(R"({"$ref": "#/definitions/missing"})"), "");
  EXPECT_NE(Refusal(R"({"pattern": "(unclosed"})").find("pattern: '(unclosed'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"patternProperties": {"[z-a]": {}}})").find("patternProperties"),
            std::string::npos);
  // Depth is bounded before valijson recurses into it.
  EXPECT_NE(Refusal(std::string(300, '[') + std::string(300, ']')).find("nested more than"),
            std::string::npos);
}

TEST(JsonSchemaCompile, APatternInDataIsNotASchema) {
  auto schema = MustCompile(R"({"enum": [{"pattern": "(unclosed"}]})");
  EXPECT_EQ(Check(*schema, R"({"pattern": "(unclosed"})"), "valid");
  EXPECT_EQ(Check(*schema, R"({"pattern": "x"})"), " -> enum: not one of the allowed values");
  // A $ref can make a schema of a name map; its pattern is compiled too.
  auto map = MustCompile(R"({"definitions": {"pattern": "^a$"}, "$ref": "#/definitions"})");
  EXPECT_EQ(Check(*map, R"("a")"), "valid");
  EXPECT_EQ(Check(*map, R"("b")"), " -> pattern: does not match the pattern");
}

TEST(JsonSchemaCompile, ResolvesLocalRefsAndRefusesRemoteOnes) {
  auto schema = MustCompile(R"({
    "definitions": {"money": {"type": "object", "required": ["amount"],
                              "properties": {"amount": {"type": "number"}}}},
    "properties": {"price": {"$ref": "#/definitions/money"}}
  })");
  EXPECT_EQ(Check(*schema, R"({"price": {"amount": 3}})"), "valid");
  EXPECT_EQ(Check(*schema, R"({"price": {"amount": "3"}})"),
            "/price/amount -> type: expected number, got string");
  const std::string message =
      Refusal(R"({"properties": {"a": {"$ref": "http://example.com/money.json#/x"}}})");
  EXPECT_NE(message.find("'http://example.com/money.json' is remote"), std::string::npos)
      << message;
  EXPECT_NE(message.find("#/definitions/"), std::string::npos) << message;
}

TEST(JsonSchemaValidate, BooleanSchemas) {
  EXPECT_EQ(Check(*MustCompile("true"), R"({"anything": [1]})"), "valid");
  EXPECT_EQ(Check(*MustCompile("false"), "1"),
            " -> schema: the document does not match (a false schema or propertyNames)");
  EXPECT_EQ(Check(*MustCompile(R"({"propertyNames": {"maxLength": 2}})"), R"({"abc": 1})"),
            " -> schema: the document does not match (a false schema or propertyNames)");
}

TEST(JsonSchemaValidate, PointersReachNestedObjectsArraysAndEscapedKeys) {
  auto schema = MustCompile(kOrder);
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "customer": {"address": {"city": "Oslo"}},
                               "items": [{"price": 1}], "a/b": 1, "m~n": 2})"),
            "valid");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "customer": {"address": {}}})"),
            "/customer/address -> required: property 'city' is missing");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "customer": {"address": {"city": 4}}})"),
            "/customer/address/city -> type: expected string, got integer");
  EXPECT_EQ(
      Check(*schema, R"({"id": "abc", "amount": 7, "items": [{"price": 1}, {"price": "1"}]})"),
      "/items/1/price -> type: expected number, got string");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "a/b": 1.5})"),
            "/a~1b -> type: expected integer, got number");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "m~n": "x"})"),
            "/m~0n -> type: expected integer, got string");
}

TEST(JsonSchemaValidate, RulesNameTheKeyword) {
  auto schema = MustCompile(kOrder);
  EXPECT_EQ(Check(*schema, R"({"id": "abc"})"), " -> required: property 'amount' is missing");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": "7"})"),
            "/amount -> type: expected number, got string");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 3})"),
            "/amount -> minimum: 3 is less than 5");
  EXPECT_EQ(Check(*schema, R"({"id": "ab", "amount": 7})"),
            "/id -> minLength: shorter than 3 characters");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "currency": "NOK"})"),
            "/currency -> enum: not one of the allowed values");
  EXPECT_EQ(Check(*schema, R"({"id": "abc", "amount": 7, "items": [{}, {}, {}, {}]})"),
            "/items -> maxItems: more than 3 items");
  EXPECT_EQ(Check(*schema, "[]"), " -> type: expected object, got array");

  auto closed = MustCompile(R"({"properties": {"a": {}}, "additionalProperties": false,
                                "patternProperties": {"^x-": {"type": "string"}}})");
  EXPECT_EQ(Check(*closed, R"({"a": 1, "x-y": "z"})"), "valid");
  EXPECT_EQ(Check(*closed, R"({"a": 1, "b": 2})"),
            " -> additionalProperties: property 'b' is not allowed");
  auto pattern = MustCompile(R"({"pattern": "^[a-z]+$", "maxLength": 4})");
  EXPECT_EQ(Check(*pattern, R"("abc")"), "valid");
  EXPECT_EQ(Check(*pattern, R"("ab1")"), " -> pattern: does not match the pattern");
  EXPECT_EQ(Check(*MustCompile(R"({"uniqueItems": true})"), "[1, 2, 1]"),
            " -> uniqueItems: items 0 and 2 are equal");
  EXPECT_EQ(Check(*MustCompile(R"({"multipleOf": 0.5})"), "1.25"),
            " -> multipleOf: 1.25 is not a multiple of 0.5");
  EXPECT_EQ(Check(*MustCompile(R"({"maximum": 2.5})"), "3"), " -> maximum: 3 is greater than 2.5");
}

TEST(JsonSchemaValidate, AFailedAnyOfIsReportedRatherThanOneOfItsBranches) {
  auto schema = MustCompile(R"({"properties": {"v": {"anyOf": [{"type": "string"},
                                                                 {"type": "null"}]}}})");
  EXPECT_EQ(Check(*schema, R"({"v": null})"), "valid");
  EXPECT_EQ(Check(*schema, R"({"v": 1})"), "/v -> anyOf: matches none of the schemas");
  auto one = MustCompile(R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})");
  EXPECT_EQ(Check(*one, "1"), " -> oneOf: matches more than one schema");
  // allOf adds nothing of its own: the failing branch's rule is the answer.
  auto all = MustCompile(R"({"allOf": [{"required": ["a"]}, {"required": ["b"]}]})");
  EXPECT_EQ(Check(*all, R"({"a": 1})"), " -> required: property 'b' is missing");
}

TEST(JsonSchemaValidate, ADocumentThatIsNotJsonFailsAtTheRoot) {
  auto schema = MustCompile(kOrder);
  for (std::string_view bad : {"", "{", R"({"id": "abc",})", "nul", "{} {}"}) {
    auto failure = schema->Validate(bad);
    ASSERT_TRUE(failure.has_value()) << bad;
    EXPECT_EQ(failure->pointer, "");
    EXPECT_EQ(failure->rule.rfind("not JSON: ", 0), 0u) << failure->rule;
    EXPECT_EQ(failure->rule.find("[json.exception"), std::string::npos) << failure->rule;
  }
  auto deep = schema->Validate(std::string(1000, '[') + std::string(1000, ']'));
  ASSERT_TRUE(deep.has_value());
  EXPECT_EQ(deep->rule, "too deep: nested more than 256 levels");
}

TEST(JsonSchemaValidate, ManyThreadsShareOneCompiledSchema) {
  // A pattern too: its compiled regex is shared by every thread.
  auto schema = MustCompile(R"({"type": "object", "required": ["id"],
    "properties": {"id": {"type": "string", "pattern": "^ord-[0-9]+$"},
                   "n": {"type": "integer", "minimum": 0}}})");
  constexpr int kThreads = 8;
  constexpr int kValidations = 1000;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kValidations; ++i) {
        const std::string n = std::to_string((i % 3 == 0) ? -i - 1 : i);
        const std::string id = (i % 5 == 0) ? "bad" : "ord-" + std::to_string(t * kValidations + i);
        const std::string document = R"({"id": ")" + id + R"(", "n": )" + n + "}";
        auto failure = schema->Validate(document);
        std::string expected = "valid";
        if (i % 3 == 0) expected = "/n -> minimum: " + n + " is less than 0";
        // Both fail at the same depth; valijson checks "id" first (sorted).
        if (i % 5 == 0) expected = "/id -> pattern: does not match the pattern";
        const std::string got = failure ? failure->pointer + " -> " + failure->rule : "valid";
        if (got != expected) ++wrong;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace indelible::schemas
