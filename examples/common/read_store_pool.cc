#include "read_store_pool.h"

namespace examples {

using indelible::ReadStore;
using indelible::Result;
using indelible::Status;

ReadStorePool::ReadStorePool(std::string url, std::size_t size, std::chrono::milliseconds wait)
    : url_(std::move(url)), size_(size), wait_(wait) {}

Result<std::vector<indelible::SqlRow>> ReadStorePool::Query(
    std::string_view sql, const std::vector<indelible::SqlValue>& params) {
  auto db = Acquire();
  if (!db.ok()) return db.status();
  auto rows = (*db)->Query(sql, params);
  // The connection may be what failed (the server went away): it is
  // replaced by a fresh one on a later query. Other errors leave it sound.
  if (!rows.ok() && rows.status().code() == indelible::ErrorCode::kUnavailable) db->reset();
  Release(std::move(*db));
  return rows;
}

Result<std::unique_ptr<ReadStore>> ReadStorePool::Acquire() {
  {
    std::unique_lock lock(mu_);
    if (!released_.wait_for(lock, wait_, [&] { return !idle_.empty() || open_ < size_; }))
      return Status::Unavailable("all " + std::to_string(size_) +
                                 " read-store connections stayed busy; retry");
    if (!idle_.empty()) {
      std::unique_ptr<ReadStore> db = std::move(idle_.back());
      idle_.pop_back();
      return db;
    }
    ++open_;  // a slot for the connection opened below, outside the lock
  }
  auto opened = ReadStore::Open(url_);
  if (!opened.ok()) Release(nullptr);
  return opened;
}

// A null `db` gives its slot back: the next Acquire opens a new one.
void ReadStorePool::Release(std::unique_ptr<ReadStore> db) {
  {
    std::lock_guard lock(mu_);
    if (db)
      idle_.push_back(std::move(db));
    else
      --open_;
  }
  released_.notify_one();
}

}  // namespace examples
