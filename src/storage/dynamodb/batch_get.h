// Reading many items: by key (BatchGetItem, 100 keys a request, keys the
// service left unprocessed, its 16 MB answer or throttling, asked again
// after a back-off), or all a Scan finds. Thread-safe (the Client is).
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <string>
#include <vector>

#include "aws/client.h"
#include "indelible/result.h"

namespace indelible::dynamodb {

struct BatchGetOptions {
  bool consistent = true;
  // Applied to each request (ProjectionExpression and its names); empty:
  // whole items. A read is billed on the whole item whatever it projects.
  std::string projection;
  boost::json::object names;
};

// The items found for `keys` (each {"stream": ..., "version": ...} or the
// table's own keys), in no particular order; keys without an item are
// simply missing from the result.
Result<std::vector<boost::json::object>> BatchGetItems(aws::Client& client,
                                                       const std::string& table,
                                                       const std::vector<boost::json::object>& keys,
                                                       const BatchGetOptions& options = {});

// Every item a Scan `request` finds, page after page (a request per 1 MB
// read), handed to `each` in the order read; an error from `each` stops it.
Status ScanItems(aws::Client& client, boost::json::object request,
                 const std::function<Status(const boost::json::object&)>& each);

}  // namespace indelible::dynamodb
