// Creating the backend's tables, or checking the ones that exist: the same
// steps for the events, $all and checkpoint tables.
#pragma once

#include <string>

#include "indelible/result.h"
#include "storage/dynamodb/client.h"

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
};

// Creates the table with on-demand billing (PAY_PER_REQUEST) and waits until
// it is ACTIVE, or checks that an existing one has the spec's keys (invalid
// otherwise) and, with change_stream, turns its stream on if it is off.
// Returns the table's LatestStreamArn: empty without change_stream, or where
// the endpoint keeps no change streams (dynalite accepts the request and
// ignores it).
Result<std::string> CreateOrCheckTable(Client& client, const TableSpec& spec);

}  // namespace indelible::dynamodb
