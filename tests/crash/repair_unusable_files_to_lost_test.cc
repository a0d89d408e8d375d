// What RepairDB cannot use (a damaged meta file, a KV file failing the
// checksum of the entry that names it; a WAL with a damaged record, the
// old manifest, a value in a home no meta file names) is never deleted: it
// ends in lost/, byte for byte, whether RepairDB ends, fails to put it
// away, or is killed at any point (a child process,
// tests/crash/kill_at_each_call.h) and followed by an Open or a second
// RepairDB; the database then reads as built. (An Open of the old
// database, after a kill before the first repair's commit, may retire the
// last three as it would had RepairDB never run.)
//
// That a killed RepairDB brings back no deleted key:
// tests/crash/repair_kill_no_resurrection_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fs/file_system.h"
#include "leveldb/db.h"
#include "table/key_codec.h"
#include "testing/fault_injection_file_system.h"
#include "tests/crash/kill_at_each_call.h"
#include "tests/crash/repair_kill_sweep.h"
#include "tests/file_bytes.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;
using repair_kill::BuildWithDamagedMeta;
using repair_kill::BytesOf;
using repair_kill::Check;
using repair_kill::CheckSetAside;
using repair_kill::DbOptions;
using repair_kill::KillRepairAtEachCallThenRepairAgain;
using repair_kill::ManualTuning;
using repair_kill::OpenAndClose;
using repair_kill::OpenWithOldAndNewPuts;
using repair_kill::Value;

// The WALs of `dbname`, by name.
std::vector<std::string> LogFiles(const std::string& dbname) {
  std::vector<std::string> logs;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0) {
      logs.push_back(name);
    }
  }
  return logs;
}

// A KV file name no entry of the test's databases has.
std::string StrayValueName() { return KvStoredFileName("stray", 1, false); }

// The child of every kill sweep here: a RepairDB or an Open, killed at a
// disk call (tests/crash/kill_at_each_call.h).
TEST(RepairReplacedKilledChild, Child) {
  delsm_test::RunKilledChild(DbOptions(), ManualTuning());
}

// BuildWithDamagedMeta, and in the L1 directory a damaged copy of a KV
// file of the L0 SST (when its values are KV files in its directory: not
// with values that stay put): the name of an entry the L0 SST's meta file
// names, bytes that fail that entry's checksum. Repair can use neither
// that copy nor the damaged META.
std::string BuildWithUnusableFiles(const std::string& dbname) {
  std::string problem = BuildWithDamagedMeta(dbname);
  if (!problem.empty()) return problem;
  const std::vector<std::string> l0 = delsm_test::ListDir(dbname + "/L0");
  const std::vector<std::string> l1 = delsm_test::ListDir(dbname + "/L1");
  if (l0.size() != 1) return "expected one L0 directory";
  for (const std::string& name : delsm_test::ListDir(dbname + "/L0/" + l0[0])) {
    std::string user_key;
    uint64_t sequence;
    bool hashed, compressed;
    if (!ParseKvStoredFileName(name, &user_key, &sequence, &hashed,
                               &compressed)) {
      continue;
    }
    std::string bytes =
        delsm_test::ReadWholeFile(dbname + "/L0/" + l0[0] + "/" + name);
    if (bytes.empty()) return "cannot read " + name;
    bytes[bytes.size() / 2] ^= 0x40;
    if (!delsm_test::WriteWhole(dbname + "/L1/" + l1[0] + "/" + name, bytes)) {
      return "cannot write a damaged copy of " + name;
    }
    break;
  }
  return "";
}

// The files of BuildWithUnusableFiles that repair cannot use.
std::vector<std::string> UnusableFiles(const std::string& dbname) {
  const std::string l0 = delsm_test::ListDir(dbname + "/L0")[0];
  const std::string l1 = delsm_test::ListDir(dbname + "/L1")[0];
  std::vector<std::string> files = {"L1/" + l1 + "/META"};
  const std::vector<std::string> in_l0 =
      delsm_test::ListDir(dbname + "/L0/" + l0);
  for (const std::string& name : delsm_test::ListDir(dbname + "/L1/" + l1)) {
    if (name != "META" &&
        std::find(in_l0.begin(), in_l0.end(), name) != in_l0.end()) {
      files.push_back("L1/" + l1 + "/" + name);
    }
  }
  return files;
}

// A database BuildWithUnusableFiles made, and the bytes of the files in
// it that repair cannot use, which must never be lost.
class RepairUnusableFilesTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    dbname = tmp_.path() + "/db";
    ASSERT_EQ("", BuildWithUnusableFiles(dbname));
    kept = BytesOf(dbname, UnusableFiles(dbname));
  }

  // A RepairDB that succeeds, an Open and a Close: then what repair cannot
  // use is all in lost/, byte for byte, and the database checks out.
  void RepairOpenAndExpectAllInLost() {
    Status s = RepairDB(dbname, DbOptions());
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = OpenAndClose(dbname);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ("", CheckSetAside(dbname, kept, /*lost_only=*/true));
    EXPECT_EQ("", Check(dbname));
  }

  std::string dbname;
  std::map<std::string, std::string> kept;

 private:
  TempDir tmp_;
};

// What repair cannot use goes to lost/, byte for byte, and stays there
// through the next Open and Close.
TEST_F(RepairUnusableFilesTest, UnusableFilesEndInLost) {
  RepairOpenAndExpectAllInLost();
}

