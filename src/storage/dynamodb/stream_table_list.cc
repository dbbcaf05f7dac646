// StreamTable::ListStreams and AddListKeys: the stream listing on the
// sparse global secondary index over the tips (tip.h, kListIndex;
// docs/DYNAMODB.md, "Listing streams").
#include <fmt/format.h>

#include <boost/json.hpp>
#include <chrono>
#include <future>
#include <map>
#include <thread>

#include "core/text.h"
#include "storage/dynamodb/append_item.h"
#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/stream_table.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// BatchGetItem takes at most 100 keys a request.
constexpr std::size_t kBatchGetKeys = 100;

json::object TipKey(std::string_view stream) {
  return {{kStreamKey, S(stream)}, {kVersionKey, N(kTipVersion)}};
}

}  // namespace

Result<std::vector<StreamInfo>> StreamTable::ListStreams(std::string_view prefix,
                                                         std::string_view after,
                                                         std::size_t limit) {
  std::vector<StreamInfo> found;
  if (limit == 0) return found;
  if (!IsValidUtf8(prefix))
    return Status::Invalid("prefix", "a stream name prefix on DynamoDB must be UTF-8");
  if (!IsValidUtf8(after))
    return Status::Invalid("after", "`after` on DynamoDB must be UTF-8 (a stream name)");

  // 1. The names, from the index: one Query (a key condition on the name,
  // Limit = what is still wanted), more only when a page of keys ends at
  // 1 MB before the limit.
  json::object names{{"#k", kListKey}, {"#s", kStreamKey}, {"#v", kVersionKey}};
  json::object values{{":k", S(kListValue)}};
  std::string condition = "#k = :k";
  if (!after.empty() && after >= prefix) {
    // A name after `after` that starts with `prefix`: `after` itself must
    // start with it, or every such name sorts before it.
    if (!after.starts_with(prefix)) return found;
    condition += " AND #s > :after";
    values[":after"] = S(after);
  } else if (!prefix.empty()) {
    condition += " AND begins_with(#s, :p)";
    values[":p"] = S(prefix);
  }
  json::object query{{"TableName", options_.table},
                     {"IndexName", kListIndex},
                     {"KeyConditionExpression", condition},
                     {"ProjectionExpression", "#s, #v"},
                     {"ExpressionAttributeNames", std::move(names)},
                     {"ExpressionAttributeValues", std::move(values)}};
  std::vector<std::string> streams;
  std::vector<std::string> tipped;  // the streams whose entry is a tip (the earlier layout)
  for (bool more = true; more && streams.size() < limit;) {
    query["Limit"] = std::min<std::size_t>(limit - streams.size(), 1 << 20);
    aws::Reply reply = client_.Call("Query", query);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Query of the index " + std::string(kListIndex) +
                              " answered without Items");
    for (const auto& item : items->get_array()) {
      auto name = item.is_object() ? GetS(item.get_object(), kStreamKey) : std::nullopt;
      if (!name)
        return Status::Internal("an entry of the index " + std::string(kListIndex) +
                                " without a stream name");
      // Past the prefix (the `> after` condition does not stop there).
      if (!name->starts_with(prefix)) {
        more = false;
        break;
      }
      // A stream being converted from the earlier layout is in the index
      // twice for a moment (its tip and its version 0): adjacent, once here.
      if (streams.size() < limit && (streams.empty() || streams.back() != *name))
        streams.emplace_back(*name);
      if (GetN(item.get_object(), kVersionKey) == kTipVersion) tipped.emplace_back(*name);
    }
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) break;
    query["ExclusiveStartKey"] = *next;
  }

  // 2. Their tips: BatchGetItem, 100 keys a request, consistent, only the
  // attributes a listing shows (a read is billed on the whole item still).
  std::map<std::string, Tip, std::less<>> tips;
  for (std::size_t begin = 0; begin < tipped.size(); begin += kBatchGetKeys) {
    json::array keys;
    for (std::size_t i = begin; i < tipped.size() && i < begin + kBatchGetKeys; ++i)
      keys.push_back(TipKey(tipped[i]));
    json::object request{{"RequestItems",
                          {{options_.table,
                            {{"Keys", std::move(keys)},
                             {"ConsistentRead", true},
                             {"ProjectionExpression", "#s, #h, #f, #d, #w"},
                             {"ExpressionAttributeNames",
                              {{"#s", kStreamKey},
                               {"#h", "head"},
                               {"#f", "first"},
                               {"#d", "deleted"},
                               {"#w", kWrittenAttribute}}}}}}}};
    for (int attempt = 0;; ++attempt) {
      aws::Reply reply = client_.Call("BatchGetItem", request);
      if (!reply.ok()) return reply.status;
      const json::object* responses = ObjectAt(reply.body, "Responses");
      const json::value* got =
          responses != nullptr ? responses->if_contains(options_.table) : nullptr;
      if (got != nullptr && got->is_array()) {
        for (const auto& value : got->get_array()) {
          if (!value.is_object()) continue;
          auto name = GetS(value.get_object(), kStreamKey);
          if (!name)
            return Status::Internal("a tip in " + options_.table + " without a stream name");
          auto tip = ParseTip(*name, value.get_object());
          if (!tip.ok()) return tip.status();
          tips.insert_or_assign(std::string(*name), std::move(*tip));
        }
      }
      // What the server left out (its 16 MB answer, throttling): again,
      // after a back-off.
      const json::object* left = ObjectAt(reply.body, "UnprocessedKeys");
      if (left == nullptr || left->empty()) break;
      if (attempt == 20)
        return Status::Unavailable(fmt::format(
            "BatchGetItem on {} left keys unprocessed after 20 attempts", options_.table));
      request["RequestItems"] = *left;
      std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 6)));
    }
  }

  // 3. Streams of append items: their newest item, one Query each, several
  // at once (they are independent round trips).
  std::vector<std::string> untipped;
  for (const std::string& stream : streams)
    if (!tips.contains(stream)) untipped.push_back(stream);
  std::vector<Result<std::vector<json::object>>> newest(untipped.size(),
                                                        Status::Internal("not read"));
  constexpr std::size_t kAtOnce = 8;
  for (std::size_t begin = 0; begin < untipped.size(); begin += kAtOnce) {
    std::vector<std::future<void>> reads;
    for (std::size_t i = begin; i < untipped.size() && i < begin + kAtOnce; ++i)
      reads.push_back(
          std::async(std::launch::async, [&, i] { newest[i] = NewestItems(untipped[i], 1); }));
    for (auto& r : reads) r.get();
  }
  std::map<std::string, std::size_t, std::less<>> untipped_index;
  for (std::size_t i = 0; i < untipped.size(); ++i) untipped_index.emplace(untipped[i], i);

  for (const std::string& stream : streams) {
    if (auto u = untipped_index.find(stream); u != untipped_index.end()) {
      auto& items = newest[u->second];
      if (!items.ok()) return items.status();
      if (items->empty()) continue;  // an index entry whose items are gone (removed by hand)
      auto item = ParseAppendItem(items->front());
      if (!item.ok()) return item.status();
      found.push_back(StreamInfo{stream, StreamVersion(item->last()), Position(0),
                                 item->events.back().type == kDeletedEventType,
                                 item->events.back().timestamp_ms});
      continue;
    }
    auto tip = tips.find(stream);
    const StreamHead& head = tip->second.head;
    std::int64_t written = tip->second.written_ms.value_or(0);
    if (!tip->second.written_ms) {
      // A tip from before `written`: its last event (in the tip or an item).
      auto last = ReadStream(stream, head.version, 1);
      if (!last.ok()) return last.status();
      if (!last->empty()) written = last->back().timestamp_ms;
    }
    found.push_back(StreamInfo{stream, head.version, Position(0), head.deleted, written});
  }
  return found;
}

