// api/consumers.h: consumer groups' documents, both ways.
#include "api/consumers.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

#include "api/decoding.h"
#include "api/wire.h"
#include "core/event_json.h"
#include "core/json_spans.h"

namespace indelible::api {
namespace json = boost::json;

using decoding::NotOurs;
using decoding::ParseObject;
using decoding::RequiredInteger;
using decoding::StringMember;

std::string ConsumerGroupInfoToJson(const ConsumerGroupInfo& info) {
  std::string blocked = "null";
  if (info.blocked_at)
    blocked = fmt::format(R"({{"position":{},"reason":{}}})", info.blocked_at->value(),
                          QuoteJson(info.blocked_reason));
  return fmt::format(
      R"({{"group":{},"checkpoint":{},"lastPosition":{},"lagEvents":{},"lagSeconds":{:.3f},)"
      R"("inFlight":{},"redeliveries":{},"blocked":{},)"
      R"("parked":{{"streams":{},"events":{},"replaying":{}}}}})",
      QuoteJson(info.name), info.checkpoint.value(), info.last_position.value(), info.lag_events,
      info.lag_seconds, info.in_flight, info.redeliveries, blocked, info.parked_streams,
      info.parked_events, info.replaying);
}

std::string DeliveryToJson(const Delivery& delivery) {
  std::string out = fmt::format(R"({{"attempt":{},)", delivery.attempt);
  if (delivery.parked_version)
    out += fmt::format(R"("parkedVersion":{},)", delivery.parked_version->value());
  out += R"("event":)";
  AppendEventJson(delivery.event.view(), &out);
  out += '}';
  return out;
}

std::string ConsumerGroupStatusToJson(const ConsumerGroupStatus& status) {
  std::string out = "{";
  if (status.reached) out += fmt::format(R"("reached":{},)", *status.reached);
  if (status.waiting) out += fmt::format(R"("waiting":{},)", *status.waiting);
  // The info's own object, opened above and closed after the members.
  const std::string info = ConsumerGroupInfoToJson(status.info);
  out += std::string_view(info).substr(1, info.size() - 2);
  out += R"(,"members":[)";
  for (std::size_t i = 0; i < status.info.members.size(); ++i) {
    const ConsumerGroupMember& member = status.info.members[i];
    if (i > 0) out += ',';
    out += fmt::format(R"({{"consumer":{},"inFlight":{},"lastPull":{},"waiting":{}}})",
                       QuoteJson(member.consumer), member.in_flight, member.last_pull_ms,
                       member.waiting);
  }
  out += fmt::format(R"(],"membersOmitted":{}}})", status.info.members_omitted);
  return out;
}

std::string_view ParkedStateName(ParkedState state) {
  switch (state) {
    case ParkedState::kPending:
      return "pending";
    case ParkedState::kRetrying:
      return "retrying";
    case ParkedState::kSkipped:
      return "skipped";
    case ParkedState::kResolved:
      return "resolved";
  }
  return "pending";
}

std::string ParkedPageToJson(std::string_view group, const ParkedPage& page,
                             std::size_t max_bytes) {
  // Room kept for the closing text: `],"nextVersion":` and a 20-digit number.
  constexpr std::size_t kTailBytes = 40;
  std::string out = R"({"group":)" + QuoteJson(group) + R"(,"events":[)";
  std::optional<StreamVersion> next = page.next;
  std::size_t written = 0;
  for (const ParkedCopy& parked : page.events) {
    std::string item = fmt::format(R"({{"parkedVersion":{},"state":"{}","event":)",
                                   parked.copy.version.value(), ParkedStateName(parked.state));
    AppendEventJson(parked.copy.view(), &item);
    item += '}';
    if (written > 0 && out.size() + 1 + item.size() + kTailBytes > max_bytes) {
      next = parked.copy.version;
      break;
    }
    if (written++ > 0) out += ',';
    out += item;
  }
  out += R"(],"nextVersion":)";
  out += next ? std::to_string(next->value()) : "null";
  out += '}';
  return out;
}

std::string ConsumerGroupListToJson(const std::vector<ConsumerGroupInfo>& groups) {
  std::string out = R"({"consumers":[)";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (i > 0) out += ',';
    out += ConsumerGroupInfoToJson(groups[i]);
  }
  out += "]}";
  return out;
}

