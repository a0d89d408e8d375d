// The clean-close marker (docs/DESIGN.md, "Open and recovery"): after a
// Close that left nothing behind, the next Open lists no SST directory and
// no home; whenever the marker cannot vouch for the database (the manifest
// changed after it was written, a home appeared past what the manifest
// knows, a removal failed at Close, a kill -9 in the middle of a
// compaction) Open sweeps, and what was left is gone. On real files, with
// testing/fault_injection_file_system.h counting directory listings (its
// kReaddir calls) and failing removals, and a kill -9 child.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/filename.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "testing/fault_injection_file_system.h"
#include "testing/power_loss_file_system.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/stat_failing_file_system.h"
#include "tests/test_support.h"

#ifndef DELSM_TOOL
#error "DELSM_TOOL (path of the delsm binary) must be defined"
#endif

namespace leveldb {
namespace {

using delsm_test::ListDir;
using delsm_test::ManualCompactionKvFiles;
using delsm_test::TempDir;

std::string Key(int i) { return delsm_test::IndexKey(i); }
std::string Value(int i, int version) {
  return "v" + std::to_string(version) + "-" + std::to_string(i) + "-" +
         std::string(900 + i % 300, 'a' + (i + version) % 26);
}

Options DbOptions() { return delsm_test::NewDbOptions(64 << 10); }

DBImpl* Impl(DB* db) { return static_cast<DBImpl*>(db); }

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

std::string Marker(const std::string& dbname) { return dbname + "/CLOSED"; }

// Workload's first step: 300 keys flushed and compacted to L1.
void WriteKeysToL1(DB* db) {
  for (int i = 0; i < 300; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
  }
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
  ASSERT_OK(Impl(db)->TEST_CompactRange(0, nullptr, nullptr));
}

// Workload's second step: a third of those keys overwritten and a fifth
// deleted, flushed to L0 (over the SSTs at L1).
void OverwriteAndDeleteToL0(DB* db) {
  for (int i = 0; i < 300; i += 3) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 2)));
  }
  for (int i = 0; i < 300; i += 5) {
    ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
  }
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
}

// 300 keys flushed and compacted to L1, a third overwritten and a fifth
// deleted, flushed to L0 and compacted again: SSTs at L0 and L1 whose
// directories held retired SSTs' entries.
void Workload(DB* db) {
  WriteKeysToL1(db);
  OverwriteAndDeleteToL0(db);
  ASSERT_OK(Impl(db)->TEST_CompactRange(0, nullptr, nullptr));
  // More for L0, left there.
  for (int i = 300; i < 400; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
  }
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
}

// Keys written after Workload, by index: what each holds now.
using LaterWrites = std::map<int, std::string>;

// What Workload left, with `later` written over it, read back; `what`
// says when.
void ExpectWorkload(DB* db, const std::string& what,
                    const LaterWrites& later = LaterWrites()) {
  int wrong = 0;
  for (int i = 0; i < 400; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    auto it = later.find(i);
    if (it != later.end()) {
      if (!s.ok() || v != it->second) wrong++;
    } else if (i < 300 && i % 5 == 0) {
      if (!s.IsNotFound()) wrong++;
    } else if (!s.ok() || v != Value(i, i < 300 && i % 3 == 0 ? 2 : 1)) {
      wrong++;
    }
  }
  EXPECT_EQ(0, wrong) << what << ": keys wrong or lost";
}

// Directory listings of SST directories and homes (an SST directory's path
// holds ".sst", a home's "/values/") an Open of `dbname` through `fs` makes;
// the DB stays open in *db.
uint64_t SweepListingsOfOpen(FaultInjectionFileSystem* fs,
                             const std::string& dbname, bool stay_put,
                             std::unique_ptr<DB>* db) {
  uint64_t n = 0;
  for (const char* where : {".sst", "/values/"}) {
    FaultSpec count_only;
    count_only.nth = uint64_t{1} << 62;  // never reached: counts only
    count_only.path_contains = where;
    fs->Arm(FsOp::kReaddir, count_only);
    DB* raw = nullptr;
    Status s = OpenWithFileSystem(
        DbOptions(), ManualCompactionKvFiles(stay_put), dbname, fs, &raw);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (!s.ok()) return ~uint64_t{0};
    n += fs->Matches();
    fs->Disarm();
    if (std::string(where) == "/values/") {
      db->reset(raw);
    } else {
      delete raw;  // a clean close again: the second Open may skip too
    }
  }
  return n;
}

