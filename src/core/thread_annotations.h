// Clang's thread-safety attributes (-Wthread-safety), as macros that are
// empty on other compilers. GUARDED_BY(mu_) on a member makes clang reject a
// read or write of it without mu_ held; REQUIRES(mu_) on a function makes
// every caller hold mu_. The lock type they name is core/mutex.h's Mutex:
// libstdc++'s std::mutex carries no attributes, so clang cannot check it.
// After LevelDB's port/thread_annotations.h; the attributes are described at
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html.
#pragma once

#if defined(__clang__)
#define INDELIBLE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define INDELIBLE_THREAD_ANNOTATION(x)
#endif

// A class that is a lock (Mutex) or holds one for a scope (MutexLock).
#define CAPABILITY(x) INDELIBLE_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY INDELIBLE_THREAD_ANNOTATION(scoped_lockable)

// Data: read or written only with the lock held.
#define GUARDED_BY(x) INDELIBLE_THREAD_ANNOTATION(guarded_by(x))
// Data a pointer points to (not the pointer itself): only with the lock held.
#define PT_GUARDED_BY(x) INDELIBLE_THREAD_ANNOTATION(pt_guarded_by(x))

// Lock order: this lock is taken after / before the named ones.
#define ACQUIRED_AFTER(...) INDELIBLE_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))
#define ACQUIRED_BEFORE(...) INDELIBLE_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))

// Functions: the caller must hold / must not hold the lock.
#define REQUIRES(...) INDELIBLE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) INDELIBLE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// Functions that take or give up the lock (no argument: `this`).
#define ACQUIRE(...) INDELIBLE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) INDELIBLE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) INDELIBLE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))

// A run-time check that the lock is held, which the analysis then trusts.
#define ASSERT_CAPABILITY(x) INDELIBLE_THREAD_ANNOTATION(assert_capability(x))
// A function that returns the lock a caller should hold.
#define RETURN_CAPABILITY(x) INDELIBLE_THREAD_ANNOTATION(lock_returned(x))

// Turns the analysis off for one function. Say beside each use why the
// analysis cannot follow it.
#define NO_THREAD_SAFETY_ANALYSIS INDELIBLE_THREAD_ANNOTATION(no_thread_safety_analysis)
