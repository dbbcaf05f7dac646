// Text checks shared by every layer that takes names from users.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace indelible {

// Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
// Written here because neither the standard library nor Boost offers a plain
// validator (Boost.Locale converts, and throws, which is not what we want).
bool IsValidUtf8(std::string_view text);

// C0 controls, DEL and C1 controls (U+0080..U+009F).
// REQUIRES: IsValidUtf8(text)
bool HasControlCharacter(std::string_view text);

// A copy safe to put in an error message: at most 80 bytes, control bytes
// and invalid UTF-8 escaped as \xNN.
std::string Printable(std::string_view text);

// Bytes as lowercase hex digits, two a byte.
std::string HexEncode(std::string_view bytes);
// The bytes of hex digits (either case); nullopt for an odd length or a
// character that is not a hex digit.
std::optional<std::string> HexDecode(std::string_view hex);

}  // namespace indelible
