// Nothing DeLSM creates or writes follows a symbolic link out of the
// database. A link planted where DeLSM makes a file or a directory in the
// database directory (LOCK, a MANIFEST, a WAL, a temporary file, LOG, a
// level directory, values/, lost/) points outside it; following it would
// create or overwrite what it points at, or move the database's files out.
// Each is refused instead with an IOError naming the link ("a symbolic
// link, not followed"), or for LOG left unused. Nothing appears outside,
// and once the link is gone the database opens with every key it
// acknowledged.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
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
using delsm_test::TreeSnapshot;

// "000012.log", "MANIFEST-000012": a numbered name as DeLSM spells it.
std::string Numbered(const char* prefix, uint64_t n, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s%06llu%s", prefix,
                static_cast<unsigned long long>(n), suffix);
  return buf;
}

// TreeSnapshot of a database directory without LOG and LOG.old, which
// every Open and RepairDB moves and remakes before it looks further (and
// so without the directory's own times), and without the clean-close
// marker, which Open takes (removes) as soon as it holds the lock.
std::map<std::string, std::string> DbSnapshot(const std::string& dbname) {
  std::map<std::string, std::string> snap = TreeSnapshot(dbname);
  snap.erase("");
  snap.erase("/CLOSED");
  snap.erase("/LOG");
  snap.erase("/LOG.old");
  return snap;
}

bool IsLink(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// outside_ starts empty, and every test expects it to stay so; the tests
// that need a database make it with MakeDatabase() (compacted out of L0).
class SymlinkWriteTest : public delsm_test::SymlinkDatabaseTest {
 protected:
  SymlinkWriteTest() : SymlinkDatabaseTest("delsm_symlink_write") {}

  // Puts a link at dbname_/name to outside_/name, where nothing is.
  void PlantLink(const std::string& name) {
    const std::string target = outside_ + "/" + name;
    ASSERT_EQ(0, symlink(target.c_str(), (dbname_ + "/" + name).c_str()))
        << name;
  }

  // Links at every name prefix+number+suffix not already taken, from 1 to
  // kNumbers past the highest number a name in the directory has (a
  // failed Open may have taken numbers of its own); returns their names.
  std::vector<std::string> PlantNumberedLinks(const char* prefix,
                                              const char* suffix) {
    uint64_t highest = 0;
    for (const std::string& name : ListDir(dbname_)) {
      const size_t digits = name.find_first_of("0123456789");
      if (digits != std::string::npos) {
        highest = std::max<uint64_t>(
            highest, std::strtoull(name.c_str() + digits, nullptr, 10));
      }
    }
    std::vector<std::string> names;
    for (uint64_t n = 1; n <= highest + kNumbers; n++) {
      const std::string name = Numbered(prefix, n, suffix);
      struct stat st;
      if (lstat((dbname_ + "/" + name).c_str(), &st) == 0) continue;
      PlantLink(name);
      names.push_back(name);
    }
    return names;
  }

  // Removes those of `names` that are still links.
  void RemoveLinks(const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      const std::string path = dbname_ + "/" + name;
      if (IsLink(path)) ASSERT_EQ(0, unlink(path.c_str())) << path;
    }
  }

  // `s` refuses a link in the database directory whose name contains
  // `name` (all of it for a fixed name; a prefix or a suffix for a
  // numbered one).
  void ExpectRefused(const leveldb::Status& s, const std::string& name) {
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    const std::string text = s.ToString();
    const size_t at = text.find(": a symbolic link, not followed");
    ASSERT_NE(std::string::npos, at) << text;
    EXPECT_NE(std::string::npos, text.find(dbname_ + "/")) << text;
    EXPECT_NE(std::string::npos, text.rfind(name, at)) << text;
  }

  void ExpectNothingOutside(const char* after) {
    EXPECT_TRUE(ListDir(outside_).empty())
        << after << " made " << ListDir(outside_).front()
        << " outside the database";
  }

  // What every refused write leaves: nothing made outside (by the step
  // `after` names), and once the links in `links` are gone the database
  // opens with keys [0, keys), every key it acknowledged.
  void ExpectIntactOnceLinksGone(const char* after,
                                 const std::vector<std::string>& links,
                                 int keys) {
    ExpectNothingOutside(after);
    ASSERT_NO_FATAL_FAILURE(RemoveLinks(links));
    ExpectKeys(keys);
  }

  static constexpr uint64_t kNumbers = 1000;
};

