#include "schemas/registry_log.h"

#include <fmt/format.h>

#include <boost/json.hpp>

namespace indelible::schemas {
namespace json = boost::json;
namespace {

std::string Metadata(std::string_view principal) {
  json::object metadata;
  if (!principal.empty()) metadata["principal"] = principal;
  return json::serialize(metadata);
}

EventData Event(std::string_view type, const json::object& data, std::string_view principal) {
  EventData event;
  event.type = std::string(type);
  event.data = json::serialize(data);
  event.metadata = Metadata(principal);
  return event;
}

std::string_view ScopeName(SettingsScope scope) {
  switch (scope) {
    case SettingsScope::kType:
      return "type";
    case SettingsScope::kCategory:
      return "category";
    case SettingsScope::kDefault:
      return "default";
  }
  return "default";
}

std::string StringAt(const json::object& object, std::string_view key) {
  const json::value* value = object.if_contains(key);
  if (!value || !value->is_string()) return {};
  return std::string(value->get_string());
}

Status ApplyRegistered(const json::object& data, std::int64_t timestamp_ms, Registry* registry) {
  const std::string type = StringAt(data, "type");
  const std::string version = StringAt(data, "version");
  const json::value* schema = data.if_contains("schema");
  if (type.empty() || version.empty() || !schema)
    return Status::Invalid("data", "a registration needs type, version and schema");
  TypeEntry& entry = registry->types[type];
  entry.type = type;
  if (entry.index.contains(version))
    return Status::Invalid("version", fmt::format("{} {} is registered already", type, version));
  SchemaVersion registered;
  registered.type = type;
  registered.version = version;
  registered.number = static_cast<std::uint32_t>(entry.versions.size() + 1);
  registered.schema = json::serialize(*schema);
  registered.registered_ms = timestamp_ms;
  auto compiled = JsonSchema::Compile(registered.schema);
  if (!compiled.ok()) return compiled.status();
  entry.index.emplace(version, entry.versions.size());
  entry.versions.push_back(std::move(registered));
  entry.compiled.push_back(std::move(*compiled));
  if (entry.versions.size() > 1) entry.steps.emplace_back();  // the new step, no upcaster yet
  return Status::Ok();
}

Status ApplySettings(const json::object& data, Registry* registry) {
  const std::string scope = StringAt(data, "scope");
  const std::string name = StringAt(data, "name");
  SchemaSettings* target = nullptr;
  if (scope == "type") {
    if (name.empty()) return Status::Invalid("name", "type settings need a type");
    TypeEntry& entry = registry->types[name];
    entry.type = name;
    target = &entry.settings;
  } else if (scope == "category") {
    if (name.empty()) return Status::Invalid("name", "category settings need a category");
    target = &registry->categories[name];
  } else if (scope == "default") {
    target = &registry->defaults;
  } else {
    return Status::Invalid("scope", fmt::format("unknown settings scope '{}'", scope));
  }
  if (auto mode = ParseSchemaMode(StringAt(data, "mode"))) target->mode = mode;
  if (auto compatibility = ParseCompatibility(StringAt(data, "compatibility")))
    target->compatibility = compatibility;
  return Status::Ok();
}

Status ApplyUpcaster(const json::object& data, Registry* registry) {
  DeclarativeUpcaster upcaster;
  upcaster.type = StringAt(data, "type");
  upcaster.from = StringAt(data, "from");
  upcaster.to = StringAt(data, "to");
  auto part = [&](std::string_view key, std::string_view empty) {
    const json::value* value = data.if_contains(key);
    return value ? json::serialize(*value) : std::string(empty);
  };
  upcaster.renames = part("renames", "{}");
  upcaster.defaults = part("defaults", "{}");
  upcaster.patch = part("patch", "[]");
  auto it = registry->types.find(upcaster.type);
  if (it == registry->types.end())
    return Status::Invalid("type", fmt::format("no schemas of type '{}'", upcaster.type));
  TypeEntry& entry = it->second;
  auto from = entry.IndexOf(upcaster.from);
  if (upcaster.from.empty() || !from || *from + 1 >= entry.versions.size() ||
      entry.versions[*from + 1].version != upcaster.to)
    return Status::Invalid("to", fmt::format("{} is not the version after {} of {}", upcaster.to,
                                             upcaster.from, upcaster.type));
  UpcastStep& step = entry.steps[*from];
  if (step.declared)
    return Status::Invalid("from", fmt::format("{} {} -> {} has an upcaster already", upcaster.type,
                                               upcaster.from, upcaster.to));
  auto transform = Transform::Parse(upcaster.renames, upcaster.defaults, upcaster.patch);
  if (!transform.ok()) return transform.status();
  step.transform = std::move(*transform);
  step.declared = std::move(upcaster);
  return Status::Ok();
}

}  // namespace

EventData RegisteredEvent(std::string_view type, std::string_view version,
                          std::string_view schema_json, std::string_view principal) {
  json::object data;
  data["type"] = type;
  data["version"] = version;
  data["schema"] = json::parse(schema_json);
  return Event(kSchemaRegisteredType, data, principal);
}

EventData SettingsEvent(SettingsScope scope, std::string_view name, const SchemaSettings& settings,
                        std::string_view principal) {
  json::object data;
  data["scope"] = ScopeName(scope);
  if (scope != SettingsScope::kDefault) data["name"] = name;
  if (settings.mode) data["mode"] = ToString(*settings.mode);
  if (settings.compatibility) data["compatibility"] = ToString(*settings.compatibility);
  return Event(kSchemaSettingsType, data, principal);
}

EventData UpcasterEvent(const DeclarativeUpcaster& upcaster, std::string_view principal) {
  json::object data;
  data["type"] = upcaster.type;
  data["from"] = upcaster.from;
  data["to"] = upcaster.to;
  data["renames"] = json::parse(upcaster.renames);
  data["defaults"] = json::parse(upcaster.defaults);
  data["patch"] = json::parse(upcaster.patch);
  return Event(kUpcasterRegisteredType, data, principal);
}

Status ApplyEvent(const EventView& event, Registry* registry) {
  registry->next_version = event.version.value() + 1;
  const bool known = event.type == kSchemaRegisteredType || event.type == kSchemaSettingsType ||
                     event.type == kUpcasterRegisteredType;
  if (!known) return Status::Ok();
  boost::system::error_code ec;
  json::value parsed = json::parse(event.data, ec);
  if (ec || !parsed.is_object())
    return Status::Invalid("data", fmt::format("{} at version {} is not a JSON object", event.type,
                                               event.version.value()));
  const json::object& data = parsed.get_object();
  if (event.type == kSchemaRegisteredType)
    return ApplyRegistered(data, event.timestamp_ms, registry);
  if (event.type == kSchemaSettingsType) return ApplySettings(data, registry);
  return ApplyUpcaster(data, registry);
}

void ApplyFunctions(const UpcastFunctions& functions, Registry* registry) {
  for (auto& [name, entry] : registry->types)
    for (UpcastStep& step : entry.steps) step.function = nullptr;
  for (const auto& [key, target] : functions) {
    auto it = registry->types.find(key.first);
    if (it == registry->types.end()) continue;
    TypeEntry& entry = it->second;
    auto from = entry.IndexOf(key.second);
    if (key.second.empty() || !from || *from + 1 >= entry.versions.size() ||
        entry.versions[*from + 1].version != target.first)
      continue;
    entry.steps[*from].function = target.second;
  }
  registry->Seal();
}

}  // namespace indelible::schemas
