#include "storage/dynamodb/batch_get.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "storage/dynamodb/attributes.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// BatchGetItem takes at most 100 keys a request.
constexpr std::size_t kBatchGetKeys = 100;
constexpr int kMaxAttempts = 20;

}  // namespace

Result<std::vector<json::object>> BatchGetItems(aws::Client& client, const std::string& table,
                                                const std::vector<json::object>& keys,
                                                const BatchGetOptions& options) {
  std::vector<json::object> found;
  for (std::size_t begin = 0; begin < keys.size(); begin += kBatchGetKeys) {
    json::array batch;
    for (std::size_t i = begin; i < keys.size() && i < begin + kBatchGetKeys; ++i)
      batch.push_back(keys[i]);
    json::object spec{{"Keys", std::move(batch)}, {"ConsistentRead", options.consistent}};
    if (!options.projection.empty()) {
      spec["ProjectionExpression"] = options.projection;
      spec["ExpressionAttributeNames"] = options.names;
    }
    json::object request{{"RequestItems", json::object{{table, std::move(spec)}}}};
    for (int attempt = 0;; ++attempt) {
      aws::Reply reply = client.Call("BatchGetItem", request);
      if (!reply.ok()) return reply.status;
      const json::object* responses = ObjectAt(reply.body, "Responses");
      const json::value* got = responses != nullptr ? responses->if_contains(table) : nullptr;
      if (got != nullptr && got->is_array())
        for (const auto& value : got->get_array())
          if (value.is_object()) found.push_back(value.get_object());
      const json::object* left = ObjectAt(reply.body, "UnprocessedKeys");
      if (left == nullptr || left->empty()) break;
      if (attempt + 1 == kMaxAttempts)
        return Status::Unavailable(fmt::format(
            "BatchGetItem on {} left keys unprocessed after {} attempts", table, kMaxAttempts));
      request["RequestItems"] = *left;
      std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 6)));
    }
  }
  return found;
}

Status ScanItems(aws::Client& client, json::object request,
                 const std::function<Status(const json::object&)>& each) {
  const std::string table = StringAt(request, "TableName");
  for (;;) {
    aws::Reply reply = client.Call("Scan", request);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Scan of " + table + " answered without Items");
    for (const auto& value : items->get_array())
      if (value.is_object())
        if (Status s = each(value.get_object()); !s.ok()) return s;
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) return Status::Ok();
    request["ExclusiveStartKey"] = *next;
  }
}

}  // namespace indelible::dynamodb
