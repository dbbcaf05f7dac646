// The HTTP API's documents (docs/HTTP.md) as JSON, in one place: what the
// server writes and what the client reads, so the two cannot drift apart
// (tests/unit/api_wire_test.cc round-trips each one).
//
// Events themselves use core's codec (core/event_json.h): AppendEventJson
// writes a stored event, EventsFromJson reads what a client appends.
//
// The rest by area: pages.h writes stream and $all pages (read here),
// consumers.h the consumer groups', keys.h the keys' and /auth/whoami's,
// commits.h commits, state records and the stream listing; limits.h holds
// the bounds of the query parameters.
//
// Encoders cannot fail. Every decoder answers internal when the body is not
// what the API promises: that is a server bug or not our server. Stored
// events keep `data` and `metadata` as the exact text the server sent
// (core/json_spans.h), since re-encoding JSON would change their bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/consumers.h"
#include "indelible/api.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible::api {

// An append's body: a JSON array of events. REQUIRES: the events passed
// ValidateCommit (data is valid JSON when its content type says so,
// metadata a JSON object), since both are copied into the body as they are.
std::string EventsToJson(const std::vector<EventData>& events);

// An error: {"error":"conflict","message":"...","field":...,
// "actualVersion":...,"deleted":...}. A stream's conflict says which kind
// it is: "reason":"version" (with actualVersion and stream) or
// "reason":"event_id" (with eventId and stream when known, no actualVersion).
// Other conflicts (a key's name, a consumer group) carry neither.
std::string StatusToJson(const Status& status);
// The Status an error answer stands for, or, for a body that is not ours (a
// proxy's page), a code chosen by the HTTP status.
Status StatusFromAnswer(unsigned http_status, std::string_view body);

// {stream, firstVersion, lastVersion, position}
std::string AppendResultToJson(const AppendResult& result);
Result<AppendResult> AppendResultFromJson(std::string_view body);

// {stream, version, position, deleted, firstVersion}
std::string HeadToJson(std::string_view stream, const StreamHead& head);
Result<StreamHead> HeadFromJson(std::string_view body);

// {status, reason?, lastPosition}; `reason` only when it is not empty.
// `index`: the $all indexer's report (Store::IndexerHealth), as the
// answer's `index` object; left out when the store builds no index.
std::string HealthToJson(const ServerHealth& health,
                         const std::optional<IndexHealth>& index = std::nullopt);
Result<ServerHealth> HealthFromJson(std::string_view body);

// One stored event: {id, stream, version, position, type, ..., timestamp}
// (written by core's AppendEventJson).
Result<RecordedEvent> StoredEventFromJson(std::string_view text);
// {stream, events, nextVersion}; last_version is left for the ETag.
// (The pages' encoders are in pages.h.)
Result<StreamPage> StreamPageFromJson(std::string_view body);
// {events, next}
Result<AllPage> AllPageFromJson(std::string_view body);

// A stream's version as an ETag: 4 -> `"4"`, and back.
std::string ETagFor(StreamVersion version);
Result<StreamVersion> VersionFromETag(std::string_view etag);

}  // namespace indelible::api
