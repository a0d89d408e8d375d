#include "util/thread_pool.h"

#include <new>
#include <string>
#include <system_error>

#include "util/mutexlock.h"

namespace leveldb {

Status ThreadPool::Start(int threads, std::unique_ptr<ThreadPool>* result,
                         const char* name) {
  result->reset();
  if (threads < 1) threads = 1;
  std::unique_ptr<ThreadPool> pool(new ThreadPool());
  std::string error;
  try {
    pool->workers_.reserve(threads);
    for (int i = 0; i < threads; i++) {
      pool->workers_.emplace_back(
          [p = pool.get(), n = std::string(name)] { p->Work(n); });
    }
  } catch (const std::system_error& e) {
    error = e.what();
  } catch (const std::bad_alloc& e) {
    error = e.what();
  }
  if (!error.empty()) {
    // The destructor stops and joins the workers that did start.
    const size_t started = pool->workers_.size();
    pool.reset();
    return Status::IOError("cannot start thread " +
                               std::to_string(started + 1) + " of " +
                               std::to_string(threads) + " of a thread pool",
                           error);
  }
  *result = std::move(pool);
  return Status::OK();
}

ThreadPool::~ThreadPool() {
  {
    MutexLock l(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Submit(std::function<void()> task) {
  {
    MutexLock l(&mu_);
    queue_.push_back(std::move(task));
  }
  cv_.Signal();
}

void ThreadPool::Work(const std::string& name) {
  port::SetCurrentThreadName(name.c_str());
  MutexLock l(&mu_);
  while (true) {
    while (!stopping_ && queue_.empty()) cv_.Wait();
    if (queue_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    mu_.Unlock();
    task();
    mu_.Lock();
  }
}

}  // namespace leveldb
