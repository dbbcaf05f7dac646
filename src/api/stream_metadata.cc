// api/stream_metadata.h: the answers of the stream metadata routes as JSON.
#include "api/stream_metadata.h"

#include <fmt/format.h>

#include <boost/json.hpp>

#include "api/decoding.h"
#include "core/event_json.h"

namespace indelible::api {
namespace json = boost::json;

using decoding::Integer;
using decoding::NotOurs;
using decoding::ParseObject;
using decoding::RequiredInteger;

std::string StoredStreamMetadataToJson(std::string_view stream,
                                       const StoredStreamMetadata& stored) {
  return fmt::format(R"({{"stream":{},"version":{},"metadata":{}}})", QuoteJson(stream),
                     stored.version ? std::to_string(stored.version->value()) : "null",
                     StreamMetadataToJson(stored.metadata));
}

Result<StoredStreamMetadata> StoredStreamMetadataFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "stream metadata";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  const json::object& object = *parsed;
  auto version = Integer(object, "version", kWhat);
  if (!version.ok()) return version.status();
  if (*version && **version < 0) return NotOurs(kWhat, "a negative 'version'");
  const json::value* metadata = object.if_contains("metadata");
  if (metadata == nullptr || !metadata->is_object()) return NotOurs(kWhat, "no 'metadata' object");
  auto decoded = StreamMetadataFromJson(json::serialize(*metadata));
  if (!decoded.ok()) return NotOurs(kWhat, decoded.status().message());
  StoredStreamMetadata stored;
  stored.metadata = std::move(*decoded);
  if (*version) stored.version = StreamVersion(**version);
  return stored;
}

std::string StreamMetadataWrittenToJson(std::string_view stream, StreamVersion version) {
  return fmt::format(R"({{"stream":{},"version":{}}})", QuoteJson(stream), version.value());
}

Result<StreamVersion> StreamMetadataWrittenFromJson(std::string_view body) {
  constexpr std::string_view kWhat = "stream metadata write";
  auto parsed = ParseObject(body, kWhat);
  if (!parsed.ok()) return parsed.status();
  auto version = RequiredInteger(*parsed, "version", kWhat);
  if (!version.ok()) return version.status();
  if (*version < 0) return NotOurs(kWhat, "a negative 'version'");
  return StreamVersion(*version);
}

}  // namespace indelible::api
