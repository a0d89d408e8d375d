// The on-disk layout a user (or a researcher) relies on: flushes make SST
// directories in L0, a 4096-byte value's KV file is exactly one 4 KiB block,
// deletes create no file, and printable keys are readable in file names.
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::ListDir;
using delsm_test::TempDir;

// Waits until every queued memtable has been flushed.
void WaitForFlushes(DB* db) {
  std::string v;
  for (int i = 0; i < 3000; i++) {
    if (db->GetProperty("delsm.immutable-memtables", &v) && v == "0") return;
    usleep(2000);
  }
  FAIL() << "flushes did not finish";
}

TEST(LayoutTest, FlushesMakeSstDirectoriesOfKvFiles) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options;
  options.create_if_missing = true;
  options.compression = kNoCompression;
  options.write_buffer_size = 256 << 10;
  delsm::Tuning tuning;
  tuning.l0_compaction_dirs = 100;  // keep everything in L0 for inspection
  tuning.l0_slowdown_dirs = 100;
  tuning.l0_stop_dirs = 100;
  tuning.l0_compaction_entries = 1 << 30;
  DB* db;
  ASSERT_TRUE(delsm::Open(options, tuning, dbname, &db).ok());

  const std::string value(4096, 'v');
  const int kKeys = 300;  // ~1.2 MiB, several memtables
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(
        db->Put(WriteOptions(), "printable key #" + std::to_string(i), value)
            .ok());
  }
  ASSERT_TRUE(db->Delete(WriteOptions(), "deleted key").ok());
  // Push the delete out of the memtable as well.
  for (int i = 0; i < 100; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), "zz" + std::to_string(i), value).ok());
  }
  WaitForFlushes(db);

  std::string files_at_l0;
  ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level0", &files_at_l0));
  EXPECT_GE(std::stoi(files_at_l0), 2);

  int kv_files = 0;
  bool saw_readable_name = false;
  const std::string l0 = dbname + "/L0";
  for (const std::string& dir : ListDir(l0)) {
    ASSERT_NE(std::string::npos, dir.find(".sst")) << dir;
    for (const std::string& name : ListDir(l0 + "/" + dir)) {
      if (name == "META" || name == "LONGKEYS") continue;
      EXPECT_EQ(std::string::npos, name.find("deleted key"))
          << "a delete created a file: " << name;
      if (name.rfind("printable key #", 0) == 0) saw_readable_name = true;
      struct stat st;
      ASSERT_EQ(0, stat((l0 + "/" + dir + "/" + name).c_str(), &st));
      EXPECT_EQ(4096, st.st_size) << name;
      EXPECT_EQ(8, st.st_blocks) << name << ": not one 4 KiB block";
      kv_files++;
    }
  }
  EXPECT_TRUE(saw_readable_name);
  // Every flushed value has its own KV file; the unflushed tail does not.
  EXPECT_GE(kv_files, kKeys);

  std::string v;
  ASSERT_TRUE(db->Get(ReadOptions(), "printable key #7", &v).ok());
  EXPECT_EQ(value, v);
  EXPECT_TRUE(db->Get(ReadOptions(), "deleted key", &v).IsNotFound());
  delete db;
}

}  // namespace
}  // namespace leveldb
