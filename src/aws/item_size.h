// The size of a DynamoDB item by AWS's sizing rules, and the capacity units
// it costs. What DynamoDB bills is whole units of item size (1 KB a write
// unit, 4 KB a read unit), so these let a caller reckon a request's cost
// before sending it, or estimate what DynamoDB bills but does not report
// (a write refused by its condition: capacity.h).
//
// The rules ("DynamoDB item sizes and formats",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
// an item is the sum of its attributes' names (UTF-8 bytes) and values:
//   S            UTF-8 bytes
//   N            1 byte + 1 per pair of significant digits (see NumberSize)
//   B            the raw bytes (the base64 decoded)
//   BOOL, NULL   1 byte
//   M, L         3 bytes + 1 per element + the elements (a map's names too)
//   SS, NS, BS   the sum of the elements, sized as above
// Sets are not on AWS's page; their sizes, and the exact number rule, are
// what DynamoDB Local 1.25.1 bills (tests/dynamodb/capacity_test.cc).
//
// Pure functions: safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string_view>

namespace indelible::aws {

// An item in DynamoDB's typed JSON, as requests and answers carry it:
// {"name": {"S": "..."}, "n": {"N": "12"}, ...}. Values of a shape DynamoDB
// would refuse count 0.
std::uint64_t ItemSize(const boost::json::object& item);
// One typed value ({"S": "..."}), without a name.
std::uint64_t AttributeValueSize(const boost::json::value& value);

// A number as DynamoDB stores it: base-100 digits aligned on the decimal
// point, the leading and trailing zero ones trimmed, one byte each, plus a
// byte of exponent, plus one for a negative number's terminator. So 0 is 1
// byte, 1 and 12 are 2, 123 is 3, 1e10 and 0.001 are 2, -1 is 3, 123.456
// is 5 ("01 23 . 45 60"). AWS documents it as about 1 byte per two
// significant digits plus 1. A malformed number counts its characters.
std::uint64_t NumberSize(std::string_view number);

// Write units for an item of `bytes`: whole KB (1024), at least 1.
std::uint64_t WriteUnits(std::uint64_t bytes);
// Read units for reading `bytes`: whole 4 KB, at least 1; half that for an
// eventually consistent read.
double ReadUnits(std::uint64_t bytes, bool consistent);

}  // namespace indelible::aws