// Builds the workload's database at `dbname` and closes it.
void BuildAndClose(const std::string& dbname, bool stay_put) {
  DB* raw = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), ManualCompactionKvFiles(stay_put), dbname,
                        &raw));
  std::unique_ptr<DB> db(raw);
  Workload(db.get());
}

class CleanCloseTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    unsetenv("DELSM_OPTIONS");
    ASSERT_FALSE(tmp_.path().empty());
    dbname_ = tmp_.path() + "/db";
  }
  bool stay_put() const { return GetParam(); }

  // Opens through a counting file system; returns the SST-directory and
  // home listings that Open made.
  uint64_t OpenCounting(std::unique_ptr<DB>* db) {
    return SweepListingsOfOpen(&fs_, dbname_, stay_put(), db);
  }
  // Runs `child` (a *.Child test) in a process of its own with `env` and
  // the mode's variable; it must end by SIGKILL, leaving no marker. Then
  // opens the database into *db, which must sweep.
  void KillChildThenOpen(const std::string& child,
                         std::vector<std::pair<std::string, std::string>> env,
                         std::unique_ptr<DB>* db) {
    if (stay_put()) env.push_back({"CLEAN_CLOSE_STAY_PUT", "1"});
    const pid_t pid = delsm_test::SpawnSelf(child, env);
    ASSERT_GT(pid, 0);
    const int status = delsm_test::WaitChild(pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "child status " << status;
    EXPECT_FALSE(Exists(Marker(dbname_)));
    EXPECT_LT(0u, OpenCounting(db)) << "Open did not sweep";
    ASSERT_NE(nullptr, *db);
  }
  // The findings of the leftover check on the open `db`.
  std::string Leftovers(DB* db) {
    EXPECT_TRUE(Impl(db)->TEST_WaitForBackgroundWork().ok());
    return delsm_test::FindOrphans(db, dbname_);
  }

  TempDir tmp_{"delsm_clean_close"};
  std::string dbname_;
  FaultInjectionFileSystem fs_{FileSystem::Default()};
};

// After a clean Close, Open lists no SST directory and no home: the
// database's size does not show in its Open.
TEST_P(CleanCloseTest, OpenAfterCleanCloseListsNoSstDirectory) {
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname_, stay_put()));
  EXPECT_TRUE(Exists(Marker(dbname_))) << "a clean Close writes the marker";
  std::unique_ptr<DB> db;
  EXPECT_EQ(0u, OpenCounting(&db))
      << "directory listings of SST directories or homes by Open after a "
         "clean close";
  ASSERT_NE(nullptr, db);
  EXPECT_FALSE(Exists(Marker(dbname_))) << "an open DB has no marker";
  ExpectWorkload(db.get(), "reopened");
  EXPECT_EQ("", Leftovers(db.get()));
}

// Appends one empty edit to the manifest CURRENT names: a later writer (an
// older DeLSM, say) that changed the database after the marker.
void AppendEmptyEditToManifest(const std::string& dbname) {
  Env* env = Env::Default();
  std::string current;
  ASSERT_OK(ReadFileToString(env, CurrentFileName(dbname), &current));
  ASSERT_FALSE(current.empty());
  const std::string manifest =
      dbname + "/" + current.substr(0, current.size() - 1);
  uint64_t size = 0;
  ASSERT_OK(env->GetFileSize(manifest, &size));
  WritableFile* file = nullptr;
  ASSERT_OK(env->NewAppendableFile(manifest, &file));
  std::unique_ptr<WritableFile> holder(file);
  log::Writer writer(file, size);
  VersionEdit edit;
  std::string record;
  edit.EncodeTo(&record);
  ASSERT_OK(writer.AddRecord(record));
  ASSERT_OK(file->Sync());
  ASSERT_OK(file->Close());
}

