#include "storage/dynamodb/tip.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>
#include <unordered_map>

#include "core/event_json.h"
#include "storage/dynamodb/attributes.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

Status Malformed(std::string_view stream, std::string_view what) {
  return Status::Internal(
      fmt::format("DynamoDB item of stream '{}' is malformed: {}", stream, what));
}

}  // namespace

Status ReadEnvelope(const json::object& item, RecordedEvent* event) {
  auto id = GetS(item, "id");
  auto type = GetS(item, "type");
  auto timestamp = GetN(item, "timestamp");
  if (!id || !type || !timestamp) return Malformed(event->stream, "id, type or timestamp");
  auto parsed = EventId::Parse(*id);
  if (!parsed.ok()) return Malformed(event->stream, "id");
  event->id = *parsed;
  event->type = *type;
  event->timestamp_ms = *timestamp;
  event->schema = GetS(item, "schema").value_or("");
  event->content_type = GetS(item, "content_type").value_or(kJsonContentType);
  event->metadata = GetS(item, "metadata").value_or("{}");
  event->tags.clear();
  if (const auto* tags = Member(item, kTagsAttribute)) {
    const json::array* list = ListOf(tags);
    if (list == nullptr) return Malformed(event->stream, "tg is not a list");
    for (const auto& tag : *list) {
      const json::object* s = tag.if_object();
      const json::value* text = s != nullptr ? s->if_contains("S") : nullptr;
      if (text == nullptr || !text->is_string()) return Malformed(event->stream, "a tag is not S");
      event->tags.emplace_back(text->get_string());
    }
  }
  event->data.clear();
  if (const auto* data = Member(item, "data")) {
    if (const auto* s = data->if_contains("S"); s != nullptr && s->is_string()) {
      event->data = s->get_string();
    } else if (const auto* b = data->if_contains("B"); b != nullptr && b->is_string()) {
      auto bytes = Base64Decode(b->get_string());
      if (!bytes) return Malformed(event->stream, "data is not base64");
      event->data = std::move(*bytes);
    } else {
      return Malformed(event->stream, "data is neither S nor B");
    }
  }
  return Status::Ok();
}

std::string AppendAttribute(std::int64_t first) { return fmt::format("a{}", first); }

json::object S(std::string_view s) { return {{"S", s}}; }
json::object N(std::int64_t n) { return {{"N", std::to_string(n)}}; }

std::int64_t TagBytes(const std::vector<std::string>& tags) {
  if (tags.empty()) return 0;
  std::int64_t bytes = 2 + 3;  // "tg", the list
  for (const auto& tag : tags) bytes += static_cast<std::int64_t>(tag.size()) + 1;
  return bytes;
}

std::int64_t TipBytes(const EventData& event) {
  constexpr std::int64_t kAllowance = 160;  // names, id, timestamp, list and map framing
  return static_cast<std::int64_t>(event.type.size() + event.schema.size() + event.data.size() +
                                   event.content_type.size() + event.metadata.size()) +
         TagBytes(event.tags) + kAllowance;
}

json::object Envelope(const EventData& event, std::int64_t timestamp_ms) {
  json::object m;
  m["id"] = S(event.id.ToString());
  m["type"] = S(event.type);
  if (!event.schema.empty()) m["schema"] = S(event.schema);
  if (event.content_type != kJsonContentType) m["content_type"] = S(event.content_type);
  // JSON is valid UTF-8 (validated on append) and stays readable as S in the
  // console; any other content type may be any bytes: B.
  if (!event.data.empty()) {
    if (event.content_type == kJsonContentType) {
      m["data"] = S(event.data);
    } else {
      m["data"] = json::object{{"B", Base64Encode(event.data)}};
    }
  }
  if (event.metadata != "{}") m["metadata"] = S(event.metadata);
  m["timestamp"] = N(timestamp_ms);
  if (!event.tags.empty()) {
    json::array tags;
    tags.reserve(event.tags.size());
    for (const auto& tag : event.tags) tags.push_back(S(tag));
    m[kTagsAttribute] = json::object{{"L", std::move(tags)}};
  }
  return m;
}

json::object StateAttribute(const StateUpdate& state, std::int64_t version) {
  return {{"M", json::object{{"d", json::object{{"B", Base64Encode(state.data)}}},
                             {"s", N(state.schema)},
                             {"v", N(version)}}}};
}

std::int64_t SnapshotKey(std::int64_t version, std::int64_t part) {
  return -(version * kSnapshotPartsMax + part + 1);
}

json::object SnapshotRefAttribute(SnapshotRef ref) {
  return {{"M", json::object{{"v", N(ref.version)}, {"p", N(ref.parts)}}}};
}

