// Clang thread-safety annotations; they compile to nothing elsewhere.
#ifndef DELSM_PORT_THREAD_ANNOTATIONS_H_
#define DELSM_PORT_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define DELSM_THREAD_ATTR(x) __attribute__((x))
#else
#define DELSM_THREAD_ATTR(x)
#endif

#define GUARDED_BY(x) DELSM_THREAD_ATTR(guarded_by(x))
#define PT_GUARDED_BY(x) DELSM_THREAD_ATTR(pt_guarded_by(x))
#define EXCLUSIVE_LOCKS_REQUIRED(...) \
  DELSM_THREAD_ATTR(exclusive_locks_required(__VA_ARGS__))
#define LOCKS_EXCLUDED(...) DELSM_THREAD_ATTR(locks_excluded(__VA_ARGS__))
#define LOCKABLE DELSM_THREAD_ATTR(lockable)
#define EXCLUSIVE_LOCK_FUNCTION(...) \
  DELSM_THREAD_ATTR(exclusive_lock_function(__VA_ARGS__))
#define UNLOCK_FUNCTION(...) DELSM_THREAD_ATTR(unlock_function(__VA_ARGS__))
#define SCOPED_LOCKABLE DELSM_THREAD_ATTR(scoped_lockable)
#define ASSERT_EXCLUSIVE_LOCK(...) \
  DELSM_THREAD_ATTR(assert_exclusive_lock(__VA_ARGS__))
#define NO_THREAD_SAFETY_ANALYSIS DELSM_THREAD_ATTR(no_thread_safety_analysis)

#endif  // DELSM_PORT_THREAD_ANNOTATIONS_H_
