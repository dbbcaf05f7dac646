// Store::Erase: a hard delete (docs/RETENTION.md). The tombstone and the
// metadata that hides everything before it are one commit, so no reader
// ever sees the stream tombstoned with its events still in $all, nor the
// events hidden without a tombstone telling read models why.
#include <fmt/format.h>

#include "indelible/store.h"

namespace indelible {

namespace {

// A concurrent append or metadata write between the reads and the commit
// moves the versions the commit expects: read again, a few times.
constexpr int kAttempts = 8;

// A stream already deleted takes no second tombstone: its metadata alone
// hides everything before the tombstone it has (the tombstone stays, the
// last event, telling read models the stream is gone), and the events are
// removed as Erase removes them. Answers with the tombstone's append.
Result<AppendResult> HideDeletedLife(Store& store, std::string_view stream, const StreamHead& head,
                                     Expected expected, const StoredStreamMetadata& metadata) {
  if (expected.kind() == Expected::Kind::kExactly && expected.version() != head.version)
    return Status::Conflict(fmt::format("stream '{}' is at version {}, expected {}", stream,
                                        head.version.value(), expected.version().value()),
                            head.version.value(), true, std::string(stream));
  StreamMetadata hiding = metadata.metadata;
  hiding.truncate_before = head.version;
  auto written = store.WriteStreamMetadata(
      stream, hiding,
      metadata.version ? Expected::exactly(*metadata.version) : Expected::no_stream());
  if (!written.ok()) return written.status();
  AppendResult result;
  result.stream = std::string(stream);
  result.first_version = result.last_version = head.version;
  result.first_position = result.position = head.position;
  result.replayed = true;  // the tombstone was written before
  return result;
}

}  // namespace

Result<AppendResult> Store::Erase(std::string_view stream, Expected expected) {
  if (expected.kind() == Expected::Kind::kNoStream)
    return Status::Invalid("expected", "erase expects any, exists or a version, not no_stream");
  if (Status s = ValidateStreamName(stream); !s.ok()) return s;
  for (int attempt = 0;; ++attempt) {
    auto head = Head(stream);
    if (!head.ok()) return head.status();
    if (expected.kind() == Expected::Kind::kExists && head->deleted)
      return Status::Conflict(
          fmt::format("stream '{}' is deleted; erase it with expected any or its version", stream),
          head->version.value(), true, std::string(stream));
    auto metadata = ReadStreamMetadata(stream);
    if (!metadata.ok()) return metadata.status();
    if (head->deleted) {
      auto hidden = HideDeletedLife(*this, stream, *head, expected, *metadata);
      if (hidden.ok())
        (void)RemoveEvents({ScavengeCut{std::string(stream), head->version}}, nullptr,
                           Compaction::kNone);
      if (hidden.ok() || attempt + 1 == kAttempts ||
          hidden.status().code() != ErrorCode::kConflict ||
          expected.kind() == Expected::Kind::kExactly)
        return hidden;
      continue;
    }

    const Expected on_stream =
        expected.kind() == Expected::Kind::kExactly ? expected : Expected::exactly(head->version);
    const std::int64_t tombstone_version =
        (expected.kind() == Expected::Kind::kExactly ? expected.version().value()
                                                     : head->version.value()) +
        1;
    StreamMetadata hiding = metadata->metadata;
    hiding.truncate_before = StreamVersion(tombstone_version);

    EventData tombstone;
    tombstone.type = std::string(kDeletedEventType);
    tombstone.data = R"({"erased":true})";
    EventData settings;
    settings.type = std::string(kMetadataEventType);
    settings.data = StreamMetadataToJson(hiding);
    std::vector<AppendRequest> appends;
    appends.push_back(AppendRequest{std::string(stream), on_stream, {std::move(tombstone)}});
    appends.push_back(AppendRequest{
        MetadataStreamOf(stream),
        metadata->version ? Expected::exactly(*metadata->version) : Expected::no_stream(),
        {std::move(settings)}});
    CommitOptions options;
    options.allow_reserved = true;
    auto committed = Commit(std::move(appends), options);
    if (!committed.ok()) {
      const bool moved = committed.status().code() == ErrorCode::kConflict &&
                         expected.kind() != Expected::Kind::kExactly;
      if (moved && attempt + 1 < kAttempts) continue;
      return committed.status();
    }
    // The events below the tombstone go now where the backend can remove
    // them; their bytes leave the files at the next scavenge's compaction.
    // Elsewhere they stay hidden until a scavenge can.
    (void)RemoveEvents({ScavengeCut{std::string(stream), StreamVersion(tombstone_version)}},
                       nullptr, Compaction::kNone);
    return std::move(committed->appends.front());
  }
}

}  // namespace indelible
