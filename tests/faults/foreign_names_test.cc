// A directory or file in a database whose name spells one DeLSM writes,
// but not as DeLSM spells it, is not DeLSM's: no version of DeLSM made it,
// so it holds nothing of the database, and whoever put it there may want
// it. What removes DeLSM's files leaves it, and what it holds, where it is:
//
// - a directory "5.sst" or "0000005.sst" in a level directory (DeLSM
//   writes "000005.sst"), in both value modes, and a directory "5" or
//   "0000005" under values/ (DeLSM writes "000005") of a database whose
//   values stay put: Open's removal pass, a compaction's, RepairDB (which
//   neither reads it nor puts it away in lost/) and DestroyDB;
// - a file "META-5", "META-0000005", "LONGKEYS-5" or "LONGKEYS-0000005" in
//   a live SST directory (DeLSM writes "META-000005", and "META" for the
//   directory's own SST), in both value modes: Open's sweep of what no SST
//   owns. (RepairDB, which rebuilds the directory, moves the old one to
//   lost/ with whatever it holds that no SST used; DestroyDB removes an SST
//   directory whole.)
//
// Number 5 is below every number the database has in use, so that a
// parser accepting these spellings makes them an SST directory, a home or
// the files of an SST that no version has: dead, for removal.
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
#include "tests/faults/kv_file_database.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using delsm_test::ListDir;
using delsm_test::TempDir;
using delsm_test::TreeSnapshot;

// A database of KV files with entries planted in it whose names are not
// DeLSM's, and what those entries were when planted.
class ForeignNamesTest : public testing::Test {
 protected:
  ForeignNamesTest()
      : tmp_("delsm_foreign_names"), dbname_(tmp_.path() + "/db") {
    tuning_.inline_threshold = 0;  // every value a KV file
  }

  // Makes the database, closed cleanly, with every key written `rounds`
  // times (from the second round on, older values die in compactions).
  void MakeDatabase(int rounds) {
    ASSERT_FALSE(tmp_.path().empty());
    rounds_ = rounds;
    ASSERT_NO_FATAL_FAILURE(
        delsm_test::MakeKvFileDatabase(dbname_, tuning_, rounds));
  }

  // Sets *dir to the first level directory, from L0 on, that holds SST
  // directories.
  void FindLevelDir(std::string* dir) {
    for (int level = 0; level < 7; level++) {
      const std::string l = dbname_ + "/L" + std::to_string(level);
      if (!ListDir(l).empty()) {
        *dir = l;
        return;
      }
    }
    FAIL() << "no SST directory in " << dbname_;
  }

  // Plants in `parent` a directory of each of `names`, holding a file of
  // the user's and one named `decoy`, as DeLSM names a file of its own
  // there (still not DeLSM's, in a directory DeLSM did not make).
  void PlantDirs(const std::string& parent,
                 const std::vector<std::string>& names,
                 const std::string& decoy) {
    for (const std::string& name : names) {
      const std::string dir = parent + "/" + name;
      ASSERT_EQ(0, mkdir(dir.c_str(), 0755)) << dir;
      std::ofstream(dir + "/precious") << "the user's, in " << name;
      std::ofstream(dir + "/" + decoy) << "not DeLSM's";
      foreign_[dir] = TreeSnapshot(dir);
    }
  }

  // Plants in `parent` a file of each of `names`.
  void PlantFiles(const std::string& parent,
                  const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      const std::string file = parent + "/" + name;
      ASSERT_TRUE(std::ofstream(file) << "the user's: " << name) << file;
      foreign_[file] = TreeSnapshot(file);
    }
  }

  // As a crash leaves the database: without the clean-close marker, so
  // that the next Open runs every sweep it has.
  void Crash() { ASSERT_EQ(0, unlink((dbname_ + "/CLOSED").c_str())); }

  // Every planted entry is where it was, as it was (down to inode, size,
  // mtime and bytes of all it holds).
  void ExpectForeignIntact(const char* after) {
    for (const auto& [path, before] : foreign_) {
      EXPECT_TRUE(TreeSnapshot(path) == before)
          << path << " changed or went in " << after;
    }
  }

  // Opens the database (running Open's sweeps) and reads every key's
  // newest value.
  void ExpectEveryKey() {
    delsm_test::ExpectKvFileDatabase(dbname_, tuning_, rounds_);
  }

  // Opens the database, compacts the whole key range (and so removes what
  // the compactions leave dead), and closes it cleanly.
  void OpenAndCompact() {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(leveldb::Options(), tuning_, dbname_, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    db->CompactRange(nullptr, nullptr);
  }

  TempDir tmp_;
  const std::string dbname_;
  delsm::Tuning tuning_;
  int rounds_ = 1;
  // Each planted entry's path, with its snapshot when planted.
  std::map<std::string, std::map<std::string, std::string>> foreign_;
};

// Where directories with names not DeLSM's are planted: among SST
// directories in a level directory, or among homes under values/.
struct DirPlace {
  const char* name;
  bool values_stay_put;
  bool homes;              // under values/, else in a level directory
  const char* own;         // number 5 as DeLSM spells it there
  const char* foreign[2];  // number 5 as DeLSM never spells it
  const char* decoy;       // a name DeLSM gives a file in such a directory
};

