// The event model: what a client writes (EventData) and what the store
// returns (EventView, a zero-copy view, and RecordedEvent, an owning copy).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/types.h"

namespace indelible {

inline constexpr std::string_view kJsonContentType = "application/json";
// The type of the tombstone event that Store::Delete appends.
inline constexpr std::string_view kDeletedEventType = "$deleted";

// Crypto-shredding (docs/RETENTION.md): an event declares its subject (the
// person or thing whose key seals its data) with a tag "subject:<id>"; at
// most one such tag per event.
inline constexpr std::string_view kSubjectTagPrefix = "subject:";
// The content type of a sealed event as stored: its data is the
// ciphertext, opened on every read of a store that has the master key.
inline constexpr std::string_view kSealedContentType = "application/vnd.indelible.sealed";
// The data a sealed event reads as once its subject's keys are deleted
// (its content type application/json, its sealed metadata fields gone).
inline constexpr std::string_view kRedactedData = R"({"$redacted":true})";

// An event as the client hands it to an append.
struct EventData {
  // Client-made UUID for idempotent retries; the nil UUID asks the store to
  // make a random one.
  EventId id;
  // "Todo.Created". 1 to 256 bytes of UTF-8; names starting with '$' are reserved.
  std::string type;
  // Envelope schema ("V1"); may be empty.
  std::string schema;
  // The payload. Must be valid JSON when content_type is application/json.
  std::string data;
  std::string content_type{kJsonContentType};
  // A JSON object (user, correlation and causation ids, ...).
  std::string metadata{"{}"};
  // Tags for queries across streams (query.h): at most 32, each 1 to 128
  // bytes of UTF-8 without control characters. A set: the store keeps them
  // sorted without duplicates.
  std::vector<std::string> tags;
  // Import only: keep the original commit time (Unix ms). Ignored unless the
  // commit sets CommitOptions::keep_timestamps.
  std::optional<std::int64_t> timestamp_ms;
};

// A stored event, viewed in place. The string_views point into storage owned
// by whoever produced the view (a cursor); they stay valid until that cursor
// moves or is destroyed. Call ToOwned() to keep an event longer.
struct EventView {
  EventId id;
  std::string_view stream;
  StreamVersion version;
  Position position;
  std::string_view type;
  std::string_view schema;
  std::string_view content_type;
  std::string_view data;
  std::string_view metadata;
  std::int64_t timestamp_ms = 0;  // set by the store at commit
  // Sorted, without duplicates; valid as long as the other views.
  std::span<const std::string> tags;

  struct RecordedEvent ToOwned() const;
};

// An owning copy of a stored event.
struct RecordedEvent {
  EventId id;
  std::string stream;
  StreamVersion version;
  Position position;
  std::string type;
  std::string schema;
  std::string content_type;
  std::string data;
  std::string metadata;
  std::int64_t timestamp_ms = 0;
  std::vector<std::string> tags;  // sorted, without duplicates

  EventView view() const;
};

}  // namespace indelible