std::optional<SnapshotRef> ParseSnapshotRef(const json::object& attributes, std::string_view name) {
  const auto* value = attributes.if_contains(name);
  const json::object* m = value != nullptr ? MapOf(*value) : nullptr;
  if (m == nullptr) return std::nullopt;
  auto version = GetN(*m, "v");
  auto parts = GetN(*m, "p");
  // Only what a store writes: a damaged or hostile item must not size an
  // allocation, a loop of requests or an overflowing SnapshotKey (fuzzing).
  if (!version || !parts || *version < -1 || *version >= kTipVersion || *parts < 0 ||
      *parts > kSnapshotPartsMax)
    return std::nullopt;
  return SnapshotRef{*version, *parts};
}

std::vector<json::object> SnapshotItems(std::string_view stream, const StateUpdate& state,
                                        std::int64_t version) {
  std::vector<json::object> items;
  const std::string_view data = state.data;
  const auto parts = std::max<std::int64_t>(
      1, (static_cast<std::int64_t>(data.size()) + kSnapshotPartBytes - 1) / kSnapshotPartBytes);
  for (std::int64_t i = 0; i < parts; ++i) {
    const std::string_view part = data.substr(static_cast<std::size_t>(i * kSnapshotPartBytes),
                                              static_cast<std::size_t>(kSnapshotPartBytes));
    items.push_back(json::object{{kStreamKey, S(stream)},
                                 {kVersionKey, N(SnapshotKey(version, i))},
                                 {"d", json::object{{"B", Base64Encode(part)}}},
                                 {"s", N(state.schema)},
                                 {"v", N(version)},
                                 {"i", N(i)},
                                 {"p", N(parts)}});
  }
  return items;
}

Result<std::optional<StateRecord>> ParseSnapshotItems(std::string_view stream, SnapshotRef ref,
                                                      const json::array& items) {
  std::vector<std::optional<std::string>> parts(static_cast<std::size_t>(ref.parts));
  std::int64_t schema = 0;
  for (const auto& value : items) {
    if (!value.is_object()) continue;
    const json::object& item = value.get_object();
    auto version = GetN(item, "v");
    auto part = GetN(item, "i");
    if (!version || *version != ref.version) continue;
    if (!part || *part < 0 || *part >= ref.parts) return Malformed(stream, "snapshot part");
    const json::object* d = Member(item, "d");
    const json::value* b = d != nullptr ? d->if_contains("B") : nullptr;
    auto bytes = b != nullptr && b->is_string() ? Base64Decode(b->get_string()) : std::nullopt;
    if (!bytes) return Malformed(stream, "snapshot data is not base64");
    schema = GetN(item, "s").value_or(0);
    parts[static_cast<std::size_t>(*part)] = std::move(*bytes);
  }
  std::string data;
  for (auto& part : parts) {
    if (!part) return std::optional<StateRecord>();  // expired: the entity replays
    data += *part;
  }
  return std::optional<StateRecord>(StateRecord{std::move(data), static_cast<std::uint32_t>(schema),
                                                StreamVersion(ref.version), Position(0)});
}

json::object EventItem(const RecordedEvent& event) {
  EventData data{event.id,           event.type,     event.schema, event.data,
                 event.content_type, event.metadata, event.tags,   std::nullopt};
  json::object item = Envelope(data, event.timestamp_ms);
  item[kStreamKey] = S(event.stream);
  item[kVersionKey] = N(event.version.value());
  return item;
}

Result<RecordedEvent> ParseEventItem(const json::object& item) {
  RecordedEvent event;
  auto stream = GetS(item, kStreamKey);
  auto version = GetN(item, kVersionKey);
  if (!stream || !version) return Malformed("?", "no keys");
  event.stream = *stream;
  event.version = StreamVersion(*version);
  if (Status s = ReadEnvelope(item, &event); !s.ok()) return s;
  return event;
}

Result<std::optional<StateRecord>> ParseStateAttribute(std::string_view stream,
                                                       const json::object& item) {
  const json::value* state = item.if_contains("state");
  if (state == nullptr) return std::optional<StateRecord>();
  {
    const json::object* m = MapOf(*state);
    const json::object* d = m != nullptr ? Member(*m, "d") : nullptr;
    const json::value* b = d != nullptr ? d->if_contains("B") : nullptr;
    auto schema = m != nullptr ? GetN(*m, "s") : std::nullopt;
    auto version = m != nullptr ? GetN(*m, "v") : std::nullopt;
    if (b == nullptr || !b->is_string() || !schema || !version || *schema < 0)
      return Malformed(stream, "state is not {d: B, s: N, v: N}");
    auto bytes = Base64Decode(b->get_string());
    if (!bytes) return Malformed(stream, "state data is not base64");
    return std::optional<StateRecord>(StateRecord{std::move(*bytes),
                                                  static_cast<std::uint32_t>(*schema),
                                                  StreamVersion(*version), Position(0)});
  }
}

