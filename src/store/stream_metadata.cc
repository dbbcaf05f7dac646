// Store::ReadStreamMetadata and Store::WriteStreamMetadata: a stream's
// metadata is the last event of its metadata stream ("$$" + name), so
// every backend keeps it, with a version and an expectation, as it keeps
// events (stream_metadata.h).
#include <fmt/format.h>

#include "indelible/store.h"

namespace indelible {

namespace {

Status CheckDescribedStream(std::string_view stream) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  if (IsMetadataStream(stream))
    return Status::Invalid("stream", fmt::format("'{}' is a metadata stream: it has no metadata "
                                                 "of its own",
                                                 stream.substr(0, 64)));
  return Status::Ok();
}

}  // namespace

Result<StoredStreamMetadata> Store::ReadStreamMetadata(std::string_view stream) {
  if (Status s = CheckDescribedStream(stream); !s.ok()) return s;
  ReadStreamOptions last;
  last.direction = Direction::kBackward;
  last.limit = 1;
  last.raw = true;
  auto cursor = ReadStream(MetadataStreamOf(stream), last);
  if (!cursor.ok()) {
    if (cursor.status().code() == ErrorCode::kNotFound) return StoredStreamMetadata{};
    return cursor.status();
  }
  if (!(*cursor)->Valid()) {
    if (Status s = (*cursor)->status(); !s.ok()) return s;
    return StoredStreamMetadata{};
  }
  const EventView& event = (*cursor)->event();
  auto metadata = StreamMetadataFromJson(event.data);
  if (!metadata.ok())
    return Status::Internal(
        fmt::format("the stored metadata of stream '{}' (version {}) does not "
                    "parse: {}",
                    stream.substr(0, 64), event.version.value(), metadata.status().message()));
  return StoredStreamMetadata{std::move(*metadata), event.version};
}

Result<StreamVersion> Store::WriteStreamMetadata(std::string_view stream,
                                                 const StreamMetadata& metadata,
                                                 Expected expected) {
  if (Status s = CheckDescribedStream(stream); !s.ok()) return s;
  // Through the parser, so that what is stored is what a read accepts
  // (custom must be an object, the numbers in range).
  auto checked = StreamMetadataFromJson(StreamMetadataToJson(metadata));
  if (!checked.ok()) return checked.status();
  EventData event;
  event.type = std::string(kMetadataEventType);
  event.data = StreamMetadataToJson(*checked);
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{MetadataStreamOf(stream), expected, {std::move(event)}});
  CommitOptions options;
  options.allow_reserved = true;
  auto result = Commit(std::move(appends), options);
  if (!result.ok()) return result.status();
  return result->appends.front().last_version;
}

}  // namespace indelible
