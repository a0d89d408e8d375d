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
// And what repair cannot use (a damaged meta file, a KV file failing the
// checksum of the entry that names it; a WAL with a damaged record, the
// old manifest, a value in a home no meta file names) is never deleted: it
// ends in lost/, byte for byte, whether RepairDB ends, fails to put it
// away, or is killed at any point and followed by an Open or a second
// RepairDB. (An Open of the old database, after a kill before the first
// repair's commit, may retire the last three as it would had RepairDB
// never run.)
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "table/key_codec.h"
#include "testing/fault_injection_file_system.h"
#include "testing/power_loss_file_system.h"
#include "tests/crash/kill_at_each_call.h"
#include "tests/db_options.h"
#include "tests/file_bytes.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;
using delsm_test::TempDir;

constexpr int kKeys = 12;
constexpr int kDeleted = 5;

// Compactions only when asked.
delsm::Tuning ManualTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.l1_entries = 1 << 30;
  return t;
}

Options DbOptions() {
  Options o;
  o.create_if_missing = true;
  return o;
}

// Large enough for a KV file of its own.
std::string Value(const char* version, int i) {
  return std::string(version) + std::to_string(i) + std::string(3000, 'v');
}

DBImpl* Impl(DB* db) { return static_cast<DBImpl*>(db); }

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

// "" if keys 0..keys-1 of `dbname` read as they must: NotFound for each
// `deleted(i)`, else its new value.
template <typename Deleted>
std::string CheckKeys(const std::string& dbname, int keys, Deleted deleted) {
  Options o = DbOptions();
  o.create_if_missing = false;
  DB* raw = nullptr;
  Status s = delsm::Open(o, ManualTuning(), dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < keys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    if (deleted(i)) {
      if (!s.IsNotFound()) {
        return "deleted key " + Key(i) +
               " came back: " + (s.ok() ? v.substr(0, 4) : s.ToString());
      }
    } else if (!s.ok() || v != Value("new", i)) {
      return Key(i) + ": " + (s.ok() ? v.substr(0, 4) : s.ToString());
    }
  }
  return "";
}

// "" if kDeleted is deleted and every other key reads its new value.
std::string Check(const std::string& dbname) {
  return CheckKeys(dbname, kKeys, [](int i) { return i == kDeleted; });
}

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

// The bytes of each file `paths` names under `dbname`.
std::map<std::string, std::string> BytesOf(
    const std::string& dbname, const std::vector<std::string>& paths) {
  std::map<std::string, std::string> bytes;
  for (const std::string& p : paths) {
    bytes[p] = delsm_test::ReadWholeFile(dbname + "/" + p);
  }
  return bytes;
}

// Whether some file under `dir` (searched whole) holds exactly `bytes`.
bool SomeFileHolds(const std::string& dir, const std::string& bytes) {
  for (const std::string& name : delsm_test::ListDir(dir)) {
    const std::string path = dir + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode) && SomeFileHolds(path, bytes)) return true;
    std::string data;
    if (S_ISREG(st.st_mode) && delsm_test::ReadWhole(path, &data) &&
        data == bytes) {
      return true;
    }
  }
  return false;
}

// "" if every file of `kept` (bytes by path under `dbname`) is, byte for
// byte, in lost/ or (unless `lost_only`) where it was.
std::string CheckSetAside(const std::string& dbname,
                          const std::map<std::string, std::string>& kept,
                          bool lost_only) {
  for (const auto& k : kept) {
    std::string now;
    if (!lost_only && delsm_test::ReadWhole(dbname + "/" + k.first, &now) &&
        now == k.second) {
      continue;
    }
    if (!SomeFileHolds(dbname + "/lost", k.second)) {
      return k.first + (lost_only ? " is not in lost/"
                                  : " is neither in place nor in lost/");
    }
  }
  return "";
}

// Opens `dbname` and closes it again; what the Open says.
Status OpenAndClose(const std::string& dbname) {
  Options o = DbOptions();
  o.create_if_missing = false;
  DB* raw = nullptr;
  Status s = delsm::Open(o, ManualTuning(), dbname, &raw);
  if (s.ok()) s = Impl(raw)->TEST_WaitForBackgroundWork();
  delete raw;
  return s;
}

