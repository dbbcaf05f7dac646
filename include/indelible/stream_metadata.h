// Stream metadata: a stream's settings, kept by the store beside its events
// (docs/RETENTION.md). Retention (max_age, max_count, truncate_before) hides
// a stream's older events from every read at once; a scavenge removes their
// bytes later. `custom` holds the user's own keys.
//
// The metadata of stream S is the last event of the reserved stream `$$S`
// (type `$metadata`, data the JSON below), so it has a version of its own
// (its ETag: 0 for the first write, then +1), is written with an
// expectation like any append, and is kept, exported and replicated like
// any event on every backend.
//
//   {"maxAge":86400,"maxCount":1000,"truncateBefore":17,"custom":{"owner":"billing"}}
//
// Every key is optional; null means unset. Other keys are refused (a typo
// such as "maxcount" must not silently keep every event).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/result.h"
#include "indelible/types.h"

namespace indelible {

// The stream that holds stream S's metadata is kMetadataStreamPrefix + S.
inline constexpr std::string_view kMetadataStreamPrefix = "$$";
// The type of the events of a metadata stream.
inline constexpr std::string_view kMetadataEventType = "$metadata";

struct StreamMetadata {
  // Events whose commit timestamp is older than this are not read.
  std::optional<std::chrono::seconds> max_age;
  // Only the stream's newest max_count versions are read (counted back from
  // its last version, tombstones included).
  std::optional<std::uint64_t> max_count;
  // Events with a lower version are not read.
  std::optional<StreamVersion> truncate_before;
  // The user's own keys: a JSON object, kept as given.
  std::string custom{"{}"};

  // Whether any retention setting is set (reads must filter the stream).
  bool has_retention() const { return max_age || max_count || truncate_before; }
  bool operator==(const StreamMetadata&) const = default;
};

// Stream metadata as stored.
struct StoredStreamMetadata {
  StreamMetadata metadata;
  // The metadata's own version, its ETag; nullopt if it was never written
  // (metadata is then the default: no retention, no custom keys).
  std::optional<StreamVersion> version;
};

// The JSON above; keys that are unset are left out.
std::string StreamMetadataToJson(const StreamMetadata& metadata);
// invalid, naming the key, for anything but the keys above with values of
// their kind: maxAge and maxCount integers of at least 1, truncateBefore an
// integer of at least 0, custom an object.
Result<StreamMetadata> StreamMetadataFromJson(std::string_view json);

// "$$" + stream.
std::string MetadataStreamOf(std::string_view stream);
// Whether `stream` is a metadata stream ("$$..."); such streams have no
// metadata of their own.
bool IsMetadataStream(std::string_view stream);

}  // namespace indelible
