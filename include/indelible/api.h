// The documents of the HTTP API (docs/HTTP.md) that have no other home in
// the library: pages of a read and the server's health. The C++ client
// (client.h) returns them; the server writes them. Plain values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "indelible/event.h"
#include "indelible/types.h"

namespace indelible {

// The most events the server returns in one page (docs/HTTP.md). Larger
// limits are cut to this.
inline constexpr std::size_t kMaxPageEvents = 10000;

// One page of a stream (GET /streams/{stream}).
struct StreamPage {
  std::string stream;
  std::vector<RecordedEvent> events;
  // Where the next page in the same direction starts; nullopt when the
  // stream has no more events in that direction.
  std::optional<StreamVersion> next_version;
  // The stream's last version (the ETag), for an append with exactly(V).
  StreamVersion last_version;
};

// One page of $all (GET /all).
struct AllPage {
  std::vector<RecordedEvent> events;
  // The next position to read, past events the filter skipped: pass it as
  // the next page's `from`, so paging never rescans.
  Position next;
};

// GET /health.
struct ServerHealth {
  std::string status;      // "ok", "stopping", or "failed" (the store stopped writing)
  std::string reason;      // why, when "failed"
  Position last_position;  // of the server's store
};

}  // namespace indelible
