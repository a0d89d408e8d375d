// A file named lost in a database directory, where DeLSM's RepairDB keeps a
// directory lost/: not DeLSM's (DeLSM makes lost/ only as a directory), so
// the user's, and left as it is. LevelDB 1.23's DB::Open does not look at
// it (Debian's LevelDB, tests/leveldb_oracle, in its own process); nor
// does DeLSM's beyond the directory's manifests, and a file holds none:
//   * Open with create_if_missing makes a new database beside it, and
//     Open converts a LevelDB database beside it;
//   * what would put files into lost/ (RepairDB, and the taking in of
//     LevelDB's tables it runs) fails with an IOError naming it, before
//     it changes anything the database holds;
//   * DestroyDB leaves it, as it leaves lost/.
// In every case the file keeps its bytes. A symbolic link named lost, to a
// directory outside the database, is not followed when Open reads the
// manifests' numbers: Open makes a database, or converts a LevelDB one,
// beside it, and it stays a link to what it pointed at.
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/oracle_fill_check.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

constexpr char kUsersBytes[] = "the user's own file, named lost\n";
constexpr int kFlushedKeys = 300;  // in LevelDB's tables
constexpr int kKeys = 350;         // the last 50 in its WAL only
constexpr size_t kValueSize = 100;

class LostFileTest : public testing::Test {
 protected:
  LostFileTest() : tmp_("delsm_lost_file"), dbname_(tmp_.path() + "/db") {}

  // The database directory, holding only the file named lost.
  void MakeDirectoryWithLostFile() {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_TRUE(Env::Default()->CreateDir(dbname_).ok());
    ASSERT_TRUE(delsm_test::WriteWhole(lost(), kUsersBytes));
  }

  // A LevelDB database written by Debian's LevelDB beside the file.
  void MakeLevelDbDatabase() {
    ASSERT_NO_FATAL_FAILURE(MakeDirectoryWithLostFile());
    const std::string commands =
        delsm_test::OracleTableAndWalCommands(kFlushedKeys, kKeys, kValueSize);
    const delsm_test::OracleRun made = delsm_test::RunOracle(
        {"create", dbname_}, commands, tmp_.path() + "/create");
    ASSERT_TRUE(made.ok) << "LevelDB beside a file named lost: " << made.err;
  }

  // A DeLSM database of kKeys keys, the file named lost put in afterwards.
  void MakeDelsmDatabase() {
    ASSERT_FALSE(tmp_.path().empty());
    Options options;
    options.create_if_missing = true;
    DB* raw = nullptr;
    Status s = DB::Open(options, dbname_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kKeys; i++) {
      s = db->Put(WriteOptions(), delsm_test::OracleFillKey(i),
                  delsm_test::OracleFillValue(i, kValueSize));
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    db.reset();
    ASSERT_TRUE(delsm_test::WriteWhole(lost(), kUsersBytes));
  }

  // The database's state without the files every call rewrites (the
  // info LOG, rotated, and the LOCK).
  std::map<std::string, std::string> Snapshot() const {
    std::map<std::string, std::string> snap = delsm_test::TreeSnapshot(dbname_);
    snap.erase("");  // the directory's own mtime moves with the LOG
    snap.erase("/LOG");
    snap.erase("/LOG.old");
    snap.erase("/LOCK");
    return snap;
  }

  std::string lost() const { return dbname_ + "/lost"; }

  void ExpectLostFileKept(const Status& s) {
    std::string bytes;
    EXPECT_TRUE(delsm_test::ReadWhole(lost(), &bytes) && bytes == kUsersBytes)
        << "the file named lost was changed (" << s.ToString() << ")";
  }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
};

TEST_F(LostFileTest, OpenMakesADatabaseBesideIt) {
  // LevelDB's Open does.
  const std::string leveldb_dir = tmp_.path() + "/leveldb";
  ASSERT_TRUE(Env::Default()->CreateDir(leveldb_dir).ok());
  ASSERT_TRUE(delsm_test::WriteWhole(leveldb_dir + "/lost", kUsersBytes));
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", leveldb_dir}, "put 6b 76\n", tmp_.path() + "/create");
  ASSERT_TRUE(made.ok) << "LevelDB beside a file named lost: " << made.err;

  ASSERT_NO_FATAL_FAILURE(MakeDirectoryWithLostFile());
  Options options;
  options.create_if_missing = true;
  DB* raw = nullptr;
  Status s = DB::Open(options, dbname_, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  ASSERT_TRUE(db->Put(WriteOptions(), "k", "v").ok());
  db.reset();
  s = DB::Open(Options(), dbname_, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db.reset(raw);
  std::string v;
  s = db->Get(ReadOptions(), "k", &v);
  EXPECT_TRUE(s.ok() && v == "v") << s.ToString();
  db.reset();
  ExpectLostFileKept(s);
}

TEST_F(LostFileTest, OpenConvertsALevelDbDatabaseBesideIt) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  EXPECT_EQ("", delsm_test::CheckOracleFill(dbname_, kKeys, kValueSize));
  ExpectLostFileKept(Status::OK());
}

TEST_F(LostFileTest, RepairDbFailsChangingNothing) {
  ASSERT_NO_FATAL_FAILURE(MakeDelsmDatabase());
  const auto before = Snapshot();
  const Status s = RepairDB(dbname_, Options());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(lost())) << s.ToString();
  EXPECT_TRUE(before == Snapshot()) << "RepairDB changed the database";
  ExpectLostFileKept(s);
  EXPECT_EQ("", delsm_test::CheckOracleFill(dbname_, kKeys, kValueSize));
}

// RepairDB on a LevelDB database without CURRENT takes in its tables,
// moving LevelDB's files into lost/: refused before anything moves, and
// once the file is out of the way, RepairDB recovers every key.
TEST_F(LostFileTest, TakeInOfLevelDbTablesFailsChangingNothing) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  ASSERT_TRUE(Env::Default()->RemoveFile(dbname_ + "/CURRENT").ok());
  const auto before = Snapshot();
  const Status s = RepairDB(dbname_, Options());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(lost())) << s.ToString();
  EXPECT_TRUE(before == Snapshot()) << "RepairDB changed the database";
  ExpectLostFileKept(s);

  ASSERT_TRUE(
      Env::Default()->RenameFile(lost(), tmp_.path() + "/kept-lost").ok());
  const Status repaired = RepairDB(dbname_, Options());
  ASSERT_TRUE(repaired.ok()) << repaired.ToString();
  EXPECT_EQ("", delsm_test::CheckOracleFill(dbname_, kKeys, kValueSize));
}

