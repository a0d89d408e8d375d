// Values that stay put (delsm::Tuning::values_stay_put, docs/DESIGN.md
// section 5): a flush writes its KV files into a home directory
// values/<n>/, compactions rewrite only meta files, a value's file goes
// when its entry is dropped and no reader can see it, and the next open
// removes what a crash left. Checked here on a real file system:
// - reads, overwrites, deletes, snapshots and iterators across flushes and
//   compactions against a std::map model (random, seeded);
// - a surviving value keeps its inode, path and single link through every
//   compaction, and no compaction makes a link;
// - dropped values' files stay while an iterator can see them and go
//   (with their emptied homes) once it is released;
// - a writer killed (SIGKILL) after a compaction's commit but before the
//   dropped values were unlinked leaves them behind, and the next open
//   removes exactly those;
// - RepairDB keeps the values in homes, also when a meta file is lost;
// - a database written in the default mode, reopened in this one and back,
//   holds both kinds of entry and reads right throughout;
// - an Open whose listing of values/ for its sweep fails (ENOENT with the
//   directory there, or EIO), or an unlink of a dropped value or the
//   opening of its home failing with ENOENT, leaves no dropped value behind
//   without a meta file naming it, for a RepairDB to take back by its name;
// - GetApproximateSizes counts values in homes.
// The crash and power-loss suites run with the mode on as well (the ctest
// entries *_values_stay_put, tests/CMakeLists.txt).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/forwarding_file_system.h"
#include "tests/orphan_check.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

namespace {

using delsm_test::HomeFiles;
using delsm_test::ListDir;
using delsm_test::TempDir;
using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;

using Model = std::map<std::string, std::string>;

Options DbOptions(size_t write_buffer = 64 << 10) {
  return delsm_test::NewDbOptions(write_buffer);
}

// For the tests that set the mode themselves: DELSM_OPTIONS (which the
// suite may be run under) would override it.
void IgnoreEnvironmentTuning() { unsetenv("DELSM_OPTIONS"); }

delsm::Tuning StayPut(bool on = true) {
  delsm::Tuning t = delsm_test::SmallLevels(100, 32, 200);
  t.values_stay_put = on;
  t.inline_threshold = 64;  // most values in KV files, a few inline
  return t;
}

// StayPut(on) with every value in a KV file (none inline): for the tests
// that count the files in homes.
delsm::Tuning InFiles(bool on = true) {
  delsm::Tuning t = StayPut(on);
  t.inline_threshold = 0;
  return t;
}

std::string Key(int i) {
  return delsm_test::IndexKey(static_cast<uint64_t>(i));
}

// Mostly 1-5 KiB (KV files), some under the inline threshold; distinct per
// (key, version).
std::string Value(int key, uint64_t version) {
  uint64_t h =
      (static_cast<uint64_t>(key) << 20 ^ version) * 0x9E3779B97F4A7C15ull;
  size_t len = (h >> 7) % 5 == 0 ? 20 + h % 40 : 1000 + h % 4000;
  std::string v = Key(key) + "#" + std::to_string(version) + "=";
  while (v.size() < len) v.push_back(static_cast<char>('a' + (h++ % 26)));
  v.resize(std::max(len, v.size()));
  return v;
}

leveldb::DBImpl* Impl(DB* db) { return static_cast<leveldb::DBImpl*>(db); }

// Opens `dbname` with InFiles() and memtables of `write_buffer` bytes.
Status OpenInFiles(const std::string& dbname, std::unique_ptr<DB>* db,
                   size_t write_buffer = 64 << 10) {
  DB* raw = nullptr;
  const Status s =
      delsm::Open(DbOptions(write_buffer), InFiles(), dbname, &raw);
  db->reset(raw);
  return s;
}

// Puts keys [0, n) with their first values and flushes them into one L0
// SST, whose values share one home.
void PutAndFlush(DB* db, int n) {
  for (int i = 0; i < n; i++) {
    ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)));
  }
  ASSERT_OK(Impl(db)->TEST_FlushMemTable());
}