// The first SST directory of the deepest non-empty level and (values that
// stay put) the first home; empty where there is none.
std::vector<std::string> SweptDirs(const std::string& dbname) {
  std::vector<std::string> dirs;
  for (int level = 6; level >= 0 && dirs.empty(); level--) {
    const std::string level_dir = dbname + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(level_dir)) {
      dirs.push_back(level_dir + "/" + d);
      break;
    }
  }
  for (const std::string& home : ListDir(dbname + "/values")) {
    dirs.push_back(dbname + "/values/" + home);
    break;
  }
  return dirs;
}

// A file no live SST owns or entry names, under a name DeLSM gives a value
// (a KV file name), in each of SweptDirs. Returns their paths.
std::vector<std::string> PlantLeftovers(const std::string& dbname) {
  std::vector<std::string> planted;
  for (const std::string& dir : SweptDirs(dbname)) {
    const std::string path = dir + "/" + KvFileName("planted-leftover", 1);
    std::ofstream(path) << "not owned";
    planted.push_back(path);
  }
  return planted;
}

// A file under a name DeLSM never gives an entry, in each of SweptDirs:
// not DeLSM's, so no sweep may remove it. Returns their paths.
std::vector<std::string> PlantForeignFiles(const std::string& dbname) {
  std::vector<std::string> planted;
  for (const std::string& dir : SweptDirs(dbname)) {
    const std::string path = dir + "/planted-foreign";
    std::ofstream(path) << "the user's";
    planted.push_back(path);
  }
  return planted;
}

// The marker vouches only for the manifest as Close left it: one record
// appended since, and Open sweeps.
TEST_P(CleanCloseTest, LeftoversAreSweptWhenTheManifestChangedAfterTheMarker) {
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname_, stay_put()));
  ASSERT_TRUE(Exists(Marker(dbname_)));
  ASSERT_NO_FATAL_FAILURE(AppendEmptyEditToManifest(dbname_));
  const std::vector<std::string> planted = PlantLeftovers(dbname_);
  ASSERT_EQ(stay_put() ? 2u : 1u, planted.size());
  const std::vector<std::string> foreign = PlantForeignFiles(dbname_);
  std::unique_ptr<DB> db;
  EXPECT_LT(0u, OpenCounting(&db)) << "Open did not sweep";
  ASSERT_NE(nullptr, db);
  for (const std::string& p : planted) {
    EXPECT_FALSE(Exists(p)) << p << " survived the Open";
  }
  for (const std::string& p : foreign) {
    EXPECT_TRUE(Exists(p)) << p << ", not a name DeLSM gives, was removed";
    ASSERT_EQ(0, unlink(p.c_str()));  // for the leftover check below
  }
  ExpectWorkload(db.get(), "reopened");
  EXPECT_EQ("", Leftovers(db.get()));
}

// A home numbered past the manifest's next file number was made after the
// manifest's last record (an older DeLSM killed in its WAL replay): the
// marker proves nothing then, even with the manifest unchanged.
TEST(CleanCloseHomes, AHomeUnknownToTheManifestIsSwept) {
  unsetenv("DELSM_OPTIONS");
  TempDir tmp("delsm_clean_close");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname, /*stay_put=*/true));
  ASSERT_TRUE(Exists(Marker(dbname)));
  const std::string home = dbname + "/values/" + HomeDirName(999999);
  ASSERT_EQ(0, mkdir(home.c_str(), 0755));
  std::ofstream(home + "/planted-value") << "never committed";
  DB* raw = nullptr;
  ASSERT_OK(
      delsm::Open(DbOptions(), ManualCompactionKvFiles(true), dbname, &raw));
  std::unique_ptr<DB> db(raw);
  EXPECT_FALSE(Exists(home)) << "the home no entry names survived the Open";
  ExpectWorkload(db.get(), "reopened");
}

