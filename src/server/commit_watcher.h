// CommitWatcher: one thread that waits on the store for new commits and
// wakes whoever asked to hear about them (subscriptions that caught up,
// long polls of /all). Waiting costs a subscriber nothing but an entry here,
// instead of a thread or a poll loop each.
//
// Concurrency: NotifyAfter may be called from any thread. Callbacks run on
// the watcher's thread and must only post work elsewhere.
#pragma once

#include <indelible/store.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace indelible::server {

class CommitWatcher {
 public:
  explicit CommitWatcher(Store& store);
  ~CommitWatcher();  // stops the thread; pending callbacks are dropped

  // Calls `fn` once the store has an event past `after` (at once, on this
  // thread, if it already has).
  void NotifyAfter(Position after, std::function<void()> fn);
  void Stop();

 private:
  struct Waiter {
    std::uint64_t after;
    std::function<void()> fn;
  };
  // `seen`: the last position when the watcher was made.
  void Loop(std::uint64_t seen);

  Store& store_;
  std::mutex mu_;
  std::vector<Waiter> waiters_;  // GUARDED_BY(mu_)
  bool stopping_ = false;        // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace indelible::server
