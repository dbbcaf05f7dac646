// Reading a table laid out as the reference design's EventLog, for
// `indelible import --from-eventlog` (docs/DYNAMODB.md, "Importing the
// reference EventLog"):
//
//   ID         S  partition key: the aggregate, which becomes the stream
//   Sequence   N  sort key: the event's order in its aggregate (any start)
//   Event      S  the envelope, a JSON object: type (or Type), data (Data),
//                 optional schema (Schema), metadata (Metadata), id (Id)
//   Timestamp  N  Unix ms (or s, if below 10^11), or S, ISO 8601 UTC
//
// Each aggregate's events get versions 0, 1, ... in Sequence order. An event
// without an id gets one made from (ID, Sequence), so that importing again
// is an idempotent retry, not a second copy.
//
// Concurrency: a function of its arguments; the Client is thread-safe.
#pragma once

#include <functional>
#include <string>

#include "aws/client.h"
#include "core/event_json.h"

namespace indelible::dynamodb {

// Called with each event, aggregate by aggregate, each in Sequence order;
// an error it returns stops the read.
using EventLogSink = std::function<Status(ExportedEvent)>;
// Progress: aggregates done, aggregates found.
using EventLogProgress = std::function<void(std::uint64_t, std::uint64_t)>;

// One Scan (of the IDs alone, paged) to find the aggregates, then one
// Query (paged) per aggregate. Errors: not_found (no such table), invalid
// (an item not of the layout above, naming it), and the client's.
Status ReadEventLog(aws::Client& client, const std::string& table, const EventLogSink& sink,
                    const EventLogProgress& progress = nullptr);

// The id an event without one gets: a UUID (version 5 layout) from the
// SHA-1 of "indelible-eventlog/" + id + "/" + sequence.
EventId EventLogEventId(std::string_view id, std::string_view sequence);

// Unix ms of an ISO 8601 UTC time "YYYY-MM-DDTHH:MM:SS[.fff]Z"; nullopt if
// it is not one.
std::optional<std::int64_t> ParseIsoTimeMs(std::string_view text);

}  // namespace indelible::dynamodb
