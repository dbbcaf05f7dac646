// api/schemas.h: the schema registry's documents, both ways.
#include "api/schemas.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "api/decoding.h"
#include "core/event_json.h"
#include "core/json_spans.h"

namespace indelible::api {
namespace json = boost::json;

using decoding::NotOurs;
using decoding::ParseObject;

namespace {

constexpr std::string_view kVersionWhat = "schema version";
constexpr std::string_view kTypeWhat = "schema type";
constexpr std::string_view kUpcasterWhat = "upcaster";
constexpr std::string_view kSettingsWhat = "schema settings";

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const auto first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

bool IsJson(std::string_view text) {
  boost::system::error_code ec;
  json::parse(json::string_view(text.data(), text.size()), ec);
  return !ec;
}

// JSON text embedded as a value, as it is; text that is not JSON (never
// registered so, but a document must stay one) goes as a string.
std::string EmbeddedJson(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  return IsJson(trimmed) ? std::string(trimmed) : QuoteJson(text);
}

json::object SettingsObject(const SchemaSettings& settings) {
  json::object out;
  if (settings.mode) out["mode"] = ToString(*settings.mode);
  if (settings.compatibility) out["compatibility"] = ToString(*settings.compatibility);
  return out;
}

// The settings of an answer.
Result<SchemaSettings> SettingsFrom(const json::value& value) {
  if (!value.is_object()) return NotOurs(kSettingsWhat, "not a JSON object");
  const json::object& object = value.as_object();
  SchemaSettings out;
  if (const json::value* mode = object.if_contains("mode")) {
    std::optional<SchemaMode> parsed;
    if (mode->is_string()) parsed = ParseSchemaMode(mode->as_string());
    if (!parsed) return NotOurs(kSettingsWhat, "'mode' is not off, warn or enforce");
    out.mode = parsed;
  }
  if (const json::value* compatibility = object.if_contains("compatibility")) {
    std::optional<Compatibility> parsed;
    if (compatibility->is_string()) parsed = ParseCompatibility(compatibility->as_string());
    if (!parsed) return NotOurs(kSettingsWhat, "'compatibility' is not a compatibility mode");
    out.compatibility = parsed;
  }
  return out;
}

// A raw member that must be there: the JSON text of its value.
Result<std::string> RawRequired(std::string_view body, std::string_view key,
                                std::string_view what) {
  auto raw = RawMember(body, key);
  if (!raw) return NotOurs(what, fmt::format("no '{}'", key));
  return std::string(*raw);
}

// A string member that must be there and not be empty.
Result<std::string> NonEmptyString(const json::object& object, std::string_view key,
                                   std::string_view what) {
  std::string out = decoding::StringMember(object, key);
  if (out.empty()) return NotOurs(what, fmt::format("no '{}'", key));
  return out;
}

// The documents inside an array member, each decoded from its own text.
template <typename T, typename Decode>
Result<std::vector<T>> RawList(std::string_view body, std::string_view key, std::string_view what,
                               Decode decode) {
  auto raw = RawMember(body, key);
  if (!raw) return NotOurs(what, fmt::format("no '{}'", key));
  auto elements = RawElements(*raw);
  if (!elements) return NotOurs(what, fmt::format("'{}' is not an array", key));
  std::vector<T> out;
  out.reserve(elements->size());
  for (std::string_view element : *elements) {
    auto item = decode(element);
    if (!item.ok()) return item.status();
    out.push_back(std::move(*item));
  }
  return out;
}

std::string CategoriesJson(const SchemaOverview& overview) {
  json::object categories;
  for (const auto& [category, settings] : overview.categories)
    categories[category] = SettingsObject(settings);
  return json::serialize(categories);
}

// categories and default of GET /schemas and GET /schema-settings.
Status SettingsListFrom(const json::object& object, std::string_view what, SchemaOverview* out) {
  const json::value* categories = object.if_contains("categories");
  if (categories == nullptr || !categories->is_object())
    return NotOurs(what, "'categories' is not an object");
  for (const auto& member : categories->as_object()) {
    auto settings = SettingsFrom(member.value());
    if (!settings.ok()) return settings.status();
    out->categories.emplace_back(std::string(member.key()), *settings);
  }
  const json::value* fallback = object.if_contains("default");
  if (fallback == nullptr) return NotOurs(what, "no 'default'");
  auto settings = SettingsFrom(*fallback);
  if (!settings.ok()) return settings.status();
  out->default_settings = *settings;
  return Status::Ok();
}

// A request body as an object, or invalid naming the body.
Result<json::object> RequestObject(std::string_view body, std::string_view shape) {
  boost::system::error_code ec;
  json::value parsed = json::parse(json::string_view(body.data(), body.size()), ec);
  if (ec || !parsed.is_object())
    return Status::Invalid("body", fmt::format("expected a JSON object: {}", shape));
  return std::move(parsed.as_object());
}

// An optional string member of a request: empty when absent.
Result<std::string> OptionalString(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr) return std::string();
  if (!value->is_string()) return Status::Invalid(std::string(key), "a string");
  return std::string(value->as_string());
}

Result<std::string> RequiredString(const json::object& object, std::string_view key,
                                   std::string_view meaning) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || !value->is_string() || value->as_string().empty())
    return Status::Invalid(std::string(key), fmt::format("required: {}", meaning));
  return std::string(value->as_string());
}

}  // namespace

