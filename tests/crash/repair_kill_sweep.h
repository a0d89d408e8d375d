// The databases, checks and kill sweep shared by the RepairDB crash tests
// (tests/crash/repair_kill_no_resurrection_test.cc,
// tests/crash/repair_unusable_files_to_lost_test.cc).
//
// The databases: kKeys keys, each put twice (an "old" and a "new" value,
// large enough for a KV file of its own), key kDeleted deleted after its
// old put; compactions only when asked. Check reads a database as it must
// be: kDeleted NotFound, every other key its new value.
//
// The sweep (KillRepairAtEachCallThenRepairAgain): a first RepairDB killed
// at each of its disk calls in turn, on a fresh copy of the database each
// time (tests/crash/kill_at_each_call.h), then a second RepairDB run to the
// end; the database must then pass Check, and the files the test names as
// unusable or retired must be, byte for byte, in lost/ (never deleted).
//
// A test file that includes this header supplies the kill sweep's child:
//   TEST(RepairReplacedKilledChild, Child) {
//     delsm_test::RunKilledChild(DbOptions(), ManualTuning());
//   }
#ifndef DELSM_TESTS_CRASH_REPAIR_KILL_SWEEP_H_
#define DELSM_TESTS_CRASH_REPAIR_KILL_SWEEP_H_

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "testing/power_loss_file_system.h"
#include "tests/crash/kill_at_each_call.h"
#include "tests/db_options.h"
#include "tests/file_bytes.h"
#include "tests/test_support.h"

namespace leveldb {
namespace repair_kill {

constexpr int kKeys = 12;
constexpr int kDeleted = 5;

// Compactions only when asked.
inline delsm::Tuning ManualTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.l1_entries = 1 << 30;
  return t;
}

inline Options DbOptions() {
  Options o;
  o.create_if_missing = true;
  return o;
}

// Large enough for a KV file of its own.
inline std::string Value(const char* version, int i) {
  return std::string(version) + std::to_string(i) + std::string(3000, 'v');
}

inline DBImpl* Impl(DB* db) { return static_cast<DBImpl*>(db); }

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
    s = db->Get(ReadOptions(), delsm_test::Key(i), &v);
    if (deleted(i)) {
      if (!s.IsNotFound()) {
        return "deleted key " + delsm_test::Key(i) +
               " came back: " + (s.ok() ? v.substr(0, 4) : s.ToString());
      }
    } else if (!s.ok() || v != Value("new", i)) {
      return delsm_test::Key(i) + ": " +
             (s.ok() ? v.substr(0, 4) : s.ToString());
    }
  }
  return "";
}

// "" if kDeleted is deleted and every other key reads its new value.
inline std::string Check(const std::string& dbname) {
  return CheckKeys(dbname, kKeys, [](int i) { return i == kDeleted; });
}

// The bytes of each file `paths` names under `dbname`.
inline std::map<std::string, std::string> BytesOf(
    const std::string& dbname, const std::vector<std::string>& paths) {
  std::map<std::string, std::string> bytes;
  for (const std::string& p : paths) {
    bytes[p] = delsm_test::ReadWholeFile(dbname + "/" + p);
  }
  return bytes;
}

// Whether some file under `dir` (searched whole) holds exactly `bytes`.
inline bool SomeFileHolds(const std::string& dir, const std::string& bytes) {
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
inline std::string CheckSetAside(const std::string& dbname,
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
inline Status OpenAndClose(const std::string& dbname) {
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
inline delsm_test::KillAtEachCall Sweep(delsm_test::KilledOperation operation,
                                        const std::string& pristine,
                                        const std::string& tmp,
                                        uint64_t calls) {
  delsm_test::KillAtEachCall sweep;
  sweep.child = "RepairReplacedKilledChild.Child";
  sweep.operation = operation;
  sweep.pristine = pristine;
  sweep.work = tmp + "/work";
  sweep.shadow = tmp + "/child_shadow";
  sweep.calls = calls;
  return sweep;
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
inline void KillRepairAtEachCallThenRepairAgain(
    bool reopen, std::string (*build)(const std::string&),
    std::vector<std::string> (*unusable)(const std::string&) = nullptr,
    bool open_first = false,
    std::vector<std::string> (*retired)(const std::string&) = nullptr) {
  delsm_test::TempDir tmp;
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
inline std::string BuildWithDamagedMeta(const std::string& dbname) {
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), ManualTuning(), dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    s = db->Put(WriteOptions(), delsm_test::Key(i), Value("old", i));
  }
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  if (s.ok()) s = Impl(raw)->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (i != kDeleted)
      s = db->Put(WriteOptions(), delsm_test::Key(i), Value("new", i));
  }
  if (s.ok()) s = db->Delete(WriteOptions(), delsm_test::Key(kDeleted));
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

// Values that stay put: opens a database at `dbname` into *db, puts the
// old value of every key, flushed and compacted to L1 (their values in one
// home), then the new ones and the delete of kDeleted, flushed to L0.
inline Status OpenWithOldAndNewPuts(const std::string& dbname,
                                    std::unique_ptr<DB>* db) {
  delsm::Tuning tuning = ManualTuning();
  tuning.values_stay_put = true;
  DB* raw = nullptr;
  Status s = delsm::Open(DbOptions(), tuning, dbname, &raw);
  if (!s.ok()) return s;
  db->reset(raw);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    s = raw->Put(WriteOptions(), delsm_test::Key(i), Value("old", i));
  }
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  if (s.ok()) s = Impl(raw)->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (i != kDeleted)
      s = raw->Put(WriteOptions(), delsm_test::Key(i), Value("new", i));
  }
  if (s.ok()) s = raw->Delete(WriteOptions(), delsm_test::Key(kDeleted));
  if (s.ok()) s = Impl(raw)->TEST_FlushMemTable();
  return s;
}

}  // namespace repair_kill
}  // namespace leveldb

#endif  // DELSM_TESTS_CRASH_REPAIR_KILL_SWEEP_H_
