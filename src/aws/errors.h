// AWS JSON-protocol error types (DynamoDB's among them) onto indelible's
// error vocabulary (include/indelible/status.h), and which errors are worth
// a retry.
//
// DynamoDB answers a failed call with HTTP 400 or 5xx and a JSON document
// {"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException",
//  "message": "..."} (some types spell it "Message"), with extra members for
// some types: Item (ConditionalCheckFailedException, when the request asked
// for ReturnValuesOnConditionCheckFailure=ALL_OLD), CancellationReasons
// (TransactionCanceledException).
//
// Pure functions: safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/status.h"

namespace indelible::aws {

// "ConditionalCheckFailedException": __type without its namespace; empty
// when the document has none.
std::string ErrorType(const boost::json::object& error);
// The document's message or Message; empty when it has none.
std::string ErrorMessage(const boost::json::object& error);

// Throttling: the request was refused for rate, not for what it asked
// (ProvisionedThroughputExceededException, ThrottlingException,
// RequestLimitExceeded, LimitExceededException, ...). Retried with back-off
// and counted as throttles.
bool IsThrottle(std::string_view type);
// Worth another attempt: a throttle, a server error (HTTP 5xx), or
// TransactionConflictException (another transaction held the item).
bool IsRetryable(int http_status, std::string_view type);

// The Status for a failed `operation` at `endpoint`:
//   ConditionalCheckFailedException            conflict (actual version unknown here)
//   TransactionCanceledException               conflict if a condition failed, else by its
//                                              reasons (throttled: unavailable, ...)
//   ResourceNotFoundException                  not_found
//   ValidationException                        invalid, or too_large for item size limits
//   ItemCollectionSizeLimitExceededException   too_large
//   ResourceInUseException                     conflict (the table exists or is busy)
//   UnknownOperationException                  invalid: "ENDPOINT does not support OP"
//   access and signature errors                unauthorized
//   throttles, 5xx, TransactionConflict        unavailable
//   anything else                              internal
Status MapError(std::string_view endpoint, std::string_view operation, int http_status,
                const boost::json::object& error);

// `status` with `note` added to its message, all else kept.
Status Annotate(const Status& status, std::string_view note);

// One entry of a TransactionCanceledException's CancellationReasons, in the
// order of the request's items: Code "None" for items that were fine,
// "ConditionalCheckFailed" (with Item when ALL_OLD was asked for),
// "TransactionConflict", "ThrottlingError", "ValidationError", ...
struct CancellationReason {
  std::string code;
  std::string message;
  boost::json::object item;  // empty unless returned
};
std::vector<CancellationReason> CancellationReasons(const boost::json::object& error);

}  // namespace indelible::aws
