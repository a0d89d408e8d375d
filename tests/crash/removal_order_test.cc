// What the removal of dead files must never lose or bring back, checked on a
// real file system, with kill -9 and with injected failures:
// - dead values (values that stay put, docs/DESIGN.md section 5) go before
//   every meta file naming them, whatever an iterator pins: after a kill -9
//   every file in a home is named by a meta file still on disk, and RepairDB
//   does not bring back a key whose value and tombstone a compaction
//   dropped; also when unlinking the dead values fails;
// - a flush retried after running out of descriptors, with two flush
//   workers, leaves no home behind for the builds it discarded;
// - RepairDB does not take back the values of a home no meta file names
//   when every meta file reads (such a home comes from a flush that never
//   committed);
// - a clean close removes every retired SST and dead value, in every mode;
// - a removal of retired SSTs or of dead values that fails is retried while
//   the database runs;
// - the open sweep of homes compares names: a missing value does not hide
//   a stray one;
// - a retired SST whose meta file is its only entry, in a directory shared
//   with live SSTs, goes alone: the live SSTs' keys read back, their
//   tombstones still hide a deeper level's values, while open, after a
//   reopen and after a kill -9.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/dbformat.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

using delsm_test::HomeFiles;
using delsm_test::ListDir;
using delsm_test::ManualCompactionKvFiles;
using delsm_test::TempDir;

std::string Key(int i) { return delsm_test::IndexKey(i); }

std::string Value(int i, int version) {
  return "v" + std::to_string(version) + "-" + std::to_string(i) + "-" +
         std::string(1000 + i % 500, 'a' + (i + version) % 26);
}

Options DbOptions(size_t write_buffer = 1 << 20) {
  return delsm_test::NewDbOptions(write_buffer);
}

DBImpl* Impl(DB* db) { return static_cast<DBImpl*>(db); }

