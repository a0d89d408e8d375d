// DeLSM and databases written by real LevelDB:
// DB::Open and RepairDB convert them in place, or refuse those they cannot
// convert without changing a byte. The databases are made and read back by
// leveldb_oracle (Debian's LevelDB in its own process;
// tests/leveldb_oracle/).
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"

namespace {

using delsm_test::OracleFillKey;
using delsm_test::OracleFillValue;
using delsm_test::OracleHex;
using delsm_test::OracleRun;
using delsm_test::ParseOracleDump;
using delsm_test::ReadWholeFile;
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

// Copies the flat directory `from` (a LevelDB database has no
// subdirectories) to `to`, so LevelDB can read a copy without changing the
// original (opening replays and rewrites).
bool CopyFlatDir(const std::string& from, const std::string& to) {
  if (mkdir(to.c_str(), 0755) != 0) return false;
  for (const std::string& name : delsm_test::ListDir(from)) {
    if (name == "LOCK") continue;
    std::ifstream in(from + "/" + name, std::ios::binary);
    std::ofstream out(to + "/" + name, std::ios::binary);
    if (!in.is_open() || !out.is_open()) return false;
    // Block by block rather than `out << in.rdbuf()`, which fails on an
    // empty file (LevelDB leaves one: the WAL a reopen starts).
    char buf[1 << 16];
    while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
      out.write(buf, in.gcount());
    }
    if (in.bad() || !in.eof()) return false;
    out.close();
    if (!out.good()) return false;
  }
  return true;
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

  // What LevelDB reads from `path` (db_ by default).
  std::map<std::string, std::string> DumpWithLevelDb(
      std::string path = "", const std::vector<std::string>& flags = {}) {
    if (path.empty()) path = db_;
    std::vector<std::string> args = {"dump", path, "--verify_checksums"};
    args.insert(args.end(), flags.begin(), flags.end());
    OracleRun run = RunOracle(args, "", tmp_.path() + "/dump");
    std::map<std::string, std::string> contents;
    EXPECT_TRUE(run.ok) << run.err;
    EXPECT_TRUE(ParseOracleDump(run.out, &contents)) << run.out;
    return contents;
  }

  // What LevelDB reads from a copy of db_, leaving db_ as it is.
  std::map<std::string, std::string> DumpCopyWithLevelDb() {
    const std::string copy = tmp_.path() + "/copy" + std::to_string(copies_++);
    EXPECT_TRUE(CopyFlatDir(db_, copy));
    return DumpWithLevelDb(copy);
  }

  // Opens db_ with DeLSM and reads everything; the status of Open is kept
  // in *status (and the map is empty if it failed).
  std::map<std::string, std::string> ReadWithDelsm(leveldb::Status* status) {
    std::map<std::string, std::string> contents;
    leveldb::Options options;
    leveldb::DB* db = nullptr;
    *status = leveldb::DB::Open(options, db_, &db);
    if (!status->ok()) return contents;
    leveldb::Iterator* it = db->NewIterator(leveldb::ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      contents[it->key().ToString()] = it->value().ToString();
    }
    if (!it->status().ok()) *status = it->status();
    delete it;
    // Point reads agree with the scan.
    for (const auto& kv : contents) {
      std::string value;
      leveldb::Status s = db->Get(leveldb::ReadOptions(), kv.first, &value);
      if (!s.ok() || value != kv.second) {
        *status = leveldb::Status::Corruption("Get disagrees", kv.first);
        break;
      }
    }
    delete db;
    return contents;
  }

  // DeLSM's Open (with and without create_if_missing), and RepairDB unless
  // `repair_too` is false, refuse db_ with NotSupported whose text
  // contains `why`, and leave every byte of it as it was.
  void ExpectRefusedAndUntouched(const std::string& why,
                                 bool repair_too = true) {
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
      EXPECT_NE(std::string::npos, s.ToString().find(why)) << s.ToString();
      EXPECT_EQ(nullptr, db);
      delete db;
    }
    if (repair_too) {
      leveldb::Status s = leveldb::RepairDB(db_, leveldb::Options());
      EXPECT_TRUE(s.IsNotSupportedError()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find(why)) << s.ToString();
    }
    const std::map<std::string, std::string> after = Snapshot(db_);
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

  // After a conversion: none of LevelDB's tables or manifests and no
  // staging directory remain, and the LOG says what was converted.
  void ExpectConvertedLayout() {
    for (const std::string& name : delsm_test::ListDir(db_)) {
      EXPECT_EQ(std::string::npos, name.find(".ldb")) << name;
      EXPECT_NE("leveldb-conversion", name);
    }
    const std::string log =
        ReadWholeFile(db_ + "/LOG") + ReadWholeFile(db_ + "/LOG.old");
    EXPECT_NE(std::string::npos, log.find("LevelDB conversion: committed"))
        << log;
  }

