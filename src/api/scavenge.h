// The documents of POST /scavenge (docs/HTTP.md, "Scavenging"): its request
// body, which carries nothing (none, or `{}`), and its answer, the
// ScavengeReport of store.h with the time the scavenge took.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "indelible/result.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible::api {

// The request body: empty, or an empty JSON object (whitespace allowed).
// invalid (field "body") for anything else, so an option a later version
// may take is never silently ignored.
Status ScavengeRequestFromJson(std::string_view body);

// {streams, events, bytes, diskBytesBefore, diskBytesAfter, tookMs}:
// `took_ms` is how long the scavenge ran, measured by whoever ran it.
std::string ScavengeReportToJson(const ScavengeReport& report, std::int64_t took_ms);
// The report; `took_ms` (when not null) gets `tookMs`. internal for an
// answer that is not one.
Result<ScavengeReport> ScavengeReportFromJson(std::string_view body,
                                              std::int64_t* took_ms = nullptr);

// DELETE /subjects/{subject}'s answer: {subject, keys}.
std::string ShredReportToJson(const ShredReport& report);
// internal for an answer that is not one.
Result<ShredReport> ShredReportFromJson(std::string_view body);

}  // namespace indelible::api
