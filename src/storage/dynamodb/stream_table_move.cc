// Moving events out of the tip (docs/DYNAMODB.md, "Moving events out of
// the tip"): event items first, then the tip. A writer that dies between the
// two leaves each moved event both in an item and in the tip, with the same
// version and content; readers merge by version, so they see it once, and
// the next move writes the same items again (a put of identical content)
// and finishes.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <utility>

#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/batch_get.h"
#include "storage/dynamodb/stream_table.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// BatchWriteItem takes 25 puts; a move takes 100 appends, so that the
// tip update's REMOVE and its condition stay inside the 4 KB expression limit.
constexpr std::size_t kBatchItems = 25;
constexpr std::size_t kAppendsPerMove = 100;

std::int64_t bytes_of(const std::vector<const TipAppend*>& appends) {
  std::int64_t bytes = 0;
  for (const auto* append : appends) bytes += append->bytes;
  return bytes;
}

}  // namespace

Result<std::size_t> StreamTable::MoveOutOfTip(std::string_view stream) {
  return Move(stream, true);
}

Result<std::size_t> StreamTable::WriteEventItems(std::string_view stream) {
  return Move(stream, false);
}

Status StreamTable::PutEventItems(const std::vector<const TipAppend*>& appends) {
  json::array puts;
  // Unconditional puts: a version's content never changes (the tip is the
  // only place a version is decided), so writing an item again is
  // harmless, and BatchWriteItem, which has no conditions, takes 25 at once.
  auto flush = [&]() -> Status {
    return BatchWrite(client_, options_.table, std::exchange(puts, {}));
  };
  for (const auto* append : appends) {
    for (const auto& event : append->events) {
      puts.push_back(json::object{{"PutRequest", json::object{{"Item", EventItem(event)}}}});
      if (puts.size() == kBatchItems)
        if (Status s = flush(); !s.ok()) return s;
    }
  }
  if (!puts.empty()) return flush();
  return Status::Ok();
}

Result<std::size_t> StreamTable::Move(std::string_view stream, bool update_tip) {
  auto tip = ReadTip(stream);
  if (!tip.ok()) return tip.status();
  std::vector<const TipAppend*> moving;
  std::size_t events = 0;
  for (const auto& append : tip->appends) {
    if (moving.size() == kAppendsPerMove) break;
    moving.push_back(&append);
    events += append.events.size();
  }
  if (moving.empty()) return std::size_t{0};
  if (Status s = PutEventItems(moving); !s.ok()) return s;
  if (!update_tip) return events;

  // The tip keeps the ids of the last appends moved out, so that a retry
  // soon after a move is still recognised (the retry window).
  std::vector<RecentAppend> recent = tip->recent;
  for (const auto* append : moving) {
    RecentAppend r{append->first, {}};
    for (const auto& e : append->events) r.ids.push_back(e.id.ToString());
    recent.push_back(std::move(r));
  }
  // The window keeps the newest appends that fit both bounds; an append of
  // more ids than the window holds is not kept at all.
  std::size_t kept = 0, kept_ids = 0;
  while (kept < recent.size() && kept < options_.retry_window_appends &&
         kept_ids + recent[recent.size() - 1 - kept].ids.size() <= options_.retry_window_ids) {
    kept_ids += recent[recent.size() - 1 - kept].ids.size();
    ++kept;
  }
  // The first ids of the appends leaving the window leave `firsts` too, so
  // that it stays what the tip can answer a retry from.
  json::array gone;
  for (std::size_t i = 0; i + kept < recent.size(); ++i)
    if (!recent[i].ids.empty()) gone.push_back(json::value(recent[i].ids.front()));
  recent.erase(recent.begin(), recent.end() - static_cast<std::ptrdiff_t>(kept));
  json::array recent_list;
  for (const auto& r : recent) {
    json::array ids;
    for (const auto& id : r.ids) ids.push_back(S(id));
    recent_list.push_back(
        json::object{{"M", json::object{{"f", N(r.first)}, {"ids", {{"L", std::move(ids)}}}}}});
  }

  json::object names{{"#r", "recent"}, {"#b", "bytes"}, {"#c", "count"}};
  json::object values{{":r", {{"L", std::move(recent_list)}}},
                      {":b", N(-bytes_of(moving))},
                      {":c", N(-static_cast<std::int64_t>(moving.size()))}};
  std::string remove_gone;
  if (!gone.empty()) {
    names["#fi"] = "firsts";
    values[":gone"] = json::object{{"SS", std::move(gone)}};
    remove_gone = " DELETE #fi :gone";
  }
  std::string remove = " REMOVE ";
  std::string condition;
  for (std::size_t i = 0; i < moving.size(); ++i) {
    const std::string name = fmt::format("#a{}", i);
    names[name] = AppendAttribute(moving[i]->first);
    remove += (i == 0 ? "" : ", ") + name;
    // Only the move that still finds every append it copied drops them:
    // two movers never both subtract the same bytes.
    condition += (i == 0 ? "attribute_exists(" : " AND attribute_exists(") + name + ")";
  }
  aws::Reply reply = client_.Call(
      "UpdateItem", {{"TableName", options_.table},
                     {"Key", {{kStreamKey, S(stream)}, {kVersionKey, N(kTipVersion)}}},
                     {"UpdateExpression", "SET #r = :r ADD #b :b, #c :c" + remove + remove_gone},
                     {"ConditionExpression", condition},
                     {"ExpressionAttributeNames", std::move(names)},
                     {"ExpressionAttributeValues", std::move(values)}});
  if (reply.status.code() == ErrorCode::kConflict) return std::size_t{0};  // moved by another
  if (!reply.ok()) return reply.status;
  return events;
}

}  // namespace indelible::dynamodb