// Puts Value(i, version) under Key(i) for i = begin, begin + step, ... <
// end; the first error, or OK.
Status PutKeys(DB* db, int begin, int end, int step, int version) {
  for (int i = begin; i < end; i += step) {
    Status s = db->Put(WriteOptions(), Key(i), Value(i, version));
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// The first call of its kind under `path_contains` fails with EMFILE.
FaultSpec FirstCallFails(const char* path_contains) {
  FaultSpec spec;
  spec.nth = 1;
  spec.err = EMFILE;
  spec.path_contains = path_contains;
  return spec;
}

// A write and a flush, after which the removal pass runs again; waits for
// the background work.
Status FlushToRunRemovalAgain(DB* db) {
  Status s = db->Put(WriteOptions(), "trigger", "a flush");
  if (s.ok()) s = Impl(db)->TEST_FlushMemTable();
  if (s.ok()) s = Impl(db)->TEST_WaitForBackgroundWork();
  return s;
}

// The files in homes that no meta file on disk names (live or replaced:
// every META* in every SST directory), as "home/name". A meta file that
// cannot be read is reported as "unreadable <path>".
std::set<std::string> HomeFilesNoMetaFileNames(const std::string& dbname) {
  std::set<std::string> named;
  std::set<std::string> result;
  FileSystem* fs = FileSystem::Default();
  for (int level = 0; level < 7; level++) {
    const std::string level_dir = dbname + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(level_dir)) {
      const std::string path = level_dir + "/" + d;
      for (const std::string& name : ListDir(path)) {
        if (name.rfind("META", 0) != 0) continue;
        std::unique_ptr<Directory> dir;
        std::string data;
        MetaFileContents contents;
        Status s = fs->OpenDirectory(path, &dir);
        if (s.ok()) s = dir->ReadFile(name, &data);
        if (s.ok()) s = DecodeMetaFile(data, path + "/" + name, &contents);
        if (!s.ok()) {
          result.insert("unreadable " + path + "/" + name);
          continue;
        }
        for (const MetaEntry& e : contents.entries) {
          if (!StoredInHome(e.storage)) continue;
          const Slice ikey(e.internal_key);
          named.insert(HomeDirName(e.home) + "/" +
                       KvStoredFileName(ExtractUserKey(ikey),
                                        ExtractTag(ikey) >> 8,
                                        StoredCompressed(e.storage)));
        }
      }
    }
  }
  for (const std::string& f : HomeFiles(dbname)) {
    if (named.count(f) == 0) result.insert(f);
  }
  return result;
}

// Keys 0..99 hold Value(i, 1) except every 7th, deleted; `what` says when.
void ExpectHundredKeysWithEverySeventhDeleted(DB* db, const std::string& what) {
  int resurrected = 0, wrong = 0;
  for (int i = 0; i < 100; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (i % 7 == 0) {
      if (!s.IsNotFound()) resurrected++;
    } else if (!s.ok() || v != Value(i, 1)) {
      wrong++;
    }
  }
  EXPECT_EQ(0, resurrected) << what << ": deleted keys came back";
  EXPECT_EQ(0, wrong) << what << ": live keys lost or wrong";
}

// Runs only as the child of the tests below. Writes one key, pins that
// version with an iterator (older than every SST written after it), writes
// keys 0..99 and flushes, deletes every 7th and flushes, and compacts all
// into the base level: the compaction drops the deleted keys' values and
// their tombstones, and their files are pinned by the old iterator. With
// REMOVAL_FAIL_UNLINKS every unlink in a home fails (EMFILE) from then on,
// the iterator is released and a flush runs the removal again. Then
// SIGKILL.
TEST(RemovalOrderKillWithOldIteratorPinned, Child) {
  const char* dbname = std::getenv("REMOVAL_DB");
  if (dbname == nullptr) GTEST_SKIP() << "helper for RemovalOrderTest";
  FaultInjectionFileSystem fs(FileSystem::Default());
  DB* db = nullptr;
  if (!OpenWithFileSystem(DbOptions(), ManualCompactionKvFiles(), dbname, &fs,
                          &db)
           .ok()) {
    _exit(2);
  }
  if (!db->Put(WriteOptions(), "a-first-key", Value(0, 0)).ok()) _exit(3);
  if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(4);
  Iterator* pin = db->NewIterator(ReadOptions());
  pin->SeekToFirst();
  for (int i = 0; i < 100; i++) {
    if (!db->Put(WriteOptions(), Key(i), Value(i, 1)).ok()) _exit(5);
  }
  if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(6);
  for (int i = 0; i < 100; i += 7) {
    if (!db->Delete(WriteOptions(), Key(i)).ok()) _exit(7);
  }
  if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(8);
  const bool fail_unlinks = std::getenv("REMOVAL_FAIL_UNLINKS") != nullptr;
  if (fail_unlinks) {
    FaultSpec spec;
    spec.nth = 1;
    spec.err = EMFILE;
    spec.sticky = true;
    spec.path_contains = "/values/";
    fs.Arm(FsOp::kUnlink, spec);
  }
  db->CompactRange(nullptr, nullptr);
  if (!Impl(db)->TEST_WaitForBackgroundWork().ok()) _exit(9);
  if (fail_unlinks) {
    delete pin;
    pin = nullptr;
    if (!db->Put(WriteOptions(), "z-last-key", Value(0, 0)).ok()) _exit(10);
    if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(11);
    if (!Impl(db)->TEST_WaitForBackgroundWork().ok()) _exit(12);
    if (!fs.Fired()) _exit(13);  // the removal did meet the fault
  }
  raise(SIGKILL);
  _exit(14);
}

// Each test's database, in a directory of its own. DELSM_OPTIONS (which
// the suite may be run under) is dropped: every test sets its tuning.
class RemovalOrderTest : public testing::Test {
 protected:
  RemovalOrderTest()
      : tmp_("delsm_removal_order"), dbname_(tmp_.path() + "/db") {
    unsetenv("DELSM_OPTIONS");
  }
  void SetUp() override { ASSERT_FALSE(tmp_.path().empty()); }

  // Runs RemovalOrderKillWithOldIteratorPinned.Child on dbname_, then
  // checks what the kill left and what RepairDB makes of it.
  void KillRepairAndCheck(bool fail_unlinks);

  TempDir tmp_;
  const std::string dbname_;
};

void RemovalOrderTest::KillRepairAndCheck(bool fail_unlinks) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"REMOVAL_DB", dbname_}};
  if (fail_unlinks) env.push_back({"REMOVAL_FAIL_UNLINKS", "1"});
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "RemovalOrderKillWithOldIteratorPinned.Child", env));
  // The dead values are still there (the iterator pinned them, or their
  // unlinks failed), so must be a meta file naming each.
  const std::set<std::string> home_files = HomeFiles(dbname_);
  ASSERT_GE(home_files.size(), 100u);
  const std::set<std::string> unnamed = HomeFilesNoMetaFileNames(dbname_);
  EXPECT_TRUE(unnamed.empty())
      << unnamed.size() << " files in homes no meta file names, first "
      << *unnamed.begin();

  ASSERT_OK(RepairDB(dbname_, DbOptions()));
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), ManualCompactionKvFiles(), dbname_, &db));
  std::unique_ptr<DB> holder(db);
  ExpectHundredKeysWithEverySeventhDeleted(db, "repaired");
}

