// Clang thread-safety annotations
// (https://clang.llvm.org/docs/ThreadSafetyAnalysis.html); they compile to
// nothing elsewhere. scripts/thread_safety.sh builds the tree with clang and
// -Werror=thread-safety, so a field read or written without the mutex that
// guards it, or a function called without the mutex it requires, fails the
// build.
#ifndef DELSM_PORT_THREAD_ANNOTATIONS_H_
#define DELSM_PORT_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define DELSM_THREAD_ATTR(x) __attribute__((x))
#else
#define DELSM_THREAD_ATTR(x)
#endif

// A type whose objects are locks (port::Mutex).
#define CAPABILITY(x) DELSM_THREAD_ATTR(capability(x))
// An RAII type that holds a lock for its lifetime (MutexLock).
#define SCOPED_CAPABILITY DELSM_THREAD_ATTR(scoped_lockable)

// A field read or written only with the named mutex held; PT_: the data a
// pointer field points at.
#define GUARDED_BY(x) DELSM_THREAD_ATTR(guarded_by(x))
#define PT_GUARDED_BY(x) DELSM_THREAD_ATTR(pt_guarded_by(x))

// A function called with the named mutexes held, and that returns with them
// still held (it may release them in between).
#define EXCLUSIVE_LOCKS_REQUIRED(...) \
  DELSM_THREAD_ATTR(exclusive_locks_required(__VA_ARGS__))
// A function called without the named mutexes (it takes them itself, or
// does I/O that must not run under them).
#define LOCKS_EXCLUDED(...) DELSM_THREAD_ATTR(locks_excluded(__VA_ARGS__))

// A function that acquires / releases the named mutex (no argument: the
// object it is called on), or checks at run time that it is held.
#define ACQUIRE(...) DELSM_THREAD_ATTR(acquire_capability(__VA_ARGS__))
#define RELEASE(...) DELSM_THREAD_ATTR(release_capability(__VA_ARGS__))
#define ASSERT_CAPABILITY(x) DELSM_THREAD_ATTR(assert_capability(x))

// Turns the analysis off for one function. Each use says, beside it, why
// the analysis cannot follow the locking there.
#define NO_THREAD_SAFETY_ANALYSIS DELSM_THREAD_ATTR(no_thread_safety_analysis)

#endif  // DELSM_PORT_THREAD_ANNOTATIONS_H_
