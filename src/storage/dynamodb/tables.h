// Creating the backend's tables, or checking the ones that exist: the same
// steps for the events, $all and checkpoint tables; and writing many items
// without conditions.
#pragma once

#include <boost/json/array.hpp>
#include <string>

#include "aws/client.h"
#include "indelible/result.h"

namespace indelible::dynamodb {

struct TableSpec {
  std::string name;
  std::string hash_key;
  char hash_type = 'S';   // 'S' or 'N'
  std::string range_key;  // empty: none
  char range_type = 'N';
  // Turn on the table's change stream (DynamoDB Streams, NEW_AND_OLD_IMAGES),
  // which the $all indexer reads.
  bool change_stream = false;
  // Turn on the table's TTL on this attribute (Unix seconds; DynamoDB
  // deletes an item some time after it passed). Empty: leave TTL alone.
  std::string ttl_attribute;
};

// Creates the table with on-demand billing (PAY_PER_REQUEST) and waits until
// it is ACTIVE, or checks that an existing one has the spec's keys (invalid
// otherwise) and, with change_stream, turns its stream on if it is off, and
// its TTL likewise (an endpoint without TTL, dynalite, is left without).
// Idempotent under concurrency: processes opening the same new tables at
// once all succeed. A refusal that says another got there first (the table
// exists, the stream or TTL is already on, the table is busy) is judged by
// the end state DescribeTable and DescribeTimeToLive then show.
// Returns the table's LatestStreamArn: empty without change_stream, or where
// the endpoint keeps no change streams (dynalite accepts the request and
// ignores it).
Result<std::string> CreateOrCheckTable(aws::Client& client, const TableSpec& spec);

// Writes up to 25 PutRequests or DeleteRequests to `table` with one
// BatchWriteItem, sending what the server left unprocessed again (with a
// back-off) until none is left. Only for writes that may be repeated: a
// batch has no conditions. unavailable after 20 rounds.
Status BatchWrite(aws::Client& client, const std::string& table, boost::json::array requests);

}  // namespace indelible::dynamodb
