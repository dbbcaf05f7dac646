// The structural compatibility check (src/schemas/compatibility.h): each
// kind of change under every mode, and the messages that name where the
// schemas part.
#include "schemas/compatibility.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace indelible::schemas {
namespace {

constexpr std::pair<Compatibility, const char*> kModes[] = {
    {Compatibility::kBackward, "backward"},
    {Compatibility::kBackwardTransitive, "backward_transitive"},
    {Compatibility::kForward, "forward"},
    {Compatibility::kForwardTransitive, "forward_transitive"},
    {Compatibility::kFull, "full"},
    {Compatibility::kFullTransitive, "full_transitive"},
};

bool ChecksBackward(Compatibility mode) {
  return mode != Compatibility::kForward && mode != Compatibility::kForwardTransitive;
}
bool ChecksForward(Compatibility mode) {
  return mode != Compatibility::kBackward && mode != Compatibility::kBackwardTransitive;
}

Status Register(Compatibility mode, const std::vector<std::string>& previous,
                const std::string& candidate) {
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < previous.size(); ++i) labels.push_back("V" + std::to_string(i + 1));
  return CheckCompatibility(mode, previous, labels, candidate);
}

// `next` after `old` under every mode: ok exactly where the directions the
// mode checks hold; refusals are `rejected`. kNone lets anything through.
void ExpectModes(const std::string& old_schema, const std::string& next, bool backward_ok,
                 bool forward_ok) {
  for (const auto& [mode, name] : kModes) {
    bool expected = (!ChecksBackward(mode) || backward_ok) && (!ChecksForward(mode) || forward_ok);
    Status status = Register(mode, {old_schema}, next);
    EXPECT_EQ(status.ok(), expected) << name << ": " << status.ToString();
    if (!expected) {
      EXPECT_EQ(status.code(), ErrorCode::kRejected) << name;
    }
  }
  EXPECT_TRUE(Register(Compatibility::kNone, {old_schema}, next).ok());
}

std::string Rejection(Compatibility mode, const std::string& old_schema, const std::string& next) {
  Status status = Register(mode, {old_schema}, next);
  EXPECT_EQ(status.code(), ErrorCode::kRejected) << status.ToString();
  return status.message();
}

const std::string kOpenOrder =
    R"({"type":"object","properties":{"id":{"type":"string"}},"required":["id"]})";
const std::string kOpenOrderWithNote =
    R"({"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},
        "required":["id"]})";
const std::string kClosedOrder =
    R"({"type":"object","properties":{"id":{"type":"string"}},"required":["id"],
        "additionalProperties":false})";
const std::string kClosedOrderWithNote =
    R"({"type":"object","properties":{"id":{"type":"string"},"note":{"type":"string"}},
        "required":["id"],"additionalProperties":false})";

TEST(CompatibilityTest, OptionalPropertyAddedToAnOpenModel) {
  // The old open model accepts {"id":"a","note":5}; the new schema refuses it.
  ExpectModes(kOpenOrder, kOpenOrderWithNote, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, kOpenOrder, kOpenOrderWithNote),
            "backward: breaks V1: /properties/note: a property the old schema allowed with any "
            "value now has a schema");
  // Dropping it again: the old schema gave note a schema the new open one does not.
  EXPECT_EQ(Rejection(Compatibility::kForward, kOpenOrderWithNote, kOpenOrder),
            "forward: breaks V1: /properties/note: a property the old schema gave a schema is "
            "dropped; the new schema's open content model allows it with any value");
}

TEST(CompatibilityTest, OptionalPropertyAddedToAClosedModel) {
  ExpectModes(kClosedOrder, kClosedOrderWithNote, /*backward_ok=*/true, /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kFull, kClosedOrder, kClosedOrderWithNote),
            "forward: breaks V1: /properties/note: added, but the old content model is closed "
            "(additionalProperties false)");
  // Removing it from a closed model: old documents may hold it.
  ExpectModes(kClosedOrderWithNote, kClosedOrder, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, kClosedOrderWithNote, kClosedOrder),
            "backward: breaks V1: /properties/note: removed from a closed content model "
            "(additionalProperties false): the old schema allowed it");
}

