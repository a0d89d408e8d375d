// A DeLSM database in which a compaction replaced an SST that is still on
// disk (killed before its removal pass): only DeLSM's manifest records the
// SST as replaced. Debian's LevelDB (tests/leveldb_oracle, its own process)
// runs its RepairDB on it, which moves that manifest to lost/:
//   * whole, then DeLSM's RepairDB cut short where it puts LevelDB's
//     manifest away and brings DeLSM's back, then run again, brings back no
//     deleted key, nor with a later record of DeLSM's manifest in lost/
//     damaged; a DeLSM manifest in lost/ whose reads fail (EIO), or a
//     failed read of the manifest or listing of a level directory that
//     decides the directory's kind, fails it, changing nothing;
//   * whole, then a power cut that empties the manifest it wrote without a
//     sync: DB::Open refuses the directory, and DeLSM's RepairDB reads
//     DeLSM's manifests, whatever number LevelDB's bears;
//   * killed (SIGKILL through ptrace) at its first move of a manifest or at
//     its rename of CURRENT: DB::Open refuses the directory, and DeLSM's
//     RepairDB brings back every write, the writes only LevelDB's table of
//     the WAL holds too, as LevelDB's RepairDB run again does, and no key
//     the compaction deleted.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/read_error_env.h"
#include "tests/db_options.h"
#include "tests/failed_repair.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/killed_repair.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/replaced_sst_left.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

using Contents = std::map<std::string, std::string>;
using delsm_test::Key;
using delsm_test::LevelDbTableFiles;
using delsm_test::SnapshotChanges;

constexpr int kCutKeys = 40;
bool CutDeleted(int i) { return i % 4 == 0; }
std::string CutValue(int i) { return Key(i) + std::string(3000, 'v'); }
// Written after the compaction, left in the WAL: LevelDB's RepairDB makes
// a table of them, which DeLSM's RepairDB takes in.
std::string WalKey(int i) { return "wal" + Key(i); }

// Flushed after the compaction (`late_flush`): its records follow the
// compaction's in the same manifest.
const char kLateKey[] = "late";

// Where a run of LevelDB's RepairDB ends. It makes a table of each WAL
// and moves the WAL to lost/ (ConvertLogFilesToTables), then writes its
// manifest to a temporary file, moves every manifest to lost/, renames its
// own into place and writes CURRENT (WriteDescriptor).
enum class LevelDbRepairEnd {
  kWhole,
  // Killed at the entry of its first rename of a manifest: the WALs are
  // tables and in lost/, DeLSM's CURRENT and manifests are as they were.
  kKilledAtManifestMove,
  // Killed at the entry of its rename of CURRENT: DeLSM's manifests are in
  // lost/, LevelDB's is in place, CURRENT still names DeLSM's.
  kKilledAtCurrent,
};

#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
// Runs Debian's LevelDB RepairDB on `dbname` and kills it where `end` says
// (not kWhole). False, with *why, if it ended or the tracing failed before
// that call.
bool KillLevelDbRepair(const std::string& dbname, LevelDbRepairEnd end,
                       std::string* why) {
  return delsm_test::KillLevelDbRepairAtRename(
      dbname,
      [end](const std::string& from, const std::string& to) {
        return end == LevelDbRepairEnd::kKilledAtManifestMove
                   ? from.find("/MANIFEST-") != std::string::npos
                   : delsm_test::EndsWith(to, "/CURRENT");
      },
      why);
}
#endif

// The state of replaced_sst_left.h, with (`wal_keys`) a few keys the
// second Open wrote left in its WAL: only DeLSM's older manifest records
// the SST as replaced. LevelDB's RepairDB then puts that manifest in lost/
// and makes a table of the WAL, or is killed where `end` says. With
// `late_flush`, kLateKey is flushed after the compaction, before the kill.
void MakeRewrittenWithAReplacedSst(
    const std::string& tmp, const std::string& dbname, bool wal_keys = true,
    bool late_flush = false, LevelDbRepairEnd end = LevelDbRepairEnd::kWhole) {
  delsm_test::ReplacedSstLeft spec;
  spec.keys = kCutKeys;
  spec.value = CutValue;
  spec.deleted = CutDeleted;
  if (late_flush) {
    spec.after_compaction = [](DBImpl* impl) {
      ASSERT_TRUE(impl->Put(WriteOptions(), kLateKey, CutValue(0)).ok());
      ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    };
  }
  if (wal_keys) {
    spec.after_open = [](DB* db) {
      for (int i = 0; i < 10; i++) {
        ASSERT_TRUE(db->Put(WriteOptions(), WalKey(i), CutValue(i)).ok());
      }
    };
  }
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeReplacedSstLeft(dbname, spec));

  if (end != LevelDbRepairEnd::kWhole) {
#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
    std::string why;
    ASSERT_TRUE(KillLevelDbRepair(dbname, end, &why)) << why;
#else
    FAIL() << "needs the LevelDB oracle and x86-64 system call registers";
#endif
  } else {
    const delsm_test::OracleRun repaired =
        delsm_test::RunOracle({"repair", dbname}, "", tmp + "/oracle");
    ASSERT_TRUE(repaired.ok) << repaired.err;
  }
  ASSERT_EQ(wal_keys, !LevelDbTableFiles(dbname).empty())
      << "LevelDB's tables: what it made of the WAL";
}

