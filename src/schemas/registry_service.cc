#include "schemas/registry_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>

#include "core/text.h"
#include "schemas/compatibility.h"
#include "schemas/names.h"

namespace indelible::schemas {
namespace json = boost::json;
namespace {

// Two processes changing the registry at once: the loser reads again and
// decides again. More rounds than that means something keeps writing.
constexpr int kChangeAttempts = 20;

// The schema as JSON text, checked: JSON, an object or a boolean, and one
// the validator compiles.
Result<json::value> ParseSchema(std::string_view schema) {
  boost::system::error_code ec;
  json::value parsed = json::parse(schema, ec);
  if (ec) return Status::Invalid("schema", "the schema is not JSON: " + ec.message());
  if (!parsed.is_object() && !parsed.is_bool())
    return Status::Invalid("schema", "a JSON Schema is an object (or true/false)");
  if (auto compiled = JsonSchema::Compile(schema); !compiled.ok())
    return Status::Invalid("schema", compiled.status().message());
  return parsed;
}

Status ValidateCategory(std::string_view category) {
  if (category.empty() || category.size() > 256 || !IsValidUtf8(category) ||
      HasControlCharacter(category) || category.find_first_of("-/") != std::string_view::npos)
    return Status::Invalid("category",
                           "a category is 1 to 256 bytes of UTF-8 without control characters, "
                           "'-' or '/' (the part of a stream name before the first '-' or '/')");
  return Status::Ok();
}

bool SameJson(std::string_view a, std::string_view b) {
  boost::system::error_code ea, eb;
  json::value va = json::parse(a, ea);
  json::value vb = json::parse(b, eb);
  return !ea && !eb && va == vb;
}

std::string Labels(const TypeEntry& entry) {
  std::string out;
  for (const SchemaVersion& v : entry.versions) {
    if (!out.empty()) out += ", ";
    out += v.version;
  }
  return out;
}

SchemaType Describe(const TypeEntry& entry) {
  SchemaType type;
  type.type = entry.type;
  type.versions = entry.versions;
  type.settings = entry.settings;
  for (const UpcastStep& step : entry.steps)
    if (step.declared) type.upcasters.push_back(*step.declared);
  return type;
}

}  // namespace

RegistryService::RegistryService(Store& inner)
    : inner_(inner), registry_(std::make_shared<const Registry>()) {}

std::shared_ptr<const Registry> RegistryService::snapshot() const {
  MutexLock lock(&snapshot_mu_);
  return registry_;
}

void RegistryService::Publish(std::shared_ptr<const Registry> registry) {
  MutexLock lock(&snapshot_mu_);
  registry_ = std::move(registry);
}

Status RegistryService::Refresh() {
  MutexLock lock(&refresh_mu_);
  std::shared_ptr<const Registry> current = snapshot();
  auto head = inner_.Head(kSchemasStream);
  if (!head.ok())
    return head.status().code() == ErrorCode::kNotFound ? Status::Ok() : head.status();
  if (head->version.value() < current->next_version) return Status::Ok();
  auto next = std::make_shared<Registry>(*current);
  ReadStreamOptions options;
  options.from = StreamVersion(next->next_version);
  options.include_deleted = true;
  options.raw = true;
  auto cursor = inner_.ReadStream(kSchemasStream, options);
  if (!cursor.ok()) return cursor.status();
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    if (Status s = ApplyEvent(event, next.get()); !s.ok())
      std::fprintf(stderr, "indelible: $schemas version %lld skipped: %s\n",
                   static_cast<long long>(event.version.value()), s.ToString().c_str());
  }
  if (!(*cursor)->status().ok()) return (*cursor)->status();
  ApplyFunctions(functions_, next.get());
  Publish(std::move(next));
  return Status::Ok();
}

Status RegistryService::Change(const Decision& decide) {
  for (int attempt = 0; attempt < kChangeAttempts; ++attempt) {
    if (Status s = Refresh(); !s.ok()) return s;
    std::shared_ptr<const Registry> registry = snapshot();
    auto decided = decide(*registry);
    if (!decided.ok()) return decided.status();
    if (!*decided) return Status::Ok();
    const Expected expected = registry->next_version == 0
                                  ? Expected::no_stream()
                                  : Expected::exactly(StreamVersion(registry->next_version - 1));
    CommitOptions options;
    options.allow_reserved = true;
    std::vector<EventData> events;
    events.push_back(std::move(**decided));
    auto written =
        inner_.Commit({{std::string(kSchemasStream), expected, std::move(events)}}, options);
    if (written.ok()) return Refresh();
    if (written.status().code() != ErrorCode::kConflict) return written.status();
  }
  return Status::Unavailable(
      "the schema registry ($schemas) kept changing under this change; try again");
}

