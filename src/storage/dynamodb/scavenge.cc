#include "storage/dynamodb/scavenge.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <vector>

#include "aws/item_size.h"
#include "core/text.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/tables.h"

namespace indelible::dynamodb {
namespace json = boost::json;

namespace {

json::object FloorKey(std::string_view stream) {
  return json::object{{kStreamKey, S(stream)}, {kVersionKey, N(kFloorVersion)}};
}

// What the removal needs of an item below the cut.
struct Candidate {
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::uint64_t bytes = 0;
  bool lists = false;       // carries the listing key
  bool has_record = false;  // carries a state record (or names snapshot items)
};

// The stream's items whose first version is below `before`, ascending,
// consistent, a page (1 MB) a request.
Result<std::vector<Candidate>> ItemsBelow(aws::Client& client, const std::string& table,
                                          std::string_view stream, std::int64_t before) {
  std::vector<Candidate> out;
  json::object request{{"TableName", table},
                       {"ConsistentRead", true},
                       {"KeyConditionExpression", "#s = :s AND #v BETWEEN :zero AND :below"},
                       {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                       {"ExpressionAttributeValues",
                        {{":s", S(stream)}, {":zero", N(0)}, {":below", N(before - 1)}}}};
  for (;;) {
    aws::Reply reply = client.Call("Query", request);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Query of " + table + " answered without Items");
    for (const auto& value : items->get_array()) {
      if (!value.is_object()) return Status::Internal("a Query answered a non-object item");
      const json::object& item = value.get_object();
      auto parsed = ParseAppendItem(item);
      if (!parsed.ok()) return parsed.status();
      out.push_back(Candidate{parsed->first, parsed->last(), aws::ItemSize(item),
                              parsed->list_key.has_value(),
                              parsed->state.has_value() || parsed->snapshot.has_value()});
    }
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) return out;
    request["ExclusiveStartKey"] = *next;
  }
}

}  // namespace

Result<std::map<std::string, std::int64_t>> ReadFloors(aws::Client& client,
                                                       const std::string& table,
                                                       const std::set<std::string>& streams) {
  std::map<std::string, std::int64_t> floors;
  if (streams.empty()) return floors;
  std::vector<json::object> keys;
  for (const std::string& stream : streams) keys.push_back(FloorKey(stream));
  auto items = BatchGetItems(client, table, keys);  // consistent
  if (!items.ok()) return items.status();
  for (const json::object& item : *items) {
    auto stream = GetS(item, kStreamKey);
    auto floor = GetN(item, kFloorAttribute);
    if (!stream || !floor)
      return Status::Internal("a floor item in " + table + " without its stream or `sf`");
    floors.emplace(std::string(*stream), *floor);
  }
  return floors;
}

Result<std::optional<std::int64_t>> ReadFloor(aws::Client& client, const std::string& table,
                                              std::string_view stream) {
  aws::Reply reply = client.Call(
      "GetItem", {{"TableName", table}, {"Key", FloorKey(stream)}, {"ConsistentRead", true}});
  if (!reply.ok()) return reply.status;
  const auto* item = reply.body.if_contains("Item");
  if (item == nullptr || !item->is_object()) return std::optional<std::int64_t>();
  auto floor = GetN(item->get_object(), kFloorAttribute);
  if (!floor)
    return Status::Internal(
        fmt::format("the floor item of stream '{}' in {} has no `sf`", Printable(stream), table));
  return std::optional<std::int64_t>(*floor);
}

Result<StreamRemoval> RemoveStreamItems(aws::Client& client, StreamTable& table,
                                        const ScavengeCut& cut) {
  StreamRemoval removal;
  const std::string& name = table.table();
  // The earlier layout's tip holds events of its own: items first.
  if (auto converted = table.ConvertStream(cut.stream); !converted.ok()) return converted.status();
  auto below = ItemsBelow(client, name, cut.stream, cut.before.value());
  if (!below.ok()) return below.status();
  // Wholly below the cut; the item holding `before` (if it began before
  // it) is the first kept one.
  std::int64_t keep_from = cut.before.value();
  std::vector<Candidate> gone;
  for (const Candidate& c : *below) {
    if (c.last < cut.before.value())
      gone.push_back(c);
    else
      keep_from = std::min(keep_from, c.first);
  }
  // The newest state record stays where an entity load finds it, with the
  // items after it: when one of the items going may hold it, the load says
  // which version it covers.
  const bool records_going =
      std::any_of(gone.begin(), gone.end(), [](const Candidate& c) { return c.has_record; });
  if (records_going) {
    auto load = table.LoadEntity(cut.stream);
    if (!load.ok()) return load.status();
    if (load->state && load->state->version.value() < keep_from) {
      const std::int64_t covered = load->state->version.value();
      for (const Candidate& c : gone)
        if (c.first <= covered && covered <= c.last) keep_from = c.first;
      std::erase_if(gone, [&](const Candidate& c) { return c.last >= keep_from; });
    }
  }
  if (gone.empty()) return removal;
  removal.floor = keep_from;

  // 1. The floor, before any item goes: a reader that misses an item then
  //    knows why. Floors only rise (a slower scavenge of an older cut
  //    leaves a higher one alone).
  json::object floor_item = FloorKey(cut.stream);
  floor_item[kFloorAttribute] = N(keep_from);
  aws::Reply put = client.Call(
      "PutItem", {{"TableName", name},
                  {"Item", floor_item},
                  {"ConditionExpression", "attribute_not_exists(#v) OR #f < :f"},
                  {"ExpressionAttributeNames", {{"#v", kVersionKey}, {"#f", kFloorAttribute}}},
                  {"ExpressionAttributeValues", {{":f", N(keep_from)}}}});
  if (!put.ok() && put.status.code() != ErrorCode::kConflict) return put.status;

  // 2. The listing key to the first kept item, when its item goes.
  const bool lists =
      std::any_of(gone.begin(), gone.end(), [](const Candidate& c) { return c.lists; });
  if (lists) {
    aws::Reply moved = client.Call(
        "UpdateItem", {{"TableName", name},
                       {"Key", {{kStreamKey, S(cut.stream)}, {kVersionKey, N(keep_from)}}},
                       {"UpdateExpression", "SET #lk = :lk"},
                       {"ConditionExpression", "attribute_exists(#v)"},
                       {"ExpressionAttributeNames", {{"#lk", kListKey}, {"#v", kVersionKey}}},
                       {"ExpressionAttributeValues", {{":lk", S(kListValue)}}}});
    if (!moved.ok()) return moved.status;
  }

  // 3. The items, 25 a request.
  for (std::size_t i = 0; i < gone.size(); i += 25) {
    json::array deletes;
    for (std::size_t j = i; j < std::min(gone.size(), i + 25); ++j)
      deletes.push_back(json::object{
          {"DeleteRequest",
           {{"Key", {{kStreamKey, S(cut.stream)}, {kVersionKey, N(gone[j].first)}}}}}});
    if (Status s = BatchWrite(client, name, std::move(deletes)); !s.ok()) return s;
    for (std::size_t j = i; j < std::min(gone.size(), i + 25); ++j) {
      ++removal.items;
      removal.events += static_cast<std::uint64_t>(gone[j].last - gone[j].first + 1);
      removal.bytes += gone[j].bytes;
    }
  }
  return removal;
}

}  // namespace indelible::dynamodb