// A LOCK that links to where nothing is: taking the lock would create the
// file outside. Open and RepairDB refuse it and change nothing.
TEST_F(SymlinkWriteTest, LinkedLockFailsOpenAndRepair) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  ASSERT_EQ(0, unlink((dbname_ + "/LOCK").c_str()));
  ASSERT_NO_FATAL_FAILURE(PlantLink("LOCK"));
  const std::map<std::string, std::string> before = DbSnapshot(dbname_);

  leveldb::DB* db = nullptr;
  ExpectRefused(delsm::Open(options_, tuning_, dbname_, &db), "LOCK");
  EXPECT_EQ(nullptr, db);
  delete db;
  ExpectNothingOutside("Open");
  ExpectRefused(leveldb::RepairDB(dbname_, options_), "LOCK");
  ExpectNothingOutside("RepairDB");
  EXPECT_TRUE(DbSnapshot(dbname_) == before)
      << "a refused Open or RepairDB changed the database directory";

  ASSERT_EQ(0, unlink((dbname_ + "/LOCK").c_str()));
  ExpectKeys(kKeys);
}

// A new database's first manifest, and the temporary file CURRENT is
// written through, at names that are links: creating the database refuses
// each, and succeeds once it is gone.
TEST_F(SymlinkWriteTest, LinkedFirstManifestOrCurrentTempFailsCreation) {
  for (const std::string name : {"MANIFEST-000001", "000001.dbtmp"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(0, mkdir(dbname_.c_str(), 0755));
    ASSERT_NO_FATAL_FAILURE(PlantLink(name));
    leveldb::DB* db = nullptr;
    ExpectRefused(delsm::Open(options_, tuning_, dbname_, &db), name);
    EXPECT_EQ(nullptr, db);
    delete db;
    ExpectNothingOutside("creating the database");
    // The refused temporary file's name may have been removed (the link,
    // not what it points at) as any failed temporary file is.
    ASSERT_NO_FATAL_FAILURE(RemoveLinks({name}));
    ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &db));
    ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(0), SymlinkTestValue(0)));
    delete db;
    ExpectKeys(1);
    ASSERT_OK(leveldb::DestroyDB(dbname_, options_));
  }
}

// Open of an existing database writes a new manifest and points CURRENT at
// it through a temporary file. With links at every number either could
// take, Open fails naming the link, and the database still opens once the
// links are gone.
TEST_F(SymlinkWriteTest, LinkedNextManifestOrCurrentTempFailsOpen) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  const struct {
    const char* prefix;
    const char* suffix;
  } kinds[] = {{"MANIFEST-", ""}, {"", ".dbtmp"}};
  for (const auto& kind : kinds) {
    SCOPED_TRACE(std::string(kind.prefix) + kind.suffix);
    const std::vector<std::string> links =
        PlantNumberedLinks(kind.prefix, kind.suffix);
    leveldb::DB* db = nullptr;
    ExpectRefused(delsm::Open(options_, tuning_, dbname_, &db),
                  *kind.prefix != '\0' ? kind.prefix : kind.suffix);
    EXPECT_EQ(nullptr, db);
    delete db;
    ASSERT_NO_FATAL_FAILURE(ExpectIntactOnceLinksGone("Open", links, kKeys));
  }
}

// A WAL is made at each memtable switch, at the next file number. With
// links at every number, the write that needs the new WAL fails naming
// the link; what was acknowledged before is all there on the next Open.
TEST_F(SymlinkWriteTest, LinkedNextWalFailsTheWriteThatNeedsIt) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &db));
  const std::vector<std::string> links = PlantNumberedLinks("", ".log");
  int acknowledged = 0;
  leveldb::Status s;
  for (; acknowledged < 20 * kKeys; acknowledged++) {
    s = db->Put(leveldb::WriteOptions(), Key(acknowledged),
                SymlinkTestValue(acknowledged));
    if (!s.ok()) break;
  }
  ExpectRefused(s, ".log");
  delete db;
  ASSERT_NO_FATAL_FAILURE(
      ExpectIntactOnceLinksGone("writing", links, acknowledged));
}

