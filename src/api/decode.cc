// The decoding half of api/wire.h: the documents the client reads.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>

#include "api/decoding.h"
#include "api/wire.h"
#include "core/event_json.h"
#include "core/json_number.h"
#include "core/json_spans.h"

namespace indelible::api {
namespace json = boost::json;
namespace decoding {

Status NotOurs(std::string_view what, std::string_view why) {
  return Status::Internal(fmt::format("the server's answer is not a valid {}: {}", what, why));
}

Result<json::object> ParseObject(std::string_view body, std::string_view what) {
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(body.data(), body.size()), ec);
  if (ec) return NotOurs(what, ec.message());
  if (!value.is_object()) return NotOurs(what, "not a JSON object");
  return std::move(value.as_object());
}

Result<std::optional<std::int64_t>> Integer(const json::object& object, std::string_view key,
                                            std::string_view what) {
  const json::value* v = object.if_contains(key);
  if (v != nullptr && v->is_null()) return std::optional<std::int64_t>();
  const auto n = v == nullptr ? std::nullopt : WholeNumber(*v);
  if (!n) return NotOurs(what, fmt::format("'{}' is not a whole number below 2^63", key));
  return std::optional<std::int64_t>(n);
}

Result<std::int64_t> RequiredInteger(const json::object& object, std::string_view key,
                                     std::string_view what) {
  auto n = Integer(object, key, what);
  if (!n.ok()) return n.status();
  if (!n->has_value()) return NotOurs(what, fmt::format("'{}' is null", key));
  return **n;
}

std::string StringMember(const json::object& object, std::string_view key) {
  const json::value* v = object.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool BoolMember(const json::object& object, std::string_view key) {
  const json::value* v = object.if_contains(key);
  return v != nullptr && v->is_bool() && v->as_bool();
}

}  // namespace decoding

using decoding::BoolMember;
using decoding::Integer;
using decoding::NotOurs;
using decoding::ParseObject;
using decoding::RequiredInteger;
using decoding::StringMember;

namespace {

Result<std::vector<RecordedEvent>> EventsMember(std::string_view body, std::string_view what) {
  auto raw = RawMember(body, "events");
  if (!raw) return NotOurs(what, "no 'events' array");
  auto elements = RawElements(*raw);
  if (!elements) return NotOurs(what, "'events' is not an array");
  std::vector<RecordedEvent> events;
  events.reserve(elements->size());
  for (std::string_view element : *elements) {
    auto event = StoredEventFromJson(element);
    if (!event.ok()) return event.status();
    events.push_back(std::move(*event));
  }
  return events;
}

}  // namespace

Status StatusFromAnswer(unsigned http_status, std::string_view body) {
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(body.data(), body.size()), ec);
  const json::object* object = !ec && value.is_object() ? &value.as_object() : nullptr;
  const std::string error = object != nullptr ? StringMember(*object, "error") : std::string();
  if (object == nullptr || error.empty()) {
    // Not our error body (a proxy, or not an indelible server): the status
    // code is all there is.
    std::string message = fmt::format("HTTP {} from the server: {}", http_status,
                                      std::string_view(body).substr(0, 200));
    switch (http_status) {
      case 400:
      case 405:
      case 415:
        return Status::Invalid("", std::move(message));
      case 401:
      case 403:
        return Status::Unauthorized(std::move(message));
      case 404:
        return Status::NotFound(std::move(message));
      case 409:
        return Status::Conflict(std::move(message), std::nullopt);
      case 413:
      case 431:
        return Status::TooLarge("", std::move(message));
      case 502:
      case 503:
      case 504:
        return Status::Unavailable(std::move(message));
      default:
        return Status::Internal(std::move(message));
    }
  }
  std::string message = StringMember(*object, "message");
  std::string field = StringMember(*object, "field");
  const bool deleted = BoolMember(*object, "deleted");
  if (error == "not_found") return Status::NotFound(std::move(message), deleted);
  if (error == "conflict") {
    if (StringMember(*object, "reason") == "condition") {
      const json::value* v = object->if_contains("position");
      const auto position = v != nullptr ? WholeNumber(*v) : std::nullopt;
      if (position && *position >= 0)
        return Status::ConditionConflict(std::move(message), static_cast<std::uint64_t>(*position));
    }
    if (StringMember(*object, "reason") == "event_id")
      return Status::EventIdConflict(std::move(message), StringMember(*object, "eventId"),
                                     StringMember(*object, "stream"));
    std::optional<std::int64_t> actual;
    if (const json::value* v = object->if_contains("actualVersion"); v != nullptr)
      actual = WholeNumber(*v);
    return Status::Conflict(std::move(message), actual, deleted, StringMember(*object, "stream"));
  }
  if (error == "invalid") return Status::Invalid(std::move(field), std::move(message));
  if (error == "too_large") return Status::TooLarge(std::move(field), std::move(message));
  if (error == "rejected") return Status::Rejected(std::move(message));
  if (error == "unauthorized") return Status::Unauthorized(std::move(message));
  if (error == "unavailable") return Status::Unavailable(std::move(message));
  if (error == "internal") return Status::Internal(std::move(message));
  return Status::Internal(fmt::format("the server answered HTTP {} with the unknown error '{}': {}",
                                      http_status, error, message));
}

