// api/commits.h: commits, state records and stream listings as JSON.
#include "api/commits.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <initializer_list>
#include <limits>
#include <map>

#include "api/decoding.h"
#include "api/queries.h"
#include "api/wire.h"
#include "core/event_json.h"
#include "core/json_check.h"
#include "core/json_spans.h"

namespace indelible::api {
namespace json = boost::json;

using decoding::NotOurs;
using decoding::ParseObject;

namespace {

using Members = std::map<std::string, std::string_view, std::less<>>;

// The one parse of a request body: checks it is valid JSON without building
// a document; its members are then cut out of the text (json_spans.h) and
// known to be valid JSON too.
Status CheckBody(std::string_view body) {
  if (std::string why = CheckJson(body); !why.empty())
    return Status::Invalid("body", "the body is not valid JSON: " + why);
  return Status::Ok();
}

// The members of the object `raw` (already parsed, so well formed), each
// once and each one of `allowed`: a repeated key would be read one way here
// and another by Boost.JSON, an unknown one is probably a typo.
Result<Members> MembersOf(std::string_view raw, const std::string& at,
                          std::initializer_list<std::string_view> allowed) {
  auto listed = RawMembers(raw);
  if (!listed) return Status::Invalid(at.empty() ? "body" : at, "must be a JSON object");
  Members members;
  for (const auto& [key, value] : *listed) {
    bool known = false;
    for (std::string_view name : allowed) known = known || key == name;
    const std::string where = at.empty() ? std::string(key) : at + "." + std::string(key);
    if (!known)
      return Status::Invalid(where,
                             fmt::format("'{}' is not a member here; allowed: {}",
                                         std::string(key).substr(0, 64), fmt::join(allowed, ", ")));
    if (!members.emplace(std::string(key), value).second)
      return Status::Invalid(where, fmt::format("'{}' appears twice; send it once", key));
  }
  return members;
}

Result<json::value> ParseMember(std::string_view raw) {
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(raw.data(), raw.size()), ec);
  if (ec) return Status::Internal("a member of a parsed body did not parse again");
  return value;
}

// An error of the event decoder, with the path of the events array before
// its field ("[2].type" -> "appends[0].events[2].type").
Status UnderEvents(const Status& status, const std::string& events_at) {
  std::string field = status.field();
  if (field.empty() || field == "body" || field == "event") {
    field = events_at;
  } else {
    field = events_at + (field.front() == '[' ? "" : ".") + field;
  }
  return Status::Invalid(std::move(field), status.message());
}

Result<std::vector<EventData>> EventsAt(std::string_view raw, const std::string& at) {
  if (raw.empty() || raw.front() != '[')
    return Status::Invalid(at, "'events' must be an array of event objects");
  auto events = EventsFromCheckedJson(raw);
  if (!events.ok()) return UnderEvents(events.status(), at);
  return events;
}

Result<StateUpdate> StateAt(std::string_view raw, const std::string& at) {
  auto members = MembersOf(raw, at, {"data", "schema", "dataEncoding"});
  if (!members.ok()) return members.status();
  StateUpdate state;
  if (auto it = members->find("schema"); it != members->end()) {
    auto schema = ParseMember(it->second);
    if (!schema.ok()) return schema.status();
    if (!schema->is_int64() && !schema->is_uint64())
      return Status::Invalid(at + ".schema", "'schema' must be a whole number");
    const auto n = schema->is_int64() ? schema->as_int64() : -1;
    if (n < 0 || n > std::numeric_limits<std::uint32_t>::max())
      return Status::Invalid(at + ".schema", "'schema' must be between 0 and 4294967295");
    state.schema = static_cast<std::uint32_t>(n);
  }
  auto data = members->find("data");
  if (data == members->end()) return Status::Invalid(at + ".data", "'data' is required");
  bool base64 = false;
  if (auto it = members->find("dataEncoding"); it != members->end()) {
    if (it->second != R"("base64")")
      return Status::Invalid(at + ".dataEncoding", "'dataEncoding' is \"base64\" or absent");
    base64 = true;
  }
  if (!base64) {
    state.data = CompactJson(data->second);
    return state;
  }
  auto text = ParseMember(data->second);
  if (!text.ok()) return text.status();
  if (!text->is_string()) return Status::Invalid(at + ".data", "base64 'data' must be a string");
  auto bytes = Base64Decode(text->as_string());
  if (!bytes) return Status::Invalid(at + ".data", "'data' is not valid base64");
  state.data = std::move(*bytes);
  return state;
}

Result<Expected> ExpectedAt(std::string_view raw, const std::string& at) {
  auto value = ParseMember(raw);
  if (!value.ok()) return value.status();
  if (value->is_null()) return Expected::any();
  if (value->is_string()) {
    const json::string& name = value->as_string();
    if (name == "any") return Expected::any();
    if (name == "no_stream") return Expected::no_stream();
    if (name == "exists") return Expected::exists();
  }
  constexpr std::int64_t kMaxVersion = std::int64_t{1} << 62;
  if (value->is_int64() && value->as_int64() >= 0 && value->as_int64() <= kMaxVersion)
    return Expected::exactly(StreamVersion(value->as_int64()));
  return Status::Invalid(at,
                         R"('expected' is "any", "no_stream", "exists" or a version (0 or more))");
}

std::string ExpectedToJson(const Expected& expected) {
  switch (expected.kind()) {
    case Expected::Kind::kAny:
      return R"("any")";
    case Expected::Kind::kNoStream:
      return R"("no_stream")";
    case Expected::Kind::kExists:
      return R"("exists")";
    case Expected::Kind::kExactly:
      return std::to_string(expected.version().value());
  }
  return R"("any")";
}

bool IsJson(std::string_view text) {
  boost::system::error_code ec;
  (void)json::parse(json::string_view(text.data(), text.size()), ec);
  return !ec;
}

// `data` as a JSON member: the bytes themselves when they are JSON, else
// base64 text with "dataEncoding":"base64" before it.
void AppendDataJson(std::string_view data, std::string* out) {
  if (IsJson(data)) {
    out->append(R"("data":)");
    out->append(data);
  } else {
    out->append(R"("dataEncoding":"base64","data":")");
    out->append(Base64Encode(data));
    out->push_back('"');
  }
}

std::int64_t IntegerOr(const json::object& object, std::string_view key, std::int64_t fallback) {
  const json::value* v = object.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : fallback;
}

Result<AppendResult> AppendResultFrom(const json::object& object) {
  const std::int64_t first = IntegerOr(object, "firstVersion", -1);
  const std::int64_t last = IntegerOr(object, "lastVersion", -1);
  const std::int64_t position = IntegerOr(object, "position", -1);
  const json::value* stream = object.if_contains("stream");
  if (first < 0 || last < 0 || position < 0 || stream == nullptr || !stream->is_string())
    return NotOurs("commit result", "an append without stream, versions or position");
  AppendResult result;
  result.stream = std::string(stream->as_string());
  result.first_version = StreamVersion(first);
  result.last_version = StreamVersion(last);
  result.position = Position(static_cast<std::uint64_t>(position));
  // The events of one append are contiguous in $all (0: not known yet).
  result.first_position =
      Position(static_cast<std::uint64_t>(std::max<std::int64_t>(position - (last - first), 0)));
  const json::value* replayed = object.if_contains("replayed");
  result.replayed = replayed != nullptr && replayed->is_bool() && replayed->as_bool();
  return result;
}

}  // namespace