// KV files (names holding '@') in SST directories.
int KvFilesInLevels(const std::string& dbname) {
  int n = 0;
  for (int level = 0; level < 7; level++) {
    const std::string l = dbname + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(l)) {
      for (const std::string& name : ListDir(l + "/" + d)) {
        if (name.find('@') != std::string::npos) n++;
      }
    }
  }
  return n;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  if (!db->GetProperty(name, &v)) return UINT64_MAX;
  return std::strtoull(v.c_str(), nullptr, 10);
}

// Checks every key of `model` (and some absent ones) by Get and a full
// scan, at `snapshot` if given.
void CheckAgainst(DB* db, const Model& model, int key_space,
                  const leveldb::Snapshot* snapshot, const std::string& what) {
  ReadOptions ro;
  ro.snapshot = snapshot;
  for (int k = 0; k < key_space; k++) {
    std::string value;
    Status s = db->Get(ro, Key(k), &value);
    auto it = model.find(Key(k));
    if (it == model.end()) {
      ASSERT_TRUE(s.IsNotFound())
          << what << " key " << k << ": " << s.ToString();
    } else {
      ASSERT_TRUE(s.ok()) << what << " key " << k << ": " << s.ToString();
      ASSERT_EQ(it->second, value) << what << " key " << k;
    }
  }
  std::unique_ptr<leveldb::Iterator> iter(db->NewIterator(ro));
  auto it = model.begin();
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), ++it) {
    ASSERT_NE(model.end(), it) << what << ": scan past the model's end";
    ASSERT_EQ(it->first, iter->key().ToString()) << what;
    ASSERT_EQ(it->second, iter->value().ToString()) << what;
  }
  ASSERT_TRUE(iter->status().ok()) << what << ": " << iter->status().ToString();
  ASSERT_EQ(model.end(), it) << what << ": scan ended early";
}

TEST(ValuesStayPutTest, RandomWorkloadMatchesAModel) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  const uint64_t seed = delsm_test::RandomSeed("values stay put model");
  std::mt19937_64 rnd(seed);
  constexpr int kKeys = 400;
  DB* raw = nullptr;
  ASSERT_OK(delsm::Open(DbOptions(), StayPut(), dbname, &raw));
  std::unique_ptr<DB> db(raw);
  Model model;
  // A snapshot with the model it must show, and an iterator opened with
  // it, both held across several rounds of flushes and compactions.
  const leveldb::Snapshot* snap = nullptr;
  Model snap_model;
  uint64_t version = 0;
  for (int round = 0; round < 12; round++) {
    for (int op = 0; op < 300; op++) {
      const int k = static_cast<int>(rnd() % kKeys);
      if (rnd() % 5 == 0) {
        ASSERT_OK(db->Delete(leveldb::WriteOptions(), Key(k)));
        model.erase(Key(k));
      } else {
        const std::string v = Value(k, ++version);
        ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(k), v));
        model[Key(k)] = v;
      }
    }
    if (round % 3 == 0) {
      if (snap != nullptr) db->ReleaseSnapshot(snap);
      snap = db->GetSnapshot();
      snap_model = model;
    }
    if (round % 4 == 3) {
      ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
      db->CompactRange(nullptr, nullptr);
    }
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    const std::string what =
        "seed " + std::to_string(seed) + " round " + std::to_string(round);
    CheckAgainst(db.get(), model, kKeys, nullptr, what);
    CheckAgainst(db.get(), snap_model, kKeys, snap, what + " (snapshot)");
    if (HasFatalFailure()) return;
  }
  db->ReleaseSnapshot(snap);
  // The mode did what it says: values in homes, none in SST directories,
  // compactions happened and made no link.
  EXPECT_GT(Property(db.get(), "delsm.compactions"), 0u);
  EXPECT_EQ(0u, Property(db.get(), "delsm.links"));
  EXPECT_EQ(0, KvFilesInLevels(dbname));
  EXPECT_FALSE(HomeFiles(dbname).empty());
  db.reset();
  ASSERT_OK(delsm::Open(DbOptions(), StayPut(), dbname, &raw));
  db.reset(raw);
  CheckAgainst(db.get(), model, kKeys, nullptr, "reopened");
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
  // DestroyDB takes the homes too (else the DB directory would stay).
  db.reset();
  ASSERT_OK(leveldb::DestroyDB(dbname, DbOptions()));
  struct stat st;
  EXPECT_NE(0, lstat(dbname.c_str(), &st)) << "DestroyDB left " << dbname;
}

