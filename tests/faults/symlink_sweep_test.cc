// Nothing that removes files follows a symbolic link out of the database.
// A symbolic link where DeLSM keeps its own directories or files (an SST
// directory's place in a level directory, a KV file's in an SST
// directory, a home's in values/) is not DeLSM's: Open's sweep of orphans,
// RepairDB and DestroyDB leave it and what it points to alone (the sweep
// logs it; DestroyDB fails naming it and removes nothing).
// The files outside must all survive, and the database's own keys too.
#include <sys/stat.h>
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
#include "tests/faults/symlink_database.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using delsm_test::Key;
using delsm_test::ListDir;
using delsm_test::SymlinkTestValue;
using delsm_test::TempDir;

bool WriteFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary);
  f << data;
  return static_cast<bool>(f);
}

// Every file below `dir` with its contents.
std::map<std::string, std::string> Contents(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const std::string& name : ListDir(dir)) {
    std::ifstream f(dir + "/" + name, std::ios::binary);
    out[name] = std::string(std::istreambuf_iterator<char>(f), {});
  }
  return out;
}

// Outside: three files. In the database (kKeys keys, not compacted):
// links planted where DeLSM keeps its own names, and no clean-close
// marker, so that the next Open sweeps. ExpectKeys(kKeys, true) reads
// every key back through a fresh Open (which sweeps orphans: the planted
// names are in no manifest) and compacts.
class SymlinkSweepTest : public delsm_test::SymlinkDatabaseTest {
 protected:
  SymlinkSweepTest() : SymlinkDatabaseTest("delsm_symlink") {}

  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(SymlinkDatabaseTest::SetUp());
    // Outside files named as a KV file, a meta file and anything else.
    for (const char* name : {"key000001@00000000000001", "META", "precious"}) {
      ASSERT_TRUE(
          WriteFile(outside_ + "/" + name, std::string("outside:") + name));
    }
    before_ = Contents(outside_);
    ASSERT_EQ(before_.size(), 3u);

    ASSERT_NO_FATAL_FAILURE(MakeDatabase(/*compact=*/false));

    // The plants: in L0 an orphan SST directory's name, in a live SST
    // directory a KV file's name and any name, in values/ a home's name,
    // each a link to the outside directory; and one to an outside file.
    const std::string l0 = dbname_ + "/L0";
    std::vector<std::string> sst_dirs;
    for (int level = 0; level < 7 && sst_dirs.empty(); level++) {
      for (const std::string& d :
           ListDir(dbname_ + "/L" + std::to_string(level))) {
        sst_dirs.push_back(dbname_ + "/L" + std::to_string(level) + "/" + d);
      }
    }
    ASSERT_FALSE(sst_dirs.empty());
    ASSERT_FALSE(ListDir(dbname_ + "/values").empty());
    for (const std::string& link :
         {l0 + "/000900.sst", sst_dirs[0] + "/key000001@00000000000001",
          sst_dirs[0] + "/stray", dbname_ + "/values/000901"}) {
      ASSERT_EQ(symlink(outside_.c_str(), link.c_str()), 0) << link;
    }
    const std::string file = outside_ + "/precious";
    ASSERT_EQ(symlink(file.c_str(), (l0 + "/000902.sst").c_str()), 0);
    // As a crash leaves them: without the clean-close marker, so that the
    // next Open sweeps.
    ASSERT_EQ(unlink((dbname_ + "/CLOSED").c_str()), 0);
  }

  void ExpectOutsideIntact(const char* after) {
    EXPECT_TRUE(Contents(outside_) == before_)
        << "after " << after << ": " << Contents(outside_).size()
        << " files outside, " << before_.size() << " before";
  }

  std::map<std::string, std::string> before_;
};

TEST_F(SymlinkSweepTest, OpenSweepLeavesWhatLinksPointAtAlone) {
  ExpectKeys(kKeys, /*compact=*/true);
  ExpectOutsideIntact("Open");
  ExpectKeys(kKeys, /*compact=*/true);
  ExpectOutsideIntact("a second Open");
}

