// The recovery sweep, failed calls: Open and RepairDB must never lose
// acknowledged data silently. Over databases in every mode
// (recovery_sweep_fixture.h), the sweep fails each call Open and RepairDB
// make, one at a time, through the SST-directory FileSystem
// (testing/fault_injection_file_system.h) and the Env that carries WAL,
// MANIFEST and CURRENT (testing/fault_injection_env.h), with EMFILE, EIO or
// ENOENT. After each point:
//
//  * Open fails with a Status naming the problem (the injected error's
//    text), or it succeeds, and then every acknowledged key reads its
//    value or an error (never NotFound for a key acknowledged and not
//    deleted), no deleted key comes back, no key shows a value never
//    written to it (Get of every key and a full scan);
//  * with the call no longer failing, the next Open reads everything;
//  * a RepairDB that fails on a transient fault leaves a database that
//    opens with everything; a repair that succeeds under a transient fault
//    keeps everything too (a fault is not damage: nothing may be set aside
//    for it).
//
// The default suite fails a few calls of each kind: the first and one
// drawn by the seed, with one of the three errors; DELSM_SWEEP_ALL=1 fails
// every call of every kind with each error. The damaged files are
// recovery_sweep_files_test.cc's.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/crash/recovery_sweep_checks.h"
#include "tests/crash/recovery_sweep_fixture.h"
#include "tests/crash/recovery_sweep_workload.h"

namespace leveldb {
namespace {

using delsm_test::RemoveTree;
using recovery_sweep::CheckAll;
using recovery_sweep::CheckOptions;
using recovery_sweep::CheckReads;
using recovery_sweep::Damage;
using recovery_sweep::Expected;
using recovery_sweep::Impl;
using recovery_sweep::kModes;
using recovery_sweep::KnownAtRepair;
using recovery_sweep::kPhases;
using recovery_sweep::Mode;
using recovery_sweep::PointFacts;
using recovery_sweep::SweepAll;
using recovery_sweep::SweepKnown;
using recovery_sweep::TuningFor;

TEST(RecoverySweepChild, Child) { recovery_sweep::RunSweepChild(); }

class RecoverySweep : public recovery_sweep::SweepFixture {
 protected:
  // One failed call: Open (or RepairDB) with call `n` of kind `op` of one
  // seam failing with `err`; then, the call no longer failing, an Open
  // that reads everything.
  template <typename Op>
  void CallPoint(bool repair, bool env_seam, Op op, const char* op_name,
                 uint64_t n, int err) {
    const Mode& m = GetParam();
    const Expected exp = Exp(kPhases);
    const std::string point =
        Point(std::string(repair ? "RepairDB" : "Open") + " " +
              (env_seam ? "env " : "fs ") + op_name + " #" + std::to_string(n) +
              " " + std::strerror(err));
    ASSERT_EQ("", Fresh());
    const std::string shadow = tmp_.path() + "/env_shadow";
    RemoveTree(shadow);
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultInjectionEnv env(Env::Default(), shadow);
    env.set_real_syncs(false);
    if (env_seam) {
      env.Arm(static_cast<EnvOp>(op), Spec(n, err));
    } else {
      fs.Arm(static_cast<FsOp>(op), Spec(n, err));
    }
    Options options = CheckOptions(m);
    options.env = &env;
    tally_.points++;
    Status s;
    bool fired = false;
    std::string first;
    if (repair) {
      s = RepairDBWithFileSystem(work_, options, &fs);
      fired = env_seam ? env.Fired() : fs.Fired();
      if (s.ok()) {
        tally_.repairs_ok++;
      } else {
        tally_.repairs_failed++;
      }
    } else {
      DB* db = nullptr;
      s = OpenWithFileSystem(options, TuningFor(m), work_, &fs, &db);
      if (s.ok()) {
        tally_.open_ok++;
        Impl(db)->TEST_WaitForBackgroundWork();
        const std::string p = CheckReads(db, exp, kPhases, &tally_.get_errors);
        if (!p.empty()) tally_.Violation(point, "after Open: " + p);
        delete db;
      }
      fired = env_seam ? env.Fired() : fs.Fired();
      if (!s.ok()) {
        // ENOENT may be reported as what it means (a missing manifest).
        if (s.ToString().find(std::strerror(err)) != std::string::npos ||
            (err == ENOENT &&
             s.ToString().find("missing") != std::string::npos)) {
          tally_.open_failed_named++;
        } else {
          tally_.Violation(point, std::string("Open failed without naming "
                                              "the failed call") +
                                      (fired ? "" : " (it never failed)") +
                                      ": " + s.ToString());
        }
      }
    }
    (void)fired;
    if (repair && s.ok() && !SweepKnown()) {
      PointFacts facts{&m, "", Damage::kFlip, false, repair_committed_};
      const std::string known = KnownAtRepair(facts);
      if (!known.empty()) {
        tally_.known_skipped[known]++;
        RemoveTree(shadow);
        return;
      }
    }
    const std::string p = CheckAll(m, work_, exp, kPhases);
    if (!p.empty()) {
      tally_.Violation(
          point,
          std::string(repair && s.ok() ? "RepairDB succeeded, then "
                                       : "the call no longer failing, ") +
              p);
    }
    RemoveTree(shadow);
  }

