// EmbeddedStore's checkpoint records: keys "checkpoint/NAME" in the default
// column family (docs/FORMAT.md), written with the store's durability.
#include "store/records.h"

#include <rocksdb/db.h>

#include <memory>

#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"

namespace indelible::storage::embedded {

Status EmbeddedStore::SaveRecord(std::string_view name, std::string_view value) {
  if (follower()) return Status::Invalid("store", "this store was opened as a read-only follower");
  if (Status s = store::ValidateRecord(name, value); !s.ok()) return s;
  const std::string key = CheckpointKey(name);
  const std::string record = EncodeCheckpoint(key, value);
  return WriteCheckpoint(key, &record);
}

Result<std::optional<std::string>> EmbeddedStore::LoadRecord(std::string_view name) {
  if (Status s = store::ValidateRecordName(name); !s.ok()) return s;
  const std::string key = CheckpointKey(name);
  std::string value;
  const View view = ReadView();
  rocksdb::Status s = db_->Get(ReadAt(view), db_->DefaultColumnFamily(), ToSlice(key), &value);
  if (s.IsNotFound()) return std::optional<std::string>();
  if (!s.ok()) return FromRocks(s, "loading a checkpoint");
  auto payload = DecodeCheckpoint(key, value, true);
  if (!payload)
    return Status::Internal("a checkpoint record fails its checksum (run `indelible check`)");
  return std::optional<std::string>(*payload);
}

Result<std::vector<std::pair<std::string, std::string>>> EmbeddedStore::ListRecords(
    std::string_view prefix) {
  const std::string start = CheckpointKey(prefix);
  std::vector<std::pair<std::string, std::string>> found;
  const View view = ReadView();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ReadAt(view), db_->DefaultColumnFamily()));
  for (it->Seek(ToSlice(start)); it->Valid() && ToView(it->key()).starts_with(start); it->Next()) {
    auto payload = DecodeCheckpoint(ToView(it->key()), ToView(it->value()), true);
    if (!payload)
      return Status::Internal("a checkpoint record fails its checksum (run `indelible check`)");
    found.emplace_back(std::string(ToView(it->key()).substr(kCheckpointKeyPrefix.size())),
                       std::string(*payload));
  }
  if (!it->status().ok()) return FromRocks(it->status(), "listing checkpoints");
  return found;
}

Status EmbeddedStore::DeleteRecord(std::string_view name) {
  if (follower()) return Status::Invalid("store", "this store was opened as a read-only follower");
  if (Status s = store::ValidateRecordName(name); !s.ok()) return s;
  return WriteCheckpoint(CheckpointKey(name), nullptr);
}

}  // namespace indelible::storage::embedded
