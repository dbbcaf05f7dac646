#include "storage/dynamodb/change_stream.h"

#include <algorithm>
#include <boost/json.hpp>

#include "storage/dynamodb/attributes.h"

namespace indelible::dynamodb {
namespace json = boost::json;

Result<std::vector<ShardInfo>> ListShards(aws::Client& streams, const std::string& stream_arn) {
  std::vector<ShardInfo> shards;
  std::string start;
  do {
    json::object request{{"StreamArn", stream_arn}};
    if (!start.empty()) request["ExclusiveStartShardId"] = start;
    aws::Reply reply = streams.Call("DescribeStream", request);
    if (!reply.ok()) return reply.status;
    const auto* description = reply.body.if_contains("StreamDescription");
    const auto* list = description != nullptr && description->is_object()
                           ? description->get_object().if_contains("Shards")
                           : nullptr;
    if (list == nullptr || !list->is_array())
      return Status::Internal("DescribeStream answered without Shards");
    for (const auto& shard : list->get_array()) {
      if (!shard.is_object()) continue;
      shards.push_back(ShardInfo{StringAt(shard.get_object(), "ShardId"),
                                 StringAt(shard.get_object(), "ParentShardId")});
    }
    start = StringAt(description->get_object(), "LastEvaluatedShardId");
  } while (!start.empty());
  std::sort(shards.begin(), shards.end(),
            [](const ShardInfo& a, const ShardInfo& b) { return a.id < b.id; });
  return shards;
}

Result<ShardProgress> ReadShardToEnd(aws::Client& streams, const std::string& stream_arn,
                                     const std::string& shard_id, ShardProgress from) {
  ShardProgress place = std::move(from);
  place.part = 0;
  if (place.done) return place;
  auto iterator_from = [&](bool after_place) -> Result<std::string> {
    json::object request{{"StreamArn", stream_arn}, {"ShardId", shard_id}};
    if (after_place && !place.sequence.empty()) {
      request["ShardIteratorType"] = "AFTER_SEQUENCE_NUMBER";
      request["SequenceNumber"] = place.sequence;
    } else {
      request["ShardIteratorType"] = "TRIM_HORIZON";
    }
    aws::Reply reply = streams.Call("GetShardIterator", request);
    if (!reply.ok()) return reply.status;
    return StringAt(reply.body, "ShardIterator");
  };
  auto iterator = iterator_from(true);
  if (!iterator.ok() && !place.sequence.empty()) iterator = iterator_from(false);  // trimmed
  if (!iterator.ok()) return iterator.status();
  std::string at = *iterator;
  bool trimmed_retry = false;
  for (;;) {
    aws::Reply reply = streams.Call("GetRecords", {{"ShardIterator", at}, {"Limit", 1000}});
    if (reply.error_type == "TrimmedDataAccessException") {
      // The records after the place are gone (start again at the horizon),
      // or DynamoDB Local's answer for a shard without records yet
      // (aws/aws-sdk-java#2923): then there is nothing to read.
      if (trimmed_retry || place.sequence.empty()) return place;
      trimmed_retry = true;
      auto again = iterator_from(false);
      if (!again.ok()) return again.status();
      at = *again;
      continue;
    }
    if (!reply.ok()) return reply.status;
    const auto* records = reply.body.if_contains("Records");
    if (records == nullptr || !records->is_array())
      return Status::Internal("GetRecords answered without Records");
    for (const auto& record : records->get_array()) {
      const auto* change =
          record.is_object() ? record.get_object().if_contains("dynamodb") : nullptr;
      if (change != nullptr && change->is_object()) {
        std::string sequence = StringAt(change->get_object(), "SequenceNumber");
        if (!sequence.empty()) place.sequence = std::move(sequence);
      }
    }
    const std::string next = StringAt(reply.body, "NextShardIterator");
    if (next.empty()) {
      place.done = true;  // closed, and read to its end
      return place;
    }
    if (records->get_array().empty()) return place;  // the open shard's end, for now
    at = next;
  }
}

}  // namespace indelible::dynamodb
