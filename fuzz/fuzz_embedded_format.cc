// The embedded engine's records (src/storage/embedded/format.h, format 1's
// in format_v1.h; docs/FORMAT.md), as a damaged or hostile data folder would hand them to
// the decoders. Input: one byte for the key's length, the key, then the
// value. Each decoder runs with and without checksum verification, and on
// the value with its CRC fixed, so that the checked paths are reached too.
// Invariants: whatever decodes encodes back to the same bytes (decode ->
// encode), and what is encoded decodes to what it was (encode -> decode).
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "storage/embedded/format.h"
#include "storage/embedded/format_v1.h"

namespace {

namespace fmt_ = indelible::storage::embedded;
using indelible::Position;
using indelible::StreamVersion;

// The value with a CRC-32 of (key, value[4..]) in its first four bytes, as
// docs/FORMAT.md defines it.
std::string Sealed(std::string_view key, std::string_view value) {
  std::string out(value);
  if (out.size() < 4) return out;
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size()));
  crc =
      crc32(crc, reinterpret_cast<const Bytef*>(out.data() + 4), static_cast<uInt>(out.size() - 4));
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(crc >> (8 * i));
  return out;
}

bool SameBody(std::string_view a, std::string_view b) {
  return a.size() == b.size() && a.substr(4) == b.substr(4);
}

void Event(std::string_view key, std::string_view value) {
  indelible::EventView view;
  std::vector<std::string> tags;
  if (!fmt_::DecodeEvent(key, value, false, &view, &tags).empty()) return;
  indelible::EventData event;
  event.id = view.id;
  event.type = view.type;
  event.schema = view.schema;
  event.content_type = view.content_type;
  event.metadata = view.metadata;
  event.data = view.data;
  event.tags = tags;
  std::string again;
  fmt_::EncodeEvent(event, view.stream, view.version, view.position, view.timestamp_ms, &again);
  // Byte 5 holds the flags (tags follow the fields), which the decoder
  // checks: a record it accepts is one the encoder writes.
  FUZZ_CHECK(SameBody(again, value), "event: decode -> encode changed the record");
  indelible::EventView back;
  std::vector<std::string> back_tags;
  FUZZ_CHECK(
      fmt_::DecodeEvent(fmt_::PositionKey(view.position), again, true, &back, &back_tags).empty(),
      "event: a sealed record fails verification");
  FUZZ_CHECK(back.stream == view.stream && back.data == view.data && back.id == view.id &&
                 back.version == view.version && back.timestamp_ms == view.timestamp_ms &&
                 back_tags == tags,
             "event: encode -> decode changed the event");
}

// An event built from the input: encode -> decode must give it back.
void EventFromParts(std::string_view key, std::string_view value) {
  indelible::EventData event;
  const std::size_t half = value.size() / 2;
  event.type = std::string(key);
  event.data = std::string(value.substr(0, half));
  event.metadata = std::string(value.substr(half));
  event.schema = "V1";
  const std::string_view stream = value.substr(0, value.size() % 300);
  std::string record;
  fmt_::EncodeEvent(event, stream, StreamVersion(static_cast<std::int64_t>(value.size())),
                    Position(key.size() + 1), -1, &record);
  indelible::EventView view;
  FUZZ_CHECK(
      fmt_::DecodeEvent(fmt_::PositionKey(Position(key.size() + 1)), record, true, &view).empty(),
      "event: its own record does not decode");
  FUZZ_CHECK(view.stream == stream && view.type == event.type && view.data == event.data &&
                 view.metadata == event.metadata && view.schema == "V1" &&
                 view.content_type == event.content_type && view.timestamp_ms == -1 &&
                 view.position.value() == key.size() + 1,
             "event: encode -> decode changed the event");
}

