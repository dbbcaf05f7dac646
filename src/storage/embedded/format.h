// The embedded engine's on-disk format: RocksDB column families, key
// encodings and checksummed records. docs/FORMAT.md is the reference; every
// constant here is part of the persistent format and must not change
// without bumping kFormatVersion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/event.h"
#include "store/decide.h"

namespace indelible::storage::embedded {

inline constexpr std::string_view kFormatKey = "format";
inline constexpr std::string_view kFormatValue = "indelible-embedded 4";
// Format 3 has the same records without tags and no `tags` family: opening
// one for writing upgrades it (the marker; the family is made empty).
inline constexpr std::string_view kFormatValueV3 = "indelible-embedded 3";
// Format 2 has the same records, its id index written with each commit
// (no kIdsIndexedKey): opening one for writing upgrades it (one write).
inline constexpr std::string_view kFormatValueV2 = "indelible-embedded 2";

// Column family names (format 1's other families: format_v1.h).
inline constexpr const char* kLogFamily = "log";             // position -> event record
inline constexpr const char* kAppendsFamily = "appends";     // stream \0 first version -> append
inline constexpr const char* kEventIdsFamily = "event_ids";  // event id -> position
inline constexpr const char* kTagsFamily = "tags";           // tag \0 position -> type

inline constexpr std::uint8_t kEventRecordFormat = 1;
// Event record flags (format 4): the record ends with its tags.
inline constexpr std::uint8_t kEventHasTags = 0x01;

// ---- keys ----
std::string PositionKey(Position position);  // 8 bytes big-endian: sorts in position order
Position DecodePositionKey(std::string_view key);
std::string StreamKeyPrefix(std::string_view stream);  // stream bytes + 0x00
std::string StreamVersionKey(std::string_view stream, std::int64_t version);
// Sorts after every version key of `stream` and before any other stream's:
// SeekForPrev to it finds the stream's last append.
std::string StreamEndKey(std::string_view stream);
// Splits a streams-family key; false if malformed.
bool DecodeStreamVersionKey(std::string_view key, std::string_view* stream, std::int64_t* version);
std::string_view IdKey(const EventId& id);  // the 16 bytes, viewed in place

// ---- values ----
// Event record. The checksum covers the position key too, so a record found
// under the wrong key fails verification.
void EncodeEvent(const EventData& event, std::string_view stream, StreamVersion version,
                 Position position, std::int64_t timestamp_ms, std::string* out);
// Parses a record into `view` (views into `record`); its tags into `*tags`
// (cleared first), which view->tags then views: the caller owns both. Checks the checksum only
// when verify is set: RocksDB already checksums every block it reads, so the
// read path skips it and `indelible check` does it.
// Returns an empty string on success, else what is wrong.
std::string DecodeEvent(std::string_view position_key, std::string_view record, bool verify,
                        EventView* view, std::vector<std::string>* tags);
// The same where the tags are not needed: view->tags is left empty.
std::string DecodeEvent(std::string_view position_key, std::string_view record, bool verify,
                        EventView* view);

// A tag index entry (`tags`): key the tag, '\0' (no tag holds one) and the
// event's position, big-endian, so one tag's entries sort by position;
// value a CRC over key and type, then the event's type, so a query's type
// filter needs no read of the event.
std::string TagKey(std::string_view tag, Position position);
std::string TagKeyPrefix(std::string_view tag);  // tag + '\0'
// Splits a tag index key; false if malformed.
bool DecodeTagKey(std::string_view key, std::string_view* tag, Position* position);
std::string EncodeTagEntry(std::string_view key, std::string_view type);
// The type, viewed in `value`; nullopt if the checksum (verify) or layout is wrong.
std::optional<std::string_view> DecodeTagEntry(std::string_view key, std::string_view value,
                                               bool verify);

// One append's entry in the stream index (`appends`), keyed by the stream
// and the append's first version: its events sit at consecutive positions
// from first_position. The entry also carries what the stream's head is
// after it, so a stream's last entry is its head.
struct AppendEntry {
  Position first_position;
  std::uint32_t count = 1;           // events, >= 1
  StreamVersion life_first_version;  // first version of the stream's life after this append
  bool deleted = false;              // the append is a tombstone
};
std::string EncodeAppendEntry(std::string_view key, const AppendEntry& entry);
std::optional<AppendEntry> DecodeAppendEntry(std::string_view key, std::string_view value,
                                             bool verify);
// The head a stream has when `entry` (whose first version is `first_version`)
// is its last append.
StreamHead HeadAfter(StreamVersion first_version, const AppendEntry& entry);

// An id entry (`event_ids`): the event's position. What the id's append
// was (for a retry's answer) is read from the event and its append entry.
std::string EncodeEventId(const EventId& id, Position position);
std::optional<Position> DecodeEventId(std::string_view key, std::string_view value, bool verify);

// Format 3 writes id entries behind the syncs (id_indexer.h): the
// `default` record under this key says every event up to its position has
// its id entry. It is written in the same batch as the entries it covers.
inline constexpr std::string_view kIdsIndexedKey = "ids-indexed-through";
std::string EncodeIdsIndexed(Position through);
std::optional<Position> DecodeIdsIndexed(std::string_view value);

// Checkpoint records (Store::SaveRecord) live in the default family
// under "checkpoint/" + name; the value is a CRC over key and payload, then
// the payload.
inline constexpr std::string_view kStateKeyPrefix = "state/";
std::string StateKey(std::string_view stream);
std::string EncodeState(std::string_view key, const StateRecord& record);
// nullopt if the checksum (when checked) or the layout is wrong.
std::optional<StateRecord> DecodeState(std::string_view key, std::string_view value);

inline constexpr std::string_view kCheckpointKeyPrefix = "checkpoint/";
std::string CheckpointKey(std::string_view name);
std::string EncodeCheckpoint(std::string_view key, std::string_view payload);
// The payload, viewed in `value`; nullopt if the checksum fails (verify) or
// the value is too short.
std::optional<std::string_view> DecodeCheckpoint(std::string_view key, std::string_view value,
                                                 bool verify);

// Scavenging (scavenge.cc, docs/FORMAT.md "Scavenged events"): a stream
// whose first events were removed has the `default` record
// "scavenged/" + stream, its first kept version; "scavenge-totals" counts
// the events and bytes removed from the whole store, so `check` knows the
// log's gaps are removals. Both are written in the batch that removes.
inline constexpr std::string_view kScavengedKeyPrefix = "scavenged/";
std::string ScavengedKey(std::string_view stream);
std::string EncodeScavenged(std::string_view key, StreamVersion first_kept);
std::optional<StreamVersion> DecodeScavenged(std::string_view key, std::string_view value);
inline constexpr std::string_view kScavengeTotalsKey = "scavenge-totals";
struct ScavengeTotals {
  std::uint64_t events = 0;
  std::uint64_t bytes = 0;
  // `events` as of the last compaction after removals: when behind, the
  // removed bytes may still be in the files (an erasure's removals wait
  // for the next scavenge's compaction).
  std::uint64_t compacted_events = 0;
};
std::string EncodeScavengeTotals(const ScavengeTotals& totals);
std::optional<ScavengeTotals> DecodeScavengeTotals(std::string_view value);

}  // namespace indelible::storage::embedded
