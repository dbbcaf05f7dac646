// What a change record of the events table (DynamoDB Streams,
// NEW_AND_OLD_IMAGES) adds to $all: the events of one append, from either
// layout the table may hold (docs/DYNAMODB.md):
//   - an append item made (an INSERT of an item carrying `n`,
//     append_item.h): its events, which stay in that item;
//   - a tip update of the earlier layout that moved the head: the events
//     the update added (versions old head + 1 .. new head, held in the new
//     image, in the append's own a<F> attribute).
// Nothing for everything else: event items moved out of a tip (no `n`), a
// state record written on an existing item, snapshot items, TTL removals,
// a tip update that kept its head (a move, a state-only write).
//
// Pure functions: safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "indelible/event.h"
#include "indelible/result.h"

namespace indelible::dynamodb {

struct Appended {
  std::string stream;
  std::int64_t first = 0;             // the version of its first event
  std::vector<RecordedEvent> events;  // versions first, first + 1, ...; position 0
  // The events are the append item (stream, first) of the events table,
  // where they stay: the $all index may refer to them rather than copy
  // them. False for a tip update: the tip holds them only until they move
  // to items of one event each.
  bool in_item = false;
  std::int64_t last() const { return first + static_cast<std::int64_t>(events.size()) - 1; }
};

Result<std::optional<Appended>> AppendedBy(const boost::json::object& record);

}  // namespace indelible::dynamodb
