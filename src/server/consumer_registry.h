// The consumer groups this server has open: one ConsumerGroup object per
// group, opened on first use and shared by every request for it, so the
// consumers behind many HTTP clients share one window and one checkpoint.
// Creates and deletes go through here too: creating is capped (a count of
// groups), and a delete wins over every request racing it (no Get opens the
// group while it is being deleted; ConsumerGroup::Delete closes the objects
// requests still hold, so none of them saves the group again).
//
// Concurrency: every method is safe from any thread. The groups outlive
// every request (they are dropped only by Delete, or with the registry).
#pragma once

#include <indelible/consumer_group.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "core/mutex.h"

namespace indelible::server {

class ConsumerRegistry {
 public:
  explicit ConsumerRegistry(Store& store) : store_(store) {}

  // The open group, opening it if needed; not_found if it was never
  // created or is being deleted.
  Result<std::shared_ptr<ConsumerGroup>> Get(const std::string& name);
  // ConsumerGroup::Create, unless the group is new and `max_groups` exist
  // already: too_large. True if the group existed (same definition).
  Result<bool> Create(const std::string& name, const ConsumerGroupOptions& options,
                      std::size_t max_groups);
  // Deletes the group; not_found if there is none.
  Status Delete(const std::string& name);
  // The group's filter (read once, then kept: a group's definition never
  // changes); not_found if there is no such group.
  Result<AllFilter> Filter(const std::string& name);
  // Each open group, in name order (for /metrics).
  void ForEach(const std::function<void(ConsumerGroup&)>& fn);
  // Long pulls and waitFor requests parked on a group (its status shows
  // them, so an operator or a test sees none is left behind).
  void AddWaiting(const std::string& name, std::int64_t delta);
  std::int64_t Waiting(const std::string& name);

 private:
  Store& store_;
  // Creates and deletes one at a time, so the cap holds and a create does
  // not interleave with a delete of the same name.
  Mutex admin_mu_;
  Mutex mu_;
  std::map<std::string, std::shared_ptr<ConsumerGroup>> open_ GUARDED_BY(mu_);
  std::set<std::string> deleting_ GUARDED_BY(mu_);
  std::map<std::string, std::int64_t> waiting_ GUARDED_BY(mu_);
  std::map<std::string, AllFilter> filters_ GUARDED_BY(mu_);
};

}  // namespace indelible::server