struct FileId {
  uint64_t inode = 0;
  uint64_t links = 0;
};

std::map<std::string, FileId> StatHomeFiles(const std::string& dbname) {
  std::map<std::string, FileId> ids;
  for (const std::string& f : HomeFiles(dbname)) {
    struct stat st;
    if (lstat((dbname + "/values/" + f).c_str(), &st) == 0) {
      ids[f] = {static_cast<uint64_t>(st.st_ino),
                static_cast<uint64_t>(st.st_nlink)};
    }
  }
  return ids;
}

TEST(ValuesStayPutTest, SurvivingValuesNeverMove) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db));
  ASSERT_NO_FATAL_FAILURE(PutAndFlush(db.get(), 300));
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  const std::map<std::string, FileId> before = StatHomeFiles(dbname);
  ASSERT_EQ(300u, before.size());
  // Push everything down several levels.
  for (int level = 0; level < 4; level++) {
    ASSERT_OK(Impl(db.get())->TEST_CompactRange(level, nullptr, nullptr));
  }
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  std::string below;
  ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level4", &below));
  EXPECT_NE("0", below) << "the entries did not reach level 4";
  const std::map<std::string, FileId> after = StatHomeFiles(dbname);
  ASSERT_EQ(before.size(), after.size());
  for (const auto& f : before) {
    auto it = after.find(f.first);
    ASSERT_NE(after.end(), it) << f.first << " moved";
    EXPECT_EQ(f.second.inode, it->second.inode) << f.first;
    EXPECT_EQ(1u, it->second.links) << f.first;
  }
  EXPECT_EQ(0u, Property(db.get(), "delsm.links"));
  EXPECT_EQ(0, KvFilesInLevels(dbname));
  for (int i = 0; i < 300; i++) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v));
    ASSERT_EQ(Value(i, 1), v);
  }
}

TEST(ValuesStayPutTest, DeadValuesGoOnceNoReaderCanSeeThem) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db, 1 << 20));
  ASSERT_NO_FATAL_FAILURE(PutAndFlush(db.get(), 100));
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  const std::set<std::string> first = HomeFiles(dbname);
  ASSERT_EQ(100u, first.size());
  const std::vector<std::string> first_homes = ListDir(dbname + "/values");
  ASSERT_EQ(1u, first_homes.size());

  // An iterator pins the version that sees the first values.
  std::unique_ptr<leveldb::Iterator> pinned(db->NewIterator(ReadOptions()));
  pinned->SeekToFirst();
  ASSERT_TRUE(pinned->Valid());
  // Overwrite every key and delete half of them; compact it all down, so
  // every first value's entry is dropped.
  for (int i = 0; i < 100; i++) {
    if (i % 2 == 0) {
      ASSERT_OK(db->Delete(leveldb::WriteOptions(), Key(i)));
    } else {
      ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 2)));
    }
  }
  ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
  db->CompactRange(nullptr, nullptr);
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  // Still visible to the iterator: still on disk, and readable through it.
  for (const std::string& f : first) {
    struct stat st;
    EXPECT_EQ(0, lstat((dbname + "/values/" + f).c_str(), &st)) << f;
  }
  int seen = 0;
  for (; pinned->Valid(); pinned->Next(), seen++) {
    uint64_t index;
    ASSERT_TRUE(delsm_test::ParseIndexKey(pinned->key().ToString(), &index));
    ASSERT_EQ(Value(static_cast<int>(index), 1), pinned->value().ToString());
  }
  ASSERT_OK(pinned->status());
  EXPECT_EQ(100, seen);
  pinned.reset();

  // Released: the next removal pass (after a flush here) unlinks them and
  // removes their home, which held nothing else.
  ASSERT_OK(
      db->Put(leveldb::WriteOptions(), "trigger", std::string(5000, 't')));
  ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  for (const std::string& f : first) {
    struct stat st;
    EXPECT_NE(0, lstat((dbname + "/values/" + f).c_str(), &st))
        << f << " outlived its readers";
  }
  struct stat st;
  EXPECT_NE(0, lstat((dbname + "/values/" + first_homes[0]).c_str(), &st))
      << "the emptied home " << first_homes[0] << " is still there";
  for (int i = 0; i < 100; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (i % 2 == 0) {
      EXPECT_TRUE(s.IsNotFound()) << i;
    } else {
      ASSERT_OK(s);
      EXPECT_EQ(Value(i, 2), v);
    }
  }
  EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
}