// Every key as it was written, no deleted key back.
void ExpectCutDbRepaired(const std::string& dbname, bool wal_keys = true) {
  DB* raw = nullptr;
  Options options;
  Status s =
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kCutKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    if (CutDeleted(i)) {
      EXPECT_TRUE(s.IsNotFound()) << "deleted key " << Key(i) << " came back";
    } else {
      EXPECT_TRUE(s.ok() && v == CutValue(i)) << Key(i) << ": " << s.ToString();
    }
  }
  for (int i = 0; wal_keys && i < 10; i++) {
    std::string v;
    s = db->Get(ReadOptions(), WalKey(i), &v);
    EXPECT_TRUE(s.ok() && v == CutValue(i))
        << WalKey(i) << " (LevelDB's table of the WAL): " << s.ToString();
  }
}

// DeLSM's RepairDB, taking in LevelDB's tables, moves the manifest in
// lost/ back; cut short (EIO, or a kill) once it has put LevelDB's
// manifest away, the next RepairDB sees no LevelDB database and must
// still find the record.
TEST(LevelDbRepairedCutTest, TakeInCutShortThenRepairAgainKeepsDeletesDeleted) {
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname);
  if (HasFatalFailure()) return;
  delsm_test::FailRepairAtRename(dbname, tmp.path() + "/env_shadow",
                                 "/lost/MANIFEST-",
                                 "no DeLSM manifest was moved back from lost/");
  if (HasFatalFailure()) return;
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
}

// DeLSM's RepairDB that fails at its take-in's commit (the first move into
// lost/, EIO) leaves the directory to LevelDB, which can still open it: it
// must also leave DeLSM's manifests where LevelDB's RepairDB put them. Had
// the take-in brought them back from lost/ before its commit, LevelDB's
// next open would delete them as manifests older than its own, and with
// them the only record of the replaced SST: DeLSM's next RepairDB would
// merge it, the deleted keys back.
TEST(LevelDbRepairedCutTest, TakeInFailedAtItsCommitThenLevelDbOpensIt) {
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname);
  if (HasFatalFailure()) return;
  delsm_test::FailRepairAtRename(dbname, tmp.path() + "/env_shadow",
                                 "/lost/leveldb-",
                                 "the take-in made no move into lost/");
  if (HasFatalFailure()) return;
  const delsm_test::OracleRun opened =
      delsm_test::RunOracle({"dump", dbname}, "", tmp.path() + "/dump");
  ASSERT_TRUE(opened.ok) << "LevelDB's open: " << opened.err;
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
}

// A manifest of DeLSM's that LevelDB's RepairDB put in lost/ holds the
// record of the replaced SST, and a record written after it is damaged (a
// flipped byte in its last record). DeLSM's RepairDB reads what such a
// manifest holds before and after the damage (FindRetiredSsts), so the
// take-in must bring it back from lost/ as it brings back a whole one:
// left there, its record would be read by nobody, and the repair would
// merge the replaced SST, the deleted keys back.
TEST(LevelDbRepairedCutTest, DamagedDelsmManifestInLostStillCounts) {
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, /*wal_keys=*/true,
                                /*late_flush=*/true);
  if (HasFatalFailure()) return;
  // DeLSM's manifests LevelDB's RepairDB moved: the first session's, which
  // records the compaction and then the late flush, and the second Open's
  // (a snapshot, no history). The lowest number is the first session's.
  std::string first;
  for (const std::string& name : delsm_test::ListDir(dbname + "/lost")) {
    if (name.rfind("MANIFEST-", 0) == 0 && (first.empty() || name < first)) {
      first = name;
    }
  }
  ASSERT_FALSE(first.empty()) << "LevelDB's RepairDB put no manifest in lost/";
  const std::string path = dbname + "/lost/" + first;
  std::string bytes = delsm_test::ReadWholeFile(path);
  ASSERT_FALSE(bytes.empty());
  bytes.back() ^= 0x40;  // the last record's payload: its crc fails
  ASSERT_TRUE(delsm_test::WriteWhole(path, bytes));

  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
  DB* raw = nullptr;
  s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  std::string v;
  s = db->Get(ReadOptions(), kLateKey, &v);
  EXPECT_TRUE(s.ok() && v == CutValue(0)) << kLateKey << ": " << s.ToString();
}

