// The data folder as a whole, closed: which format it is in (a read-only
// open reads its marker), `check` of a format 1 folder (read-only), and the
// upgrade to the current format.
#include <fmt/format.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <filesystem>

#include "storage/embedded/check_v1.h"
#include "storage/embedded/embedded_store.h"
#include "storage/embedded/engine.h"
#include "storage/embedded/format.h"
#include "storage/embedded/format_v1.h"

namespace indelible::storage {
namespace {

using embedded::FromRocks;
using embedded::ToSlice;
using embedded::ToView;

// A read-only RocksDB of every family the folder has, closed on scope exit.
// Read-only opens take no lock: a running server may hold the folder.
class ReadOnlyFolder {
 public:
  ~ReadOnlyFolder() {
    for (auto* h : handles_) (void)db_->DestroyColumnFamilyHandle(h);
    delete db_;
  }
  Status Open(const std::string& path) {
    rocksdb::DBOptions options;
    if (!rocksdb::DB::ListColumnFamilies(options, path, &names_).ok())
      return Status::NotFound(fmt::format("'{}' holds no data folder", path));
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& name : names_) families.emplace_back(name, rocksdb::ColumnFamilyOptions());
    return FromRocks(rocksdb::DB::OpenForReadOnly(options, path, families, &handles_, &db_),
                     fmt::format("opening data folder '{}' to read", path));
  }
  rocksdb::DB* db() const { return db_; }
  rocksdb::ColumnFamilyHandle* family(std::string_view name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return handles_[i];
    return nullptr;
  }
  // The format marker's value ("" when there is none).
  Result<std::string> Marker() const {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), family(rocksdb::kDefaultColumnFamilyName),
                                 ToSlice(embedded::kFormatKey), &value);
    if (s.IsNotFound()) return std::string();
    if (!s.ok()) return FromRocks(s, "reading the format marker");
    return value;
  }

 private:
  std::vector<std::string> names_;
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  rocksdb::DB* db_ = nullptr;
};

}  // namespace

std::optional<std::string> EmbeddedFolderOfUrl(std::string_view url) {
  if (!url.starts_with("file:")) return std::nullopt;
  url.remove_prefix(5);
  if (url.starts_with("//")) url.remove_prefix(2);
  return std::string(url);
}

Result<int> EmbeddedFolderFormat(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) return 0;
  ReadOnlyFolder folder;
  if (Status s = folder.Open(path); !s.ok()) return s;
  auto marker = folder.Marker();
  if (!marker.ok()) return marker.status();
  if (marker->empty()) return 0;
  if (*marker == embedded::v1::kFormatValue) return 1;
  if (*marker == embedded::kFormatValueV2) return 2;
  if (*marker == embedded::kFormatValueV3) return 3;
  if (*marker == embedded::kFormatValue) return 4;
  return Status::Invalid(
      "data", fmt::format("data folder '{}' has format '{}'; this build reads '{}' and upgrades "
                          "'{}', '{}' and '{}'",
                          path, *marker, embedded::kFormatValue, embedded::kFormatValueV3,
                          embedded::kFormatValueV2, embedded::v1::kFormatValue));
}

Result<bool> EmbeddedFolderIsFormat1(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(path) / "CURRENT", ec)) return false;
  // Formats 2 and 3 have no format 1 family left (an upgrade stopped after
  // its flip aside): their names settle it.
  std::vector<std::string> names;
  if (rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), path, &names).ok()) {
    auto has = [&](std::string_view name) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (!has(embedded::v1::kStreamsFamily) && !has(embedded::v1::kHeadsFamily) &&
        !has(embedded::v1::kIdsFamily))
      return false;
  }
  auto format = EmbeddedFolderFormat(path);
  if (!format.ok()) return format.status();
  return *format == 1;
}

Result<std::uint64_t> CheckEmbeddedFolderV1(const std::string& path, const ProgressFn& progress) {
  ReadOnlyFolder folder;
  if (Status s = folder.Open(path); !s.ok()) return s;
  auto marker = folder.Marker();
  if (!marker.ok()) return marker.status();
  if (*marker != embedded::v1::kFormatValue)
    return Status::Invalid("data", fmt::format("data folder '{}' is not in format 1", path));
  embedded::V1Families families{
      folder.family(rocksdb::kDefaultColumnFamilyName), folder.family(embedded::kLogFamily),
      folder.family(embedded::v1::kStreamsFamily), folder.family(embedded::v1::kHeadsFamily),
      folder.family(embedded::v1::kIdsFamily)};
  if (!families.log || !families.streams || !families.heads || !families.ids)
    return Status::Internal(
        fmt::format("data folder '{}' says format 1 but lacks some of its families", path));
  std::unique_ptr<rocksdb::Iterator> it(
      folder.db()->NewIterator(rocksdb::ReadOptions(), families.log));
  it->SeekToLast();
  const std::uint64_t last =
      it->Valid() ? embedded::DecodePositionKey(ToView(it->key())).value() : 0;
  it.reset();
  if (Status s = embedded::CheckV1(folder.db(), families, last, progress); !s.ok()) return s;
  return last;
}

Status UpgradeEmbeddedStore(const std::string& path, const ProgressFn& progress) {
  StoreOptions options;
  options.create_if_missing = false;
  auto store = embedded::EmbeddedStore::Open(path, options, nullptr, progress);
  return store.ok() ? Status::Ok() : store.status();
}

}  // namespace indelible::storage
