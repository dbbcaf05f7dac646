// Reading what a request asks for: expectations from If-Match and
// If-None-Match, numbers from the query, the content type of writes. Each
// error names the header or parameter and what is allowed.
#pragma once

#include <indelible/options.h>
#include <indelible/result.h>
#include <indelible/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "server/http.h"

namespace indelible::server {

// neither: any; If-Match "N": exactly(N); If-Match *: exists;
// If-None-Match *: no_stream.
Result<Expected> ExpectedFromHeaders(const Request& request);

// The largest position or version a request may name (2^62): far past any
// store, and far enough from the integer limits that no `+ 1` or `- 1` on
// it overflows (a Last-Event-ID of 2^63 - 1 once did).
inline constexpr std::int64_t kMaxNumberParam = std::int64_t{1} << 62;

// An integer query parameter in [min, max]; `fallback` when absent.
Result<std::int64_t> IntegerParam(const Exchange& exchange, const std::string& key,
                                  std::int64_t fallback, std::int64_t min, std::int64_t max);

// category, prefix and type, repeated or comma-separated.
AllFilter FilterFromQuery(const Exchange& exchange);

}  // namespace indelible::server
