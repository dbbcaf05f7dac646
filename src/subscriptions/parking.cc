#include "subscriptions/parking.h"

#include <fmt/format.h>

#include <array>
#include <boost/json.hpp>
#include <cstdint>

#include "core/event_json.h"

namespace indelible::subscriptions {
namespace json = boost::json;
namespace {

// FNV-1a: a stable hash (std::hash may change between builds), enough to
// give each group its own ids; not a security boundary.
std::uint64_t Fnv1a(std::string_view text, std::uint64_t seed) {
  std::uint64_t hash = 14695981039346656037ULL ^ seed;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// The original id mixed with the group's hash: the same (group, event) gives
// the same copy id, different groups give different ones.
EventId CopyId(std::string_view group, const EventId& original) {
  std::array<std::uint8_t, 16> bytes = original.bytes();
  const std::uint64_t high = Fnv1a(group, 0x9e3779b97f4a7c15ULL);
  const std::uint64_t low = Fnv1a(group, 0x7f4a7c159e3779b9ULL);
  for (int i = 0; i < 8; ++i) {
    bytes[i] ^= static_cast<std::uint8_t>(high >> (8 * i));
    bytes[8 + i] ^= static_cast<std::uint8_t>(low >> (8 * i));
  }
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0f) | 0x80);  // version 8: custom
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  return EventId(bytes);
}

}  // namespace

std::string ParkedStreamName(std::string_view group) { return fmt::format("$parked-{}", group); }

EventData MakeParkedCopy(std::string_view group, const RecordedEvent& event, int attempts,
                         std::string_view reason) {
  EventData copy;
  copy.id = CopyId(group, event.id);
  copy.type = event.type;
  copy.schema = event.schema;
  copy.data = event.data;
  copy.content_type = event.content_type;
  // The original's tags travel in the metadata, not as the copy's tags: a
  // parked copy must not count in queries and conditions (docs/DCB.md) as
  // a second event of its kind.
  std::string tags = "[";
  for (const std::string& tag : event.tags) {
    if (tags.size() > 1) tags.push_back(',');
    tags += QuoteJson(tag);
  }
  tags.push_back(']');
  // The original metadata is a JSON object (the store checks it on append),
  // so it is spliced in as it is; a replay hands it back as equal JSON.
  copy.metadata = fmt::format(
      R"({{"$parked":{{"group":{},"stream":{},"version":{},"position":{},"eventId":"{}",)"
      R"("timestamp":{},"attempts":{},"reason":{},"tags":{}}},"metadata":{}}})",
      QuoteJson(group), QuoteJson(event.stream), event.version.value(), event.position.value(),
      event.id.ToString(), event.timestamp_ms, attempts, QuoteJson(reason), tags,
      event.metadata.empty() ? std::string_view("{}") : std::string_view(event.metadata));
  return copy;
}

Result<ParkedEvent> DecodeParkedCopy(const EventView& copy) {
  auto corrupt = [&](std::string_view what) {
    return Status::Internal(fmt::format("event {} of '{}' is not a parked copy ({})",
                                        copy.version.value(), copy.stream, what));
  };
  boost::system::error_code ec;
  json::value value = json::parse(copy.metadata, ec);
  if (ec || !value.is_object()) return corrupt("metadata is not a JSON object");
  const json::object& root = value.as_object();
  const json::value* parked = root.if_contains("$parked");
  const json::value* metadata = root.if_contains("metadata");
  if (parked == nullptr || !parked->is_object() || metadata == nullptr || !metadata->is_object())
    return corrupt("no $parked or metadata object");
  const json::object& p = parked->as_object();
  const json::value* stream = p.if_contains("stream");
  const json::value* id = p.if_contains("eventId");
  const json::value* reason = p.if_contains("reason");
  const json::value* version = p.if_contains("version");
  const json::value* position = p.if_contains("position");
  const json::value* timestamp = p.if_contains("timestamp");
  if (stream == nullptr || !stream->is_string() || id == nullptr || !id->is_string() ||
      reason == nullptr || !reason->is_string() || version == nullptr || !version->is_int64() ||
      position == nullptr || !position->is_int64() || timestamp == nullptr ||
      !timestamp->is_int64() || version->as_int64() < 0 || position->as_int64() < 1)
    return corrupt("missing or bad fields");
  auto original_id = EventId::Parse(id->as_string());
  if (!original_id.ok()) return corrupt("bad eventId");
  ParkedEvent out;
  RecordedEvent& e = out.original;
  e.id = *original_id;
  e.stream = std::string(stream->as_string());
  e.version = StreamVersion(version->as_int64());
  e.position = Position(static_cast<std::uint64_t>(position->as_int64()));
  e.type = std::string(copy.type);
  e.schema = std::string(copy.schema);
  e.content_type = std::string(copy.content_type);
  e.data = std::string(copy.data);
  e.metadata = json::serialize(*metadata);
  e.timestamp_ms = timestamp->as_int64();
  if (const json::value* tags = p.if_contains("tags"); tags != nullptr && tags->is_array())
    for (const json::value& tag : tags->as_array())
      if (tag.is_string()) e.tags.emplace_back(tag.as_string());
  out.reason = std::string(reason->as_string());
  return out;
}

}  // namespace indelible::subscriptions