// Versions.

std::string SchemaVersionToJson(const SchemaVersion& version) {
  return fmt::format(R"({{"type":{},"version":{},"number":{},"schema":{},"registeredAt":{}}})",
                     QuoteJson(version.type), QuoteJson(version.version), version.number,
                     EmbeddedJson(version.schema), version.registered_ms);
}

Result<SchemaVersion> SchemaVersionFromJson(std::string_view body) {
  auto object = ParseObject(body, kVersionWhat);
  if (!object.ok()) return object.status();
  SchemaVersion out;
  auto type = NonEmptyString(*object, "type", kVersionWhat);
  if (!type.ok()) return type.status();
  out.type = std::move(*type);
  auto version = NonEmptyString(*object, "version", kVersionWhat);
  if (!version.ok()) return version.status();
  out.version = std::move(*version);
  auto number = decoding::RequiredInteger(*object, "number", kVersionWhat);
  if (!number.ok()) return number.status();
  if (*number < 1 || *number > UINT32_MAX) return NotOurs(kVersionWhat, "'number' is out of range");
  out.number = static_cast<std::uint32_t>(*number);
  auto schema = RawRequired(body, "schema", kVersionWhat);
  if (!schema.ok()) return schema.status();
  out.schema = std::move(*schema);
  auto registered = decoding::RequiredInteger(*object, "registeredAt", kVersionWhat);
  if (!registered.ok()) return registered.status();
  out.registered_ms = *registered;
  return out;
}

// Settings.

std::string SchemaSettingsToJson(const SchemaSettings& settings) {
  return json::serialize(SettingsObject(settings));
}

Result<SchemaSettings> SchemaSettingsFromJson(std::string_view body) {
  auto object = ParseObject(body, kSettingsWhat);
  if (!object.ok()) return object.status();
  return SettingsFrom(*object);
}

Result<SchemaSettings> SchemaSettingsRequestFromJson(std::string_view body) {
  auto object = RequestObject(body, R"({"mode": "enforce", "compatibility": "backward"})");
  if (!object.ok()) return object.status();
  SchemaSettings out;
  for (const auto& member : *object) {
    const std::string key(member.key());
    const json::value& value = member.value();
    if (key == "mode") {
      if (value.is_string()) out.mode = ParseSchemaMode(value.as_string());
      if (!out.mode) return Status::Invalid("mode", "off, warn or enforce");
    } else if (key == "compatibility") {
      if (value.is_string()) out.compatibility = ParseCompatibility(value.as_string());
      if (!out.compatibility)
        return Status::Invalid("compatibility",
                               "none, backward, backward_transitive, forward, forward_transitive, "
                               "full or full_transitive");
    } else {
      return Status::Invalid(key.substr(0, 64), "not a setting: mode or compatibility");
    }
  }
  return out;
}

// Upcasters.

std::string UpcasterToJson(const DeclarativeUpcaster& upcaster) {
  return fmt::format(R"({{"type":{},"from":{},"to":{},"renames":{},"defaults":{},"patch":{}}})",
                     QuoteJson(upcaster.type), QuoteJson(upcaster.from), QuoteJson(upcaster.to),
                     EmbeddedJson(upcaster.renames), EmbeddedJson(upcaster.defaults),
                     EmbeddedJson(upcaster.patch));
}

Result<DeclarativeUpcaster> UpcasterFromJson(std::string_view body) {
  auto object = ParseObject(body, kUpcasterWhat);
  if (!object.ok()) return object.status();
  DeclarativeUpcaster out;
  for (auto [key, field] :
       {std::pair{"type", &out.type}, std::pair{"from", &out.from}, std::pair{"to", &out.to}}) {
    auto value = NonEmptyString(*object, key, kUpcasterWhat);
    if (!value.ok()) return value.status();
    *field = std::move(*value);
  }
  for (auto [key, field] : {std::pair{"renames", &out.renames},
                            std::pair{"defaults", &out.defaults}, std::pair{"patch", &out.patch}}) {
    auto raw = RawRequired(body, key, kUpcasterWhat);
    if (!raw.ok()) return raw.status();
    *field = std::move(*raw);
  }
  return out;
}

