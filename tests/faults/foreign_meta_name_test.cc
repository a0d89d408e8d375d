// A file in a live SST directory whose name spells a meta or LONGKEYS file
// of an SST but not as DeLSM spells it ("META-5", "META-0000005": DeLSM
// writes "META-000005", and "META" for the directory's own SST) is not
// DeLSM's: no version of DeLSM made it, and whoever put it there may want
// it. Open's sweep of what no SST owns leaves it where it is. (RepairDB,
// which rebuilds the directory, moves the old one to lost/ with whatever
// it holds that no SST used; DestroyDB removes an SST directory whole.)
#include <unistd.h>

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

namespace {

using delsm_test::Key;
using delsm_test::ListDir;
using delsm_test::TempDir;

std::string Value(int i) { return std::to_string(i) + std::string(3000, 'v'); }

constexpr int kKeys = 300;
constexpr char kStray[] = "stray@00000000000001";

class ForeignMetaNameTest : public testing::TestWithParam<bool> {
 protected:
  ForeignMetaNameTest()
      : tmp_("delsm_foreign_meta"), dbname_(tmp_.path() + "/db") {
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
    // A live SST directory; number 5 is below every number the database
    // has in use, so that the old parser made these the files of an SST
    // no version has.
    for (int level = 0; level < 7 && sst_dir_.empty(); level++) {
      const std::string l = dbname_ + "/L" + std::to_string(level);
      const std::vector<std::string> dirs = ListDir(l);
      if (!dirs.empty()) sst_dir_ = l + "/" + dirs[0];
    }
    ASSERT_FALSE(sst_dir_.empty());
    ASSERT_NE("000005.sst", sst_dir_.substr(sst_dir_.rfind('/') + 1));
    for (const char* name :
         {"META-5", "META-0000005", "LONGKEYS-5", "LONGKEYS-0000005"}) {
      std::ofstream(sst_dir_ + "/" + name) << "the user's: " << name;
      foreign_.push_back(name);
    }
    // And a file named as DeLSM names a value no SST owns, as a crash
    // mid-flush leaves one: the sweep's to remove.
    std::ofstream(sst_dir_ + "/" + kStray) << "unowned";
    // As a crash leaves the database (no clean-close marker), so that Open
    // sweeps every SST directory.
    ASSERT_EQ(0, unlink((dbname_ + "/CLOSED").c_str()));
  }

  void ExpectForeignIntact(const char* after) {
    for (const std::string& name : foreign_) {
      std::ifstream in(sst_dir_ + "/" + name);
      std::string text;
      std::getline(in, text);
      EXPECT_EQ("the user's: " + name, text) << name << " went in " << after;
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
  std::string sst_dir_;
  std::vector<std::string> foreign_;
};

TEST_P(ForeignMetaNameTest, OpenSweepLeavesIt) {
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("Open");
  // The sweep ran over this directory.
  EXPECT_NE(0, access((sst_dir_ + "/" + kStray).c_str(), F_OK));
}

INSTANTIATE_TEST_SUITE_P(Modes, ForeignMetaNameTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace
