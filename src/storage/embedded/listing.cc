// ListStreamRange of the embedded engine: the stream index (`appends`,
// keyed by name + 0x00 + first version, docs/FORMAT.md) is ordered by name,
// so a listing seeks to the first name of the range and then from name to
// name, one seek each, past every append of the last one. Names hold no
// control bytes, so `name + 0x01` sorts after all of name's entries and
// before any longer name. A stream's last entry is its head.
#include <fmt/format.h>

#include "core/text.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {

Result<std::vector<StreamInfo>> EmbeddedStore::ListStreamRange(std::string_view prefix,
                                                               std::string_view after,
                                                               std::size_t limit) {
  // One view for the whole page, so the heads read match the index walked.
  const View view = ReadView();
  const rocksdb::ReadOptions read = ReadAt(view);
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, appends()));
  std::string target = after < prefix ? std::string(prefix) : std::string(after) + '\x01';
  std::vector<StreamInfo> found;
  for (it->Seek(target); it->Valid() && found.size() < limit; it->Seek(target)) {
    std::string_view name;
    std::int64_t version = 0;
    if (!DecodeStreamVersionKey(ToView(it->key()), &name, &version))
      return Status::Internal("a stream index key is corrupt; run indelible check");
    if (!name.starts_with(prefix)) break;
    // The stream's last append (its head) with the same iterator.
    const std::string stream(name);
    it->SeekForPrev(StreamEndKey(stream));
    auto entry =
        it->Valid() && DecodeStreamVersionKey(ToView(it->key()), &name, &version) && name == stream
            ? DecodeAppendEntry(ToView(it->key()), ToView(it->value()), false)
            : std::nullopt;
    if (!entry)
      return it->status().ok() ? Status::Internal(fmt::format(
                                     "the last index entry of stream '{}' is corrupt (run "
                                     "`indelible check`)",
                                     Printable(stream)))
                               : FromRocks(it->status(), "listing streams");
    const StreamHead head = HeadAfter(StreamVersion(version), *entry);
    // The last event's timestamp: one point read of the log.
    std::string record;
    const std::string position_key = PositionKey(head.position);
    rocksdb::Status s = db_->Get(read, log(), position_key, &record);
    if (!s.ok())
      return FromRocks(s, fmt::format("reading the last event of '{}'", Printable(stream)));
    EventView last;
    if (std::string why = DecodeEvent(position_key, record, false, &last); !why.empty())
      return Status::Internal(
          fmt::format("event at position {} is corrupt: {}", head.position.value(), why));
    found.push_back(
        StreamInfo{stream, head.version, head.position, head.deleted, last.timestamp_ms});
    target = found.back().stream + '\x01';
  }
  if (!it->status().ok()) return FromRocks(it->status(), "listing streams");
  return found;
}

}  // namespace indelible::storage::embedded
