// The kill harness of the crash tests that cut RepairDB or Open at each of
// its disk calls in turn (tests/crash/repair_kill_no_resurrection_test.cc,
// tests/crash/repair_unusable_files_to_lost_test.cc,
// tests/crash/leveldb_take_in_kill_test.cc).
//
// What it runs: for kill point n = 1, 2, ..., a fresh copy of a pristine
// database and, on that copy, the operation (RepairDB, or Open followed by
// a wait for its background work) in a child process: this test binary run
// again by SpawnSelf (test_support.h), over a PowerLossFileSystem
// (testing/power_loss_file_system.h) whose n-th disk call on the SST
// directories raises SIGKILL. Real syncs are off: this is a kill, not a
// power loss, and the disk keeps everything the child did before it.
//
// What it checks: each child ends by that SIGKILL or, in a sweep that runs
// until the operation ends, by finishing before its kill point (exit status
// kKilledChildFinished), which ends the sweep; any other end fails the test
// at once. After each kill, the test's check runs on the copy the child
// left: typically what the user does next (a second RepairDB, an Open) and
// what must hold afterwards. Each kill point whose check finds a problem is
// a violation; the first five fail the test, each with its kill point, and
// one more failure counts the rest. The number of kill points and of
// violations is printed.
//
// What a test supplies:
//  * the child: a TEST(<Suite>, Child) whose body is RunKilledChild, with
//    the options (and, for Open, the tuning) the operation runs with. Run
//    on its own it returns at once (and tests/CMakeLists.txt registers no
//    *.Child test with ctest);
//  * a KillAtEachCall: that test's name, the operation, the pristine
//    database, scratch paths for the copy and the child's shadow, and how
//    many disk calls an uninterrupted run makes (RunCountingDiskCalls
//    measures it: every one of them must cut the operation), or 0 to go on
//    until the operation finishes before its kill point;
//  * the check: the copy's path and the kill point in, "" or what is wrong
//    out.
#ifndef DELSM_TESTS_CRASH_KILL_AT_EACH_CALL_H_
#define DELSM_TESTS_CRASH_KILL_AT_EACH_CALL_H_

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "testing/power_loss_file_system.h"
#include "tests/test_support.h"