Result<Schemas::RegisterResult> RegistryService::Register(std::string_view type,
                                                          std::string_view version,
                                                          std::string_view schema,
                                                          std::string_view principal) {
  if (Status s = ValidateTypeName(type); !s.ok()) return s;
  if (Status s = ValidateVersionLabel(version); !s.ok()) return s;
  auto parsed = ParseSchema(schema);
  if (!parsed.ok()) return parsed.status();
  const std::string canonical = json::serialize(*parsed);
  bool created = true;
  Status changed = Change([&](const Registry& registry) -> Result<std::optional<EventData>> {
    const TypeEntry* entry = registry.Find(type);
    std::vector<std::string> previous, labels;
    if (entry) {
      if (auto at = entry->index.find(version); at != entry->index.end()) {
        if (!SameJson(entry->versions[at->second].schema, canonical))
          return Status::Conflict(
              fmt::format("{} {} is registered with another schema; versions are never "
                          "edited: register the new schema as a new version",
                          Printable(type), Printable(version)),
              std::nullopt);
        created = false;
        return std::optional<EventData>();
      }
      for (const SchemaVersion& v : entry->versions) {
        previous.push_back(v.schema);
        labels.push_back(v.version);
      }
    }
    if (Status s = CheckCompatibility(registry.CompatibilityFor(type), previous, labels, canonical);
        !s.ok())
      return s;
    created = true;
    return std::optional<EventData>(RegisteredEvent(type, version, canonical, principal));
  });
  if (!changed.ok()) return changed;
  auto found = Find(type, version);
  if (!found) return Status::Internal("a registered schema version is not in the registry");
  return RegisterResult{std::move(*found), created};
}

Status RegistryService::CheckCompatible(std::string_view type, std::string_view schema) {
  if (Status s = ValidateTypeName(type); !s.ok()) return s;
  auto parsed = ParseSchema(schema);
  if (!parsed.ok()) return parsed.status();
  if (Status s = Refresh(); !s.ok()) return s;
  std::shared_ptr<const Registry> registry = snapshot();
  std::vector<std::string> previous, labels;
  if (const TypeEntry* entry = registry->Find(type)) {
    for (const SchemaVersion& v : entry->versions) {
      previous.push_back(v.schema);
      labels.push_back(v.version);
    }
  }
  return CheckCompatibility(registry->CompatibilityFor(type), previous, labels,
                            json::serialize(*parsed));
}

Status RegistryService::SetSettings(SettingsScope scope, std::string_view name,
                                    const SchemaSettings& settings, std::string_view principal) {
  if (!settings.mode && !settings.compatibility)
    return Status::Invalid("settings", "nothing to set: give a mode, a compatibility or both");
  return Change([&](const Registry& registry) -> Result<std::optional<EventData>> {
    SchemaSettings now;
    if (scope == SettingsScope::kType) {
      if (const TypeEntry* entry = registry.Find(name)) now = entry->settings;
    } else if (scope == SettingsScope::kCategory) {
      if (auto it = registry.categories.find(std::string(name)); it != registry.categories.end())
        now = it->second;
    } else {
      now = registry.defaults;
    }
    const bool same = (!settings.mode || settings.mode == now.mode) &&
                      (!settings.compatibility || settings.compatibility == now.compatibility);
    if (same) return std::optional<EventData>();
    return std::optional<EventData>(SettingsEvent(scope, name, settings, principal));
  });
}

Status RegistryService::SetTypeSettings(std::string_view type, const SchemaSettings& settings,
                                        std::string_view principal) {
  if (Status s = ValidateTypeName(type); !s.ok()) return s;
  return SetSettings(SettingsScope::kType, type, settings, principal);
}

Status RegistryService::SetCategorySettings(std::string_view category,
                                            const SchemaSettings& settings,
                                            std::string_view principal) {
  if (Status s = ValidateCategory(category); !s.ok()) return s;
  return SetSettings(SettingsScope::kCategory, category, settings, principal);
}

Status RegistryService::SetDefaultSettings(const SchemaSettings& settings,
                                           std::string_view principal) {
  return SetSettings(SettingsScope::kDefault, {}, settings, principal);
}

