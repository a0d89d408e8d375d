// The recovery sweep's fixture (tests/crash/recovery_sweep_files_test.cc,
// recovery_sweep_calls_test.cc): where its databases live, how a mode's
// pristine database is built (a killed mode's in a child process), and the
// tally each test prints.
//
// Modes (one parameterised test name each, so ctest shows which failed):
// the default (kSyncfs, inline values at the default threshold),
// values_stay_put, inline values off (inline_threshold=0), kFsync,
// kDeferred, parallel flush (flush_threads=2), and databases left by a
// kill -9 in the middle of a flush, a compaction and a repair (the kill
// lands at a drawn disk call: testing/power_loss_state.h's CutPowerAtCall
// runs a hook that raises SIGKILL in the child). A LevelDB database killed
// mid-conversion (its leveldb-conversion/ staging files) belongs to the
// conversion tests: kModes has a clearly named hook for it.
//
// The default suite runs a sample of the points; DELSM_SWEEP_ALL=1 runs
// every point. The seed is printed; DELSM_TEST_SEED replays it. Counts
// measured are in tests/RELIABILITY.md ("The recovery sweep").
#ifndef DELSM_TESTS_CRASH_RECOVERY_SWEEP_FIXTURE_H_
#define DELSM_TESTS_CRASH_RECOVERY_SWEEP_FIXTURE_H_

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tests/crash/recovery_sweep_checks.h"
#include "tests/crash/recovery_sweep_damage.h"
#include "tests/crash/recovery_sweep_workload.h"
#include "tests/durability_harness.h"
#include "tests/test_support.h"
#include "tests/write_model.h"

