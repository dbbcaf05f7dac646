#include "schemas/registry.h"

#include "core/text.h"

namespace indelible::schemas {

std::optional<std::size_t> TypeEntry::IndexOf(std::string_view label) const {
  if (label.empty()) {
    if (versions.empty()) return std::nullopt;
    return 0;
  }
  auto it = index.find(label);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

const TypeEntry* Registry::Find(std::string_view type) const {
  auto it = types.find(type);
  return it == types.end() ? nullptr : &it->second;
}

Registry::EffectiveMode Registry::ModeFor(std::string_view type, std::string_view stream) const {
  if (const TypeEntry* entry = Find(type); entry && entry->settings.mode)
    return {*entry->settings.mode, false};
  if (!categories.empty()) {
    auto it = categories.find(std::string(StreamCategory(stream)));
    if (it != categories.end() && it->second.mode) return {*it->second.mode, true};
  }
  return {defaults.mode.value_or(SchemaMode::kOff), false};
}

Compatibility Registry::CompatibilityFor(std::string_view type) const {
  if (const TypeEntry* entry = Find(type); entry && entry->settings.compatibility)
    return *entry->settings.compatibility;
  return defaults.compatibility.value_or(Compatibility::kBackward);
}

bool Registry::Upcast(const EventView& event, std::string* data, std::string* label,
                      bool* failed) const {
  *failed = false;
  // A shredded subject's event (docs/RETENTION.md) reads as the same
  // marker whatever its version: no step may turn it into something else.
  if (event.data == kRedactedData) return false;
  const TypeEntry* entry = Find(event.type);
  if (!entry || entry->steps.empty()) return false;
  auto at = entry->IndexOf(event.schema);
  if (!at) return false;
  std::size_t i = *at;
  bool changed = false;
  EventView step_view = event;
  for (; i < entry->steps.size(); ++i) {
    const UpcastStep& step = entry->steps[i];
    if (step.empty()) break;
    Result<std::string> next =
        step.function ? step.function(step_view) : step.transform->Apply(step_view.data);
    if (!next.ok()) {
      *failed = true;
      break;
    }
    *data = std::move(*next);
    *label = entry->versions[i + 1].version;
    step_view.data = *data;
    step_view.schema = *label;
    changed = true;
  }
  return changed;
}

void Registry::Seal() {
  upcasts_ = false;
  for (const auto& [name, entry] : types)
    for (const UpcastStep& step : entry.steps)
      if (!step.empty()) upcasts_ = true;
}

}  // namespace indelible::schemas