// A sweep of `operation` killed in RepairReplacedKilledChild.Child, from
// `pristine`, working under `tmp`.
delsm_test::KillAtEachCall Sweep(delsm_test::KilledOperation operation,
                                 const std::string& pristine,
                                 const std::string& tmp, uint64_t calls) {
  delsm_test::KillAtEachCall sweep;
  sweep.child = "RepairReplacedKilledChild.Child";
  sweep.operation = operation;
  sweep.pristine = pristine;
  sweep.work = tmp + "/work";
  sweep.shadow = tmp + "/child_shadow";
  sweep.calls = calls;
  return sweep;
}

// The child of every kill sweep here: a RepairDB or an Open, killed at a
// disk call (tests/crash/kill_at_each_call.h).
TEST(RepairReplacedKilledChild, Child) {
  delsm_test::RunKilledChild(DbOptions(), ManualTuning());
}

// Builds the database (`build`), opens a copy of it first if `reopen` (an
// Open hands out new numbers, past META-<n>), then kills a first RepairDB at
// each of its disk calls in turn, on a fresh copy each time, and runs a second
// one to the end. Reports every kill point after which the database does not
// read as built.
//
// With `unusable` (files of the database as built that repair cannot use,
// by their path under it), each must be, byte for byte, still in place or
// in lost/ after the kill, and in lost/ once the second repair and Check's
// Open and Close are done; never deleted. With `open_first`, the user opens
// (and closes) the database after the kill, before the second repair.
// `retired` files (WALs, manifests, dead values) must be in place or in
// lost/ after the kill and after the Open if the first repair committed (an
// Open before the commit is one of the old database, which retires them as
// it would had RepairDB never run), and in lost/ at the end: the directory
// a killed repair was building is not a lost meta file, so the second
// repair takes no dead value back where it is.
void KillRepairAtEachCallThenRepairAgain(
    bool reopen, std::string (*build)(const std::string&) = Build,
    std::vector<std::string> (*unusable)(const std::string&) = nullptr,
    bool open_first = false,
    std::vector<std::string> (*retired)(const std::string&) = nullptr) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string pristine = tmp.path() + "/pristine";
  ASSERT_EQ("", build(pristine));
  {
    const std::string copy = tmp.path() + "/as_built";
    ASSERT_EQ("", delsm_test::CopyTree(pristine, copy));
    ASSERT_EQ("", Check(copy)) << "the database as built";
    if (reopen) {
      delsm_test::RemoveTree(pristine);
      ASSERT_EQ(0, rename(copy.c_str(), pristine.c_str()));
    } else {
      delsm_test::RemoveTree(copy);
    }
  }

  const std::map<std::string, std::string> kept =
      unusable == nullptr ? std::map<std::string, std::string>()
                          : BytesOf(pristine, unusable(pristine));
  const std::map<std::string, std::string> leftovers =
      retired == nullptr ? std::map<std::string, std::string>()
                         : BytesOf(pristine, retired(pristine));
  const std::string current_as_built =
      delsm_test::ReadWholeFile(pristine + "/CURRENT");
  std::map<std::string, std::string> all = kept;
  all.insert(leftovers.begin(), leftovers.end());

  // How many disk calls of the SST directories an uninterrupted repair
  // makes; it leaves the database as built.
  uint64_t calls = 0;
  {
    const std::string copy = tmp.path() + "/measure";
    ASSERT_EQ("", delsm_test::CopyTree(pristine, copy));
    Status s = delsm_test::RunCountingDiskCalls(
        delsm_test::KilledOperation::kRepairDB, DbOptions(), ManualTuning(),
        copy, tmp.path() + "/shadow", &calls);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ("", Check(copy)) << "after one uninterrupted repair";
    ASSERT_EQ("", CheckSetAside(copy, all, /*lost_only=*/true))
        << "after one uninterrupted repair";
    delsm_test::RemoveTree(copy);
  }
  ASSERT_GT(calls, 0u);

  const delsm_test::KillAtEachCall sweep = Sweep(
      delsm_test::KilledOperation::kRepairDB, pristine, tmp.path(), calls);
  const delsm_test::KillCheck check = [&](const std::string& work, uint64_t) {
    std::string problem = CheckSetAside(work, all, /*lost_only=*/false);
    const bool committed =
        delsm_test::ReadWholeFile(work + "/CURRENT") != current_as_built;
    if (problem.empty() && open_first) {
      OpenAndClose(work);  // it may fail: the user then repairs
      problem = CheckSetAside(work, committed ? all : kept,
                              /*lost_only=*/false);
      if (!problem.empty()) problem = "after an Open: " + problem;
    }
    // The user runs RepairDB again, to the end (no real syncs: nothing
    // here is a power loss).
    Status s;
    {
      PowerLossFileSystem fs(FileSystem::Default(), tmp.path() + "/shadow");
      fs.set_real_syncs(false);
      s = RepairDBWithFileSystem(work, DbOptions(), &fs);
    }
    delsm_test::RemoveTree(tmp.path() + "/shadow");
    if (problem.empty()) {
      problem = s.ok() ? Check(work) : "second RepairDB: " + s.ToString();
    }
    if (problem.empty()) {
      problem = CheckSetAside(work, kept, /*lost_only=*/true);
    }
    // Not after an Open of the old database (a kill before the commit):
    // that Open replays and removes the WAL, replaces the manifest and
    // removes the value no live entry names, as it would had RepairDB
    // never run, so they may be gone without a copy in lost/ (unless the
    // killed repair had linked them there). After the commit, the first
    // repair had linked every one into lost/.
    if (problem.empty() && (committed || !open_first)) {
      problem = CheckSetAside(work, leftovers, /*lost_only=*/true);
    }
    return problem;
  };
  delsm_test::RunKillAtEachCall(sweep, check, /*killed=*/nullptr);
}

