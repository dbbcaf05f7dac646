// JsonSchema on valijson with its Boost.JSON and nlohmann adapters.
//
// Validate parses the document, then runs valijson's ValidationVisitor
// twice at most: once stopping at the first failure (the common, valid case
// pays only for that), and, when it fails, once more collecting every error
// to report the deepest. The visitor is built here, not through
// valijson::Validator, so it can use this schema's patterns compiled once
// at Compile: a Validator per call compiles each "pattern" again (a
// std::regex costs microseconds), and a thread_local one keeps every
// pattern it ever saw on every thread. The shared map is never written
// after Compile (every "pattern" string in the schema is in it, so the
// visitor only finds), which keeps concurrent Validate calls safe.

// GCC 12's <regex> (through std::function) trips -Wmaybe-uninitialized, a
// false positive; the pragma must cover the headers, so it opens first.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "schemas/json_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <unordered_map>
#include <utility>
#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>
#include <vector>

#include "schemas/json_schema_testing.h"

#if !VALIJSON_USE_EXCEPTIONS
#error "valijson must throw (VALIJSON_USE_EXCEPTIONS=1), not abort, on a bad schema"
#endif

namespace indelible::schemas {
namespace {

using Json = nlohmann::json;
using Adapter = valijson::adapters::NlohmannJsonAdapter;
using FastAdapter = valijson::adapters::BoostJsonAdapter;
using PatternCache = std::unordered_map<std::string, std::regex>;

constexpr std::string_view kSupportedDrafts =
    "supported drafts are draft-04 (http://json-schema.org/draft-04/schema#) and draft-07 "
    "(http://json-schema.org/draft-07/schema#)";

// valijson recurses once per level of a recursive schema; a document (or
// schema) nested deeper than this is refused rather than risk the stack.
constexpr int kMaxNesting = 256;

struct Draft {
  std::string_view name;
  valijson::SchemaParser::Version version;
};
constexpr Draft kDraft04{"draft-04", valijson::SchemaParser::kDraft4};
constexpr Draft kDraft07{"draft-07", valijson::SchemaParser::kDraft7};

// The draft a "$schema" URI names: http or https, with or without the
// empty fragment.
std::optional<Draft> DraftOf(std::string_view uri) {
  for (std::string_view prefix : {"http://", "https://"}) {
    if (!uri.starts_with(prefix)) continue;
    std::string_view rest = uri.substr(prefix.size());
    if (rest.ends_with("#")) rest.remove_suffix(1);
    if (rest == "json-schema.org/draft-04/schema") return kDraft04;
    if (rest == "json-schema.org/draft-07/schema") return kDraft07;
  }
  return std::nullopt;
}

// The deepest nesting of arrays and objects in `text`, stopping once past
// `limit`; strings are skipped so brackets inside them do not count.
int NestingDepth(std::string_view text, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

// nlohmann's what() opens with "[json.exception.parse_error.101] ".
std::string ParseErrorText(const std::exception& error) {
  std::string_view text = error.what();
  if (text.starts_with("[json.exception.")) {
    if (std::size_t end = text.find("] "); end != std::string_view::npos)
      text.remove_prefix(end + 2);
  }
  return std::string(text);
}

std::optional<std::regex> CompileRegex(const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
}

// Compiles every "pattern" string in `node` into `cache`, wherever it is:
// a $ref may make a schema of any part of the document, and the visitor
// must never miss (a miss would write to the shared cache). A pattern or
// patternProperties key that std::regex refuses is an error unless it sits
// in data (enum, const, default, examples), where it is not a schema.
Status CollectPatterns(const Json& node, bool keys_are_names, bool in_data, bool pattern_keys,
                       PatternCache& cache) {
  if (node.is_array()) {
    for (const Json& element : node) {
      if (Status s = CollectPatterns(element, false, in_data, false, cache); !s.ok()) return s;
    }
    return Status::Ok();
  }
  if (!node.is_object()) return Status::Ok();
  for (const auto& [key, value] : node.items()) {
    if (pattern_keys && !in_data && !CompileRegex(key)) {
      return Status::Invalid("schema", fmt::format("patternProperties: '{}' is not a regular "
                                                   "expression std::regex (ECMAScript) accepts",
                                                   key));
    }
    // Even a "pattern" member of a name map is compiled: a $ref may still
    // make a schema of that map.
    if (key == "pattern" && value.is_string()) {
      const std::string& pattern = value.get_ref<const std::string&>();
      if (auto regex = CompileRegex(pattern)) {
        cache.emplace(pattern, std::move(*regex));
      } else if (!keys_are_names && !in_data) {
        return Status::Invalid("schema", fmt::format("pattern: '{}' is not a regular expression "
                                                     "std::regex (ECMAScript) accepts",
                                                     pattern));
      }
      if (!keys_are_names) continue;
    }
    const bool names = !keys_are_names && (key == "properties" || key == "patternProperties" ||
                                           key == "definitions" || key == "dependencies");
    const bool data = in_data || (!keys_are_names && (key == "enum" || key == "const" ||
                                                      key == "default" || key == "examples"));
    const bool patterns = !keys_are_names && key == "patternProperties";
    if (Status s = CollectPatterns(value, names, data, patterns, cache); !s.ok()) return s;
  }
  return Status::Ok();
}

Status CollectPatterns(const Json& document, PatternCache& cache) {
  return CollectPatterns(document, false, false, false, cache);
}

// ---- Turning valijson's errors into a pointer and a rule ----

// valijson's context: "<root>", then "[name]" per property and "[3]" per
// item. Each element is one step, so stripping the brackets is exact even
// when a name holds brackets.
std::string_view StepOf(const std::string& element) {
  return std::string_view(element).substr(1, element.size() - 2);
}

std::string PointerOf(const std::vector<std::string>& context) {
  std::string pointer;
  for (std::size_t i = 1; i < context.size(); ++i) {
    pointer += '/';
    for (char c : StepOf(context[i])) {
      if (c == '~') {
        pointer += "~0";
      } else if (c == '/') {
        pointer += "~1";
      } else {
        pointer += c;
      }
    }
  }
  return pointer;
}

std::optional<std::size_t> IndexOf(std::string_view step) {
  if (step.empty() || step.size() > 18) return std::nullopt;
  std::size_t index = 0;
  for (char c : step) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<std::size_t>(c - '0');
  }
  return index;
}

// The value the error is about, found by following its context.
const Json* ValueAt(const Json& document, const std::vector<std::string>& context) {
  const Json* value = &document;
  for (std::size_t i = 1; i < context.size(); ++i) {
    const std::string_view step = StepOf(context[i]);
    if (value->is_object()) {
      auto it = value->find(step);
      if (it == value->end()) return nullptr;
      value = &*it;
    } else if (value->is_array()) {
      auto index = IndexOf(step);
      if (!index || *index >= value->size()) return nullptr;
      value = &(*value)[*index];
    } else {
      return nullptr;
    }
  }
  return value;
}

std::string_view TypeName(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    default:
      return "object";
  }
}

const Json* FollowLocalRefs(const Json& root, const Json* schema) {
  for (int hops = 0; hops < 16 && schema && schema->is_object(); ++hops) {
    auto ref = schema->find("$ref");
    if (ref == schema->end() || !ref->is_string()) return schema;
    const std::string& target = ref->get_ref<const std::string&>();
    if (!target.starts_with("#")) return nullptr;
    try {
      const Json::json_pointer pointer(target.substr(1));
      if (!root.contains(pointer)) return nullptr;
      schema = &root.at(pointer);
    } catch (const Json::exception&) {
      return nullptr;
    }
  }
  return schema;
}

// The types the schema asks for at the error's place, when a plain walk
// through properties, items and additionalProperties finds them; valijson
// does not say. Empty when the walk cannot tell (allOf, anyOf, ...).
std::string ExpectedTypes(const Json& root, const std::vector<std::string>& context,
                          std::string_view actual) {
  const Json* schema = FollowLocalRefs(root, &root);
  for (std::size_t i = 1; schema && i < context.size(); ++i) {
    if (!schema->is_object()) return {};
    const std::string_view step = StepOf(context[i]);
    const Json* next = nullptr;
    if (auto properties = schema->find("properties");
        properties != schema->end() && properties->is_object()) {
      if (auto it = properties->find(step); it != properties->end()) next = &*it;
    }
    if (auto items = schema->find("items"); !next && items != schema->end() && IndexOf(step)) {
      if (items->is_object()) {
        next = &*items;
      } else if (items->is_array() && *IndexOf(step) < items->size()) {
        next = &(*items)[*IndexOf(step)];
      }
    }
    if (auto extra = schema->find("additionalProperties");
        !next && extra != schema->end() && extra->is_object()) {
      next = &*extra;
    }
    schema = next ? FollowLocalRefs(root, next) : nullptr;
  }
  if (!schema || !schema->is_object()) return {};
  auto type = schema->find("type");
  if (type == schema->end()) return {};
  std::vector<std::string_view> names;
  if (type->is_string()) {
    names.push_back(type->get_ref<const std::string&>());
  } else if (type->is_array()) {
    for (const Json& name : *type) {
      if (name.is_string()) names.push_back(name.get_ref<const std::string&>());
    }
  }
  std::string expected;
  for (std::string_view name : names) {
    // The walk found a schema that allows the value: the error came from
    // elsewhere, so say nothing rather than something wrong.
    if (name == actual || (name == "number" && actual == "integer")) return {};
    if (!expected.empty()) expected += " or ";
    expected += name;
  }
  return expected;
}

// valijson writes numbers with std::to_string ("5.000000"); read one back
// after `prefix` and print it short ("5").
std::optional<std::string> NumberAfter(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  std::string digits(text.substr(prefix.size()));
  while (!digits.empty() && (digits.back() == '.' || digits.back() == ' ')) digits.pop_back();
  try {
    return fmt::format("{}", std::stod(digits));
  } catch (const std::exception&) {
    return digits;
  }
}

// What lies between `prefix` and `suffix` in `text`, when it has both.
std::optional<std::string> Between(std::string_view text, std::string_view prefix,
                                   std::string_view suffix) {
  if (!text.starts_with(prefix) || !text.ends_with(suffix) ||
      text.size() < prefix.size() + suffix.size()) {
    return std::nullopt;
  }
  return std::string(text.substr(prefix.size(), text.size() - prefix.size() - suffix.size()));
}

// How telling an error is among those at the same depth: a failed anyOf or
// oneOf outranks the errors of its branches (none of which had to hold);
// a leaf rule outranks the summaries valijson adds above it.
enum Rank { kSummary = 0, kLeaf = 1, kCombination = 2 };

struct Described {
  std::string rule;
  Rank rank = kLeaf;
};

// The rule in words that name the keyword, from valijson's description
// (validation_visitor.hpp), the value and, for types, the schema.
Described Describe(const valijson::ValidationResults::Error& error, const Json& document,
                   const Json& schema) {
  const std::string_view text = error.description;
  const Json* value = ValueAt(document, error.context);
  const std::string shown = value && value->is_number() ? value->dump() : "the value";
  if (auto name = Between(text, "Missing required property '", "'.")) {
    return {fmt::format("required: property '{}' is missing", *name)};
  }
  if (text == "Value type not permitted by 'type' constraint.") {
    const std::string_view actual = value ? TypeName(*value) : "value";
    const std::string expected = ExpectedTypes(schema, error.context, actual);
    if (expected.empty()) return {fmt::format("type: {} is not allowed here", actual)};
    return {fmt::format("type: expected {}, got {}", expected, actual)};
  }
  if (auto limit = NumberAfter(text, "Expected number greater than or equal to ")) {
    return {fmt::format("minimum: {} is less than {}", shown, *limit)};
  }
  if (auto limit = NumberAfter(text, "Expected number greater than ")) {
    return {fmt::format("exclusiveMinimum: {} is not greater than {}", shown, *limit)};
  }
  if (auto limit = NumberAfter(text, "Expected number less than or equal to ")) {
    return {fmt::format("maximum: {} is greater than {}", shown, *limit)};
  }
  if (auto limit = NumberAfter(text, "Expected number less than ")) {
    return {fmt::format("exclusiveMaximum: {} is not less than {}", shown, *limit)};
  }
  if (auto divisor = NumberAfter(text, "Value should be a multiple of ")) {
    return {fmt::format("multipleOf: {} is not a multiple of {}", shown, *divisor)};
  }
  if (auto n = Between(text, "String should be no more than ", " characters in length.")) {
    return {fmt::format("maxLength: longer than {} characters", *n)};
  }
  if (auto n = Between(text, "String should be no fewer than ", " characters in length.")) {
    return {fmt::format("minLength: shorter than {} characters", *n)};
  }
  if (auto n = Between(text, "Array should contain no more than ", " elements.")) {
    return {fmt::format("maxItems: more than {} items", *n)};
  }
  if (auto n = Between(text, "Array should contain no fewer than ", " elements.")) {
    return {fmt::format("minItems: fewer than {} items", *n)};
  }
  if (auto n = Between(text, "Object should have no more than ", " properties.")) {
    return {fmt::format("maxProperties: more than {} properties", *n)};
  }
  if (auto n = Between(text, "Object should have no fewer than ", " properties.")) {
    return {fmt::format("minProperties: fewer than {} properties", *n)};
  }
  if (text == "Failed to match against any enum values.") {
    return {"enum: not one of the allowed values"};
  }
  if (text == "Failed to match expected value set by 'const' constraint.") {
    return {"const: not the required value"};
  }
  if (text == "Failed to match regex specified by 'pattern' constraint.") {
    return {"pattern: does not match the pattern"};
  }
  if (auto name = Between(text,
                          "Object contains a property that could not be validated using "
                          "'properties' or 'additionalProperties' constraints: '",
                          "'.")) {
    return {fmt::format("additionalProperties: property '{}' is not allowed", *name)};
  }
  if (auto pair = Between(text, "Elements at indexes #", " violate uniqueness constraint.")) {
    std::string items = *pair;
    if (std::size_t hash = items.find(" and #"); hash != std::string::npos) {
      items.replace(hash, 6, " and ");
    }
    return {fmt::format("uniqueItems: items {} are equal", items)};
  }
  if (auto name = Between(text, "Missing dependency '", "'.")) {
    return {fmt::format("dependencies: property '{}' is missing", *name)};
  }
  if (text == "Target should not validate against schema specified in 'not' constraint.") {
    return {"not: matches a schema it must not match"};
  }
  if (text.starts_with("Failed to any values against subschema in 'contains'")) {
    return {"contains: no item matches"};
  }
  if (text == "Array contains more items than allowed by items constraint.") {
    return {"items: more items than the schema lists"};
  }
  if (auto n = Between(text, "Cannot validate item #",
                       " or greater using 'items' constraint or "
                       "'additionalItems' constraint.")) {
    return {fmt::format("additionalItems: item {} is not allowed", *n)};
  }
  if (auto format = Between(text, "String should be a valid ", "")) {
    return {fmt::format("format: not a valid {}", *format)};
  }
  if (text == "Failed to validate against any schemas allowed by anyOf constraint.") {
    return {"anyOf: matches none of the schemas", kCombination};
  }
  if (text == "Failed to validate against any child schemas allowed by oneOf constraint.") {
    return {"oneOf: matches none of the schemas", kCombination};
  }
  if (text == "Failed to validate against exactly one child schema.") {
    return {"oneOf: matches more than one schema", kCombination};
  }
  // Summaries above a failure already reported deeper, or the only trace
  // of a false schema beneath them.
  if (auto name = Between(text, "Failed to validate against schema associated with property name '",
                          "'.")) {
    return {fmt::format("properties: '{}' does not match its schema", *name), kSummary};
  }
  if (auto n = Between(text, "Failed to validate item #", " in array.")) {
    return {fmt::format("items: item {} does not match", *n), kSummary};
  }
  if (auto n = Between(text, "Failed to validate item #", " against corresponding item schema.")) {
    return {fmt::format("items: item {} does not match", *n), kSummary};
  }
  if (auto n = Between(text, "Failed to validate item #", " against additional items schema.")) {
    return {fmt::format("additionalItems: item {} does not match", *n), kSummary};
  }
  if (text.starts_with("Failed to validate against additional properties schema")) {
    return {"additionalProperties: a property does not match", kSummary};
  }
  if (auto pattern =
          Between(text, "Failed to validate against schema associated with pattern '", "'.")) {
    return {fmt::format("patternProperties: a property matching '{}' does not match", *pattern),
            kSummary};
  }
  if (text == "Failed to validate against dependent schema.") {
    return {"dependencies: does not match a dependent schema", kSummary};
  }
  if (text.starts_with("Failed to validate against a conditional schema")) {
    return {"if: does not match its then or else schema", kSummary};
  }
  if (auto n = Between(text, "Failed to validate against child schema #", ".")) {
    return {fmt::format("allOf: does not match schema {}", *n), kSummary};
  }
  return {std::string(text), kLeaf};
}

// The deepest error, and among the deepest the most telling, first seen.
SchemaFailure MostSpecific(const valijson::ValidationResults& results, const Json& document,
                           const Json& schema) {
  const valijson::ValidationResults::Error* best = nullptr;
  Described best_described;
  for (const auto& error : results) {
    if (best && error.context.size() < best->context.size()) continue;
    Described described = Describe(error, document, schema);
    if (best && error.context.size() == best->context.size() &&
        described.rank <= best_described.rank) {
      continue;
    }
    best = &error;
    best_described = std::move(described);
  }
  // A false schema or a failed propertyNames at the root leaves no error.
  if (!best) return {"", "schema: the document does not match (a false schema or propertyNames)"};
  return {PointerOf(best->context), std::move(best_described.rule)};
}

// ---- The compiled schema ----

class CompiledSchema final : public JsonSchema {
 public:
  CompiledSchema(Json source, std::string_view draft) : source_(std::move(source)), draft_(draft) {}