// A symbolic link named lost, to a directory outside the database, is not
// followed either (nothing follows a path out of the database directory):
// what that directory holds is not the database's, and RepairDB and the
// take-in, which would bring manifests back from lost/, refuse a link
// there. Here it holds an entry named as a manifest that does not read as
// one (a directory): read through the link, it failed the Open.
class LostLinkTest : public LostFileTest {
 protected:
  // Replaces the file named lost with the link.
  void MakeLostALink() {
    ASSERT_TRUE(Env::Default()->RemoveFile(lost()).ok());
    ASSERT_TRUE(Env::Default()->CreateDir(outside()).ok());
    ASSERT_TRUE(Env::Default()->CreateDir(outside() + "/MANIFEST-000009").ok());
    ASSERT_EQ(0, symlink(outside().c_str(), lost().c_str()));
  }

  void ExpectLinkKept() {
    struct stat st;
    EXPECT_TRUE(lstat(lost().c_str(), &st) == 0 && S_ISLNK(st.st_mode))
        << lost() << " is no longer a link";
    EXPECT_EQ(std::vector<std::string>{"MANIFEST-000009"},
              delsm_test::ListDir(outside()));
  }

  std::string outside() const { return tmp_.path() + "/outside"; }
};

TEST_F(LostLinkTest, OpenMakesADatabaseBesideIt) {
  ASSERT_NO_FATAL_FAILURE(MakeDirectoryWithLostFile());
  ASSERT_NO_FATAL_FAILURE(MakeLostALink());
  // LevelDB's Open does.
  const std::string leveldb_dir = tmp_.path() + "/leveldb";
  ASSERT_TRUE(Env::Default()->CreateDir(leveldb_dir).ok());
  ASSERT_EQ(0, symlink(outside().c_str(), (leveldb_dir + "/lost").c_str()));
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", leveldb_dir}, "put 6b 76\n", tmp_.path() + "/create");
  ASSERT_TRUE(made.ok) << "LevelDB beside a link named lost: " << made.err;

  Options options;
  options.create_if_missing = true;
  DB* raw = nullptr;
  Status s = DB::Open(options, dbname_, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  ASSERT_TRUE(db->Put(WriteOptions(), "k", "v").ok());
  db.reset();
  s = DB::Open(Options(), dbname_, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db.reset(raw);
  std::string v;
  s = db->Get(ReadOptions(), "k", &v);
  EXPECT_TRUE(s.ok() && v == "v") << s.ToString();
  db.reset();
  ExpectLinkKept();
}

TEST_F(LostLinkTest, OpenConvertsALevelDbDatabaseBesideIt) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  ASSERT_NO_FATAL_FAILURE(MakeLostALink());
  EXPECT_EQ("", delsm_test::CheckOracleFill(dbname_, kKeys, kValueSize));
  ExpectLinkKept();
}

TEST_F(LostFileTest, DestroyDbLeavesIt) {
  ASSERT_NO_FATAL_FAILURE(MakeDelsmDatabase());
  Status s = DestroyDB(dbname_, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectLostFileKept(s);
  EXPECT_EQ(std::vector<std::string>{"lost"}, delsm_test::ListDir(dbname_));
}

}  // namespace
}  // namespace leveldb
