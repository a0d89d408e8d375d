// An Open whose compactions move SSTs down by a second name of their meta
// file (DBImpl::LinkMove: a new SST directory at the next level, its META
// linked to the meta file of an SST that shares its directory), SIGKILLed
// at each of its disk calls in turn (tests/crash/kill_at_each_call.h):
// between the new directory and the link, between the link and the
// manifest commit, after the commit before the old name is unlinked, and
// at the renames and removals around them. Two names of one file must
// lose nothing and bring nothing back, whoever reads the database next:
//  * RepairDB on what the kill left, then every key reads as acknowledged
//    (a deleted key NotFound);
//  * an Open on what the kill left: every key reads as acknowledged, and
//    once its sweeps and compactions are done no meta file has two names
//    in the database; then more keys are deleted and everything is
//    compacted down (the tombstones and the puts they delete dropped at
//    the base level), the DB closed and RepairDB run: a deleted key stays
//    deleted. An old name of a moved SST merged again would bring its key
//    back.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "tests/crash/kill_at_each_call.h"
#include "tests/shared_directories_db.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::ListDir;
namespace shared_dirs = delsm_test::shared_dirs;

// Deleted on the Open after the kill.
bool DeletedLater(int i) { return i % 10 == 6; }

TEST(MetaFileMoveKilledChild, Child) {
  delsm_test::RunKilledChild(shared_dirs::DbOptions(),
                             shared_dirs::MovingTuning());
}

// "" if no two meta files under the level directories of `dbname` are one
// file (inode), else the second name found. (Not st_nlink: the killed
// child's power-loss model keeps a link of each file it unlinked in its
// shadow directory, outside the database.)
std::string MetaFileWithTwoNames(const std::string& dbname) {
  std::map<ino_t, std::string> seen;
  for (const std::string& level : ListDir(dbname)) {
    if (level.size() != 2 || level[0] != 'L') continue;
    for (const std::string& d : ListDir(dbname + "/" + level)) {
      const std::string dir = dbname + "/" + level + "/" + d;
      for (const std::string& name : ListDir(dir)) {
        if (name.rfind("META", 0) != 0) continue;
        const std::string path = dir + "/" + name;
        struct stat st;
        if (stat(path.c_str(), &st) != 0) continue;
        auto it = seen.emplace(st.st_ino, path);
        if (!it.second) return path + " is " + it.first->second;
      }
    }
  }
  return "";
}

std::string OpenDb(const std::string& dbname, std::unique_ptr<DB>* db) {
  DB* raw = nullptr;
  Status s = delsm::Open(shared_dirs::DbOptions(), shared_dirs::MovingTuning(),
                         dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  db->reset(raw);
  s = static_cast<DBImpl*>(raw)->TEST_WaitForBackgroundWork();
  return s.ok() ? "" : "background work: " + s.ToString();
}

// RepairDB, then every key as acknowledged (`deleted_since` NotFound too).
std::string RepairAndCheck(const std::string& dbname,
                           bool (*deleted_since)(int)) {
  Status s = RepairDB(dbname, shared_dirs::DbOptions());
  if (!s.ok()) return "RepairDB: " + s.ToString();
  std::unique_ptr<DB> db;
  std::string problem = OpenDb(dbname, &db);
  if (!problem.empty()) return "after RepairDB: " + problem;
  problem = shared_dirs::CheckKeys(db.get(), deleted_since);
  return problem.empty() ? "" : "after RepairDB: " + problem;
}

// The checks at the top, on the copy a kill left.
std::string CheckAfterKill(const std::string& work) {
  const std::string repaired = work + "-repaired";
  std::string problem = delsm_test::CopyTree(work, repaired);
  if (problem.empty()) problem = RepairAndCheck(repaired, nullptr);
  delsm_test::RemoveTree(repaired);
  if (!problem.empty()) return "RepairDB at once: " + problem;

  {
    std::unique_ptr<DB> db;
    problem = OpenDb(work, &db);
    if (problem.empty()) problem = shared_dirs::CheckKeys(db.get());
    if (problem.empty()) {
      const std::string twice = MetaFileWithTwoNames(work);
      if (!twice.empty()) problem = twice + " keeps a second name after Open";
    }
    Status s;
    for (int i = 0; problem.empty() && s.ok() && i < shared_dirs::kKeys; i++) {
      if (DeletedLater(i)) s = db->Delete(WriteOptions(), delsm_test::Key(i));
    }
    if (problem.empty() && s.ok()) {
      db->CompactRange(nullptr, nullptr);
      s = static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork();
    }
    if (problem.empty() && !s.ok()) problem = s.ToString();
    if (problem.empty())
      problem = shared_dirs::CheckKeys(db.get(), DeletedLater);
  }
  if (problem.empty()) problem = RepairAndCheck(work, DeletedLater);
  return problem.empty() ? "" : "Open: " + problem;
}

// The sweep over a pristine database `build` makes.
void KillAtEachCallOf(std::string (*build)(const std::string&)) {
  delsm_test::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string pristine = tmp.path() + "/pristine";
  ASSERT_EQ("", build(pristine));
  // The premise: the Open moves SSTs by their meta files.
  {
    const std::string copy = tmp.path() + "/premise";
    ASSERT_EQ("", delsm_test::CopyTree(pristine, copy));
    std::unique_ptr<DB> db;
    ASSERT_EQ("", OpenDb(copy, &db));
    std::string v;
    ASSERT_TRUE(db->GetProperty("delsm.meta-file-moves", &v));
    ASSERT_GT(std::stoull(v), 0u);
  }
  delsm_test::KillAtEachCall sweep;
  sweep.child = "MetaFileMoveKilledChild.Child";
  sweep.operation = delsm_test::KilledOperation::kOpen;
  sweep.pristine = pristine;
  sweep.work = tmp.path() + "/work";
  sweep.shadow = tmp.path() + "/shadow";
  uint64_t killed = 0;
  delsm_test::RunKillAtEachCall(
      sweep,
      [](const std::string& work, uint64_t) { return CheckAfterKill(work); },
      &killed);
  EXPECT_GT(killed, 0u);
}

TEST(MetaFileMoveKillTest, OpenKilledAtEachCallThenRepairOrOpen) {
  KillAtEachCallOf(
      [](const std::string& dbname) { return shared_dirs::Build(dbname); });
}

// The moved SSTs hold the deletes' tombstones, over older puts of the same
// keys in L3: whatever a kill leaves (two names of a meta file of
// tombstones, the old one retired or not), a deleted key stays deleted.
TEST(MetaFileMoveKillTest, TombstonesOverOlderValuesKilledAtEachCall) {
  KillAtEachCallOf(&shared_dirs::BuildOverOlderValues);
}

}  // namespace
}  // namespace leveldb