namespace delsm_test {

// The operation a child runs, and is killed in.
enum class KilledOperation { kRepairDB, kOpen };

inline const char* KilledOperationName(KilledOperation op) {
  return op == KilledOperation::kRepairDB ? "RepairDB" : "Open";
}

// The exit status of a child whose operation ended before the disk call it
// was to be killed at.
constexpr int kKilledChildFinished = 4;

// Runs `op` on `dbname` with its SST directories on `fs`: RepairDB, or Open
// and a wait for the background work it starts, the DB left open in *db.
// Returns what the operation says.
inline leveldb::Status RunKilledOperation(KilledOperation op,
                                          const leveldb::Options& options,
                                          const delsm::Tuning& tuning,
                                          const std::string& dbname,
                                          leveldb::FileSystem* fs,
                                          std::unique_ptr<leveldb::DB>* db) {
  if (op == KilledOperation::kRepairDB) {
    return leveldb::RepairDBWithFileSystem(dbname, options, fs);
  }
  leveldb::DB* raw = nullptr;
  leveldb::Status s =
      leveldb::OpenWithFileSystem(options, tuning, dbname, fs, &raw);
  if (!s.ok()) return s;
  db->reset(raw);
  return static_cast<leveldb::DBImpl*>(raw)->TEST_WaitForBackgroundWork();
}

// Runs `op` on `dbname` to the end, as a child does but with no kill, over
// a PowerLossFileSystem with real syncs off whose shadow directory is
// `shadow` (removed afterwards); *calls is set to the disk calls it made on
// the SST directories (an Open's before it is closed). Returns what the
// operation says.
inline leveldb::Status RunCountingDiskCalls(KilledOperation op,
                                            const leveldb::Options& options,
                                            const delsm::Tuning& tuning,
                                            const std::string& dbname,
                                            const std::string& shadow,
                                            uint64_t* calls) {
  leveldb::Status s;
  {
    leveldb::PowerLossFileSystem fs(leveldb::FileSystem::Default(), shadow);
    fs.set_real_syncs(false);
    std::unique_ptr<leveldb::DB> db;
    s = RunKilledOperation(op, options, tuning, dbname, &fs, &db);
    *calls = fs.DiskCalls();
  }
  RemoveTree(shadow);
  return s;
}

// The environment a child reads: the operation (by KilledOperationName),
// the database, the power-loss shadow and the disk call to be killed at.
constexpr char kKilledChildOperationVar[] = "DELSM_KILL_CHILD_OPERATION";
constexpr char kKilledChildDbVar[] = "DELSM_KILL_CHILD_DB";
constexpr char kKilledChildShadowVar[] = "DELSM_KILL_CHILD_SHADOW";
constexpr char kKilledChildKillAtVar[] = "DELSM_KILL_CHILD_KILL_AT";

// The body of the child test: runs the operation the environment names with
// `options` and `tuning`, SIGKILLed at the disk call it names; exits with
// kKilledChildFinished if the operation ends first (the DB of an Open is
// not closed: a Close would make disk calls of its own). Returns at once if
// the environment names no operation (the test run on its own).
inline void RunKilledChild(const leveldb::Options& options,
                           const delsm::Tuning& tuning) {
  const char* op = std::getenv(kKilledChildOperationVar);
  const char* db = std::getenv(kKilledChildDbVar);
  const char* shadow = std::getenv(kKilledChildShadowVar);
  const char* kill_at = std::getenv(kKilledChildKillAtVar);
  if (op == nullptr || db == nullptr || shadow == nullptr ||
      kill_at == nullptr) {
    return;
  }
  KilledOperation operation;
  if (std::string(op) == KilledOperationName(KilledOperation::kRepairDB)) {
    operation = KilledOperation::kRepairDB;
  } else if (std::string(op) == KilledOperationName(KilledOperation::kOpen)) {
    operation = KilledOperation::kOpen;
  } else {
    _exit(2);
  }
  leveldb::PowerLossFileSystem fs(leveldb::FileSystem::Default(), shadow);
  fs.set_real_syncs(false);  // a kill, not a power loss: the disk keeps all
  fs.SetPowerCutHook([] { raise(SIGKILL); });
  fs.CutPowerAtCall(std::strtoull(kill_at, nullptr, 10));
  std::unique_ptr<leveldb::DB> opened;
  RunKilledOperation(operation, options, tuning, db, &fs, &opened);
  _exit(kKilledChildFinished);
}

// One sweep of kill points.
struct KillAtEachCall {
  // The test whose body is RunKilledChild ("Suite.Child").
  std::string child;
  KilledOperation operation = KilledOperation::kRepairDB;
  // The database every kill point starts from; never changed.
  std::string pristine;
  // Where each kill point's copy is made and the child's power-loss shadow
  // lives; neither may exist. Both are removed after each kill point.
  std::string work;
  std::string shadow;
  // The disk calls an uninterrupted run makes: the child is killed at each
  // of 1..calls, and must be killed at every one. 0: at 1, 2, ... until the
  // operation finishes before its kill point.
  uint64_t calls = 0;
};

// What a test checks after a kill: the copy the child left and the disk
// call it was killed at in; "" or what is wrong out.
using KillCheck =
    std::function<std::string(const std::string& work, uint64_t kill_at)>;

// Runs `sweep`, with `check` after each kill (see the top of this file).
// *killed, unless `killed` is null, is set to the number of kill points at
// which the operation was cut. Failures are fatal to the caller only through
// ASSERT_NO_FATAL_FAILURE (or, at the end of a test body, by returning).
inline void RunKillAtEachCall(const KillAtEachCall& sweep,
                              const KillCheck& check, uint64_t* killed) {
  const char* op = KilledOperationName(sweep.operation);
  std::vector<std::string> violations;
  uint64_t cut = 0;
  for (uint64_t kill_at = 1; sweep.calls == 0 || kill_at <= sweep.calls;
       kill_at++) {
    ASSERT_EQ("", CopyTree(sweep.pristine, sweep.work));
    const pid_t pid = SpawnSelf(
        sweep.child, {{kKilledChildOperationVar, op},
                      {kKilledChildDbVar, sweep.work},
                      {kKilledChildShadowVar, sweep.shadow},
                      {kKilledChildKillAtVar, std::to_string(kill_at)}});
    ASSERT_GT(pid, 0);
    const int status = WaitChild(pid);
    const bool was_killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    const bool finished = sweep.calls == 0 && WIFEXITED(status) &&
                          WEXITSTATUS(status) == kKilledChildFinished;
    ASSERT_TRUE(was_killed || finished)
        << op << " to be killed at disk call " << kill_at << ": child status "
        << status;
    if (was_killed) {
      cut++;
      const std::string problem = check(sweep.work, kill_at);
      if (!problem.empty()) {
        std::string where = std::to_string(kill_at);
        if (sweep.calls != 0) where += " of " + std::to_string(sweep.calls);
        violations.push_back(std::string(op) + " killed at disk call " + where +
                             ": " + problem);
      }
    }
    RemoveTree(sweep.work);
    RemoveTree(sweep.shadow);
    if (finished) break;
  }
  if (killed != nullptr) *killed = cut;
  std::printf("%s killed at %llu disk calls, %zu violations\n", op,
              static_cast<unsigned long long>(cut), violations.size());
  for (size_t i = 0; i < violations.size() && i < 5; i++) {
    ADD_FAILURE() << violations[i];
  }
  if (violations.size() > 5) {
    ADD_FAILURE() << violations.size() - 5 << " more kill points";
  }
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_CRASH_KILL_AT_EACH_CALL_H_
