#include "server/request_parsing.h"

#include <fmt/format.h>

#include <charconv>

namespace indelible::server {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  std::int64_t value = 0;
  if (text.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<Expected> ExpectedFromHeaders(const Request& request) {
  const auto if_match = request.find(http::field::if_match);
  const auto if_none_match = request.find(http::field::if_none_match);
  const bool has_match = if_match != request.end();
  const bool has_none_match = if_none_match != request.end();
  if (has_match && has_none_match)
    return Status::Invalid("If-Match", "send If-Match or If-None-Match, not both");
  if (has_none_match) {
    if (Trim(if_none_match->value()) != "*")
      return Status::Invalid("If-None-Match",
                             "only 'If-None-Match: *' (the stream must not exist) is supported");
    return Expected::no_stream();
  }
  if (!has_match) return Expected::any();
  const std::string_view value = Trim(if_match->value());
  if (value == "*") return Expected::exists();
  const auto bad = [&] {
    return Status::Invalid(
        "If-Match", fmt::format("'{}' is not a version ETag: send the stream's last version in "
                                "quotes, like If-Match: \"4\", or * for any existing stream",
                                value));
  };
  if (value.size() < 3 || value.front() != '"' || value.back() != '"') return bad();
  const std::string_view digits = value.substr(1, value.size() - 2);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return bad();
  auto version = ParseInteger(digits);
  if (!version) return bad();
  return Expected::exactly(StreamVersion(*version));
}

Result<std::int64_t> IntegerParam(const Exchange& exchange, const std::string& key,
                                  std::int64_t fallback, std::int64_t min, std::int64_t max) {
  auto text = exchange.Query(key);
  if (!text) return fallback;
  auto value = ParseInteger(*text);
  if (!value || *value < min || *value > max)
    return Status::Invalid(
        key, fmt::format("'{}' must be an integer from {} to {}; got '{}'", key, min, max, *text));
  return *value;
}

AllFilter FilterFromQuery(const Exchange& exchange) {
  AllFilter filter;
  filter.categories = exchange.QueryList("category");
  filter.stream_prefixes = exchange.QueryList("prefix");
  filter.types = exchange.QueryList("type");
  return filter;
}

}  // namespace indelible::server
