#include "core/event_json.h"

#include <fmt/format.h>

#include <boost/beast/core/detail/base64.hpp>
#include <boost/json.hpp>
#include <charconv>
#include <map>

#include "core/json_check.h"
#include "core/json_spans.h"
#include "core/text.h"

namespace indelible {
namespace json = boost::json;

std::string QuoteJson(std::string_view text) {
  return json::serialize(json::string_view(text.data(), text.size()));
}

// Boost.Beast's base64 lives in a detail namespace, but it is the only
// base64 in our dependencies and its interface has been stable for years.
std::string Base64Encode(std::string_view bytes) {
  namespace b64 = boost::beast::detail::base64;
  std::string out(b64::encoded_size(bytes.size()), '\0');
  out.resize(b64::encode(out.data(), bytes.data(), bytes.size()));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  namespace b64 = boost::beast::detail::base64;
  // Padded text only. decoded_size() assumes it: for 4k+2 or 4k+3
  // characters Beast writes past it (a heap overflow found by fuzzing).
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(b64::decoded_size(text.size()), '\0');
  auto [written, read] = b64::decode(out.data(), text.data(), text.size());
  // Beast stops at the first '=' and does not count it as read: what is left
  // must be the padding, at most two '=' completing a group of four.
  const std::string_view rest = text.substr(read);
  const bool padding_only =
      rest.size() <= 2 && rest.find_first_not_of('=') == std::string_view::npos;
  if (!padding_only) return std::nullopt;
  out.resize(written);
  return out;
}

namespace {

void AppendQuoted(std::string_view text, std::string* out) { out->append(QuoteJson(text)); }

using Members = std::map<std::string, std::string_view, std::less<>>;

// A JSON string literal's text, unescaped. `raw` is valid JSON (the whole
// text was checked): only strings with escapes need a decoder.
std::optional<std::string> DecodeString(std::string_view raw) {
  if (raw.size() < 2 || raw.front() != '"') return std::nullopt;
  if (raw.find('\\') == std::string_view::npos) return std::string(raw.substr(1, raw.size() - 2));
  boost::system::error_code ec;
  json::value decoded = json::parse(json::string_view(raw.data(), raw.size()), ec);
  if (ec || !decoded.is_string()) return std::nullopt;
  return std::string(decoded.as_string());
}

// The members of an event object's text by decoded key, refusing a key
// sent twice: `{"type":"A","type":"B"}` must not be stored as something the
// client may not have meant.
Result<Members> MembersOf(std::string_view raw, const std::string& at) {
  Members members;
  auto listed = RawMembers(raw);
  if (!listed) return Status::Invalid(at.empty() ? "event" : at, "an event must be a JSON object");
  for (const auto& [raw_key, value] : *listed) {
    std::string key(raw_key);
    if (raw_key.find('\\') != std::string_view::npos)
      if (auto decoded = DecodeString("\"" + key + "\"")) key = std::move(*decoded);
    if (!members.emplace(key, value).second)
      return Status::Invalid(
          at + key, fmt::format("'{}' appears twice in the event; send it once", Printable(key)));
  }
  return members;
}

// A string member: empty when absent or null; invalid when another kind.
Result<std::string> StringField(const Members& members, std::string_view key, const std::string& at,
                                bool required) {
  auto it = members.find(key);
  if (it == members.end() || it->second == "null") {
    if (required)
      return Status::Invalid(at + std::string(key), fmt::format("'{}' is required", key));
    return std::string();
  }
  auto text = DecodeString(it->second);
  if (!text)
    return Status::Invalid(at + std::string(key), fmt::format("'{}' must be a string", key));
  return std::move(*text);
}

// A member holding a whole number that fits an int64; `members` comes from
// valid JSON, so a number is its literal text ("7", "-1", "1e3", "7.0").
Result<std::int64_t> WholeNumberField(const Members& members, std::string_view key) {
  auto it = members.find(key);
  std::int64_t n = 0;
  if (it != members.end()) {
    const std::string_view text = it->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (error == std::errc() && end == text.data() + text.size()) return n;
  }
  return Status::Invalid(std::string(key),
                         fmt::format("'{}' must be a whole number below 2^63", key));
}

// One event object from its members, cut from valid JSON (the caller
// checked the whole body once: core/json_check.h), so `data` and
// `metadata` are taken as they were sent and need no parse of their own.
Result<EventData> EventFromMembers(const Members& members, const std::string& at) {
  EventData event;
  auto id = StringField(members, "id", at, false);
  if (!id.ok()) return id.status();
  if (!id->empty()) {
    auto parsed = EventId::Parse(*id);
    if (!parsed.ok()) return Status::Invalid(at + "id", parsed.status().message());
    event.id = *parsed;
  }
  auto type = StringField(members, "type", at, true);
  if (!type.ok()) return type.status();
  event.type = std::move(*type);
  auto schema = StringField(members, "schema", at, false);
  if (!schema.ok()) return schema.status();
  event.schema = std::move(*schema);
  auto content_type = StringField(members, "contentType", at, false);
  if (!content_type.ok()) return content_type.status();
  if (!content_type->empty()) event.content_type = std::move(*content_type);

  auto data = members.find("data");
  if (event.content_type == kJsonContentType) {
    event.data = data == members.end() ? "null" : CompactJson(data->second);
  } else {
    auto text = data == members.end() ? std::nullopt : DecodeString(data->second);
    if (!text)
      return Status::Invalid(at + "data", "data of a non-JSON content type must be base64 text");
    auto bytes = Base64Decode(*text);
    if (!bytes) return Status::Invalid(at + "data", "data is not valid base64");
    event.data = std::move(*bytes);
  }
  if (auto metadata = members.find("metadata");
      metadata != members.end() && metadata->second != "null") {
    if (metadata->second.front() != '{')
      return Status::Invalid(at + "metadata", "metadata must be a JSON object");
    event.metadata = CompactJson(metadata->second);
  }
  if (auto tags = members.find("tags"); tags != members.end() && tags->second != "null") {
    auto raw = tags->second.front() == '[' ? RawElements(tags->second) : std::nullopt;
    if (!raw) return Status::Invalid(at + "tags", "tags must be an array of strings");
    event.tags.reserve(raw->size());
    for (std::size_t t = 0; t < raw->size(); ++t) {
      auto tag = DecodeString((*raw)[t]);
      if (!tag) return Status::Invalid(fmt::format("{}tags[{}]", at, t), "a tag must be a string");
      event.tags.push_back(std::move(*tag));
    }
  }
  return event;
}

Result<EventData> EventFromRaw(std::string_view raw, const std::string& at) {
  auto members = MembersOf(raw, at);
  if (!members.ok()) return members.status();
  return EventFromMembers(*members, at);
}

}  // namespace

void AppendEventJson(const EventView& event, std::string* out) {
  out->append(R"({"id":")");
  out->append(event.id.ToString());
  out->append(R"(","stream":)");
  AppendQuoted(event.stream, out);
  out->append(fmt::format(R"(,"version":{},"position":{},"type":)", event.version.value(),
                          event.position.value()));
  AppendQuoted(event.type, out);
  if (!event.schema.empty()) {
    out->append(R"(,"schema":)");
    AppendQuoted(event.schema, out);
  }
  if (event.content_type == kJsonContentType) {
    out->append(R"(,"data":)");
    out->append(event.data);  // validated JSON at append
  } else {
    out->append(R"(,"contentType":)");
    AppendQuoted(event.content_type, out);
    out->append(R"(,"dataEncoding":"base64","data":")");
    out->append(Base64Encode(event.data));
    out->push_back('"');
  }
  out->append(R"(,"metadata":)");
  out->append(event.metadata.empty() ? std::string_view("{}") : event.metadata);
  if (!event.tags.empty()) {
    out->append(R"(,"tags":[)");
    for (std::size_t t = 0; t < event.tags.size(); ++t) {
      if (t > 0) out->push_back(',');
      AppendQuoted(event.tags[t], out);
    }
    out->push_back(']');
  }
  out->append(fmt::format(R"(,"timestamp":{}}})", event.timestamp_ms));
}

std::string EventToJson(const EventView& event) {
  std::string out;
  AppendEventJson(event, &out);
  return out;
}

Result<std::vector<EventData>> EventsFromJson(std::string_view text) {
  if (std::string why = CheckJson(text); !why.empty())
    return Status::Invalid("body", "body is not valid JSON: " + why);
  return EventsFromCheckedJson(text);
}

Result<std::vector<EventData>> EventsFromCheckedJson(std::string_view text) {
  std::vector<EventData> events;
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && text[start] == '[') {
    const auto raw = RawElements(text);
    if (!raw) return Status::Invalid("body", "body is not a JSON array of events");
    events.reserve(raw->size());
    for (std::size_t i = 0; i < raw->size(); ++i) {
      auto event = EventFromRaw((*raw)[i], fmt::format("[{}].", i));
      if (!event.ok()) return event.status();
      events.push_back(std::move(*event));
    }
    return events;
  }
  auto event = EventFromRaw(text, "");
  if (!event.ok()) return event.status();
  events.push_back(std::move(*event));
  return events;
}

