// StreamTable::ScanHeads: the streams of a table and their heads, for the
// $all rebuild (index_rebuild.h).
#include <boost/json.hpp>

#include "storage/dynamodb/attributes.h"
#include "storage/dynamodb/stream_table.h"

namespace indelible::dynamodb {
namespace json = boost::json;

Result<std::map<std::string, StreamHead>> StreamTable::ScanHeads() {
  std::map<std::string, StreamHead> heads;
  json::object request{{"TableName", options_.table},
                       {"ConsistentRead", true},
                       {"FilterExpression", "#v = :tip"},
                       {"ProjectionExpression", "#s, #v, #h, #f, #d"},
                       {"ExpressionAttributeNames",
                        {{"#s", kStreamKey},
                         {"#v", kVersionKey},
                         {"#h", "head"},
                         {"#f", "first"},
                         {"#d", "deleted"}}},
                       {"ExpressionAttributeValues", {{":tip", N(kTipVersion)}}}};
  for (;;) {
    aws::Reply reply = client_.Call("Scan", request);
    if (!reply.ok()) return reply.status;
    const auto* items = reply.body.if_contains("Items");
    if (items == nullptr || !items->is_array())
      return Status::Internal("a Scan of " + options_.table + " answered without Items");
    for (const auto& value : items->get_array()) {
      if (!value.is_object()) continue;
      auto name = GetS(value.get_object(), kStreamKey);
      if (!name) return Status::Internal("a tip in " + options_.table + " without a stream name");
      std::string stream(*name);
      auto tip = ParseTip(stream, value.get_object());
      if (!tip.ok()) return tip.status();
      heads.emplace(std::move(stream), StreamHead{tip->head.version, Position(0), tip->head.deleted,
                                                  tip->head.first_version});
    }
    const auto* next = reply.body.if_contains("LastEvaluatedKey");
    if (next == nullptr) break;
    request["ExclusiveStartKey"] = *next;
  }
  return heads;
}

}  // namespace indelible::dynamodb
