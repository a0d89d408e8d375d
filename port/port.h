// Platform glue: mutex, condition variable, and snappy. DeLSM targets POSIX
// systems with a C++17 standard library, so these are thin wrappers that
// carry the thread-safety annotations.
#ifndef DELSM_PORT_PORT_H_
#define DELSM_PORT_PORT_H_

#include <cassert>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>

#include "port/thread_annotations.h"

namespace leveldb {
namespace port {

class CondVar;

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  void AssertHeld() ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// A condition variable bound to one Mutex for its whole life.
class CondVar {
 public:
  explicit CondVar(Mutex* mu) : mu_(mu) { assert(mu != nullptr); }
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Requires mu_ held; releases it while waiting and holds it on return.
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // As Wait, but returns after at most `micros`; true if it timed out.
  bool WaitFor(uint64_t micros);
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
  Mutex* const mu_;
};

// Names the calling thread for the system's tools (top -H, perf, ps -L,
// /proc/<pid>/task/<tid>/comm): at most 15 bytes are kept. Best effort: a
// system without thread names ignores it.
void SetCurrentThreadName(const char* name);

// Tells the system's scheduler that the calling thread does background CPU
// work: on Linux, a thread under the default policy moves to SCHED_BATCH.
// It keeps its share of the CPU (same nice value), but its wakeups do not
// preempt the thread running on the CPU it wakes on, so a writer in a
// write() or a memtable insert is not interrupted each time a compaction
// returns from I/O or a lock. Not for a thread others wait for: its
// wakeups then wait for the running thread's time slice. A thread under
// another policy (real-time, idle) is left as it is. Best effort: a system
// that refuses it changes nothing.
void MarkCurrentThreadBackground();

// Snappy. Return false when compression is unavailable or fails.
bool SnappyCompress(const char* input, size_t length, std::string* output);
bool SnappyGetUncompressedLength(const char* input, size_t length,
                                 size_t* result);
bool SnappyUncompress(const char* input, size_t length, char* output);

}  // namespace port
}  // namespace leveldb

#endif  // DELSM_PORT_PORT_H_
