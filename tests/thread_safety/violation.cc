// The planted violations scripts/check-thread-safety.sh compiles, proof that
// the clang build's -Wthread-safety check (docs/FUZZING.md) can fail. Built
// as is, each function below breaks a rule clang must report as an error:
// a guarded member read without its lock, a REQUIRES function called
// without it, and a CondVar wait without it. Built with -DLOCKED, the same
// functions take the lock first and must compile cleanly, so the errors come
// from the missing lock and nothing else. Not part of any CMake target.
#include "core/mutex.h"

namespace indelible {

class Counter {
 public:
  int Read() {
#ifdef LOCKED
    MutexLock lock(&mu_);
#endif
    return count_;  // expected: reading variable 'count_' requires holding mutex 'mu_'
  }

  void Bump() {
#ifdef LOCKED
    MutexLock lock(&mu_);
#endif
    BumpLocked();  // expected: calling function 'BumpLocked' requires holding mutex 'mu_'
  }

  void AwaitPositive() {
#ifdef LOCKED
    MutexLock lock(&mu_);
#endif
    changed_.Wait(&mu_);  // expected: calling function 'Wait' requires holding mutex 'mu_'
  }

 private:
  void BumpLocked() REQUIRES(mu_) {
    ++count_;
    changed_.SignalAll();
  }

  Mutex mu_;
  CondVar changed_;
  int count_ GUARDED_BY(mu_) = 0;
};

// Uses each member so the file is a complete program text.
int Use(Counter& counter) {
  counter.Bump();
  counter.AwaitPositive();
  return counter.Read();
}

}  // namespace indelible
