#include "storage/dynamodb/head_cache.h"

namespace indelible::dynamodb {

std::optional<StreamView> HeadCache::Get(std::string_view stream) {
  if (capacity_ == 0) return std::nullopt;
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(stream));
  if (it == entries_.end()) return std::nullopt;
  uses_.splice(uses_.begin(), uses_, it->second.use);
  return it->second.view;
}

void HeadCache::Put(const std::string& stream, const StreamView& view) {
  if (capacity_ == 0 || view.legacy || !view.exists) return;
  MutexLock lock(&mu_);
  auto it = entries_.find(stream);
  if (it != entries_.end()) {
    uses_.splice(uses_.begin(), uses_, it->second.use);
    if (it->second.view.head.version.value() <= view.head.version.value()) it->second.view = view;
    return;
  }
  uses_.push_front(stream);
  entries_.emplace(stream, Entry{view, uses_.begin()});
  while (entries_.size() > capacity_) {
    entries_.erase(uses_.back());
    uses_.pop_back();
  }
}

void HeadCache::Forget(std::string_view stream) {
  MutexLock lock(&mu_);
  auto it = entries_.find(std::string(stream));
  if (it == entries_.end()) return;
  uses_.erase(it->second.use);
  entries_.erase(it);
}

}  // namespace indelible::dynamodb