Result<AppendBody> AppendBodyFromJson(std::string_view body) {
  const auto start = body.find_first_not_of(" \t\r\n");
  const bool envelope = start != std::string_view::npos && body[start] == '{' &&
                        RawMember(body, "events").has_value();
  AppendBody append;
  if (!envelope) {
    auto events = EventsFromJson(body);
    if (!events.ok()) return events.status();
    append.events = std::move(*events);
    return append;
  }
  if (Status checked = CheckBody(body); !checked.ok()) return checked;
  auto members = MembersOf(body, "", {"events", "state"});
  if (!members.ok()) return members.status();
  auto events = EventsAt(members->at("events"), "events");
  if (!events.ok()) return events.status();
  append.events = std::move(*events);
  if (auto it = members->find("state"); it != members->end()) {
    auto state = StateAt(it->second, "state");
    if (!state.ok()) return state.status();
    append.state = std::move(*state);
  }
  return append;
}

Result<CommitBody> CommitFromJson(std::string_view body) {
  if (Status checked = CheckBody(body); !checked.ok()) return checked;
  auto members = MembersOf(body, "", {"appends", "condition"});
  if (!members.ok()) return members.status();
  auto found = members->find("appends");
  if (found == members->end()) return Status::Invalid("appends", "'appends' is required");
  auto elements = RawElements(found->second);
  if (!elements) return Status::Invalid("appends", "'appends' must be an array");
  if (elements->empty()) return Status::Invalid("appends", "a commit needs at least one append");
  CommitBody commit;
  if (auto it = members->find("condition"); it != members->end() && it->second != "null") {
    auto condition = ConditionFromJson(it->second, "condition");
    if (!condition.ok()) return condition.status();
    commit.condition = std::move(*condition);
  }
  std::vector<AppendRequest>& appends = commit.appends;
  appends.reserve(elements->size());
  for (std::size_t i = 0; i < elements->size(); ++i) {
    const std::string at = fmt::format("appends[{}]", i);
    auto fields = MembersOf((*elements)[i], at, {"stream", "expected", "events", "state"});
    if (!fields.ok()) return fields.status();
    AppendRequest append;
    // Without `stream` (or null): events without a stream, written to the
    // reserved stream kept for them (docs/DCB.md).
    append.stream = std::string(kStreamlessStream);
    if (auto stream = fields->find("stream"); stream != fields->end() && stream->second != "null") {
      auto name = ParseMember(stream->second);
      if (!name.ok()) return name.status();
      if (!name->is_string()) return Status::Invalid(at + ".stream", "'stream' must be a string");
      append.stream = std::string(name->as_string());
    }
    if (auto it = fields->find("expected"); it != fields->end()) {
      auto expected = ExpectedAt(it->second, at + ".expected");
      if (!expected.ok()) return expected.status();
      append.expected = *expected;
    }
    if (auto it = fields->find("events"); it != fields->end()) {
      auto events = EventsAt(it->second, at + ".events");
      if (!events.ok()) return events.status();
      append.events = std::move(*events);
    }
    if (auto it = fields->find("state"); it != fields->end()) {
      auto state = StateAt(it->second, at + ".state");
      if (!state.ok()) return state.status();
      append.state = std::move(*state);
    }
    appends.push_back(std::move(append));
  }
  return commit;
}

