// Parked events of a consumer group (the `park` policy).
//
// A parked event is copied to the stream `$parked-<group>`: the copy keeps
// the original's type, schema, content type and data; its metadata is
//
//   {"$parked": {"group", "stream", "version", "position", "eventId",
//                "timestamp", "attempts", "reason"},
//    "metadata": <the original's metadata object>}
//
// so an operator can read what was parked and why with any stream reader, and
// a replay can give handlers the original event back. The copy's id is
// derived from the group and the original id, so parking the same event again
// after a crash is an idempotent retry of the store, not a second copy.
#pragma once

#include <indelible/event.h>
#include <indelible/result.h>

#include <string>
#include <string_view>

namespace indelible::subscriptions {

std::string ParkedStreamName(std::string_view group);

// The copy to append to ParkedStreamName(group) for `event`.
EventData MakeParkedCopy(std::string_view group, const RecordedEvent& event, int attempts,
                         std::string_view reason);

struct ParkedEvent {
  RecordedEvent original;  // as it was delivered before it was parked
  std::string reason;
};

// Reads a copy back; internal if `copy` was not written by MakeParkedCopy.
Result<ParkedEvent> DecodeParkedCopy(const EventView& copy);

}  // namespace indelible::subscriptions