TEST(CompatibilityTest, PropertyWithAnyValueAddedToAnOpenModelIsSafe) {
  ExpectModes(kOpenOrder,
              R"({"type":"object","properties":{"id":{"type":"string"},"note":{}},
                  "required":["id"]})",
              true, true);
}

TEST(CompatibilityTest, RequiredPropertyAdded) {
  std::string required = R"({"type":"object","properties":{"id":{"type":"string"},
      "note":{"type":"string"}},"required":["id","note"]})";
  ExpectModes(kOpenOrderWithNote, required, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackwardTransitive, kOpenOrderWithNote, required),
            "backward: breaks V1: /required: 'note' is required now");
}

TEST(CompatibilityTest, RequiredPropertyRemoved) {
  std::string optional = R"({"type":"object","properties":{"id":{"type":"string"}}})";
  ExpectModes(kOpenOrder, optional, /*backward_ok=*/true, /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kForwardTransitive, kOpenOrder, optional),
            "forward: breaks V1: /required: 'id' is no longer required");
}

std::string WithAmount(const std::string& amount) {
  return R"({"type":"object","properties":{"amount":)" + amount + "}}";
}

TEST(CompatibilityTest, TypeChanged) {
  std::string number = WithAmount(R"({"type":"number"})");
  std::string text = WithAmount(R"({"type":"string"})");
  ExpectModes(number, text, false, false);
  EXPECT_EQ(Rejection(Compatibility::kBackward, number, text),
            "backward: breaks V1: /properties/amount/type: number became string");
  EXPECT_EQ(Rejection(Compatibility::kForward, number, text),
            "forward: breaks V1: /properties/amount/type: number became string");
}

TEST(CompatibilityTest, TypeWidenedAndNarrowed) {
  std::string text = WithAmount(R"({"type":"string"})");
  std::string nullable = WithAmount(R"({"type":["string","null"]})");
  ExpectModes(text, nullable, /*backward_ok=*/true, /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kForward, text, nullable),
            "forward: breaks V1: /properties/amount/type: string became [null, string]");
  ExpectModes(nullable, text, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, nullable, text),
            "backward: breaks V1: /properties/amount/type: [null, string] became string");
}

TEST(CompatibilityTest, IntegerIsWithinNumber) {
  std::string integer = WithAmount(R"({"type":"integer"})");
  std::string number = WithAmount(R"({"type":"number"})");
  ExpectModes(integer, number, /*backward_ok=*/true, /*forward_ok=*/false);
  ExpectModes(number, integer, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, number, integer),
            "backward: breaks V1: /properties/amount/type: number became integer");
}

TEST(CompatibilityTest, EnumWidenedAndNarrowed) {
  auto currency = [](const std::string& values) {
    return R"({"type":"object","properties":{"currency":{"type":"string","enum":)" + values + "}}}";
  };
  std::string two = currency(R"(["EUR","USD"])");
  std::string three = currency(R"(["EUR","USD","GBP"])");
  ExpectModes(two, three, /*backward_ok=*/true, /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kForward, two, three),
            R"(forward: breaks V1: /properties/currency/enum: "GBP" is allowed now)");
  ExpectModes(three, two, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, three, two),
            R"(backward: breaks V1: /properties/currency/enum: "GBP" is no longer allowed)");
  // An enum where there was none, and a const within an enum.
  std::string any = R"({"type":"object","properties":{"currency":{"type":"string"}}})";
  EXPECT_EQ(
      Rejection(Compatibility::kBackward, any, two),
      R"(backward: breaks V1: /properties/currency/enum: any value became one of ["EUR","USD"])");
  EXPECT_TRUE(
      CheckAccepts(two, R"({"type":"object","properties":{"currency":{"const":"EUR"}}})").ok());
}