// RepairDB sets an SST directory it cannot read aside in lost/ (for a
// link: the link itself); a link where a home should be, whose values it
// would have to take back, it refuses, naming it, and changes nothing.
TEST_F(SymlinkSweepTest, RepairDBLeavesWhatLinksPointAtAlone) {
  leveldb::Status s = leveldb::RepairDB(dbname_, options_);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("/values/000901: a symbolic link, not followed"),
            std::string::npos)
      << s.ToString();
  ExpectOutsideIntact("RepairDB refused");
  ASSERT_EQ(unlink((dbname_ + "/values/000901").c_str()), 0);
  s = leveldb::RepairDB(dbname_, options_);
  EXPECT_TRUE(s.ok()) << s.ToString();
  ExpectOutsideIntact("RepairDB");
  ExpectKeys(kKeys, /*compact=*/true);
  ExpectOutsideIntact("the Open after RepairDB");
}

// A link where an SST directory or a home should be cannot be removed as
// one (its entries are not DeLSM's to unlink) nor left (the database would
// be half removed: CURRENT gone, SST directories still there). DestroyDB
// finds it while it plans, before it removes anything: it fails naming
// the link, and the database is as it was, every key readable. Once the
// links are gone, DestroyDB removes the database, unlinking the links
// planted inside an SST directory without following them.
TEST_F(SymlinkSweepTest, DestroyDBLeavesWhatLinksPointAtAlone) {
  const std::map<std::string, std::string> db_before =
      delsm_test::TreeSnapshot(dbname_);
  leveldb::Status s = leveldb::DestroyDB(dbname_, options_);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find("a symbolic link, not followed"),
            std::string::npos)
      << s.ToString();
  ExpectOutsideIntact("DestroyDB");
  EXPECT_TRUE(delsm_test::TreeSnapshot(dbname_) == db_before)
      << "the failed DestroyDB changed the database directory";
  // The outside directory itself is still there.
  struct stat st;
  EXPECT_EQ(stat(outside_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  ExpectKeys(kKeys, /*compact=*/true);
  ExpectOutsideIntact("the Open after DestroyDB");

  for (const std::string& link :
       {dbname_ + "/L0/000900.sst", dbname_ + "/L0/000902.sst",
        dbname_ + "/values/000901"}) {
    ASSERT_EQ(unlink(link.c_str()), 0) << link;
  }
  s = leveldb::DestroyDB(dbname_, options_);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_NE(lstat(dbname_.c_str(), &st), 0) << "the database stayed";
  ExpectOutsideIntact("the second DestroyDB");
}

// The database directory itself may be a link its user made: it is synced
// through (values/ is made durable by a sync of it) and everything works.
TEST(SymlinkDatabaseDirectoryTest, DatabaseDirectoryMayBeALink) {
  TempDir tmp("delsm_symlink_db");
  ASSERT_FALSE(tmp.path().empty());
  const std::string real = tmp.path() + "/real";
  const std::string link = tmp.path() + "/link";
  ASSERT_EQ(mkdir(real.c_str(), 0755), 0);
  ASSERT_EQ(symlink(real.c_str(), link.c_str()), 0);
  const delsm::Tuning tuning = delsm_test::SymlinkTestTuning();
  const leveldb::Options options = delsm_test::SymlinkTestOptions();
  for (int round = 0; round < 2; round++) {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options, tuning, link, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    if (round == 0) {
      for (int i = 0; i < 100; i++) {
        ASSERT_OK(
            db->Put(leveldb::WriteOptions(), Key(i), SymlinkTestValue(i)));
      }
      db->CompactRange(nullptr, nullptr);
    }
    for (int i = 0; i < 100; i++) {
      std::string v;
      ASSERT_OK(db->Get(leveldb::ReadOptions(), Key(i), &v));
      ASSERT_EQ(v, SymlinkTestValue(i));
    }
  }
  EXPECT_FALSE(ListDir(real + "/values").empty());
  ASSERT_OK(leveldb::DestroyDB(link, options));
}

}  // namespace