// LevelDB's RepairDB writes its manifest without a sync (it closes the file
// and renames it to MANIFEST-000001, then syncs only CURRENT's contents),
// so a power cut after it can leave CURRENT naming an empty
// MANIFEST-000001 beside DeLSM's data, DeLSM's manifests in lost/. Nothing
// of that manifest reads: it is no DeLSM manifest, and its number (LevelDB's
// repair always writes 1) says nothing of DeLSM's, which record the SST the
// compaction replaced. Open refuses the directory, changing nothing, and
// RepairDB brings back every write and no deleted key, with a table of the
// WAL or without one.
class LevelDbManifestEmptiedTest : public testing::TestWithParam<bool> {};

TEST_P(LevelDbManifestEmptiedTest, RepairDbKeepsDeletesDeleted) {
  const bool wal_keys = GetParam();
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, wal_keys);
  if (HasFatalFailure()) return;
  ASSERT_EQ("MANIFEST-000001\n",
            delsm_test::ReadWholeFile(dbname + "/CURRENT"));
  // What a power cut leaves of a file written and never synced.
  ASSERT_TRUE(delsm_test::WriteWhole(dbname + "/MANIFEST-000001", ""));
  {
    const auto before = delsm_test::TreeSnapshot(dbname);
    DB* raw = nullptr;
    const Status s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(),
                                 dbname, &raw);
    delete raw;
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_EQ(std::vector<std::string>(),
              SnapshotChanges(before, delsm_test::TreeSnapshot(dbname)));
  }
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname, wal_keys);
}

INSTANTIATE_TEST_SUITE_P(WalTable, LevelDbManifestEmptiedTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "WithWalTable"
                                                         : "WithoutWalData");
                         });

// RepairDB over an Env that `arm` (given the database's path) makes fail
// must fail with an IOError, after `failures` counted at least one, and
// change nothing in the directory; once the Env works, RepairDB recovers
// everything (ExpectCutDbRepaired). `what` names the failure.
void ExpectFailedRepairChangesNothing(
    bool wal_keys,
    const std::function<void(ReadErrorEnv*, const std::string&)>& arm,
    int (ReadErrorEnv::*failures)() const, const char* what) {
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, wal_keys);
  if (testing::Test::HasFatalFailure()) return;
  const auto before = delsm_test::TreeSnapshot(dbname);
  {
    ReadErrorEnv env(Env::Default());
    arm(&env, dbname);
    Options o;
    o.env = &env;
    const Status s = RepairDB(dbname, o);
    ASSERT_GT((env.*failures)(), 0) << "nothing failed: " << what;
    EXPECT_TRUE(s.IsIOError())
        << "RepairDB after " << what << ": " << s.ToString();
    EXPECT_EQ(std::vector<std::string>(),
              SnapshotChanges(before, delsm_test::TreeSnapshot(dbname)));
  }
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname, wal_keys);
}

// A DeLSM manifest in lost/ whose reads fail (EIO) is not damage and not
// "no manifest": the numbers it names are unknown (a taken-in table could
// get one it records as replaced, and the next RepairDB would not merge
// it), and left in lost/ its record of the replaced SST would be unknown
// to the repair (the deleted keys would come back). RepairDB fails and
// changes nothing; once the reads work it recovers everything.
enum class LostManifestReads { kEvery, kFirstOnly };

class LevelDbRepairedReadErrorTest
    : public testing::TestWithParam<LostManifestReads> {};

TEST_P(LevelDbRepairedReadErrorTest, FailedManifestReadFailsTheTakeIn) {
  ExpectFailedRepairChangesNothing(
      /*wal_keys=*/true,
      [](ReadErrorEnv* env, const std::string&) {
        env->set_failing_reads(
            "/lost/MANIFEST-", /*good_bytes=*/0,
            /*files=*/GetParam() == LostManifestReads::kFirstOnly ? 1 : 0);
      },
      &ReadErrorEnv::failed_reads, "a failed read of a manifest in lost/");
}

