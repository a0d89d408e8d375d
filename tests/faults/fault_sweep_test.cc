// Fault sweep: a workload that flushes and compacts through several levels
// runs with one SST-directory system call failing (EIO); the sweep moves
// the failure over every kind of call and over points spread across each
// kind's calls. After each run the DB reopens on a healthy file system,
// every acknowledged write is there, and no orphan directory remains.
#include <cerrno>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/sweep_workload.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::ListDir;
using delsm_test::TempDir;

constexpr int kKeys = 1200;
constexpr int kPointsPerKind = 6;

// Every fourth value is above the default inline_threshold (2048): the
// sweep fails calls on both paths, KV files and values inline in meta files.
std::string Value(int i) {
  return std::string((i % 4 == 0 ? 2100 : 200) + i % 300, 'a' + i % 26);
}

Options DbOptions() { return delsm_test::NewDbOptions(64 << 10); }
delsm::Tuning DbTuning() { return delsm_test::SmallLevels(300, 64, 400); }

// Runs the workload on `fs`; returns how many leading writes were
// acknowledged (the workload stops at the first failed write).
int RunWorkload(const std::string& dbname, FileSystem* fs) {
  DB* db = nullptr;
  if (!OpenWithFileSystem(DbOptions(), DbTuning(), dbname, fs, &db).ok()) {
    return 0;
  }
  int acked = 0;
  for (int i = 0; i < kKeys; i++) {
    if (!db->Put(WriteOptions(), delsm_test::SweepKey(i), Value(i)).ok()) break;
    acked = i + 1;
  }
  db->CompactRange(nullptr, nullptr);
  static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  delete db;
  return acked;
}

// Reopens healthily and checks the acknowledged prefix and orphans.
void Verify(const std::string& dbname, int acked, const std::string& what) {
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), DbTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << what << ": reopen: " << s.ToString();
  // Let the compactions the reopen starts finish before reading: inputs a
  // Get pins while their compaction commits are only collected by the next
  // background job, i.e. after the orphan check below (seen under TSan).
  static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  delsm_test::CheckAcknowledgedPrefix(db, kKeys, acked, Value, what);
  if (testing::Test::HasFatalFailure()) return;
  static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  std::string sstables;
  ASSERT_TRUE(db->GetProperty("leveldb.sstables", &sstables));
  delete db;

  // Nothing is left that the live version does not own.
  for (const std::string& finding :
       delsm_test::OrphanSstEntries(dbname, sstables)) {
    ADD_FAILURE() << what << ": " << finding;
  }
}

TEST(FaultSweepTest, EveryKindOfCallFailsInTurn) {
  // A clean run counts the calls of each kind.
  FaultInjectionFileSystem counter(FileSystem::Default());
  uint64_t counts[kNumFsOps];
  {
    TempDir tmp;
    const std::string dbname = tmp.path() + "/db";
    ASSERT_EQ(kKeys, RunWorkload(dbname, &counter));
    Verify(dbname, kKeys, "clean run");
    for (int k = 0; k < kNumFsOps; k++) {
      counts[k] = counter.Count(static_cast<FsOp>(k));
    }
  }

  int points = 0, fired = 0, runs_with_error = 0;
  std::string per_kind;  // "<kind>=<calls> calls (<points> points, <errors>)"
  for (int k = 0; k < kNumFsOps; k++) {
    const FsOp op = static_cast<FsOp>(k);
    if (counts[k] == 0) continue;
    const int points_before = points, errors_before = runs_with_error;
    std::set<uint64_t> nths;
    for (int p = 0; p < kPointsPerKind; p++) {
      nths.insert(1 + counts[k] * p / kPointsPerKind);
    }
    nths.insert(counts[k]);
    for (uint64_t n : nths) {
      TempDir tmp;
      const std::string dbname = tmp.path() + "/db";
      FaultInjectionFileSystem fs(FileSystem::Default());
      fs.FailNth(op, n, EIO);
      const int acked = RunWorkload(dbname, &fs);
      points++;
      if (fs.Fired()) fired++;
      if (acked < kKeys) runs_with_error++;
      const std::string what = std::string(FsOpName(op)) + " call #" +
                               std::to_string(n) + " of " +
                               std::to_string(counts[k]);
      Verify(dbname, acked, what);
      if (HasFatalFailure()) return;
    }
    per_kind +=
        std::string(" ") + FsOpName(op) + "=" + std::to_string(counts[k]) +
        " calls (" + std::to_string(points - points_before) + " points, " +
        std::to_string(runs_with_error - errors_before) + " stopped writes)";
  }
  std::printf(
      "fault sweep: %d fault points over %d kinds of call, %d faults "
      "delivered, %d runs stopped accepting writes;%s\n",
      points, kNumFsOps, fired, runs_with_error, per_kind.c_str());
  EXPECT_GT(fired, points / 2);
}

}  // namespace
}  // namespace leveldb
