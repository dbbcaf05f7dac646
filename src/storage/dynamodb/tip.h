// The items of the DynamoDB event table (docs/DYNAMODB.md, "Table layout"):
// how an event and a stream's tip item are written as DynamoDB attribute
// values, and read back. Pure functions: safe from any thread.
//
// One partition per stream (key `stream`, S); sort key `version` (N):
//   version 0, 1, ...   an event moved out of the tip: the envelope as
//                       top-level attributes (id, type, schema,
//                       content_type, data, metadata, timestamp)
//   kTipVersion         the tip: head, first, deleted, bytes, count, one
//                       attribute a<first version> per append still held
//                       there ({b: bytes, e: [envelope...]}), and recent
//                       (the ids of the last appends moved out), and the
//                       stream's state record, if any (state)
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/event.h"
#include "indelible/result.h"
#include "store/decide.h"

namespace indelible::dynamodb {

// The tip's sort key: above every version, so that an ascending Query from
// any version ends with the tip and a descending one starts with it. 2^53-1
// stays exact in tools that read numbers as doubles (JavaScript).
inline constexpr std::int64_t kTipVersion = 9007199254740991;

// Attribute names. The expressions always go through
// ExpressionAttributeNames, since several are DynamoDB reserved words.
inline constexpr std::string_view kStreamKey = "stream";
inline constexpr std::string_view kVersionKey = "version";

// The stream listing (docs/DYNAMODB.md, "Listing streams"): a global
// secondary index over the tips alone, made sparse by an attribute only a
// tip carries (written by a stream's first append, never changed), keyed
// by it and the stream name, projection KEYS_ONLY, so that later appends,
// which change neither key, do not write the index.
inline constexpr std::string_view kListIndex = "streams_by_name";
inline constexpr std::string_view kListKey = "lk";
inline constexpr std::string_view kListValue = "streams";
// The tip's `written` (N): the Unix ms timestamp of the stream's last event,
// set by every append of events. Tips written before it lack it.
inline constexpr std::string_view kWrittenAttribute = "written";

// One append still held in the tip: its events carry versions
// first, first + 1, ...
struct TipAppend {
  std::int64_t first = 0;
  std::int64_t bytes = 0;  // what it adds to the tip's `bytes`
  std::vector<RecordedEvent> events;
};

// The ids of an append already moved out of the tip, kept for retries.
struct RecentAppend {
  std::int64_t first = 0;
  std::vector<std::string> ids;
};

// Snapshot items (docs/DYNAMODB.md, "State records"): a state record larger
// than the tip holds beside its events is kept in items of its own, in parts
// of at most kSnapshotPartBytes, with sort keys below 0 so that no Query of
// events (version >= 0) meets them:
//   version = SnapshotKey(v, i)   part i of the state record at version v:
//                                 d (B, the part's bytes), s (N, schema),
//                                 v (N), i (N, the part), p (N, the parts)
//                                 expires_at (N, Unix s): once superseded,
//                                 for the table's TTL to delete it
// The tip's `snap` ({v: N, p: N}) names the current one.
inline constexpr std::int64_t kSnapshotPartBytes = 300 * 1024;
inline constexpr std::int64_t kSnapshotPartsMax = 16;
inline constexpr std::string_view kExpiresAttribute = "expires_at";

// -(version * 16 + part + 1): a stream's snapshot items, newest first in an
// ascending Query, each snapshot's parts together.
std::int64_t SnapshotKey(std::int64_t version, std::int64_t part);

struct SnapshotRef {
  std::int64_t version = -1;  // -1: none
  std::int64_t parts = 0;
};

struct Tip {
  StreamHead head;                 // position stays 0: $all is assigned later
  std::int64_t bytes = 0;          // the events held, as TipBytes counts them
  std::vector<TipAppend> appends;  // ascending by first
  std::vector<RecentAppend> recent;
  std::optional<StateRecord> state;  // position 0, as for events
  // The state record is in snapshot items (StreamTable::LoadSnapshot reads
  // them into `state`); nullopt: in `state`, or none.
  std::optional<SnapshotRef> snapshot;
  // The last event's timestamp (`written`); nullopt on a tip written before
  // the attribute was (docs/DYNAMODB.md).
  std::optional<std::int64_t> written_ms;
};

// "a<first>": the tip attribute holding the append whose first event has
// that version.
std::string AppendAttribute(std::int64_t first);

// {"S": s} and friends.
boost::json::object S(std::string_view s);
boost::json::object N(std::int64_t n);

// An envelope's tags (`tg`, L of S, sorted; left out when none): AWS's
// size of the attribute, its name included (0 when none).
inline constexpr std::string_view kTagsAttribute = "tg";
std::int64_t TagBytes(const std::vector<std::string>& tags);

// What an event adds to the tip's `bytes`: its payload and a fixed
// allowance for names and numbers, so the tip stays well under the 400 KB
// item limit when `bytes` stays under the spill threshold.
std::int64_t TipBytes(const EventData& event);

// The event's envelope as a map of attributes (empty strings left out:
// older emulators refuse them).
boost::json::object Envelope(const EventData& event, std::int64_t timestamp_ms);
// The tip's `state` attribute: {d: B data, s: N schema, v: N version}.
boost::json::object StateAttribute(const StateUpdate& state, std::int64_t version);

// The tip's `snap` attribute (and `prev`, the one it replaced): {v: N, p: N}.
boost::json::object SnapshotRefAttribute(SnapshotRef ref);
// Reads such an attribute of `attributes`; nullopt when absent or malformed.
std::optional<SnapshotRef> ParseSnapshotRef(const boost::json::object& attributes,
                                            std::string_view name);
// The items of a snapshot of `state` at `version`, split into parts.
std::vector<boost::json::object> SnapshotItems(std::string_view stream, const StateUpdate& state,
                                               std::int64_t version);
// The record from a Query's snapshot items (any order, other snapshots'
// among them); nullopt when a part of `ref` is missing (expired).
Result<std::optional<StateRecord>> ParseSnapshotItems(std::string_view stream, SnapshotRef ref,
                                                      const boost::json::array& items);

// The event item: Envelope plus the keys.
boost::json::object EventItem(const RecordedEvent& event);

// The envelope attributes of `item` (Envelope's) into *event; its stream
// and version are the caller's. internal when malformed.
Status ReadEnvelope(const boost::json::object& item, RecordedEvent* event);
// The `state` attribute of an item ({d: B, s: N, v: N}); nullopt when absent.
Result<std::optional<StateRecord>> ParseStateAttribute(std::string_view stream,
                                                       const boost::json::object& item);

// Reads an event item (keys and envelope). internal when malformed.
Result<RecordedEvent> ParseEventItem(const boost::json::object& item);
// Reads a tip item (ALL_OLD, GetItem, Query). internal when malformed.
Result<Tip> ParseTip(std::string_view stream, const boost::json::object& item);

// The tip's ids as decide.h's IdRecords, one per event id of `append` (nullopt
// where unknown). append_first_position carries the append's first version
// + 1 only to tell appends apart (ClassifyRetry compares it); callers zero
// the positions of the result.
std::vector<std::optional<store::IdRecord>> KnownIds(const Tip& tip, const AppendRequest& append);

}  // namespace indelible::dynamodb