  // RepairDB of db_ recovers exactly what LevelDB's RepairDB recovers from
  // a copy of it (LevelDB's repair, too, rebuilds from the tables and WALs
  // alone), and keeps LevelDB's tables in lost/.
  void ExpectRepairedAsLevelDbRepairs() {
    const std::string copy = tmp_.path() + "/copy" + std::to_string(copies_++);
    ASSERT_TRUE(CopyFlatDir(db_, copy));
    OracleRun run = RunOracle({"repair", copy}, "", tmp_.path() + "/repair");
    ASSERT_TRUE(run.ok) << run.err;
    const std::map<std::string, std::string> expected = DumpWithLevelDb(copy);
    ASSERT_FALSE(expected.empty());
    std::vector<std::string> tables;
    for (const std::string& name : delsm_test::ListDir(db_)) {
      if (name.find(".ldb") != std::string::npos) tables.push_back(name);
    }
    leveldb::Status s = leveldb::RepairDB(db_, leveldb::Options());
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(expected, ReadWithDelsm(&s));
    EXPECT_TRUE(s.ok()) << s.ToString();
    const std::vector<std::string> lost = delsm_test::ListDir(db_ + "/lost");
    for (const std::string& t : tables) {
      EXPECT_NE(lost.end(), std::find(lost.begin(), lost.end(), "leveldb-" + t))
          << t << " not kept in lost/";
    }
  }

  TempDir tmp_;
  std::string db_;
  int copies_ = 0;
};

std::map<std::string, std::string> FillContents(unsigned first, unsigned count,
                                                size_t size) {
  std::map<std::string, std::string> m;
  for (unsigned i = first; i < first + count; i++) {
    m[OracleFillKey(i)] = OracleFillValue(i, size);
  }
  return m;
}

// 8,000 keys in tables over several levels, plus a WAL: DeLSM converts it
// and reads what LevelDB reads; the result stays readable and writable.
TEST_F(LevelDbDatabase, WithTablesIsConverted) {
  Create("fill 0 6000 100\nflush\nfill 6000 2000 100\n",
         {"--write_buffer_size=65536", "--max_file_size=32768"});
  const auto leveldb_view = DumpCopyWithLevelDb();
  EXPECT_EQ(FillContents(0, 8000, 100), leveldb_view);
  leveldb::Status s;
  EXPECT_EQ(leveldb_view, ReadWithDelsm(&s));
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectConvertedLayout();
  leveldb::DB* db = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(leveldb::Options(), db_, &db).ok());
  ASSERT_TRUE(db->Put(leveldb::WriteOptions(), "after", "conversion").ok());
  delete db;
  auto want = leveldb_view;
  want["after"] = "conversion";
  EXPECT_EQ(want, ReadWithDelsm(&s));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Tables LevelDB wrote with snappy and without compression, on several
// levels, holding overwrites and deletions, and a WAL tail: DeLSM reads
// exactly what LevelDB reads, and its reader saw the blocks as compressed
// or not as the option said.
class LevelDbCompression : public LevelDbDatabase,
                           public testing::WithParamInterface<const char*> {};

TEST_P(LevelDbCompression, EveryLevelOverwritesDeletionsAndWalConverted) {
  const std::string compression = GetParam();
  std::map<std::string, std::string> want = FillContents(0, 5000, 100);
  // Session 1: a fill compacted down to the deeper levels.
  std::string commands = "fill 0 5000 100\nflush\n";
  // Session 2, over it: overwrites with other sizes, deletions, new keys;
  // its memtables become tables on the upper levels.
  commands += "fill 1000 1500 300\n";
  for (const auto& kv : FillContents(1000, 1500, 300))
    want[kv.first] = kv.second;
  for (unsigned i = 0; i < 5000; i += 7) {
    commands += "delete " + OracleHex(OracleFillKey(i)) + "\n";
    want.erase(OracleFillKey(i));
  }
  commands += "fill 5000 1000 200\n";
  for (const auto& kv : FillContents(5000, 1000, 200))
    want[kv.first] = kv.second;
  // Session 3: LevelDB's open makes session 2's WAL a table; these writes
  // stay in the WAL the close leaves.
  commands += "reopen\nfill 6000 50 100\nfill 0 20 50\n";
  for (const auto& kv : FillContents(6000, 50, 100)) want[kv.first] = kv.second;
  for (const auto& kv : FillContents(0, 20, 50)) want[kv.first] = kv.second;
  commands += "delete " + OracleHex(OracleFillKey(1001)) + "\n";
  want.erase(OracleFillKey(1001));
  Create(commands, {"--compression=" + compression, "--write_buffer_size=65536",
                    "--max_file_size=32768"});
  bool wal_tail = false;
  for (const std::string& name : delsm_test::ListDir(db_)) {
    struct stat st;
    ASSERT_EQ(0, stat((db_ + "/" + name).c_str(), &st)) << name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log" &&
        st.st_size > 0) {
      wal_tail = true;
    }
  }
  EXPECT_TRUE(wal_tail);

  const auto leveldb_view = DumpCopyWithLevelDb();
  EXPECT_EQ(want, leveldb_view);
  leveldb::Status s;
  EXPECT_EQ(want, ReadWithDelsm(&s));
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectConvertedLayout();

  // What the conversion read, from its LOG: tables from two levels or more,
  // and snappy blocks exactly when LevelDB was asked to compress.
  const std::string log =
      ReadWholeFile(db_ + "/LOG") + ReadWholeFile(db_ + "/LOG.old");
  std::set<char> levels;
  const std::string table_line = "LevelDB conversion: table #";
  for (size_t at = log.find(table_line); at != std::string::npos;
       at = log.find(table_line, at + 1)) {
    const size_t l = log.find("(L", at);
    ASSERT_NE(std::string::npos, l);
    levels.insert(log[l + 2]);
  }
  EXPECT_GE(levels.size(), 2u) << log;
  const size_t committed = log.find("LevelDB conversion: committed");
  ASSERT_NE(std::string::npos, committed);
  const size_t snappy = log.find(" snappy blocks", committed);
  ASSERT_NE(std::string::npos, snappy);
  const size_t number = log.rfind(' ', snappy - 1) + 1;
  const std::string snappy_blocks = log.substr(number, snappy - number);
  if (compression == "none") {
    EXPECT_EQ("0", snappy_blocks) << log;
  } else {
    EXPECT_NE("0", snappy_blocks) << log;
  }
}

