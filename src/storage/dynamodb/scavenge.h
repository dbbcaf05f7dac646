// Scavenging on DynamoDB (docs/DYNAMODB.md, "Scavenging"): the append items
// wholly below a stream's cut are deleted, and a floor item says so.
//
//   stream (S), version = kFloorVersion (N)   the stream's floor item
//   sf (N)                                    the first version kept: every
//                                             version below it may be gone
//
// The floor is what tells a removed append from damage. The $all chunks and
// tag pages refer to append items by key and are never rewritten, so a
// reference whose item is missing is a removed append when all its versions
// are below the stream's floor (read with one consistent BatchGetItem for
// the streams missing items), and internal otherwise; a stream read that
// meets no item at its first version starts at the floor.
//
// Operation, per stream: one consistent Query of the items below the cut
// (whole items: a Query is billed on them anyway, and their sizes make the
// report's bytes); the floor put (conditional: floors only rise); the
// listing key copied to the first kept item when the item carrying it goes
// (an UpdateItem: the index then lists the stream once, from either); then
// BatchWriteItem deletes, 25 a request, 1 write unit per item up to 1 KB.
// A crash between steps leaves items below the floor that readers still
// read, and the next scavenge deletes them. Never removed: the stream's
// newest item (it holds the head), and the item holding the stream's
// newest state record of its current life with every item after it (an
// entity load starts there).
//
// Concurrency: thread-safe (the Client is); online beside writers, which
// only add items above the head.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "aws/client.h"
#include "indelible/store.h"
#include "storage/dynamodb/stream_table.h"

namespace indelible::dynamodb {

// The floor item's sort key: below every snapshot part a stream can have.
inline constexpr std::int64_t kFloorVersion = -9007199254740991;
inline constexpr std::string_view kFloorAttribute = "sf";

// The floors of `streams` (those without one are missing), consistent.
Result<std::map<std::string, std::int64_t>> ReadFloors(aws::Client& client,
                                                       const std::string& table,
                                                       const std::set<std::string>& streams);

// One stream's floor; nullopt: nothing was ever removed from it.
Result<std::optional<std::int64_t>> ReadFloor(aws::Client& client, const std::string& table,
                                              std::string_view stream);

// What one stream's scavenge removed.
struct StreamRemoval {
  std::uint64_t items = 0;
  std::uint64_t events = 0;
  std::uint64_t bytes = 0;  // the items' sizes by DynamoDB's rules (aws/item_size.h)
  std::int64_t floor = 0;   // the floor written (when items were removed)
};

// Deletes the append items of cut.stream wholly below cut.before, as above.
// A stream of the earlier layout is converted to append items first. The
// caller then drops the $all chunks' inline copies of what went
// (AllIndex::DropInline).
Result<StreamRemoval> RemoveStreamItems(aws::Client& client, StreamTable& table,
                                        const ScavengeCut& cut);

}  // namespace indelible::dynamodb
