// A database whose Options::env is NewMemEnv lives wholly in that Env's
// memory, SST directories included, as a LevelDB database on LevelDB's
// memory Env does (its tables are files of the Env like everything else):
//   * opened at the path of a database on disk, it neither reads nor
//     removes anything of that database;
//   * two memory Envs with a database at one path in one process each keep
//     their own keys;
//   * its path need not exist on disk, and nothing is created there.
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
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

std::string Value(int i, const std::string& tag) {
  return tag + ":" + std::to_string(i) + std::string(100, 'v');
}

// Small memtables and levels: a few thousand writes take several flushes
// and compactions into L1 and L2.
delsm::Tuning SmallTuning() {
  delsm::Tuning t = delsm_test::SmallLevels(400, 200, 500);
  t.l0_slowdown_dirs = 4;
  t.l0_stop_dirs = 8;
  return t;
}

leveldb::Options SmallOptions(leveldb::Env* env) {
  leveldb::Options options;
  options.env = env;
  options.create_if_missing = true;
  options.write_buffer_size = 64 * 1024;
  return options;
}

std::unique_ptr<leveldb::DB> OpenDb(const leveldb::Options& options,
                                    const std::string& name) {
  leveldb::DB* db = nullptr;
  leveldb::Status s = delsm::Open(options, SmallTuning(), name, &db);
  EXPECT_TRUE(s.ok()) << name << ": " << s.ToString();
  return std::unique_ptr<leveldb::DB>(db);
}

// How many of keys [0, n) do not read back as Value(i, tag).
int WrongKeys(leveldb::DB* db, int n, const std::string& tag) {
  int wrong = 0;
  for (int i = 0; i < n; i++) {
    std::string v;
    leveldb::Status s = db->Get(leveldb::ReadOptions(), Key(i), &v);
    if (!s.ok() || v != Value(i, tag)) wrong++;
  }
  return wrong;
}

// Every path below `root` with its inode number: what "unchanged" means
// for a database's files.
void Snapshot(const std::string& root, const std::string& rel,
              std::map<std::string, ino_t>* out) {
  for (const std::string& name : ListDir(root + rel)) {
    const std::string path = rel + "/" + name;
    struct stat st;
    if (lstat((root + path).c_str(), &st) != 0) continue;
    (*out)[path] = st.st_ino;
    if (S_ISDIR(st.st_mode)) Snapshot(root, path, out);
  }
}

bool OnDisk(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

TEST(MemEnvIsolationTest, DatabaseOnDiskSurvivesAMemEnvDatabaseAtItsPath) {
  TempDir tmp("delsm_memenv_iso");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  constexpr int kKeys = 3000;
  {
    std::unique_ptr<leveldb::DB> db =
        OpenDb(SmallOptions(leveldb::Env::Default()), dbname);
    ASSERT_TRUE(db != nullptr);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(
          db->Put(leveldb::WriteOptions(), Key(i), Value(i, "disk")).ok());
    }
    db->CompactRange(nullptr, nullptr);
  }
  std::map<std::string, ino_t> before;
  Snapshot(dbname, "", &before);
  ASSERT_GT(before.size(), 10u);

  {
    // The memory database: its own keys, flushes and compactions, and
    // its Open's sweep of SST directories its manifest does not name.
    std::unique_ptr<leveldb::Env> env(
        leveldb::NewMemEnv(leveldb::Env::Default()));
    const leveldb::Options options = SmallOptions(env.get());
    {
      std::unique_ptr<leveldb::DB> db = OpenDb(options, dbname);
      ASSERT_TRUE(db != nullptr);
      EXPECT_EQ(WrongKeys(db.get(), kKeys, "disk"), kKeys)
          << "the memory database reads the disk database's keys";
      for (int i = 0; i < kKeys; i++) {
        ASSERT_TRUE(
            db->Put(leveldb::WriteOptions(), Key(i), Value(i, "mem")).ok());
      }
      db->CompactRange(nullptr, nullptr);
      EXPECT_EQ(WrongKeys(db.get(), kKeys, "mem"), 0);
    }
    {
      std::unique_ptr<leveldb::DB> db = OpenDb(options, dbname);  // sweeps
      ASSERT_TRUE(db != nullptr);
      EXPECT_EQ(WrongKeys(db.get(), kKeys, "mem"), 0);
    }
    EXPECT_TRUE(leveldb::RepairDB(dbname, options).ok());
    EXPECT_TRUE(leveldb::DestroyDB(dbname, options).ok());
  }

  std::map<std::string, ino_t> after;
  Snapshot(dbname, "", &after);
  EXPECT_TRUE(before == after)
      << "the disk database's files changed: " << before.size()
      << " entries before, " << after.size() << " after";
  std::unique_ptr<leveldb::DB> db =
      OpenDb(SmallOptions(leveldb::Env::Default()), dbname);
  ASSERT_TRUE(db != nullptr);
  EXPECT_EQ(WrongKeys(db.get(), kKeys, "disk"), 0);
}