// Nothing can be linked or renamed into lost/: RepairDB must fail, and the
// Open that follows must not delete what it could not use; a second
// RepairDB puts that in lost/.
TEST_F(RepairUnusableFilesTest, UnusableFilesKeptWhenLostCannotBeWritten) {
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec spec;
    spec.sticky = true;
    spec.path_contains = "/lost/";
    fs.ArmKinds(FaultInjectionFileSystem::Bit(FsOp::kLink) |
                    FaultInjectionFileSystem::Bit(FsOp::kRename),
                spec);
    Status s = RepairDBWithFileSystem(dbname, DbOptions(), &fs);
    ASSERT_TRUE(fs.Fired()) << "nothing was put in lost/";
    EXPECT_FALSE(s.ok()) << "RepairDB could not put away what it could not "
                            "use, and said OK";
  }
  OpenAndClose(dbname);  // it may fail: the user then repairs
  EXPECT_EQ("", CheckSetAside(dbname, kept, /*lost_only=*/false))
      << "after the failed RepairDB and an Open";
  RepairOpenAndExpectAllInLost();
}

// After the commit, the old directory cannot be emptied (every unlink in
// L1 fails): RepairDB must say so; what it could not use is already in
// lost/, and the Open that removes the directory leaves it there.
TEST_F(RepairUnusableFilesTest, PutAwayFailingAfterCommitFailsRepair) {
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec spec;
    spec.sticky = true;
    spec.path_contains = "/L1/";
    fs.Arm(FsOp::kUnlink, spec);
    Status s = RepairDBWithFileSystem(dbname, DbOptions(), &fs);
    ASSERT_TRUE(fs.Fired()) << "the old directory was not put away";
    EXPECT_FALSE(s.ok()) << "RepairDB could not put away the old directory, "
                            "and said OK";
  }
  Status s = OpenAndClose(dbname);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", CheckSetAside(dbname, kept, /*lost_only=*/true));
  EXPECT_EQ("", Check(dbname));
}

// Killed at any point, then repaired again: what the first repair could
// not use is in place or in lost/, never deleted, and in lost/ at the end.
TEST(RepairReplacedTest, KilledUnusableFilesKept) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false, BuildWithUnusableFiles,
                                      UnusableFiles);
}

// The same when the user opens the database after the kill: an Open that
// finds the first repair committed removes the old directories it left.
TEST(RepairReplacedTest, KilledThenOpenedUnusableFilesKept) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false, BuildWithUnusableFiles,
                                      UnusableFiles, /*open_first=*/true);
}

// Values that stay put, and what an old database leaves that RepairDB
// reads but cannot use, and that its old state needs until the commit: the
// manifest; a WAL with a damaged record (puts of other keys than Check
// reads); and, in the home of the old puts (whose values the merge drops),
// a value no meta file names (one whose death was committed). Returns ""
// or what failed.
std::string BuildWithLeftovers(const std::string& dbname) {
  std::unique_ptr<DB> db;
  Status s = OpenWithOldAndNewPuts(dbname, &db);
  for (int i = 0; i < 20 && s.ok(); i++) {
    s = db->Put(WriteOptions(), "wal" + std::to_string(i), Value("wal", i));
  }
  db.reset();
  if (!s.ok()) return s.ToString();
  const std::vector<std::string> wals = LogFiles(dbname);
  if (wals.size() != 1) return "expected one WAL";
  const std::string wal = dbname + "/" + wals[0];
  if (delsm_test::FileSize(wal) < 20000 ||
      !delsm_test::FlipByte(wal, delsm_test::FileSize(wal) / 2)) {
    return "cannot damage " + wal;
  }
  const std::vector<std::string> homes =
      delsm_test::ListDir(dbname + "/values");
  if (homes.size() != 2) return "expected two homes";
  const std::string old_home =
      dbname + "/values/" + *std::min_element(homes.begin(), homes.end());
  if (!delsm_test::WriteWhole(old_home + "/" + StrayValueName(),
                              Value("stray", 0))) {
    return "cannot write a value in " + old_home;
  }
  return "";
}

// The files of BuildWithLeftovers that repair cannot use.
std::vector<std::string> Leftovers(const std::string& dbname) {
  std::vector<std::string> files = LogFiles(dbname);
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    if (name.rfind("MANIFEST-", 0) == 0) files.push_back(name);
  }
  for (const std::string& home : delsm_test::ListDir(dbname + "/values")) {
    const std::string path = "values/" + home + "/" + StrayValueName();
    if (delsm_test::FileSize(dbname + "/" + path) > 0) files.push_back(path);
  }
  return files;
}

// RepairDB killed at any point, then the database opened: the damaged WAL,
// the old manifest and the value no meta file names are in place or in
// lost/, never deleted, once the repair committed; in lost/ at the end.
TEST(RepairReplacedTest, KilledThenOpenedLeftoversKept) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false, BuildWithLeftovers,
                                      nullptr, /*open_first=*/true, Leftovers);
}

// The same when a second RepairDB follows the kill: it finds what the
// first set aside in lost/ already, and reads none of it as an input.
TEST(RepairReplacedTest, KilledLeftoversKept) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false, BuildWithLeftovers,
                                      nullptr, /*open_first=*/false, Leftovers);
}

}  // namespace
}  // namespace leveldb