TEST(CompatibilityTest, EnumValuesGiveTheirType) {
  // No `type`, but every value is a string: a string schema accepts them all.
  ExpectModes(R"({"enum":["a","b"]})", R"({"type":"string"})", /*backward_ok=*/true,
              /*forward_ok=*/false);
  EXPECT_FALSE(CheckAccepts(R"({"type":"string"})", R"({"enum":["a",1]})").ok());
}

TEST(CompatibilityTest, MaxLengthDecreased) {
  auto name = [](const std::string& limits) {
    return R"({"properties":{"name":{"type":"string")" + limits + "}}}";
  };
  ExpectModes(name(R"(,"maxLength":10)"), name(R"(,"maxLength":5)"), /*backward_ok=*/false,
              /*forward_ok=*/true);
  EXPECT_EQ(
      Rejection(Compatibility::kBackward, name(R"(,"maxLength":10)"), name(R"(,"maxLength":5)")),
      "backward: breaks V1: /properties/name/maxLength: 10 became 5");
  EXPECT_EQ(Rejection(Compatibility::kBackward, name(""), name(R"(,"minLength":1)")),
            "backward: breaks V1: /properties/name/minLength: none became 1");
  EXPECT_EQ(Rejection(Compatibility::kForward, name(R"(,"maxLength":5)"), name("")),
            "forward: breaks V1: /properties/name/maxLength: 5 became none");
}

TEST(CompatibilityTest, NumericBoundsInBothDrafts) {
  std::string inclusive = R"({"type":"number","minimum":0})";
  std::string exclusive07 = R"({"type":"number","exclusiveMinimum":0})";
  std::string exclusive04 = R"({"type":"number","minimum":0,"exclusiveMinimum":true})";
  ExpectModes(inclusive, exclusive07, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, inclusive, exclusive07),
            "backward: breaks V1: /exclusiveMinimum: >= 0 became > 0");
  // The two forms of one bound are the same schema.
  ExpectModes(exclusive07, exclusive04, true, true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, R"({"type":"number","maximum":100})",
                      R"({"type":"number","maximum":99.5})"),
            "backward: breaks V1: /maximum: <= 100 became <= 99.5");
  EXPECT_EQ(Rejection(Compatibility::kForward, R"({"type":"number","maximum":100})",
                      R"({"type":"number"})"),
            "forward: breaks V1: /maximum: <= 100 became unbounded");
  // Bounds on numbers say nothing about strings.
  EXPECT_TRUE(
      CheckAccepts(R"({"type":["string","number"],"minimum":0})", R"({"type":"string"})").ok());
}

TEST(CompatibilityTest, ContentModelOpenedOrClosed) {
  ExpectModes(kOpenOrder, kClosedOrder, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, kOpenOrder, kClosedOrder),
            "backward: breaks V1: /additionalProperties: an open content model became a closed "
            "content model");
  EXPECT_EQ(Rejection(Compatibility::kForward, kClosedOrder, kOpenOrder),
            "forward: breaks V1: /additionalProperties: a closed content model became an open "
            "content model");
  // additionalProperties as a schema: widened, then narrowed.
  std::string strings = R"({"type":"object","additionalProperties":{"type":"string"}})";
  std::string scalars = R"({"type":"object","additionalProperties":{"type":["string","number"]}})";
  ExpectModes(strings, scalars, /*backward_ok=*/true, /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kForward, strings, scalars),
            "forward: breaks V1: /additionalProperties/type: string became [string, number]");
}

