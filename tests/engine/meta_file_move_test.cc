// An SST whose meta file is the whole SST (inline values and tombstones
// only) that shares its directory with other SSTs of its level, and
// overlaps nothing below, moves down without a merge: its meta file gets a
// second name, META of a new SST directory at the next level, and the old
// name is removed once no version uses it (DBImpl::LinkMove). Nothing is
// rewritten: the moved SSTs' meta files are the very files (inodes) the
// upper level held. An SST whose entries name values in homes (values that
// stay put) is compacted as before.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "tests/shared_directories_db.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::ListDir;
namespace shared_dirs = delsm_test::shared_dirs;

struct MetaFile {
  std::string path;
  ino_t inode;
  nlink_t links;
};

// Every meta file (META, META-<n>) in the SST directories of `level_dir`.
std::vector<MetaFile> MetaFilesIn(const std::string& level_dir) {
  std::vector<MetaFile> metas;
  for (const std::string& d : ListDir(level_dir)) {
    for (const std::string& name : ListDir(level_dir + "/" + d)) {
      if (name.rfind("META", 0) != 0) continue;
      const std::string path = level_dir + "/" + d + "/" + name;
      struct stat st;
      EXPECT_EQ(0, stat(path.c_str(), &st)) << path;
      metas.push_back({path, st.st_ino, st.st_nlink});
    }
  }
  return metas;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return std::stoull(v);
}

TEST(MetaFileMoveTest, SstSharingItsDirectoryMovesByItsMetaFile) {
  delsm_test::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_EQ("", shared_dirs::Build(dbname));
  std::set<ino_t> l1_inodes;
  for (const MetaFile& m : MetaFilesIn(dbname + "/L1")) {
    l1_inodes.insert(m.inode);
  }
  ASSERT_TRUE(MetaFilesIn(dbname + "/L2").empty());

  DB* raw = nullptr;
  Status s = delsm::Open(shared_dirs::DbOptions(), shared_dirs::MovingTuning(),
                         dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  const uint64_t entries_before =
      Property(db.get(), "delsm.num-entries-at-level1");
  s = static_cast<DBImpl*>(raw)->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();

  // Moved, by second names and by renames of directories left with one
  // SST; nothing merged.
  EXPECT_GT(Property(db.get(), "delsm.meta-file-moves"), 0u);
  EXPECT_EQ(0u, Property(db.get(), "delsm.compactions"));
  EXPECT_EQ(entries_before,
            Property(db.get(), "delsm.num-entries-at-level1") +
                Property(db.get(), "delsm.num-entries-at-level2"));
  const std::vector<MetaFile> l2 = MetaFilesIn(dbname + "/L2");
  ASSERT_FALSE(l2.empty());
  for (const MetaFile& m : l2) {
    // The same file as at L1, and its old name gone.
    EXPECT_EQ(1u, l1_inodes.count(m.inode)) << m.path << " was rewritten";
    EXPECT_EQ(1u, m.links) << m.path << ": its old name is left";
  }
  for (const MetaFile& m : MetaFilesIn(dbname + "/L1")) {
    EXPECT_EQ(1u, m.links) << m.path;
  }
  EXPECT_EQ("", shared_dirs::CheckKeys(db.get()));

  // And after a reopen, which finds the moved SSTs where the manifest says.
  db.reset();
  s = delsm::Open(shared_dirs::DbOptions(), shared_dirs::MovingTuning(), dbname,
                  &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db.reset(raw);
  EXPECT_EQ("", shared_dirs::CheckKeys(db.get()));
}

// With values that stay put, an SST's only directory entry is its meta
// file, but its entries name KV files in homes: the meta file is not the
// whole SST, and it is compacted, not moved by a second name.
TEST(MetaFileMoveTest, SstNamingValuesInHomesIsCompacted) {
  delsm_test::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  delsm::Tuning build = shared_dirs::BuildTuning();
  build.values_stay_put = true;
  build.inline_threshold = 0;
  ASSERT_EQ("", shared_dirs::Build(dbname, build));

  delsm::Tuning moving = shared_dirs::MovingTuning();
  moving.values_stay_put = true;
  moving.inline_threshold = 0;
  DB* raw = nullptr;
  Status s = delsm::Open(shared_dirs::DbOptions(), moving, dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  s = static_cast<DBImpl*>(raw)->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(0u, Property(db.get(), "delsm.meta-file-moves"));
  EXPECT_GT(Property(db.get(), "delsm.compactions"), 0u);
  EXPECT_GT(Property(db.get(), "delsm.num-entries-at-level2"), 0u);
  EXPECT_EQ("", shared_dirs::CheckKeys(db.get()));
}

}  // namespace
}  // namespace leveldb