TEST_F(RemovalOrderTest, RepairAfterAKillDoesNotBringBackDroppedValues) {
  KillRepairAndCheck(/*fail_unlinks=*/false);
}

TEST_F(RemovalOrderTest, DeadValuesThatCannotBeUnlinkedKeepTheirMetaFiles) {
  KillRepairAndCheck(/*fail_unlinks=*/true);
}

// A home no meta file names, as a flush that never committed leaves it
// (here: a copy of a committed flush's home, as a discarded build of the
// same memtable would be), must not bring back keys deleted since.
TEST_F(RemovalOrderTest, RepairDoesNotTakeBackAHomeNoMetaFileNames) {
  {
    DB* db = nullptr;
    ASSERT_OK(
        delsm::Open(DbOptions(), ManualCompactionKvFiles(), dbname_, &db));
    std::unique_ptr<DB> holder(db);
    ASSERT_OK(PutKeys(db, 0, 100, 1, 1));
    ASSERT_OK(Impl(db)->TEST_FlushMemTable());
    const std::vector<std::string> homes = ListDir(dbname_ + "/values");
    ASSERT_EQ(1u, homes.size());
    const std::string copy = dbname_ + "/values/009999";
    ASSERT_EQ("", delsm_test::CopyTree(dbname_ + "/values/" + homes[0], copy));
    for (int i = 0; i < 100; i += 7) {
      ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
    }
    ASSERT_OK(Impl(db)->TEST_FlushMemTable());
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  }
  ASSERT_OK(RepairDB(dbname_, DbOptions()));
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), ManualCompactionKvFiles(), dbname_, &db));
  std::unique_ptr<DB> holder(db);
  ExpectHundredKeysWithEverySeventhDeleted(db, "repaired");
  // Not deleted: put away in lost/.
  EXPECT_EQ(100u, ListDir(dbname_ + "/lost/values-009999").size());
}

// Two flush workers; creates of KV files in homes fail with EMFILE at
// random, so flushes are retried and younger builds discarded. No home may
// outlive the build that made it: not while the database runs, not after
// its clean close (where RepairDB would otherwise find them).
TEST_F(RemovalOrderTest, RetriedFlushesLeaveNoHomeBehind) {
  const uint64_t seed = delsm_test::RandomSeed("RetriedFlushesLeaveNoHome");
  std::mt19937 rng(seed);
  FaultInjectionFileSystem fs(FileSystem::Default());
  delsm::Tuning t = ManualCompactionKvFiles();
  t.flush_threads = 2;
  DB* db = nullptr;
  ASSERT_OK(OpenWithFileSystem(DbOptions(64 << 10), t, dbname_, &fs, &db));
  std::unique_ptr<DB> holder(db);
  int injected = 0;
  constexpr int kBatches = 60;
  for (int batch = 0; batch < kBatches; batch++) {
    if (batch < kBatches - 10 && (injected == 0 || fs.Fired())) {
      if (fs.Fired()) injected++;
      FaultSpec spec;
      spec.nth = 1 + rng() % 60;
      spec.err = EMFILE;
      spec.path_contains = "/values/";
      fs.Arm(FsOp::kOpen, spec);
    } else if (batch >= kBatches - 10) {
      fs.Disarm();
    }
    for (int i = 0; i < 50; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(batch * 50 + i),
                        Value(batch * 50 + i, 1)));
    }
  }
  fs.Disarm();
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  EXPECT_GE(injected, 10) << "seed " << seed;
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_)) << "seed " << seed;
  std::string sstables;
  ASSERT_TRUE(db->GetProperty("leveldb.sstables", &sstables));
  holder.reset();
  const std::vector<std::string> after_close =
      delsm_test::OrphanSstEntries(dbname_, sstables);
  EXPECT_TRUE(after_close.empty())
      << after_close.size() << " after the close, first " << after_close[0]
      << ", seed " << seed;
}

