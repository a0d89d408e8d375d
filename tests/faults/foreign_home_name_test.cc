// A directory under values/ whose name spells a home number but not as
// DeLSM spells it ("5", "0000005": DeLSM writes "000005") is not DeLSM's:
// no version of DeLSM made it, so it holds no value, and whoever put it
// there may want it. Open's removal of dead homes, RepairDB and DestroyDB
// all leave it, and what it holds, where it is.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

std::string Value(int i, int round) {
  return std::to_string(i) + "/" + std::to_string(round) +
         std::string(3000, 'v');
}

constexpr int kKeys = 300;
constexpr int kRounds = 2;

class ForeignHomeNameTest : public testing::Test {
 protected:
  ForeignHomeNameTest()
      : tmp_("delsm_foreign_home"),
        dbname_(tmp_.path() + "/db"),
        values_(dbname_ + "/values") {
    tuning_.values_stay_put = true;
    tuning_.inline_threshold = 0;  // every value a KV file, in a home
  }

  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 64 * 1024;
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options, tuning_, dbname_, &db));
    // Every key written twice: the first round's values die in a
    // compaction, and their homes with them.
    for (int round = 0; round < kRounds; round++) {
      for (int i = 0; i < kKeys; i++) {
        ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i, round)));
      }
    }
    delete db;
    homes_ = ListDir(values_);
    ASSERT_GE(homes_.size(), 2u);
    // Two directories spelling home number 5 as DeLSM never does; number 5
    // is below every home the database has, so that the old parser made
    // them homes no live entry names.
    ASSERT_EQ(0u, std::count(homes_.begin(), homes_.end(), "000005"));
    for (const char* name : {"5", "0000005"}) {
      const std::string dir = values_ + "/" + name;
      ASSERT_EQ(0, mkdir(dir.c_str(), 0755)) << dir;
      std::ofstream(dir + "/precious") << "the user's, in " << name;
      // Named as DeLSM names a value: still not DeLSM's, being here.
      std::ofstream(dir + "/key@00000000000001") << "not a value";
      foreign_.push_back(dir);
    }
    for (const std::string& dir : foreign_) before_[dir] = TreeSnapshot(dir);
    // As a crash leaves the database (no clean-close marker), so that Open
    // sweeps the homes.
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
      ASSERT_EQ(Value(i, kRounds - 1), v) << Key(i);
    }
  }

  TempDir tmp_;
  const std::string dbname_;
  const std::string values_;
  delsm::Tuning tuning_;
  std::vector<std::string> homes_;  // DeLSM's, before the foreign ones
  std::vector<std::string> foreign_;
  std::map<std::string, std::map<std::string, std::string>> before_;
};

TEST_F(ForeignHomeNameTest, OpenAndCompactionLeaveIt) {
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("Open");
  {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(leveldb::Options(), tuning_, dbname_, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    db->CompactRange(nullptr, nullptr);
  }
  ExpectForeignIntact("a compaction");
  // The removal ran: the first round's homes went with their values.
  std::vector<std::string> after = ListDir(values_);
  size_t gone = 0;
  for (const std::string& home : homes_) {
    gone += std::count(after.begin(), after.end(), home) == 0;
  }
  EXPECT_GT(gone, 0u);
  // A crash after the compaction: Open's sweep of the homes once more.
  ASSERT_EQ(0, unlink((dbname_ + "/CLOSED").c_str()));
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("the Open after the compaction");
}

// RepairDB neither reads it as a home nor puts it away in lost/.
TEST_F(ForeignHomeNameTest, RepairDbLeavesIt) {
  const leveldb::Status s = leveldb::RepairDB(dbname_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectForeignIntact("RepairDB");
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("the Open after RepairDB");
}

// DestroyDB removes the whole database and returns OK, leaving the foreign
// directories and values/, which holds them, as it leaves any file that is
// not the database's: no database is left.
TEST_F(ForeignHomeNameTest, DestroyDbLeavesIt) {
  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectForeignIntact("DestroyDB");
  EXPECT_EQ(std::vector<std::string>({"values"}), ListDir(dbname_));
  EXPECT_EQ(std::vector<std::string>({"0000005", "5"}), ListDir(values_));
  leveldb::DB* db = nullptr;
  const leveldb::Status open =
      delsm::Open(leveldb::Options(), tuning_, dbname_, &db);
  EXPECT_TRUE(open.IsInvalidArgument()) << open.ToString();
  delete db;
}

}  // namespace
