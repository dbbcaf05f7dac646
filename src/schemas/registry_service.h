// RegistryService: the Schemas of one SchemaStore. It keeps the current
// Registry snapshot, reads $schemas for changes (Refresh), writes changes to
// it with optimistic concurrency, and checks commits against the snapshot.
//
// Concurrency: every method is safe from any thread. Refreshes and C++
// upcaster changes are serialized (refresh_mu_); readers take the snapshot
// under snapshot_mu_ for the length of a shared_ptr copy.
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include "core/mutex.h"
#include "indelible/schemas.h"
#include "schemas/registry.h"
#include "schemas/registry_log.h"
#include "schemas/upcasting.h"

namespace indelible::schemas {

class RegistryService final : public Schemas {
 public:
  explicit RegistryService(Store& inner);

  std::shared_ptr<const Registry> snapshot() const;
  UpcastCounters& upcast_counters() { return upcast_counters_; }

  // The check of a commit (docs/SCHEMAS.md): labels unlabelled events of
  // registered types with their newest version and checks each event as
  // its mode says. ok, or invalid naming the event, pointer and rule.
  Status CheckCommit(std::vector<AppendRequest>& appends);

  Result<RegisterResult> Register(std::string_view type, std::string_view version,
                                  std::string_view schema, std::string_view principal) override;
  Status CheckCompatible(std::string_view type, std::string_view schema) override;
  Status SetTypeSettings(std::string_view type, const SchemaSettings& settings,
                         std::string_view principal) override;
  Status SetCategorySettings(std::string_view category, const SchemaSettings& settings,
                             std::string_view principal) override;
  Status SetDefaultSettings(const SchemaSettings& settings, std::string_view principal) override;
  Status AddUpcaster(const DeclarativeUpcaster& upcaster, std::string_view principal) override;
  Status AddUpcaster(std::string type, std::string from, std::string to,
                     UpcastFunction upcast) override;
  std::vector<SchemaType> List() override;
  std::optional<SchemaType> Find(std::string_view type) override;
  std::optional<SchemaVersion> Find(std::string_view type, std::string_view version) override;
  std::vector<std::pair<std::string, SchemaSettings>> CategorySettings() override;
  SchemaSettings DefaultSettings() override;
  Status Validate(const EventData& event) override;
  Status Refresh() override;
  SchemaStats stats() const override;

 private:
  // What a change writes, decided against the current registry: an error,
  // nothing (it is there already), or the event to append.
  using Decision = std::function<Result<std::optional<EventData>>(const Registry&)>;
  // Refresh, decide, append at the version read; on a conflict (another
  // process wrote in between), again.
  Status Change(const Decision& decide);
  Status SetSettings(SettingsScope scope, std::string_view name, const SchemaSettings& settings,
                     std::string_view principal);
  void Publish(std::shared_ptr<const Registry> registry) EXCLUDES(snapshot_mu_);
  // `append_at`: "" or "appends[a]."; `index`: the event's in its append.
  Status CheckEvent(const Registry& registry, std::string_view stream, EventData& event,
                    std::string_view append_at, std::size_t index);

  Store& inner_;
  mutable Mutex snapshot_mu_;
  std::shared_ptr<const Registry> registry_ GUARDED_BY(snapshot_mu_);
  Mutex refresh_mu_;
  UpcastFunctions functions_ GUARDED_BY(refresh_mu_);
  UpcastCounters upcast_counters_;
  std::atomic<std::uint64_t> validated_{0};
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> warned_{0};
};

}  // namespace indelible::schemas
