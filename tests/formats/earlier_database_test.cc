// A database made at a path where an earlier one was destroyed must not
// be judged by the earlier one's records. DestroyDB leaves lost/ (as
// LevelDB's does), and lost/ may hold the earlier database's DeLSM
// manifests (DeLSM's RepairDB links the manifests it replaces there).
// Those record SSTs as replaced by number; should the new database's SSTs
// get the same numbers, a repair that reads the old manifests (the taking
// in of LevelDB's tables brings DeLSM's manifests back from lost/) would
// set the new SSTs aside as replaced and lose every key in them.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "db/manifest_numbers.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/read_error_env.h"
#include "tests/db_options.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

constexpr int kKeys = 200;

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string Value(int i, const std::string& generation) {
  return generation + "-" + Key(i) + std::string(100, 'v');
}

// How many of the kKeys keys do not read as `generation` wrote them.
int KeysMissing(DB* db, const std::string& generation) {
  int missing = 0;
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (!s.ok() || v != Value(i, generation)) missing++;
  }
  return missing;
}

// One session: every key written with `generation`'s values, flushed and
// compacted into L1 (a second session replaces the first one's L1 SSTs).
void WriteAndCompact(const std::string& dbname, const std::string& generation) {
  Options options;
  options.create_if_missing = true;
  DB* raw = nullptr;
  Status s =
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  DBImpl* impl = static_cast<DBImpl*>(raw);
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i, generation)).ok());
  }
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
}

// The earlier database at `dbname`, in two sessions: the second one's L1
// SSTs replace the first one's, and DeLSM's RepairDB puts the manifest
// recording that in lost/ (the second session's: its number is not a new
// database's first manifest's, which LevelDB's RepairDB moves to lost/
// too); then DestroyDB, which leaves lost/.
void LeaveEarlierDatabasesManifestInLost(const std::string& dbname) {
  WriteAndCompact(dbname, "earlier");
  if (testing::Test::HasFatalFailure()) return;
  WriteAndCompact(dbname, "later");
  if (testing::Test::HasFatalFailure()) return;
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = DestroyDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// LevelDB's RepairDB (another process), then DeLSM's, which takes in what
// LevelDB's left and brings DeLSM's manifests back from lost/; then the
// database opened.
void RepairAfterLevelDbsRepair(const std::string& tmp,
                               const std::string& dbname,
                               std::unique_ptr<DB>* db) {
  const delsm_test::OracleRun repaired =
      delsm_test::RunOracle({"repair", dbname}, "", tmp + "/oracle");
  ASSERT_TRUE(repaired.ok) << repaired.err;
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  DB* raw = nullptr;
  s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db->reset(raw);
}

TEST(EarlierDatabaseTest, ItsManifestInLostSetsNoSstOfTheNewOneAside) {
  delsm_test::TempDir tmp("delsm_earlier_database");
  const std::string dbname = tmp.path() + "/db";
  LeaveEarlierDatabasesManifestInLost(dbname);
  if (HasFatalFailure()) return;
  // The new database, written as the earlier one's first session was.
  WriteAndCompact(dbname, "new");
  if (HasFatalFailure()) return;
  std::unique_ptr<DB> db;
  RepairAfterLevelDbsRepair(tmp.path(), dbname, &db);
  if (HasFatalFailure()) return;
  EXPECT_EQ(0, KeysMissing(db.get(), "new"))
      << "keys of the new database lost or wrong";
}

// The same with the new database made by DeLSM's RepairDB, not by Open:
// a repair of the destroyed path (nothing but lost/ and the LOG there)
// commits an empty database whose numbers, had they come only from the
// directory's files, would start from scratch, and the Open that follows
// reads CURRENT and makes no new database (NewDB).
TEST(EarlierDatabaseTest, ItsManifestInLostSetsNoSstOfARepairedOneAside) {
  delsm_test::TempDir tmp("delsm_earlier_database");
  const std::string dbname = tmp.path() + "/db";
  LeaveEarlierDatabasesManifestInLost(dbname);
  if (HasFatalFailure()) return;
  // The new database: a repair of the path, then written as the earlier
  // one's first session was.
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(Env::Default()->FileExists(dbname + "/CURRENT"));
  WriteAndCompact(dbname, "new");
  if (HasFatalFailure()) return;
  std::unique_ptr<DB> db;
  RepairAfterLevelDbsRepair(tmp.path(), dbname, &db);
  if (HasFatalFailure()) return;
  EXPECT_EQ(0, KeysMissing(db.get(), "new"))
      << "keys of the repaired database lost or wrong";
}

// The same with a LevelDB database made at the path: DeLSM's conversion
// of it must not give its SSTs numbers the earlier manifest names (LevelDB
// numbers its tables from 2 up, as it pleases).
TEST(EarlierDatabaseTest, ItsManifestInLostSetsNoConvertedSstAside) {
  delsm_test::TempDir tmp("delsm_earlier_database");
  const std::string dbname = tmp.path() + "/db";
  LeaveEarlierDatabasesManifestInLost(dbname);
  if (HasFatalFailure()) return;
  // LevelDB's database, converted by DeLSM's Open. Its tables' numbers run
  // past the earlier manifest's (a reopen between flushes, so both odd and
  // even numbers are taken).
  std::string commands;
  for (int round = 0; round < 8; round++) {
    commands += "fill " + std::to_string(round * 25) + " 25 100\nflush\n";
    if (round % 2 == 1) commands += "reopen\n";
  }
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", dbname}, commands, tmp.path() + "/create");
  ASSERT_TRUE(made.ok) << made.err;
  {
    DB* raw = nullptr;
    Status s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(),
                           dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    delete raw;
  }
  std::unique_ptr<DB> db;
  RepairAfterLevelDbsRepair(tmp.path(), dbname, &db);
  if (HasFatalFailure()) return;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  int found = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) found++;
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(8 * 25, found) << "keys of the converted database lost";
}