std::string UpcasterRequestToJson(const DeclarativeUpcaster& upcaster) {
  return fmt::format(R"({{"from":{},"to":{},"renames":{},"defaults":{},"patch":{}}})",
                     QuoteJson(upcaster.from), QuoteJson(upcaster.to),
                     EmbeddedJson(upcaster.renames), EmbeddedJson(upcaster.defaults),
                     EmbeddedJson(upcaster.patch));
}

Result<DeclarativeUpcaster> UpcasterRequestFromJson(std::string_view type, std::string_view body) {
  auto object = RequestObject(
      body, R"({"from": "V1", "to": "V2", "renames": {}, "defaults": {}, "patch": []})");
  if (!object.ok()) return object.status();
  DeclarativeUpcaster out;
  out.type = std::string(type);
  auto from = RequiredString(*object, "from", "the version label the upcaster reads");
  if (!from.ok()) return from.status();
  out.from = std::move(*from);
  auto to = RequiredString(*object, "to", "the version label registered right after 'from'");
  if (!to.ok()) return to.status();
  out.to = std::move(*to);
  struct Part {
    std::string_view key;
    std::string* field;
    bool array;
  };
  for (const Part& part :
       {Part{"renames", &out.renames, false}, Part{"defaults", &out.defaults, false},
        Part{"patch", &out.patch, true}}) {
    const json::value* value = object->if_contains(part.key);
    if (value == nullptr) continue;  // the default: nothing to do
    if (part.array ? !value->is_array() : !value->is_object())
      return Status::Invalid(std::string(part.key), part.array
                                                        ? "a JSON Patch: an array of operations"
                                                        : "an object of JSON Pointers");
    *part.field = std::string(*RawMember(body, part.key));
  }
  for (const auto& member : *object) {
    const std::string_view key = member.key();
    if (key != "from" && key != "to" && key != "renames" && key != "defaults" && key != "patch")
      return Status::Invalid(std::string(key.substr(0, 64)),
                             "not a part of an upcaster: from, to, renames, defaults, patch");
  }
  return out;
}

// Types.

std::string SchemaTypeToJson(const SchemaType& type) {
  std::string out = R"({"type":)" + QuoteJson(type.type) + R"(,"versions":[)";
  for (std::size_t i = 0; i < type.versions.size(); ++i) {
    if (i > 0) out += ',';
    out += SchemaVersionToJson(type.versions[i]);
  }
  out += R"(],"settings":)" + SchemaSettingsToJson(type.settings) + R"(,"upcasters":[)";
  for (std::size_t i = 0; i < type.upcasters.size(); ++i) {
    if (i > 0) out += ',';
    out += UpcasterToJson(type.upcasters[i]);
  }
  return out + "]}";
}

Result<SchemaType> SchemaTypeFromJson(std::string_view body) {
  auto object = ParseObject(body, kTypeWhat);
  if (!object.ok()) return object.status();
  SchemaType out;
  auto type = NonEmptyString(*object, "type", kTypeWhat);
  if (!type.ok()) return type.status();
  out.type = std::move(*type);
  auto versions = RawList<SchemaVersion>(body, "versions", kTypeWhat, SchemaVersionFromJson);
  if (!versions.ok()) return versions.status();
  out.versions = std::move(*versions);
  const json::value* settings = object->if_contains("settings");
  if (settings == nullptr) return NotOurs(kTypeWhat, "no 'settings'");
  auto parsed = SettingsFrom(*settings);
  if (!parsed.ok()) return parsed.status();
  out.settings = *parsed;
  auto upcasters = RawList<DeclarativeUpcaster>(body, "upcasters", kTypeWhat, UpcasterFromJson);
  if (!upcasters.ok()) return upcasters.status();
  out.upcasters = std::move(*upcasters);
  return out;
}

// The registry and its settings.

std::string SchemaOverviewToJson(const SchemaOverview& overview) {
  std::string out = R"({"types":[)";
  for (std::size_t i = 0; i < overview.types.size(); ++i) {
    if (i > 0) out += ',';
    out += SchemaTypeToJson(overview.types[i]);
  }
  return out + R"(],"categories":)" + CategoriesJson(overview) + R"(,"default":)" +
         SchemaSettingsToJson(overview.default_settings) + "}";
}

