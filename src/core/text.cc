#include "core/text.h"

#include <fmt/format.h>

#include <cstdint>

namespace indelible {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0.
std::size_t Utf8SequenceLength(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  auto cont = [&](std::size_t k) { return k < text.size() && (byte(k) & 0xC0) == 0x80; };
  std::uint8_t b = byte(i);
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b >= 0xE0 && b <= 0xEF) {
    if (!cont(i + 1) || !cont(i + 2)) return 0;
    std::uint8_t b1 = byte(i + 1);
    if (b == 0xE0 && b1 < 0xA0) return 0;  // overlong
    if (b == 0xED && b1 > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (!cont(i + 1) || !cont(i + 2) || !cont(i + 3)) return 0;
    std::uint8_t b1 = byte(i + 1);
    if (b == 0xF0 && b1 < 0x90) return 0;  // overlong
    if (b == 0xF4 && b1 > 0x8F) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = Utf8SequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

bool HasControlCharacter(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto b = static_cast<std::uint8_t>(text[i]);
    if (b < 0x20 || b == 0x7F) return true;
    // U+0080..U+009F encode as C2 80..C2 9F.
    if (b == 0xC2 && i + 1 < text.size()) {
      auto b1 = static_cast<std::uint8_t>(text[i + 1]);
      if (b1 >= 0x80 && b1 <= 0x9F) return true;
    }
  }
  return false;
}

std::string Printable(std::string_view text) {
  std::string out;
  std::size_t shown = text.size() > 80 ? 80 : text.size();
  for (std::size_t i = 0; i < shown;) {
    std::size_t n = Utf8SequenceLength(text, i);
    auto b = static_cast<std::uint8_t>(text[i]);
    // C1 controls (C2 80..C2 9F) too: U+009B is CSI to some terminals.
    const bool c1 = n == 2 && b == 0xC2 && static_cast<std::uint8_t>(text[i + 1]) <= 0x9F;
    if (n == 0 || b < 0x20 || b == 0x7F || c1) {
      out += fmt::format("\\x{:02x}", b);
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  if (shown < text.size()) out += "...";
  return out;
}

std::string HexEncode(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    out.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
    out.push_back(kHex[static_cast<unsigned char>(c) & 15]);
  }
  return out;
}

std::optional<std::string> HexDecode(std::string_view hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int high = digit(hex[i]), low = digit(hex[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
  }
  return out;
}

}  // namespace indelible
