// RepairDB killed at any point and run again: a key deleted before the
// first repair stays deleted. The first repair merges every old SST and
// drops the tombstones; its manifest records what it replaced, so that the
// second repair does not merge again what the first had not yet put away
// (db/repair.cc, FindRetiredSsts).
//
// The database: a put of one key compacted down to L2, where a later
// compaction (L1 into L2) wrote it into the existing directory as
// META-<n>; then the key deleted and flushed to L0. Each disk call of the
// first repair on the SST directories is in turn cut by a SIGKILL (a child
// process, tests/crash/kill_at_each_call.h), on a fresh copy; then a
// second RepairDB runs to the end and the database must read as built.
//
// Also: a compaction killed after its commit, then the next Open killed at
// each of its disk calls in turn, then RepairDB: the replaced SSTs the
// compaction left must not come back either.
//
// With values that stay put: the values a compaction's commit left dead in
// their home (killed before it unlinked them), among them the old put of a
// key whose tombstone it dropped, stay dead whatever point the first
// repair is killed at: the directory it was building, left without a meta
// file, is not taken for a committed SST whose meta file was lost.
//
// What repair cannot use is never deleted either:
// tests/crash/repair_unusable_files_to_lost_test.cc.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "table/meta_file.h"
#include "testing/fault_injection_file_system.h"
#include "tests/crash/kill_at_each_call.h"
#include "tests/crash/repair_kill_sweep.h"
#include "tests/file_bytes.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;
using delsm_test::TempDir;
using repair_kill::BuildWithDamagedMeta;
using repair_kill::Check;
using repair_kill::CheckKeys;
using repair_kill::DbOptions;
using repair_kill::Impl;
using repair_kill::kDeleted;
using repair_kill::KillRepairAtEachCallThenRepairAgain;
using repair_kill::kKeys;
using repair_kill::ManualTuning;
using repair_kill::OpenWithOldAndNewPuts;
using repair_kill::Sweep;
using repair_kill::Value;

// Builds the database described at the top. Returns "" or what failed.
std::string Build(const std::string& dbname) {
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), ManualTuning(), dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<DB> db(raw);
  DBImpl* impl = Impl(raw);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    s = db->Put(WriteOptions(), Key(i), Value("old", i));
  }
  // L0 -> L1 -> L2: the old puts in an L2 directory of their own.
  if (s.ok()) s = impl->TEST_FlushMemTable();
  if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
  if (s.ok()) s = impl->TEST_CompactRange(1, nullptr, nullptr);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (i != kDeleted) s = db->Put(WriteOptions(), Key(i), Value("new", i));
  }
  if (s.ok()) s = impl->TEST_FlushMemTable();
  if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
  // The delete, in an L0 SST.
  if (s.ok()) s = db->Delete(WriteOptions(), Key(kDeleted));
  if (s.ok()) s = impl->TEST_FlushMemTable();
  // L1 into L2: the output (with the old put of kDeleted) is written into
  // the L2 directory as META-<n>.
  if (s.ok()) s = impl->TEST_CompactRange(1, nullptr, nullptr);
  if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
  return s.ok() ? "" : s.ToString();
}

// The child of every kill sweep here: a RepairDB or an Open, killed at a
// disk call (tests/crash/kill_at_each_call.h).
TEST(RepairReplacedKilledChild, Child) {
  delsm_test::RunKilledChild(DbOptions(), ManualTuning());
}

// The first repair's intermediate directories (old directories rebuilt, WALs
// converted) are removed after its commit; one a kill leaves holds a copy
// of an old SST, under a number no manifest records as replaced.
TEST(RepairReplacedTest, KilledAfterCommitIntermediateDirectories) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/true, Build);
}

// As built, META-<n> bears the last number handed out: the first repair's
// output may be numbered n too, and its manifest then records n as both
// replaced and live.
TEST(RepairReplacedTest, KilledAfterCommitOutputNumberedAsAnOldSst) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false, Build);
}