INSTANTIATE_TEST_SUITE_P(SnappyAndNone, LevelDbCompression,
                         testing::Values("snappy", "none"));

// No table yet: only LevelDB's manifest tells the format.
TEST_F(LevelDbDatabase, EmptyIsConverted) {
  Create("");
  EXPECT_TRUE(DumpCopyWithLevelDb().empty());  // copies an empty WAL
  leveldb::Status s;
  EXPECT_TRUE(ReadWithDelsm(&s).empty());
  EXPECT_TRUE(s.ok()) << s.ToString();
  ExpectConvertedLayout();
}

// Data only in the WAL of a LevelDB that was not closed.
TEST_F(LevelDbDatabase, WithOnlyAWalIsConverted) {
  Create("fill 0 50 10\n", {"--no_close"});
  leveldb::Status s;
  EXPECT_EQ(FillContents(0, 50, 10), ReadWithDelsm(&s));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// RepairDB converts a LevelDB database rather than rebuilding over it.
TEST_F(LevelDbDatabase, RepairConverts) {
  Create("fill 0 3000 100\nflush\nfill 3000 100 100\n", {"--no_close"});
  leveldb::Status s = leveldb::RepairDB(db_, leveldb::Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectConvertedLayout();
  EXPECT_EQ(FillContents(0, 3100, 100), ReadWithDelsm(&s));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// Written with a comparator DeLSM is not given: refused, nothing changed,
// and LevelDB (with that comparator) still reads all of it.
TEST_F(LevelDbDatabase, CustomComparatorIsRefused) {
  Create("fill 0 2000 100\nflush\nfill 2000 10 100\n",
         {"--reverse_comparator"});
  ExpectRefusedAndUntouched("comparator 'delsm_test.ReverseBytewise'");
  EXPECT_EQ(FillContents(0, 2010, 100),
            DumpWithLevelDb(db_, {"--reverse_comparator"}));
}

// A LevelDB database whose manifest is lost (CURRENT gone): its tables
// still identify it, and Open does not turn them into nothing; RepairDB
// rebuilds it from them, as LevelDB's RepairDB does.
TEST_F(LevelDbDatabase, WithoutCurrentOpenRefusesRepairRebuilds) {
  Create("fill 0 2000 100\nflush\nfill 2000 100 100\n", {"--no_close"});
  ASSERT_EQ(0, unlink((db_ + "/CURRENT").c_str()));
  ExpectRefusedAndUntouched("no CURRENT file", /*repair_too=*/false);
  ExpectRepairedAsLevelDbRepairs();
}

// A table the manifest lists is gone: Open refuses before anything
// changes; RepairDB keeps what the other tables and the WAL hold, as
// LevelDB's RepairDB does.
TEST_F(LevelDbDatabase, WithMissingTableOpenRefusesRepairRebuilds) {
  Create(
      "fill 0 2000 100\nflush\nfill 2000 1000 100\nflush\n"
      "fill 3000 100 100\n",
      {"--no_close"});
  std::string table;
  for (const std::string& name : delsm_test::ListDir(db_)) {
    if (name.find(".ldb") != std::string::npos) table = name;
  }
  ASSERT_FALSE(table.empty());
  ASSERT_EQ(0, unlink((db_ + "/" + table).c_str()));
  ExpectRefusedAndUntouched(table + " listed in", /*repair_too=*/false);
  ExpectRepairedAsLevelDbRepairs();
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
