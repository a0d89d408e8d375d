// RepairDB: rebuilds a DB from the SST directories, KV files and WALs that
// survive the loss of the manifest, of CURRENT, or of a meta file.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::ListDir;
using delsm_test::TempDir;

constexpr int kKeys = 3000;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}
std::string Value(int i) { return std::string(300 + i % 700, 'a' + i % 26); }

class RepairTest : public testing::Test {
 protected:
  RepairTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    tuning_.l0_compaction_entries = 500;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
  }

  // Fills the DB so it has directories in several levels, deletes every
  // 7th key, and leaves the last writes only in the WAL.
  void Fill() {
    DB* db;
    ASSERT_TRUE(delsm::Open(options_, tuning_, dbname_, &db).ok());
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    for (int i = 0; i < kKeys; i += 7) {
      ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = kKeys; i < kKeys + 100; i++) {  // stays in the WAL
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    delete db;
  }

  // Every surviving key reads back; deleted keys stay deleted when
  // `tombstones_survive`.
  void Check(bool tombstones_survive) {
    DB* db;
    Status s = delsm::Open(options_, tuning_, dbname_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (int i = 0; i < kKeys + 100; i++) {
      std::string v;
      s = db->Get(ReadOptions(), Key(i), &v);
      if (i < kKeys && i % 7 == 0) {
        if (tombstones_survive) EXPECT_TRUE(s.IsNotFound()) << Key(i);
        continue;
      }
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i), v);
    }
    delete db;
  }

  TempDir tmp_;
  const std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
};

TEST_F(RepairTest, LostManifestAndCurrent) {
  Fill();
  for (const std::string& name : ListDir(dbname_)) {
    if (name.rfind("MANIFEST-", 0) == 0 || name == "CURRENT") {
      ASSERT_EQ(0, unlink((dbname_ + "/" + name).c_str()));
    }
  }
  DB* db = nullptr;
  Options no_create = options_;
  no_create.create_if_missing = false;
  ASSERT_FALSE(DB::Open(no_create, dbname_, &db).ok());
  delete db;
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(true);
}

TEST_F(RepairTest, LostMetaFile) {
  Fill();
  // Remove a meta file of one directory that holds values. A directory
  // may hold only META-<n> files (SSTs a compaction wrote into it).
  bool removed = false;
  for (int level = 0; level < 7 && !removed; level++) {
    const std::string ldir = dbname_ + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(ldir)) {
      const std::vector<std::string> names = ListDir(ldir + "/" + d);
      if (names.size() <= 10) continue;
      for (const std::string& name : names) {
        if (name.rfind("META", 0) == 0) {
          ASSERT_EQ(0, unlink((ldir + "/" + d + "/" + name).c_str()));
          removed = true;
          break;
        }
      }
      if (removed) break;
    }
  }
  ASSERT_TRUE(removed);
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Tombstones of the lost meta file are gone, so deleted keys are not
  // checked; every value whose KV file survives is back.
  Check(false);
}

TEST_F(RepairTest, RepairOfHealthyDbKeepsEverything) {
  Fill();
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(true);
}

}  // namespace
}  // namespace leveldb