std::string ConsumerGroupDeletedToJson(std::string_view group) {
  return R"({"deleted":)" + QuoteJson(group) + "}";
}

std::string DeliveriesToJson(const std::vector<Delivery>& deliveries,
                             const std::function<std::string_view(std::size_t)>& encoded) {
  std::string out = R"({"deliveries":[)";
  for (std::size_t i = 0; i < deliveries.size(); ++i) {
    if (i > 0) out += ',';
    const std::string_view done = encoded ? encoded(i) : std::string_view();
    if (done.empty()) {
      out += DeliveryToJson(deliveries[i]);
    } else {
      out += done;
    }
  }
  out += "]}";
  return out;
}

namespace {

// The members of a GET /consumers/{group} answer, when it has them.
Result<std::vector<ConsumerGroupMember>> MembersFromJson(const json::value& members) {
  constexpr std::string_view kWhat = "consumer group status";
  if (!members.is_array()) return NotOurs(kWhat, "'members' is not an array");
  std::vector<ConsumerGroupMember> out;
  for (const json::value& item : members.as_array()) {
    if (!item.is_object()) return NotOurs(kWhat, "a member is not an object");
    const json::object& m = item.as_object();
    ConsumerGroupMember member;
    member.consumer = StringMember(m, "consumer");
    auto in_flight = RequiredInteger(m, "inFlight", kWhat);
    auto last_pull = RequiredInteger(m, "lastPull", kWhat);
    auto waiting = RequiredInteger(m, "waiting", kWhat);
    for (const auto* n : {&in_flight, &last_pull, &waiting})
      if (!n->ok()) return n->status();
    member.in_flight = static_cast<std::uint64_t>(std::max<std::int64_t>(*in_flight, 0));
    member.last_pull_ms = *last_pull;
    member.waiting = static_cast<std::uint64_t>(std::max<std::int64_t>(*waiting, 0));
    out.push_back(std::move(member));
  }
  return out;
}

}  // namespace

Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(const json::object& object) {
  constexpr std::string_view kWhat = "consumer group status";
  ConsumerGroupInfo info;
  info.name = StringMember(object, "group");
  std::int64_t numbers[5] = {};
  const char* keys[5] = {"checkpoint", "lastPosition", "lagEvents", "inFlight", "redeliveries"};
  for (int i = 0; i < 5; ++i) {
    auto n = RequiredInteger(object, keys[i], kWhat);
    if (!n.ok()) return n.status();
    if (*n < 0) return NotOurs(kWhat, fmt::format("'{}' is negative", keys[i]));
    numbers[i] = *n;
  }
  info.checkpoint = Position(static_cast<std::uint64_t>(numbers[0]));
  info.last_position = Position(static_cast<std::uint64_t>(numbers[1]));
  info.lag_events = static_cast<std::uint64_t>(numbers[2]);
  info.in_flight = static_cast<std::uint64_t>(numbers[3]);
  info.redeliveries = static_cast<std::uint64_t>(numbers[4]);
  if (const json::value* lag = object.if_contains("lagSeconds"); lag && lag->is_number())
    info.lag_seconds = lag->to_number<double>();
  if (const json::value* blocked = object.if_contains("blocked"); blocked && blocked->is_object()) {
    auto at = RequiredInteger(blocked->as_object(), "position", kWhat);
    if (!at.ok()) return at.status();
    info.blocked_at = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*at, 0)));
    info.blocked_reason = StringMember(blocked->as_object(), "reason");
  }
  if (const json::value* parked = object.if_contains("parked"); parked && parked->is_object()) {
    auto streams = RequiredInteger(parked->as_object(), "streams", kWhat);
    auto events = RequiredInteger(parked->as_object(), "events", kWhat);
    if (!streams.ok()) return streams.status();
    if (!events.ok()) return events.status();
    info.parked_streams = static_cast<std::uint64_t>(std::max<std::int64_t>(*streams, 0));
    info.parked_events = static_cast<std::uint64_t>(std::max<std::int64_t>(*events, 0));
    const json::value* replaying = parked->as_object().if_contains("replaying");
    info.replaying = replaying != nullptr && replaying->is_bool() && replaying->as_bool();
  }
  if (const json::value* members = object.if_contains("members")) {
    auto decoded = MembersFromJson(*members);
    if (!decoded.ok()) return decoded.status();
    info.members = std::move(*decoded);
  }
  if (const json::value* omitted = object.if_contains("membersOmitted"))
    info.members_omitted = omitted->is_bool() && omitted->as_bool();
  return info;
}

Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(std::string_view body) {
  auto object = ParseObject(body, "consumer group status");
  if (!object.ok()) return object.status();
  return ConsumerGroupInfoFromJson(*object);
}

