#include "server/commit_watcher.h"

#include <chrono>

namespace indelible::server {

CommitWatcher::CommitWatcher(Store& store) : store_(store) {
  // The last position is read here, not when the thread first runs: a
  // thread started late (a loaded machine) would otherwise take commits
  // made meanwhile as already seen and never wake the waiters registered
  // before them.
  seen_ = store_.LastPosition().value();
  thread_ = std::thread([this, seen = seen_] { Loop(seen); });
}

CommitWatcher::~CommitWatcher() { Stop(); }

void CommitWatcher::Stop() {
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    waiters_.clear();
  }
  if (thread_.joinable()) thread_.join();
}

CommitWatcher::Ticket CommitWatcher::NotifyAfter(Position after, std::function<void()> fn) {
  {
    MutexLock lock(&mu_);
    // Checked under the lock the loop scans under: a commit that lands after
    // this check finds the waiter registered (see Loop). Against what the
    // loop saw, not the store: no store call on the caller's (I/O) thread,
    // and a commit the loop has not seen yet wakes the waiter on its next
    // turn, which returns at once.
    if (seen_ <= after.value() && !stopping_) {
      const Ticket ticket = ++last_ticket_;
      waiters_.push_back({ticket, after.value(), std::move(fn)});
      return ticket;
    }
    if (stopping_) return 0;
  }
  fn();
  return 0;
}

void CommitWatcher::Cancel(Ticket ticket) {
  if (ticket == 0) return;
  MutexLock lock(&mu_);
  std::erase_if(waiters_, [&](const Waiter& w) { return w.ticket == ticket; });
}

std::size_t CommitWatcher::waiting() const {
  MutexLock lock(&mu_);
  return waiters_.size();
}

void CommitWatcher::Loop(std::uint64_t seen) {
  for (;;) {
    // A bounded wait, so Stop() is noticed without a wake-up of its own.
    const std::uint64_t last =
        store_.WaitForCommit(Position(seen), std::chrono::milliseconds(200)).value();
    std::vector<std::function<void()>> ready;
    {
      MutexLock lock(&mu_);
      if (stopping_) return;
      if (last <= seen) continue;
      seen = last;
      seen_ = last;
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
