#include "json_fields.h"

namespace json_fields {

namespace json = boost::json;
using indelible::Result;
using indelible::Status;

Result<json::object> ParseObject(std::string_view text) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec || !value.is_object()) return Status::Invalid("data", "expected a JSON object");
  return std::move(value.as_object());
}

Result<std::string> String(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string())
    return Status::Invalid(std::string(key), "expected a string");
  return std::string(v->as_string());
}

Result<std::int64_t> Integer(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_int64())
    return Status::Invalid(std::string(key), "expected an integer");
  return v->as_int64();
}

Result<std::vector<std::string>> Strings(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_array())
    return Status::Invalid(std::string(key), "expected an array of strings");
  std::vector<std::string> out;
  for (const json::value& item : v->as_array()) {
    if (!item.is_string()) return Status::Invalid(std::string(key), "expected strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

}  // namespace json_fields
