// Format 1 of the embedded engine (docs/FORMAT.md, "Format 1"): what a data
// folder written before format 2 holds besides the log, read only by the
// upgrade (upgrade.cc) and by `indelible check` of a folder not upgraded yet
// (check_v1.cc). Nothing writes it any more.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/event.h"
#include "store/decide.h"

namespace indelible::storage::embedded::v1 {

inline constexpr std::string_view kFormatValue = "indelible-embedded 1";

inline constexpr const char* kStreamsFamily = "streams";  // stream \0 version -> stream entry
inline constexpr const char* kHeadsFamily = "heads";      // stream -> head record
inline constexpr const char* kIdsFamily = "ids";          // event id -> id record

// One entry per event; `run` says how many events, from this one on, the
// same append wrote (N, N-1, ..., 1 for an append of N).
struct StreamEntry {
  Position position;
  std::uint32_t run = 1;  // >= 1
};
std::string EncodeStreamEntry(std::string_view key, const StreamEntry& entry);
std::optional<StreamEntry> DecodeStreamEntry(std::string_view key, std::string_view value,
                                             bool verify);

std::string EncodeHead(std::string_view stream, const StreamHead& head);
std::optional<StreamHead> DecodeHead(std::string_view stream, std::string_view value, bool verify);

struct StoredId {
  Position position;
  Position append_first_position;
  StreamVersion append_first_version;
  std::uint32_t append_count = 0;
};
std::string EncodeId(const EventId& id, const StoredId& stored);
std::optional<StoredId> DecodeId(std::string_view key, std::string_view value, bool verify);

}  // namespace indelible::storage::embedded::v1