Result<SchemaOverview> SchemaOverviewFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "schema registry";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  SchemaOverview out;
  auto types = RawList<SchemaType>(body, "types", kWhat, SchemaTypeFromJson);
  if (!types.ok()) return types.status();
  out.types = std::move(*types);
  if (Status s = SettingsListFrom(*object, kWhat, &out); !s.ok()) return s;
  return out;
}

std::string SchemaSettingsListToJson(const SchemaOverview& settings) {
  return R"({"categories":)" + CategoriesJson(settings) + R"(,"default":)" +
         SchemaSettingsToJson(settings.default_settings) + "}";
}

Result<SchemaOverview> SchemaSettingsListFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "schema settings list";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  SchemaOverview out;
  if (Status s = SettingsListFrom(*object, kWhat, &out); !s.ok()) return s;
  return out;
}

// Registration and its check.

std::string RegisterRequestToJson(const RegisterRequest& request) {
  return fmt::format(R"({{"version":{},"schema":{}}})", QuoteJson(request.version),
                     EmbeddedJson(request.schema));
}

Result<RegisterRequest> RegisterRequestFromJson(std::string_view body) {
  auto object = RequestObject(body, R"({"version": "V1", "schema": {"type": "object"}})");
  if (!object.ok()) return object.status();
  RegisterRequest out;
  auto version = RequiredString(*object, "version", "the label events carry in 'schema' (\"V2\")");
  if (!version.ok()) return version.status();
  out.version = std::move(*version);
  if (!object->contains("schema"))
    return Status::Invalid("schema", "required: the JSON Schema, as a JSON value");
  out.schema = std::string(*RawMember(body, "schema"));
  return out;
}

std::string CheckRequestToJson(std::string_view schema) {
  return R"({"schema":)" + EmbeddedJson(schema) + "}";
}

Result<std::string> CheckRequestFromJson(std::string_view body) {
  auto object = RequestObject(body, R"({"schema": {"type": "object"}})");
  if (!object.ok()) return object.status();
  if (!object->contains("schema"))
    return Status::Invalid("schema", "required: the JSON Schema, as a JSON value");
  return std::string(*RawMember(body, "schema"));
}

std::string CompatibilityAnswerToJson(const CompatibilityAnswer& answer) {
  if (answer.compatible) return R"({"compatible":true})";
  return R"({"compatible":false,"reason":)" + QuoteJson(answer.reason) + "}";
}

Result<CompatibilityAnswer> CompatibilityAnswerFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "compatibility answer";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  const json::value* compatible = object->if_contains("compatible");
  if (compatible == nullptr || !compatible->is_bool())
    return NotOurs(kWhat, "'compatible' is not true or false");
  CompatibilityAnswer out;
  out.compatible = compatible->as_bool();
  if (!out.compatible) {
    out.reason = decoding::StringMember(*object, "reason");
    if (out.reason.empty()) return NotOurs(kWhat, "no 'reason'");
  }
  return out;
}

// Validation.

std::string ValidateRequestToJson(const ValidateRequest& request) {
  std::string out = "{";
  if (!request.version.empty()) out += R"("version":)" + QuoteJson(request.version) + ",";
  return out + R"("data":)" + EmbeddedJson(request.data) + "}";
}

Result<ValidateRequest> ValidateRequestFromJson(std::string_view body) {
  auto object = RequestObject(body, R"({"version": "V2", "data": {...}})");
  if (!object.ok()) return object.status();
  ValidateRequest out;
  auto version = OptionalString(*object, "version");
  if (!version.ok()) return version.status();
  out.version = std::move(*version);
  if (!object->contains("data"))
    return Status::Invalid("data", "required: the event's data, as a JSON value");
  out.data = std::string(*RawMember(body, "data"));
  return out;
}

std::string ValidationAnswerToJson(const ValidationAnswer& answer) {
  if (answer.valid) return R"({"valid":true})";
  return R"({"valid":false,"pointer":)" + QuoteJson(answer.pointer) + R"(,"rule":)" +
         QuoteJson(answer.rule) + "}";
}

Result<ValidationAnswer> ValidationAnswerFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "validation answer";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  const json::value* valid = object->if_contains("valid");
  if (valid == nullptr || !valid->is_bool()) return NotOurs(kWhat, "'valid' is not true or false");
  ValidationAnswer out;
  out.valid = valid->as_bool();
  if (!out.valid) {
    const json::value* pointer = object->if_contains("pointer");
    if (pointer == nullptr || !pointer->is_string()) return NotOurs(kWhat, "no 'pointer'");
    out.pointer = std::string(pointer->as_string());
    out.rule = decoding::StringMember(*object, "rule");
    if (out.rule.empty()) return NotOurs(kWhat, "no 'rule'");
  }
  return out;
}

}  // namespace indelible::api