TEST(MemEnvIsolationTest, TwoMemEnvsAtOnePathKeepTheirOwnKeys) {
  TempDir tmp("delsm_memenv_iso");
  ASSERT_FALSE(tmp.path().empty());
  constexpr int kKeys = 8000;
  const std::string dbname = tmp.path() + "/db";
  std::unique_ptr<leveldb::Env> env_a(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  std::unique_ptr<leveldb::Env> env_b(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  const leveldb::Options options_a = SmallOptions(env_a.get());
  const leveldb::Options options_b = SmallOptions(env_b.get());
  {
    std::unique_ptr<leveldb::DB> a = OpenDb(options_a, dbname);
    std::unique_ptr<leveldb::DB> b = OpenDb(options_b, dbname);
    ASSERT_TRUE(a != nullptr && b != nullptr);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(a->Put(leveldb::WriteOptions(), Key(i), Value(i, "a")).ok());
      ASSERT_TRUE(b->Put(leveldb::WriteOptions(), Key(i), Value(i, "b")).ok());
    }
    a->CompactRange(nullptr, nullptr);
    b->CompactRange(nullptr, nullptr);
    EXPECT_EQ(WrongKeys(a.get(), kKeys, "a"), 0);
    EXPECT_EQ(WrongKeys(b.get(), kKeys, "b"), 0);
    // A write after the compactions: no sticky background error.
    EXPECT_TRUE(a->Put(leveldb::WriteOptions(), "last", "a").ok());
    EXPECT_TRUE(b->Put(leveldb::WriteOptions(), "last", "b").ok());
  }
  // Each reopens to its own keys.
  for (const auto& o :
       {std::make_pair(&options_a, "a"), std::make_pair(&options_b, "b")}) {
    std::unique_ptr<leveldb::DB> db = OpenDb(*o.first, dbname);
    ASSERT_TRUE(db != nullptr);
    EXPECT_EQ(WrongKeys(db.get(), kKeys, o.second), 0) << o.second;
  }
  EXPECT_FALSE(OnDisk(dbname));
}

TEST(MemEnvIsolationTest, PathNeedNotExistOnDiskAndNothingIsCreatedThere) {
  TempDir tmp("delsm_memenv_iso");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/no/such/parent/db";
  constexpr int kKeys = 2000;
  std::unique_ptr<leveldb::Env> env(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  const leveldb::Options options = SmallOptions(env.get());
  {
    std::unique_ptr<leveldb::DB> db = OpenDb(options, dbname);
    ASSERT_TRUE(db != nullptr);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(
          db->Put(leveldb::WriteOptions(), Key(i), Value(i, "mem")).ok());
    }
    db->CompactRange(nullptr, nullptr);
    EXPECT_EQ(WrongKeys(db.get(), kKeys, "mem"), 0);
  }
  ASSERT_TRUE(leveldb::RepairDB(dbname, options).ok());
  {
    std::unique_ptr<leveldb::DB> db = OpenDb(options, dbname);
    ASSERT_TRUE(db != nullptr);
    EXPECT_EQ(WrongKeys(db.get(), kKeys, "mem"), 0);
  }
  EXPECT_TRUE(ListDir(tmp.path()).empty())
      << "created on disk: " << ListDir(tmp.path()).front();
  ASSERT_TRUE(leveldb::DestroyDB(dbname, options).ok());
  // What RepairDB set aside stays, as LevelDB's DestroyDB leaves it.
  std::vector<std::string> left;
  env->GetChildren(dbname, &left);
  EXPECT_EQ(left, std::vector<std::string>{"lost"});
  // The memory FileSystem is the Env's: a database at the same path in a
  // fresh Env starts empty.
  std::unique_ptr<leveldb::Env> fresh(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  std::unique_ptr<leveldb::DB> db = OpenDb(SmallOptions(fresh.get()), dbname);
  ASSERT_TRUE(db != nullptr);
  EXPECT_EQ(WrongKeys(db.get(), 10, "mem"), 10);
}

}  // namespace

namespace {

uint64_t Number(leveldb::DB* db, const std::string& property) {
  std::string value;
  EXPECT_TRUE(db->GetProperty(property, &value)) << property;
  return std::strtoull(value.c_str(), nullptr, 10);
}

// The sum of a per-level property over the levels.
uint64_t AllLevels(leveldb::DB* db, const std::string& property) {
  uint64_t sum = 0;
  for (int level = 0; level < 7; level++) {
    sum += Number(db, property + std::to_string(level));
  }
  return sum;
}

}  // namespace

// The space properties of a memory database describe its memory
// FileSystem, never the disk at its path: a database on disk there (here
// one of more than 200 KiB) must not show through, and the disk's
// free inodes are not the memory database's.
TEST(MemEnvIsolationTest, SpacePropertiesDoNotReadTheDiskAtItsPath) {
  TempDir tmp("delsm_memenv_iso");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  constexpr int kKeys = 3000;
  {
    std::unique_ptr<leveldb::DB> disk =
        OpenDb(SmallOptions(leveldb::Env::Default()), dbname);
    ASSERT_TRUE(disk != nullptr);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(disk->Put(leveldb::WriteOptions(), Key(i),
                            Value(i, "disk") + std::string(300, 'd'))
                      .ok());
    }
    disk->CompactRange(nullptr, nullptr);
    ASSERT_GT(AllLevels(disk.get(), "delsm.allocated-bytes-at-level"),
              uint64_t{200} << 10);
  }
  std::unique_ptr<leveldb::Env> env(
      leveldb::NewMemEnv(leveldb::Env::Default()));
  std::unique_ptr<leveldb::DB> db = OpenDb(SmallOptions(env.get()), dbname);
  ASSERT_TRUE(db != nullptr);
  // Empty: nothing at any level.
  EXPECT_EQ(0u, AllLevels(db.get(), "delsm.allocated-bytes-at-level"));
  EXPECT_EQ(0u, AllLevels(db.get(), "delsm.inodes-at-level"));
  std::string free_inodes;
  EXPECT_FALSE(db->GetProperty("delsm.fs-free-inodes", &free_inodes))
      << "a memory database reported the disk's free inodes: " << free_inodes;
  // Its own data shows: 200 values of 4 KiB in one L0 SST directory, each a
  // KV file (the inline threshold is 2048), with the meta file.
  for (int i = 0; i < 200; i++) {
    ASSERT_TRUE(
        db->Put(leveldb::WriteOptions(), Key(i), std::string(4096, 'm')).ok());
  }
  db->CompactRange(nullptr, nullptr);
  const uint64_t bytes = AllLevels(db.get(), "delsm.allocated-bytes-at-level");
  const uint64_t inodes = AllLevels(db.get(), "delsm.inodes-at-level");
  EXPECT_GE(bytes, 200u * 4096);
  EXPECT_LT(bytes, 200u * 4096 + (uint64_t{1} << 20));
  EXPECT_GE(inodes, 202u);  // 200 KV files, a meta file, a directory
  EXPECT_LT(inodes, 260u);
}
