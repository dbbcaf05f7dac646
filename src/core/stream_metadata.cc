#include "indelible/stream_metadata.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <limits>

#include "core/text.h"

namespace indelible {
namespace json = boost::json;

namespace {

// Integers up to 2^53: what every JSON reader (a browser's too) keeps exactly.
constexpr std::int64_t kMaxJsonInteger = std::int64_t{1} << 53;

Status BadKey(std::string_view key, std::string_view want) {
  return Status::Invalid(
      std::string(key),
      fmt::format("stream metadata '{}' must be {} (or null to unset it)", key, want));
}

// The value as an integer of at least `min`; nullopt for null.
Result<std::optional<std::int64_t>> IntegerOf(const json::value& value, std::string_view key,
                                              std::int64_t min) {
  if (value.is_null()) return std::optional<std::int64_t>();
  std::int64_t n = 0;
  if (value.is_int64()) {
    n = value.get_int64();
  } else if (value.is_uint64() &&
             value.get_uint64() <= static_cast<std::uint64_t>(kMaxJsonInteger)) {
    n = static_cast<std::int64_t>(value.get_uint64());
  } else if (value.is_double() &&
             value.get_double() ==
                 static_cast<double>(static_cast<std::int64_t>(value.get_double()))) {
    n = static_cast<std::int64_t>(value.get_double());
  } else {
    return BadKey(key, fmt::format("an integer of at least {}", min));
  }
  if (n < min || n > kMaxJsonInteger)
    return BadKey(key, fmt::format("an integer from {} to 2^53", min));
  return std::optional<std::int64_t>(n);
}

}  // namespace

std::string StreamMetadataToJson(const StreamMetadata& metadata) {
  std::string out = "{";
  const auto member = [&](std::string_view key, std::string_view value) {
    if (out.size() > 1) out += ',';
    out += fmt::format("\"{}\":{}", key, value);
  };
  if (metadata.max_age) member("maxAge", std::to_string(metadata.max_age->count()));
  if (metadata.max_count) member("maxCount", std::to_string(*metadata.max_count));
  if (metadata.truncate_before)
    member("truncateBefore", std::to_string(metadata.truncate_before->value()));
  if (metadata.custom != "{}" && !metadata.custom.empty()) member("custom", metadata.custom);
  out += '}';
  return out;
}

Result<StreamMetadata> StreamMetadataFromJson(std::string_view text) {
  boost::system::error_code ec;
  json::value parsed = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec)
    return Status::Invalid("metadata",
                           fmt::format("stream metadata is not valid JSON: {}", ec.message()));
  if (!parsed.is_object())
    return Status::Invalid("metadata",
                           "stream metadata must be a JSON object, like "
                           "{\"maxCount\":1000}");
  StreamMetadata metadata;
  for (const auto& member : parsed.as_object()) {
    const std::string_view key(member.key().data(), member.key().size());
    const json::value& value = member.value();
    if (key == "maxAge" || key == "maxCount") {
      auto n = IntegerOf(value, key, 1);
      if (!n.ok()) return n.status();
      if (!*n) continue;
      if (key == "maxAge")
        metadata.max_age = std::chrono::seconds(**n);
      else
        metadata.max_count = static_cast<std::uint64_t>(**n);
    } else if (key == "truncateBefore") {
      auto n = IntegerOf(value, key, 0);
      if (!n.ok()) return n.status();
      if (*n) metadata.truncate_before = StreamVersion(**n);
    } else if (key == "custom") {
      if (value.is_null()) continue;
      if (!value.is_object()) return BadKey(key, "a JSON object of your own keys");
      metadata.custom = json::serialize(value);
    } else {
      return Status::Invalid(
          "metadata",
          fmt::format("unknown stream metadata key '{}': the keys are maxAge (seconds), maxCount, "
                      "truncateBefore and custom (an object for your own keys)",
                      Printable(key.substr(0, 64))));
    }
  }
  return metadata;
}

std::string MetadataStreamOf(std::string_view stream) {
  std::string name(kMetadataStreamPrefix);
  name += stream;
  return name;
}

bool IsMetadataStream(std::string_view stream) { return stream.starts_with(kMetadataStreamPrefix); }

}  // namespace indelible
