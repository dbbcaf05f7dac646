// The documents of commits, state records and stream listings (docs/HTTP.md,
// "Commits", "State records", "Stream listing"): what a client sends and
// what the server answers. Apart from wire.h because these are the only
// request bodies besides events that the server decodes: their decoders
// answer invalid, naming the field ("appends[1].expected"), where wire.h's
// answer decoders answer internal.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/result.h"
#include "indelible/store.h"

namespace indelible::api {

// The body of POST /streams/{stream}: one event object, an array of them,
// or the envelope {"events":[...], "state":{...}}.
struct AppendBody {
  std::vector<EventData> events;
  std::optional<StateUpdate> state;
};
Result<AppendBody> AppendBodyFromJson(std::string_view body);

// POST /commits: {"appends":[{stream?, expected?, events, state?}],
// "condition"?: {failIfEventsMatch, after?}} (queries.h). `expected` is
// "any" (the default), "no_stream", "exists" or a version. An append
// without `stream` is one to kStreamlessStream ("$dcb", docs/DCB.md).
struct CommitBody {
  std::vector<AppendRequest> appends;
  std::optional<AppendCondition> condition;
};
Result<CommitBody> CommitFromJson(std::string_view body);
// REQUIRES: the appends passed ValidateCommit (JSON data and metadata are
// copied into the body as they are). An append to kStreamlessStream is
// sent without `stream`.
std::string CommitToJson(const std::vector<AppendRequest>& appends,
                         const std::optional<AppendCondition>& condition = std::nullopt);

// {position, appends:[{stream, firstVersion, lastVersion, position, replayed}]}
std::string CommitResultToJson(const CommitResult& result);
Result<CommitResult> CommitResultFromJson(std::string_view body);

// GET /streams/{stream}/state: {stream, version, position, schema, data}
// with `data` the record's JSON as stored, or base64 text with
// "dataEncoding":"base64" when the record is not JSON.
std::string StateRecordToJson(std::string_view stream, const StateRecord& record);
Result<StateRecord> StateRecordFromJson(std::string_view body);

// GET /streams: {streams:[{stream, version, position, deleted, lastWrite}], next};
// `with_last` (GET /streams?last=true) adds to each stream
// last: {id, type, version, position, timestamp}, or null without one.
void AppendStreamInfoJson(const StreamInfo& info, std::string* out, bool with_last = false);
std::string StreamListToJson(const StreamList& list, bool with_last = false);
Result<StreamList> StreamListFromJson(std::string_view body);

}  // namespace indelible::api