// A removal that fails at Close (and before it) leaves the retired SSTs'
// entries on disk: no marker, and the next Open sweeps them.
TEST_P(CleanCloseTest, CloseWhoseRemovalFailedWritesNoMarker) {
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenWithFileSystem(
        DbOptions(), ManualCompactionKvFiles(stay_put()), dbname_, &fs_, &raw));
    std::unique_ptr<DB> db(raw);
    WriteKeysToL1(db.get());
    OverwriteAndDeleteToL0(db.get());
    // From here every unlink in an SST directory fails: the compaction's
    // retired SSTs and its dead L0 directory stay, through Close.
    FaultSpec spec;
    spec.nth = 1;
    spec.err = EIO;
    spec.sticky = true;
    spec.path_contains = ".sst";
    fs_.Arm(FsOp::kUnlink, spec);
    ASSERT_OK(Impl(db.get())->TEST_CompactRange(0, nullptr, nullptr));
    for (int i = 300; i < 400; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
  }
  ASSERT_TRUE(fs_.Fired()) << "no removal met the fault";
  fs_.Disarm();
  EXPECT_FALSE(Exists(Marker(dbname_)))
      << "a Close that left entries behind wrote the marker";
  std::unique_ptr<DB> db;
  EXPECT_LT(0u, OpenCounting(&db)) << "Open did not sweep";
  ASSERT_NE(nullptr, db);
  ExpectWorkload(db.get(), "reopened");
  EXPECT_EQ("", Leftovers(db.get()));
}

// A removal pass that cannot tell where a retired SST's directory is (the
// lstat behind every FileSystem::Exists of it fails) must not take the
// directory for gone: only a removal of the whole directory, once no SST
// in it is live, takes a retired SST's entries with it. The SST stays
// queued and a later pass removes it. Forgotten, its meta file and the KV
// files only it names outlived a clean Close, which wrote the marker; the
// next Open trusted the marker, did not sweep them, and deleted the
// manifest that recorded the SST as replaced; RepairDB then merged its
// META and brought back the keys the compaction had deleted.
TEST_P(CleanCloseTest, RetiredSstWhoseDirectoryCannotBeStatedIsNotForgotten) {
  delsm_test::StatFailingFileSystem fs;
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenWithFileSystem(
        DbOptions(), ManualCompactionKvFiles(stay_put()), dbname_, &fs, &raw));
    std::unique_ptr<DB> db(raw);
    WriteKeysToL1(db.get());
    OverwriteAndDeleteToL0(db.get());
    // The flush's removal pass ended: the compaction's own takes what the
    // compaction retires.
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    // L0 compacted into the SSTs at L1, which it replaces in their own
    // directories; its removal pass looks for those directories.
    fs.FailExistsUnder("/L1/");
    ASSERT_OK(Impl(db.get())->TEST_CompactRange(0, nullptr, nullptr));
    fs.FailExistsUnder("");
    ASSERT_LT(0, fs.Failed()) << "no removal looked for an L1 directory";
    for (int i = 300; i < 400; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ExpectWorkload(db.get(), "after the compaction");
  }
  {
    std::unique_ptr<DB> db;
    OpenCounting(&db);
    ASSERT_NE(nullptr, db);
    ExpectWorkload(db.get(), "reopened");
    EXPECT_EQ("", Leftovers(db.get()));
  }
  ASSERT_OK(RepairDB(dbname_, DbOptions()));
  DB* raw = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), ManualCompactionKvFiles(stay_put()),
                        dbname_, &raw));
  std::unique_ptr<DB> db(raw);
  ExpectWorkload(db.get(), "after RepairDB");
}

