#include "aws/item_size.h"

#include <boost/json/array.hpp>
#include <boost/json/string.hpp>
#include <cctype>
#include <cstdint>
#include <optional>

namespace indelible::aws {

namespace {

// floor(a / 2) for negative a too: the base-100 digit a power of ten is in.
std::int64_t PairOf(std::int64_t power) { return power >= 0 ? power / 2 : -((1 - power) / 2); }

// The significant digits of a decimal number: how many, the power of ten
// of the first, and its sign. nullopt when it is not a number.
struct Digits {
  std::int64_t count = 0;
  std::int64_t first_power = 0;
  bool negative = false;
};

std::optional<Digits> ParseDigits(std::string_view text) {
  std::size_t i = 0;
  Digits digits;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) digits.negative = text[i++] == '-';
  std::int64_t integer_digits = 0;  // before the point, leading zeros included
  std::int64_t leading_zeros = 0;   // before the first nonzero digit, both sides of the point
  std::int64_t since_last_nonzero = 0;
  std::int64_t mantissa = 0;
  bool point = false;
  bool seen_nonzero = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    ++mantissa;
    if (!point) ++integer_digits;
    if (c == '0') {
      if (seen_nonzero)
        ++since_last_nonzero;
      else
        ++leading_zeros;
    } else {
      seen_nonzero = true;
      digits.count += since_last_nonzero + 1;
      since_last_nonzero = 0;
    }
  }
  if (mantissa == 0) return std::nullopt;
  std::int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative_exponent = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative_exponent = text[i++] == '-';
    const std::size_t start = i;
    // DynamoDB's exponents stay within +-130: 6 digits is already absurd.
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && i - start < 6;
         ++i)
      exponent = exponent * 10 + (text[i] - '0');
    if (i == start) return std::nullopt;
    if (negative_exponent) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  digits.first_power = integer_digits - 1 - leading_zeros + exponent;
  return digits;
}

// The raw length of base64 text: 3 bytes per 4 characters, less the padding.
std::uint64_t Base64Bytes(std::string_view text) {
  std::uint64_t chars = 0;
  std::uint64_t padding = 0;
  for (char c : text) {
    if (c == '=')
      ++padding;
    else if (!std::isspace(static_cast<unsigned char>(c)))
      ++chars;
  }
  const std::uint64_t total = chars + padding;
  const std::uint64_t bytes = total / 4 * 3 + (total % 4 == 0 ? 0 : (total % 4) - 1);
  return bytes >= padding ? bytes - padding : 0;
}

std::uint64_t StringSize(const boost::json::value& value) {
  const auto* s = value.if_string();
  return s == nullptr ? 0 : s->size();
}

// A set: its elements sized by `each`, no overhead of its own.
template <class Each>
std::uint64_t SetSize(const boost::json::value& value, Each each) {
  const auto* elements = value.if_array();
  if (elements == nullptr) return 0;
  std::uint64_t size = 0;
  for (const auto& element : *elements)
    if (const auto* s = element.if_string()) size += each(std::string_view(*s));
  return size;
}

}  // namespace

std::uint64_t NumberSize(std::string_view number) {
  const std::optional<Digits> digits = ParseDigits(number);
  if (!digits) return number.size();
  if (digits->count == 0) return 1;  // zero: the exponent byte alone
  const std::int64_t last_power = digits->first_power - (digits->count - 1);
  const std::int64_t pairs = PairOf(digits->first_power) - PairOf(last_power) + 1;
  return static_cast<std::uint64_t>(1 + pairs + (digits->negative ? 1 : 0));
}

std::uint64_t AttributeValueSize(const boost::json::value& value) {
  const auto* typed = value.if_object();
  if (typed == nullptr || typed->size() != 1) return 0;
  const auto& [type, content] = *typed->begin();
  if (type == "S") return StringSize(content);
  if (type == "N") return content.is_string() ? NumberSize(content.get_string()) : 0;
  if (type == "B") return content.is_string() ? Base64Bytes(content.get_string()) : 0;
  if (type == "BOOL" || type == "NULL") return 1;
  if (type == "M") {
    const auto* map = content.if_object();
    if (map == nullptr) return 0;
    std::uint64_t size = 3;
    for (const auto& [name, element] : *map) size += name.size() + AttributeValueSize(element) + 1;
    return size;
  }
  if (type == "L") {
    const auto* list = content.if_array();
    if (list == nullptr) return 0;
    std::uint64_t size = 3;
    for (const auto& element : *list) size += AttributeValueSize(element) + 1;
    return size;
  }
  if (type == "SS") return SetSize(content, [](std::string_view s) { return s.size(); });
  if (type == "NS") return SetSize(content, NumberSize);
  if (type == "BS") return SetSize(content, Base64Bytes);
  return 0;
}

std::uint64_t ItemSize(const boost::json::object& item) {
  std::uint64_t size = 0;
  for (const auto& [name, value] : item) size += name.size() + AttributeValueSize(value);
  return size;
}

std::uint64_t WriteUnits(std::uint64_t bytes) { return bytes == 0 ? 1 : (bytes + 1023) / 1024; }

double ReadUnits(std::uint64_t bytes, bool consistent) {
  const std::uint64_t units = bytes == 0 ? 1 : (bytes + 4095) / 4096;
  return consistent ? static_cast<double>(units) : static_cast<double>(units) / 2.0;
}

}  // namespace indelible::aws
