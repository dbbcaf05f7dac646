// The documents of stream metadata (docs/HTTP.md, "Stream metadata"): what
// GET and PUT /streams/{stream}/metadata answer. The request body of the
// PUT is the metadata document itself, read and written by core's codec
// (StreamMetadataFromJson, StreamMetadataToJson in stream_metadata.h),
// which answers invalid naming the key.
#pragma once

#include <string>
#include <string_view>

#include "indelible/result.h"
#include "indelible/stream_metadata.h"
#include "indelible/types.h"

namespace indelible::api {

// GET /streams/{stream}/metadata: {stream, version, metadata}; version is
// null and metadata {} for a stream whose metadata was never written.
std::string StoredStreamMetadataToJson(std::string_view stream, const StoredStreamMetadata& stored);
Result<StoredStreamMetadata> StoredStreamMetadataFromJson(std::string_view body);

// PUT /streams/{stream}/metadata: {stream, version}, the version written.
std::string StreamMetadataWrittenToJson(std::string_view stream, StreamVersion version);
Result<StreamVersion> StreamMetadataWrittenFromJson(std::string_view body);

}  // namespace indelible::api
