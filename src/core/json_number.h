// Whole numbers read from a parsed JSON document.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>

namespace indelible {

// `value` as a signed 64-bit whole number; nullopt when it is not a whole
// number or lies outside int64 (18446744073709551615 parses as a uint64).
// Boost.JSON's to_number<std::int64_t> throws there instead: a server's
// answer must not be able to end the client's process (found by
// fuzz_event_json, in an export line's decoder).
std::optional<std::int64_t> WholeNumber(const boost::json::value& value);

}  // namespace indelible
