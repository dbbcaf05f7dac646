// `indelible check` of a data folder still in format 1 (check_v1.cc).
#pragma once

#include <rocksdb/db.h>

#include <cstdint>

#include "indelible/store.h"

namespace indelible::storage::embedded {

// Format 1's column families, opened (read-only) by the caller.
struct V1Families {
  rocksdb::ColumnFamilyHandle* default_family = nullptr;
  rocksdb::ColumnFamilyHandle* log = nullptr;
  rocksdb::ColumnFamilyHandle* streams = nullptr;
  rocksdb::ColumnFamilyHandle* heads = nullptr;
  rocksdb::ColumnFamilyHandle* ids = nullptr;
};

// `last`: the log's last position (the progress total).
Status CheckV1(rocksdb::DB* db, const V1Families& families, std::uint64_t last,
               const ProgressFn& progress);

}  // namespace indelible::storage::embedded