// Runs only as the child of the test below: fills, flushes, pins the
// version with an iterator, overwrites everything and compacts (so the
// compaction's commit is durable and the first values are dead but
// pinned), then reports and kills itself.
TEST(ValuesStayPutCrash, Child) {
  const char* db_env = std::getenv("STAYPUT_DB");
  if (db_env == nullptr) GTEST_SKIP() << "helper for ValuesStayPutTest";
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), InFiles(), db_env, &raw);
  if (!s.ok()) _exit(2);
  DB* db = raw;
  for (int i = 0; i < 100; i++) {
    if (!db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)).ok()) _exit(3);
  }
  if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(4);
  // STAYPUT_DELETE: the first values go to the base level first, and every
  // 7th key is deleted instead of overwriting all (so the compaction drops
  // values and tombstones together).
  const bool deletes = std::getenv("STAYPUT_DELETE") != nullptr;
  if (deletes) db->CompactRange(nullptr, nullptr);
  leveldb::Iterator* pin = db->NewIterator(ReadOptions());
  pin->SeekToFirst();
  for (int i = 0; i < 100; i++) {
    if (deletes) {
      if (i % 7 == 0 && !db->Delete(leveldb::WriteOptions(), Key(i)).ok()) {
        _exit(5);
      }
    } else if (!db->Put(leveldb::WriteOptions(), Key(i), Value(i, 2)).ok()) {
      _exit(5);
    }
  }
  if (!Impl(db)->TEST_FlushMemTable().ok()) _exit(6);
  db->CompactRange(nullptr, nullptr);
  if (!Impl(db)->TEST_WaitForBackgroundWork().ok()) _exit(7);
  raise(SIGKILL);  // the dead values are still on disk, pinned by `pin`
  _exit(8);
}

TEST(ValuesStayPutTest, OpenRemovesValuesACrashLeftBehind) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself("ValuesStayPutCrash.Child",
                                                    {{"STAYPUT_DB", dbname}}));
  // 100 live values and 100 dead ones the crash kept from being unlinked;
  // add a file and a home no entry names, as a crashed flush leaves them.
  const std::set<std::string> left = HomeFiles(dbname);
  ASSERT_EQ(200u, left.size());
  const std::string stray_home = dbname + "/values/999999";
  ASSERT_EQ(0, mkdir(stray_home.c_str(), 0755));
  FILE* f =
      std::fopen((stray_home + "/k000000000001@00000000000001").c_str(), "w");
  ASSERT_NE(nullptr, f);
  std::fputs("stray", f);
  ASSERT_EQ(0, std::fclose(f));

  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db));
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
  const std::set<std::string> kept = HomeFiles(dbname);
  EXPECT_EQ(100u, kept.size());
  for (const std::string& k : kept) EXPECT_EQ(1u, left.count(k)) << k;
  struct stat st;
  EXPECT_NE(0, lstat(stray_home.c_str(), &st));
  for (int i = 0; i < 100; i++) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v));
    EXPECT_EQ(Value(i, 2), v);
  }
}

// A crash between a compaction's commit and the removal of what it
// replaced leaves the replaced meta files and the dropped values; repair
// must not take those values back (the keys were deleted, and the
// compaction dropped their tombstones with them).
TEST(ValuesStayPutTest, RepairDoesNotBringBackValuesACompactionDropped) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "ValuesStayPutCrash.Child",
                    {{"STAYPUT_DB", dbname}, {"STAYPUT_DELETE", "1"}}));
  // The deleted keys' values are still there (15 of them).
  ASSERT_EQ(100u, HomeFiles(dbname).size());
  ASSERT_OK(leveldb::RepairDB(dbname, DbOptions()));
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db));
  Model model;
  for (int i = 0; i < 100; i++) {
    if (i % 7 != 0) model[Key(i)] = Value(i, 1);
  }
  CheckAgainst(db.get(), model, 100, nullptr, "repaired");
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
  // Nothing deleted: the dropped values went to lost/.
  size_t lost_values = 0;
  for (const std::string& name : ListDir(dbname + "/lost")) {
    if (name.rfind("values-", 0) == 0) {
      lost_values += ListDir(dbname + "/lost/" + name).size();
    }
  }
  EXPECT_EQ(15u, lost_values);
}

