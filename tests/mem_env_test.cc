// A DB whose Options::env is NewMemEnv keeps its WAL and manifest in memory
// and its SST directories on disk under the DB's path (README, "What is and
// is not in the contract"). DestroyDB must remove both halves: a second DB
// at the same path starts its file numbers afresh, and an SST directory
// left behind on disk would collide with its first flush ("File exists", a
// sticky background error).
#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/helpers/memenv.h"
#include "tests/test_support.h"

namespace {

using delsm_test::ListDir;
using delsm_test::TempDir;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string Value(int i, int round) {
  return std::string(100, static_cast<char>('a' + (i + round) % 26));
}

// Small memtables and levels, so a few thousand writes take several
// flushes and compactions through L1 and L2.
delsm::Tuning SmallTuning() {
  delsm::Tuning t;
  t.l0_compaction_dirs = 2;
  t.l0_slowdown_dirs = 4;
  t.l0_stop_dirs = 8;
  t.l0_compaction_entries = 400;
  t.sst_entries = 200;
  t.l1_entries = 500;
  return t;
}

std::string Property(leveldb::DB* db, const std::string& name) {
  std::string value;
  EXPECT_TRUE(db->GetProperty(name, &value)) << name;
  return value;
}

// Writes keys [0, n) in batches, then compacts everything, and checks every
// key reads back. Reports how many flushes and compactions ran.
void FillAndCheck(leveldb::DB* db, int n, int round, uint64_t* flushes,
                  uint64_t* compactions) {
  for (int i = 0; i < n; i++) {
    ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, round)).ok())
        << "key " << i;
  }
  db->CompactRange(nullptr, nullptr);
  for (int i = 0; i < n; i++) {
    std::string value;
    ASSERT_TRUE(db->Get(leveldb::ReadOptions(), Key(i), &value).ok())
        << "key " << i;
    ASSERT_EQ(Value(i, round), value) << "key " << i;
  }
  // A sticky background error would fail this write.
  ASSERT_TRUE(db->Put(leveldb::WriteOptions(), "last", "write").ok());
  *flushes = std::stoull(Property(db, "delsm.flushes"));
  *compactions = std::stoull(Property(db, "delsm.compactions"));
}

TEST(MemEnvTest, DestroyRemovesSstDirectoriesAndTheNextDbWorks) {
  TempDir tmp("delsm_mem_env");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path();
  const int kKeys = 3000;

  for (int round = 0; round < 2; round++) {
    SCOPED_TRACE("DB number " + std::to_string(round + 1));
    // A fresh MemEnv each time, as a new process would have: nothing of the
    // first DB survives in memory, only what DestroyDB left on disk.
    std::unique_ptr<leveldb::Env> env(
        leveldb::NewMemEnv(leveldb::Env::Default()));
    leveldb::Options options;
    options.env = env.get();
    options.create_if_missing = true;
    options.error_if_exists = true;
    options.write_buffer_size = 64 * 1024;
    leveldb::DB* raw = nullptr;
    leveldb::Status s = delsm::Open(options, SmallTuning(), dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<leveldb::DB> db(raw);

    uint64_t flushes = 0, compactions = 0;
    FillAndCheck(db.get(), kKeys, round, &flushes, &compactions);
    EXPECT_GE(flushes, 2u);
    EXPECT_GE(compactions, 1u);
    EXPECT_EQ("0", Property(db.get(), "leveldb.num-files-at-level0"));
    // The SST directories are on disk, not in the MemEnv.
    EXPECT_FALSE(ListDir(dbname + "/L1").empty() &&
                 ListDir(dbname + "/L2").empty());
    db.reset();

    s = leveldb::DestroyDB(dbname, options);
    ASSERT_TRUE(s.ok()) << s.ToString();
    // Everything the DB made is gone: the level directories on disk and the
    // files in memory.
    EXPECT_TRUE(ListDir(dbname).empty())
        << "left on disk: " << ListDir(dbname).size() << " entries, first "
        << ListDir(dbname).front();
    std::vector<std::string> in_memory;
    env->GetChildren(dbname, &in_memory);
    EXPECT_TRUE(in_memory.empty());
  }
}

}  // namespace
