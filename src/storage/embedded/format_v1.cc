// Format 1's index records (format_v1.h). The encoders stay for the tests
// that write format 1 folders to upgrade.
#include "storage/embedded/format_v1.h"

#include "storage/embedded/format.h"
#include "storage/embedded/record_codec.h"

namespace indelible::storage::embedded::v1 {

using codec::CrcMatches;
using codec::GetLE;
using codec::PutLE;
using codec::SealRecord;

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

std::string EncodeHead(std::string_view stream, const StreamHead& head) {
  std::string value;
  PutLE<std::uint32_t>(&value, 0);
  PutLE<std::int64_t>(&value, head.version.value());
  PutLE<std::uint64_t>(&value, head.position.value());
  PutLE<std::int64_t>(&value, head.first_version.value());
  value.push_back(static_cast<char>(head.deleted ? 1 : 0));
  SealRecord(stream, &value);
  return value;
}

std::optional<StreamHead> DecodeHead(std::string_view stream, std::string_view value, bool verify) {
  if (value.size() != 29 || (verify && !CrcMatches(stream, value))) return std::nullopt;
  StreamHead head;
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

}  // namespace indelible::storage::embedded::v1
