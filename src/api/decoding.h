// What api's decoders share (internal to src/api): reading an answer's
// members, and the internal error of a body that is not the API.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/result.h"
#include "indelible/status.h"

namespace indelible::api::decoding {

// internal: "the server's answer is not a valid {what}: {why}".
Status NotOurs(std::string_view what, std::string_view why);
// The body as a JSON object, or NotOurs.
Result<boost::json::object> ParseObject(std::string_view body, std::string_view what);
// A whole number member; nullopt for null. Fails on anything else.
Result<std::optional<std::int64_t>> Integer(const boost::json::object& object, std::string_view key,
                                            std::string_view what);
// A whole number member that must be there and not null.
Result<std::int64_t> RequiredInteger(const boost::json::object& object, std::string_view key,
                                     std::string_view what);
// A string member; empty when missing or not a string.
std::string StringMember(const boost::json::object& object, std::string_view key);
// A bool member; false when missing or not a bool.
bool BoolMember(const boost::json::object& object, std::string_view key);

}  // namespace indelible::api::decoding
