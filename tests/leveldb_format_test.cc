// DeLSM and databases written by real LevelDB (issue 10, item 3). The
// databases are made and read back by leveldb_oracle (Debian's LevelDB in
// its own process; tests/leveldb_oracle/).
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "db/db_format.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"

namespace {

using delsm_test::OracleFillKey;
using delsm_test::OracleFillValue;
using delsm_test::OracleHex;
using delsm_test::OracleRun;
using delsm_test::ParseOracleDump;
using delsm_test::RunOracle;
using delsm_test::TempDir;

// The oracle itself: what it writes with LevelDB, LevelDB reads back, across
// flushes, reopens, deletions and arbitrary key bytes.
TEST(LevelDbOracle, CreatesAndDumpsWithRealLevelDb) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string db = tmp.path() + "/ldb";
  const std::string odd_key("a\0/%\xff", 5);
  std::string commands = "fill 0 300 100\nflush\n";
  commands += "put " + OracleHex(odd_key) + " " + OracleHex("odd") + "\n";
  commands += "put " + OracleHex("empty") + " -\n";
  commands += "reopen\ndelete " + OracleHex(OracleFillKey(7)) + "\n";
  OracleRun run = RunOracle({"create", db, "--write_buffer_size=65536"},
                            commands, tmp.path() + "/create");
  ASSERT_TRUE(run.ok) << run.err;
  run = RunOracle({"dump", db, "--verify_checksums"}, "", tmp.path() + "/dump");
  ASSERT_TRUE(run.ok) << run.err;
  std::map<std::string, std::string> got;
  ASSERT_TRUE(ParseOracleDump(run.out, &got)) << run.out;
  std::map<std::string, std::string> want;
  for (unsigned i = 0; i < 300; i++) {
    if (i != 7) want[OracleFillKey(i)] = OracleFillValue(i, 100);
  }
  want[odd_key] = "odd";
  want["empty"] = "";
  EXPECT_EQ(want, got);
  // A bad command fails the run rather than being skipped.
  run = RunOracle({"create", db}, "frobnicate\n", tmp.path() + "/bad");
  EXPECT_FALSE(run.ok);
}

// Every file and directory below `root`: relative path -> contents ("<dir>"
// for directories), to show a refused operation changed nothing.
void SnapshotTree(const std::string& root, const std::string& rel,
                  std::map<std::string, std::string>* out) {
  for (const std::string& name : delsm_test::ListDir(root + rel)) {
    const std::string path = rel + "/" + name;
    struct stat st;
    ASSERT_EQ(0, lstat((root + path).c_str(), &st)) << path;
    if (S_ISDIR(st.st_mode)) {
      (*out)[path] = "<dir>";
      SnapshotTree(root, path, out);
    } else {
      std::ifstream in(root + path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      (*out)[path] = text.str();
    }
  }
}

std::map<std::string, std::string> Snapshot(const std::string& root) {
  std::map<std::string, std::string> files;
  SnapshotTree(root, "", &files);
  return files;
}

class LevelDbDatabase : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    db_ = tmp_.path() + "/ldb";
  }

  // Makes db_ with LevelDB from oracle `commands`.
  void Create(const std::string& commands,
              const std::vector<std::string>& flags = {}) {
    std::vector<std::string> args = {"create", db_};
    args.insert(args.end(), flags.begin(), flags.end());
    OracleRun run = RunOracle(args, commands, tmp_.path() + "/create");
    ASSERT_TRUE(run.ok) << run.err;
  }

  // What LevelDB reads from db_.
  std::map<std::string, std::string> DumpWithLevelDb() {
    OracleRun run = RunOracle({"dump", db_, "--verify_checksums"}, "",
                              tmp_.path() + "/dump");
    std::map<std::string, std::string> contents;
    EXPECT_TRUE(run.ok) << run.err;
    EXPECT_TRUE(ParseOracleDump(run.out, &contents)) << run.out;
    return contents;
  }

  // DeLSM's Open (with and without create_if_missing) and RepairDB refuse
  // db_ naming LevelDB, and leave every byte of it as it was.
  void ExpectRefusedAndUntouched() {
    const std::map<std::string, std::string> before = Snapshot(db_);
    ASSERT_FALSE(before.empty());
    for (bool create : {false, true}) {
      leveldb::Options options;
      options.create_if_missing = create;
      leveldb::DB* db = nullptr;
      leveldb::Status s = leveldb::DB::Open(options, db_, &db);
      EXPECT_TRUE(s.IsNotSupportedError()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find("is a LevelDB database"))
          << s.ToString();
      EXPECT_EQ(std::string::npos, s.ToString().find("Corruption"))
          << s.ToString();
      EXPECT_EQ(nullptr, db);
      delete db;
    }
    leveldb::Status s = leveldb::RepairDB(db_, leveldb::Options());
    EXPECT_TRUE(s.IsNotSupportedError()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("is a LevelDB database"))
        << s.ToString();
    const std::map<std::string, std::string> after = Snapshot(db_);
    EXPECT_TRUE(before == after) << "files changed";
    for (const auto& f : before) {
      auto it = after.find(f.first);
      if (it == after.end()) {
        ADD_FAILURE() << f.first << " removed";
      } else if (it->second != f.second) {
        ADD_FAILURE() << f.first << " changed";
      }
    }
    for (const auto& f : after) {
      if (before.count(f.first) == 0) ADD_FAILURE() << f.first << " added";
    }
  }

  TempDir tmp_;
  std::string db_;
};