// Fails the `nth` OpenDirectory (so the nth listing) of exactly `path`
// with `error`; every other call passes through.
class ListingFails : public delsm_test::ForwardingFileSystem {
 public:
  ListingFails(std::string path, int nth, Status error)
      : path_(std::move(path)), nth_(nth), error_(std::move(error)) {}

  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<leveldb::Directory>* result) override {
    if (path == path_) {
      std::lock_guard<std::mutex> l(mu_);
      if (++calls_ == nth_) {
        failed_++;
        return error_;
      }
    }
    return ForwardingFileSystem::OpenDirectory(path, result);
  }

  int failed() {
    std::lock_guard<std::mutex> l(mu_);
    return failed_;
  }

 private:
  const std::string path_;
  const int nth_;
  const Status error_;
  std::mutex mu_;
  int calls_ = 0;
  int failed_ = 0;
};

// The state RepairDoesNotBringBackValuesACompactionDropped starts from (a
// compaction that dropped 15 deleted keys and their values committed, the
// values still in their home), then an Open on `fs` that writes keys 1000
// to 1009 and flushes them into an L0 SST of their own, then a Close.
void KilledAfterTheCommitThenOpenOn(const std::string& dbname,
                                    leveldb::FileSystem* fs) {
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "ValuesStayPutCrash.Child",
                    {{"STAYPUT_DB", dbname}, {"STAYPUT_DELETE", "1"}}));
  ASSERT_EQ(100u, HomeFiles(dbname).size());
  DB* raw = nullptr;
  ASSERT_OK(
      leveldb::OpenWithFileSystem(DbOptions(), InFiles(), dbname, fs, &raw));
  std::unique_ptr<DB> db(raw);
  for (int i = 1000; i < 1010; i++) {
    ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)));
  }
  ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
}

// Removes the meta file of the newest SST directory in L0 (the SST of
// keys 1000 to 1009), as a lost directory entry or a damaged disk loses
// it: RepairDB then takes back by their names the values in homes that no
// meta file names.
void LoseTheMetaFileOfTheL0Sst(const std::string& dbname) {
  const std::vector<std::string> dirs = ListDir(dbname + "/L0");  // sorted
  ASSERT_FALSE(dirs.empty());
  const std::string meta = dbname + "/L0/" + dirs.back() + "/META";
  ASSERT_EQ(0, unlink(meta.c_str())) << meta;
}

// What the database holds then: every key of the child but the 15 it
// deleted, and keys 1000 to 1009, each with its first value.
Model KeysNotDeleted() {
  Model model;
  for (int i = 0; i < 100; i++) {
    if (i % 7 != 0) model[Key(i)] = Value(i, 1);
  }
  for (int i = 1000; i < 1010; i++) model[Key(i)] = Value(i, 1);
  return model;
}

// Loses the L0 SST's meta file (LoseTheMetaFileOfTheL0Sst), runs RepairDB
// and checks that the database holds KeysNotDeleted(): no value that no
// meta file names may bring a deleted key back.
void LoseAMetaFileThenRepairAndCheck(const std::string& dbname) {
  ASSERT_NO_FATAL_FAILURE(LoseTheMetaFileOfTheL0Sst(dbname));
  ASSERT_OK(leveldb::RepairDB(dbname, DbOptions()));
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db));
  CheckAgainst(db.get(), KeysNotDeleted(), 1010, nullptr, "repaired");
}

