// Event schemas: JSON Schemas registered per event type and schema version,
// checked at append, and upcasters that read old events in the current
// shape (docs/SCHEMAS.md).
//
// Operation: SchemaStore wraps a Store. Its commits check every event of a
// type that has schemas against the schema its `schema` field names (off,
// warn or enforce; a refused commit writes nothing), and its reads (streams,
// $all, FindEvent, the entity load, and so everything built on them:
// subscriptions, consumer groups, projections and their rebuilds) return
// events upcast to their type's newest version. Stored bytes never change;
// ReadStreamOptions::raw and ReadAllOptions::raw read them as written.
//
//   auto store = SchemaStore::Wrap(*Store::Open("file:./data"));
//   (*store)->schemas().Register("Order.Placed", "V1", R"({"type":"object"})");
//
// The registry: kept in the store itself, as the events of the reserved
// stream `$schemas` (so every server on one DynamoDB table shares it, and
// export and import carry it). A version is never edited: registering a
// label again with the same schema is a no-op, with another schema a
// conflict. A SchemaStore reads what other processes registered within
// SchemaOptions::refresh_interval; what it registers itself, at once.
//
// Concurrency: a SchemaStore and its Schemas are safe for concurrent use by
// many threads, as any Store. C++ upcasters run on the reading thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/event.h"
#include "indelible/result.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible {

// The reserved stream that holds the registry.
inline constexpr std::string_view kSchemasStream = "$schemas";

// What an append does with an event its schema refuses.
enum class SchemaMode : std::uint8_t {
  kOff,      // nothing is checked
  kWarn,     // the event is written; the failure is counted and logged
  kEnforce,  // the commit is refused (invalid), nothing written
};

// What a new version of a type must keep (Confluent Schema Registry's
// modes). "Reads" means: every document valid under one schema is valid
// under the other, proven from the two schemas' keywords; a change the
// checker cannot prove safe is refused with the keyword it could not.
enum class Compatibility : std::uint8_t {
  kNone,                // anything goes (an upcaster bridges the versions)
  kBackward,            // the new schema accepts what the last one did
  kBackwardTransitive,  // ... what every earlier one did
  kForward,             // the last schema accepts what the new one does
  kForwardTransitive,   // every earlier one accepts what the new one does
  kFull,                // both, against the last
  kFullTransitive,      // both, against every earlier one
};

std::string_view ToString(SchemaMode mode);
std::string_view ToString(Compatibility compatibility);
std::optional<SchemaMode> ParseSchemaMode(std::string_view text);        // "off", "warn", "enforce"
std::optional<Compatibility> ParseCompatibility(std::string_view text);  // "backward_transitive"...

// One registered version of a type's schema.
struct SchemaVersion {
  std::string type;          // "Order.Placed"
  std::string version;       // the label events carry in `schema`: "V2"
  std::uint32_t number = 0;  // 1 for the type's first version, then +1
  std::string schema;        // the JSON Schema, as registered
  std::int64_t registered_ms = 0;
};

// Settings of a type, of a stream category, or the store's default. Unset
// fields fall back: type, then the stream's category, then the default
// (mode off, compatibility backward).
struct SchemaSettings {
  std::optional<SchemaMode> mode{};
  std::optional<Compatibility> compatibility{};
};

// A declarative upcaster from one version of a type to the next, kept in
// the registry (so HTTP and TypeScript users have them): applied to `data`
// in this order: renames (JSON Pointer to JSON Pointer, the value moves),
// defaults (JSON Pointer to a JSON value, set where nothing is), then the
// JSON Patch (RFC 6902 operations, a JSON array). Each is JSON text.
struct DeclarativeUpcaster {
  std::string type{};
  std::string from{};  // version label
  std::string to{};    // the label registered right after `from`
  std::string renames = "{}";
  std::string defaults = "{}";
  std::string patch = "[]";
};

// A C++ upcaster: the event as stored (or as the previous step left it);
// returns its data in the next version's shape. An error leaves the event
// at the version it reached (counted in SchemaStats::upcast_failures).
using UpcastFunction = std::function<Result<std::string>(const EventView& event)>;

// A type's registry entry.
struct SchemaType {
  std::string type;
  std::vector<SchemaVersion> versions;  // oldest first
  SchemaSettings settings;              // as set for the type (unset: inherited)
  std::vector<DeclarativeUpcaster> upcasters;
};

