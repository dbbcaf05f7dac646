// A few connections to one read store, shared by the HTTP handler threads:
// a ReadStore is one connection used by one thread at a time, and the
// server runs many handlers at once. Connections are opened on demand up to
// `size`; a query that finds them all busy waits for one (up to `wait`,
// then unavailable) rather than opening more, so a burst of requests cannot
// exhaust a PostgreSQL server's connection slots.
//
// Concurrency: safe for concurrent use.
#pragma once

#include <indelible/read_store.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace examples {

class ReadStorePool {
 public:
  ReadStorePool(std::string url, std::size_t size, std::chrono::milliseconds wait);
  ReadStorePool(const ReadStorePool&) = delete;
  ReadStorePool& operator=(const ReadStorePool&) = delete;

  // One query in a transaction of its own, on a pooled connection.
  indelible::Result<std::vector<indelible::SqlRow>> Query(
      std::string_view sql, const std::vector<indelible::SqlValue>& params = {});

 private:
  indelible::Result<std::unique_ptr<indelible::ReadStore>> Acquire();
  void Release(std::unique_ptr<indelible::ReadStore> db);

  const std::string url_;
  const std::size_t size_;
  const std::chrono::milliseconds wait_;
  std::mutex mu_;
  std::condition_variable released_;
  std::vector<std::unique_ptr<indelible::ReadStore>> idle_;  // GUARDED_BY(mu_)
  std::size_t open_ = 0;  // GUARDED_BY(mu_): idle and lent, and those being opened
};

}  // namespace examples