// Close makes its clean-close marker through a temporary file at the next
// file number: with links there it makes no marker, and the next Open
// recovers as after a crash, every key there.
TEST_F(SymlinkWriteTest, LinkedCleanCloseTempLeavesNoMarker) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &db));
  ASSERT_OK(
      db->Put(leveldb::WriteOptions(), Key(kKeys), SymlinkTestValue(kKeys)));
  const std::vector<std::string> links = PlantNumberedLinks("", ".dbtmp");
  delete db;
  ASSERT_NO_FATAL_FAILURE(ExpectIntactOnceLinksGone("Close", links, kKeys + 1));
}

// LOG a link, and LOG.old a directory, so that LOG cannot be moved aside
// as usual: Open and RepairDB work without an info log rather than append
// to what LOG points at.
TEST_F(SymlinkWriteTest, LinkedLogIsNotAppendedTo) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  ASSERT_EQ(0, unlink((dbname_ + "/LOG").c_str()));
  unlink((dbname_ + "/LOG.old").c_str());
  ASSERT_EQ(0, mkdir((dbname_ + "/LOG.old").c_str(), 0755));
  ASSERT_NO_FATAL_FAILURE(PlantLink("LOG"));

  ExpectKeys(kKeys);
  ExpectNothingOutside("Open");
  ASSERT_OK(leveldb::RepairDB(dbname_, options_));
  ExpectNothingOutside("RepairDB");
  EXPECT_TRUE(IsLink(dbname_ + "/LOG"));
  ExpectKeys(kKeys);
}

// A level directory, or values/, that is a link to a directory outside:
// the SST directories or homes made there would be outside the database.
// Open refuses the link and changes nothing on either side of it.
TEST_F(SymlinkWriteTest, LinkedLevelDirectoryOrValuesFailsOpen) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  for (const std::string name : {"L0", "values"}) {
    SCOPED_TRACE(name);
    const std::string path = dbname_ + "/" + name;
    const std::string moved = outside_ + "/" + name;
    ASSERT_EQ(0, std::rename(path.c_str(), moved.c_str()));
    ASSERT_EQ(0, symlink(moved.c_str(), path.c_str()));
    const std::map<std::string, std::string> outside_before =
        TreeSnapshot(outside_);
    const std::map<std::string, std::string> db_before = DbSnapshot(dbname_);

    leveldb::DB* db = nullptr;
    leveldb::Status s = delsm::Open(options_, tuning_, dbname_, &db);
    if (s.ok()) {
      // Had Open taken the link, a flush would make its SST directory or
      // home through it.
      for (int i = 0; s.ok() && i < kKeys; i++) {
        s = db->Put(leveldb::WriteOptions(), Key(i), SymlinkTestValue(i));
      }
      delete db;
      ADD_FAILURE() << "Open took " << name << ", a link";
    }
    ExpectRefused(s, name);
    EXPECT_TRUE(TreeSnapshot(outside_) == outside_before)
        << "Open changed what " << name << " points at";
    EXPECT_TRUE(DbSnapshot(dbname_) == db_before)
        << "a refused Open changed the database directory";

    ASSERT_EQ(0, unlink(path.c_str()));
    ASSERT_EQ(0, std::rename(moved.c_str(), path.c_str()));
    ExpectKeys(kKeys);
  }
}

// RepairDB moves what it does not use (the old manifest, WALs) to lost/.
// With lost/ a link to a directory outside, that would move them out of
// the database: RepairDB refuses the link before it changes anything.
TEST_F(SymlinkWriteTest, LinkedLostFailsRepair) {
  ASSERT_NO_FATAL_FAILURE(MakeDatabase());
  ASSERT_EQ(0, symlink(outside_.c_str(), (dbname_ + "/lost").c_str()));
  const std::map<std::string, std::string> db_before = DbSnapshot(dbname_);

  ExpectRefused(leveldb::RepairDB(dbname_, options_), "lost");
  ExpectNothingOutside("RepairDB");
  EXPECT_TRUE(DbSnapshot(dbname_) == db_before)
      << "a refused RepairDB changed the database directory";

  ASSERT_EQ(0, unlink((dbname_ + "/lost").c_str()));
  ASSERT_OK(leveldb::RepairDB(dbname_, options_));
  ExpectKeys(kKeys);
}

}  // namespace