// LevelDB's tables in the directory: their numbers (NNNNNN.ldb), sorted.
std::vector<uint64_t> LevelDbTables(const std::string& dbname) {
  std::vector<std::string> names;
  std::vector<uint64_t> tables;
  EXPECT_TRUE(Env::Default()->GetChildren(dbname, &names).ok());
  for (const std::string& name : names) {
    uint64_t number;
    if (ParseLevelDbTableFileName(name, &number)) tables.push_back(number);
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

// A renumbered L0 SST must not read as newer than it is. Two overlapping
// LevelDB L0 tables, the older numbered below the bound of lost/'s
// manifests and the newer at or past it: the conversion gives the older
// one a fresh number, above the newer one's. Overlapping L0 SSTs are
// ordered by their recorded sequence ranges (SortNewestFirst in
// db/version.cc), so the newer value still answers.
TEST(EarlierDatabaseTest, RenumberedOlderL0TableDoesNotHideANewerOne) {
  delsm_test::TempDir tmp("delsm_earlier_database");
  const std::string dbname = tmp.path() + "/db";
  LeaveEarlierDatabasesManifestInLost(dbname);
  if (HasFatalFailure()) return;
  uint64_t bound = 0;
  Status s =
      DirectoryManifestsNumberBound(Env::Default(), dbname + "/lost", &bound);
  ASSERT_TRUE(s.ok()) << s.ToString();

  // LevelDB writes the recovered WAL of each reopen as an L0 table. The
  // older table: "k" = old, "only-old" = kept.
  const std::string put_old = "put " + Hex("k") + " " + Hex("old") + "\nput " +
                              Hex("only-old") + " " + Hex("kept") +
                              "\nreopen\n";
  delsm_test::OracleRun run = delsm_test::RunOracle({"create", dbname}, put_old,
                                                    tmp.path() + "/create");
  ASSERT_TRUE(run.ok) << run.err;
  std::vector<uint64_t> tables = LevelDbTables(dbname);
  ASSERT_EQ(1u, tables.size());
  const uint64_t older = tables[0];
  ASSERT_LT(older, bound) << "the older table must be renumbered";
  // Opens that write nothing take numbers (a manifest, a WAL) until the
  // next table's number reaches the bound: it is past every file's.
  for (int i = 0; i < 100; i++) {
    std::vector<std::string> names;
    ASSERT_TRUE(Env::Default()->GetChildren(dbname, &names).ok());
    uint64_t highest = 0;
    for (const std::string& name : names) {
      uint64_t number;
      FileType type;
      if (ParseFileName(name, &number, &type)) {
        highest = std::max(highest, number);
      }
    }
    if (highest + 1 >= bound) break;
    run = delsm_test::RunOracle({"create", dbname}, "", tmp.path() + "/open");
    ASSERT_TRUE(run.ok) << run.err;
  }
  run = delsm_test::RunOracle(
      {"create", dbname}, "put " + Hex("k") + " " + Hex("new") + "\nreopen\n",
      tmp.path() + "/create2");
  ASSERT_TRUE(run.ok) << run.err;
  tables = LevelDbTables(dbname);
  ASSERT_EQ(2u, tables.size()) << "both tables in L0, not compacted";
  ASSERT_EQ(older, tables[0]);
  const uint64_t newer = tables[1];
  ASSERT_GE(newer, bound) << "the newer table must keep its number";

  DB* raw = nullptr;
  s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  // The older table took a number above the newer one's.
  std::vector<std::string> l0;
  ASSERT_TRUE(Env::Default()->GetChildren(LevelDirName(dbname, 0), &l0).ok());
  std::vector<uint64_t> ssts;
  for (const std::string& name : l0) {
    uint64_t number;
    if (ParseSstDirName(name, &number)) ssts.push_back(number);
  }
  std::sort(ssts.begin(), ssts.end());
  ASSERT_EQ(2u, ssts.size());
  ASSERT_EQ(newer, ssts[0]);
  ASSERT_GT(ssts[1], newer);

  std::string v;
  s = db->Get(ReadOptions(), "k", &v);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("new", v);
  s = db->Get(ReadOptions(), "only-old", &v);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("kept", v);
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  it->Seek("k");
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("k", it->key().ToString());
  EXPECT_EQ("new", it->value().ToString());
}

// A manifest in lost/ that cannot be read (EIO) leaves the numbers it
// names unknown: the Open that would make a new database fails, and
// makes none (no CURRENT), rather than number SSTs the manifest may name.
TEST(EarlierDatabaseTest, UnreadableManifestInLostFailsTheNewDatabase) {
  delsm_test::TempDir tmp("delsm_earlier_database");
  const std::string dbname = tmp.path() + "/db";
  LeaveEarlierDatabasesManifestInLost(dbname);
  if (HasFatalFailure()) return;

  ReadErrorEnv env(Env::Default());
  env.set_failing_reads("/lost/MANIFEST-");
  Options options;
  options.env = &env;
  options.create_if_missing = true;
  DB* raw = nullptr;
  Status s =
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
  std::unique_ptr<DB> db(raw);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_FALSE(Env::Default()->FileExists(dbname + "/CURRENT"));
}

// A RepairDB of such a path whose manifest in lost/ cannot be read (EIO)
// fails, having made nothing (no CURRENT, no level directory), rather
// than number its SSTs without knowing what that manifest names.
TEST(EarlierDatabaseTest, UnreadableManifestInLostFailsTheRepair) {
  delsm_test::TempDir tmp("delsm_earlier_database");
  const std::string dbname = tmp.path() + "/db";
  LeaveEarlierDatabasesManifestInLost(dbname);
  if (HasFatalFailure()) return;

  ReadErrorEnv env(Env::Default());
  env.set_failing_reads("/lost/MANIFEST-");
  Options options;
  options.env = &env;
  Status s = RepairDB(dbname, options);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_FALSE(Env::Default()->FileExists(dbname + "/CURRENT"));
  EXPECT_FALSE(Env::Default()->FileExists(LevelDirName(dbname, 0)));
}

}  // namespace
}  // namespace leveldb
