// Checks of a commit request that need no storage: names, sizes, JSON, ids.
// Every backend runs them first, so bad input is rejected the same way
// everywhere and nothing is written.
#pragma once

#include <vector>

#include "indelible/options.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible {

// Validates `appends` against `limits` and gives events with a nil id a
// random one. Returns invalid or too_large naming the field
// ("appends[1].events[3].data") and the reason.
Status ValidateCommit(std::vector<AppendRequest>& appends, const Limits& limits,
                      const CommitOptions& options);

// The size an event counts against Limits::max_event_bytes.
std::size_t EventBytes(const EventData& event);

}  // namespace indelible