const DirPlace kDirPlaces[] = {
    {"SstDir", false, false, "000005.sst", {"5.sst", "0000005.sst"}, "META"},
    {"SstDirValuesStayPut",
     true,
     false,
     "000005.sst",
     {"5.sst", "0000005.sst"},
     "META"},
    {"Home", true, true, "000005", {"5", "0000005"}, "key@00000000000001"},
};

void PrintTo(const DirPlace& p, std::ostream* os) { *os << p.name; }

class ForeignDirNameTest : public ForeignNamesTest,
                           public testing::WithParamInterface<DirPlace> {
 protected:
  void SetUp() override {
    const DirPlace& place = GetParam();
    tuning_.values_stay_put = place.values_stay_put;
    // Two rounds: Open and the compaction have dead SST directories and
    // homes to remove beside the planted ones.
    ASSERT_NO_FATAL_FAILURE(MakeDatabase(2));
    if (place.homes) {
      parent_ = dbname_ + "/values";
    } else {
      ASSERT_NO_FATAL_FAILURE(FindLevelDir(&parent_));
    }
    own_ = ListDir(parent_);
    ASSERT_FALSE(own_.empty()) << parent_;
    ASSERT_EQ(0, std::count(own_.begin(), own_.end(), place.own));
    ASSERT_NO_FATAL_FAILURE(
        PlantDirs(parent_, {place.foreign[0], place.foreign[1]}, place.decoy));
    ASSERT_NO_FATAL_FAILURE(Crash());
  }

  std::string parent_;            // the level directory or values/
  std::vector<std::string> own_;  // DeLSM's entries there, before planting
};

TEST_P(ForeignDirNameTest, OpenAndCompactionLeaveIt) {
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("Open");
  ASSERT_NO_FATAL_FAILURE(OpenAndCompact());
  ExpectForeignIntact("a compaction");
  // The removal ran there: entries of DeLSM's went with what they held.
  const std::vector<std::string> after = ListDir(parent_);
  size_t gone = 0;
  for (const std::string& name : own_) {
    gone += std::count(after.begin(), after.end(), name) == 0;
  }
  EXPECT_GT(gone, 0u) << parent_;
  // A crash after the compaction: Open's sweep once more.
  ASSERT_NO_FATAL_FAILURE(Crash());
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("the Open after the compaction");
}

// RepairDB neither reads it as DeLSM's nor puts it away in lost/.
TEST_P(ForeignDirNameTest, RepairDbLeavesIt) {
  const leveldb::Status s = leveldb::RepairDB(dbname_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectForeignIntact("RepairDB");
  ASSERT_NO_FATAL_FAILURE(ExpectEveryKey());
  ExpectForeignIntact("the Open after RepairDB");
}

// DestroyDB removes the whole database and returns OK, leaving the foreign
// directories and the directory holding them, as it leaves any file that
// is not the database's: no database is left.
TEST_P(ForeignDirNameTest, DestroyDbLeavesIt) {
  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectForeignIntact("DestroyDB");
  const std::string parent = parent_.substr(parent_.rfind('/') + 1);
  EXPECT_EQ(std::vector<std::string>({parent}), ListDir(dbname_));
  std::vector<std::string> foreign = {GetParam().foreign[0],
                                      GetParam().foreign[1]};
  std::sort(foreign.begin(), foreign.end());
  EXPECT_EQ(foreign, ListDir(parent_));
  leveldb::DB* db = nullptr;
  const leveldb::Status open =
      delsm::Open(leveldb::Options(), tuning_, dbname_, &db);
  EXPECT_TRUE(open.IsInvalidArgument()) << open.ToString();
  delete db;
}

INSTANTIATE_TEST_SUITE_P(Places, ForeignDirNameTest,
                         testing::ValuesIn(kDirPlaces),
                         [](const testing::TestParamInfo<DirPlace>& info) {
                           return info.param.name;
                         });

// A file named as DeLSM names a value no SST owns, as a crash mid-flush
// leaves one: the sweep's to remove.
constexpr char kStray[] = "stray@00000000000001";

class ForeignMetaNameTest : public ForeignNamesTest,
                            public testing::WithParamInterface<bool> {
 protected:
  void SetUp() override {
    tuning_.values_stay_put = GetParam();
    ASSERT_NO_FATAL_FAILURE(MakeDatabase(1));
    std::string level_dir;
    ASSERT_NO_FATAL_FAILURE(FindLevelDir(&level_dir));
    sst_dir_ = level_dir + "/" + ListDir(level_dir)[0];
    ASSERT_NE("000005.sst", sst_dir_.substr(sst_dir_.rfind('/') + 1));
    ASSERT_NO_FATAL_FAILURE(PlantFiles(
        sst_dir_,
        {"META-5", "META-0000005", "LONGKEYS-5", "LONGKEYS-0000005"}));
    ASSERT_TRUE(std::ofstream(sst_dir_ + "/" + kStray) << "unowned");
    ASSERT_NO_FATAL_FAILURE(Crash());
  }

  std::string sst_dir_;  // a live SST directory
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
