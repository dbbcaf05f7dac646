// Registry: one immutable snapshot of the schema registry, built from the
// events of $schemas (registry_log.h) and this process's C++ upcasters.
// A SchemaStore swaps in a new snapshot after each change it reads;
// readers and appends hold the one they started with.
//
// Concurrency: immutable once built; share it freely (shared_ptr<const>).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "indelible/schemas.h"
#include "schemas/json_schema.h"
#include "schemas/transform.h"

namespace indelible::schemas {

// Heterogeneous lookup by string_view, so the append and read paths look a
// type up without making a string.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view name) const {
    return std::hash<std::string_view>{}(name);
  }
};
template <typename Value>
using NameMap = std::unordered_map<std::string, Value, NameHash, std::equal_to<>>;

// One step of a type's upcaster chain: version `number` to `number + 1`.
struct UpcastStep {
  std::optional<DeclarativeUpcaster> declared;
  std::shared_ptr<const Transform> transform;  // of `declared`
  UpcastFunction function;                     // this process's C++ upcaster, which wins
  bool empty() const { return !transform && !function; }
};

struct TypeEntry {
  std::string type;
  std::vector<SchemaVersion> versions;                      // number = index + 1
  std::vector<std::shared_ptr<const JsonSchema>> compiled;  // parallel to versions
  NameMap<std::size_t> index;                               // label -> index in versions
  std::vector<UpcastStep> steps;                            // steps[i]: versions[i] -> [i + 1]
  SchemaSettings settings;

  // The version an event labelled `label` has: its index, 0 (the first)
  // for an empty label, nullopt for a label the type does not have.
  std::optional<std::size_t> IndexOf(std::string_view label) const;
};

class Registry {
 public:
  NameMap<TypeEntry> types;
  std::map<std::string, SchemaSettings> categories;
  SchemaSettings defaults;
  // Events of $schemas applied: the version to read from next.
  std::int64_t next_version = 0;

  // Nothing registered and nothing set: appends pass unchecked and
  // unlabelled, reads unchanged.
  bool empty() const { return types.empty() && categories.empty() && !defaults.mode; }
  // Some type has a step with an upcaster: reads look events up.
  bool upcasts() const { return upcasts_; }

  const TypeEntry* Find(std::string_view type) const;

  // The mode an event of `type` on `stream` is checked under, and whether
  // it came from the stream's category (which refuses unregistered types).
  struct EffectiveMode {
    SchemaMode mode = SchemaMode::kOff;
    bool from_category = false;
  };
  EffectiveMode ModeFor(std::string_view type, std::string_view stream) const;
  Compatibility CompatibilityFor(std::string_view type) const;

  // The event read in the type's newest shape, as far as its steps go:
  // true and `data`/`label` set when at least one step applied. A failing
  // step stops the chain there; `failed` is set.
  bool Upcast(const EventView& event, std::string* data, std::string* label, bool* failed) const;

  // Recomputes upcasts() after a change.
  void Seal();

 private:
  bool upcasts_ = false;
};

}  // namespace indelible::schemas