Status RegistryService::AddUpcaster(const DeclarativeUpcaster& upcaster,
                                    std::string_view principal) {
  if (Status s = ValidateTypeName(upcaster.type); !s.ok()) return s;
  if (Status s = ValidateVersionLabel(upcaster.from, "from"); !s.ok()) return s;
  if (Status s = ValidateVersionLabel(upcaster.to, "to"); !s.ok()) return s;
  auto transform = Transform::Parse(upcaster.renames, upcaster.defaults, upcaster.patch);
  if (!transform.ok()) return transform.status();
  return Change([&](const Registry& registry) -> Result<std::optional<EventData>> {
    const TypeEntry* entry = registry.Find(upcaster.type);
    if (!entry || entry->versions.empty())
      return Status::NotFound(
          fmt::format("no schemas of type '{}': register its versions first", upcaster.type));
    auto from = entry->index.find(upcaster.from);
    if (from == entry->index.end())
      return Status::NotFound(fmt::format("{} has no version {} (registered: {})", upcaster.type,
                                          upcaster.from, Labels(*entry)));
    if (from->second + 1 >= entry->versions.size() ||
        entry->versions[from->second + 1].version != upcaster.to)
      return Status::Invalid(
          "to", fmt::format("an upcaster goes from a version to the next one registered: after {} "
                            "of {} comes {}",
                            upcaster.from, upcaster.type,
                            from->second + 1 < entry->versions.size()
                                ? entry->versions[from->second + 1].version
                                : std::string("nothing yet")));
    const UpcastStep& step = entry->steps[from->second];
    if (step.declared) {
      const DeclarativeUpcaster& old = *step.declared;
      if (SameJson(old.renames, upcaster.renames) && SameJson(old.defaults, upcaster.defaults) &&
          SameJson(old.patch, upcaster.patch))
        return std::optional<EventData>();
      return Status::Conflict(fmt::format("{} {} -> {} has another upcaster already; upcasters "
                                          "are never edited",
                                          upcaster.type, upcaster.from, upcaster.to),
                              std::nullopt);
    }
    return std::optional<EventData>(UpcasterEvent(upcaster, principal));
  });
}

Status RegistryService::AddUpcaster(std::string type, std::string from, std::string to,
                                    UpcastFunction upcast) {
  if (Status s = ValidateTypeName(type); !s.ok()) return s;
  if (Status s = ValidateVersionLabel(from, "from"); !s.ok()) return s;
  if (Status s = ValidateVersionLabel(to, "to"); !s.ok()) return s;
  if (!upcast) return Status::Invalid("upcast", "the upcaster function is empty");
  MutexLock lock(&refresh_mu_);
  functions_[{std::move(type), std::move(from)}] = {std::move(to), std::move(upcast)};
  auto next = std::make_shared<Registry>(*snapshot());
  ApplyFunctions(functions_, next.get());
  Publish(std::move(next));
  return Status::Ok();
}

std::vector<SchemaType> RegistryService::List() {
  std::shared_ptr<const Registry> registry = snapshot();
  std::vector<SchemaType> types;
  types.reserve(registry->types.size());
  for (const auto& [name, entry] : registry->types) types.push_back(Describe(entry));
  std::sort(types.begin(), types.end(),
            [](const SchemaType& a, const SchemaType& b) { return a.type < b.type; });
  return types;
}

std::optional<SchemaType> RegistryService::Find(std::string_view type) {
  std::shared_ptr<const Registry> registry = snapshot();
  const TypeEntry* entry = registry->Find(type);
  if (!entry) return std::nullopt;
  return Describe(*entry);
}

std::optional<SchemaVersion> RegistryService::Find(std::string_view type,
                                                   std::string_view version) {
  std::shared_ptr<const Registry> registry = snapshot();
  const TypeEntry* entry = registry->Find(type);
  if (!entry) return std::nullopt;
  auto at = entry->index.find(version);
  if (at == entry->index.end()) return std::nullopt;
  return entry->versions[at->second];
}

std::vector<std::pair<std::string, SchemaSettings>> RegistryService::CategorySettings() {
  std::shared_ptr<const Registry> registry = snapshot();
  return {registry->categories.begin(), registry->categories.end()};
}

SchemaSettings RegistryService::DefaultSettings() { return snapshot()->defaults; }