// A compaction killed after its commit, before it removed the SSTs it
// replaced; then an Open killed at each of its disk calls in turn; then
// RepairDB. The compaction's manifest record is what tells RepairDB that
// the replaced meta file left in the surviving L1 directory is not to be
// merged (it holds the puts whose tombstones the compaction dropped).

// Enough keys that some replaced KV file comes after the replaced meta
// file in a directory listing.
constexpr int kCompactionKeys = 60;
constexpr int kEvery = 3;  // the deleted keys: every third one

// The child that leaves a compaction killed after its commit:
// DELSM_RR_COMPACT_DB is built (puts compacted into L1, every third key
// deleted and flushed to L0), then L0 is compacted into L1 with every
// unlink failing, so that the replaced SSTs stay; SIGKILL once it
// committed.
TEST(RepairReplacedCompactionChild, Child) {
  const char* dbname = std::getenv("DELSM_RR_COMPACT_DB");
  if (dbname == nullptr) return;
  FaultInjectionFileSystem fs(FileSystem::Default());
  DB* raw = nullptr;
  if (!OpenWithFileSystem(DbOptions(), ManualTuning(), dbname, &fs, &raw)
           .ok()) {
    _exit(2);
  }
  DBImpl* impl = Impl(raw);
  Status s;
  for (int i = 0; i < kCompactionKeys && s.ok(); i++) {
    s = raw->Put(WriteOptions(), Key(i), Value("new", i));
  }
  if (s.ok()) s = impl->TEST_FlushMemTable();
  if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 0; i < kCompactionKeys && s.ok(); i += kEvery) {
    s = raw->Delete(WriteOptions(), Key(i));
  }
  if (s.ok()) s = impl->TEST_FlushMemTable();
  if (!s.ok()) _exit(3);
  FaultSpec spec;
  spec.sticky = true;
  fs.Arm(FsOp::kUnlink, spec);
  if (!impl->TEST_CompactRange(0, nullptr, nullptr).ok()) _exit(4);
  raise(SIGKILL);
}

// "" if every third key is deleted and every other reads its new value.
std::string CheckAfterCompaction(const std::string& dbname) {
  return CheckKeys(dbname, kCompactionKeys,
                   [](int i) { return i % kEvery == 0; });
}

TEST(RepairReplacedTest, CompactionKilledAfterCommitThenOpenKilledThenRepair) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string pristine = tmp.path() + "/pristine";
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "RepairReplacedCompactionChild.Child",
                    {{"DELSM_RR_COMPACT_DB", pristine}}));
  {
    // RepairDB right away knows the replaced SSTs from the manifest.
    const std::string copy = tmp.path() + "/as_left";
    ASSERT_EQ("", delsm_test::CopyTree(pristine, copy));
    ASSERT_TRUE(RepairDB(copy, DbOptions()).ok());
    ASSERT_EQ("", CheckAfterCompaction(copy))
        << "RepairDB right after the kill";
    delsm_test::RemoveTree(copy);
  }

  // calls 0: until an Open (and its background work) ends first.
  const delsm_test::KillAtEachCall sweep =
      Sweep(delsm_test::KilledOperation::kOpen, pristine, tmp.path(), 0);
  uint64_t opens_cut = 0;
  ASSERT_NO_FATAL_FAILURE(delsm_test::RunKillAtEachCall(
      sweep,
      [](const std::string& work, uint64_t) -> std::string {
        Status s = RepairDB(work, DbOptions());
        if (!s.ok()) return "RepairDB: " + s.ToString();
        const std::string problem = CheckAfterCompaction(work);
        return problem.empty() ? "" : "after RepairDB, " + problem;
      },
      &opens_cut));
  ASSERT_GT(opens_cut, 0u);
}