// Runs only as the child of the test below: opens the cleanly closed
// database, overwrites every key, flushes and compacts; the compaction's
// CLEAN_CLOSE_KILL_AT-th disk call raises SIGKILL.
TEST(CleanCloseKillMidCompaction, Child) {
  const char* dbname = std::getenv("CLEAN_CLOSE_DB");
  const char* shadow = std::getenv("CLEAN_CLOSE_SHADOW");
  const char* kill_at = std::getenv("CLEAN_CLOSE_KILL_AT");
  if (dbname == nullptr || shadow == nullptr || kill_at == nullptr) {
    GTEST_SKIP() << "helper for CleanCloseTest";
  }
  const bool stay_put = std::getenv("CLEAN_CLOSE_STAY_PUT") != nullptr;
  PowerLossFileSystem fs(FileSystem::Default(), shadow);
  fs.SetPowerCutHook([] { raise(SIGKILL); });
  DB* db = nullptr;
  if (!OpenWithFileSystem(DbOptions(), ManualCompactionKvFiles(stay_put),
                          dbname, &fs, &db)
           .ok()) {
    _exit(2);
  }
  for (int i = 0; i < 300; i++) {
    if (!db->Put(WriteOptions(), Key(i), Value(i, 3)).ok()) _exit(3);
  }
  if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(4);
  fs.CutPowerAtCall(std::strtoull(kill_at, nullptr, 10));
  Impl(db)->TEST_CompactRange(0, nullptr, nullptr);
  Impl(db)->TEST_CompactRange(1, nullptr, nullptr);
  _exit(5);  // the kill did not land
}

// A kill -9 in the middle of a compaction (its links made, not committed)
// after the database was opened from a clean close: the Open removed the
// marker, so the next one sweeps the links.
TEST_P(CleanCloseTest, KillMidCompactionThenOpenSweeps) {
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname_, stay_put()));
  ASSERT_TRUE(Exists(Marker(dbname_)));
  std::unique_ptr<DB> db;
  ASSERT_NO_FATAL_FAILURE(
      KillChildThenOpen("CleanCloseKillMidCompaction.Child",
                        {{"CLEAN_CLOSE_DB", dbname_},
                         {"CLEAN_CLOSE_SHADOW", tmp_.path() + "/shadow"},
                         {"CLEAN_CLOSE_KILL_AT", "40"}},
                        &db));
  int wrong = 0;
  for (int i = 0; i < 300; i++) {
    std::string v;
    if (!db->Get(ReadOptions(), Key(i), &v).ok() || v != Value(i, 3)) wrong++;
  }
  EXPECT_EQ(0, wrong) << "keys written before the kill lost or wrong";
  EXPECT_EQ("", Leftovers(db.get()));
  // The kill did leave links for the sweep (the first of the two Opens
  // swept, and says so in the LOG it rotated to LOG.old).
  std::string log;
  ASSERT_OK(ReadFileToString(Env::Default(), dbname_ + "/LOG.old", &log));
  EXPECT_NE(std::string::npos, log.find("unowned directory entries"))
      << "the kill left nothing for the sweep to remove";
}

// `delsm verify` finds nothing left over after a clean close and a reopen
// that skipped the sweeps.
TEST_P(CleanCloseTest, VerifyFindsNoLeftoversAfterCleanCloseAndReopen) {
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname_, stay_put()));
  std::unique_ptr<DB> db;
  EXPECT_EQ(0u, OpenCounting(&db));
  ASSERT_NE(nullptr, db);
  for (int i = 400; i < 500; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
  }
  ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
  ASSERT_OK(Impl(db.get())->TEST_CompactRange(0, nullptr, nullptr));
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  db.reset();
  ASSERT_TRUE(Exists(Marker(dbname_)));
  const delsm_test::RunResult r = delsm_test::Shell(
      std::string(DELSM_TOOL) + " verify --json --quiet " + dbname_);
  EXPECT_EQ(0, r.exit_code) << r.out.substr(0, 2000);
  EXPECT_EQ(std::string::npos, r.out.find("{\"kind\":"))
      << r.out.substr(0, 2000);
}

// DestroyDB knows the marker as the database's: the directory goes.
TEST_P(CleanCloseTest, DestroyDBRemovesTheMarker) {
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname_, stay_put()));
  ASSERT_TRUE(Exists(Marker(dbname_)));
  ASSERT_OK(DestroyDB(dbname_, DbOptions()));
  EXPECT_FALSE(Exists(dbname_)) << "DestroyDB left the DB directory";
}

// Reopens the workload's database, overwrites every seventh key of the
// range Workload compacted to L1 (deleted ones among them) and closes
// without a flush: the next Open replays those writes from the WAL, as it
// does after every Close with a memtable. Returns what they wrote.
LaterWrites WriteLeftInTheWal(const std::string& dbname,
                              const delsm::Tuning& tuning) {
  LaterWrites later;
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), tuning, dbname, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 1; db != nullptr && i < 300; i += 7) {
    later[i] = Value(i, 4);
    EXPECT_TRUE(db->Put(WriteOptions(), Key(i), later[i]).ok());
  }
  return later;
}

