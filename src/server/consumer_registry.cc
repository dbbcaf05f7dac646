#include "server/consumer_registry.h"

namespace indelible::server {

Result<std::shared_ptr<ConsumerGroup>> ConsumerRegistry::Get(const std::string& name) {
  std::lock_guard lock(mu_);
  if (auto it = open_.find(name); it != open_.end()) return it->second;
  auto opened = ConsumerGroup::Open(store_, name);
  if (!opened.ok()) return opened.status();
  std::shared_ptr<ConsumerGroup> group = std::move(*opened);
  open_[name] = group;
  return group;
}

void ConsumerRegistry::Forget(const std::string& name) {
  std::shared_ptr<ConsumerGroup> dropped;
  {
    std::lock_guard lock(mu_);
    auto it = open_.find(name);
    if (it == open_.end()) return;
    dropped = std::move(it->second);
    open_.erase(it);
  }
}

void ConsumerRegistry::ForEach(const std::function<void(ConsumerGroup&)>& fn) {
  std::vector<std::shared_ptr<ConsumerGroup>> groups;
  {
    std::lock_guard lock(mu_);
    for (auto& [name, group] : open_) groups.push_back(group);
  }
  for (auto& group : groups) fn(*group);
}

}  // namespace indelible::server