// The same, with Open's sweep of L1 failing (every unlink there EIO)
// instead of being killed: Open succeeds, the replaced L0 SST's directory
// (its tombstones) goes, and the replaced L1 SST's meta file stays. The
// previous manifest, the only record that their SSTs were replaced, must stay
// with them until a sweep has removed them.
TEST(RepairReplacedTest,
     CompactionKilledAfterCommitThenOpenSweepFailsThenRepair) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "RepairReplacedCompactionChild.Child",
                    {{"DELSM_RR_COMPACT_DB", dbname}}));
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec spec;
    spec.sticky = true;
    spec.path_contains = "/L1/";
    fs.Arm(FsOp::kUnlink, spec);
    DB* raw = nullptr;
    Status s =
        OpenWithFileSystem(DbOptions(), ManualTuning(), dbname, &fs, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    delete raw;
  }
  Status s = RepairDB(dbname, DbOptions());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", CheckAfterCompaction(dbname));
}

// A kill after the commit leaves the rebuilt directory in place; the
// second repair must not take the old put of the deleted key back by its
// name.
TEST(RepairReplacedTest, KilledAfterCommitDirectoryRebuiltFromNames) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false, BuildWithDamagedMeta);
}

// The old puts compacted to L1 (its META intact), the new puts (KV files)
// and the delete flushed to L0, and the one group of that L0 SST's META
// damaged: its entries are lost, the new values come back by their KV
// files' names, and the old puts below in the group's range are withheld
// (Repairer::Withheld), the deleted key's among them. Returns "" or what
// failed.
std::string BuildWithDamagedGroupAbove(const std::string& dbname) {
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), ManualTuning(), dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    s = db->Put(WriteOptions(), Key(i), repair_kill::Value("old", i));
  }
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  if (s.ok()) s = Impl(raw)->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (i != kDeleted) {
      s = db->Put(WriteOptions(), Key(i), repair_kill::Value("new", i));
    }
  }
  if (s.ok()) s = db->Delete(WriteOptions(), Key(kDeleted));
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  db.reset();
  if (!s.ok()) return s.ToString();
  const std::vector<std::string> l0 = delsm_test::ListDir(dbname + "/L0");
  if (l0.size() != 1) return "expected one L0 directory";
  const std::string meta = dbname + "/L0/" + l0[0] + "/META";
  const std::string data = delsm_test::ReadWholeFile(meta);
  MetaIndexRange range;
  s = DecodeMetaFooter(data, data.size(), meta, &range);
  if (!s.ok()) return s.ToString();
  if (range.version != 4) return "not a format-4 meta file";
  MetaTrailer trailer;
  s = DecodeMetaTrailer(Slice(data.data() + range.offset, range.size), range,
                        meta, &trailer);
  if (!s.ok()) return s.ToString();
  if (trailer.groups.empty()) return "no group";
  const MetaGroup& g = trailer.groups[0];
  if (!delsm_test::FlipByte(meta, g.offset + g.size / 2)) {
    return "cannot damage " + meta;
  }
  return "";
}

TEST(RepairReplacedTest, DamagedGroupAboveOnce) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_EQ("", BuildWithDamagedGroupAbove(dbname));
  ASSERT_TRUE(RepairDB(dbname, DbOptions()).ok());
  EXPECT_EQ("", Check(dbname)) << "after one repair";
  ASSERT_TRUE(RepairDB(dbname, DbOptions()).ok());
  EXPECT_EQ("", Check(dbname)) << "after a second repair";
}

// A first repair that withholds an old put below a damaged group (the
// deleted key's), killed at each disk call, then run again: the deleted
// key stays deleted, every other key reads its new value. (The database as
// built does not read: KillRepairAtEachCallThenRepairAgain's first check
// does not apply.)
TEST(RepairReplacedTest, KilledWithholdingBelowADamagedGroup) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string pristine = tmp.path() + "/pristine";
  ASSERT_EQ("", BuildWithDamagedGroupAbove(pristine));
  uint64_t calls = 0;
  {
    const std::string copy = tmp.path() + "/measure";
    ASSERT_EQ("", delsm_test::CopyTree(pristine, copy));
    Status s = delsm_test::RunCountingDiskCalls(
        delsm_test::KilledOperation::kRepairDB, DbOptions(), ManualTuning(),
        copy, tmp.path() + "/shadow", &calls);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ("", Check(copy)) << "after one uninterrupted repair";
    delsm_test::RemoveTree(copy);
  }
  ASSERT_GT(calls, 0u);
  const delsm_test::KillCheck check = [&](const std::string& work, uint64_t) {
    Status s = RepairDB(work, DbOptions());
    return s.ok() ? Check(work) : "second RepairDB: " + s.ToString();
  };
  delsm_test::RunKillAtEachCall(
      repair_kill::Sweep(delsm_test::KilledOperation::kRepairDB, pristine,
                         tmp.path(), calls),
      check, /*killed=*/nullptr);
}

