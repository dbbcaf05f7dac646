// `indelible check` of a folder still in format 1 (format_v1.h), read-only:
// the checks format 1 always had, so a folder can be verified before its
// upgrade as well as after.
#include "storage/embedded/check_v1.h"

#include <fmt/format.h>

#include "core/text.h"
#include "storage/embedded/check_problems.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"
#include "storage/embedded/format_v1.h"

namespace indelible::storage::embedded {

Status CheckV1(rocksdb::DB* db, const V1Families& families, std::uint64_t last,
               const ProgressFn& progress) {
  Problems problems;
  last = std::max<std::uint64_t>(last, 1);
  rocksdb::ReadOptions read;
  read.verify_checksums = true;
  read.readahead_size = 4 * 1024 * 1024;
  read.total_order_seek = true;  // heads and ids have hash memtables

  // 1. The log: contiguous positions, sound records, and for each event the
  //    id and stream index entries that must point back at it.
  std::uint64_t expected = 1;
  std::uint64_t events = 0;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(read, families.log));
  std::string value;
  for (it->SeekToFirst(); it->Valid() && !problems.full(); it->Next()) {
    std::string_view key = ToView(it->key());
    const Position position = DecodePositionKey(key);
    if (key.size() != 8) {
      problems.Add("log has a key that is not a position");
      continue;
    }
    if (position.value() != expected)
      problems.Add(fmt::format("log jumps from position {} to {}", expected - 1, position.value()));
    expected = position.value() + 1;
    ++events;
    EventView view;
    if (std::string why = DecodeEvent(key, ToView(it->value()), true, &view); !why.empty()) {
      problems.Add(fmt::format("event at position {}: {}", position.value(), why));
      continue;
    }
    rocksdb::Status s = db->Get(read, families.ids, ToSlice(IdKey(view.id)), &value);
    auto stored = s.ok() ? v1::DecodeId(IdKey(view.id), value, true) : std::nullopt;
    if (!stored || stored->position != position)
      problems.Add(fmt::format("event {} at position {} has no sound id index entry",
                               view.id.ToString(), position.value()));
    const std::string stream_key = StreamVersionKey(view.stream, view.version.value());
    s = db->Get(read, families.streams, stream_key, &value);
    auto indexed = s.ok() ? v1::DecodeStreamEntry(stream_key, value, true) : std::nullopt;
    if (!indexed || indexed->position != position)
      problems.Add(
          fmt::format("stream '{}' version {} (position {}) is missing from the stream "
                      "index or points elsewhere",
                      Printable(view.stream), view.version.value(), position.value()));
    if (progress && events % 65536 == 0) progress(events, last * 2);
  }
  if (!it->status().ok()) problems.Add("reading the log: " + it->status().ToString());
  // (Contiguity from 1 was checked above; `last` is only the progress
  // estimate, since commits may land while a live store is checked.)

  // 2. The stream index: versions gapless from 0, heads agreeing with the
  //    last entry of each stream.
  std::uint64_t entries = 0;
  std::uint64_t stream_count = 0;
  std::string current;
  std::int64_t next_version = 0;
  Position last_position;
  std::uint32_t run_left = 0;  // entries the previous entry's run still promises
  auto close_stream = [&] {
    if (current.empty()) return;
    ++stream_count;
    rocksdb::Status s = db->Get(read, families.heads, current, &value);
    auto head = s.ok() ? v1::DecodeHead(current, value, true) : std::nullopt;
    if (!head || head->version.value() != next_version - 1 || head->position != last_position)
      problems.Add(
          fmt::format("stream '{}': head record missing or not at its last event "
                      "(version {})",
                      Printable(current), next_version - 1));
  };
  it.reset(db->NewIterator(read, families.streams));
  for (it->SeekToFirst(); it->Valid() && !problems.full(); it->Next()) {
    std::string_view stream;
    std::int64_t version = 0;
    if (!DecodeStreamVersionKey(ToView(it->key()), &stream, &version)) {
      problems.Add("stream index has a malformed key");
      continue;
    }
    if (stream != current) {
      close_stream();
      current = std::string(stream);
      next_version = 0;
      run_left = 0;
    }
    if (version != next_version)
      problems.Add(fmt::format("stream '{}' jumps from version {} to {}", Printable(stream),
                               next_version - 1, version));
    const bool in_run = version == next_version && run_left > 0;
    next_version = version + 1;
    auto entry = v1::DecodeStreamEntry(ToView(it->key()), ToView(it->value()), true);
    if (!entry) {
      problems.Add(fmt::format("stream '{}' version {}: index entry fails its checksum",
                               Printable(stream), version));
    } else {
      // Within an append's run, each entry's run is one shorter and its
      // position one further.
      if (in_run && (entry->run != run_left || entry->position != last_position.next()))
        problems.Add(
            fmt::format("stream '{}' version {}: index run does not continue the "
                        "previous entry's",
                        Printable(stream), version));
      last_position = entry->position;
      run_left = entry->run - 1;
    }
    if (++entries % 65536 == 0 && progress) progress(last + entries, last * 2);
  }
  close_stream();
  if (!problems.full() && entries != events)
    problems.Add(fmt::format("stream index has {} entries for {} events", entries, events));

  // 3. Counts of the other two families.
  std::uint64_t head_count = 0;
  it.reset(db->NewIterator(read, families.heads));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++head_count;
  if (!problems.full() && head_count != stream_count)
    problems.Add(fmt::format("{} head records for {} streams", head_count, stream_count));
  std::uint64_t id_count = 0;
  it.reset(db->NewIterator(read, families.ids));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++id_count;
  if (!problems.full() && id_count != events)
    problems.Add(fmt::format("{} id records for {} events", id_count, events));
  // 4, 5. Checkpoint and state records.
  CheckNamedRecords(
      db, families.default_family, read,
      [&](std::string_view stream) -> std::optional<StreamVersion> {
        std::string head_value;
        if (!db->Get(read, families.heads, ToSlice(stream), &head_value).ok()) return std::nullopt;
        auto head = v1::DecodeHead(stream, head_value, false);
        return head ? std::optional(head->version) : std::nullopt;
      },
      &problems);
  if (progress) progress(last * 2, last * 2);
  return problems.ToStatus();
}

}  // namespace indelible::storage::embedded
