// Capacity units: what DynamoDB bills. A request that asks with
// `ReturnConsumedCapacity: TOTAL` gets `ConsumedCapacity` in its answer (one
// object, or one per table for the batch and transaction operations), whose
// `CapacityUnits` the client adds up (client.h, ClientCounters). An update
// is billed on the larger of the item's sizes before and after, whole KB,
// so these counters, not the request count, show what an append costs.
//
// A write refused by its condition is billed too, but its answer (an error)
// reports nothing: RefusedWriteEstimate reckons it from AWS's rule and the
// items the request and the error carry (item_size.h).
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

// A write DynamoDB refused because a condition failed, and an estimate of
// the write units AWS bills for it, which its error does not report.
struct RefusedWrite {
  bool refused = false;  // ConditionalCheckFailedException, or a transaction
                         // canceled with a ConditionalCheckFailed reason
  double estimated_write_units = 0;
};

// What `operation`'s `request` cost when it failed with `error_type` and
// the error document `error`. AWS's rule for a refused PutItem, UpdateItem
// or DeleteItem ("Capacity unit consumption for writes",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
// and WorkingWithItems.html#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity):
// the size of the item that is there, in whole KB; 1 unit when there is
// none. The item that is there is known when the request asked for
// ReturnValuesOnConditionCheckFailure ALL_OLD: the error's Item (none: no
// item, 1 unit). Otherwise a PutItem is reckoned at the size of the item it
// wrote (the one there is most likely of its kind), anything else at 1.
//
// A canceled TransactWriteItems: AWS documents no rule. A transaction
// writes every item twice, to prepare and to commit ("Capacity management
// for transactions", transaction-apis.html), and conditions are checked in
// the first; this reckons both, 2 units per KB of each action's item (the
// reason's Item when returned, a Put's Item, else 1 KB): an upper bound.
RefusedWrite RefusedWriteEstimate(std::string_view operation, std::string_view error_type,
                                  const boost::json::object& request,
                                  const boost::json::object& error);

}  // namespace indelible::aws
