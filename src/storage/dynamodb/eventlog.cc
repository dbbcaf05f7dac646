#include "storage/dynamodb/eventlog.h"

#include <fmt/format.h>
#include <openssl/sha.h>

#include <boost/json.hpp>
#include <charconv>
#include <ctime>
#include <set>

#include "core/text.h"
#include "storage/dynamodb/attributes.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// The first of `names` the envelope has.
const json::value* Field(const json::object& envelope,
                         std::initializer_list<std::string_view> names) {
  for (auto name : names)
    if (const auto* v = envelope.if_contains(name)) return v;
  return nullptr;
}

Result<ExportedEvent> ToEvent(const std::string& id, const json::object& item,
                              std::int64_t version) {
  const std::string where = fmt::format("EventLog item ID '{}'", Printable(id));
  auto sequence = AttributeText(item, "Sequence", "N");
  auto event_text = AttributeText(item, "Event", "S");
  if (!sequence || !event_text)
    return Status::Invalid("Event", where + " has no Sequence (N) or Event (S)");
  boost::system::error_code ec;
  json::value parsed = json::parse(*event_text, ec);
  if (ec || !parsed.is_object())
    return Status::Invalid(
        "Event", fmt::format("{} Sequence {}: Event is not a JSON object", where, *sequence));
  const json::object& envelope = parsed.get_object();
  const auto* type = Field(envelope, {"type", "Type"});
  if (type == nullptr || !type->is_string() || type->get_string().empty())
    return Status::Invalid(
        "Event", fmt::format("{} Sequence {}: the envelope has no type", where, *sequence));
  ExportedEvent out;
  out.stream = id;
  out.version = StreamVersion(version);
  out.event.type = type->get_string();
  const auto* data = Field(envelope, {"data", "Data", "payload"});
  out.event.data = data != nullptr ? json::serialize(*data) : "{}";
  if (const auto* schema = Field(envelope, {"schema", "Schema"}); schema && schema->is_string())
    out.event.schema = schema->get_string();
  if (const auto* metadata = Field(envelope, {"metadata", "Metadata"});
      metadata && metadata->is_object())
    out.event.metadata = json::serialize(*metadata);
  out.event.id = EventLogEventId(id, *sequence);
  if (const auto* event_id = Field(envelope, {"id", "Id", "eventId"});
      event_id && event_id->is_string())
    if (auto given = EventId::Parse(event_id->get_string()); given.ok()) out.event.id = *given;
  if (auto ms = AttributeText(item, "Timestamp", "N")) {
    double value = 0;
    std::from_chars(ms->data(), ms->data() + ms->size(), value);
    out.event.timestamp_ms = static_cast<std::int64_t>(value < 1e11 ? value * 1000 : value);
  } else if (auto iso = AttributeText(item, "Timestamp", "S")) {
    out.event.timestamp_ms = ParseIsoTimeMs(*iso);
    if (!out.event.timestamp_ms)
      return Status::Invalid("Timestamp", fmt::format("{} Sequence {}: Timestamp '{}' is not ISO "
                                                      "8601 UTC (2024-01-31T12:00:00.000Z)",
                                                      where, *sequence, Printable(*iso)));
  }
  return out;
}

}  // namespace

EventId EventLogEventId(std::string_view id, std::string_view sequence) {
  const std::string name = fmt::format("indelible-eventlog/{}/{}", id, sequence);
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(name.data()), name.size(), digest);
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0f) | 0x50);  // version 5
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex.push_back('-');
    hex += fmt::format("{:02x}", digest[i]);
  }
  return *EventId::Parse(hex);
}

std::optional<std::int64_t> ParseIsoTimeMs(std::string_view text) {
  std::tm tm{};
  int millis = 0;
  char zone = 0;
  int consumed = 0;
  const std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  std::string_view rest = text.substr(static_cast<std::size_t>(consumed));
  if (rest.starts_with('.')) {
    std::size_t digits = 1;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])) != 0)
      ++digits;
    std::string fraction(rest.substr(1, digits - 1));
    fraction.resize(3, '0');
    millis = std::stoi(fraction);
    rest.remove_prefix(digits);
  }
  if (rest.size() == 1) zone = rest[0];
  if (zone != 'Z') return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t seconds = timegm(&tm);
  if (seconds == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<std::int64_t>(seconds) * 1000 + millis;
}

Status ReadEventLog(aws::Client& client, const std::string& table, const EventLogSink& sink,
                    const EventLogProgress& progress) {
  // The aggregates: a Scan of the partition keys alone.
  std::set<std::string> ids;
  json::object scan{{"TableName", table},
                    {"ProjectionExpression", "#i"},
                    {"ExpressionAttributeNames", {{"#i", "ID"}}}};
  for (;;) {
    aws::Reply reply = client.Call("Scan", scan);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Scan of " + table + " answered without Items");
    for (const auto& item : items->get_array()) {
      if (!item.is_object()) continue;
      auto id = AttributeText(item.get_object(), "ID", "S");
      if (!id) return Status::Invalid("ID", "an item of " + table + " has no ID (S)");
      ids.emplace(*id);
    }
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) break;
    scan["ExclusiveStartKey"] = *next;
  }
  // Each aggregate in Sequence order: one Query (more past 1 MB).
  std::uint64_t done = 0;
  for (const std::string& id : ids) {
    json::object query{{"TableName", table},
                       {"ConsistentRead", true},
                       {"KeyConditionExpression", "#i = :i"},
                       {"ExpressionAttributeNames", {{"#i", "ID"}}},
                       {"ExpressionAttributeValues", {{":i", {{"S", id}}}}}};
    std::int64_t version = 0;
    for (;;) {
      aws::Reply reply = client.Call("Query", query);
      if (!reply.ok()) return reply.status;
      const auto* items = reply.body.if_contains("Items");
      if (items == nullptr || !items->is_array())
        return Status::Internal("a Query of " + table + " answered without Items");
      for (const auto& item : items->get_array()) {
        if (!item.is_object()) continue;
        auto event = ToEvent(id, item.get_object(), version++);
        if (!event.ok()) return event.status();
        if (Status s = sink(std::move(*event)); !s.ok()) return s;
      }
      const auto* next = reply.body.if_contains("LastEvaluatedKey");
      if (next == nullptr) break;
      query["ExclusiveStartKey"] = *next;
    }
    if (progress) progress(++done, ids.size());
  }
  return Status::Ok();
}

}  // namespace indelible::dynamodb