// A compaction while an iterator pins the version before it, the iterator
// released, the database closed at once: nothing is left that no version
// uses (retired SSTs, their directories, dead values), in either mode,
// with values inline or not.
TEST_F(RemovalOrderTest, CloseRemovesWhatNoVersionUses) {
  for (bool stay_put : {false, true}) {
    for (int inline_threshold : {0, 2048}) {
      const std::string what = std::string(stay_put ? "stay put" : "default") +
                               ", inline_threshold " +
                               std::to_string(inline_threshold);
      TempDir tmp("delsm_removal_order");
      ASSERT_FALSE(tmp.path().empty());
      const std::string dbname = tmp.path() + "/db";
      delsm::Tuning t = ManualCompactionKvFiles(stay_put);
      t.inline_threshold = inline_threshold;
      DB* db = nullptr;
      ASSERT_OK(delsm::Open(DbOptions(64 << 10), t, dbname, &db));
      std::unique_ptr<DB> holder(db);
      ASSERT_OK(PutKeys(db, 0, 400, 1, 1));
      db->CompactRange(nullptr, nullptr);  // an L1 to compact into
      std::unique_ptr<Iterator> pin(db->NewIterator(ReadOptions()));
      pin->SeekToFirst();
      ASSERT_OK(PutKeys(db, 0, 400, 2, 2));
      for (int i = 1; i < 400; i += 6) {
        ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      }
      db->CompactRange(nullptr, nullptr);
      ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
      std::string sstables;
      ASSERT_TRUE(db->GetProperty("leveldb.sstables", &sstables));
      pin.reset();
      holder.reset();  // closed right away
      const std::vector<std::string> left =
          delsm_test::OrphanSstEntries(dbname, sstables);
      EXPECT_TRUE(left.empty())
          << what << ": " << left.size() << " left, first " << left[0];
    }
  }
}

// The removal of a compaction's retired SSTs fails (EMFILE on an unlink in
// their directory): the next removal pass, after the next flush, does it.
TEST_F(RemovalOrderTest, FailedRetiredSstRemovalIsRetried) {
  FaultInjectionFileSystem fs(FileSystem::Default());
  DB* db = nullptr;
  ASSERT_OK(OpenWithFileSystem(DbOptions(), ManualCompactionKvFiles(false),
                               dbname_, &fs, &db));
  std::unique_ptr<DB> holder(db);
  ASSERT_OK(PutKeys(db, 0, 300, 1, 1));
  db->CompactRange(nullptr, nullptr);  // L1, the targets below
  ASSERT_OK(PutKeys(db, 0, 300, 3, 2));
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
  fs.Arm(FsOp::kUnlink, FirstCallFails("/L1/"));
  ASSERT_OK(Impl(db)->TEST_CompactRange(0, nullptr, nullptr));
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  ASSERT_TRUE(fs.Fired()) << "no retired SST was removed from L1";
  fs.Disarm();
  ASSERT_OK(FlushToRunRemovalAgain(db));
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
}

// Unlinking a compaction's dead values fails (EMFILE): the next removal
// pass, after the next flush, does it.
TEST_F(RemovalOrderTest, FailedDeadValueRemovalIsRetried) {
  FaultInjectionFileSystem fs(FileSystem::Default());
  DB* db = nullptr;
  ASSERT_OK(OpenWithFileSystem(DbOptions(), ManualCompactionKvFiles(), dbname_,
                               &fs, &db));
  std::unique_ptr<DB> holder(db);
  ASSERT_OK(PutKeys(db, 0, 100, 1, 1));
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
  ASSERT_OK(PutKeys(db, 0, 100, 1, 2));
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
  fs.Arm(FsOp::kUnlink, FirstCallFails("/values/"));
  db->CompactRange(nullptr, nullptr);
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  ASSERT_TRUE(fs.Fired()) << "no dead value was unlinked";
  fs.Disarm();
  ASSERT_OK(FlushToRunRemovalAgain(db));
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
  EXPECT_EQ(101u, HomeFiles(dbname_).size());  // and the trigger's
}

