#include "storage/dynamodb/attributes.h"

#include <boost/json.hpp>
#include <charconv>

namespace indelible::dynamodb {
namespace json = boost::json;

const json::object* Member(const json::object& item, std::string_view name) {
  const auto* value = item.if_contains(name);
  return value != nullptr && value->is_object() ? &value->get_object() : nullptr;
}

std::optional<std::string_view> AttributeText(const json::object& item, std::string_view name,
                                              std::string_view type) {
  const auto* attr = Member(item, name);
  if (attr == nullptr) return std::nullopt;
  const auto* text = attr->if_contains(type);
  if (text == nullptr || !text->is_string()) return std::nullopt;
  return std::string_view(text->get_string());
}

std::optional<std::string_view> GetS(const json::object& item, std::string_view name) {
  return AttributeText(item, name, "S");
}

std::optional<std::int64_t> GetN(const json::object& item, std::string_view name) {
  auto text = AttributeText(item, name, "N");
  if (!text) return std::nullopt;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

const json::object* MapOf(const json::value& value) {
  if (!value.is_object()) return nullptr;
  const auto* map = value.get_object().if_contains("M");
  return map != nullptr && map->is_object() ? &map->get_object() : nullptr;
}

const json::array* ListOf(const json::object* attr) {
  if (attr == nullptr) return nullptr;
  const auto* list = attr->if_contains("L");
  return list != nullptr && list->is_array() ? &list->get_array() : nullptr;
}

std::string StringAt(const json::object& object, std::string_view name) {
  const auto* value = object.if_contains(name);
  return value != nullptr && value->is_string() ? std::string(value->get_string()) : std::string();
}

const json::object* ObjectAt(const json::object& object, std::string_view name) {
  const auto* value = object.if_contains(name);
  return value != nullptr && value->is_object() ? &value->get_object() : nullptr;
}

}  // namespace indelible::dynamodb
