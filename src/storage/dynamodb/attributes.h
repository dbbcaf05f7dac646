// Reading DynamoDB's typed attribute values ({"S": "..."}, {"N": "12"},
// {"M": {...}}, {"L": [...]}) and the plain JSON members of its answers.
// Never boost::json's throwing accessors: answers come from a server, and a
// malformed one must be an error the caller names, not an exception.
//
// Pure functions: safe from any thread. Returned pointers and views point
// into the object given.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace indelible::dynamodb {

// Attribute `name`'s value object ({"S": ...}); null when absent or not one.
const boost::json::object* Member(const boost::json::object& item, std::string_view name);
// The text of attribute `name` if it is of `type` ("S", "N", "B").
std::optional<std::string_view> AttributeText(const boost::json::object& item,
                                              std::string_view name, std::string_view type);
std::optional<std::string_view> GetS(const boost::json::object& item, std::string_view name);
// A number attribute that is an int64 (nullopt otherwise).
std::optional<std::int64_t> GetN(const boost::json::object& item, std::string_view name);
// The map of {"M": {...}} / the list of {"L": [...]}; null when not one.
const boost::json::object* MapOf(const boost::json::value& value);
const boost::json::array* ListOf(const boost::json::object* attr);

// Plain JSON members (DescribeTable, GetRecords, ...): a string ("" when
// absent or not a string) and an object (null likewise).
std::string StringAt(const boost::json::object& object, std::string_view name);
const boost::json::object* ObjectAt(const boost::json::object& object, std::string_view name);

}  // namespace indelible::dynamodb
