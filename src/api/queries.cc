// api/queries.h: query documents, query reads and append conditions.
#include "api/queries.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <initializer_list>

#include "api/limits.h"
#include "core/event_json.h"
#include "core/json_number.h"

namespace indelible::api {
namespace json = boost::json;

namespace {

// The largest position a document may name, as request_parsing.h's
// kMaxNumberParam: far from the integer limits, so `+ 1` never overflows.
constexpr std::int64_t kMaxPosition = std::int64_t{1} << 62;

Result<json::value> Parse(std::string_view text, std::string_view field) {
  boost::system::error_code ec;
  json::value value = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec) return Status::Invalid(std::string(field), "not valid JSON: " + ec.message());
  return value;
}

// Every member of `object` is one of `allowed`: an unknown one is probably a typo.
Status OnlyMembers(const json::object& object, const std::string& at,
                   std::initializer_list<std::string_view> allowed) {
  for (const auto& member : object) {
    bool known = false;
    for (std::string_view name : allowed) known = known || member.key() == name;
    if (!known)
      return Status::Invalid(
          at + "." + std::string(member.key()).substr(0, 64),
          fmt::format("'{}' is not a member here; allowed: {}",
                      std::string(member.key()).substr(0, 64), fmt::join(allowed, ", ")));
  }
  return Status::Ok();
}

Result<std::vector<std::string>> Strings(const json::value& value, const std::string& at) {
  if (!value.is_array()) return Status::Invalid(at, "must be an array of strings");
  std::vector<std::string> out;
  out.reserve(value.as_array().size());
  for (std::size_t i = 0; i < value.as_array().size(); ++i) {
    const json::value& entry = value.as_array()[i];
    if (!entry.is_string())
      return Status::Invalid(fmt::format("{}[{}]", at, i), "must be a string");
    out.emplace_back(entry.as_string());
  }
  return out;
}

Result<Query> QueryFrom(const json::value& value, const std::string& field) {
  if (!value.is_object())
    return Status::Invalid(field,
                           R"(a query is an object: {"items":[{"types":[...],"tags":[...]}]})");
  const json::object& object = value.as_object();
  if (Status s = OnlyMembers(object, field, {"items"}); !s.ok()) return s;
  Query query;
  const json::value* items = object.if_contains("items");
  if (items == nullptr || items->is_null()) return query;  // every event
  if (!items->is_array()) return Status::Invalid(field + ".items", "must be an array of items");
  // Counted before the items are read, so a huge array costs nothing more.
  if (items->as_array().size() > kMaxQueryItems)
    return Status::Invalid(field + ".items", fmt::format("a query has at most {} items, not {}",
                                                         kMaxQueryItems, items->as_array().size()));
  for (std::size_t i = 0; i < items->as_array().size(); ++i) {
    const std::string at = fmt::format("{}.items[{}]", field, i);
    const json::value& entry = items->as_array()[i];
    if (!entry.is_object()) return Status::Invalid(at, "an item is an object {types?, tags?}");
    if (Status s = OnlyMembers(entry.as_object(), at, {"types", "tags"}); !s.ok()) return s;
    QueryItem item;
    if (const json::value* types = entry.as_object().if_contains("types")) {
      auto list = Strings(*types, at + ".types");
      if (!list.ok()) return list.status();
      item.types = std::move(*list);
    }
    if (const json::value* tags = entry.as_object().if_contains("tags")) {
      auto list = Strings(*tags, at + ".tags");
      if (!list.ok()) return list.status();
      item.tags = std::move(*list);
    }
    query.items.push_back(std::move(item));
  }
  // The store's rules (an item needs a type or a tag, the limits, the tags'
  // characters), with the names of this document.
  if (Status s = ValidateQuery(query, field); !s.ok()) return s;
  return query;
}

Result<std::optional<std::int64_t>> Number(const json::object& object, std::string_view key,
                                           const std::string& at, std::int64_t min,
                                           std::int64_t max) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return std::optional<std::int64_t>();
  const auto n = WholeNumber(*value);
  if (!n || *n < min || *n > max)
    return Status::Invalid(at,
                           fmt::format("'{}' must be a whole number from {} to {}", key, min, max));
  return std::optional<std::int64_t>(n);
}

void AppendStrings(const std::vector<std::string>& list, std::string* out) {
  out->push_back('[');
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i > 0) out->push_back(',');
    out->append(QuoteJson(list[i]));
  }
  out->push_back(']');
}

}  // namespace

