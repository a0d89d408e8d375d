// A fixed set of worker threads running submitted tasks in submission
// order. Used for reading values ahead of a scan: the tasks are short file
// reads, and a few threads let several be in flight while the scan
// consumes the ones already done.
#ifndef DELSM_UTIL_THREAD_POOL_H_
#define DELSM_UTIL_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace leveldb {

class ThreadPool {
 public:
  // Starts `threads` workers (at least one).
  explicit ThreadPool(int threads);
  // Runs every task already submitted, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queue `task` to run on some worker. Tasks must not throw.
  void Submit(std::function<void()> task);

 private:
  void Work();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_; set once
  std::vector<std::thread> workers_;         // set by the constructor
};

}  // namespace leveldb

#endif  // DELSM_UTIL_THREAD_POOL_H_
