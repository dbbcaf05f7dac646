// The documents of consumer groups (docs/HTTP.md, "Consumer groups"): what
// /consumers answers. wire.h includes this header.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/consumer_group.h"
#include "indelible/result.h"
#include "indelible/types.h"

namespace indelible::api {

// A consumer group's status: {group, checkpoint, lastPosition, lagEvents,
// lagSeconds, inFlight, redeliveries, blocked: null | {position, reason},
// parked: {streams, events, replaying}}.
std::string ConsumerGroupInfoToJson(const ConsumerGroupInfo& info);
Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(const boost::json::object& object);
Result<ConsumerGroupInfo> ConsumerGroupInfoFromJson(std::string_view body);

// GET /consumers/{group}: the status with what only that route tells:
// `waiting`, the requests waiting on the group, and with ?waitFor=,
// `reached`, whether the checkpoint reached the position in time. They
// lead the object: {reached?, waiting?, group, ...}; the info's members
// close it: {..., members: [{consumer, inFlight, lastPull, waiting}],
// membersOmitted}. (The other answers with a status leave members out.)
struct ConsumerGroupStatus {
  ConsumerGroupInfo info;
  std::optional<std::uint64_t> waiting;
  std::optional<bool> reached;
};
std::string ConsumerGroupStatusToJson(const ConsumerGroupStatus& status);
Result<ConsumerGroupStatus> ConsumerGroupStatusFromJson(std::string_view body);

// GET /consumers: {consumers: [status...]}
std::string ConsumerGroupListToJson(const std::vector<ConsumerGroupInfo>& groups);
Result<std::vector<ConsumerGroupInfo>> ConsumerGroupListFromJson(std::string_view body);

// DELETE /consumers/{group}: {deleted: group}; the decoder gives the name.
std::string ConsumerGroupDeletedToJson(std::string_view group);
Result<std::string> ConsumerGroupDeletedFromJson(std::string_view body);

// One delivery of a pull: {attempt, parkedVersion?, event}.
std::string DeliveryToJson(const Delivery& delivery);
// POST /consumers/{group}/pull: {deliveries: [delivery...]}. `encoded(i)`,
// when given, is delivery i as DeliveryToJson wrote it already (a pull
// measures its deliveries against the page's byte budget), or empty to
// have it written here.
std::string DeliveriesToJson(const std::vector<Delivery>& deliveries,
                             const std::function<std::string_view(std::size_t)>& encoded = nullptr);
Result<std::vector<Delivery>> DeliveriesFromJson(std::string_view body);

// "pending", "retrying", "skipped", "resolved".
std::string_view ParkedStateName(ParkedState state);
// GET /consumers/{group}/parked: {group, events: [{parkedVersion, state,
// event}], nextVersion}, `event` the stored copy. The page stops before
// the copy that would take it past `max_bytes` of JSON (one copy at
// least); nextVersion is then that copy's version, else page.next.
std::string ParkedPageToJson(std::string_view group, const ParkedPage& page,
                             std::size_t max_bytes = SIZE_MAX);
Result<ParkedPage> ParkedPageFromJson(std::string_view body);

// POST /consumers/{group}/ack: {positions: [position...]}, at least one.
// The request decoders answer invalid, naming the field.
std::string AckToJson(const std::vector<Position>& positions);
Result<std::vector<Position>> AckFromJson(std::string_view body);
// POST /consumers/{group}/nack: {position, reason?}.
struct NackRequest {
  Position position;
  std::optional<std::string> reason;
};
std::string NackToJson(const NackRequest& nack);
Result<NackRequest> NackFromJson(std::string_view body);

}  // namespace indelible::api