std::string QueryToJson(const Query& query) {
  std::string out = R"({"items":[)";
  for (std::size_t i = 0; i < query.items.size(); ++i) {
    const QueryItem& item = query.items[i];
    if (i > 0) out.push_back(',');
    out.push_back('{');
    if (!item.types.empty()) {
      out += R"("types":)";
      AppendStrings(item.types, &out);
    }
    if (!item.tags.empty()) {
      if (!item.types.empty()) out.push_back(',');
      out += R"("tags":)";
      AppendStrings(item.tags, &out);
    }
    out.push_back('}');
  }
  out += "]}";
  return out;
}

Result<Query> QueryFromJson(std::string_view text, std::string_view field) {
  auto value = Parse(text, field);
  if (!value.ok()) return value.status();
  return QueryFrom(*value, std::string(field));
}

Result<QueryRead> QueryReadFromJson(std::string_view body) {
  auto value = Parse(body, "body");
  if (!value.ok()) return value.status();
  if (!value->is_object())
    return Status::Invalid("body",
                           "the body is an object {query, from?, limit?, direction?, raw?}");
  const json::object& object = value->as_object();
  for (const auto& member : object) {
    const std::string_view key = member.key();
    if (key != "query" && key != "from" && key != "limit" && key != "direction" && key != "raw")
      return Status::Invalid(std::string(key).substr(0, 64),
                             fmt::format("'{}' is not a member here; allowed: query, from, limit, "
                                         "direction, raw",
                                         std::string(key).substr(0, 64)));
  }
  QueryRead read;
  if (const json::value* query = object.if_contains("query");
      query != nullptr && !query->is_null()) {
    auto parsed = QueryFrom(*query, "query");
    if (!parsed.ok()) return parsed.status();
    read.query = std::move(*parsed);
  }
  if (const json::value* direction = object.if_contains("direction"); direction != nullptr) {
    if (direction->is_string() && direction->as_string() == "backward") {
      read.options.direction = Direction::kBackward;
    } else if (!direction->is_string() || direction->as_string() != "forward") {
      return Status::Invalid("direction", R"('direction' is "forward" or "backward")");
    }
  }
  auto from = Number(object, "from", "from", 0, kMaxPosition);
  if (!from.ok()) return from.status();
  if (*from) read.options.from = Position(static_cast<std::uint64_t>(**from));
  auto limit = Number(object, "limit", "limit", 1, static_cast<std::int64_t>(kMaxQueryPageEvents));
  if (!limit.ok()) return limit.status();
  if (*limit) read.limit = static_cast<std::size_t>(**limit);
  if (const json::value* raw = object.if_contains("raw"); raw != nullptr && !raw->is_null()) {
    if (!raw->is_bool()) return Status::Invalid("raw", "'raw' is true or false");
    read.options.raw = raw->as_bool();
  }
  return read;
}

std::string QueryReadToJson(const Query& query, const ReadQueryOptions& options) {
  std::string out = R"({"query":)" + QueryToJson(query);
  if (options.from) out += fmt::format(R"(,"from":{})", options.from->value());
  if (options.limit != SIZE_MAX) out += fmt::format(R"(,"limit":{})", options.limit);
  if (options.direction == Direction::kBackward) out += R"(,"direction":"backward")";
  if (options.raw) out += R"(,"raw":true)";
  out.push_back('}');
  return out;
}

std::string ConditionToJson(const AppendCondition& condition) {
  std::string out = R"({"failIfEventsMatch":)" + QueryToJson(condition.fail_if_events_match);
  if (condition.after) out += fmt::format(R"(,"after":{})", condition.after->value());
  out.push_back('}');
  return out;
}

Result<AppendCondition> ConditionFromJson(std::string_view text, std::string_view field) {
  const std::string at(field);
  auto value = Parse(text, at);
  if (!value.ok()) return value.status();
  if (!value->is_object())
    return Status::Invalid(at, "the condition is an object {failIfEventsMatch, after?}");
  const json::object& object = value->as_object();
  if (Status s = OnlyMembers(object, at, {"failIfEventsMatch", "after"}); !s.ok()) return s;
  const json::value* query = object.if_contains("failIfEventsMatch");
  if (query == nullptr)
    return Status::Invalid(at + ".failIfEventsMatch", "'failIfEventsMatch' is required");
  AppendCondition condition;
  auto parsed = QueryFrom(*query, at + ".failIfEventsMatch");
  if (!parsed.ok()) return parsed.status();
  condition.fail_if_events_match = std::move(*parsed);
  auto after = Number(object, "after", at + ".after", 0, kMaxPosition);
  if (!after.ok()) return after.status();
  if (*after) condition.after = Position(static_cast<std::uint64_t>(**after));
  return condition;
}

}  // namespace indelible::api
