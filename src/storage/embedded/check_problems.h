// What `indelible check` found: the first problems, word for word, and how
// many there were. Shared by the checks of both formats (check.cc,
// check_v1.cc).
#pragma once

#include <fmt/format.h>
#include <rocksdb/db.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/status.h"
#include "indelible/types.h"

namespace indelible::storage::embedded {

class Problems {
 public:
  static constexpr std::size_t kMax = 20;

  void Add(std::string problem) {
    if (list_.size() < kMax) list_.push_back(std::move(problem));
    ++count_;
  }
  bool full() const { return count_ >= kMax; }
  Status ToStatus() const {
    if (count_ == 0) return Status::Ok();
    std::string message = fmt::format("{} problem(s) found:", count_);
    for (const auto& p : list_) message += "\n  - " + p;
    if (count_ > list_.size()) message += fmt::format("\n  ... and {} more", count_ - list_.size());
    return Status::Internal(message);
  }

 private:
  std::vector<std::string> list_;
  std::size_t count_ = 0;
};

// The default family's records, the same in both formats: every checkpoint
// record sound, every state record sound and covering no version past its
// stream's head (`head_version`: nullopt when the stream has none), read
// with `read` from `default_family`.
void CheckNamedRecords(
    rocksdb::DB* db, rocksdb::ColumnFamilyHandle* default_family, const rocksdb::ReadOptions& read,
    const std::function<std::optional<StreamVersion>(std::string_view stream)>& head_version,
    Problems* problems);

}  // namespace indelible::storage::embedded
