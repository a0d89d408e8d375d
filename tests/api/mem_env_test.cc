// A DB whose Options::env is NewMemEnv keeps its WAL and manifest in that
// Env and its SST directories in the Env's own memory FileSystem
// (docs/CONTRACT.md, "What is and is not in the contract"). DestroyDB must
// remove both halves: a second DB at the same path in the same Env starts
// its file numbers afresh, and an SST directory left behind would collide
// with its first flush ("File exists", a sticky background error).
#include <map>
#include <memory>
#include <string>
#include <vector>

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

// What a memory Env's lost/ holds, each file's name with its bytes.
std::map<std::string, std::string> LostFiles(leveldb::Env* env,
                                             const std::string& dbname) {
  std::map<std::string, std::string> files;
  std::vector<std::string> names;
  env->GetChildren(dbname + "/lost", &names);
  for (const std::string& name : names) {
    std::string bytes;
    if (leveldb::ReadFileToString(env, dbname + "/lost/" + name, &bytes).ok()) {
      files[name] = bytes;
    }
  }
  return files;
}

// RepairDB moves the WALs and old manifests of a memory Env's database to
// lost/, which DestroyDB leaves (as LevelDB's does); a second database at
// the same path numbers its files afresh, and its RepairDB puts away files
// under the names the first one's have in lost/. It must replace none of
// them: each stays, and the second database's take free names beside.
TEST(MemEnvTest, RepairReplacesNothingInLost) {
  TempDir tmp("delsm_mem_env");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path();
  std::unique_ptr<leveldb::Env> env(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  leveldb::Options options;
  options.env = env.get();
  std::map<std::string, std::string> first;
  for (int round = 0; round < 2; round++) {
    SCOPED_TRACE("DB number " + std::to_string(round + 1));
    options.create_if_missing = true;
    leveldb::DB* raw = nullptr;
    leveldb::Status s = delsm::Open(options, SmallTuning(), dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (int i = 0; i < 10; i++) {
      ASSERT_TRUE(
          raw->Put(leveldb::WriteOptions(), Key(i), Value(i, round)).ok());
    }
    delete raw;
    s = leveldb::RepairDB(dbname, options);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (round == 0) {
      first = LostFiles(env.get(), dbname);
      ASSERT_FALSE(first.empty()) << "RepairDB put nothing in lost/";
    }
    s = leveldb::DestroyDB(dbname, options);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  const std::map<std::string, std::string> after = LostFiles(env.get(), dbname);
  for (const auto& file : first) {
    auto found = after.find(file.first);
    EXPECT_TRUE(found != after.end() && found->second == file.second)
        << "the second RepairDB replaced lost/" << file.first;
  }
  EXPECT_EQ(2 * first.size(), after.size())
      << "the second RepairDB put away fewer files beside the first's";
}

}  // namespace