// The calls of kind `op` on paths holding `where` an Open of `dbname`
// through `fs` makes; the DB stays open in *db.
uint64_t CallsOfOpen(FaultInjectionFileSystem* fs, const std::string& dbname,
                     const delsm::Tuning& tuning, FsOp op, const char* where,
                     std::unique_ptr<DB>* db) {
  FaultSpec count_only;
  count_only.nth = uint64_t{1} << 62;  // never reached: counts only
  count_only.path_contains = where;
  fs->Arm(op, count_only);
  DB* raw = nullptr;
  Status s = OpenWithFileSystem(DbOptions(), tuning, dbname, fs, &raw);
  const uint64_t n = fs->Matches();
  fs->Disarm();
  EXPECT_TRUE(s.ok()) << s.ToString();
  db->reset(raw);
  return s.ok() ? n : ~uint64_t{0};
}

// After a clean Close, an Open whose WAL holds writes over every level
// replays them and flushes them to L0 as LevelDB's does, and reads nothing
// else: it lists no SST directory and no home, and opens no file of an SST
// it had before (the replayed writes are newer than all of them, which the
// manifest's sequence ranges show without their meta files). Each count
// from its own copy of the database, since an Open leaves no WAL behind.
TEST_P(CleanCloseTest, OpenReplayingAWalAfterCleanCloseReadsNoSst) {
  const delsm::Tuning tuning = ManualCompactionKvFiles(stay_put());
  // Paths holding "" stand for the first L0 SST Workload left (its
  // directory's name, known once the copy is built).
  const struct {
    FsOp op;
    std::string where;
  } probes[] = {{FsOp::kReaddir, ".sst"},
                {FsOp::kReaddir, "/values/"},
                {FsOp::kOpen, "/L1/"},
                {FsOp::kOpen, ""}};
  int copy = 0;
  for (const auto& probe : probes) {
    const std::string dbname = dbname_ + std::to_string(copy++);
    ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname, stay_put()));
    ASSERT_FALSE(ListDir(dbname + "/L1").empty()) << "the workload left no L1";
    const std::vector<std::string> level0 = ListDir(dbname + "/L0");
    ASSERT_FALSE(level0.empty()) << "the workload left no L0";
    const std::string where =
        probe.where.empty() ? "/L0/" + level0[0] + "/" : probe.where;
    const LaterWrites later = WriteLeftInTheWal(dbname, tuning);
    ASSERT_TRUE(Exists(Marker(dbname))) << "a clean Close writes the marker";
    std::unique_ptr<DB> db;
    EXPECT_EQ(0u,
              CallsOfOpen(&fs_, dbname, tuning, probe.op, where.c_str(), &db))
        << FsOpName(probe.op) << " calls on paths holding " << where
        << " by an Open after a clean close";
    ASSERT_NE(nullptr, db);
    ExpectWorkload(db.get(), "reopened with the WAL replayed", later);
    ASSERT_TRUE(Impl(db.get())->TEST_WaitForBackgroundWork().ok());
    EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
    db.reset();
    EXPECT_TRUE(Exists(Marker(dbname)))
        << "the Close after a replaying Open left something to sweep";
  }
}

