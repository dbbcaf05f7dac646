// The embedded engine's on-disk format: RocksDB column families, key
// encodings and checksummed records. docs/FORMAT.md is the reference; every
// constant here is part of the persistent format and must not change
// without bumping kFormatVersion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/event.h"
#include "store/decide.h"

namespace indelible::storage::embedded {

inline constexpr std::string_view kFormatKey = "format";
inline constexpr std::string_view kFormatValue = "indelible-embedded 1";

// Column family names.
inline constexpr const char* kLogFamily = "log";          // position -> event record
inline constexpr const char* kStreamsFamily = "streams";  // stream \0 version -> position
inline constexpr const char* kHeadsFamily = "heads";      // stream -> head record
inline constexpr const char* kIdsFamily = "ids";          // event id -> id record

inline constexpr std::uint8_t kEventRecordFormat = 1;

// ---- keys ----
std::string PositionKey(Position position);  // 8 bytes big-endian: sorts in position order
Position DecodePositionKey(std::string_view key);
std::string StreamKeyPrefix(std::string_view stream);  // stream bytes + 0x00
std::string StreamVersionKey(std::string_view stream, std::int64_t version);
// Splits a streams-family key; false if malformed.
bool DecodeStreamVersionKey(std::string_view key, std::string_view* stream, std::int64_t* version);
std::string_view IdKey(const EventId& id);  // the 16 bytes, viewed in place

// ---- values ----
// Event record. The checksum covers the position key too, so a record found
// under the wrong key fails verification.
void EncodeEvent(const EventData& event, std::string_view stream, StreamVersion version,
                 Position position, std::int64_t timestamp_ms, std::string* out);
// Parses a record into `view` (views into `record`). Checks the checksum only
// when verify is set: RocksDB already checksums every block it reads, so the
// read path skips it and `indelible check` does it.
// Returns an empty string on success, else what is wrong.
std::string DecodeEvent(std::string_view position_key, std::string_view record, bool verify,
                        EventView* view);

// A stream entry also says how many events, from this one on, the same
// append wrote (they sit at consecutive positions), so a forward read can
// walk the log for the rest of the run without touching the index.
struct StreamEntry {
  Position position;
  std::uint32_t run = 1;  // >= 1
};
std::string EncodeStreamEntry(std::string_view key, const StreamEntry& entry);
std::optional<StreamEntry> DecodeStreamEntry(std::string_view key, std::string_view value,
                                             bool verify);

std::string EncodeHead(std::string_view stream, const HeadState& head);
std::optional<HeadState> DecodeHead(std::string_view stream, std::string_view value, bool verify);

// The stream is not stored in an id record: it is the stream of the event at
// `position`, read when a retry needs it.
struct StoredId {
  Position position;
  Position append_first_position;
  StreamVersion append_first_version;
  std::uint32_t append_count = 0;
};
std::string EncodeId(const EventId& id, const StoredId& stored);
std::optional<StoredId> DecodeId(std::string_view key, std::string_view value, bool verify);

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

}  // namespace indelible::storage::embedded
