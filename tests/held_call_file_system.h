// A FileSystem for tests that passes every call to another (by default
// FileSystem::Default()) and can hold calls: a hold catches the first Probe
// (Exists) or OpenDirectory made after it was set by a thread of a given
// name on a path containing a given string, and keeps that call waiting in the
// file system until the test releases it; the call then goes on as usual. So a
// test stops an engine thread at a chosen point (a removal pass about to open a
// directory, say) for as long as it takes the other threads to do what the
// test races with it, without failing the call. Thread names are the
// engine's (port::SetCurrentThreadName: "delsm-remove", "delsm-compact",
// ...). Thread-safe.
#ifndef DELSM_TESTS_HELD_CALL_FILE_SYSTEM_H_
#define DELSM_TESTS_HELD_CALL_FILE_SYSTEM_H_

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fs/file_system.h"
#include "tests/forwarding_file_system.h"

namespace delsm_test {

class HeldCallFileSystem : public ForwardingFileSystem {
 public:
  // Over FileSystem::Default() unless a base is given (not owned).
  using ForwardingFileSystem::ForwardingFileSystem;

  // Sets a hold (see above); returns its handle. A call meeting several
  // holds is caught by the one set first.
  int Hold(const std::string& thread, const std::string& path_contains) {
    std::lock_guard<std::mutex> l(mu_);
    holds_.push_back({thread, path_contains});
    return static_cast<int>(holds_.size()) - 1;
  }
  // Waits until hold `h` has caught its call; false if that does not
  // happen within a minute (a test failure, not a timing).
  bool WaitUntilHeld(int h) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, std::chrono::minutes(1),
                        [&] { return holds_[h].caught; });
  }
  bool Caught(int h) {
    std::lock_guard<std::mutex> l(mu_);
    return holds_[h].caught;
  }
  // Lets the call hold `h` caught go on (a hold released before it caught
  // one catches none).
  void Release(int h) {
    std::lock_guard<std::mutex> l(mu_);
    holds_[h].released = true;
    cv_.notify_all();
  }
  // Releases every hold.
  void ReleaseAll() {
    std::lock_guard<std::mutex> l(mu_);
    for (HoldState& h : holds_) h.released = true;
    cv_.notify_all();
  }

  leveldb::Status OpenDirectory(
      const std::string& path,
      std::unique_ptr<leveldb::Directory>* result) override {
    MaybeHold(path);
    return base()->OpenDirectory(path, result);
  }
  leveldb::Status OpenMovableDirectory(
      const std::string& path, const std::vector<std::string>& moved_to,
      std::unique_ptr<leveldb::Directory>* result) override {
    MaybeHold(path);
    return base()->OpenMovableDirectory(path, moved_to, result);
  }
  leveldb::Status Probe(const std::string& p, bool* exists) override {
    MaybeHold(p);
    return base()->Probe(p, exists);
  }

 private:
  struct HoldState {
    std::string thread;
    std::string path_contains;
    bool caught = false;
    bool released = false;
  };

  static std::string ThreadName() {
    char name[16] = {0};
    if (pthread_getname_np(pthread_self(), name, sizeof(name)) != 0) {
      return std::string();
    }
    return name;
  }
  void MaybeHold(const std::string& path) {
    std::unique_lock<std::mutex> l(mu_);
    if (holds_.empty()) return;
    const std::string thread = ThreadName();
    for (HoldState& h : holds_) {
      if (h.caught || h.released || thread != h.thread ||
          path.find(h.path_contains) == std::string::npos) {
        continue;
      }
      h.caught = true;
      cv_.notify_all();
      cv_.wait(l, [&] { return h.released; });
      return;
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_; only ever appended to (a held call waits on its
  // HoldState by reference, which a deque's push_back keeps valid).
  std::deque<HoldState> holds_;
};

}  // namespace delsm_test

#endif  // DELSM_TESTS_HELD_CALL_FILE_SYSTEM_H_
