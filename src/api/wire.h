// The HTTP API's documents (docs/HTTP.md) as JSON, in one place: what the
// server writes and what the client reads, so the two cannot drift apart
// (tests/unit/api_wire_test.cc round-trips each one).
//
// Events themselves use core's codec (core/event_json.h): AppendEventJson
// writes a stored event, EventsFromJson reads what a client appends.
//
// Encoders cannot fail. Every decoder answers internal when the body is not
// what the API promises: that is a server bug or not our server. Stored
// events keep `data` and `metadata` as the exact text the server sent
// (core/json_spans.h), since re-encoding JSON would change their bytes.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/api.h"
#include "indelible/consumer_group.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible::api {

// An append's body: a JSON array of events. REQUIRES: the events passed
// ValidateCommit (data is valid JSON when its content type says so,
// metadata a JSON object), since both are copied into the body as they are.
std::string EventsToJson(const std::vector<EventData>& events);

// An error: {"error":"conflict","message":"...","field":...,
// "actualVersion":...,"deleted":...}.
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
std::string HealthToJson(const ServerHealth& health);
Result<ServerHealth> HealthFromJson(std::string_view body);

// One stored event: {id, stream, version, position, type, ..., timestamp}
// (written by core's AppendEventJson).
Result<RecordedEvent> StoredEventFromJson(std::string_view text);
// {stream, events, nextVersion}; last_version is left for the ETag.
Result<StreamPage> StreamPageFromJson(std::string_view body);
// {events, next}
Result<AllPage> AllPageFromJson(std::string_view body);

// A consumer group's status: {group, checkpoint, lastPosition, lagEvents,
// lagSeconds, inFlight, redeliveries, blocked: null | {position, reason},
// parked: {streams, events, replaying}}.
std::string ConsumerGroupInfoToJson(const ConsumerGroupInfo& info);
Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(const boost::json::object& object);
Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(std::string_view body);
// {consumers: [status...]}
Result<std::vector<ConsumerGroupInfo>> ConsumerGroupListFromJson(std::string_view body);
// One delivery of a pull: {attempt, parkedVersion?, event}.
std::string DeliveryToJson(const Delivery& delivery);
// {deliveries: [delivery...]}
Result<std::vector<Delivery>> DeliveriesFromJson(std::string_view body);

// A stream's version as an ETag: 4 -> `"4"`, and back.
std::string ETagFor(StreamVersion version);
Result<StreamVersion> VersionFromETag(std::string_view etag);

}  // namespace indelible::api