  std::optional<SchemaFailure> Validate(std::string_view document_json) const override {
    if (NestingDepth(document_json, kMaxNesting) > kMaxNesting) {
      return SchemaFailure{"", fmt::format("too deep: nested more than {} levels", kMaxNesting)};
    }
    // The common case, a valid document, on Boost.JSON: its parse takes
    // about half of nlohmann's here, and the parse was half of the check
    // (docs/BENCHMARKS.md, "Event schemas"). A document that fails, or
    // does not parse, is checked again below on nlohmann's DOM, which the
    // error report walks.
    if (ValidFast(document_json)) return std::nullopt;
    Json document;
    try {
      document = Json::parse(document_json);
    } catch (const Json::exception& error) {
      return SchemaFailure{"", "not JSON: " + ParseErrorText(error)};
    }
    try {
      const Adapter target(document);
      valijson::ValidationVisitor<Adapter> quick(target, {"<root>"}, true, nullptr, patterns_);
      if (quick.validateSchema(schema_)) return std::nullopt;
      valijson::ValidationResults results;
      valijson::ValidationVisitor<Adapter> thorough(target, {"<root>"}, true, &results, patterns_);
      thorough.validateSchema(schema_);
      return MostSpecific(results, document, source_);
    } catch (const std::exception& error) {
      // valijson throws where the schema asks what it cannot do, such as a
      // format check of an object; the document is not known to be valid.
      return SchemaFailure{"", fmt::format("schema: cannot check this document: {}", error.what())};
    }
  }