std::map<std::string, std::string> FillContents(unsigned first, unsigned count,
                                                size_t size) {
  std::map<std::string, std::string> m;
  for (unsigned i = first; i < first + count; i++) {
    m[OracleFillKey(i)] = OracleFillValue(i, size);
  }
  return m;
}

// The case: 20,000 keys in tables over several levels, plus a WAL.
TEST_F(LevelDbDatabase, WithTablesIsRefusedAndLeftReadable) {
  Create("fill 0 15000 100\nflush\nfill 15000 5000 100\n",
         {"--write_buffer_size=262144", "--max_file_size=131072"});
  ExpectRefusedAndUntouched();
  EXPECT_EQ(FillContents(0, 20000, 100), DumpWithLevelDb());
}

// No table yet: only LevelDB's manifest tells the format.
TEST_F(LevelDbDatabase, EmptyIsRefused) {
  Create("");
  ExpectRefusedAndUntouched();
  EXPECT_TRUE(DumpWithLevelDb().empty());
}

// Data only in the WAL of a LevelDB that was not closed.
TEST_F(LevelDbDatabase, WithOnlyAWalIsRefused) {
  Create("fill 0 50 10\n", {"--no_close"});
  ExpectRefusedAndUntouched();
  EXPECT_EQ(FillContents(0, 50, 10), DumpWithLevelDb());
}

// A LevelDB database whose manifest is lost (CURRENT gone): its tables
// still identify it, and RepairDB must not turn them into nothing.
TEST_F(LevelDbDatabase, WithoutCurrentIsRefusedByRepair) {
  Create("fill 0 2000 100\nflush\n");
  ASSERT_EQ(0, unlink((db_ + "/CURRENT").c_str()));
  const std::map<std::string, std::string> before = Snapshot(db_);
  leveldb::Status s = leveldb::RepairDB(db_, leveldb::Options());
  EXPECT_TRUE(s.IsNotSupportedError()) << s.ToString();
  EXPECT_TRUE(before == Snapshot(db_)) << "files changed";
}

// The other direction: DeLSM's manifest tags are not LevelDB's, so a DeLSM
// database is recognised as DeLSM's and LevelDB refuses it instead of
// misreading it.
TEST(DelsmManifest, IsNotReadAsLevelDb) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string path = tmp.path() + "/delsm";
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(options, path, &db).ok());
  ASSERT_TRUE(db->Put(leveldb::WriteOptions(), "k", "v").ok());
  db->CompactRange(nullptr, nullptr);
  delete db;
  db = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(options, path, &db).ok());  // a new manifest
  delete db;
  leveldb::DatabaseFormat format;
  std::string evidence;
  ASSERT_TRUE(leveldb::DetectDatabaseFormat(leveldb::Env::Default(), path,
                                            &format, &evidence)
                  .ok());
  EXPECT_EQ(leveldb::DatabaseFormat::kDelsm, format) << evidence;
  OracleRun run = RunOracle({"dump", path}, "", tmp.path() + "/dump");
  EXPECT_FALSE(run.ok) << run.out;
}

}  // namespace
