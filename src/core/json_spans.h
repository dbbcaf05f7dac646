// Raw text of JSON members and elements, without decoding them.
//
// An event's `data` and `metadata` are stored as the JSON text the client
// sent, and sent back as they are; decoding and re-encoding them
// (Boost.JSON) would change what was written (a 30-digit number becoming
// 1.2345678901234568E29, "1.0" becoming "1E0", a repeated key dropped), so
// the server cuts them out of the request, and the client out of the
// answer, as they are. These scanners find where a value starts and ends;
// they do not validate it (callers parse what they keep), but they never
// read past the text and fail on anything unbalanced.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace indelible {

// The raw value of the member `key` of the JSON object `object` (leading
// and trailing spaces allowed). Keys are compared as raw text, so `key`
// must need no escaping. nullopt: not an object, malformed, or no such key.
std::optional<std::string_view> RawMember(std::string_view object, std::string_view key);

// The raw elements of the JSON array `array`. nullopt: not an array, or
// malformed.
std::optional<std::vector<std::string_view>> RawElements(std::string_view array);

// Every member of the JSON object `object` as (raw key without its quotes,
// raw value), in order, repeated keys included. nullopt: not an object, or
// malformed.
std::optional<std::vector<std::pair<std::string_view, std::string_view>>> RawMembers(
    std::string_view object);

// `json` (valid JSON) without the white space between its tokens: the same
// value, byte for byte in every string and number, on one line.
std::string CompactJson(std::string_view json);

}  // namespace indelible
