#include "indelible/types.h"

#include <fmt/format.h>

#include "core/random_bytes.h"
#include "core/text.h"

namespace indelible {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<EventId> EventId::Parse(std::string_view text) {
  // Boost.UUID's string_generator also accepts braces and undashed forms; ids
  // travel through HTTP headers, JSON and file names, so we accept exactly
  // one spelling and say so.
  auto bad = [&] {
    return Status::Invalid("id", fmt::format("'{}' is not a UUID (expected the 36-character "
                                             "form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
                                             Printable(text)));
  };
  if (text.size() != 36) return bad();
  std::array<std::uint8_t, 16> bytes{};
  std::size_t out = 0;
  for (std::size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return bad();
      ++i;
      continue;
    }
    int hi = HexValue(text[i]);
    int lo = HexValue(text[i + 1]);
    if (hi < 0 || lo < 0) return bad();
    bytes[out++] = static_cast<std::uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return EventId(bytes);
}

EventId EventId::Random() {
  std::array<std::uint8_t, 16> bytes{};
  RandomBytes(bytes.data(), bytes.size());
  bytes[6] = static_cast<std::uint8_t>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<std::uint8_t>((bytes[8] & 0x3F) | 0x80);  // RFC 9562 variant
  return EventId(bytes);
}

bool EventId::is_nil() const {
  for (auto b : bytes_)
    if (b != 0) return false;
  return true;
}

std::string EventId::ToString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[bytes_[i] >> 4]);
    s.push_back(kHex[bytes_[i] & 0xF]);
  }
  return s;
}

std::string Expected::ToString() const {
  switch (kind_) {
    case Kind::kAny:
      return "any";
    case Kind::kNoStream:
      return "no_stream";
    case Kind::kExists:
      return "exists";
    case Kind::kExactly:
      return fmt::format("exactly {}", version_);
  }
  return "any";
}

Status ValidateStreamName(std::string_view name, bool allow_reserved) {
  if (name.empty()) return Status::Invalid("stream", "stream name is empty (1 to 256 bytes)");
  // A metadata stream ("$$" + a stream's name, stream_metadata.h) may be
  // two bytes longer than the names it describes.
  const bool metadata_stream = allow_reserved && name.starts_with("$$");
  if (name.size() > kMaxStreamNameBytes + (metadata_stream ? 2 : 0))
    return Status::Invalid("stream", fmt::format("stream name is {} bytes; the limit is {}",
                                                 name.size(), kMaxStreamNameBytes));
  if (!IsValidUtf8(name)) return Status::Invalid("stream", "stream name is not valid UTF-8");
  if (HasControlCharacter(name))
    return Status::Invalid(
        "stream", fmt::format("stream name '{}' contains a control character", Printable(name)));
  if (name.front() == '$' && !allow_reserved)
    return Status::Invalid("stream", fmt::format("stream name '{}' starts with '$', which is "
                                                 "reserved for the store",
                                                 Printable(name)));
  return Status::Ok();
}

std::string_view StreamCategory(std::string_view stream) {
  auto cut = stream.find_first_of("-/");
  return cut == std::string_view::npos ? stream : stream.substr(0, cut);
}

}  // namespace indelible
