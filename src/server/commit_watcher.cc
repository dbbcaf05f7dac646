#include "server/commit_watcher.h"

#include <chrono>

namespace indelible::server {

CommitWatcher::CommitWatcher(Store& store) : store_(store) {
  // The last position is read here, not when the thread first runs: a
  // thread started late (a loaded machine) would otherwise take commits
  // made meanwhile as already seen and never wake the waiters registered
  // before them.
  const std::uint64_t seen = store_.LastPosition().value();
  thread_ = std::thread([this, seen] { Loop(seen); });
}

CommitWatcher::~CommitWatcher() { Stop(); }

void CommitWatcher::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    waiters_.clear();
  }
  if (thread_.joinable()) thread_.join();
}

void CommitWatcher::NotifyAfter(Position after, std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    // Checked under the lock the loop scans under: a commit that lands after
    // this check finds the waiter registered (see Loop).
    if (store_.LastPosition().value() <= after.value() && !stopping_) {
      waiters_.push_back({after.value(), std::move(fn)});
      return;
    }
    if (stopping_) return;
  }
  fn();
}

void CommitWatcher::Loop(std::uint64_t seen) {
  for (;;) {
    // A bounded wait, so Stop() is noticed without a wake-up of its own.
    const std::uint64_t last =
        store_.WaitForCommit(Position(seen), std::chrono::milliseconds(200)).value();
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      if (last <= seen) continue;
      seen = last;
      std::erase_if(waiters_, [&](Waiter& w) {
        if (w.after >= last) return false;
        ready.push_back(std::move(w.fn));
        return true;
      });
    }
    for (auto& fn : ready) fn();
  }
}

}  // namespace indelible::server