// A home holding as many files as live entries name it, one named file
// missing and one stray: the open sweep removes the stray one.
TEST_F(RemovalOrderTest, OpenSweepOfHomesComparesNames) {
  {
    DB* db = nullptr;
    ASSERT_OK(
        delsm::Open(DbOptions(), ManualCompactionKvFiles(), dbname_, &db));
    std::unique_ptr<DB> holder(db);
    ASSERT_OK(PutKeys(db, 0, 100, 1, 1));
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  }
  const std::vector<std::string> homes = ListDir(dbname_ + "/values");
  ASSERT_EQ(1u, homes.size());
  const std::string home = dbname_ + "/values/" + homes[0];
  const std::vector<std::string> files = ListDir(home);
  ASSERT_EQ(100u, files.size());
  ASSERT_EQ(0, unlink((home + "/" + files[5]).c_str()));
  const std::string stray = home + "/" + KvFileName(Key(5), 999999);
  ASSERT_TRUE(std::ofstream(stray) << "a value no entry names");
  // As a crash leaves it: without the clean-close marker, which would tell
  // Open that there is nothing to sweep.
  ASSERT_EQ(0, unlink((dbname_ + "/CLOSED").c_str()));
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), ManualCompactionKvFiles(), dbname_, &db));
  std::unique_ptr<DB> holder(db);
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  struct stat st;
  EXPECT_NE(0, lstat(stray.c_str(), &st)) << stray << " survived the sweep";
}

// ---------------------------------------------------------------------------
// A retired SST that owns only its meta file, in a directory it shares
// with live SSTs.
//
// With every value inline an SST's meta file is its only entry in its
// directory (FileMetaData::dir_entries == 1), and its removal unlinks that
// meta file (and LONGKEYS, which it has none of) without reading its index
// (RemoveMetaOnlySst): no KV file of the directory can be its. That is
// safe only if the names it unlinks are its own, which its number alone
// makes them: the directory's other SSTs, their meta files and the
// tombstones in them (hiding older values of a deeper level) must all
// stay.

// An inline value (well under Tuning::inline_threshold).
std::string InlineValue(int i, int version) {
  return "v" + std::to_string(version) + "-" + std::to_string(i) + "-" +
         std::string(40 + i % 30, 'a' + (i + version) % 26);
}

constexpr int kSharedDirKeys = 100;

// Ten entries an SST, no compaction unasked, every value inline.
delsm::Tuning SharedDirTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.sst_entries = 10;
  t.inline_threshold = 2048;
  t.values_stay_put = false;
  return t;
}

// The workload's writes, phase by phase: (key index, version), a delete
// where the version is 0.
//   0: every key, into L2 (old values for the tombstones above to hide);
//   1: the first and last key, into one L1 SST: the directory D;
//   2: every key (every 5th deleted), compacted into D: ten SSTs of ten
//      keys, D's first SST (its META) retired;
//   3: keys 42..47 (three deleted, one of them put back), compacted into
//      D: the SST of keys 40..49 is retired, its nine neighbours stay.
std::vector<std::vector<std::pair<int, int>>> SharedDirPhases() {
  std::vector<std::vector<std::pair<int, int>>> phases(4);
  for (int i = 0; i < kSharedDirKeys; i++) {
    phases[0].push_back({i, 1});
    phases[2].push_back({i, i % 5 == 1 ? 0 : 3});
  }
  phases[1] = {{0, 2}, {kSharedDirKeys - 1, 2}};
  phases[3] = {{42, 0}, {43, 4}, {44, 0}, {45, 4}, {46, 4}, {47, 0}};
  return phases;
}

using KeyModel = std::map<std::string, std::string>;

// What the database holds after the phases up to `phases` (exclusive).
KeyModel SharedDirModel(size_t phases) {
  KeyModel model;
  const auto all = SharedDirPhases();
  for (size_t p = 0; p < phases && p < all.size(); p++) {
    for (const auto& w : all[p]) {
      if (w.second == 0) {
        model.erase(Key(w.first));
      } else {
        model[Key(w.first)] = InlineValue(w.first, w.second);
      }
    }
  }
  return model;
}

// "" if `db` holds exactly `model`, by Get of every key index and by a full
// scan; else the first differences.
std::string DiffFromModel(DB* db, const KeyModel& model) {
  std::string diff;
  int wrong = 0;
  for (int i = 0; i < kSharedDirKeys; i++) {
    std::string v;
    const Status s = db->Get(ReadOptions(), Key(i), &v);
    auto it = model.find(Key(i));
    std::string what;
    if (it == model.end() && !s.IsNotFound()) {
      what = "deleted, reads " + (s.ok() ? "a value" : s.ToString());
    } else if (it != model.end() && (!s.ok() || v != it->second)) {
      what = s.ok() ? "wrong value" : s.ToString();
    }
    if (!what.empty() && wrong++ < 3) diff += Key(i) + ": " + what + "; ";
  }
  if (wrong > 3) diff += std::to_string(wrong - 3) + " more keys wrong; ";
  KeyModel scanned;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    scanned[it->key().ToString()] = it->value().ToString();
  }
  if (!it->status().ok()) diff += "scan: " + it->status().ToString() + "; ";
  if (scanned != model) {
    diff += "scan: " + std::to_string(scanned.size()) + " keys for " +
            std::to_string(model.size()) + ", or other values";
  }
  return diff;
}