  std::string_view draft() const override { return draft_; }

  valijson::Schema& schema() { return schema_; }

 private:
  bool ValidFast(std::string_view document_json) const {
    boost::system::error_code ec;
    boost::json::value document = boost::json::parse(document_json, ec);
    if (ec) return false;
    try {
      const FastAdapter target(document);
      valijson::ValidationVisitor<FastAdapter> quick(target, {"<root>"}, true, nullptr, patterns_);
      return quick.validateSchema(schema_);
    } catch (const std::exception&) {
      return false;  // the slow path reports it
    }
  }

 public:
  PatternCache& patterns() { return patterns_; }

 private:
  Json source_;  // to name the types a failed "type" asks for
  std::string_view draft_;
  valijson::Schema schema_;
  // Written only by Compile; Validate's visitors only find in it (see top).
  mutable PatternCache patterns_;
};

Result<std::shared_ptr<const JsonSchema>> Compile(std::string_view schema_json,
                                                  const testing::CompileOptions& options) {
  if (NestingDepth(schema_json, kMaxNesting) > kMaxNesting) {
    return Status::Invalid("schema", fmt::format("nested more than {} levels", kMaxNesting));
  }
  Json source;
  try {
    source = Json::parse(schema_json);
  } catch (const Json::exception& error) {
    return Status::Invalid("schema", "not JSON: " + ParseErrorText(error));
  }
  if (!source.is_object() && !source.is_boolean()) {
    return Status::Invalid("schema", fmt::format("a schema is a JSON object or a boolean, not {}",
                                                 source.type_name()));
  }
  std::optional<Draft> draft = DraftOf(options.default_draft);
  if (options.default_draft == "draft-04") draft = kDraft04;
  if (options.default_draft == "draft-07") draft = kDraft07;
  if (!draft) return Status::Invalid("schema", std::string("unknown default draft"));
  if (source.is_object()) {
    if (auto named = source.find("$schema"); named != source.end()) {
      if (!named->is_string()) return Status::Invalid("schema", "$schema must be a string");
      const std::string& uri = named->get_ref<const std::string&>();
      draft = DraftOf(uri);
      if (!draft) {
        return Status::Invalid(
            "schema", fmt::format("$schema '{}' is not supported; {}", uri, kSupportedDrafts));
      }
    }
  } else if (draft->version == valijson::SchemaParser::kDraft4) {
    return Status::Invalid("schema", "draft-04 has no boolean schemas; use {} or {\"not\": {}}");
  }

  auto compiled = std::make_shared<CompiledSchema>(source, draft->name);
  if (Status s = CollectPatterns(source, compiled->patterns()); !s.ok()) return s;

  std::string remote;  // the first remote document asked for, when refused
  Status fetched_patterns;
  auto fetch = [&](const std::string& uri) -> const Json* {
    std::optional<std::string> text = options.fetch ? options.fetch(uri) : std::nullopt;
    if (!text) {
      if (remote.empty()) remote = uri;
      return nullptr;
    }
    Json document = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded()) return nullptr;
    if (Status s = CollectPatterns(document, compiled->patterns()); !s.ok()) {
      fetched_patterns = s;
      return nullptr;
    }
    return new Json(std::move(document));
  };
  auto free = [](const Json* document) { delete document; };
  try {
    valijson::SchemaParser parser(draft->version);
    parser.populateSchema(Adapter(source), compiled->schema(), fetch, free);
  } catch (const std::exception& error) {
    if (!fetched_patterns.ok()) return fetched_patterns;
    if (!remote.empty() && !options.fetch) {
      return Status::Invalid("schema",
                             fmt::format("$ref to '{}' is remote; only refs within the schema "
                                         "(\"#/definitions/...\") are supported",
                                         remote));
    }
    return Status::Invalid("schema",
                           fmt::format("does not compile as {}: {}", draft->name, error.what()));
  }
  return std::shared_ptr<const JsonSchema>(std::move(compiled));
}

}  // namespace

Result<std::shared_ptr<const JsonSchema>> JsonSchema::Compile(std::string_view schema_json) {
  return schemas::Compile(schema_json, testing::CompileOptions{});
}

namespace testing {

Result<std::shared_ptr<const JsonSchema>> CompileWithOptions(std::string_view schema_json,
                                                             const CompileOptions& options) {
  return schemas::Compile(schema_json, options);
}

}  // namespace testing
}  // namespace indelible::schemas

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
