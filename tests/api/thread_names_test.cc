// A DB's background threads carry names the system's tools show (top -H,
// ps -L, perf, /proc/<pid>/task/<tid>/comm), so that a user who sees a
// busy or blocked thread can tell which part of DeLSM it is: the flush
// workers, the compaction thread, the durability thread of the default
// grouped syncfs, and the read-ahead workers. The names go with the DB:
// after it is closed, no thread of those names is left.
//
// The compaction and removal threads run under the batch policy, so that
// their wakeups do not preempt the application's writer on its CPU. The
// threads someone waits for keep the default policy: the flush workers (a
// writer stopped for a full queue), the durability thread (a sync=true
// write) and the read-ahead workers (a scan), as does every thread of the
// application.
#include <dirent.h>
#include <sched.h>
#include <sys/types.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;

// How many of this process's threads have each name.
std::map<std::string, int> ThreadNames() {
  std::map<std::string, int> names;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return names;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (std::getline(comm, name)) names[name]++;
  }
  closedir(dir);
  return names;
}

// The scheduling policy of every thread of this process with each name.
std::map<std::string, std::set<int>> ThreadPolicies() {
  std::map<std::string, std::set<int>> policies;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return policies;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (!std::getline(comm, name)) continue;
    // sched_getscheduler takes a thread's id on Linux.
    const int policy = sched_getscheduler(static_cast<pid_t>(atoi(e->d_name)));
    if (policy >= 0) policies[name].insert(policy);
  }
  closedir(dir);
  return policies;
}

TEST(ThreadNamesTest, BackgroundThreadsAreNamedWhileTheDbIsOpen) {
  if (ThreadNames().empty()) GTEST_SKIP() << "no /proc/self/task";
  TempDir dir("thread-names");
  delsm::Tuning tuning;
  tuning.flush_threads = 2;
  DB* raw = nullptr;
  ASSERT_TRUE(delsm::Open(delsm_test::NewDbOptions(4 << 20), tuning,
                          dir.path() + "/db", &raw)
                  .ok());
  std::unique_ptr<DB> db(raw);
  // Each thread names itself as it starts, which may be just after Open
  // returns.
  std::map<std::string, int> names;
  for (int tries = 0; tries < 1000; tries++) {
    names = ThreadNames();
    if (names["delsm-flush"] == 2 && names["delsm-compact"] == 1 &&
        names["delsm-sync"] == 1 &&
        names["delsm-readahead"] == tuning.read_ahead_threads) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(2, names["delsm-flush"]);
  EXPECT_EQ(1, names["delsm-compact"]);
  EXPECT_EQ(1, names["delsm-sync"]);
  EXPECT_EQ(tuning.read_ahead_threads, names["delsm-readahead"]);
  db.reset();
  // Close returns once the threads have stopped working; they may take a
  // moment more to exit.
  int left = 0;
  for (int tries = 0; tries < 1000; tries++) {
    names = ThreadNames();
    left = names["delsm-flush"] + names["delsm-compact"] + names["delsm-sync"] +
           names["delsm-readahead"];
    if (left == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(0, left);
}

TEST(ThreadNamesTest, CompactionAndRemovalRunUnderTheBatchPolicy) {
  if (ThreadNames().empty()) GTEST_SKIP() << "no /proc/self/task";
  if (sched_getscheduler(0) != SCHED_OTHER) {
    GTEST_SKIP() << "the test runs under a policy other than the default";
  }
  TempDir dir("thread-policies");
  DB* raw = nullptr;
  ASSERT_TRUE(delsm::Open(delsm_test::NewDbOptions(4 << 20), delsm::Tuning(),
                          dir.path() + "/db", &raw)
                  .ok());
  std::unique_ptr<DB> db(raw);
  // Each thread names itself and sets its policy as it starts, which may be
  // just after Open returns: wait until every thread has done both (a
  // thread not yet named carries the test's name and is not seen at all).
  const std::set<int> batch = {SCHED_BATCH};
  const std::set<int> other = {SCHED_OTHER};
  const char* const kBackground[] = {"delsm-compact", "delsm-remove"};
  const char* const kWaitedFor[] = {"delsm-flush", "delsm-sync",
                                    "delsm-readahead"};
  std::map<std::string, std::set<int>> policies;
  for (int tries = 0; tries < 1000; tries++) {
    policies = ThreadPolicies();
    bool all = true;
    for (const char* name : kBackground) all = all && policies[name] == batch;
    for (const char* name : kWaitedFor) all = all && !policies[name].empty();
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (const char* name : kBackground) {
    EXPECT_EQ(batch, policies[name]) << name;
  }
  for (const char* name : kWaitedFor) {
    EXPECT_EQ(other, policies[name]) << name;
  }
  EXPECT_EQ(SCHED_OTHER, sched_getscheduler(0)) << "the caller's thread";
}

}  // namespace
}  // namespace leveldb
