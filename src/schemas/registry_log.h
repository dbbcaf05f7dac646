// The registry as events of $schemas, one per change, in the order they
// were made (docs/SCHEMAS.md): what a registration, a setting and an
// upcaster write, and how a Registry is built from them.
//
//   $schema-registered    {"type", "version", "schema": <the JSON Schema>}
//   $schema-settings      {"scope": "type"|"category"|"default", "name",
//                          "mode"?, "compatibility"?}
//   $upcaster-registered  {"type", "from", "to", "renames", "defaults", "patch"}
//
// Metadata: {"principal": "..."} when a principal made the change. The
// version number of a registered schema is its place among its type's
// registrations; its time, the event's timestamp.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "indelible/event.h"
#include "indelible/schemas.h"
#include "schemas/registry.h"

namespace indelible::schemas {

inline constexpr std::string_view kSchemaRegisteredType = "$schema-registered";
inline constexpr std::string_view kSchemaSettingsType = "$schema-settings";
inline constexpr std::string_view kUpcasterRegisteredType = "$upcaster-registered";

enum class SettingsScope { kType, kCategory, kDefault };

// REQUIRES: schema_json is valid JSON.
EventData RegisteredEvent(std::string_view type, std::string_view version,
                          std::string_view schema_json, std::string_view principal);
EventData SettingsEvent(SettingsScope scope, std::string_view name, const SchemaSettings& settings,
                        std::string_view principal);
// REQUIRES: the upcaster's parts are valid JSON.
EventData UpcasterEvent(const DeclarativeUpcaster& upcaster, std::string_view principal);

// This process's C++ upcasters, by type and source label.
using UpcastFunctions =
    std::map<std::pair<std::string, std::string>, std::pair<std::string, UpcastFunction>>;

// Applies one event of $schemas, read in order, to `registry`. Events of
// other types ($deleted, or kinds a newer version writes) are skipped. An
// event that does not parse or does not fit (a version registered twice, a
// step that is not the next version) is skipped too: the error says why,
// for the log. Advances registry->next_version either way.
Status ApplyEvent(const EventView& event, Registry* registry);

// Puts this process's C++ upcasters on their steps, then Seal()s.
void ApplyFunctions(const UpcastFunctions& functions, Registry* registry);

}  // namespace indelible::schemas
