#include "storage/embedded/format.h"

#include <zlib.h>

#include <cstring>

namespace indelible::storage::embedded {
namespace {

// Fixed-width little-endian integers in values, big-endian in keys (so that
// RocksDB's bytewise order is numeric order).
template <class T>
void PutLE(std::string* out, T value) {
  auto v = static_cast<std::uint64_t>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

template <class T>
T GetLE(const char* p) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(p[i])) << (8 * i);
  return static_cast<T>(v);
}

void PutBE64(std::string* out, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

std::uint64_t GetBE64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

// zlib's CRC-32: hardware-assisted and well kept; any strong 32-bit checksum
// would do, this one is already on every machine RocksDB runs on.
std::uint32_t Crc(std::string_view key, std::string_view body) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size()));
  crc = crc32(crc, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  return static_cast<std::uint32_t>(crc);
}

// Writes the CRC of (key, out[4..]) into out[0..4).
void SealRecord(std::string_view key, std::string* out) {
  std::uint32_t crc = Crc(key, std::string_view(*out).substr(4));
  for (int i = 0; i < 4; ++i) (*out)[i] = static_cast<char>(crc >> (8 * i));
}

bool CrcMatches(std::string_view key, std::string_view value) {
  return value.size() >= 4 && GetLE<std::uint32_t>(value.data()) == Crc(key, value.substr(4));
}

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
  out->reserve(kEventHeaderBytes + stream.size() + event.type.size() + event.schema.size() +
               event.content_type.size() + event.metadata.size() + event.data.size());
  PutLE<std::uint32_t>(out, 0);  // CRC, sealed below
  out->push_back(static_cast<char>(kEventRecordFormat));
  out->push_back(0);  // flags, reserved
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
  SealRecord(PositionKey(position), out);
}

std::string DecodeEvent(std::string_view position_key, std::string_view record, bool verify,
                        EventView* view) {
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
  if (kEventHeaderBytes + stream_len + type_len + schema_len + content_type_len + metadata_len +
          data_len !=
      record.size())
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
  return {};
}

std::string EncodeStreamEntry(std::string_view key, const StreamEntry& entry) {
  std::string value;
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::uint64_t>(&value, entry.position.value());
  PutLE<std::uint32_t>(&value, entry.run);
  SealRecord(key, &value);
  return value;
}

std::optional<StreamEntry> DecodeStreamEntry(std::string_view key, std::string_view value,
                                             bool verify) {
  if (value.size() != 16 || (verify && !CrcMatches(key, value))) return std::nullopt;
  StreamEntry entry{Position(GetLE<std::uint64_t>(value.data() + 4)),
                    GetLE<std::uint32_t>(value.data() + 12)};
  if (entry.run == 0) return std::nullopt;
  return entry;
}

std::string EncodeHead(std::string_view stream, const HeadState& head) {
  std::string value;
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::int64_t>(&value, head.version.value());
  PutLE<std::uint64_t>(&value, head.position.value());
  PutLE<std::int64_t>(&value, head.first_version.value());
  value.push_back(static_cast<char>(head.deleted ? 1 : 0));
  SealRecord(stream, &value);
  return value;
}

std::optional<HeadState> DecodeHead(std::string_view stream, std::string_view value, bool verify) {
  if (value.size() != 29 || (verify && !CrcMatches(stream, value))) return std::nullopt;
  HeadState head;
  head.version = StreamVersion(GetLE<std::int64_t>(value.data() + 4));
  head.position = Position(GetLE<std::uint64_t>(value.data() + 12));
  head.first_version = StreamVersion(GetLE<std::int64_t>(value.data() + 20));
  head.deleted = (value[28] & 1) != 0;
  return head;
}

std::string EncodeId(const EventId& id, const StoredId& stored) {
  std::string value;
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::uint64_t>(&value, stored.position.value());
  PutLE<std::uint64_t>(&value, stored.append_first_position.value());
  PutLE<std::int64_t>(&value, stored.append_first_version.value());
  PutLE<std::uint32_t>(&value, stored.append_count);
  SealRecord(IdKey(id), &value);
  return value;
}

std::optional<StoredId> DecodeId(std::string_view key, std::string_view value, bool verify) {
  if (value.size() != 32 || (verify && !CrcMatches(key, value))) return std::nullopt;
  StoredId stored;
  stored.position = Position(GetLE<std::uint64_t>(value.data() + 4));
  stored.append_first_position = Position(GetLE<std::uint64_t>(value.data() + 12));
  stored.append_first_version = StreamVersion(GetLE<std::int64_t>(value.data() + 20));
  stored.append_count = GetLE<std::uint32_t>(value.data() + 28);
  return stored;
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

}  // namespace indelible::storage::embedded