  static FaultSpec Spec(uint64_t n, int err) {
    FaultSpec spec;
    spec.nth = n;
    spec.err = err;
    return spec;
  }

  // Calls of each kind on each seam that a clean Open (with its
  // background work) or RepairDB makes on a fresh copy.
  void CountCalls(bool repair, std::vector<uint64_t>* fs_counts,
                  std::vector<uint64_t>* env_counts) {
    ASSERT_EQ("", Fresh());
    const std::string shadow = tmp_.path() + "/env_shadow";
    RemoveTree(shadow);
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultInjectionEnv env(Env::Default(), shadow);
    env.set_real_syncs(false);
    Options options = CheckOptions(GetParam());
    options.env = &env;
    if (repair) {
      ASSERT_OK(RepairDBWithFileSystem(work_, options, &fs));
    } else {
      DB* db = nullptr;
      ASSERT_OK(
          OpenWithFileSystem(options, TuningFor(GetParam()), work_, &fs, &db));
      Impl(db)->TEST_WaitForBackgroundWork();
      delete db;
    }
    fs_counts->clear();
    env_counts->clear();
    for (int k = 0; k < kNumFsOps; k++) {
      fs_counts->push_back(fs.Count(static_cast<FsOp>(k)));
    }
    for (int k = 0; k < kNumEnvOps; k++) {
      env_counts->push_back(env.Count(static_cast<EnvOp>(k)));
    }
    RemoveTree(shadow);
  }

  // The points n of a kind with `count` calls: all, or the first and one
  // drawn.
  std::vector<uint64_t> CallNumbers(uint64_t count) {
    std::vector<uint64_t> ns;
    if (count == 0) return ns;
    if (SweepAll()) {
      for (uint64_t n = 1; n <= count; n++) ns.push_back(n);
      return ns;
    }
    ns.push_back(1);
    const uint64_t drawn = 1 + rnd_() % count;
    if (drawn != 1) ns.push_back(drawn);
    return ns;
  }

  std::vector<int> Errors() {
    static const int kErrors[] = {EMFILE, EIO, ENOENT};
    if (SweepAll()) return {EMFILE, EIO, ENOENT};
    return {kErrors[rnd_() % 3]};
  }

  void SweepCalls(bool repair) {
    std::vector<uint64_t> fs_counts, env_counts;
    ASSERT_NO_FATAL_FAILURE(CountCalls(repair, &fs_counts, &env_counts));
    std::string counts;
    for (int k = 0; k < kNumFsOps; k++) {
      if (fs_counts[k] == 0) continue;
      counts += std::string(" fs ") + FsOpName(static_cast<FsOp>(k)) + " " +
                std::to_string(fs_counts[k]);
      for (uint64_t n : CallNumbers(fs_counts[k])) {
        for (int err : Errors()) {
          ASSERT_NO_FATAL_FAILURE(CallPoint(repair, false, static_cast<FsOp>(k),
                                            FsOpName(static_cast<FsOp>(k)), n,
                                            err));
        }
      }
    }
    for (int k = 0; k < kNumEnvOps; k++) {
      if (env_counts[k] == 0) continue;
      counts += std::string(" env ") + EnvOpName(static_cast<EnvOp>(k)) + " " +
                std::to_string(env_counts[k]);
      for (uint64_t n : CallNumbers(env_counts[k])) {
        for (int err : Errors()) {
          ASSERT_NO_FATAL_FAILURE(CallPoint(repair, true, static_cast<EnvOp>(k),
                                            EnvOpName(static_cast<EnvOp>(k)), n,
                                            err));
        }
      }
    }
    std::printf("recovery sweep (%s): calls %s makes:%s\n", GetParam().name,
                repair ? "RepairDB" : "Open", counts.c_str());
  }
};

TEST_P(RecoverySweep, FailedCallsInOpen) { SweepCalls(/*repair=*/false); }

TEST_P(RecoverySweep, FailedCallsInRepair) { SweepCalls(/*repair=*/true); }

INSTANTIATE_TEST_SUITE_P(Modes, RecoverySweep, testing::ValuesIn(kModes),
                         [](const testing::TestParamInfo<Mode>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace leveldb
