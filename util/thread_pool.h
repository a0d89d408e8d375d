// A fixed set of worker threads running submitted tasks in submission
// order. Used for reading values ahead of a scan: the tasks are short file
// reads, and a few threads let several be in flight while the scan
// consumes the ones already done.
#ifndef DELSM_UTIL_THREAD_POOL_H_
#define DELSM_UTIL_THREAD_POOL_H_

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "leveldb/status.h"
#include "port/port.h"
#include "port/thread_annotations.h"

namespace leveldb {

class ThreadPool {
 public:
  // Starts a pool of `threads` workers (at least one) into *result. If a
  // thread cannot be started (the system's thread or memory limits), the
  // ones already started are stopped and joined, *result is null, and the
  // IOError says how many of how many started and why: no exception
  // leaves this call. Each worker is named `name` for the system's tools
  // (port::SetCurrentThreadName; at most 15 bytes kept).
  static Status Start(int threads, std::unique_ptr<ThreadPool>* result,
                      const char* name = "delsm-pool");

  // Runs every task already submitted, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queue `task` to run on some worker. Tasks must not throw.
  void Submit(std::function<void()> task);

  // The number of workers.
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  ThreadPool() = default;
  void Work(const std::string& name) LOCKS_EXCLUDED(mu_);

  port::Mutex mu_;
  port::CondVar cv_{&mu_};  // signalled on a new task and on stopping
  std::deque<std::function<void()>> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;  // set once
  std::vector<std::thread> workers_;       // set by Start
};

}  // namespace leveldb

#endif  // DELSM_UTIL_THREAD_POOL_H_