INSTANTIATE_TEST_SUITE_P(
    Reads, LevelDbRepairedReadErrorTest,
    testing::Values(LostManifestReads::kEvery, LostManifestReads::kFirstOnly),
    [](const testing::TestParamInfo<LostManifestReads>& info) {
      return info.param == LostManifestReads::kEvery ? "EveryRead"
                                                     : "FirstFileOnly";
    });

// lost/ itself cannot be read (EIO on its listing; access(2), behind
// FileExists, fails as well and answers false): which of DeLSM's manifests
// LevelDB's RepairDB put there is unknown, and so is the record of the
// replaced SST. RepairDB fails and changes nothing. Taking the failed
// listing for no lost/, it brought no manifest back, the repair merged the
// replaced SST, and the deleted keys came back.
TEST(LevelDbRepairedReadErrorTest, UnreadableLostDirectoryFailsTheTakeIn) {
  ExpectFailedRepairChangesNothing(
      /*wal_keys=*/true,
      [](ReadErrorEnv* env, const std::string& dbname) {
        env->set_failing_lookups(dbname + "/lost");
      },
      &ReadErrorEnv::failed_listings, "a failed listing of lost/");
}

// Which kind of directory RepairDB is given is decided from the manifest
// CURRENT names. A read of it that fails (EIO) once, there, is not a
// damaged manifest: taken for one, a DeLSM database LevelDB's RepairDB
// rewrote (here without WAL data, so no LevelDB table tells it either)
// would be repaired as a damaged DeLSM database, which does not bring
// DeLSM's manifests back from lost/, and the SST their records say a
// compaction replaced would be merged (the deleted keys back).
TEST(LevelDbRepairedDetectionTest, FailedManifestReadFailsRepairDb) {
  ExpectFailedRepairChangesNothing(
      /*wal_keys=*/false,
      [](ReadErrorEnv* env, const std::string& dbname) {
        env->set_failing_reads(dbname + "/MANIFEST-", /*good_bytes=*/0,
                               /*files=*/1);
      },
      &ReadErrorEnv::failed_reads, "a failed read of LevelDB's manifest");
}

// Detects the format of a rewritten database whose level directories fail
// as `arm` makes them fail: the failure must be an IOError, never a
// verdict.
void ExpectFailedLevelDirectoryIsAnError(
    const std::function<void(ReadErrorEnv*, const std::string&)>& arm) {
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, /*wal_keys=*/false);
  if (testing::Test::HasFatalFailure()) return;
  ReadErrorEnv env(Env::Default());
  arm(&env, dbname + "/L");
  DatabaseFormat format;
  std::string evidence;
  const Status s = DetectDatabaseFormat(&env, dbname, &format, &evidence);
  ASSERT_GT(env.failed_listings(), 0) << "no level directory listing failed";
  EXPECT_TRUE(s.IsIOError())
      << s.ToString() << "; judged " << static_cast<int>(format) << " ("
      << evidence << ")";
}

// The same for a level directory that cannot be listed: DeLSM's SSTs are
// unknown, and the directory is not judged LevelDB's for want of them.
TEST(LevelDbRepairedDetectionTest, FailedLevelDirectoryListingIsAnError) {
  ExpectFailedLevelDirectoryIsAnError(
      [](ReadErrorEnv* env, const std::string& prefix) {
        env->set_failing_listings(prefix);
      });
}

// The same when access(2), behind FileExists, fails on those directories
// too and answers false (an inode that cannot be read fails both): the
// failed listing is still no proof that the directory is not there, and
// the directory is not judged LevelDB's.
TEST(LevelDbRepairedDetectionTest, FailedLevelDirectoryLookupIsAnError) {
  ExpectFailedLevelDirectoryIsAnError(
      [](ReadErrorEnv* env, const std::string& prefix) {
        env->set_failing_lookups(prefix);
      });
}

// LevelDB's RepairDB killed (a crash, a power cut) on its way through a
// DeLSM database: at its first move of a manifest to lost/ (DeLSM's CURRENT
// and manifests as they were, beside a LevelDB table holding the only copy
// in the directory of what the WAL held), or at its rename of CURRENT
// (DeLSM's manifests in lost/, CURRENT naming one). DB::Open must refuse
// the directory, changing nothing: it would read DeLSM's manifest without
// the WAL's writes (and hand their sequence numbers out again), or fail on
// the missing manifest. DeLSM's RepairDB must bring every write back, the
// table's too, as LevelDB's RepairDB run again does, and no key the
// compaction deleted: the record of the SST it replaced is in the manifest
// LevelDB's repair moved to lost/ or was about to.
class LevelDbRepairKilledTest
    : public testing::TestWithParam<std::tuple<LevelDbRepairEnd, bool>> {};