TEST(CompatibilityTest, NestedObjectsAndArrays) {
  auto order = [](const std::string& zip, const std::string& quantity) {
    return R"({"type":"object","properties":{
        "customer":{"type":"object","properties":{"address":{"type":"object",
            "properties":{"zip":)" +
           zip + R"(}}}},
        "lines":{"type":"array","items":{"type":"object","properties":{"qty":)" +
           quantity + "}}}}}";
  };
  std::string v1 = order(R"({"type":"string"})", R"({"type":"integer"})");
  ExpectModes(v1, order(R"({"type":"integer"})", R"({"type":"integer"})"), false, false);
  EXPECT_EQ(Rejection(Compatibility::kBackward, v1,
                      order(R"({"type":"integer"})", R"({"type":"integer"})")),
            "backward: breaks V1: /properties/customer/properties/address/properties/zip/type: "
            "string became integer");
  std::string v2 = order(R"({"type":"string"})", R"({"type":"number"})");
  ExpectModes(v1, v2, /*backward_ok=*/true, /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kForward, v1, v2),
            "forward: breaks V1: /properties/lines/items/properties/qty/type: integer became "
            "number");
  // Array lengths.
  std::string list = R"({"type":"array","items":{"type":"string"}})";
  std::string bounded = R"({"type":"array","items":{"type":"string"},"maxItems":3})";
  ExpectModes(list, bounded, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, list, bounded),
            "backward: breaks V1: /maxItems: none became 3");
}

TEST(CompatibilityTest, TupleItems) {
  std::string tuple = R"({"type":"array","items":[{"type":"string"},{"type":"integer"}],
                         "additionalItems":false})";
  std::string scalars = R"({"type":"array","items":{"type":["string","integer"]}})";
  // A tuple within one items schema is proven position by position...
  ExpectModes(tuple, scalars, /*backward_ok=*/true, /*forward_ok=*/false);
  // ... but a tuple in the accepting schema is not modelled.
  EXPECT_EQ(Rejection(Compatibility::kForward, tuple, scalars),
            "forward: breaks V1: /items: cannot prove compatible: keyword items (tuple form)");
}

const std::string kMoneyByRef = R"({"type":"object",
    "definitions":{"money":{"type":"object","properties":{
        "amount":{"type":"number"},"currency":{"type":"string","maxLength":3}},
        "required":["amount"]}},
    "properties":{"total":{"$ref":"#/definitions/money"},
                  "tax":{"$ref":"#/definitions/money"}}})";

TEST(CompatibilityTest, ReferencesToDefinitions) {
  // The same shapes written inline: equivalent both ways.
  std::string inline_money = R"({"type":"object","properties":{"amount":{"type":"number"},
      "currency":{"type":"string","maxLength":3}},"required":["amount"]})";
  std::string inlined = R"({"type":"object","properties":{"total":)" + inline_money + R"(,"tax":)" +
                        inline_money + "}}";
  ExpectModes(kMoneyByRef, inlined, true, true);
  // A change inside the definition is found where the reference uses it.
  std::string shorter = kMoneyByRef;
  shorter.replace(shorter.find(R"("maxLength":3)"), 13, R"("maxLength":2)");
  ExpectModes(kMoneyByRef, shorter, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, kMoneyByRef, shorter),
            "backward: breaks V1: /properties/tax/properties/currency/maxLength: 3 became 2");
  // A reference that leads nowhere makes the schema invalid.
  EXPECT_EQ(CheckAccepts(R"({"properties":{"a":{"$ref":"#/definitions/nope"}}})",
                         R"({"properties":{"a":{"type":"string"}}})")
                .code(),
            ErrorCode::kInvalid);
  // Remote references are not followed.
  EXPECT_EQ(Rejection(Compatibility::kBackward, R"({"type":"object"})",
                      R"({"$ref":"https://example.com/order.json"})"),
            "backward: breaks V1: /$ref: cannot prove compatible: keyword $ref "
            "('https://example.com/order.json' is not a local reference)");
}

std::string Tree(const std::string& definition_name, const std::string& value_type) {
  return R"({"$ref":"#/definitions/)" + definition_name + R"(","definitions":{")" +
         definition_name + R"(":{"type":"object","properties":{"value":{"type":")" + value_type +
         R"("},"children":{"type":"array","items":{"$ref":"#/definitions/)" + definition_name +
         R"("}}},"required":["value"]}}})";
}

