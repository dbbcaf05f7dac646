// The untimed set-up of the group and relay scenarios: stored events, the
// store reopened, and a consumer group over everything.
#pragma once

#include <indelible/consumer_group.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "bench/common.h"

namespace indelible::bench {

struct StoredGroup {
  std::unique_ptr<Store> store;
  std::unique_ptr<ConsumerGroup> group;  // declared after: destroyed first
};

// `events` events (100 per append over 1,000 streams) in a store in
// `folder`, which is then reopened so the timed part reads a store at rest
// instead of racing the flush of what was just written (as the subscribe
// scenario does), with the group `name` created and opened.
Result<StoredGroup> OpenStoredGroup(const Context& context, const std::string& folder,
                                    std::uint64_t events, std::string_view label,
                                    const std::string& name);

}  // namespace indelible::bench