Result<AppendResult> AppendResultFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "append result";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  auto first = RequiredInteger(*object, "firstVersion", kWhat);
  auto last = RequiredInteger(*object, "lastVersion", kWhat);
  auto position = RequiredInteger(*object, "position", kWhat);
  if (!first.ok()) return first.status();
  if (!last.ok()) return last.status();
  if (!position.ok()) return position.status();
  if (*first < 0 || *last < *first || *position < 1 + (*last - *first))
    return NotOurs(kWhat, "versions or position out of range");
  AppendResult result;
  result.stream = StringMember(*object, "stream");
  result.first_version = StreamVersion(*first);
  result.last_version = StreamVersion(*last);
  result.position = Position(static_cast<std::uint64_t>(*position));
  // The events of one append are contiguous in $all.
  result.first_position = Position(static_cast<std::uint64_t>(*position - (*last - *first)));
  return result;
}

Result<StreamHead> HeadFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "stream head";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  auto version = RequiredInteger(*object, "version", kWhat);
  auto position = RequiredInteger(*object, "position", kWhat);
  auto first = RequiredInteger(*object, "firstVersion", kWhat);
  if (!version.ok()) return version.status();
  if (!position.ok()) return position.status();
  if (!first.ok()) return first.status();
  StreamHead head;
  head.version = StreamVersion(*version);
  head.position = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*position, 0)));
  head.deleted = BoolMember(*object, "deleted");
  head.first_version = StreamVersion(*first);
  return head;
}

Result<ServerHealth> HealthFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "health answer";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  auto last = RequiredInteger(*object, "lastPosition", kWhat);
  if (!last.ok()) return last.status();
  ServerHealth health;
  health.status = StringMember(*object, "status");
  health.reason = StringMember(*object, "reason");
  health.last_position = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*last, 0)));
  return health;
}

Result<RecordedEvent> StoredEventFromJson(std::string_view text) {
  auto exported = ExportedEventFromJson(text);
  if (!exported.ok()) return NotOurs("event", exported.status().ToString());
  RecordedEvent event;
  event.id = exported->event.id;
  event.stream = std::move(exported->stream);
  event.version = exported->version;
  event.position = exported->position;
  event.type = std::move(exported->event.type);
  event.schema = std::move(exported->event.schema);
  event.content_type = std::move(exported->event.content_type);
  event.data = std::move(exported->event.data);
  event.metadata = std::move(exported->event.metadata);
  event.timestamp_ms = exported->event.timestamp_ms.value_or(0);
  event.tags = std::move(exported->event.tags);
  // The exact stored text rather than Boost.JSON's re-encoding of it.
  if (event.content_type == kJsonContentType) {
    if (auto raw = RawMember(text, "data")) event.data = std::string(*raw);
  }
  if (auto raw = RawMember(text, "metadata"); raw && raw->front() == '{')
    event.metadata = std::string(*raw);
  return event;
}

Result<StreamPage> StreamPageFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "stream page";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  auto next = Integer(*object, "nextVersion", kWhat);
  if (!next.ok()) return next.status();
  auto events = EventsMember(body, kWhat);
  if (!events.ok()) return events.status();
  StreamPage page;
  page.stream = StringMember(*object, "stream");
  page.events = std::move(*events);
  if (next->has_value()) page.next_version = StreamVersion(**next);
  return page;
}

Result<AllPage> AllPageFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "$all page";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  auto next = RequiredInteger(*object, "next", kWhat);
  if (!next.ok()) return next.status();
  auto events = EventsMember(body, kWhat);
  if (!events.ok()) return events.status();
  AllPage page;
  page.events = std::move(*events);
  page.next = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*next, 0)));
  return page;
}

Result<StreamVersion> VersionFromETag(std::string_view etag) {
  std::int64_t version = -1;
  if (etag.size() >= 3 && etag.front() == '"' && etag.back() == '"') {
    const std::string_view digits = etag.substr(1, etag.size() - 2);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), version);
    if (ec != std::errc() || end != digits.data() + digits.size()) version = -1;
  }
  if (version < 0) return NotOurs("ETag", fmt::format("'{}' is not a quoted version", etag));
  return StreamVersion(version);
}

}  // namespace indelible::api
