// Strong types for the numbers and names of the event model, so that a
// stream version can never be passed where a global position is expected.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "indelible/result.h"
#include "indelible/status.h"

namespace indelible {

// NamedNumber<Tag, Rep>: a number with a name (Redpanda's named_type).
template <class Tag, class Rep>
class NamedNumber {
 public:
  using rep = Rep;
  constexpr NamedNumber() = default;
  constexpr explicit NamedNumber(Rep value) : value_(value) {}
  constexpr Rep value() const { return value_; }
  constexpr auto operator<=>(const NamedNumber&) const = default;
  constexpr NamedNumber next() const { return NamedNumber(value_ + 1); }

 private:
  Rep value_{};
};

// The version of an event within its stream: 0 for the first event, then +1
// with no gaps.
using StreamVersion = NamedNumber<struct StreamVersionTag, std::int64_t>;

// The global commit order across all streams ($all). Positions start at 1 and
// strictly increase; the events of one commit are contiguous. Position 0 means
// "before the first event".
using Position = NamedNumber<struct PositionTag, std::uint64_t>;

// A UUID identifying one event; the key for idempotent retries.
class EventId {
 public:
  EventId() = default;  // the nil UUID
  explicit EventId(const std::array<std::uint8_t, 16>& bytes) : bytes_(bytes) {}

  // Accepts only the canonical 36-character form
  // ("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", either case).
  static Result<EventId> Parse(std::string_view text);
  // A random (version 4) UUID, its 122 bits from the system's cryptographic
  // generator: safe to call from any thread and in a forked child.
  static EventId Random();

  bool is_nil() const;
  const std::array<std::uint8_t, 16>& bytes() const { return bytes_; }
  std::string ToString() const;  // lower-case canonical form

  auto operator<=>(const EventId&) const = default;

 private:
  std::array<std::uint8_t, 16> bytes_{};
};

// What an append requires of the stream's current state. Built only through
// the named factories, so a version can never be mistaken for an expectation.
//
//                  missing stream   live stream at V    deleted (tombstone)
//   any()          ok               ok                  ok (restarts it)
//   no_stream()    ok               conflict            ok (restarts it)
//   exists()       conflict         ok                  conflict
//   exactly(N)     conflict         ok iff N == V       conflict
class Expected {
 public:
  enum class Kind : std::uint8_t { kAny, kNoStream, kExists, kExactly };

  static constexpr Expected any() { return Expected(Kind::kAny, 0); }
  static constexpr Expected no_stream() { return Expected(Kind::kNoStream, 0); }
  static constexpr Expected exists() { return Expected(Kind::kExists, 0); }
  static constexpr Expected exactly(StreamVersion v) { return Expected(Kind::kExactly, v.value()); }

  Kind kind() const { return kind_; }
  // REQUIRES: kind() == Kind::kExactly
  StreamVersion version() const { return StreamVersion(version_); }
  std::string ToString() const;  // "any", "no_stream", "exists", "exactly 4"

  bool operator==(const Expected&) const = default;

 private:
  constexpr Expected(Kind kind, std::int64_t version) : kind_(kind), version_(version) {}
  Kind kind_;
  std::int64_t version_;
};

// The order a read goes in: positions (or versions) rising, or falling.
enum class Direction : std::uint8_t { kForward, kBackward };

// Stream names: 1 to 256 bytes of valid UTF-8 without control characters.
// Names starting with '$' are reserved for the store itself; user appends to
// them fail unless allow_reserved is set (internal callers only).
inline constexpr std::size_t kMaxStreamNameBytes = 256;
Status ValidateStreamName(std::string_view name, bool allow_reserved = false);

// The category of a stream: the part of the name before the first '-' or '/'
// ("account-42" -> "account", "BANK_ACCOUNT/123" -> "BANK_ACCOUNT"); the
// whole name when it has neither.
std::string_view StreamCategory(std::string_view stream);

}  // namespace indelible

template <>
struct std::hash<indelible::EventId> {
  std::size_t operator()(const indelible::EventId& id) const noexcept {
    std::size_t h = 0;
    for (int i = 0; i < 8; ++i) h = (h << 8) | id.bytes()[i];
    return h;  // already random for v4 UUIDs
  }
};
