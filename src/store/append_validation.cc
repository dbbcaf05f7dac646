#include "store/append_validation.h"

#include <fmt/format.h>

#include <unordered_set>

#include "core/json_check.h"
#include "core/text.h"

namespace indelible::store {
namespace {

constexpr std::size_t kMaxTypeBytes = 256;

Status ValidateType(std::string_view type, const std::string& field, bool allow_reserved) {
  if (type.empty()) return Status::Invalid(field, "event type is empty");
  if (type.size() > kMaxTypeBytes)
    return Status::Invalid(
        field, fmt::format("event type is {} bytes; the limit is {}", type.size(), kMaxTypeBytes));
  if (!IsValidUtf8(type) || HasControlCharacter(type))
    return Status::Invalid(field, "event type must be UTF-8 without control characters");
  if (type.front() == '$' && !allow_reserved)
    return Status::Invalid(field, fmt::format("event type '{}' starts with '$', which is "
                                              "reserved for the store",
                                              Printable(type)));
  return Status::Ok();
}

Status ValidateEvent(EventData& event, const std::string& at, const Limits& limits,
                     bool allow_reserved, EventJson json) {
  if (Status s = ValidateType(event.type, at + ".type", allow_reserved); !s.ok()) return s;
  if (event.schema.size() > kMaxTypeBytes || !IsValidUtf8(event.schema) ||
      HasControlCharacter(event.schema))
    return Status::Invalid(at + ".schema",
                           "schema must be at most 256 bytes of UTF-8 without control characters");
  if (event.content_type.empty() || event.content_type.size() > kMaxTypeBytes ||
      HasControlCharacter(event.content_type))
    return Status::Invalid(at + ".contentType", "content type must be 1 to 256 printable bytes");
  if (Status s = NormalizeTags(event.tags, at + ".tags"); !s.ok()) return s;
  std::size_t bytes = EventBytes(event);
  if (bytes > limits.max_event_bytes)
    return Status::TooLarge(at, fmt::format("event is {} bytes; the limit is {} bytes per event",
                                            bytes, limits.max_event_bytes));
  if (json == EventJson::kUnchecked) {
    if (event.content_type == kJsonContentType) {
      if (std::string why = CheckJson(event.data); !why.empty())
        return Status::Invalid(at + ".data", "data is not valid JSON: " + why);
    }
    if (std::string why = CheckJson(event.metadata, JsonShape::kObject); !why.empty())
      return Status::Invalid(at + ".metadata", "metadata must be a JSON object: " + why);
  }
  if (event.id.is_nil()) event.id = EventId::Random();
  return Status::Ok();
}

}  // namespace

std::size_t EventBytes(const EventData& event) {
  std::size_t bytes = event.data.size() + event.metadata.size() + event.type.size() +
                      event.schema.size() + event.content_type.size();
  for (const std::string& tag : event.tags) bytes += tag.size() + 1;
  return bytes;
}

Status ValidateCommit(std::vector<AppendRequest>& appends, const Limits& limits,
                      CommitOptions& options, EventJson json) {
  options.ids_made_by_store = false;
  if (appends.empty()) return Status::Invalid("appends", "a commit needs at least one append");
  if (options.start_version &&
      (appends.size() != 1 || appends[0].expected.kind() != Expected::Kind::kNoStream ||
       appends[0].events.empty() || options.start_version->value() < 0))
    return Status::Invalid("startVersion",
                           "starting a stream at a version takes one append of events that "
                           "expects no stream, and a version of 0 or more");
  if (options.condition) {
    if (Status s =
            ValidateQuery(options.condition->fail_if_events_match, "condition.failIfEventsMatch");
        !s.ok())
      return s;
  }
  std::size_t total_events = 0;
  std::size_t total_bytes = 0;
  bool ids_given = false;
  std::unordered_set<std::string_view> streams;
  for (std::size_t a = 0; a < appends.size(); ++a) {
    AppendRequest& append = appends[a];
    std::string at = appends.size() == 1 ? std::string() : fmt::format("appends[{}].", a);
    // Events without a stream go to their reserved stream (query.h).
    const bool streamless = append.stream == kStreamlessStream;
    if (streamless && append.state)
      return Status::Invalid(at + "state", "events without a stream have no state record");
    if (Status s = ValidateStreamName(append.stream, options.allow_reserved || streamless); !s.ok())
      return Status::Invalid(at + "stream", s.message());
    if (!streams.insert(append.stream).second)
      return Status::Invalid(
          at + "stream", fmt::format("stream '{}' appears twice in one commit; merge its events "
                                     "into one append",
                                     Printable(append.stream)));
    if (append.expected.kind() == Expected::Kind::kExactly && append.expected.version().value() < 0)
      return Status::Invalid(at + "expected", "expected version must be 0 or more");
    if (append.events.empty() && !append.state)
      return Status::Invalid(at + "events", "an append needs at least one event");
    if (append.events.empty() && append.expected.kind() != Expected::Kind::kExactly)
      return Status::Invalid(at + "expected",
                             "a state-only append (no events) needs an exact expected version: "
                             "the state record covers that version");
    if (append.state) {
      if (append.state->data.size() > limits.max_state_bytes)
        return Status::TooLarge(at + "state",
                                fmt::format("state record is {} bytes; the limit is {} bytes",
                                            append.state->data.size(), limits.max_state_bytes));
      if (append.events.size() == 1 && append.events[0].type == kDeletedEventType)
        return Status::Invalid(at + "state",
                               "a delete removes the state record; it cannot write one");
    }
    total_events += append.events.size();
    for (std::size_t e = 0; e < append.events.size(); ++e) {
      std::string field = fmt::format("{}events[{}]", at, e);
      ids_given = ids_given || !append.events[e].id.is_nil();
      if (Status s = ValidateEvent(append.events[e], field, limits, options.allow_reserved, json);
          !s.ok())
        return s;
      total_bytes += EventBytes(append.events[e]);
    }
  }
  if (total_events > limits.max_append_events)
    return Status::TooLarge("events", fmt::format("append has {} events; the limit is {}",
                                                  total_events, limits.max_append_events));
  if (total_bytes > limits.max_append_bytes)
    return Status::TooLarge("events", fmt::format("append is {} bytes; the limit is {} bytes",
                                                  total_bytes, limits.max_append_bytes));
  // Fresh random ids are unique; given ones are checked after every event
  // has one (nil ids were just filled in).
  options.ids_made_by_store = !ids_given && total_events > 0;
  if (options.ids_made_by_store) return Status::Ok();
  std::unordered_set<EventId> ids;
  for (std::size_t a = 0; a < appends.size(); ++a)
    for (std::size_t e = 0; e < appends[a].events.size(); ++e)
      if (!ids.insert(appends[a].events[e].id).second)
        return Status::Invalid(fmt::format("events[{}].id", e),
                               fmt::format("event id {} appears twice in one commit",
                                           appends[a].events[e].id.ToString()));
  return Status::Ok();
}

}  // namespace indelible::store
