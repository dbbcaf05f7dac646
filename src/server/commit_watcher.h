// CommitWatcher: one thread that waits on the store for new commits and
// wakes whoever asked to hear about them (subscriptions that caught up,
// long polls of /all). Waiting costs a subscriber nothing but an entry here,
// instead of a thread or a poll loop each.
//
// Concurrency: NotifyAfter may be called from any thread. Callbacks run on
// the watcher's thread and must only post work elsewhere.
#pragma once

#include <indelible/store.h>

#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace indelible::server {

class CommitWatcher {
 public:
  explicit CommitWatcher(Store& store);
  ~CommitWatcher();  // stops the thread; pending callbacks are dropped

  // Identifies a registration, for Cancel. 0: none (fn already ran).
  using Ticket = std::uint64_t;

  // Calls `fn` once the store has an event past `after` (at once, on this
  // thread, if the watcher already saw one: the ticket is then 0). Makes no
  // store call, so I/O threads may register.
  Ticket NotifyAfter(Position after, std::function<void()> fn);
  // Drops a registration that has not fired, so a waiter that gave up (a
  // long poll past its deadline, a closed subscriber) leaves nothing behind.
  // A ticket that fired or was cancelled is ignored. `fn` may still run once
  // if it was being called while Cancel ran: callbacks must tolerate that.
  void Cancel(Ticket ticket);
  // Registrations waiting (for /metrics and tests).
  std::size_t waiting() const;
  void Stop();

 private:
  struct Waiter {
    Ticket ticket;
    std::uint64_t after;
    std::function<void()> fn;
  };
  // `seen`: the last position when the watcher was made.
  void Loop(std::uint64_t seen);

  Store& store_;
  mutable Mutex mu_;
  std::vector<Waiter> waiters_ GUARDED_BY(mu_);
  Ticket last_ticket_ GUARDED_BY(mu_) = 0;
  std::uint64_t seen_ GUARDED_BY(mu_) = 0;  // the loop's last position
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace indelible::server