TEST(CompatibilityTest, RecursiveReferenceTerminates) {
  // Differently named definitions of the same recursive shape.
  ExpectModes(Tree("node", "integer"), Tree("tree", "integer"), true, true);
  ExpectModes(Tree("node", "integer"), Tree("tree", "number"), /*backward_ok=*/true,
              /*forward_ok=*/false);
  EXPECT_EQ(Rejection(Compatibility::kForward, Tree("node", "integer"), Tree("tree", "number")),
            "forward: breaks V1: /properties/value/type: integer became number");
  // A break reached only through the recursion.
  std::string deeper = Tree("node", "integer");
  deeper.replace(deeper.find(R"("type":"array")"), 14, R"("type":"array","maxItems":2)");
  EXPECT_EQ(Rejection(Compatibility::kBackward, Tree("node", "integer"), deeper),
            "backward: breaks V1: /properties/children/maxItems: none became 2");
}

TEST(CompatibilityTest, UnmodelledKeywordsAreRefusedNotGuessed) {
  std::string plain = R"({"type":"object","properties":{"id":{"type":"string"}}})";
  std::string with_all_of = R"({"type":"object","properties":{"id":{"type":"string"}},
      "allOf":[{"required":["id"]}]})";
  // In the accepting schema it could narrow: refused; in the other it only narrows.
  ExpectModes(plain, with_all_of, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, plain, with_all_of),
            "backward: breaks V1: /allOf: cannot prove compatible: keyword allOf");
  // The same standalone condition in both keeps the rest provable.
  std::string with_all_of_and_note = R"({"type":"object","properties":{"id":{"type":"string"}},
      "allOf":[{"required":["id"]}],"additionalProperties":{"type":"string"}})";
  ExpectModes(with_all_of_and_note, with_all_of, /*backward_ok=*/true, /*forward_ok=*/false);
  // patternProperties moves keys out of additionalProperties' reach.
  std::string patterned = R"({"type":"object","patternProperties":{"^x":{"type":"number"}},
      "additionalProperties":false})";
  EXPECT_EQ(Rejection(Compatibility::kForward, R"({"type":"object","additionalProperties":false})",
                      patterned),
            "forward: breaks V1: /patternProperties: cannot prove compatible: keyword "
            "patternProperties");
  EXPECT_EQ(Rejection(Compatibility::kBackward, R"({"type":"string"})",
                      R"({"type":"string","not":{"const":""}})"),
            "backward: breaks V1: /not: cannot prove compatible: keyword not");
}

TEST(CompatibilityTest, PatternAndFormatMustStayOrGo) {
  std::string code = R"({"type":"string"})";
  std::string patterned = R"({"type":"string","pattern":"^[A-Z]{3}$","format":"iso-4217"})";
  ExpectModes(code, patterned, /*backward_ok=*/false, /*forward_ok=*/true);
  EXPECT_EQ(Rejection(Compatibility::kBackward, code, patterned),
            R"(backward: breaks V1: /pattern: none became "^[A-Z]{3}$")");
  EXPECT_EQ(Rejection(Compatibility::kBackward, R"({"type":"string","pattern":"^[A-Z]+$"})",
                      R"({"type":"string","pattern":"^[A-Z]{3}$"})"),
            R"(backward: breaks V1: /pattern: "^[A-Z]+$" became "^[A-Z]{3}$")");
}

TEST(CompatibilityTest, AnnotationChangesAreIgnored) {
  std::string v1 = R"({"$schema":"http://json-schema.org/draft-07/schema#","title":"Order",
      "type":"object","properties":{"id":{"type":"string","description":"the id"}}})";
  std::string v2 = R"({"$schema":"http://json-schema.org/draft-04/schema#","$id":"urn:order",
      "title":"Order placed","$comment":"v2","type":"object","properties":{"id":{
      "type":"string","description":"its id","default":"x","examples":["a1"]}}})";
  ExpectModes(v1, v2, true, true);
  EXPECT_TRUE(Register(Compatibility::kFullTransitive, {v1, v2, v1}, v2).ok());
}