Result<std::vector<ConsumerGroupInfo>> ConsumerGroupListFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "consumer group list";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  const json::value* list = object->if_contains("consumers");
  if (list == nullptr || !list->is_array()) return NotOurs(kWhat, "no 'consumers' array");
  std::vector<ConsumerGroupInfo> out;
  for (const json::value& item : list->as_array()) {
    if (!item.is_object()) return NotOurs(kWhat, "an entry is not an object");
    auto info = ConsumerGroupInfoFromJson(item.as_object());
    if (!info.ok()) return info.status();
    out.push_back(std::move(*info));
  }
  return out;
}

Result<std::vector<Delivery>> DeliveriesFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "pull answer";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  // Each event is cut out of the body as sent: re-serialising the parsed
  // value would change its data (1e400 becomes a number Boost.JSON cannot
  // read back, 1.0 becomes 1E0).
  auto raw = RawMember(body, "deliveries");
  auto elements = raw ? RawElements(*raw) : std::nullopt;
  if (!elements) return NotOurs(kWhat, "no 'deliveries' array");
  std::vector<Delivery> out;
  out.reserve(elements->size());
  for (std::string_view element : *elements) {
    auto item = ParseObject(element, kWhat);
    if (!item.ok()) return item.status();
    auto event = RawMember(element, "event");
    if (!event) return NotOurs(kWhat, "a delivery has no event");
    auto attempt = RequiredInteger(*item, "attempt", kWhat);
    if (!attempt.ok()) return attempt.status();
    auto recorded = StoredEventFromJson(*event);
    if (!recorded.ok()) return recorded.status();
    Delivery delivery{std::move(*recorded), static_cast<int>(*attempt), std::nullopt};
    if (item->contains("parkedVersion")) {
      auto version = RequiredInteger(*item, "parkedVersion", kWhat);
      if (!version.ok()) return version.status();
      if (*version < 0) return NotOurs(kWhat, "'parkedVersion' is negative");
      delivery.parked_version = StreamVersion(static_cast<std::uint64_t>(*version));
    }
    out.push_back(std::move(delivery));
  }
  return out;
}

Result<ParkedPage> ParkedPageFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "parked events page";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  // Events cut out of the body as sent, as DeliveriesFromJson does.
  auto raw = RawMember(body, "events");
  auto elements = raw ? RawElements(*raw) : std::nullopt;
  if (!elements) return NotOurs(kWhat, "no 'events' array");
  ParkedPage page;
  for (std::string_view element : *elements) {
    auto item = ParseObject(element, kWhat);
    if (!item.ok()) return item.status();
    auto event = RawMember(element, "event");
    if (!event) return NotOurs(kWhat, "an entry has no event");
    auto recorded = StoredEventFromJson(*event);
    if (!recorded.ok()) return recorded.status();
    const std::string state = StringMember(*item, "state");
    ParkedCopy copy{std::move(*recorded), ParkedState::kPending};
    if (state == "retrying")
      copy.state = ParkedState::kRetrying;
    else if (state == "skipped")
      copy.state = ParkedState::kSkipped;
    else if (state == "resolved")
      copy.state = ParkedState::kResolved;
    else if (state != "pending")
      return NotOurs(kWhat, "an entry has an unknown state");
    page.events.push_back(std::move(copy));
  }
  if (const json::value* next = object->if_contains("nextVersion"); next && !next->is_null()) {
    if (!next->is_int64() || next->as_int64() < 0)
      return NotOurs(kWhat, "'nextVersion' is not a version");
    page.next = StreamVersion(next->as_int64());
  }
  return page;
}

