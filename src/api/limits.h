// The bounds of the API's query parameters (docs/HTTP.md): one definition
// for the server that enforces them and the client that stays within them.
// The most events of a page is public (include/indelible/api.h).
#pragma once

#include <chrono>
#include <cstddef>

#include "indelible/api.h"

namespace indelible::api {

// `limit` of a stream or $all page and `max` of a pull: 1 to
// kMaxPageEvents, this many when not given.
inline constexpr std::size_t kDefaultPageEvents = 100;
// `limit` of a query's page (GET and POST /query, docs/DCB.md): 1 to
// this many, and this many when not given.
inline constexpr std::size_t kMaxQueryPageEvents = 1000;
// `limit` of the stream listing (GET /streams): 1 to kMaxListedStreams.
inline constexpr std::size_t kDefaultListedStreams = 100;
inline constexpr std::size_t kMaxListedStreams = 1000;
// The longest a request may wait on the server: `waitMs` of /all and of a
// pull, `timeout` of a consumer group's waitFor.
inline constexpr std::chrono::milliseconds kMaxWait{60000};

}  // namespace indelible::api
