// The events table's change stream (DynamoDB Streams), as the $all indexer
// and the index rebuild read it: its shards, and where each one ends.
//
// Concurrency: functions of their arguments; the Client is thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "aws/client.h"
#include "storage/dynamodb/all_index.h"

namespace indelible::dynamodb {

struct ShardInfo {
  std::string id;
  std::string parent;  // empty: none (or gone from the stream)
};

// Every shard of the stream (DescribeStream, paged), sorted by id.
Result<std::vector<ShardInfo>> ListShards(aws::Client& streams, const std::string& stream_arn);

// Reads one shard from `from` (its start if from.sequence is empty, or if
// the records after it are gone) to its end and returns the place after
// its last record: a closed shard is `done`. Nothing is indexed: the index
// rebuild uses it to know where the change stream stands before it scans.
Result<ShardProgress> ReadShardToEnd(aws::Client& streams, const std::string& stream_arn,
                                     const std::string& shard_id, ShardProgress from);

}  // namespace indelible::dynamodb
