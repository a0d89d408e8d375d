// A DB whose Options::env is NewMemEnv keeps its WAL and manifest in that
// Env and its SST directories in the Env's own memory FileSystem
// (docs/CONTRACT.md, "What is and is not in the contract"). DestroyDB must
// remove both halves: a second DB at the same path in the same Env starts
// its file numbers afresh, and an SST directory left behind would collide
// with its first flush ("File exists", a sticky background error).
#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "fs/mem_file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/helpers/memenv.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace {

using delsm_test::ListDir;
using delsm_test::TempDir;

using delsm_test::Key;

std::string Value(int i, int round) {
  return std::string(100, static_cast<char>('a' + (i + round) % 26));
}

// Small memtables and levels, so a few thousand writes take several
// flushes and compactions through L1 and L2.
delsm::Tuning SmallTuning() {
  delsm::Tuning t = delsm_test::SmallLevels(400, 200, 500);
  t.l0_slowdown_dirs = 4;
  t.l0_stop_dirs = 8;
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

  // One MemEnv for both DBs: all the second finds is what DestroyDB of the
  // first left in it.
  std::unique_ptr<leveldb::Env> env(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  leveldb::FileSystem* fs = leveldb::FileSystemForEnv(env.get());
  for (int round = 0; round < 2; round++) {
    SCOPED_TRACE("DB number " + std::to_string(round + 1));
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
    // The SST directories are in the MemEnv's FileSystem, not on disk.
    std::vector<std::string> l1, l2;
    ASSERT_TRUE(fs->ListDirectory(dbname + "/L1", &l1).ok());
    ASSERT_TRUE(fs->ListDirectory(dbname + "/L2", &l2).ok());
    EXPECT_FALSE(l1.empty() && l2.empty());
    EXPECT_TRUE(ListDir(dbname).empty());
    db.reset();

    s = leveldb::DestroyDB(dbname, options);
    ASSERT_TRUE(s.ok()) << s.ToString();
    // Everything the DB made is gone: the level directories and the files
    // in memory.
    for (int level = 0; level < 7; level++) {
      EXPECT_FALSE(fs->Exists(dbname + "/L" + std::to_string(level)));
    }
    EXPECT_TRUE(ListDir(dbname).empty());
    std::vector<std::string> in_memory;
    env->GetChildren(dbname, &in_memory);
    EXPECT_TRUE(in_memory.empty());
  }
}

}  // namespace