// The same when the first repair commits and then cannot put the rebuilt
// directory away (every unlink and rename in it fails), while the L0 SST
// holding the delete goes.
TEST(RepairReplacedTest, DirectoryRebuiltFromNamesLeftAfterCommit) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_EQ("", BuildWithDamagedMeta(dbname));
  ASSERT_EQ("", Check(dbname)) << "as built";
  const std::string old_dir =
      dbname + "/L1/" + delsm_test::ListDir(dbname + "/L1")[0];
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec spec;
    spec.sticky = true;
    spec.path_contains = old_dir;
    fs.ArmKinds(FaultInjectionFileSystem::Bit(FsOp::kUnlink) |
                    FaultInjectionFileSystem::Bit(FsOp::kRename),
                spec);
    RepairDBWithFileSystem(dbname, DbOptions(), &fs);
    ASSERT_TRUE(fs.Fired()) << "the rebuilt directory was not put away";
  }
  ASSERT_GT(delsm_test::FileSize(old_dir + "/META"), 0u)
      << "the rebuilt directory is no longer in place";
  Status s = RepairDB(dbname, DbOptions());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Check(dbname));
}

// Values that stay put: the old puts in a home, compacted to L1; the new
// puts and the delete flushed to L0; then L0 compacted into L1, which
// drops the delete and the old put of the deleted key (no level below
// holds it) and commits. The dead values are then put back in their home
// as a kill between that commit and their unlinks leaves them: files no
// meta file names, among them the old put of the deleted key under its
// own KV file name. A few puts of other keys stay in the WAL, which the
// repair converts into a directory of its own. Returns "" or what failed.
std::string BuildWithDeadValuesInHome(const std::string& dbname) {
  std::unique_ptr<DB> db;
  Status s = OpenWithOldAndNewPuts(dbname, &db);
  if (!s.ok()) return s.ToString();
  std::map<std::string, std::string> values;  // by path under dbname
  for (const std::string& home : delsm_test::ListDir(dbname + "/values")) {
    for (const std::string& name :
         delsm_test::ListDir(dbname + "/values/" + home)) {
      const std::string path = "values/" + home + "/" + name;
      values[path] = delsm_test::ReadWholeFile(dbname + "/" + path);
    }
  }
  s = Impl(db.get())->TEST_CompactRange(0, nullptr, nullptr);
  if (s.ok()) s = Impl(db.get())->TEST_WaitForBackgroundWork();
  for (int i = 0; i < 4 && s.ok(); i++) {
    s = db->Put(WriteOptions(), "wal" + std::to_string(i), Value("wal", i));
  }
  db.reset();
  if (!s.ok()) return s.ToString();
  size_t put_back = 0;
  for (const auto& v : values) {
    const std::string path = dbname + "/" + v.first;
    if (delsm_test::FileSize(path) > 0) continue;
    mkdir(path.substr(0, path.rfind('/')).c_str(), 0755);
    if (!delsm_test::WriteWhole(path, v.second)) return "cannot write " + path;
    put_back++;
  }
  // Every old put died: the old values' home held them all.
  if (put_back != kKeys) {
    return "expected the compaction to unlink " + std::to_string(kKeys) +
           " dead values, it unlinked " + std::to_string(put_back);
  }
  return "";
}

// RepairDB killed at any point, then run again: the dead value of the
// deleted key, in its home under its own name and named by no meta file,
// must not come back as a live entry.
TEST(RepairReplacedTest, KilledDeadValueInHomeStaysDead) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false,
                                      BuildWithDeadValuesInHome);
}

}  // namespace
}  // namespace leveldb
