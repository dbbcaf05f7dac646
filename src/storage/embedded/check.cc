// `indelible check` of a format 4 store (or 3 or 2, read by a follower): verifies every record's
// checksum and every index against the log, with memory that does not grow with the store. (A
// folder still in format 1: check_v1.cc.)
#include <fmt/format.h>

#include "core/text.h"
#include "storage/embedded/check_problems.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {

namespace {

// The first kept version of a scavenged stream (0 when none was removed).
std::int64_t ScavengedFrom(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* default_family,
                           const rocksdb::ReadOptions& read, std::string_view stream,
                           Problems* problems) {
  const std::string key = ScavengedKey(stream);
  std::string value;
  if (!db->Get(read, default_family, ToSlice(key), &value).ok()) return 0;
  auto kept = DecodeScavenged(key, value);
  if (!kept) {
    problems->Add(
        fmt::format("the scavenge record of stream '{}' fails its checksum", Printable(stream)));
    return 0;
  }
  return kept->value();
}

}  // namespace

Status EmbeddedStore::Check(const ProgressFn& progress) {
  Problems problems;
  const std::uint64_t last = std::max<std::uint64_t>(LastPosition().value(), 1);
  const View snapshot = ConsistentView();
  rocksdb::ReadOptions read = ReadAt(snapshot);
  read.verify_checksums = true;
  read.readahead_size = 4 * 1024 * 1024;
  read.total_order_seek = true;  // event_ids has a hash memtable

  // 0. How far the id index goes (id_indexer.h): every event up to there
  //    has an entry; a running store's last few may not yet.
  std::string value;
  std::uint64_t indexed = 0;
  if (rocksdb::Status s = db_->Get(read, families_[0], ToSlice(kIdsIndexedKey), &value); s.ok()) {
    auto through = DecodeIdsIndexed(value);
    if (!through) problems.Add("the id index's progress record fails its checksum");
    indexed = through ? through->value() : 0;
  } else if (!follower()) {
    // (A follower may read a format 2 folder, whose index is whole.)
    problems.Add("the id index's progress record is missing");
  } else {
    indexed = UINT64_MAX;
  }

  // What scavenges removed (scavenge.cc): the log's gaps must add up to it.
  ScavengeTotals removed;
  if (rocksdb::Status s = db_->Get(read, families_[0], ToSlice(kScavengeTotalsKey), &value);
      s.ok()) {
    auto totals = DecodeScavengeTotals(value);
    if (!totals) problems.Add("the scavenge totals record fails its checksum");
    removed = totals.value_or(ScavengeTotals{});
  }

  // 1. The log: positions rising from 1, with no gaps but those scavenges
  //    left; sound records, and for each event up to the id index's
  //    progress an id entry that points back at it.
  std::uint64_t gaps = 0;
  std::uint64_t expected = 1;
  std::uint64_t events = 0;
  std::uint64_t with_id = 0;
  std::uint64_t tag_entries = 0;  // the tag index entries the events call for
  std::vector<std::string> tags;
  rocksdb::ColumnFamilyHandle* const tags_family = this->tags();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, log()));
  for (it->SeekToFirst(); it->Valid() && !problems.full(); it->Next()) {
    std::string_view key = ToView(it->key());
    const Position position = DecodePositionKey(key);
    if (key.size() != 8) {
      problems.Add("log has a key that is not a position");
      continue;
    }
    if (position.value() < expected)
      problems.Add(
          fmt::format("log goes back from position {} to {}", expected - 1, position.value()));
    else
      gaps += position.value() - expected;
    expected = position.value() + 1;
    ++events;
    EventView view;
    if (std::string why = DecodeEvent(key, ToView(it->value()), true, &view, &tags); !why.empty()) {
      problems.Add(fmt::format("event at position {}: {}", position.value(), why));
      continue;
    }
    // Each tag's index entry, naming the event's type.
    for (const std::string& tag : tags) {
      ++tag_entries;
      const std::string tag_key = TagKey(tag, position);
      rocksdb::Status found = tags_family ? db_->Get(read, tags_family, ToSlice(tag_key), &value)
                                          : rocksdb::Status::NotFound();
      auto type = found.ok() ? DecodeTagEntry(tag_key, value, true) : std::nullopt;
      if (!type || *type != view.type)
        problems.Add(fmt::format("event at position {} has no sound tag index entry for '{}'",
                                 position.value(), Printable(tag)));
    }
    rocksdb::Status s = db_->Get(read, event_ids(), ToSlice(IdKey(view.id)), &value);
    auto entry = s.ok() ? DecodeEventId(IdKey(view.id), value, true) : std::nullopt;
    if (entry == position)
      ++with_id;
    else if (position.value() <= indexed || entry)
      problems.Add(fmt::format("event {} at position {} has no sound id index entry",
                               view.id.ToString(), position.value()));
    if (progress && events % 65536 == 0) progress(events, last * 2);
  }
  if (!it->status().ok()) problems.Add("reading the log: " + it->status().ToString());
  if (gaps != removed.events)
    problems.Add(fmt::format("the log is missing {} positions; scavenges removed {} events", gaps,
                             removed.events));
  if (indexed != UINT64_MAX && indexed > events + removed.events)
    problems.Add(
        fmt::format("the id index's progress record says position {}, past the log's "
                    "end ({})",
                    indexed, events + removed.events));
  // (The gaps were checked above; `last` is only the progress estimate,
  // since commits may land while a live store is checked.)

  // 2. The stream index: each stream's appends cover its versions from 0
  //    without gap or overlap; each append's events are in the log, at
  //    consecutive positions, with its stream and versions; the head fields
  //    follow the rules the engine decides them by (a tombstone is one
  //    `$deleted` event, the append after it starts a new life). With the
  //    counts equal, every event of the log is covered exactly once.
  std::uint64_t covered = 0;
  std::string current;
  std::int64_t next_version = 0;
  StreamVersion life_first(0);
  bool deleted = false;
  std::unique_ptr<rocksdb::Iterator> events_of(db_->NewIterator(read, log()));
  it.reset(db_->NewIterator(read, appends()));
  for (it->SeekToFirst(); it->Valid() && !problems.full(); it->Next()) {
    std::string_view stream;
    std::int64_t version = 0;
    if (!DecodeStreamVersionKey(ToView(it->key()), &stream, &version)) {
      problems.Add("stream index has a malformed key");
      continue;
    }
    if (stream != current) {
      current = std::string(stream);
      // A scavenged stream starts at its first kept version, which its
      // "scavenged/" record names.
      next_version = ScavengedFrom(db_, families_[0], read, stream, &problems);
      life_first = StreamVersion(0);
      deleted = false;
      if (next_version > 0 && version == next_version) {
        auto first = DecodeAppendEntry(ToView(it->key()), ToView(it->value()), false);
        if (first) life_first = first->life_first_version;
      }
    }
    if (version != next_version)
      problems.Add(next_version == 0 ? fmt::format("stream '{}' starts at version {}, not 0",
                                                   Printable(stream), version)
                                     : fmt::format("stream '{}' jumps from version {} to {}",
                                                   Printable(stream), next_version - 1, version));
    auto entry = DecodeAppendEntry(ToView(it->key()), ToView(it->value()), true);
    if (!entry) {
      problems.Add(fmt::format("stream '{}' version {}: index entry fails its checksum",
                               Printable(stream), version));
      next_version = version + 1;
      continue;
    }
    next_version = version + entry->count;
    covered += entry->count;
    if (version > 0 && deleted) life_first = StreamVersion(version);
    // Its events, one seek and then steps.
    bool tombstone = false;
    events_of->Seek(PositionKey(entry->first_position));
    for (std::uint32_t i = 0; i < entry->count; ++i, events_of->Next()) {
      const Position position(entry->first_position.value() + i);
      EventView event;
      if (!events_of->Valid() || DecodePositionKey(ToView(events_of->key())) != position ||
          !DecodeEvent(ToView(events_of->key()), ToView(events_of->value()), false, &event)
               .empty() ||
          event.stream != stream || event.version.value() != version + i) {
        problems.Add(fmt::format(
            "stream '{}' version {}: the index says position {}, which holds another event "
            "or none",
            Printable(stream), version + i, position.value()));
        break;
      }
      tombstone = entry->count == 1 && event.type == kDeletedEventType;
    }
    deleted = tombstone;
    if (entry->deleted != deleted || entry->life_first_version != life_first)
      problems.Add(fmt::format(
          "stream '{}' version {}: index entry says life from {}{}, its events say from {}{}",
          Printable(stream), version, entry->life_first_version.value(),
          entry->deleted ? " (deleted)" : "", life_first.value(), deleted ? " (deleted)" : ""));
    if (progress) progress(last + covered, last * 2);
  }
  if (!it->status().ok()) problems.Add("reading the stream index: " + it->status().ToString());
  if (!problems.full() && covered != events)
    problems.Add(fmt::format("stream index covers {} events of {}", covered, events));

  // 3. The id index: nothing but the entries found above.
  std::uint64_t id_count = 0;
  it.reset(db_->NewIterator(read, event_ids()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++id_count;
  if (!problems.full() && id_count != with_id)
    problems.Add(fmt::format("{} id records for {} indexed events", id_count, with_id));
  // 4. The tag index: nothing but the entries found above.
  if (tags_family != nullptr) {
    std::uint64_t tag_count = 0;
    it.reset(db_->NewIterator(read, tags_family));
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++tag_count;
    if (!problems.full() && tag_count != tag_entries)
      problems.Add(
          fmt::format("{} tag index entries for {} tags of events", tag_count, tag_entries));
  }
  // 5, 6. Checkpoint and state records.
  CheckNamedRecords(
      db_, families_[0], read,
      [&](std::string_view stream) -> std::optional<StreamVersion> {
        auto head = ReadHead(read, stream);
        if (!head.ok() || !head->has_value()) return std::nullopt;
        return (*head)->version;
      },
      &problems);
  if (progress) progress(last * 2, last * 2);
  return problems.ToStatus();
}

void CheckNamedRecords(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* default_family, const rocksdb::ReadOptions& read,
    const std::function<std::optional<StreamVersion>(std::string_view stream)>& head_version,
    Problems* problems) {
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(read, default_family));
  // Checkpoint records (consumer groups): each sound.
  for (it->Seek(ToSlice(kCheckpointKeyPrefix));
       it->Valid() && ToView(it->key()).starts_with(kCheckpointKeyPrefix) && !problems->full();
       it->Next()) {
    if (!DecodeCheckpoint(ToView(it->key()), ToView(it->value()), true))
      problems->Add(fmt::format("checkpoint record '{}' fails its checksum",
                                Printable(ToView(it->key()).substr(kCheckpointKeyPrefix.size()))));
  }
  // State records: each sound, and covering an event its stream has.
  for (it->Seek(ToSlice(kStateKeyPrefix));
       it->Valid() && ToView(it->key()).starts_with(kStateKeyPrefix) && !problems->full();
       it->Next()) {
    const std::string_view stream = ToView(it->key()).substr(kStateKeyPrefix.size());
    auto record = DecodeState(ToView(it->key()), ToView(it->value()));
    if (!record) {
      problems->Add(
          fmt::format("state record of stream '{}' fails its checksum", Printable(stream)));
      continue;
    }
    const std::optional<StreamVersion> head = head_version(stream);
    if (!head || *head < record->version)
      problems->Add(
          fmt::format("state record of stream '{}' covers version {}, past the stream's "
                      "head",
                      Printable(stream), record->version.value()));
  }
}

}  // namespace indelible::storage::embedded