namespace indelible::dynamodb {

Result<bool> StreamTable::ConvertStream(std::string_view stream) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    auto tip = ReadTip(stream);
    if (!tip.ok() && tip.status().code() == ErrorCode::kNotFound) return attempt > 0;
    if (!tip.ok()) return tip.status();
    // 1. Every held event to an item of its own (the earlier layout's move,
    //    up to 100 appends at a time).
    if (!tip->appends.empty()) {
      auto moved = MoveOutOfTip(stream);
      if (!moved.ok()) return moved.status();
      continue;
    }
    const std::int64_t head = tip->head.version.value();
    // 2. What only the tip knew goes to items: the listing key to version
    //    0's item; the life's first version and the state record to the
    //    newest item, where a reader of append items looks for them.
    auto update = [&](std::int64_t version, std::string expression, json::object names,
                      json::object values) -> Status {
      names["#v"] = kVersionKey;
      json::object request{{"TableName", options_.table},
                           {"Key", {{kStreamKey, S(stream)}, {kVersionKey, N(version)}}},
                           {"UpdateExpression", std::move(expression)},
                           {"ConditionExpression", "attribute_exists(#v)"},
                           {"ExpressionAttributeNames", std::move(names)}};
      if (!values.empty()) request["ExpressionAttributeValues"] = std::move(values);
      aws::Reply reply = client_.Call("UpdateItem", request);
      return reply.status;
    };
    if (Status s = update(0, "SET #lk = :lk", {{"#lk", kListKey}}, {{":lk", S(kListValue)}});
        !s.ok())
      return s;
    std::string set = "SET #f = :f";
    json::object names{{"#f", kLifeAttribute}};
    json::object values{{":f", N(tip->head.first_version.value())}};
    if (tip->state) {
      set += ", #st = :st";
      names["#st"] = "state";
      values[":st"] = StateAttribute(StateUpdate{tip->state->data, tip->state->schema},
                                     tip->state->version.value());
    } else if (tip->snapshot) {
      set += ", #sn = :sn";
      names["#sn"] = "snap";
      values[":sn"] = SnapshotRefAttribute(*tip->snapshot);
    }
    if (Status s = update(head, set, std::move(names), std::move(values)); !s.ok()) return s;
    // 3. The tip goes, unless a writer of an earlier release appended to it
    //    meanwhile (then round again).
    aws::Reply reply = client_.Call(
        "DeleteItem", {{"TableName", options_.table},
                       {"Key", {{kStreamKey, S(stream)}, {kVersionKey, N(kTipVersion)}}},
                       {"ConditionExpression", "#h = :h AND #c = :zero"},
                       {"ExpressionAttributeNames", {{"#h", "head"}, {"#c", "count"}}},
                       {"ExpressionAttributeValues", {{":h", N(head)}, {":zero", N(0)}}}});
    if (reply.status.code() == ErrorCode::kConflict) continue;
    if (!reply.ok()) return reply.status;
    cache_.Forget(stream);
    return true;
  }
  return Status::Unavailable(fmt::format(
      "stream '{}' changed under its conversion 16 times: a writer of an earlier release is "
      "still writing it (upgrade every process)",
      stream));
}

Result<std::vector<std::string>> StreamTable::ListTips() {
  std::vector<std::string> streams;
  json::object request{{"TableName", options_.table},
                       {"ConsistentRead", true},
                       {"FilterExpression", "#v = :tip"},
                       {"ProjectionExpression", "#s"},
                       {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}}},
                       {"ExpressionAttributeValues", {{":tip", N(kTipVersion)}}}};
  Status scanned = ScanItems(client_, std::move(request), [&](const json::object& item) -> Status {
    if (auto name = GetS(item, kStreamKey)) streams.emplace_back(*name);
    return Status::Ok();
  });
  if (!scanned.ok()) return scanned;
  return streams;
}

}  // namespace indelible::dynamodb