// An Open whose sweep of homes cannot list values/ (ENOENT, while the
// directory is there; the listing Recover numbers homes by succeeds) must
// not take it for absent: the 15 dropped values stay for a later Open to
// sweep, and until one has, the Close writes no clean-close marker. Taken
// for absent, nothing marks the sweep as owed: the Close vouches for a
// database that holds them, no later Open sweeps, and the meta files that
// named them are gone (that Open's sweep of SST directories removed them),
// so a RepairDB that finds any meta file lost takes them back by their
// names, and the deleted keys with them.
TEST(ValuesStayPutTest, ValuesDirectoryListedAsAbsentIsSweptLater) {
  IgnoreEnvironmentTuning();
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ListingFails fs(
      dbname + "/values", 2,
      Status::NotFound(dbname + "/values", "No such file or directory"));
  ASSERT_NO_FATAL_FAILURE(KilledAfterTheCommitThenOpenOn(dbname, &fs));
  ASSERT_GT(fs.failed(), 0) << "the sweep never listed values/";
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenInFiles(dbname, &db));
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname))
        << "the dropped values outlived the next Open";
  }
  LoseAMetaFileThenRepairAndCheck(dbname);
}

// The same Open with the sweep's listing of values/ failing with EIO: the
// sweep is owed, and the meta files that name the dropped values (the
// replaced SSTs' in live directories, and dead directories) must stay
// until it has run. Removed first, they leave values no meta file names,
// which a RepairDB run before the next Open takes back by their names
// once any meta file is lost.
TEST(ValuesStayPutTest, UnlistableValuesDirectoryKeepsTheMetaFilesNamingThem) {
  IgnoreEnvironmentTuning();
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ListingFails fs(dbname + "/values", 2,
                  Status::IOError(dbname + "/values", "Input/output error"));
  ASSERT_NO_FATAL_FAILURE(KilledAfterTheCommitThenOpenOn(dbname, &fs));
  ASSERT_GT(fs.failed(), 0) << "the sweep never listed values/";
  LoseAMetaFileThenRepairAndCheck(dbname);
}

