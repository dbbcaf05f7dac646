// Capacity units: what DynamoDB bills. A request that asks with
// `ReturnConsumedCapacity: TOTAL` gets `ConsumedCapacity` in its answer (one
// object, or one per table for the batch and transaction operations), whose
// `CapacityUnits` the client adds up (client.h, ClientCounters). An update
// is billed on the larger of the item's sizes before and after, whole KB,
// so these counters, not the request count, show what an append costs.
//
// Pure functions: safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace indelible::aws {

enum class CapacityKind {
  kNone,   // the operation takes no ReturnConsumedCapacity (tables, Streams)
  kRead,   // GetItem, Query, Scan, BatchGetItem, TransactGetItems
  kWrite,  // PutItem, UpdateItem, DeleteItem, BatchWriteItem, TransactWriteItems
};

CapacityKind CapacityKindOf(std::string_view operation);

// `body`, a serialized JSON object, asking for the TOTAL consumed capacity
// too; unchanged when it asks for something itself already.
std::string AskConsumedCapacity(std::string body);

// The capacity units an answer reports (0 when it reports none).
double ConsumedUnits(const boost::json::object& answer);

}  // namespace indelible::aws