std::string CommitToJson(const std::vector<AppendRequest>& appends,
                         const std::optional<AppendCondition>& condition) {
  std::string out = R"({"appends":[)";
  for (std::size_t i = 0; i < appends.size(); ++i) {
    const AppendRequest& append = appends[i];
    if (i > 0) out.push_back(',');
    out += R"({"expected":)" + ExpectedToJson(append.expected);
    if (!append.stream.empty() && append.stream != kStreamlessStream)
      out += R"(,"stream":)" + QuoteJson(append.stream);
    out += R"(,"events":)" + EventsToJson(append.events);
    if (append.state) {
      out += fmt::format(R"(,"state":{{"schema":{},)", append.state->schema);
      AppendDataJson(append.state->data, &out);
      out.push_back('}');
    }
    out.push_back('}');
  }
  out.push_back(']');
  if (condition) out += R"(,"condition":)" + ConditionToJson(*condition);
  out.push_back('}');
  return out;
}

std::string CommitResultToJson(const CommitResult& result) {
  std::string out = fmt::format(R"({{"position":{},"appends":[)", result.position.value());
  for (std::size_t i = 0; i < result.appends.size(); ++i) {
    const AppendResult& append = result.appends[i];
    if (i > 0) out.push_back(',');
    out += fmt::format(
        R"({{"stream":{},"firstVersion":{},"lastVersion":{},"position":{},"replayed":{}}})",
        QuoteJson(append.stream), append.first_version.value(), append.last_version.value(),
        append.position.value(), append.replayed);
  }
  out += "]}";
  return out;
}

Result<CommitResult> CommitResultFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "commit result";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  const json::object& object = *parsed;
  const json::value* appends = object.if_contains("appends");
  const std::int64_t position = IntegerOr(object, "position", -1);
  if (appends == nullptr || !appends->is_array() || position < 0)
    return NotOurs(kWhat, "no 'appends' array or 'position'");
  CommitResult result;
  result.position = Position(static_cast<std::uint64_t>(position));
  for (const json::value& append : appends->as_array()) {
    if (!append.is_object()) return NotOurs(kWhat, "an append is not an object");
    auto one = AppendResultFrom(append.as_object());
    if (!one.ok()) return one.status();
    result.appends.push_back(std::move(*one));
  }
  return result;
}

std::string StateRecordToJson(std::string_view stream, const StateRecord& record) {
  std::string out =
      fmt::format(R"({{"stream":{},"version":{},"position":{},"schema":{},)", QuoteJson(stream),
                  record.version.value(), record.position.value(), record.schema);
  AppendDataJson(record.data, &out);
  out.push_back('}');
  return out;
}

