// RAII lock holder for port::Mutex.
#ifndef DELSM_UTIL_MUTEXLOCK_H_
#define DELSM_UTIL_MUTEXLOCK_H_

#include "port/port.h"
#include "port/thread_annotations.h"

namespace leveldb {

class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(port::Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  port::Mutex* const mu_;
};

}  // namespace leveldb

#endif  // DELSM_UTIL_MUTEXLOCK_H_
