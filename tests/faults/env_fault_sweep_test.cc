// Fault sweep over the Env side: the WAL, MANIFEST, CURRENT and their
// temporaries go through a FaultInjectionEnv that fails one call (EIO) of
// one kind -- open, append, flush, sync, rename, remove -- per run. The
// workload writes, closes, reopens (so recovery's calls are swept too),
// writes more, compacts through several levels and closes; the sweep moves
// the failure over every call of the rarer kinds and over points spread
// across the calls of the frequent ones (append, flush). After each run
// the database reopens on the healthy Env, every acknowledged write is
// there, nothing unacknowledged shows a wrong value, and nothing is
// orphaned. The test prints how many fault points it covered.
#include <cerrno>
#include <cstdio>
#include <set>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_env.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/sweep_workload.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;

constexpr int kKeys = 800;
constexpr uint64_t kAllPointsUpTo = 40;
constexpr int kPointsPerKind = 10;

// Every fourth value is above the default inline_threshold (2048): both
// KV files and inline values are written while Env calls fail.
std::string Value(int i) {
  return std::string((i % 4 == 0 ? 2100 : 150) + i % 250, 'a' + i % 26);
}

Options DbOptions(Env* env) {
  Options options = delsm_test::NewDbOptions(48 << 10);
  if (env != nullptr) options.env = env;
  return options;
}

delsm::Tuning DbTuning() { return delsm_test::SmallLevels(250, 64, 350); }

// Writes keys [from, to) into an open DB; returns the index after the last
// acknowledged one.
int WriteRange(DB* db, int from, int to) {
  for (int i = from; i < to; i++) {
    WriteOptions wo;
    wo.sync = i % 97 == 0;  // some WAL syncs among the writes
    if (!db->Put(wo, delsm_test::SweepKey(i), Value(i)).ok()) return i;
  }
  return to;
}

// Runs the workload with `env` under the DB; returns how many leading
// writes were acknowledged (it stops at the first failure).
int RunWorkload(const std::string& dbname, Env* env) {
  DB* db = nullptr;
  if (!delsm::Open(DbOptions(env), DbTuning(), dbname, &db).ok()) return 0;
  int acked = WriteRange(db, 0, kKeys / 2);
  delete db;
  if (acked < kKeys / 2) return acked;
  // The reopen replays the WAL and writes a new manifest: recovery's calls.
  db = nullptr;
  if (!delsm::Open(DbOptions(env), DbTuning(), dbname, &db).ok()) return acked;
  acked = WriteRange(db, kKeys / 2, kKeys);
  db->CompactRange(nullptr, nullptr);
  static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  delete db;
  return acked;
}

// Reopens on the healthy Env and checks the acknowledged prefix, the rest,
// and orphans.
void Verify(const std::string& dbname, int acked, const std::string& what) {
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(nullptr), DbTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << what << ": reopen: " << s.ToString();
  std::unique_ptr<DB> holder(db);
  // Compactions the reopen starts finish before the reads: inputs a reader
  // pins while their compaction commits would be collected only by the
  // next background job, after the orphan check.
  s = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  delsm_test::CheckAcknowledgedPrefix(db, kKeys, acked, Value, what);
  if (testing::Test::HasFatalFailure()) return;
  s = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname)) << what;
}

TEST(EnvFaultSweepTest, EveryKindOfEnvCallFailsInTurn) {
  // A clean run counts the calls of each kind.
  uint64_t counts[kNumEnvOps];
  {
    TempDir tmp("delsm_envsweep");
    const std::string dbname = tmp.path() + "/db";
    FaultInjectionEnv counter(Env::Default(), tmp.path() + "/shadow");
    ASSERT_EQ(kKeys, RunWorkload(dbname, &counter));
    Verify(dbname, kKeys, "clean run");
    for (int k = 0; k < kNumEnvOps; k++) {
      counts[k] = counter.Count(static_cast<EnvOp>(k));
    }
  }

  int points = 0, fired = 0, runs_with_error = 0;
  std::string per_kind;
  for (int k = 0; k < kNumEnvOps; k++) {
    const EnvOp op = static_cast<EnvOp>(k);
    per_kind += std::string(" ") + EnvOpName(op) + "=" +
                std::to_string(counts[k]) + " calls";
    if (counts[k] == 0) continue;
    // Every call of the rarer kinds (opens, syncs, renames, removes: each
    // one is a distinct step of creating, recovering or switching a file);
    // for appends and flushes, which repeat per write, the first calls,
    // the last and points spread over the rest.
    std::set<uint64_t> nths;
    if (counts[k] <= kAllPointsUpTo) {
      for (uint64_t n = 1; n <= counts[k]; n++) nths.insert(n);
    } else {
      nths = {1, 2, counts[k]};
      for (int p = 1; p < kPointsPerKind; p++) {
        nths.insert(1 + counts[k] * p / kPointsPerKind);
      }
    }
    int kind_points = 0;
    for (uint64_t n : nths) {
      TempDir tmp("delsm_envsweep");
      const std::string dbname = tmp.path() + "/db";
      FaultInjectionEnv env(Env::Default(), tmp.path() + "/shadow");
      env.FailNth(op, n, EIO);
      const int acked = RunWorkload(dbname, &env);
      points++;
      kind_points++;
      if (env.Fired()) fired++;
      if (acked < kKeys) runs_with_error++;
      const std::string what = std::string(EnvOpName(op)) + " call #" +
                               std::to_string(n) + " of " +
                               std::to_string(counts[k]);
      Verify(dbname, acked, what);
      if (HasFatalFailure()) return;
    }
    per_kind += " (" + std::to_string(kind_points) + " points)";
  }
  std::printf(
      "env fault sweep: %d fault points over %d kinds of call, %d faults "
      "delivered, %d runs stopped accepting writes;%s\n",
      points, kNumEnvOps, fired, runs_with_error, per_kind.c_str());
  EXPECT_GT(fired, points / 2);
}

}  // namespace
}  // namespace leveldb