Result<ConsumerGroupStatus> ConsumerGroupStatusFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "consumer group status";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  auto info = ConsumerGroupInfoFromJson(*object);
  if (!info.ok()) return info.status();
  ConsumerGroupStatus status{std::move(*info), std::nullopt, std::nullopt};
  if (object->contains("waiting")) {
    auto waiting = RequiredInteger(*object, "waiting", kWhat);
    if (!waiting.ok()) return waiting.status();
    if (*waiting < 0) return NotOurs(kWhat, "'waiting' is negative");
    status.waiting = static_cast<std::uint64_t>(*waiting);
  }
  if (const json::value* reached = object->if_contains("reached"); reached != nullptr) {
    if (!reached->is_bool()) return NotOurs(kWhat, "'reached' is not true or false");
    status.reached = reached->as_bool();
  }
  return status;
}

Result<std::string> ConsumerGroupDeletedFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "consumer group deletion";
  auto object = ParseObject(body, kWhat);
  if (!object.ok()) return object.status();
  const json::value* deleted = object->if_contains("deleted");
  if (deleted == nullptr || !deleted->is_string())
    return NotOurs(kWhat, "'deleted' is not the group's name");
  return std::string(deleted->as_string());
}

namespace {

// The body of an ack or nack: a JSON object.
Result<json::object> RequestObject(std::string_view body) {
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(body.data(), body.size()), ec);
  if (ec || !value.is_object())
    return Status::Invalid("body", "expected a JSON object, e.g. {\"positions\":[1,2]}");
  return std::move(value.as_object());
}

Result<Position> PositionOf(const json::value& value, std::string_view field) {
  if (!value.is_int64() || value.as_int64() < 1)
    return Status::Invalid(std::string(field), "a position is an integer >= 1");
  return Position(static_cast<std::uint64_t>(value.as_int64()));
}

}  // namespace

std::string AckToJson(const std::vector<Position>& positions) {
  std::string out = R"({"positions":[)";
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(positions[i].value());
  }
  out += "]}";
  return out;
}

Result<std::vector<Position>> AckFromJson(std::string_view body) {
  auto object = RequestObject(body);
  if (!object.ok()) return object.status();
  const json::value* list = object->if_contains("positions");
  if (list == nullptr || !list->is_array() || list->as_array().empty())
    return Status::Invalid("positions", "a non-empty array of the positions to acknowledge");
  std::vector<Position> positions;
  positions.reserve(list->as_array().size());
  for (const json::value& item : list->as_array()) {
    auto position = PositionOf(item, "positions");
    if (!position.ok()) return position.status();
    positions.push_back(*position);
  }
  return positions;
}

std::string NackToJson(const NackRequest& nack) {
  std::string out = fmt::format(R"({{"position":{})", nack.position.value());
  if (nack.reason) out += R"(,"reason":)" + QuoteJson(*nack.reason);
  out += '}';
  return out;
}

Result<NackRequest> NackFromJson(std::string_view body) {
  auto object = RequestObject(body);
  if (!object.ok()) return object.status();
  const json::value* at = object->if_contains("position");
  if (at == nullptr) return Status::Invalid("position", "required");
  auto position = PositionOf(*at, "position");
  if (!position.ok()) return position.status();
  NackRequest nack{*position, std::nullopt};
  if (const json::value* reason = object->if_contains("reason"); reason != nullptr) {
    if (!reason->is_string()) return Status::Invalid("reason", "a string");
    nack.reason = std::string(reason->as_string());
  }
  return nack;
}

}  // namespace indelible::api