// A compaction drops 15 deleted keys with their values, and every unlink
// in values/ fails with ENOENT though the files are there (the unlinks
// change nothing) until the Close. The values must stay queued, holding
// the meta files that name them (the compaction's inputs). Taken for
// "unlinked already", they left the queue, those meta files went, the
// Close wrote its marker (so no Open sweeps them), and a RepairDB that
// finds any meta file lost takes them back by their names, and the
// deleted keys with them.
TEST(ValuesStayPutTest, DeadValueUnlinkFailingWithEnoentIsNotDone) {
  IgnoreEnvironmentTuning();
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  leveldb::FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  {
    DB* raw = nullptr;
    ASSERT_OK(
        leveldb::OpenWithFileSystem(DbOptions(), InFiles(), dbname, &fs, &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_NO_FATAL_FAILURE(PutAndFlush(db.get(), 100));
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < 100; i += 7) {
      ASSERT_OK(db->Delete(leveldb::WriteOptions(), Key(i)));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    leveldb::FaultSpec spec;
    spec.err = ENOENT;
    spec.sticky = true;
    spec.path_contains = dbname + "/values/";
    fs.Arm(leveldb::FsOp::kUnlink, spec);
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    ASSERT_TRUE(fs.Fired()) << "no value was unlinked";
    for (int i = 1000; i < 1010; i++) {
      ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  }
  fs.Disarm();
  // The dropped values are all still there.
  ASSERT_EQ(110u, HomeFiles(dbname).size());
  LoseAMetaFileThenRepairAndCheck(dbname);
}

// The dead values of DeadValueUnlinkFailingWithEnoentIsNotDone, their
// homes failing to open with ENOENT though they are there (a lookup finds
// them) during the compaction's removal. The values must stay queued, as
// when their unlinks fail, until a later removal gets them: taken for
// homes that went with their last values, they left the queue with every
// one of them still there, the meta files naming them went, and nothing
// was left for the Close to report.
TEST(ValuesStayPutTest, DeadValuesOfAHomeThatDoesNotOpenAreNotGone) {
  IgnoreEnvironmentTuning();
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  leveldb::FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  {
    DB* raw = nullptr;
    ASSERT_OK(
        leveldb::OpenWithFileSystem(DbOptions(), InFiles(), dbname, &fs, &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_NO_FATAL_FAILURE(PutAndFlush(db.get(), 100));
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < 100; i += 7) {
      ASSERT_OK(db->Delete(leveldb::WriteOptions(), Key(i)));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    leveldb::FaultSpec spec;
    spec.err = ENOENT;
    spec.sticky = true;
    spec.path_contains = dbname + "/values/";
    fs.Arm(leveldb::FsOp::kOpen, spec);
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    ASSERT_TRUE(fs.Fired()) << "no home was opened";
    fs.Disarm();
    for (int i = 1000; i < 1010; i++) {
      ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  }
  LoseAMetaFileThenRepairAndCheck(dbname);
}

// The Open of KilledAfterTheCommitThenOpenOn with every unlink in values/
// failing with ENOENT though the files are there, until its Close: its
// sweep of homes has not removed the 15 dropped values, and the meta
// files that name them must stay. Taken for "removed already", the sweep
// counted as finished, the sweep of SST directories removed those meta
// files, and the Close wrote its marker.
TEST(ValuesStayPutTest, SweptValueUnlinkFailingWithEnoentIsNotDone) {
  IgnoreEnvironmentTuning();
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  leveldb::FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  leveldb::FaultSpec spec;
  spec.err = ENOENT;
  spec.sticky = true;
  spec.path_contains = dbname + "/values/";
  fs.Arm(leveldb::FsOp::kUnlink, spec);
  ASSERT_NO_FATAL_FAILURE(KilledAfterTheCommitThenOpenOn(dbname, &fs));
  ASSERT_TRUE(fs.Fired()) << "the sweep unlinked no value";
  fs.Disarm();
  ASSERT_EQ(110u, HomeFiles(dbname).size());
  LoseAMetaFileThenRepairAndCheck(dbname);
}

TEST(ValuesStayPutTest, RepairKeepsValuesInHomes) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  Model model;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenInFiles(dbname, &db, 1 << 20));
    // Several flushes, compacted into a few SSTs below L0, then one more
    // flush that stays at L0 (its own meta file, lost below).
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < 60; i++) {
        const int k = round * 60 + i;
        model[Key(k)] = Value(k, 1);
        ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(k), model[Key(k)]));
      }
      ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < 40; i++) {
      model[Key(1000 + i)] = Value(1000 + i, 1);
      ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(1000 + i),
                        model[Key(1000 + i)]));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  }
  // Lose the manifest and the L0 SST's meta file: its values are found in
  // their home by name.
  std::string l0_dir;
  for (const std::string& d : ListDir(dbname + "/L0")) l0_dir = d;
  ASSERT_FALSE(l0_dir.empty());
  ASSERT_EQ(0, unlink((dbname + "/L0/" + l0_dir + "/META").c_str()));
  for (const std::string& name : ListDir(dbname)) {
    if (name.rfind("MANIFEST-", 0) == 0 || name == "CURRENT") {
      ASSERT_EQ(0, unlink((dbname + "/" + name).c_str()));
    }
  }
  ASSERT_OK(leveldb::RepairDB(dbname, DbOptions()));
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db));
  CheckAgainst(db.get(), model, 1100, nullptr, "repaired");
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname));
  EXPECT_EQ(model.size(), HomeFiles(dbname).size());
  EXPECT_EQ(0, KvFilesInLevels(dbname));
}

// Default mode, then this mode, then the default again, on one database:
// both kinds of entry coexist and each keeps its kind until it dies.
TEST(ValuesStayPutTest, SwitchingModesKeepsEverythingReadable) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  Model model;
  uint64_t version = 0;
  std::mt19937_64 rnd(delsm_test::RandomSeed("values stay put mode switch"));
  bool saw_both = false;
  IgnoreEnvironmentTuning();
  for (int phase = 0; phase < 5; phase++) {
    const bool stay_put = phase % 2 == 1;
    DB* raw = nullptr;
    ASSERT_OK(delsm::Open(DbOptions(), StayPut(stay_put), dbname, &raw));
    std::unique_ptr<DB> db(raw);
    CheckAgainst(db.get(), model, 300, nullptr,
                 "reopened for phase " + std::to_string(phase));
    for (int op = 0; op < 400; op++) {
      const int k = static_cast<int>(rnd() % 300);
      if (rnd() % 6 == 0) {
        ASSERT_OK(db->Delete(leveldb::WriteOptions(), Key(k)));
        model.erase(Key(k));
      } else {
        model[Key(k)] = Value(k, ++version);
        ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(k), model[Key(k)]));
      }
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    if (KvFilesInLevels(dbname) > 0 && !HomeFiles(dbname).empty()) {
      saw_both = true;
    }
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    CheckAgainst(db.get(), model, 300, nullptr,
                 "phase " + std::to_string(phase));
    EXPECT_EQ("", delsm_test::FindOrphans(db.get(), dbname))
        << "phase " << phase;
  }
  EXPECT_TRUE(saw_both) << "never held entries of both kinds at once";
}