namespace leveldb {
namespace recovery_sweep {

using delsm_test::CopyTree;
using delsm_test::FaultStack;
using delsm_test::RemoveTree;

inline bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
}
inline bool SweepAll() { return EnvFlag("DELSM_SWEEP_ALL"); }
inline bool SweepKnown() { return EnvFlag("DELSM_SWEEP_KNOWN"); }

// The directory the sweep's databases live in: under TestRoot() when
// $DELSM_TEST_DIR or $TMPDIR names one, else in /dev/shm when it is there
// (a real file system whose syncfs and fsync return at once: the sweep
// opens databases thousands of times, and on a shared disk each Open's
// sync waits for everybody's dirty data), else /tmp. Removed with its
// contents when the object goes away.
class SweepDir {
 public:
  SweepDir() {
    std::string root = delsm_test::TestRoot();
    struct stat st;
    if (root == "/tmp" && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        access("/dev/shm", W_OK) == 0) {
      root = "/dev/shm";
    }
    std::string templ = root + "/delsm_recovery_sweep_XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~SweepDir() {
    if (!path_.empty()) RemoveTree(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The body of the killed modes' child (RecoverySweepChild.Child): runs the
// workload on the DB named by the environment, with the disk call
// DELSM_SWEEP_KILL_AT of the operation to be cut raising SIGKILL.
struct ChildEnv {
  std::string dir, stack, mode;
  uint64_t seed = 0, kill_at = 0;
  bool Read() {
    const char* d = std::getenv("DELSM_SWEEP_CHILD_DIR");
    const char* st = std::getenv("DELSM_SWEEP_CHILD_STACK");
    const char* m = std::getenv("DELSM_SWEEP_CHILD_MODE");
    const char* s = std::getenv("DELSM_SWEEP_CHILD_SEED");
    const char* k = std::getenv("DELSM_SWEEP_CHILD_KILL_AT");
    if (!d || !st || !m || !s || !k) return false;
    dir = d;
    stack = st;
    mode = m;
    seed = std::strtoull(s, nullptr, 10);
    kill_at = std::strtoull(k, nullptr, 10);
    return true;
  }
};

// Every sweep binary registers this as TEST(RecoverySweepChild, Child), the
// test Build spawns; run on its own it returns at once.
inline void RunSweepChild() {
  ChildEnv ce;
  if (!ce.Read()) return;  // run on its own: nothing to do
  const Mode* m = ModeByName(ce.mode);
  if (m == nullptr) _exit(2);
  if (mkdir(ce.stack.c_str(), 0755) != 0) _exit(3);
  FaultStack stack(ce.stack);
  stack.power_fs.ShareCallCounter(&stack.env);
  stack.power_fs.SetPowerCutHook([] { raise(SIGKILL); });
  stack.env.SetPowerCutHook([] { raise(SIGKILL); });
  const std::string err = RunWorkload(
      *m, ce.seed, ce.dir, &stack.fault_fs, &stack.env,
      [&] { stack.power_fs.CutPowerAtCall(ce.kill_at); },
      [] { raise(SIGKILL); });
  std::fprintf(stderr, "child workload: %s\n", err.c_str());
  _exit(4);
}

// The sweep's test fixture, of one mode: SetUp builds the mode's pristine
// database (for a killed mode, in a child killed at a drawn disk call) and
// requires it to open with every acknowledged write; each point works on a
// fresh copy (Fresh) and records what it finds in tally_, which TearDown
// prints and fails on.
class SweepFixture : public testing::TestWithParam<Mode> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    seed_ = delsm_test::RandomSeed(std::string("recovery sweep (") +
                                   GetParam().name + ")");
    rnd_.seed(static_cast<uint32_t>(seed_));
    ops_ = Workload(seed_);
    pristine_ = tmp_.path() + "/pristine";
    work_ = tmp_.path() + "/work";
    ASSERT_NO_FATAL_FAILURE(Build());
    // The database as built opens with every acknowledged write.
    ASSERT_TRUE(Fresh().empty());
    const std::string base = CheckAll(GetParam(), work_, Exp(kPhases), kPhases);
    ASSERT_TRUE(base.empty()) << "the undamaged database: " << base;
  }

  void TearDown() override {
    const Tally& t = tally_;
    std::printf(
        "recovery sweep (%s) %s: seed %llu, %d points, %d Opens failed naming "
        "the problem, %d Opens succeeded (%d Gets reported an error), %d "
        "RepairDB succeeded, %d failed, %zu violations\n",
        GetParam().name, SweepAll() ? "all points" : "fast subset",
        static_cast<unsigned long long>(seed_), t.points, t.open_failed_named,
        t.open_ok, t.get_errors, t.repairs_ok, t.repairs_failed,
        t.violations.size());
    for (const auto& k : t.known_skipped) {
      std::printf("  known open, %d checks not run: %s\n", k.second,
                  k.first.c_str());
    }
    for (size_t i = 0; i < t.named_elsewhere.size() && i < 5; i++) {
      std::printf("  Open failed naming another path: %s\n",
                  t.named_elsewhere[i].c_str());
    }
    for (size_t i = 0; i < t.violations.size() && i < 40; i++) {
      ADD_FAILURE() << t.violations[i];
    }
    if (t.violations.size() > 40) {
      ADD_FAILURE() << t.violations.size() - 40 << " more violations";
    }
    if (!t.violations.empty()) {
      ADD_FAILURE() << "replay with DELSM_TEST_SEED=" << seed_;
    }
  }

  Expected Exp(int promised_phases) const {
    return Expected(ops_, promised_phases);
  }

  // Builds the pristine database of the mode.
  void Build() {
    const Mode& m = GetParam();
    if (m.kill == Kill::kNone) {
      const std::string err = RunWorkload(
          m, seed_, pristine_, nullptr, nullptr, [] {}, [] {});
      ASSERT_TRUE(err.empty()) << err;
      return;
    }
    // How many disk calls the operation to be cut makes, measured on a
    // scratch copy of the same workload; the kill lands at one of them.
    uint64_t calls = 0;
    {
      const std::string root = tmp_.path() + "/measure";
      ASSERT_EQ(0, mkdir(root.c_str(), 0755));
      FaultStack stack(root);
      stack.power_fs.ShareCallCounter(&stack.env);
      uint64_t before = 0;
      const std::string err = RunWorkload(
          m, seed_, root + "/db", &stack.fault_fs, &stack.env,
          [&] { before = stack.power_fs.DiskCalls(); },
          [&] { calls = stack.power_fs.DiskCalls() - before; });
      ASSERT_TRUE(err.empty()) << err;
    }
    RemoveTree(tmp_.path() + "/measure");
    ASSERT_GT(calls, 0u);
    const uint64_t kill_at = 1 + rnd_() % calls;
    std::printf("recovery sweep (%s): killed at disk call %llu of %llu\n",
                m.name, static_cast<unsigned long long>(kill_at),
                static_cast<unsigned long long>(calls));
    const pid_t pid = delsm_test::SpawnSelf(
        "RecoverySweepChild.Child",
        {{"DELSM_SWEEP_CHILD_DIR", pristine_},
         {"DELSM_SWEEP_CHILD_STACK", tmp_.path() + "/child_stack"},
         {"DELSM_SWEEP_CHILD_MODE", m.name},
         {"DELSM_SWEEP_CHILD_SEED", std::to_string(seed_)},
         {"DELSM_SWEEP_CHILD_KILL_AT", std::to_string(kill_at)}});
    ASSERT_GT(pid, 0);
    const int status = delsm_test::WaitChild(pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "child status " << status;
    RemoveTree(tmp_.path() + "/child_stack");
    if (m.kill == Kill::kRepair) {
      repair_committed_ = RepairCommitted();
      std::printf("recovery sweep (%s): the killed repair %s\n", m.name,
                  repair_committed_ ? "had committed" : "had not committed");
    }
  }

  // Whether the repair killed in the pristine database had committed: it
  // numbers its manifest past every file it found, so CURRENT then names a
  // manifest newer than every WAL (in the DB directory or in lost/).
  bool RepairCommitted() const {
    std::string current;
    if (!ReadWhole(pristine_ + "/CURRENT", &current)) return false;
    uint64_t manifest = 0;
    if (std::sscanf(current.c_str(), "MANIFEST-%" SCNu64, &manifest) != 1) {
      return false;
    }
    uint64_t newest_wal = 0;
    for (const std::string& dir : {pristine_, pristine_ + "/lost"}) {
      for (const std::string& name : ListDir(dir)) {
        uint64_t n = 0;
        char tail[8] = {0};
        if (std::sscanf(name.c_str(), "%" SCNu64 ".%4s", &n, tail) == 2 &&
            std::strcmp(tail, "log") == 0) {
          newest_wal = std::max(newest_wal, n);
        }
      }
    }
    return manifest > newest_wal;
  }

  // A fresh copy of the pristine database at work_.
  std::string Fresh() {
    if (!RemoveTree(work_)) return "cannot remove " + work_;
    return CopyTree(pristine_, work_);
  }

  std::string Point(const std::string& what) const {
    return std::string(GetParam().name) + " " + what;
  }

  SweepDir tmp_;
  uint64_t seed_ = 0;
  std::mt19937 rnd_;
  std::vector<WriteOp> ops_;
  std::string pristine_, work_;
  bool repair_committed_ = false;  // killed_in_repair (Build)
  Tally tally_;
};

}  // namespace recovery_sweep
}  // namespace leveldb

#endif  // DELSM_TESTS_CRASH_RECOVERY_SWEEP_FIXTURE_H_
