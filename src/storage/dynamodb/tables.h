// Creating the backend's tables, or checking the ones that exist: the same
// steps for the events, $all and checkpoint tables; and writing many items
// without conditions.
#pragma once

#include <boost/json/array.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

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
  // A global secondary index the table keeps, projection KEYS_ONLY, both
  // keys of type S: made with the table, or added to an existing table
  // that lacks it (UpdateTable; DynamoDB then backfills it from the items
  // that carry both keys).
  struct Index {
    std::string name;
    std::string hash_key;
    std::string range_key;
  };
  std::optional<Index> index;
  // Run before the index is added to an existing table (not on a new one):
  // what the items written before the index need to be in it (the events
  // table gives its older tips the index's partition attribute).
  std::function<Status()> before_adding_index;
};

// What CreateOrCheckTable changed, for a report (`indelible dynamodb
// create-tables`): each is true only where this call's own request did it,
// not a concurrent opener's.
struct TableChanges {
  bool created = false;
  bool stream_turned_on = false;
  bool ttl_turned_on = false;
  bool index_added = false;

  bool any() const { return created || stream_turned_on || ttl_turned_on || index_added; }
};

// The change stream's view the $all indexer needs: the old image tells an
// append item's first write (its append) from a later update of it.
inline constexpr std::string_view kStreamViewType = "NEW_AND_OLD_IMAGES";

// Creates the table with on-demand billing (PAY_PER_REQUEST) and waits until
// it is ACTIVE, or checks that an existing one has the spec's keys (invalid
// otherwise) and, with change_stream, turns its stream on if it is off, and
// its TTL likewise (an endpoint without TTL, dynalite, is left without).
// Idempotent under concurrency: processes opening the same new tables at
// once all succeed. A refusal that says another got there first (the table
// exists, the stream or TTL is already on, the table is busy) is judged by
// the end state DescribeTable and DescribeTimeToLive then show.
// With an index, a table that lacks it gets it (before_adding_index, then
// UpdateTable; a concurrent opener's refusal is judged by the end state);
// the open does not wait for the index to be ACTIVE: IndexStatus tells.
// Returns the table's LatestStreamArn: empty without change_stream, or where
// the endpoint keeps no change streams (dynalite accepts the request and
// ignores it). A stream of another view than kStreamViewType is invalid.
// `changes`, if not null, says what this call changed.
Result<std::string> CreateOrCheckTable(aws::Client& client, const TableSpec& spec,
                                       TableChanges* changes = nullptr);

// Checks the table as CreateOrCheckTable does and changes nothing, for a
// store that may not make or alter tables (create_tables=0): not_found when
// it is missing; invalid when its keys differ, or (as the spec asks) its
// change stream is off or of another view, its index is missing, or its TTL
// is off (left alone where the endpoint has no TTL). Waits while the table
// is CREATING. Returns its LatestStreamArn as CreateOrCheckTable does. Only
// Describe requests: DescribeTable, DescribeTimeToLive.
Result<std::string> CheckTable(aws::Client& client, const TableSpec& spec);

// The status of the table's global secondary index `index`: "ACTIVE",
// "CREATING", ...; "" when the table has no such index. One DescribeTable.
Result<std::string> IndexStatus(aws::Client& client, const std::string& table,
                                const std::string& index);

// Writes up to 25 PutRequests or DeleteRequests to `table` with one
// BatchWriteItem, sending what the server left unprocessed again (with a
// back-off) until none is left. Only for writes that may be repeated: a
// batch has no conditions. unavailable after 20 rounds.
Status BatchWrite(aws::Client& client, const std::string& table, boost::json::array requests);

}  // namespace indelible::dynamodb
