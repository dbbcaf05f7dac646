// Append items: the events table's layout since issue 33 (docs/DYNAMODB.md,
// "Append items"). One item per append, written once by a conditional
// PutItem and never rewritten, so that an append is billed on its own
// size alone (about 1 write unit for a 200-byte event), not on a growing
// tip's:
//
//   stream (S, partition)   the stream
//   version (N, sort)       the append's first version F
//   id, type, schema, content_type, data, metadata, timestamp
//                           the first event's envelope, as the earlier
//                           layout's event items have it (such an item reads
//                           as an append of one event)
//   n (N)                   how many events the append holds. Only append
//                           items carry it: the earlier layout's event items
//                           (events moved out of a tip, indexed from the
//                           tip's update) do not, so the $all indexer tells
//                           the two apart by it
//   more (L of M)           the envelopes of events F+1, F+2, ... (n > 1)
//   f (N)                   the first version of the stream's current life
//                           (after a tombstone, the version after it);
//                           absent for 0
//   lk (S)                  "streams", on the item at version 0 only: the
//                           listing index's key (tip.h's kListKey)
//   state (M) / snap (M)    the stream's state record as of this append,
//                           when the commit wrote one (tip.h's formats)
//
// Pure functions: safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "aws/client.h"
#include "indelible/event.h"
#include "indelible/result.h"
#include "storage/dynamodb/tip.h"

namespace indelible::dynamodb {

inline constexpr std::string_view kCountAttribute = "n";
inline constexpr std::string_view kMoreAttribute = "more";
inline constexpr std::string_view kLifeAttribute = "f";

struct AppendItem {
  std::int64_t first = 0;       // the version of its first event (the sort key)
  std::int64_t life_first = 0;  // `f`
  // Written as an append item (carries `n`); false for an event item of the
  // earlier layout, one event moved out of a tip.
  bool counted = false;
  std::vector<RecordedEvent> events;  // versions first, first + 1, ...; position 0
  std::optional<StateRecord> state;
  std::optional<SnapshotRef> snapshot;
  std::optional<std::string> list_key;  // `lk`, when present

  std::int64_t last() const { return first + static_cast<std::int64_t>(events.size()) - 1; }
};

// The item of an append of `events` (their stream, versions and timestamps
// set, versions consecutive). life_first: `f`. The state attributes are the
// caller's to add.
boost::json::object MakeAppendItem(const std::vector<RecordedEvent>& events,
                                   std::int64_t life_first);

// Reads an append item, or an event item of the earlier layout (one event,
// counted = false). internal when malformed; never throws.
Result<AppendItem> ParseAppendItem(const boost::json::object& item);

// An append by its item's key: the $all index refers to appends this way.
struct AppendRef {
  std::string stream;
  std::int64_t first = 0;  // the item's version: the append's first version
  std::int64_t count = 0;  // its events
};

// The events of each ref, in refs' order (versions first .. first+count-1,
// position 0), read with BatchGetItem: eventually consistent first (half
// the read units; an append item never changes its events), then
// consistently for any not found yet (an item written a moment ago). An
// item that is still missing, or holds other events than its ref says, is
// internal: the index refers to something the table does not have. With
// `removed`, a missing item whose versions are all below its stream's
// floor (a scavenge removed it: scavenge.h) is no error: (*removed)[i] is
// set and its events are empty.
Result<std::vector<std::vector<RecordedEvent>>> ReadAppendItems(
    aws::Client& client, const std::string& table, const std::vector<AppendRef>& refs,
    std::vector<bool>* removed = nullptr);

// The attribute size of an item by DynamoDB's sizing rules is aws/item_size.h's;
// this is what an append adds to an item besides its envelopes, for the
// store's own limit on an append's bytes.
std::int64_t AppendItemBytes(const std::vector<EventData>& events);

}  // namespace indelible::dynamodb