// One pass over the line (CheckJson, then the members' raw text), as for
// a client's events: `indelible import` reads millions of lines.
Result<ExportedEvent> ExportedEventFromJson(std::string_view text) {
  if (std::string why = CheckJson(text, JsonShape::kObject); !why.empty())
    return Status::Invalid("line", "line is not a JSON object: " + why);
  auto members = MembersOf(text, "");
  if (!members.ok()) return members.status();
  auto event = EventFromMembers(*members, "");
  if (!event.ok()) return event.status();
  ExportedEvent exported;
  auto stream = StringField(*members, "stream", "", true);
  if (!stream.ok()) return Status::Invalid("stream", "'stream' is required and must be a string");
  exported.stream = std::move(*stream);
  auto version = WholeNumberField(*members, "version");
  if (!version.ok()) return version.status();
  auto position = WholeNumberField(*members, "position");
  if (!position.ok()) return position.status();
  auto timestamp = WholeNumberField(*members, "timestamp");
  if (!timestamp.ok()) return timestamp.status();
  if (*version < 0 || *position < 1)
    return Status::Invalid("version", "version must be >= 0 and position >= 1");
  exported.version = StreamVersion(*version);
  exported.position = Position(static_cast<std::uint64_t>(*position));
  exported.event = std::move(*event);
  exported.event.timestamp_ms = *timestamp;
  return exported;
}

}  // namespace indelible
