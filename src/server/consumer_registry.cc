#include "server/consumer_registry.h"

#include <fmt/format.h>

#include "subscriptions/group_record.h"

namespace indelible::server {

Result<std::shared_ptr<ConsumerGroup>> ConsumerRegistry::Get(const std::string& name) {
  MutexLock lock(&mu_);
  if (deleting_.contains(name))
    return Status::NotFound(fmt::format("consumer group '{}' is being deleted", name));
  if (auto it = open_.find(name); it != open_.end()) {
    // Deleted by someone else in this process (the library): open afresh.
    if (!it->second->deleted()) return it->second;
    open_.erase(it);
  }
  auto opened = ConsumerGroup::Open(store_, name);
  if (!opened.ok()) return opened.status();
  std::shared_ptr<ConsumerGroup> group = std::move(*opened);
  open_[name] = group;
  return group;
}

Result<bool> ConsumerRegistry::Create(const std::string& name, const ConsumerGroupOptions& options,
                                      std::size_t max_groups) {
  MutexLock admin(&admin_mu_);
  auto existed = ConsumerGroup::Exists(store_, name);
  if (!existed.ok()) return existed.status();
  if (!*existed) {
    auto names = ConsumerGroup::List(store_);
    if (!names.ok()) return names.status();
    if (names->size() >= max_groups)
      return Status::TooLarge(
          "group", fmt::format("there are {} consumer groups, the most this server keeps "
                               "(--max-consumer-groups {}); delete one first",
                               names->size(), max_groups));
  }
  if (Status s = ConsumerGroup::Create(store_, name, options); !s.ok()) return s;
  return *existed;
}

Status ConsumerRegistry::Delete(const std::string& name) {
  MutexLock admin(&admin_mu_);
  auto exists = ConsumerGroup::Exists(store_, name);
  if (!exists.ok()) return exists.status();
  if (!*exists)
    return Status::NotFound(fmt::format("no consumer group '{}': nothing to delete", name));
  std::shared_ptr<ConsumerGroup> dropped;  // closed after the lock
  {
    MutexLock lock(&mu_);
    deleting_.insert(name);
    if (auto it = open_.find(name); it != open_.end()) {
      dropped = std::move(it->second);
      open_.erase(it);
    }
  }
  // Closes `dropped` and every object a request still holds, then removes
  // the record; none of them saves it again.
  Status deleted = ConsumerGroup::Delete(store_, name);
  MutexLock lock(&mu_);
  deleting_.erase(name);
  filters_.erase(name);
  return deleted;
}

Result<AllFilter> ConsumerRegistry::Filter(const std::string& name) {
  {
    MutexLock lock(&mu_);
    if (auto it = filters_.find(name); it != filters_.end()) return it->second;
  }
  auto record = store_.LoadRecord(subscriptions::RecordName(name));
  if (!record.ok()) return record.status();
  if (!*record) return Status::NotFound(fmt::format("no consumer group '{}'", name));
  auto decoded = subscriptions::DecodeGroupRecord(name, **record);
  if (!decoded.ok()) return decoded.status();
  MutexLock lock(&mu_);
  filters_[name] = decoded->options.filter;
  return decoded->options.filter;
}

void ConsumerRegistry::ForEach(const std::function<void(ConsumerGroup&)>& fn) {
  std::vector<std::shared_ptr<ConsumerGroup>> groups;
  {
    MutexLock lock(&mu_);
    for (auto& [name, group] : open_) groups.push_back(group);
  }
  for (auto& group : groups) fn(*group);
}

void ConsumerRegistry::AddWaiting(const std::string& name, std::int64_t delta) {
  MutexLock lock(&mu_);
  if ((waiting_[name] += delta) == 0) waiting_.erase(name);
}

std::int64_t ConsumerRegistry::Waiting(const std::string& name) {
  MutexLock lock(&mu_);
  auto it = waiting_.find(name);
  return it == waiting_.end() ? 0 : it->second;
}

}  // namespace indelible::server