Result<Tip> ParseTip(std::string_view stream, const json::object& item) {
  Tip tip;
  auto head = GetN(item, "head");
  auto first = GetN(item, "first");
  const auto* deleted = Member(item, "deleted");
  const auto* deleted_flag = deleted != nullptr ? deleted->if_contains("BOOL") : nullptr;
  if (!head || !first || deleted_flag == nullptr || !deleted_flag->is_bool())
    return Malformed(stream, "tip without head, first or deleted");
  tip.head.version = StreamVersion(*head);
  tip.head.first_version = StreamVersion(*first);
  tip.head.deleted = deleted_flag->get_bool();
  tip.bytes = GetN(item, "bytes").value_or(0);
  tip.written_ms = GetN(item, kWrittenAttribute);
  for (const auto& [name, value] : item) {
    if (name.size() < 2 || name[0] != 'a' || !value.is_object()) continue;
    std::int64_t first_version = 0;
    std::string_view digits(name.data() + 1, name.size() - 1);
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), first_version);
    if (ec != std::errc() || end != digits.data() + digits.size()) continue;
    const json::object* m = MapOf(value);
    // Versions count up from first_version below: keep them far from overflow.
    if (m == nullptr || first_version < 0 || first_version >= kTipVersion)
      return Malformed(stream, name);
    TipAppend append;
    append.first = first_version;
    append.bytes = GetN(*m, "b").value_or(0);
    const json::array* list = ListOf(Member(*m, "e"));
    if (list == nullptr) return Malformed(stream, name);
    std::int64_t version = first_version;
    for (const auto& element : *list) {
      RecordedEvent event;
      event.stream = stream;
      event.version = StreamVersion(version++);
      const json::object* envelope = MapOf(element);
      if (envelope == nullptr) return Malformed(stream, name);
      if (Status s = ReadEnvelope(*envelope, &event); !s.ok()) return s;
      append.events.push_back(std::move(event));
    }
    tip.appends.push_back(std::move(append));
  }
  std::sort(tip.appends.begin(), tip.appends.end(),
            [](const TipAppend& a, const TipAppend& b) { return a.first < b.first; });
  auto state = ParseStateAttribute(stream, item);
  if (!state.ok()) return state.status();
  tip.state = std::move(*state);
  tip.snapshot = ParseSnapshotRef(item, "snap");
  if (const auto* recent = Member(item, "recent"); recent != nullptr) {
    const json::array* entries = ListOf(recent);
    if (entries == nullptr) return Malformed(stream, "recent is not a list");
    for (const auto& entry : *entries) {
      const json::object* m = MapOf(entry);
      const json::array* ids = m != nullptr ? ListOf(Member(*m, "ids")) : nullptr;
      if (ids == nullptr) return Malformed(stream, "recent holds an entry without ids");
      RecentAppend r;
      r.first = GetN(*m, "f").value_or(0);
      for (const auto& id : *ids) {
        const auto* text = id.is_object() ? id.get_object().if_contains("S") : nullptr;
        if (text == nullptr || !text->is_string())
          return Malformed(stream, "recent holds an id that is not a string");
        r.ids.emplace_back(text->get_string());
      }
      tip.recent.push_back(std::move(r));
    }
  }
  return tip;
}

std::vector<std::optional<store::IdRecord>> KnownIds(const Tip& tip, const AppendRequest& append) {
  std::unordered_map<std::string, store::IdRecord> known;
  auto record = [&](const std::string& id, std::int64_t first, std::size_t count) {
    store::IdRecord r;
    r.stream = append.stream;
    r.append_first_position = Position(static_cast<std::uint64_t>(first) + 1);
    r.append_first_version = StreamVersion(first);
    r.append_count = static_cast<std::uint32_t>(count);
    known.emplace(id, std::move(r));
  };
  for (const auto& a : tip.appends)
    for (const auto& e : a.events) record(e.id.ToString(), a.first, a.events.size());
  for (const auto& r : tip.recent)
    for (const auto& id : r.ids) record(id, r.first, r.ids.size());
  std::vector<std::optional<store::IdRecord>> out;
  for (const auto& e : append.events) {
    auto it = known.find(e.id.ToString());
    out.push_back(it == known.end() ? std::nullopt : std::optional(it->second));
  }
  return out;
}

}  // namespace indelible::dynamodb
