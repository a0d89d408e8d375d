// Reproducers from an adversarial review of the code that removes files:
// DestroyDB, the removal passes, RepairDB. Each test states the contract it
// holds the code to; each failed on the tree it was written against.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/faults/kv_file_database.h"
#include "tests/test_support.h"

namespace {

using delsm_test::ExpectKvFileDatabase;
using delsm_test::ListDir;
using delsm_test::MakeKvFileDatabase;
using delsm_test::TempDir;

// The SST directories of the database at `dbname`, as "Ln/nnnnnn.sst".
std::vector<std::string> SstDirs(const std::string& dbname) {
  std::vector<std::string> dirs;
  for (int level = 0; level < 7; level++) {
    const std::string l = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname + "/" + l)) {
      dirs.push_back(l + "/" + d);
    }
  }
  return dirs;
}

// Makes `dir`, a directory of the user's, holding notes.txt.
void MakeUserDirectory(const std::string& dir) {
  ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
  std::FILE* f = std::fopen((dir + "/notes.txt").c_str(), "w");
  ASSERT_NE(nullptr, f);
  std::fputs("the user's", f);
  std::fclose(f);
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

class DestroyDbDirectoryTest : public testing::TestWithParam<bool> {
 protected:
  DestroyDbDirectoryTest()
      : tmp_("delsm_review"), dbname_(tmp_.path() + "/db") {
    tuning_.values_stay_put = GetParam();
    tuning_.inline_threshold = 0;  // every value a KV file
  }

  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_NO_FATAL_FAILURE(MakeKvFileDatabase(dbname_, tuning_));
    ASSERT_FALSE(SstDirs(dbname_).empty());
  }

  // DestroyDB's contract for what it cannot remove (destroy.cc): it fails
  // having removed nothing (the database opens with every key), or it
  // succeeds and leaves the user's directory. It never fails after CURRENT
  // has gone, which leaves a database that no longer opens and that no
  // later DestroyDB gets past.
  void ExpectNoHalfRemoval(const std::string& foreign) {
    const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
    EXPECT_EQ(std::vector<std::string>{"notes.txt"}, ListDir(foreign));
    if (s.ok()) {
      EXPECT_FALSE(Exists(dbname_ + "/CURRENT"));
      return;
    }
    if (!Exists(dbname_ + "/CURRENT")) {
      // The contract's fallback for a removal failing partway: a second
      // DestroyDB finishes. Here it fails the same way, every time.
      const leveldb::Status again =
          leveldb::DestroyDB(dbname_, leveldb::Options());
      ADD_FAILURE() << "DestroyDB failed (" << s.ToString()
                    << ") after removing CURRENT: the database is gone; a "
                       "second DestroyDB: "
                    << again.ToString();
      return;
    }
    ExpectKvFileDatabase(dbname_, tuning_);
  }

  TempDir tmp_;
  const std::string dbname_;
  delsm::Tuning tuning_;
};

// A directory of the user's inside an SST directory, under a name DeLSM
// gives its own entries (a meta file's, META-<n>): the plan
// (PlanDirectory) checks for a directory only among names DeLSM never
// gives, so this one passes the plan, and RemoveSstDirectory's unlink of it
// fails (EISDIR) after CURRENT has gone.
TEST_P(DestroyDbDirectoryTest, DirectoryAtAMetaFileNameInAnSstDirectory) {
  const std::string foreign =
      dbname_ + "/" + SstDirs(dbname_).front() + "/META-999999";
  MakeUserDirectory(foreign);
  if (HasFatalFailure()) return;
  ExpectNoHalfRemoval(foreign);
}

// The same at a KV file's name.
TEST_P(DestroyDbDirectoryTest, DirectoryAtAKvFileNameInAnSstDirectory) {
  const std::string foreign =
      dbname_ + "/" + SstDirs(dbname_).front() + "/user@00000000000001";
  MakeUserDirectory(foreign);
  if (HasFatalFailure()) return;
  ExpectNoHalfRemoval(foreign);
}

// The same at the name of the conversion's PLAN in a staging directory
// (leveldb-conversion/, which Open leaves alone when it holds no readable
// plan): PlanDirectory takes the name for the file without checking it is
// one.
TEST_P(DestroyDbDirectoryTest, DirectoryAtThePlanNameInTheStagingDirectory) {
  ASSERT_EQ(0, mkdir((dbname_ + "/leveldb-conversion").c_str(), 0755));
  const std::string foreign = dbname_ + "/leveldb-conversion/PLAN";
  MakeUserDirectory(foreign);
  if (HasFatalFailure()) return;
  // The database opens as it is (the staging directory is left alone).
  ASSERT_NO_FATAL_FAILURE(ExpectKvFileDatabase(dbname_, tuning_));
  ExpectNoHalfRemoval(foreign);
}

INSTANTIATE_TEST_SUITE_P(Modes, DestroyDbDirectoryTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace

namespace {

// RepairDB exists to bring back what survives damage. One KV file lost
// from an SST directory that holds just its own META (the directory
// RepairDB uses as it is, LoadDirectory) is damage to one value: RepairDB
// must succeed and every other key must read. The as-is check looks at
// the META, its inline values and the values in homes, not at the KV
// files in the directory itself, so the merge's link of the missing file
// fails and RepairDB fails, on every later call too.
TEST(RepairLostKvFileTest, OneLostKvFileDoesNotStopTheRepair) {
  TempDir tmp("delsm_review");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  delsm::Tuning tuning;
  tuning.inline_threshold = 0;  // every value a KV file
  ASSERT_NO_FATAL_FAILURE(MakeKvFileDatabase(dbname, tuning));
  // A directory holding only META and KV files; one KV file goes.
  std::string victim_dir, victim;
  for (const std::string& rel : SstDirs(dbname)) {
    const std::vector<std::string> names = ListDir(dbname + "/" + rel);
    bool only_meta = true;
    std::string kv;
    for (const std::string& n : names) {
      if (n.rfind("META", 0) == 0 && n != "META") only_meta = false;
      if (n.find('@') != std::string::npos) kv = n;
    }
    if (only_meta && !kv.empty()) {
      victim_dir = dbname + "/" + rel;
      victim = kv;
      break;
    }
  }
  ASSERT_FALSE(victim.empty());
  ASSERT_EQ(0, unlink((victim_dir + "/" + victim).c_str()));
  const std::string lost_key = victim.substr(0, victim.find('@'));

  leveldb::Status s = leveldb::RepairDB(dbname, leveldb::Options());
  ASSERT_TRUE(s.ok()) << "RepairDB failed on one lost value: " << s.ToString();
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(leveldb::Options(), tuning, dbname, &db));
  std::unique_ptr<leveldb::DB> guard(db);
  for (int i = 0; i < delsm_test::kKvFileKeys; i++) {
    if (delsm_test::Key(i) == lost_key) continue;
    std::string v;
    ASSERT_OK(db->Get(leveldb::ReadOptions(), delsm_test::Key(i), &v));
    EXPECT_EQ(delsm_test::KvFileValue(i, 0), v);
  }
}

}  // namespace