void Others(std::string_view key, std::string_view value) {
  if (value.size() >= 8) {
    const Position position = fmt_::DecodePositionKey(value.substr(0, 8));
    FUZZ_CHECK(fmt_::PositionKey(position) == value.substr(0, 8), "position key");
  }
  std::string_view stream;
  std::int64_t version = 0;
  if (fmt_::DecodeStreamVersionKey(key, &stream, &version))
    FUZZ_CHECK(fmt_::StreamVersionKey(stream, version) == key, "stream version key");

  // Format 2's index records.
  if (auto entry = fmt_::DecodeAppendEntry(key, value, false)) {
    const std::string again = fmt_::EncodeAppendEntry(key, *entry);
    std::string expected(value);
    expected[24] = static_cast<char>(expected[24] & 1);  // only the low bit means something
    FUZZ_CHECK(SameBody(again, expected), "append entry: decode -> encode");
    FUZZ_CHECK(fmt_::DecodeAppendEntry(key, again, true).has_value(), "append entry: verify");
    const indelible::StreamHead head = fmt_::HeadAfter(StreamVersion(version), *entry);
    FUZZ_CHECK(head.version.value() == version + entry->count - 1 && head.deleted == entry->deleted,
               "append entry: the head it gives");
  }
  // Format 1's, which the upgrade and `check` of an old folder still read.
  if (auto entry = fmt_::v1::DecodeStreamEntry(key, value, false)) {
    const std::string again = fmt_::v1::EncodeStreamEntry(key, *entry);
    FUZZ_CHECK(SameBody(again, value), "stream entry: decode -> encode");
    FUZZ_CHECK(fmt_::v1::DecodeStreamEntry(key, again, true).has_value(), "stream entry: verify");
  }
  if (auto head = fmt_::v1::DecodeHead(key, value, false)) {
    const std::string again = fmt_::v1::EncodeHead(key, *head);
    std::string expected(value);
    expected[28] = static_cast<char>(expected[28] & 1);  // only the low bit means something
    FUZZ_CHECK(SameBody(again, expected), "head: decode -> encode");
    FUZZ_CHECK(fmt_::v1::DecodeHead(key, again, true).has_value(), "head: verify");
  }
  if (key.size() == 16) {
    std::array<std::uint8_t, 16> bytes;
    std::memcpy(bytes.data(), key.data(), 16);
    const indelible::EventId id(bytes);
    FUZZ_CHECK(fmt_::IdKey(id) == key, "id key");
    if (auto position = fmt_::DecodeEventId(key, value, false)) {
      const std::string again = fmt_::EncodeEventId(id, *position);
      FUZZ_CHECK(SameBody(again, value), "event id: decode -> encode");
      FUZZ_CHECK(fmt_::DecodeEventId(key, again, true) == position, "event id: verify");
    }
    if (auto stored = fmt_::v1::DecodeId(key, value, false)) {
      const std::string again = fmt_::v1::EncodeId(id, *stored);
      FUZZ_CHECK(SameBody(again, value), "id: decode -> encode");
      FUZZ_CHECK(fmt_::v1::DecodeId(key, again, true).has_value(), "id: verify");
    }
  }
  if (auto state = fmt_::DecodeState(key, value)) {
    FUZZ_CHECK(fmt_::EncodeState(key, *state) == value, "state: decode -> encode");
  }
  if (auto payload = fmt_::DecodeCheckpoint(key, value, false)) {
    const std::string again = fmt_::EncodeCheckpoint(key, *payload);
    FUZZ_CHECK(SameBody(again, value), "checkpoint: decode -> encode");
    FUZZ_CHECK(fmt_::DecodeCheckpoint(key, again, true) == *payload, "checkpoint: verify");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t key_size = std::min<std::size_t>(data[0], size - 1);
  const std::string_view key(reinterpret_cast<const char*>(data) + 1, key_size);
  const std::string_view value(reinterpret_cast<const char*>(data) + 1 + key_size,
                               size - 1 - key_size);
  const std::string sealed = Sealed(key, value);
  indelible::EventView ignored;
  (void)fmt_::DecodeEvent(key, value, true, &ignored);
  Event(key, value);
  Event(key, sealed);
  Others(key, value);
  Others(key, sealed);
  EventFromParts(key, value);
  return 0;
}
