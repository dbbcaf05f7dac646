#include "storage/embedded/format.h"

#include <cstring>

#include "storage/embedded/record_codec.h"

namespace indelible::storage::embedded {
namespace {

using codec::CrcMatches;
using codec::GetBE64;
using codec::GetLE;
using codec::PutBE64;
using codec::PutLE;
using codec::SealRecord;

// Event record layout after the 4-byte CRC (see docs/FORMAT.md).
constexpr std::size_t kEventHeaderBytes = 4 + 1 + 1 + 8 + 8 + 16 + 2 + 2 + 2 + 2 + 4 + 4;

}  // namespace

std::string PositionKey(Position position) {
  std::string key;
  key.reserve(8);
  PutBE64(&key, position.value());
  return key;
}

Position DecodePositionKey(std::string_view key) {
  return key.size() == 8 ? Position(GetBE64(key.data())) : Position(0);
}

std::string StreamKeyPrefix(std::string_view stream) {
  std::string key(stream);
  key.push_back('\0');
  return key;
}

std::string StreamVersionKey(std::string_view stream, std::int64_t version) {
  std::string key = StreamKeyPrefix(stream);
  PutBE64(&key, static_cast<std::uint64_t>(version));
  return key;
}

bool DecodeStreamVersionKey(std::string_view key, std::string_view* stream, std::int64_t* version) {
  if (key.size() < 10 || key[key.size() - 9] != '\0') return false;
  *stream = key.substr(0, key.size() - 9);
  *version = static_cast<std::int64_t>(GetBE64(key.data() + key.size() - 8));
  return true;
}

std::string_view IdKey(const EventId& id) {
  return std::string_view(reinterpret_cast<const char*>(id.bytes().data()), 16);
}

void EncodeEvent(const EventData& event, std::string_view stream, StreamVersion version,
                 Position position, std::int64_t timestamp_ms, std::string* out) {
  out->clear();
  std::size_t tag_bytes = event.tags.empty() ? 0 : 1;
  for (const std::string& tag : event.tags) tag_bytes += 1 + tag.size();
  out->reserve(kEventHeaderBytes + stream.size() + event.type.size() + event.schema.size() +
               event.content_type.size() + event.metadata.size() + event.data.size() + tag_bytes);
  PutLE<std::uint32_t>(out, 0);  // CRC, sealed below
  out->push_back(static_cast<char>(kEventRecordFormat));
  out->push_back(static_cast<char>(event.tags.empty() ? 0 : kEventHasTags));
  PutLE<std::int64_t>(out, version.value());
  PutLE<std::int64_t>(out, timestamp_ms);
  out->append(IdKey(event.id));
  PutLE<std::uint16_t>(out, static_cast<std::uint16_t>(stream.size()));
  PutLE<std::uint16_t>(out, static_cast<std::uint16_t>(event.type.size()));
  PutLE<std::uint16_t>(out, static_cast<std::uint16_t>(event.schema.size()));
  PutLE<std::uint16_t>(out, static_cast<std::uint16_t>(event.content_type.size()));
  PutLE<std::uint32_t>(out, static_cast<std::uint32_t>(event.metadata.size()));
  PutLE<std::uint32_t>(out, static_cast<std::uint32_t>(event.data.size()));
  out->append(stream);
  out->append(event.type);
  out->append(event.schema);
  out->append(event.content_type);
  out->append(event.metadata);
  out->append(event.data);
  // Tags are at most 32 of at most 128 bytes (query.h): a byte each.
  if (!event.tags.empty()) {
    out->push_back(static_cast<char>(event.tags.size()));
    for (const std::string& tag : event.tags) {
      out->push_back(static_cast<char>(tag.size()));
      out->append(tag);
    }
  }
  SealRecord(PositionKey(position), out);
}

std::string DecodeEvent(std::string_view position_key, std::string_view record, bool verify,
                        EventView* view) {
  return DecodeEvent(position_key, record, verify, view, nullptr);
}

std::string DecodeEvent(std::string_view position_key, std::string_view record, bool verify,
                        EventView* view, std::vector<std::string>* tags) {
  if (record.size() < kEventHeaderBytes) return "record shorter than its header";
  const char* p = record.data();
  if (static_cast<std::uint8_t>(p[4]) != kEventRecordFormat)
    return "unknown record format " + std::to_string(static_cast<std::uint8_t>(p[4]));
  if (verify && !CrcMatches(position_key, record)) return "checksum mismatch";
  view->position = DecodePositionKey(position_key);
  view->version = StreamVersion(GetLE<std::int64_t>(p + 6));
  view->timestamp_ms = GetLE<std::int64_t>(p + 14);
  std::array<std::uint8_t, 16> id;
  std::memcpy(id.data(), p + 22, 16);
  view->id = EventId(id);
  const std::size_t stream_len = GetLE<std::uint16_t>(p + 38);
  const std::size_t type_len = GetLE<std::uint16_t>(p + 40);
  const std::size_t schema_len = GetLE<std::uint16_t>(p + 42);
  const std::size_t content_type_len = GetLE<std::uint16_t>(p + 44);
  const std::size_t metadata_len = GetLE<std::uint32_t>(p + 46);
  const std::size_t data_len = GetLE<std::uint32_t>(p + 50);
  const std::uint8_t flags = static_cast<std::uint8_t>(p[5]);
  if ((flags & ~kEventHasTags) != 0) return "unknown record flags";
  const std::size_t fields = kEventHeaderBytes + stream_len + type_len + schema_len +
                             content_type_len + metadata_len + data_len;
  if ((flags & kEventHasTags) ? fields >= record.size() : fields != record.size())
    return "field lengths do not add up to the record size";
  std::size_t at = kEventHeaderBytes;
  auto take = [&](std::size_t n) {
    std::string_view s = record.substr(at, n);
    at += n;
    return s;
  };
  view->stream = take(stream_len);
  view->type = take(type_len);
  view->schema = take(schema_len);
  view->content_type = take(content_type_len);
  view->metadata = take(metadata_len);
  view->data = take(data_len);
  view->tags = {};
  if (tags != nullptr) tags->clear();
  if ((flags & kEventHasTags) == 0) return {};
  const std::size_t count = static_cast<std::uint8_t>(record[at++]);
  // The flag is set only when there are tags (EncodeEvent): a record that
  // says otherwise was not written by this format.
  if (count == 0) return "a tags section without tags";
  for (std::size_t t = 0; t < count; ++t) {
    if (at >= record.size()) return "the tags run past the record's end";
    const std::size_t len = static_cast<std::uint8_t>(record[at++]);
    if (at + len > record.size()) return "the tags run past the record's end";
    if (tags != nullptr) tags->emplace_back(record.substr(at, len));
    at += len;
  }
  if (at != record.size()) return "the tags do not end at the record's end";
  if (tags != nullptr) view->tags = *tags;
  return {};
}

std::string TagKeyPrefix(std::string_view tag) {
  std::string key(tag);
  key.push_back('\0');
  return key;
}

std::string TagKey(std::string_view tag, Position position) {
  std::string key = TagKeyPrefix(tag);
  PutBE64(&key, position.value());
  return key;
}

bool DecodeTagKey(std::string_view key, std::string_view* tag, Position* position) {
  if (key.size() < 10 || key[key.size() - 9] != '\0') return false;
  *tag = key.substr(0, key.size() - 9);
  *position = Position(GetBE64(key.data() + key.size() - 8));
  return true;
}

std::string EncodeTagEntry(std::string_view key, std::string_view type) {
  std::string value;
  value.reserve(4 + type.size());
  PutLE<std::uint32_t>(&value, 0);
  value.append(type);
  SealRecord(key, &value);
  return value;
}

std::optional<std::string_view> DecodeTagEntry(std::string_view key, std::string_view value,
                                               bool verify) {
  if (value.size() < 4 || (verify && !CrcMatches(key, value))) return std::nullopt;
  return value.substr(4);
}

std::string StreamEndKey(std::string_view stream) {
  std::string key = StreamKeyPrefix(stream);
  key.append(8, '\xff');
  return key;
}

// crc32 u32 | first_position u64 | count u32 | life_first_version i64 | flags u8
std::string EncodeAppendEntry(std::string_view key, const AppendEntry& entry) {
  std::string value;
  value.reserve(25);
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::uint64_t>(&value, entry.first_position.value());
  PutLE<std::uint32_t>(&value, entry.count);
  PutLE<std::int64_t>(&value, entry.life_first_version.value());
  value.push_back(static_cast<char>(entry.deleted ? 1 : 0));
  SealRecord(key, &value);
  return value;
}

std::optional<AppendEntry> DecodeAppendEntry(std::string_view key, std::string_view value,
                                             bool verify) {
  if (value.size() != 25 || (verify && !CrcMatches(key, value))) return std::nullopt;
  AppendEntry entry;
  entry.first_position = Position(GetLE<std::uint64_t>(value.data() + 4));
  entry.count = GetLE<std::uint32_t>(value.data() + 12);
  entry.life_first_version = StreamVersion(GetLE<std::int64_t>(value.data() + 16));
  entry.deleted = (value[24] & 1) != 0;
  if (entry.count == 0) return std::nullopt;
  // The versions and positions it covers must exist (a damaged key or value
  // must not make HeadAfter overflow).
  std::string_view stream;
  std::int64_t first_version = 0;
  if (DecodeStreamVersionKey(key, &stream, &first_version) &&
      (first_version < 0 || first_version > INT64_MAX - entry.count))
    return std::nullopt;
  if (entry.first_position.value() == 0 || entry.first_position.value() > UINT64_MAX - entry.count)
    return std::nullopt;
  return entry;
}

StreamHead HeadAfter(StreamVersion first_version, const AppendEntry& entry) {
  StreamHead head;
  head.version = StreamVersion(first_version.value() + entry.count - 1);
  head.position = Position(entry.first_position.value() + entry.count - 1);
  head.deleted = entry.deleted;
  head.first_version = entry.life_first_version;
  return head;
}

// crc32 u32 | position u64
std::string EncodeEventId(const EventId& id, Position position) {
  std::string value;
  value.reserve(12);
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::uint64_t>(&value, position.value());
  SealRecord(IdKey(id), &value);
  return value;
}

std::optional<Position> DecodeEventId(std::string_view key, std::string_view value, bool verify) {
  if (value.size() != 12 || (verify && !CrcMatches(key, value))) return std::nullopt;
  return Position(GetLE<std::uint64_t>(value.data() + 4));
}

std::string EncodeIdsIndexed(Position through) {
  std::string value;
  value.reserve(12);
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::uint64_t>(&value, through.value());
  SealRecord(kIdsIndexedKey, &value);
  return value;
}

std::optional<Position> DecodeIdsIndexed(std::string_view value) {
  if (value.size() != 12 || !CrcMatches(kIdsIndexedKey, value)) return std::nullopt;
  return Position(GetLE<std::uint64_t>(value.data() + 4));
}

std::string CheckpointKey(std::string_view name) {
  std::string key(kCheckpointKeyPrefix);
  key.append(name);
  return key;
}

std::string EncodeCheckpoint(std::string_view key, std::string_view payload) {
  std::string out(4, '\0');
  out.append(payload);
  SealRecord(key, &out);
  return out;
}

std::optional<std::string_view> DecodeCheckpoint(std::string_view key, std::string_view value,
                                                 bool verify) {
  if (value.size() < 4 || (verify && !CrcMatches(key, value))) return std::nullopt;
  return value.substr(4);
}

std::string StateKey(std::string_view stream) {
  std::string key(kStateKeyPrefix);
  key.append(stream);
  return key;
}

// crc32 u32 | version i64 | position u64 | schema u32 | data (docs/FORMAT.md)
std::string EncodeState(std::string_view key, const StateRecord& record) {
  std::string out(4, '\0');
  PutLE<std::int64_t>(&out, record.version.value());
  PutLE<std::uint64_t>(&out, record.position.value());
  PutLE<std::uint32_t>(&out, record.schema);
  out.append(record.data);
  SealRecord(key, &out);
  return out;
}

std::optional<StateRecord> DecodeState(std::string_view key, std::string_view value) {
  constexpr std::size_t kHeader = 4 + 8 + 8 + 4;
  if (value.size() < kHeader || !CrcMatches(key, value)) return std::nullopt;
  StateRecord record;
  record.version = StreamVersion(GetLE<std::int64_t>(value.data() + 4));
  record.position = Position(GetLE<std::uint64_t>(value.data() + 12));
  record.schema = GetLE<std::uint32_t>(value.data() + 20);
  record.data = std::string(value.substr(kHeader));
  return record;
}

std::string ScavengedKey(std::string_view stream) {
  std::string key(kScavengedKeyPrefix);
  key.append(stream);
  return key;
}

// crc32 u32 | first kept version i64
std::string EncodeScavenged(std::string_view key, StreamVersion first_kept) {
  std::string out(4, '\0');
  PutLE<std::int64_t>(&out, first_kept.value());
  SealRecord(key, &out);
  return out;
}

std::optional<StreamVersion> DecodeScavenged(std::string_view key, std::string_view value) {
  if (value.size() != 12 || !CrcMatches(key, value)) return std::nullopt;
  return StreamVersion(GetLE<std::int64_t>(value.data() + 4));
}

// crc32 u32 | events u64 | bytes u64 | compacted events u64
std::string EncodeScavengeTotals(const ScavengeTotals& totals) {
  std::string out(4, '\0');
  PutLE<std::uint64_t>(&out, totals.events);
  PutLE<std::uint64_t>(&out, totals.bytes);
  PutLE<std::uint64_t>(&out, totals.compacted_events);
  SealRecord(kScavengeTotalsKey, &out);
  return out;
}

std::optional<ScavengeTotals> DecodeScavengeTotals(std::string_view value) {
  if (value.size() != 28 || !CrcMatches(kScavengeTotalsKey, value)) return std::nullopt;
  return ScavengeTotals{GetLE<std::uint64_t>(value.data() + 4),
                        GetLE<std::uint64_t>(value.data() + 12),
                        GetLE<std::uint64_t>(value.data() + 20)};
}

}  // namespace indelible::storage::embedded