Result<StateRecord> StateRecordFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "state record";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  const json::object& object = *parsed;
  const std::int64_t version = IntegerOr(object, "version", -1);
  const std::int64_t position = IntegerOr(object, "position", -1);
  const std::int64_t schema = IntegerOr(object, "schema", -1);
  const json::value* data = object.if_contains("data");
  if (version < 0 || position < 0 || schema < 0 || data == nullptr)
    return NotOurs(kWhat, "no version, position, schema or data");
  StateRecord record;
  record.version = StreamVersion(version);
  record.position = Position(static_cast<std::uint64_t>(position));
  record.schema = static_cast<std::uint32_t>(schema);
  const json::value* encoding = object.if_contains("dataEncoding");
  if (encoding != nullptr) {
    if (!data->is_string()) return NotOurs(kWhat, "base64 data that is not a string");
    auto bytes = Base64Decode(data->as_string());
    if (!bytes) return NotOurs(kWhat, "data that is not base64");
    record.data = std::move(*bytes);
  } else if (auto raw = RawMember(body, "data")) {
    record.data = std::string(*raw);  // the stored bytes, not a re-encoding
  }
  return record;
}

void AppendStreamInfoJson(const StreamInfo& info, std::string* out, bool with_last) {
  out->append(fmt::format(R"({{"stream":{},"version":{},"position":{},"deleted":{},"lastWrite":{})",
                          QuoteJson(info.stream), info.version.value(), info.position.value(),
                          info.deleted, info.last_write_ms));
  if (with_last) {
    if (const auto& last = info.last) {
      out->append(fmt::format(
          R"(,"last":{{"id":"{}","type":{},"version":{},"position":{},"timestamp":{}}})",
          last->id.ToString(), QuoteJson(last->type), last->version.value(), last->position.value(),
          last->timestamp_ms));
    } else {
      out->append(R"(,"last":null)");
    }
  }
  out->push_back('}');
}

std::string StreamListToJson(const StreamList& list, bool with_last) {
  std::string out = R"({"streams":[)";
  for (std::size_t i = 0; i < list.streams.size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendStreamInfoJson(list.streams[i], &out, with_last);
  }
  out += R"(],"next":)";
  out += list.next ? QuoteJson(*list.next) : std::string("null");
  out.push_back('}');
  return out;
}

Result<StreamList> StreamListFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "stream listing";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  const json::object& object = *parsed;
  const json::value* streams = object.if_contains("streams");
  if (streams == nullptr || !streams->is_array()) return NotOurs(kWhat, "no 'streams' array");
  StreamList list;
  for (const json::value& entry : streams->as_array()) {
    const json::object* info = entry.if_object();
    const json::value* name = info != nullptr ? info->if_contains("stream") : nullptr;
    if (name == nullptr || !name->is_string()) return NotOurs(kWhat, "an entry without 'stream'");
    const json::value* deleted = info->if_contains("deleted");
    list.streams.push_back(StreamInfo{
        std::string(name->as_string()), StreamVersion(IntegerOr(*info, "version", 0)),
        Position(
            static_cast<std::uint64_t>(std::max<std::int64_t>(IntegerOr(*info, "position", 0), 0))),
        deleted != nullptr && deleted->is_bool() && deleted->as_bool(),
        IntegerOr(*info, "lastWrite", 0)});
    // `last` is null or absent when there is none to show.
    if (const json::value* last = info->if_contains("last"); last != nullptr && !last->is_null()) {
      const json::object* event = last->if_object();
      const json::value* id = event != nullptr ? event->if_contains("id") : nullptr;
      const json::value* type = event != nullptr ? event->if_contains("type") : nullptr;
      if (id == nullptr || !id->is_string() || type == nullptr || !type->is_string())
        return NotOurs(kWhat, "a 'last' without 'id' and 'type'");
      auto parsed_id = EventId::Parse(id->as_string());
      if (!parsed_id.ok()) return NotOurs(kWhat, "a 'last' whose id is not a UUID");
      list.streams.back().last =
          LastEvent{*parsed_id, std::string(type->as_string()),
                    StreamVersion(IntegerOr(*event, "version", 0)),
                    Position(static_cast<std::uint64_t>(
                        std::max<std::int64_t>(IntegerOr(*event, "position", 0), 0))),
                    IntegerOr(*event, "timestamp", 0)};
    }
  }
  if (const json::value* next = object.if_contains("next"); next != nullptr && next->is_string())
    list.next = std::string(next->as_string());
  return list;
}

}  // namespace indelible::api