// A damaged, shortened or missing value in a home reads as Corruption
// naming its file, never as a value; the others still read.
TEST(ValuesStayPutTest, DamagedValuesInHomesAreReported) {
  TempDir tmp("delsm_stayput");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenInFiles(dbname, &db, 1 << 20));
  ASSERT_NO_FATAL_FAILURE(PutAndFlush(db.get(), 30));
  db->CompactRange(nullptr, nullptr);
  ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
  db.reset();
  const std::vector<std::string> homes = ListDir(dbname + "/values");
  ASSERT_EQ(1u, homes.size());
  const std::string home = dbname + "/values/" + homes[0];
  // Keys 3, 4 and 5: a flipped byte, cut short, removed.
  auto file_of = [&](int k) {
    for (const std::string& name : ListDir(home)) {
      if (name.rfind(Key(k) + "@", 0) == 0) return home + "/" + name;
    }
    return std::string();
  };
  const std::string flipped = file_of(3), cut = file_of(4), gone = file_of(5);
  ASSERT_FALSE(flipped.empty() || cut.empty() || gone.empty());
  {
    FILE* f = std::fopen(flipped.c_str(), "r+b");
    ASSERT_NE(nullptr, f);
    ASSERT_EQ(0, std::fseek(f, 10, SEEK_SET));
    const int c = std::fgetc(f);
    ASSERT_EQ(0, std::fseek(f, 10, SEEK_SET));
    ASSERT_NE(EOF, std::fputc(c ^ 1, f));
    ASSERT_EQ(0, std::fclose(f));
  }
  ASSERT_EQ(0, truncate(cut.c_str(), 100));
  ASSERT_EQ(0, unlink(gone.c_str()));
  ASSERT_OK(OpenInFiles(dbname, &db, 1 << 20));
  for (int i = 0; i < 30; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (i < 3 || i > 5) {
      ASSERT_OK(s);
      EXPECT_EQ(Value(i, 1), v);
      continue;
    }
    const std::string& path = i == 3 ? flipped : i == 4 ? cut : gone;
    EXPECT_TRUE(s.IsCorruption()) << i << ": " << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(path)) << s.ToString();
  }
  // A scan stops at the first one with the error.
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ReadOptions()));
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
  EXPECT_EQ(3, seen);
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

TEST(ValuesStayPutTest, ApproximateSizesCountValuesInHomes) {
  IgnoreEnvironmentTuning();
  for (bool stay_put : {false, true}) {
    TempDir tmp("delsm_stayput");
    ASSERT_FALSE(tmp.path().empty());
    const std::string dbname = tmp.path() + "/db";
    DB* raw = nullptr;
    ASSERT_OK(delsm::Open(DbOptions(), InFiles(stay_put), dbname, &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < 200; i++) {
      ASSERT_OK(
          db->Put(leveldb::WriteOptions(), Key(i), std::string(4096, 'v')));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(Impl(db.get())->TEST_WaitForBackgroundWork());
    const std::string a = Key(0), b = Key(100);
    leveldb::Range r(a, b);
    uint64_t size = 0;
    db->GetApproximateSizes(&r, 1, &size);
    // 100 values of one 4 KiB block each, plus their share of meta files.
    EXPECT_GE(size, 100u * 4096) << (stay_put ? "stay put" : "default");
    EXPECT_LT(size, 130u * 4096) << (stay_put ? "stay put" : "default");
  }
}

}  // namespace
