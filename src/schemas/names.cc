#include "schemas/names.h"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "core/text.h"
#include "indelible/schemas.h"

namespace indelible {
namespace {

constexpr std::size_t kMaxNameBytes = 256;  // as the store holds event types and labels

constexpr std::array<std::pair<SchemaMode, std::string_view>, 3> kModes{{
    {SchemaMode::kOff, "off"},
    {SchemaMode::kWarn, "warn"},
    {SchemaMode::kEnforce, "enforce"},
}};

constexpr std::array<std::pair<Compatibility, std::string_view>, 7> kCompatibilities{{
    {Compatibility::kNone, "none"},
    {Compatibility::kBackward, "backward"},
    {Compatibility::kBackwardTransitive, "backward_transitive"},
    {Compatibility::kForward, "forward"},
    {Compatibility::kForwardTransitive, "forward_transitive"},
    {Compatibility::kFull, "full"},
    {Compatibility::kFullTransitive, "full_transitive"},
}};

Status ValidateName(std::string_view name, std::string_view field, std::string_view what) {
  if (name.empty()) return Status::Invalid(std::string(field), fmt::format("{} is empty", what));
  if (name.size() > kMaxNameBytes)
    return Status::Invalid(std::string(field), fmt::format("{} is {} bytes; the limit is {}", what,
                                                           name.size(), kMaxNameBytes));
  if (!IsValidUtf8(name) || HasControlCharacter(name))
    return Status::Invalid(std::string(field),
                           fmt::format("{} must be UTF-8 without control characters", what));
  return Status::Ok();
}

}  // namespace

std::string_view ToString(SchemaMode mode) {
  for (const auto& [value, name] : kModes)
    if (value == mode) return name;
  return "off";
}

std::string_view ToString(Compatibility compatibility) {
  for (const auto& [value, name] : kCompatibilities)
    if (value == compatibility) return name;
  return "none";
}

std::optional<SchemaMode> ParseSchemaMode(std::string_view text) {
  for (const auto& [value, name] : kModes)
    if (name == text) return value;
  return std::nullopt;
}

std::optional<Compatibility> ParseCompatibility(std::string_view text) {
  for (const auto& [value, name] : kCompatibilities)
    if (name == text) return value;
  return std::nullopt;
}

namespace schemas {

Status ValidateTypeName(std::string_view type, std::string_view field) {
  if (Status s = ValidateName(type, field, "event type"); !s.ok()) return s;
  if (type.front() == '$')
    return Status::Invalid(std::string(field),
                           fmt::format("event type '{}' is reserved for the store ('$'); its "
                                       "events have no schemas",
                                       Printable(type)));
  return Status::Ok();
}

Status ValidateVersionLabel(std::string_view version, std::string_view field) {
  return ValidateName(version, field, "schema version");
}

}  // namespace schemas
}  // namespace indelible