TEST_P(LevelDbRepairKilledTest, OpenRefusesAndRepairDbRecoversEveryWrite) {
  const LevelDbRepairEnd end = std::get<0>(GetParam());
  const bool wal_keys = std::get<1>(GetParam());
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, wal_keys,
                                /*late_flush=*/false, end);
  if (HasFatalFailure()) return;

  // The oracle: LevelDB's RepairDB, run again (on a copy), makes its
  // database of what it left, the WAL's writes included.
  {
    const std::string copy = tmp.path() + "/leveldb-copy";
    ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));
    const delsm_test::OracleRun again =
        delsm_test::RunOracle({"repair", copy}, "", tmp.path() + "/again");
    ASSERT_TRUE(again.ok) << again.err;
    const delsm_test::OracleRun dump =
        delsm_test::RunOracle({"dump", copy}, "", tmp.path() + "/dump");
    ASSERT_TRUE(dump.ok) << dump.err;
    Contents leveldb_view;
    ASSERT_TRUE(delsm_test::ParseOracleDump(dump.out, &leveldb_view));
    for (int i = 0; wal_keys && i < 10; i++) {
      EXPECT_EQ(CutValue(i), leveldb_view[WalKey(i)]) << WalKey(i);
    }
  }

  // DB::Open refuses it and changes nothing (on a copy: the repair below is
  // judged alone). Killed before it moved anything, without a table of a
  // WAL, LevelDB's RepairDB left DeLSM's database as it was: Open reads it.
  {
    const std::string copy = tmp.path() + "/open-copy";
    ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));
    if (end == LevelDbRepairEnd::kKilledAtManifestMove && !wal_keys) {
      ExpectCutDbRepaired(copy, wal_keys);
    }
    const auto before = delsm_test::TreeSnapshot(copy);
    for (bool create : {false, true}) {
      if (end == LevelDbRepairEnd::kKilledAtManifestMove && !wal_keys) break;
      Options o;
      o.create_if_missing = create;
      DB* raw = nullptr;
      const Status s =
          delsm::Open(o, delsm_test::ManualCompactionOnly(), copy, &raw);
      delete raw;
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find("run RepairDB"))
          << s.ToString();
      EXPECT_EQ(std::vector<std::string>(),
                SnapshotChanges(before, delsm_test::TreeSnapshot(copy)));
    }
  }

  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(LevelDbTableFiles(dbname).empty());
  ExpectCutDbRepaired(dbname, wal_keys);
}

// The take-in after LevelDB's RepairDB killed at its first move of a
// manifest (DeLSM's CURRENT and manifest as they were, a table of the
// WAL beside them) keeps its PLAN, and DB::Open out, until DeLSM's repair
// that follows commits: CURRENT naming a whole DeLSM manifest is no proof
// of that here, since it named DeLSM's own from the start. Repairs that
// fail at their commit (the rename of CURRENT, EIO) leave an Open refused,
// and the next RepairDB recovers every write. Taking the old manifest for
// the repair's, the second RepairDB removed the PLAN, the Open that
// followed read the old manifest and removed the taken-in SSTs as
// directories no manifest names: the WAL's writes gone.
TEST(LevelDbRepairKilledTakeInTest, KeepsItsPlanUntilItsRepairCommits) {
  delsm_test::TempDir tmp("delsm_repair_replaced_sst");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, /*wal_keys=*/true,
                                /*late_flush=*/false,
                                LevelDbRepairEnd::kKilledAtManifestMove);
  if (HasFatalFailure()) return;
  for (int attempt = 0; attempt < 2; attempt++) {
    delsm_test::FailRepairAtRename(dbname, tmp.path() + "/env_shadow",
                                   "/CURRENT", "the repair renamed no CURRENT");
    if (HasFatalFailure()) return;
  }
  {
    DB* raw = nullptr;
    const Status s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(),
                                 dbname, &raw);
    delete raw;
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
}

INSTANTIATE_TEST_SUITE_P(
    Ends, LevelDbRepairKilledTest,
    testing::Combine(testing::Values(LevelDbRepairEnd::kKilledAtManifestMove,
                                     LevelDbRepairEnd::kKilledAtCurrent),
                     testing::Bool()),
    [](const testing::TestParamInfo<std::tuple<LevelDbRepairEnd, bool>>& info) {
      return std::string(std::get<0>(info.param) ==
                                 LevelDbRepairEnd::kKilledAtManifestMove
                             ? "AtManifestMove"
                             : "AtCurrent") +
             (std::get<1>(info.param) ? "WithWalTable" : "WithoutWalData");
    });

}  // namespace
}  // namespace leveldb
