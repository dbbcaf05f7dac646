// The stored form of a sealed event's data (docs/FORMAT.md "Sealed
// events"), content type kSealedContentType:
//
//   u8 format (1) | u8 n | subject (n bytes) | key id (16 bytes) | box
//
// where box is AES-256-GCM (aead.h) under the subject's key of that id,
// with the header and the event's id as additional data (a box moved to
// another event fails its tag), of:
//
//   u16 LE m | content type (m bytes) | u32 LE f | sealed metadata
//   fields (f bytes: a JSON object, or none) | the data
//
// The subject and key id are in the clear: a reader must find the key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "indelible/types.h"

namespace indelible::shredding {

inline constexpr std::size_t kKeyIdBytes = 16;
inline constexpr std::size_t kMaxSubjectBytes = 120;

struct SealedHeader {
  std::string_view subject;
  std::string_view key_id;  // kKeyIdBytes raw bytes
  std::string_view header;  // the whole header, additional data of the box
  std::string_view box;
};

// nullopt when `data` is not in the format above.
std::optional<SealedHeader> ParseSealed(std::string_view data);

// What a sealed event holds.
struct Plain {
  std::string content_type;
  std::string fields;  // sealed metadata fields: a JSON object or empty
  std::string data;
};

std::string SealEvent(std::string_view key, std::string_view key_id, std::string_view subject,
                      const EventId& id, const Plain& plain);

// nullopt when the box fails its tag (not this key, or changed bytes).
std::optional<Plain> OpenEvent(std::string_view key, const SealedHeader& sealed, const EventId& id);

// The same format for what is not an event, bound to `binding` (for a
// state record: "state/" and its stream) instead of an event id.
std::string SealBound(std::string_view key, std::string_view key_id, std::string_view subject,
                      std::string_view binding, const Plain& plain);
std::optional<Plain> OpenBound(std::string_view key, const SealedHeader& sealed,
                               std::string_view binding);

}  // namespace indelible::shredding
