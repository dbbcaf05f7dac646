// The JSON bodies of the HTTP API as the client sends and reads them
// (docs/HTTP.md), and errors read back from answers into Status.
//
// Stored events are read with core's codec (ExportedEventFromJson), except
// that `data` and `metadata` keep the exact text the server sent (see
// json_spans.h). Every reading function answers internal when the body is
// not what the API promises: that is a server bug or not our server.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/client.h"
#include "indelible/store.h"

namespace indelible::client {

// A JSON array of events as an append sends them. REQUIRES: the events
// passed ValidateCommit (data is valid JSON when its content type says so,
// metadata a JSON object), since both are copied into the body as they are.
std::string EventsToJson(const std::vector<EventData>& events);

// The Status an error answer stands for: {error, message, field?,
// actualVersion?, deleted?}, or, for a body that is not ours (a proxy's
// page), a code chosen by the HTTP status.
Status StatusFromAnswer(unsigned http_status, std::string_view body);

Result<AppendResult> AppendResultFromJson(std::string_view body);
Result<StreamHead> HeadFromJson(std::string_view body);
Result<ServerHealth> HealthFromJson(std::string_view body);
// One stored event: {id, stream, version, position, type, ..., timestamp}.
Result<RecordedEvent> StoredEventFromJson(std::string_view text);
// {stream, events, nextVersion}; last_version is left for the ETag.
Result<StreamPage> StreamPageFromJson(std::string_view body);
// {events, next}
Result<AllPage> AllPageFromJson(std::string_view body);

// A consumer group's status: {group, checkpoint, lastPosition, lagEvents,
// lagSeconds, inFlight, redeliveries, blocked}.
Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(const boost::json::object& object);
Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(std::string_view body);
// {consumers: [status...]}
Result<std::vector<ConsumerGroupInfo>> ConsumerGroupListFromJson(std::string_view body);
// {deliveries: [{attempt, event}]}
Result<std::vector<Delivery>> DeliveriesFromJson(std::string_view body);

// The version in an ETag: `"4"` -> 4.
Result<StreamVersion> VersionFromETag(std::string_view etag);

}  // namespace indelible::client