// The old puts in an L1 directory whose META is damaged, and the new puts
// and the delete in an L0 SST. Repair rebuilds the L1 directory from its
// KV files' names; after its commit, only the directory's number in its
// manifest says that the merge was given those files and dropped the old
// put of the deleted key with its tombstone. Returns "" or what failed.
std::string BuildWithDamagedMeta(const std::string& dbname) {
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), ManualTuning(), dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    s = db->Put(WriteOptions(), Key(i), Value("old", i));
  }
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  if (s.ok()) s = Impl(raw)->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (i != kDeleted) s = db->Put(WriteOptions(), Key(i), Value("new", i));
  }
  if (s.ok()) s = db->Delete(WriteOptions(), Key(kDeleted));
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  db.reset();
  if (!s.ok()) return s.ToString();
  const std::vector<std::string> l1 = delsm_test::ListDir(dbname + "/L1");
  if (l1.size() != 1) return "expected one L1 directory";
  const std::string meta = dbname + "/L1/" + l1[0] + "/META";
  if (delsm_test::FileSize(meta) < 64 ||
      !delsm_test::FlipByte(meta, delsm_test::FileSize(meta) / 2)) {
    return "cannot damage " + meta;
  }
  return "";
}

// The first repair's intermediate directories (old directories rebuilt, WALs
// converted) are removed after its commit; one a kill leaves holds a copy
// of an old SST, under a number no manifest records as replaced.
TEST(RepairReplacedTest, KilledAfterCommitIntermediateDirectories) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/true);
}

// As built, META-<n> bears the last number handed out: the first repair's
// output may be numbered n too, and its manifest then records n as both
// replaced and live.
TEST(RepairReplacedTest, KilledAfterCommitOutputNumberedAsAnOldSst) {
  KillRepairAtEachCallThenRepairAgain(/*reopen=*/false);
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

// Values that stay put: opens a database at `dbname` into *db, puts the
// old value of every key, flushed and compacted to L1 (their values in one
// home), then the new ones and the delete of kDeleted, flushed to L0.
Status OpenWithOldAndNewPuts(const std::string& dbname,
                             std::unique_ptr<DB>* db) {
  delsm::Tuning tuning = ManualTuning();
  tuning.values_stay_put = true;
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), tuning, dbname, &raw);
  if (!s.ok()) return s;
  db->reset(raw);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    s = raw->Put(WriteOptions(), Key(i), Value("old", i));
  }
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  if (s.ok()) s = Impl(raw)->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (i != kDeleted) s = raw->Put(WriteOptions(), Key(i), Value("new", i));
  }
  if (s.ok()) s = raw->Delete(WriteOptions(), Key(kDeleted));
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  return s;
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
