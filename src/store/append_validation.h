// Checks of a commit request that need no storage: names, sizes, JSON, ids.
// Every backend runs them first, so bad input is rejected the same way
// everywhere and nothing is written.
#pragma once

#include <cstdint>
#include <vector>

#include "indelible/options.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible::store {

// Whether the events' JSON (data of a JSON content type, metadata) was
// already checked: kChecked only for events decoded from a request body
// that was parsed as a whole (core/event_json.h, EventsFromJson).
enum class EventJson : std::uint8_t { kUnchecked, kChecked };

// Validates `appends` against `limits`, gives events with a nil id a random
// one and sets options.ids_made_by_store. Returns invalid or too_large
// naming the field ("appends[1].events[3].data") and the reason.
Status ValidateCommit(std::vector<AppendRequest>& appends, const Limits& limits,
                      CommitOptions& options, EventJson json = EventJson::kUnchecked);

// The size an event counts against Limits::max_event_bytes.
std::size_t EventBytes(const EventData& event);

}  // namespace indelible::store
