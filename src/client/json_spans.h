// Raw text of JSON members and elements, without decoding them.
//
// The server sends an event's `data` and `metadata` as the exact JSON text
// it stored; decoding and re-encoding them (Boost.JSON) would change the
// bytes (spacing, "1.0" becoming "1E0", escapes), so the client cuts them
// out of the answer as they are. These scanners find where a value starts
// and ends; they do not validate it (callers parse what they keep), but they
// never read past the text and fail on anything unbalanced.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace indelible::client {

// The raw value of the member `key` of the JSON object `object` (leading
// and trailing spaces allowed). Keys are compared as raw text, so `key`
// must need no escaping. nullopt: not an object, malformed, or no such key.
std::optional<std::string_view> RawMember(std::string_view object, std::string_view key);

// The raw elements of the JSON array `array`. nullopt: not an array, or
// malformed.
std::optional<std::vector<std::string_view>> RawElements(std::string_view array);

}  // namespace indelible::client
