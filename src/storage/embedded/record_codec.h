// The byte-level pieces every record of docs/FORMAT.md is made of, shared by
// the current format (format.cc) and format 1's reader (format_v1.cc):
// fixed-width integers and the CRC that seals a record to its key.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace indelible::storage::embedded::codec {

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

inline void PutBE64(std::string* out, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

inline std::uint64_t GetBE64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<std::uint8_t>(p[i]);
  return v;
}

// zlib's CRC-32: hardware-assisted and well kept; any strong 32-bit checksum
// would do, this one is already on every machine RocksDB runs on.
inline std::uint32_t Crc(std::string_view key, std::string_view body) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size()));
  crc = crc32(crc, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  return static_cast<std::uint32_t>(crc);
}

// Writes the CRC of (key, out[4..]) into out[0..4).
inline void SealRecord(std::string_view key, std::string* out) {
  std::uint32_t crc = Crc(key, std::string_view(*out).substr(4));
  for (int i = 0; i < 4; ++i) (*out)[i] = static_cast<char>(crc >> (8 * i));
}

inline bool CrcMatches(std::string_view key, std::string_view value) {
  return value.size() >= 4 && GetLE<std::uint32_t>(value.data()) == Crc(key, value.substr(4));
}

}  // namespace indelible::storage::embedded::codec