TEST(CompatibilityTest, TransitiveModesCatchABreakAgainstAnOlderVersion) {
  // V2 was registered when the type's mode was none: it breaks V1. V3 keeps V2.
  std::string v1 = WithAmount(R"({"type":"number"})");
  std::string v2 = WithAmount(R"({"type":"string"})");
  std::string v3 = WithAmount(R"({"type":"string","title":"amount, as text"})");
  for (Compatibility mode :
       {Compatibility::kBackward, Compatibility::kForward, Compatibility::kFull}) {
    EXPECT_TRUE(Register(mode, {v1, v2}, v3).ok());
  }
  Status backward = Register(Compatibility::kBackwardTransitive, {v1, v2}, v3);
  EXPECT_EQ(backward.code(), ErrorCode::kRejected);
  EXPECT_EQ(backward.message(),
            "backward: breaks V1: /properties/amount/type: number became string");
  EXPECT_EQ(Register(Compatibility::kForwardTransitive, {v1, v2}, v3).message(),
            "forward: breaks V1: /properties/amount/type: number became string");
  EXPECT_EQ(Register(Compatibility::kFullTransitive, {v1, v2}, v3).message(),
            "backward: breaks V1: /properties/amount/type: number became string");
}

TEST(CompatibilityTest, NonTransitiveModesCheckTheLastVersionOnly) {
  std::string v1 = WithAmount(R"({"type":"number"})");
  std::string v2 = WithAmount(R"({"type":"string"})");
  // Against V1 the candidate holds, against V2 (the last) it does not.
  EXPECT_EQ(Register(Compatibility::kBackward, {v1, v2}, v1).message(),
            "backward: breaks V2: /properties/amount/type: string became number");
  EXPECT_EQ(Register(Compatibility::kBackwardTransitive, {v1, v2}, v1).message(),
            "backward: breaks V2: /properties/amount/type: string became number");
  EXPECT_TRUE(Register(Compatibility::kNone, {v1, v2}, v1).ok());
  EXPECT_TRUE(Register(Compatibility::kFullTransitive, {}, v1).ok());
}

TEST(CompatibilityTest, BooleanSchemas) {
  EXPECT_TRUE(CheckAccepts("true", "{}").ok());
  EXPECT_TRUE(CheckAccepts("{}", "true").ok());
  EXPECT_TRUE(CheckAccepts(R"({"type":"string"})", "false").ok());
  EXPECT_EQ(Rejection(Compatibility::kForward, R"({"type":"object"})", "true"),
            "forward: breaks V1: /type: object became any");
  EXPECT_EQ(Rejection(Compatibility::kBackward, R"({"type":"object"})", "false"),
            "backward: breaks V1: (root): refuses every document now (false)");
  ExpectModes(R"({"properties":{"a":{"type":"string"}}})", R"({"properties":{"a":true}})", true,
              false);
}

TEST(CompatibilityTest, PointersEscapePropertyNames) {
  EXPECT_EQ(CheckAccepts(R"({"properties":{"a/b~c":{"type":"string"}}})",
                         R"({"properties":{"a/b~c":{"type":"number"}}})")
                .message(),
            "/properties/a~1b~0c/type: number became string");
}

TEST(CompatibilityTest, TextsThatAreNoSchemaAreInvalid) {
  EXPECT_EQ(CheckAccepts("{", "{}").code(), ErrorCode::kInvalid);
  EXPECT_EQ(CheckAccepts("{}", "[1]").code(), ErrorCode::kInvalid);
  EXPECT_EQ(CheckAccepts(R"({"type":"text"})", "{}").code(), ErrorCode::kInvalid);
  EXPECT_EQ(CheckAccepts(R"({"properties":{"a":5}})", R"({"properties":{"a":{}}})").code(),
            ErrorCode::kInvalid);
  EXPECT_EQ(Register(Compatibility::kBackward, {"{}"}, "not json").code(), ErrorCode::kInvalid);
}

}  // namespace
}  // namespace indelible::schemas
