// Reading a JSON object field by field, for Codec<T>::Decode on Boost.JSON:
// every error is invalid and names the field, which the entity layer turns
// into events[i].data.FIELD. Shared by the examples, the entity tests and
// the entity benchmark, which all write codecs the way an application would.
#pragma once

#include <indelible/result.h>

#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace json_fields {

// invalid (field "data") unless `text` is a JSON object.
indelible::Result<boost::json::object> ParseObject(std::string_view text);

indelible::Result<std::string> String(const boost::json::object& o, std::string_view key);
indelible::Result<std::int64_t> Integer(const boost::json::object& o, std::string_view key);
indelible::Result<std::vector<std::string>> Strings(const boost::json::object& o,
                                                    std::string_view key);

}  // namespace json_fields
