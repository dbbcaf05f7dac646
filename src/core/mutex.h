// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with
// clang's thread-safety attributes (core/thread_annotations.h), so that a
// member declared `GUARDED_BY(mu_)` is checked at compile time in the clang
// build (-Wthread-safety, errors there). After LevelDB's port::Mutex and
// port::CondVar. No I/O and no other dependency, so every module may use it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/thread_annotations.h"

namespace indelible {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Tells the analysis the caller holds the lock (there is no run-time
  // check: std::mutex does not know its owner).
  void AssertHeld() ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for a scope, like std::unique_lock: Unlock() and Lock()
// give it up and take it again inside the scope (around a call that must
// not run under the lock); the destructor releases it if held.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mu_->Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() {
    mu_->Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  Mutex* const mu_;
  bool held_ = true;
};

// A condition variable whose waits name the Mutex they give up while
// waiting; the caller holds it before and after (REQUIRES(mu)). Spurious
// wake-ups happen, as with std::condition_variable: wait in a loop, or pass
// a predicate.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's lock, not this scope's
  }
  // False when the time ran out (the lock is held again either way).
  template <class Rep, class Period>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_for(lock, timeout) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }
  template <class Clock, class Duration>
  bool WaitUntil(Mutex* mu, std::chrono::time_point<Clock, Duration> deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool woken = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }

  // With a predicate, as std::condition_variable's: waits until pred() is
  // true; WaitFor returns pred() when the time runs out. A predicate that
  // reads guarded members is a lambda declared `[&]() REQUIRES(mu_) {...}`,
  // so its body is checked. NO_THREAD_SAFETY_ANALYSIS: pred's REQUIRES names
  // the owner's member (this->mu_), which clang cannot match to the `mu`
  // parameter here, though they are the same lock.
  template <class Predicate>
  void Wait(Mutex* mu, Predicate pred) REQUIRES(mu) NO_THREAD_SAFETY_ANALYSIS {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock, pred);
    lock.release();
  }
  template <class Rep, class Period, class Predicate>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout, Predicate pred)
      REQUIRES(mu) NO_THREAD_SAFETY_ANALYSIS {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool satisfied = cv_.wait_for(lock, timeout, pred);
    lock.release();
    return satisfied;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace indelible
