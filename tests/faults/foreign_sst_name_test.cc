// A directory in a level directory whose name spells an SST number but not
// as DeLSM spells it ("5.sst", "0000005.sst": DeLSM writes "000005.sst")
// is not DeLSM's: no version of DeLSM made it, so it holds no SST, and
// whoever put it there may want it. Open's removal pass, RepairDB and
// DestroyDB all leave it, and what it holds, where it is.
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using delsm_test::Key;
using delsm_test::ListDir;
using delsm_test::TempDir;
using delsm_test::TreeSnapshot;

std::string Value(int i) { return std::to_string(i) + std::string(3000, 'v'); }

constexpr int kKeys = 300;

class ForeignSstDirNameTest : public testing::TestWithParam<bool> {
 protected:
  ForeignSstDirNameTest()
      : tmp_("delsm_foreign_sst"), dbname_(tmp_.path() + "/db") {
    tuning_.values_stay_put = GetParam();
    tuning_.inline_threshold = 0;  // every value a KV file
  }

  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 64 * 1024;
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options, tuning_, dbname_, &db));
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i)));
    }
    delete db;
    // In a level directory holding SST directories, two directories
    // spelling SST number 5 as DeLSM never does; number 5 is below every
    // number the database has in use, so that the old parser made them
    // dead SST directories.
    for (int level = 0; level < 7 && level_dir_.empty(); level++) {
      const std::string l = dbname_ + "/L" + std::to_string(level);
      if (!ListDir(l).empty()) level_dir_ = l;
    }
    ASSERT_FALSE(level_dir_.empty());
    for (const char* name : {"5.sst", "0000005.sst"}) {
      const std::string dir = level_dir_ + "/" + name;
      ASSERT_EQ(0, mkdir(dir.c_str(), 0755)) << dir;
      std::ofstream(dir + "/precious") << "the user's, in " << name;
      std::ofstream(dir + "/META") << "not a meta file";
      foreign_.push_back(dir);
    }
    for (const std::string& dir : foreign_) before_[dir] = TreeSnapshot(dir);
    // As a crash leaves the database (no clean-close marker), so that Open
    // sweeps everything it sweeps.
    ASSERT_EQ(0, unlink((dbname_ + "/CLOSED").c_str()));
  }

  void ExpectForeignIntact(const char* after) {
    for (const std::string& dir : foreign_) {
      EXPECT_TRUE(TreeSnapshot(dir) == before_[dir])
          << dir << " changed or went in " << after;
    }
  }

  void ExpectEveryKey() {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(leveldb::Options(), tuning_, dbname_, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    for (int i = 0; i < kKeys; i++) {
      std::string v;
      ASSERT_OK(db->Get(leveldb::ReadOptions(), Key(i), &v));
      ASSERT_EQ(Value(i), v) << Key(i);
    }
  }

  TempDir tmp_;
  const std::string dbname_;
  delsm::Tuning tuning_;
  std::string level_dir_;
  std::vector<std::string> foreign_;
  std::map<std::string, std::map<std::string, std::string>> before_;
};

TEST_P(ForeignSstDirNameTest, OpenLeavesIt) {
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("Open");
  {
    // A compaction's removal pass too.
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(leveldb::Options(), tuning_, dbname_, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    db->CompactRange(nullptr, nullptr);
  }
  ExpectForeignIntact("a compaction");
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
}

// RepairDB neither reads it as an SST directory nor puts it away in lost/.
TEST_P(ForeignSstDirNameTest, RepairDbLeavesIt) {
  const leveldb::Status s = leveldb::RepairDB(dbname_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectForeignIntact("RepairDB");
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("the Open after RepairDB");
}

// DestroyDB removes the whole database and returns OK, leaving the foreign
// directories and the level directory holding them, as it leaves any file
// that is not the database's: no database is left.
TEST_P(ForeignSstDirNameTest, DestroyDbLeavesIt) {
  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectForeignIntact("DestroyDB");
  const std::string level = level_dir_.substr(level_dir_.rfind('/') + 1);
  EXPECT_EQ(std::vector<std::string>({level}), ListDir(dbname_));
  EXPECT_EQ(std::vector<std::string>({"0000005.sst", "5.sst"}),
            ListDir(level_dir_));
  leveldb::DB* db = nullptr;
  const leveldb::Status open =
      delsm::Open(leveldb::Options(), tuning_, dbname_, &db);
  EXPECT_TRUE(open.IsInvalidArgument()) << open.ToString();
  delete db;
}

INSTANTIATE_TEST_SUITE_P(Modes, ForeignSstDirNameTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace
