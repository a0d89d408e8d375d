// Running out of inodes: a DB whose WAL holds writes that cannot be flushed
// (every value needs a new file, and the file system has no inode left)
// must still open, and serve every acknowledged write, and its properties
// must show how many inodes it holds and how many the file system has left.
//
// The exhaustion is made with the fault-injecting FileSystem (ENOSPC when
// the flush creates its directory), as a test cannot count on a file system
// of its own to fill.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::TempDir;

constexpr int kKeys = 500;

// Fails the first SST directory the replay's flush creates in L0 with
// ENOSPC, as a file system without free inodes would (the directories Open
// makes sure of exist already, and mkdir of an existing directory reports
// EEXIST before ENOSPC, so a full file system passes those).
void FailFirstL0Mkdir(FaultInjectionFileSystem* fs) {
  FaultSpec spec;
  spec.err = ENOSPC;
  spec.path_contains = "/L0/";
  fs->Arm(FsOp::kMkdir, spec);
}

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}
std::string Value(int i) { return std::string(100 + i % 50, 'a' + i % 26); }

Options DbOptions() {
  Options o;
  o.create_if_missing = true;
  return o;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return std::strtoull(v.c_str(), nullptr, 10);
}

// Distinct inodes at and below `path` (the directory itself included).
void CountInodes(const std::string& path, std::set<uint64_t>* inodes) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  inodes->insert(static_cast<uint64_t>(st.st_ino));
  if (!S_ISDIR(st.st_mode)) return;
  for (const std::string& name : delsm_test::ListDir(path)) {
    CountInodes(path + "/" + name, inodes);
  }
}

// Writes kKeys keys and closes without a flush: they live in the WAL only.
void WriteUnflushed(const std::string& dbname) {
  DB* db = nullptr;
  ASSERT_TRUE(DB::Open(DbOptions(), dbname, &db).ok());
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
  }
  delete db;
}

void ExpectAllKeys(DB* db) {
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    ASSERT_EQ(Value(i), v);
  }
}

TEST(InodeExhaustion, ReopenReadsWhenReplayCannotCreateFiles) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  WriteUnflushed(dbname);

  // The replay's flush fails as on a file system without free inodes.
  FaultInjectionFileSystem fs(FileSystem::Default());
  FailFirstL0Mkdir(&fs);
  DB* db = nullptr;
  Status s = OpenWithFileSystem(DbOptions(), delsm::Tuning(), dbname, &fs, &db);
  ASSERT_TRUE(s.ok()) << "reopen with no inode to spare: " << s.ToString();
  EXPECT_TRUE(fs.Fired());
  ExpectAllKeys(db);
  // The writes were kept in memory; once files can be made again they are
  // flushed like any other.
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  EXPECT_GE(Property(db, "delsm.flushes"), 1u);
  ExpectAllKeys(db);
  delete db;

  // And the WAL was kept until then: a plain reopen still has everything.
  ASSERT_TRUE(DB::Open(DbOptions(), dbname, &db).ok());
  ExpectAllKeys(db);
  delete db;
}

TEST(InodeExhaustion, FailedReplayFlushKeepsTheWal) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  WriteUnflushed(dbname);
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FailFirstL0Mkdir(&fs);
    DB* db = nullptr;
    ASSERT_TRUE(
        OpenWithFileSystem(DbOptions(), delsm::Tuning(), dbname, &fs, &db)
            .ok());
    EXPECT_TRUE(fs.Fired());
    // Closed before any flush could succeed (the flush thread may or may
    // not have retried): nothing may be lost either way.
    delete db;
  }
  DB* db = nullptr;
  ASSERT_TRUE(DB::Open(DbOptions(), dbname, &db).ok());
  ExpectAllKeys(db);
  delete db;
}

TEST(InodeExhaustion, PropertiesShowInodes) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  DB* db = nullptr;
  delsm::Tuning pure;  // every value a KV file of its own: 3000 inodes
  pure.inline_threshold = 0;
  ASSERT_TRUE(delsm::Open(DbOptions(), pure, dbname, &db).ok());
  for (int i = 0; i < 3000; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
  }
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());

  std::set<uint64_t> on_disk;
  CountInodes(dbname, &on_disk);
  const uint64_t inodes = Property(db, "delsm.inodes");
  // Exact but for files that come and go on their own (LOG.old, a WAL).
  EXPECT_LE(inodes, on_disk.size() + 2);
  EXPECT_GE(inodes + 2, on_disk.size());
  EXPECT_GE(inodes, 3000u);

  struct statvfs before;
  ASSERT_EQ(0, statvfs(dbname.c_str(), &before));
  const uint64_t free_inodes = Property(db, "delsm.fs-free-inodes");
  struct statvfs after;
  ASSERT_EQ(0, statvfs(dbname.c_str(), &after));
  // Other processes share the file system; the figure lies between the two
  // readings give or take their activity.
  const uint64_t lo = std::min<uint64_t>(before.f_favail, after.f_favail);
  const uint64_t hi = std::max<uint64_t>(before.f_favail, after.f_favail);
  EXPECT_GE(free_inodes + 10000, lo);
  EXPECT_LE(free_inodes, hi + 10000);
  delete db;
}

}  // namespace
}  // namespace leveldb
