// The consumer groups this server has open: one ConsumerGroup object per
// group, opened on first use and shared by every request for it, so the
// consumers behind many HTTP clients share one window and one checkpoint.
//
// Concurrency: every method is safe from any thread. The groups outlive
// every request (they are dropped only by Forget, after a delete, or with
// the registry).
#pragma once

#include <indelible/consumer_group.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace indelible::server {

class ConsumerRegistry {
 public:
  explicit ConsumerRegistry(Store& store) : store_(store) {}

  // The open group, opening it if needed; not_found if it was never created.
  Result<std::shared_ptr<ConsumerGroup>> Get(const std::string& name);
  // After a delete: the next Get reopens (and finds nothing).
  void Forget(const std::string& name);
  // Each open group, in name order (for /metrics).
  void ForEach(const std::function<void(ConsumerGroup&)>& fn);

 private:
  Store& store_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<ConsumerGroup>> open_;  // GUARDED_BY(mu_)
};

}  // namespace indelible::server