// The live SSTs of `level` as "<dir>.sst/<meta file>" (leveldb.sstables).
std::set<std::string> SstsAtLevel(DB* db, int level) {
  std::string sstables;
  if (!db->GetProperty("leveldb.sstables", &sstables)) return {};
  return delsm_test::ListedSsts(sstables)[level];
}

// Every name in directory `path` with its inode.
std::map<std::string, ino_t> NamesAndInodes(const std::string& path) {
  std::map<std::string, ino_t> result;
  for (const std::string& name : ListDir(path)) {
    struct stat st;
    result[name] = lstat((path + "/" + name).c_str(), &st) == 0 ? st.st_ino : 0;
  }
  return result;
}

// Runs the phases on `db` at `dbname`, checking that D holds meta files
// only and that the last compaction's removal unlinked exactly the retired
// SST's meta file and left everything else of D and of L2 as it was.
// Returns "" or what went wrong: a failed step ends it, a failed check
// does not (the later checks still tell what they see).
std::string RetireAMetaOnlySstOfASharedDirectory(DB* db,
                                                 const std::string& dbname) {
  const auto phases = SharedDirPhases();
  auto write = [&](size_t p) {
    for (const auto& w : phases[p]) {
      Status s = w.second == 0 ? db->Delete(WriteOptions(), Key(w.first))
                               : db->Put(WriteOptions(), Key(w.first),
                                         InlineValue(w.first, w.second));
      if (!s.ok()) return s;
    }
    return Impl(db)->TEST_FlushMemTable();
  };
  auto failed = [](const std::string& step, const Status& s) {
    return step + ": " + s.ToString();
  };
  std::string problems;
  Status s = write(0);
  if (s.ok()) s = Impl(db)->TEST_CompactRange(0, nullptr, nullptr);
  if (s.ok()) s = Impl(db)->TEST_CompactRange(1, nullptr, nullptr);
  if (!s.ok()) return failed("phase 0", s);
  if (SstsAtLevel(db, 2).size() != 10) problems += "not ten L2 SSTs; ";
  s = write(1);
  if (s.ok()) s = Impl(db)->TEST_CompactRange(0, nullptr, nullptr);
  if (!s.ok()) return failed("phase 1", s);
  const std::vector<std::string> l1 = ListDir(dbname + "/L1");
  if (l1.size() != 1) return "phase 1 left no single L1 directory";
  const std::string dir = dbname + "/L1/" + l1[0];
  s = write(2);
  if (s.ok()) s = Impl(db)->TEST_CompactRange(0, nullptr, nullptr);
  if (s.ok()) s = Impl(db)->TEST_WaitForBackgroundWork();
  if (!s.ok()) return failed("phase 2", s);
  const std::set<std::string> before = SstsAtLevel(db, 1);
  const std::map<std::string, ino_t> names_before = NamesAndInodes(dir);
  if (before.size() != 10) problems += "phase 2: L1 not ten SSTs; ";
  for (const std::string& sst : before) {
    if (sst.rfind(l1[0] + "/META-", 0) != 0) problems += sst + " not in D; ";
  }
  // D holds the meta files of its live SSTs and nothing else: its SSTs
  // own no other entry, and its first SST (META), retired, has gone.
  if (names_before.size() != before.size()) {
    problems += "phase 2: D holds " + std::to_string(names_before.size()) +
                " names for " + std::to_string(before.size()) + " SSTs; ";
  }
  for (const auto& n : names_before) {
    if (n.first.rfind("META-", 0) != 0) problems += "D holds " + n.first + "; ";
  }

  s = write(3);
  if (!s.ok()) return failed("phase 3", s);
  const auto l2_before = delsm_test::TreeSnapshot(dbname + "/L2");
  const std::string begin = Key(42), end = Key(47);
  const Slice b(begin), e(end);
  s = Impl(db)->TEST_CompactRange(0, &b, &e);
  if (s.ok()) s = Impl(db)->TEST_WaitForBackgroundWork();
  if (!s.ok()) return failed("phase 3", s);

  // One SST of D retired, one added, in D.
  const std::set<std::string> after = SstsAtLevel(db, 1);
  std::vector<std::string> retired, added;
  for (const std::string& sst : before) {
    if (after.count(sst) == 0) retired.push_back(sst);
  }
  for (const std::string& sst : after) {
    if (before.count(sst) == 0) added.push_back(sst);
  }
  if (retired.size() != 1 || added.size() != 1 ||
      added[0].rfind(l1[0] + "/", 0) != 0) {
    return problems + "phase 3 replaced " + std::to_string(retired.size()) +
           " SSTs of L1 with " + std::to_string(added.size());
  }
  // The removal unlinked the retired meta file and nothing else: every
  // other name is there, the same file.
  std::map<std::string, ino_t> expected = names_before;
  expected.erase(retired[0].substr(l1[0].size() + 1));
  const std::string added_name = added[0].substr(l1[0].size() + 1);
  std::map<std::string, ino_t> names_after = NamesAndInodes(dir);
  if (names_after.erase(added_name) == 0) problems += "D lacks the output; ";
  if (names_after != expected) {
    problems += "D after the removal:";
    for (const auto& n : names_after) problems += " " + n.first;
    problems += "; expected the names before less " + retired[0] + "; ";
  }
  if (delsm_test::TreeSnapshot(dbname + "/L2") != l2_before) {
    problems += "L2 changed; ";
  }
  return problems;
}

