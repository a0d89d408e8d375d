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
