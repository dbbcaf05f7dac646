// Cursors that hand out events upcast to their type's newest version
// (Registry::Upcast), over a backend's cursors. The stored event stays as
// it is; the view's data and schema point into the cursor's own copy when
// a step applied.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "indelible/store.h"
#include "schemas/registry.h"

namespace indelible::schemas {

struct UpcastCounters {
  std::atomic<std::uint64_t> upcast{0};
  std::atomic<std::uint64_t> failures{0};
};

// The counters must outlive the cursors.
std::unique_ptr<StreamCursor> UpcastStream(std::unique_ptr<StreamCursor> inner,
                                           std::shared_ptr<const Registry> registry,
                                           UpcastCounters& counters);
std::unique_ptr<AllCursor> UpcastAll(std::unique_ptr<AllCursor> inner,
                                     std::shared_ptr<const Registry> registry,
                                     UpcastCounters& counters);
// In place, for FindEvent.
void UpcastEvent(const Registry& registry, UpcastCounters& counters, RecordedEvent* event);

}  // namespace indelible::schemas