// Runs only as the child of MetaOnlyRemovalSurvivesAKill: the workload,
// its findings written to REMOVAL_META_ONLY_REPORT, then SIGKILL right
// after the retired SST's removal.
TEST(RemovalOrderKillAfterMetaOnlyRemoval, Child) {
  const char* dbname = std::getenv("REMOVAL_META_ONLY_DB");
  const char* report = std::getenv("REMOVAL_META_ONLY_REPORT");
  if (dbname == nullptr || report == nullptr) {
    GTEST_SKIP() << "helper for RemovalOrderTest";
  }
  DB* db = nullptr;
  if (!delsm::Open(DbOptions(), SharedDirTuning(), dbname, &db).ok()) _exit(2);
  const std::string problems = RetireAMetaOnlySstOfASharedDirectory(db, dbname);
  if (!(std::ofstream(report) << problems << "\n")) _exit(3);
  raise(SIGKILL);
  _exit(4);
}

// After the removal, while open, after a clean close and reopen: every
// live key of the directory's other SSTs reads back, no deleted key comes
// back (L2 still holds values for them), nothing is left over.
TEST_F(RemovalOrderTest, MetaOnlyRetiredSstLeavesItsDirectoryNeighbours) {
  const KeyModel model = SharedDirModel(4);
  {
    DB* db = nullptr;
    ASSERT_OK(delsm::Open(DbOptions(), SharedDirTuning(), dbname_, &db));
    std::unique_ptr<DB> holder(db);
    EXPECT_EQ("", RetireAMetaOnlySstOfASharedDirectory(db, dbname_));
    EXPECT_EQ("", DiffFromModel(db, model)) << "after the removal";
    EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
  }
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), SharedDirTuning(), dbname_, &db));
  std::unique_ptr<DB> holder(db);
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", DiffFromModel(db, model)) << "reopened";
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
}

// The same, the process killed (kill -9) right after the removal.
TEST_F(RemovalOrderTest, MetaOnlyRemovalSurvivesAKill) {
  const std::string report = tmp_.path() + "/child_findings";
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "RemovalOrderKillAfterMetaOnlyRemoval.Child",
                    {{"REMOVAL_META_ONLY_DB", dbname_},
                     {"REMOVAL_META_ONLY_REPORT", report}}));
  std::string findings;
  std::getline(std::ifstream(report), findings);
  EXPECT_EQ("", findings) << "in the child, before the kill";
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), SharedDirTuning(), dbname_, &db));
  std::unique_ptr<DB> holder(db);
  ASSERT_OK(Impl(db)->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", DiffFromModel(db, SharedDirModel(4))) << "after the kill";
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
  EXPECT_EQ(10u, SstsAtLevel(db, 1).size());
}

}  // namespace
}  // namespace leveldb