// A compaction given up before its commit (here for want of descriptors,
// a manual one: the caller gets the error and the DB goes on; a Close in
// the middle of one gives it up alike) undoes what it made. Nothing is
// left for the sweeps: the Close writes the marker and the next Open lists
// no SST directory and no home.
TEST_P(CleanCloseTest, AGivenUpCompactionLeavesNothingToSweep) {
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenWithFileSystem(
        DbOptions(), ManualCompactionKvFiles(stay_put()), dbname_, &fs_, &raw));
    std::unique_ptr<DB> db(raw);
    WriteKeysToL1(db.get());
    for (int i = 300; i < 400; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
    }
    OverwriteAndDeleteToL0(db.get());
    // The compaction's first file written at L1 (an output's meta file)
    // fails: the output it had begun is abandoned.
    FaultSpec spec;
    spec.nth = 1;
    spec.err = EMFILE;
    spec.path_contains = "/L1/";
    fs_.Arm(FsOp::kWrite, spec);
    EXPECT_FALSE(Impl(db.get())->TEST_CompactRange(0, nullptr, nullptr).ok());
    ASSERT_TRUE(fs_.Fired()) << "the compaction wrote nothing at L1";
    fs_.Disarm();
    ExpectWorkload(db.get(), "after the compaction was given up");
  }
  EXPECT_TRUE(Exists(Marker(dbname_)))
      << "the given-up compaction left something for the sweeps";
  std::unique_ptr<DB> db;
  EXPECT_EQ(0u, OpenCounting(&db));
  ASSERT_NE(nullptr, db);
  ExpectWorkload(db.get(), "reopened");
  EXPECT_EQ("", Leftovers(db.get()));
}

// Durability::kDeferred keeps a flush's WAL after the flush; the Close
// makes every flush durable (one syncfs) and retires those WALs, so the
// next Open replays none of them over the L0 SSTs holding their writes,
// replaces none, and sweeps nothing.
TEST_P(CleanCloseTest, CloseRetiresTheWalsOfDeferredFlushes) {
  delsm::Tuning tuning = ManualCompactionKvFiles(stay_put());
  tuning.durability = delsm::Durability::kDeferred;
  {
    DB* raw = nullptr;
    ASSERT_OK(delsm::Open(DbOptions(), tuning, dbname_, &raw));
    std::unique_ptr<DB> db(raw);
    Workload(db.get());
  }
  int logs = 0;
  for (const std::string& name : ListDir(dbname_)) {
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log") logs++;
  }
  EXPECT_EQ(1, logs) << "WALs of durable flushes outlived the Close";
  ASSERT_TRUE(Exists(Marker(dbname_)));
  std::unique_ptr<DB> db;
  EXPECT_EQ(0u, CallsOfOpen(&fs_, dbname_, tuning, FsOp::kReaddir, ".sst", &db))
      << "the Open after a clean close swept";
  ASSERT_NE(nullptr, db);
  ExpectWorkload(db.get(), "reopened");
  EXPECT_EQ("", Leftovers(db.get()));
}

// Runs only as the child of the test below: opens the cleanly closed
// database, leaves writes in the WAL and is killed without a Close.
TEST(CleanCloseKillWithWal, Child) {
  const char* dbname = std::getenv("CLEAN_CLOSE_DB");
  if (dbname == nullptr) GTEST_SKIP() << "helper for CleanCloseTest";
  const bool stay_put = std::getenv("CLEAN_CLOSE_STAY_PUT") != nullptr;
  DB* db = nullptr;
  if (!delsm::Open(DbOptions(), ManualCompactionKvFiles(stay_put), dbname, &db)
           .ok()) {
    _exit(2);
  }
  for (int i = 1; i < 300; i += 7) {
    if (!db->Put(WriteOptions(), Key(i), Value(i, 4)).ok()) _exit(3);
  }
  raise(SIGKILL);
  _exit(5);
}

// Killed with writes in its WAL, a process writes no marker (and its Open
// removed the one it found): the next Open replays the WAL and sweeps.
TEST_P(CleanCloseTest, KillWithAWalThenOpenSweeps) {
  ASSERT_NO_FATAL_FAILURE(BuildAndClose(dbname_, stay_put()));
  ASSERT_TRUE(Exists(Marker(dbname_)));
  std::unique_ptr<DB> db;
  ASSERT_NO_FATAL_FAILURE(KillChildThenOpen(
      "CleanCloseKillWithWal.Child", {{"CLEAN_CLOSE_DB", dbname_}}, &db));
  LaterWrites later;
  for (int i = 1; i < 300; i += 7) later[i] = Value(i, 4);
  ExpectWorkload(db.get(), "reopened after the kill", later);
  EXPECT_EQ("", Leftovers(db.get()));
}

INSTANTIATE_TEST_SUITE_P(Modes, CleanCloseTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace
}  // namespace leveldb