struct SchemaStats {
  std::uint64_t validated = 0;         // events checked at append
  std::uint64_t refused = 0;           // events an enforcing check refused
  std::uint64_t warned = 0;            // events a warning check let through
  std::uint64_t upcast = 0;            // events read upcast (one or more steps)
  std::uint64_t upcast_failures = 0;   // upcasts that stopped at an error
  std::uint64_t registry_version = 0;  // events of $schemas read: changes to the registry
};

// The registry of a SchemaStore. Writes go to $schemas with optimistic
// concurrency (two processes registering at once: one wins, the other
// re-reads and checks again).
class Schemas {
 public:
  virtual ~Schemas() = default;

  struct RegisterResult {
    SchemaVersion version;
    bool created = false;  // false: that exact version was already there
  };
  // Registers `version` of `type`. invalid: a bad type, label or schema
  // (not JSON, not a schema the validator compiles); conflict: the label
  // exists with another schema; rejected: the schema breaks the type's
  // compatibility mode (the reason names the earlier version and what
  // changed). `principal` is recorded with the registration.
  virtual Result<RegisterResult> Register(std::string_view type, std::string_view version,
                                          std::string_view schema,
                                          std::string_view principal = {}) = 0;
  // The same checks as Register, nothing written: ok, or the error Register
  // would give.
  virtual Status CheckCompatible(std::string_view type, std::string_view schema) = 0;

  // Settings for a type, a stream category, or (both empty) the default.
  // Set fields replace, unset ones stay as they were.
  virtual Status SetTypeSettings(std::string_view type, const SchemaSettings& settings,
                                 std::string_view principal = {}) = 0;
  virtual Status SetCategorySettings(std::string_view category, const SchemaSettings& settings,
                                     std::string_view principal = {}) = 0;
  virtual Status SetDefaultSettings(const SchemaSettings& settings,
                                    std::string_view principal = {}) = 0;

  // invalid: `to` is not the version registered right after `from`, or the
  // transform does not parse; conflict: that step has another declarative
  // upcaster already.
  virtual Status AddUpcaster(const DeclarativeUpcaster& upcaster,
                             std::string_view principal = {}) = 0;
  // In this process only (code, not data): replaces a declarative upcaster
  // of the same step here. The step must exist by the time events are read
  // (until then it is not applied). invalid on a registry reached over HTTP
  // (Client::schemas()): C++ upcasters run in the process that reads.
  virtual Status AddUpcaster(std::string type, std::string from, std::string to,
                             UpcastFunction upcast) = 0;

  virtual std::vector<SchemaType> List() = 0;
  virtual std::optional<SchemaType> Find(std::string_view type) = 0;
  virtual std::optional<SchemaVersion> Find(std::string_view type, std::string_view version) = 0;
  // Settings of categories and the default, as set.
  virtual std::vector<std::pair<std::string, SchemaSettings>> CategorySettings() = 0;
  virtual SchemaSettings DefaultSettings() = 0;

  // Checks one event's data against the schema version it names (the
  // newest when it names none), whatever the mode: ok, or invalid naming
  // the JSON Pointer of the failing value and the rule; not_found when the
  // type or version is not registered.
  virtual Status Validate(const EventData& event) = 0;

  // Reads what other processes registered since the last refresh now.
  virtual Status Refresh() = 0;
  // This process's counters (a registry over HTTP: zeros).
  virtual SchemaStats stats() const = 0;
};

struct SchemaOptions {
  // How often the registry is read again for other processes' changes
  // (one Head of $schemas: on DynamoDB, one half read unit).
  std::chrono::milliseconds refresh_interval{1000};
};

class SchemaStore : public Store {
 public:
  // `inner` must outlive the SchemaStore (the borrowing form), or is owned.
  // Fails if the registry cannot be read.
  static Result<std::unique_ptr<SchemaStore>> Wrap(Store& inner, const SchemaOptions& options = {});
  static Result<std::unique_ptr<SchemaStore>> Wrap(std::unique_ptr<Store> inner,
                                                   const SchemaOptions& options = {});

  virtual Schemas& schemas() = 0;
  virtual const Schemas& schemas() const = 0;
  // The wrapped store: what it stores, with no checks and no upcasting.
  virtual Store& inner() = 0;

 protected:
  explicit SchemaStore(const Limits& limits) : Store(limits) {}
};

}  // namespace indelible