Result<std::size_t> StreamTable::AddListKeys() const {
  json::object scan{
      {"TableName", options_.table},
      {"ConsistentRead", true},
      {"FilterExpression", "#v = :tip AND attribute_not_exists(#k)"},
      {"ProjectionExpression", "#s"},
      {"ExpressionAttributeNames", {{"#s", kStreamKey}, {"#v", kVersionKey}, {"#k", kListKey}}},
      {"ExpressionAttributeValues", {{":tip", N(kTipVersion)}}}};
  std::size_t changed = 0;
  for (;;) {
    aws::Reply reply = client_.Call("Scan", scan);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Scan of " + options_.table + " answered without Items");
    for (const auto& value : items->get_array()) {
      auto name = value.is_object() ? GetS(value.get_object(), kStreamKey) : std::nullopt;
      if (!name) return Status::Internal("a tip in " + options_.table + " without a stream name");
      // On condition that the tip still exists, so that none is made; a
      // concurrent opener's same write is harmless (the same value).
      aws::Reply updated = client_.Call(
          "UpdateItem", {{"TableName", options_.table},
                         {"Key", TipKey(*name)},
                         {"UpdateExpression", "SET #k = :k"},
                         {"ConditionExpression", "attribute_exists(#h)"},
                         {"ExpressionAttributeNames", {{"#k", kListKey}, {"#h", "head"}}},
                         {"ExpressionAttributeValues", {{":k", S(kListValue)}}}});
      if (updated.ok()) {
        ++changed;
      } else if (updated.status.code() != ErrorCode::kConflict) {
        return updated.status;
      }
    }
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) break;
    scan["ExclusiveStartKey"] = *next;
  }
  return changed;
}

}  // namespace indelible::dynamodb