Status RegistryService::Validate(const EventData& event) {
  std::shared_ptr<const Registry> registry = snapshot();
  const TypeEntry* entry = registry->Find(event.type);
  if (!entry || entry->versions.empty())
    return Status::NotFound(fmt::format("no schemas of type '{}'", Printable(event.type)));
  std::size_t at = entry->versions.size() - 1;  // as an append labels it
  if (!event.schema.empty()) {
    auto found = entry->index.find(event.schema);
    if (found == entry->index.end())
      return Status::NotFound(fmt::format("{} has no version {} (registered: {})",
                                          Printable(event.type), Printable(event.schema),
                                          Labels(*entry)));
    at = found->second;
  }
  if (auto failure = entry->compiled[at]->Validate(event.data))
    return Status::Invalid(
        "data" + failure->pointer,
        fmt::format("{} {} fails its schema at {}: {}", Printable(event.type),
                    entry->versions[at].version,
                    failure->pointer.empty() ? "the root" : failure->pointer, failure->rule));
  return Status::Ok();
}

Status RegistryService::CheckEvent(const Registry& registry, std::string_view stream,
                                   EventData& event, std::string_view append_at,
                                   std::size_t index) {
  const TypeEntry* entry = registry.Find(event.type);
  const bool registered = entry && !entry->versions.empty();
  // Labelled with the shape it is checked against, so reads know it forever.
  if (registered && event.schema.empty()) event.schema = entry->versions.back().version;
  const Registry::EffectiveMode mode = registry.ModeFor(event.type, stream);
  if (mode.mode == SchemaMode::kOff) return Status::Ok();
  std::optional<SchemaFailure> failure;
  std::string why;
  if (!registered) {
    if (!mode.from_category) return Status::Ok();
    why = fmt::format(
        "type '{}' has no schema, and category '{}' enforces schemas: register one "
        "(POST /schemas/{{type}}/versions)",
        Printable(event.type), Printable(StreamCategory(stream)));
  } else if (auto version = entry->IndexOf(event.schema); !version) {
    why = fmt::format("schema version '{}' of '{}' is not registered (registered: {})",
                      Printable(event.schema), Printable(event.type), Labels(*entry));
  } else if (event.content_type != kJsonContentType) {
    why = fmt::format("data is '{}', not JSON: a JSON Schema checks JSON",
                      Printable(event.content_type));
  } else {
    validated_.fetch_add(1, std::memory_order_relaxed);
    failure = entry->compiled[*version]->Validate(event.data);
    if (!failure) return Status::Ok();
  }
  // Named only now: formatting it for every event cost a tenth of a check.
  const std::string at = fmt::format("{}events[{}]", append_at, index);
  const std::string field = at + ".data" + (failure ? failure->pointer : std::string());
  const std::string message =
      failure ? fmt::format("{} ({} {}) fails its schema at {}: {}", at, Printable(event.type),
                            Printable(event.schema),
                            failure->pointer.empty() ? "the root" : failure->pointer, failure->rule)
              : fmt::format("{} ({}): {}", at, Printable(event.type), why);
  if (mode.mode == SchemaMode::kEnforce) {
    refused_.fetch_add(1, std::memory_order_relaxed);
    return Status::Invalid(field, message);
  }
  // warn: written anyway; logged at the 1st, 2nd, 4th, 8th... so a flood
  // of bad events does not flood the log.
  const std::uint64_t n = warned_.fetch_add(1, std::memory_order_relaxed) + 1;
  if ((n & (n - 1)) == 0)
    std::fprintf(stderr, "indelible: schema warning %llu (mode warn: written anyway): %s\n",
                 static_cast<unsigned long long>(n), message.c_str());
  return Status::Ok();
}

Status RegistryService::CheckCommit(std::vector<AppendRequest>& appends) {
  std::shared_ptr<const Registry> registry = snapshot();
  if (registry->empty()) return Status::Ok();
  for (std::size_t a = 0; a < appends.size(); ++a) {
    AppendRequest& append = appends[a];
    if (!append.stream.empty() && append.stream.front() == '$') continue;
    const std::string at = appends.size() == 1 ? std::string() : fmt::format("appends[{}].", a);
    for (std::size_t e = 0; e < append.events.size(); ++e) {
      EventData& event = append.events[e];
      if (!event.type.empty() && event.type.front() == '$') continue;
      if (Status s = CheckEvent(*registry, append.stream, event, at, e); !s.ok()) return s;
    }
  }
  return Status::Ok();
}

SchemaStats RegistryService::stats() const {
  SchemaStats stats;
  stats.validated = validated_.load(std::memory_order_relaxed);
  stats.refused = refused_.load(std::memory_order_relaxed);
  stats.warned = warned_.load(std::memory_order_relaxed);
  stats.upcast = upcast_counters_.upcast.load(std::memory_order_relaxed);
  stats.upcast_failures = upcast_counters_.failures.load(std::memory_order_relaxed);
  stats.registry_version = static_cast<std::uint64_t>(snapshot()->next_version);
  return stats;
}

}  // namespace indelible::schemas
