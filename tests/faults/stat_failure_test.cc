// Lifecycle calls (DB::Open, RepairDB, and what they run: the conversion
// of a LevelDB database, RepairDB's taking in of LevelDB's tables, DeLSM's
// repair) when the lookup of a path fails: lstat, access(2) or stat(2)
// answering EIO, as for an inode that cannot be read (the FileSystem's
// lookups through tests/stat_failing_file_system.h, the Env's through
// testing/read_error_env.h). A failed lookup proves neither absence nor
// presence. Each test fails the lookups of one kind of path during one
// call, and the call must not act on the lookup's answer:
//  - staged SSTs, the staging directory, a LevelDB table, CURRENT, values/:
//    taken for absent (a staged SST for placed, a table for moved or
//    removed, CURRENT or the staging directory for none), they would lead
//    the call to remove or leave behind the only copy of keys, to make a
//    new database over or beside the old one, or to repair without the
//    values; the call fails instead, or does what the path being there
//    calls for;
//  - names lost/ or the database directory already holds: what is moved
//    there (a LevelDB table, a stray file in a level directory, a DeLSM
//    manifest brought back from lost/) replaces nothing;
//  - the stat of a LevelDB table: the conversion fails with an IOError
//    naming it, not a Corruption calling it missing, so that a failing
//    disk can be told from a damaged database, and changes nothing.
// Each then does what the directory allows with the file system whole
// again (Open, or RepairDB where Open refuses) and must read every key
// written before: by Debian's LevelDB (tests/leveldb_oracle, its own
// process) in StagedSstStatTest, by DeLSM (a database of KV files) in
// RepairStatTest.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "testing/read_error_env.h"
#include "tests/faults/kv_file_database.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/oracle_fill_check.h"
#include "tests/stat_failing_file_system.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

using delsm_test::OracleFillKey;
using delsm_test::OracleFillValue;

constexpr int kFlushedKeys = 300;  // in LevelDB's tables
constexpr int kKeys = 350;         // the last 50 in its WAL only
constexpr int kValueSize = 100;

class StagedSstStatTest : public testing::Test {
 protected:
  StagedSstStatTest()
      : tmp_("delsm_staged_stat"),
        dbname_(tmp_.path() + "/db"),
        staged_(dbname_ + "/leveldb-conversion/0") {}

  // Debian's LevelDB writes the database: kFlushedKeys keys into tables
  // (in `tables` rounds of disjoint keys, each compacted on its own: one
  // table each), then the rest into its WAL.
  void MakeLevelDbDatabase(int tables = 1) {
    std::string script;
    for (int t = 0; t < tables; t++) {
      const int first = kFlushedKeys * t / tables;
      const int end = kFlushedKeys * (t + 1) / tables;
      script += "fill " + std::to_string(first) + " " +
                std::to_string(end - first) + " " + std::to_string(kValueSize) +
                "\nflush\n";
    }
    script += "fill " + std::to_string(kFlushedKeys) + " " +
              std::to_string(kKeys - kFlushedKeys) + " " +
              std::to_string(kValueSize) + "\n";
    const delsm_test::OracleRun run =
        delsm_test::RunOracle({"create", dbname_, "--write_buffer_size=20000"},
                              script, tmp_.path() + "/oracle");
    ASSERT_TRUE(run.ok) << run.err;
  }

  // "" if DeLSM opens the database and reads every key LevelDB wrote,
  // with its value, and nothing else; else what differs.
  std::string CheckEveryKey() {
    return delsm_test::CheckOracleFill(dbname_, kKeys, kValueSize);
  }

  // The LevelDB tables in `dir`, sorted.
  static std::vector<std::string> TablesIn(const std::string& dir) {
    std::vector<std::string> tables;
    for (const std::string& name : delsm_test::ListDir(dir)) {
      uint64_t number;
      if (ParseLevelDbTableFileName(name, &number)) tables.push_back(name);
    }
    std::sort(tables.begin(), tables.end());
    return tables;
  }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
  const std::string staged_;  // what the staged SST directories' paths hold
};

// Open converts the database; the lstat of every staged SST fails while it
// does. It must not take the SSTs for placed and remove LevelDB's tables:
// it fails, and the next Open finishes the committed conversion.
TEST_F(StagedSstStatTest, ConversionKeepsLevelDbTablesUntilItsSstsArePlaced) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  delsm_test::StatFailingFileSystem fs;
  fs.FailExistsUnder(staged_);
  DB* raw = nullptr;
  const Status s =
      OpenWithFileSystem(Options(), delsm::Tuning(), dbname_, &fs, &raw);
  delete raw;
  ASSERT_LT(0, fs.Failed()) << "no staged SST was looked for";
  EXPECT_FALSE(s.ok()) << "Open converted, though it could not tell where "
                          "its SSTs were";
  EXPECT_EQ("", CheckEveryKey());
}

// RepairDB takes in the tables of a LevelDB database it cannot convert (its
// CURRENT is lost); the lstat of every staged SST fails while it does. It
// must not take the SSTs for placed, repair without them and remove the
// PLAN: it fails, and the user then does what the directory allows (Open,
// or RepairDB where Open refuses).
TEST_F(StagedSstStatTest, TakeInKeepsItsPlanUntilItsSstsArePlaced) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  ASSERT_EQ(0, unlink((dbname_ + "/CURRENT").c_str()));
  delsm_test::StatFailingFileSystem fs;
  fs.FailExistsUnder(staged_);
  const Status s = RepairDBWithFileSystem(dbname_, Options(), &fs);
  ASSERT_LT(0, fs.Failed()) << "no staged SST was looked for";
  EXPECT_FALSE(s.ok()) << "RepairDB took LevelDB's tables in, though it "
                          "could not tell where its SSTs were";

  DB* raw = nullptr;
  const Status opened = DB::Open(Options(), dbname_, &raw);
  delete raw;
  if (!opened.ok()) {
    EXPECT_NE(std::string::npos, opened.ToString().find("run RepairDB"))
        << opened.ToString();
    ASSERT_OK(RepairDB(dbname_, Options()));
  }
  EXPECT_EQ("", CheckEveryKey());
}

// RepairDB takes in the tables of a LevelDB database without CURRENT and
// places its SSTs in L0/, then its own repair fails (reading LevelDB's
// WAL fails, EIO): the PLAN stays, and keeps Open out until a RepairDB
// finishes. An application's Open with create_if_missing, while the
// staging directory's lookups and reads fail (EIO), must not take the
// directory for one without a take-in, make a new database there and
// remove the placed SSTs as SSTs no manifest names.
TEST_F(StagedSstStatTest, UnreadableStagingKeepsOpenOutOfACutShortTakeIn) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  ASSERT_EQ(0, unlink((dbname_ + "/CURRENT").c_str()));
  {
    ReadErrorEnv env(Env::Default());
    env.set_failing_reads(".log");
    Options options;
    options.env = &env;
    ASSERT_FALSE(RepairDB(dbname_, options).ok());
  }
  ASSERT_FALSE(delsm_test::ListDir(dbname_ + "/L0").empty())
      << "the take-in placed no SST";

  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups("/leveldb-conversion");
  env.set_failing_reads("/leveldb-conversion");
  Options options;
  options.env = &env;
  options.create_if_missing = true;
  DB* raw = nullptr;
  const Status opened = DB::Open(options, dbname_, &raw);
  delete raw;
  EXPECT_FALSE(opened.ok()) << "Open made a database beside a take-in";

  ASSERT_OK(RepairDB(dbname_, Options()));
  EXPECT_EQ("", CheckEveryKey());
}

// Open converts a LevelDB database and is cut short after its commit, at
// the removal of LevelDB's first table (EIO). The next Open, the lookup of
// the second table failing (access(2): EIO), must not take that table for
// removed and finish: a LevelDB table left in a DeLSM database is what a
// RepairDB without CURRENT takes in, bringing back what it held, deleted
// since.
TEST_F(StagedSstStatTest, ConversionLeavesNoTableItCouldNotLookUp) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase(/*tables=*/3));
  const std::vector<std::string> tables = TablesIn(dbname_);
  ASSERT_LE(2u, tables.size()) << "LevelDB wrote one table";
  {
    FaultInjectionEnv env(Env::Default(), tmp_.path() + "/env_shadow");
    FaultSpec remove;
    remove.path_contains = "/" + tables[0];
    env.Arm(EnvOp::kRemove, remove);
    Options options;
    options.env = &env;
    DB* raw = nullptr;
    const Status s = DB::Open(options, dbname_, &raw);
    delete raw;
    ASSERT_TRUE(env.Fired()) << "no table removed: " << s.ToString();
    ASSERT_FALSE(s.ok());
  }
  ASSERT_EQ(tables, TablesIn(dbname_));
  {
    ReadErrorEnv env(Env::Default());
    env.set_failing_lookups(dbname_ + "/" + tables[1]);
    Options options;
    options.env = &env;
    DB* raw = nullptr;
    const Status s = DB::Open(options, dbname_, &raw);
    delete raw;
    if (s.ok()) {
      EXPECT_EQ(std::vector<std::string>(), TablesIn(dbname_))
          << "the conversion finished with LevelDB tables in place";
    }
  }
  EXPECT_EQ("", CheckEveryKey());
  EXPECT_EQ(std::vector<std::string>(), TablesIn(dbname_));
}

// Open converts a LevelDB database and is cut short after its commit,
// before it places its SSTs (a rename out of the staging directory fails,
// EIO). With the staging directory's lookups failing, Open and then
// RepairDB must not take it for none: the conversion's manifest names SSTs
// only the staging directory holds.
TEST_F(StagedSstStatTest, UnstatableStagingHidesNoCommittedConversion) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase(/*tables=*/3));
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec rename;
    rename.path_contains = "/leveldb-conversion/";
    fs.Arm(FsOp::kRename, rename);
    DB* raw = nullptr;
    const Status s =
        OpenWithFileSystem(Options(), delsm::Tuning(), dbname_, &fs, &raw);
    delete raw;
    ASSERT_TRUE(fs.Fired()) << "no SST placed: " << s.ToString();
    ASSERT_FALSE(s.ok());
  }
  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups("/leveldb-conversion");
  Options options;
  options.env = &env;
  DB* raw = nullptr;
  const Status opened = DB::Open(options, dbname_, &raw);
  delete raw;
  const Status repaired = RepairDB(dbname_, options);
  SCOPED_TRACE("Open: " + opened.ToString() +
               "; RepairDB: " + repaired.ToString());
  EXPECT_EQ("", CheckEveryKey());
}

// RepairDB takes in the tables of a LevelDB database without CURRENT and is
// cut short after its commit, before it places its SSTs (a rename out of
// the staging directory fails, EIO): every table is in lost/, the SSTs
// made of them only in the staging directory. The next RepairDB, the
// staging directory's lookups failing (access(2): EIO), must not take it
// for none and repair without those SSTs, reporting success while the
// PLAN still keeps Open out: it fails, or ends the take-in.
TEST_F(StagedSstStatTest, UnstatableStagingLeavesNoCommittedTakeInUnfinished) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase(/*tables=*/3));
  ASSERT_EQ(0, unlink((dbname_ + "/CURRENT").c_str()));
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec rename;
    rename.path_contains = "/leveldb-conversion/";
    fs.Arm(FsOp::kRename, rename);
    const Status s = RepairDBWithFileSystem(dbname_, Options(), &fs);
    ASSERT_TRUE(fs.Fired()) << "no SST placed: " << s.ToString();
    ASSERT_FALSE(s.ok());
  }
  ASSERT_EQ(std::vector<std::string>(), TablesIn(dbname_))
      << "the take-in did not commit";

  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups("/leveldb-conversion");
  Options options;
  options.env = &env;
  const Status s = RepairDB(dbname_, options);
  if (!s.ok()) ASSERT_OK(RepairDB(dbname_, Options()));
  EXPECT_EQ("", CheckEveryKey()) << "RepairDB: " << s.ToString();
}

// RepairDB takes in the tables of a LevelDB database without CURRENT and is
// cut short before its commit, while it removes its copies: the staging
// directory keeps the PLAN and no SST, every table in place (as a kill
// there leaves it; here the making of lost/ for the commit fails, then the
// PLAN's removal). The next RepairDB, the lookup of the first table
// failing (access(2): EIO), must not take that table for moved by the
// commit, finish the take-in and move the other tables to lost/ with no
// SST made of them; nor leave the first in place behind an SST made of
// it, for a later take-in to bring back what was deleted since.
TEST_F(StagedSstStatTest, UnstatableTableIsNoCommitOfACutShortTakeIn) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase(/*tables=*/3));
  ASSERT_EQ(0, unlink((dbname_ + "/CURRENT").c_str()));
  {
    FaultInjectionEnv env(Env::Default(), tmp_.path() + "/env_shadow");
    FaultSpec remove;
    remove.path_contains = "/leveldb-conversion/PLAN";
    env.Arm(EnvOp::kRemove, remove);
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec mkdir;
    mkdir.path_contains = dbname_ + "/lost";
    fs.Arm(FsOp::kMkdir, mkdir);
    Options options;
    options.env = &env;
    const Status cut = RepairDBWithFileSystem(dbname_, options, &fs);
    ASSERT_FALSE(cut.ok());
    ASSERT_TRUE(fs.Fired()) << "the take-in made no lost/";
    ASSERT_TRUE(env.Fired())
        << "the take-in removed no PLAN: " << cut.ToString();
  }
  ASSERT_EQ(0, access((dbname_ + "/leveldb-conversion/PLAN").c_str(), F_OK))
      << "the cut-short take-in left no PLAN";
  const std::vector<std::string> tables = TablesIn(dbname_);
  ASSERT_LE(2u, tables.size()) << "LevelDB wrote one table";

  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups(dbname_ + "/" + tables[0]);
  Options options;
  options.env = &env;
  const Status s = RepairDB(dbname_, options);
  if (!s.ok()) {
    EXPECT_EQ(tables, TablesIn(dbname_))
        << "RepairDB failed (" << s.ToString() << ") having moved tables";
    ASSERT_OK(RepairDB(dbname_, Options()));
  }
  EXPECT_EQ(std::vector<std::string>(), TablesIn(dbname_))
      << "RepairDB (" << s.ToString() << ") left tables in place";
  EXPECT_EQ("", CheckEveryKey());
}

// RepairDB takes in the tables of a LevelDB database without CURRENT, and
// lost/ already holds a file under each name a table would be moved to
// there (an earlier take-in's). Those names' lookups fail (access(2) and
// stat: EIO). The take-in must not take a name it could not look up for
// free and move a table over what lost/ held there.
TEST_F(StagedSstStatTest, TakeInMovesNoTableOverAFileInLost) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  ASSERT_EQ(0, unlink((dbname_ + "/CURRENT").c_str()));
  ASSERT_EQ(0, mkdir((dbname_ + "/lost").c_str(), 0755));
  std::map<std::string, std::string> earlier;
  for (const std::string& name : delsm_test::ListDir(dbname_)) {
    uint64_t number;
    if (!ParseLevelDbTableFileName(name, &number)) continue;
    const std::string path = dbname_ + "/lost/leveldb-" + name;
    earlier[path] = "an earlier take-in's " + name;
    ASSERT_TRUE(delsm_test::WriteWhole(path, earlier[path]));
  }
  ASSERT_FALSE(earlier.empty()) << "LevelDB wrote no table";
  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups("/lost/leveldb-");
  Options options;
  options.env = &env;
  const Status s = RepairDB(dbname_, options);
  for (const auto& file : earlier) {
    EXPECT_TRUE(file.second == delsm_test::ReadWholeFile(file.first))
        << "RepairDB (" << s.ToString() << ") replaced " << file.first;
  }
  if (!s.ok()) ASSERT_OK(RepairDB(dbname_, Options()));
  EXPECT_EQ("", CheckEveryKey());
}

// RepairDB takes in the tables of a LevelDB database without CURRENT: its
// manifest, which no CURRENT names, stays in place. lost/ holds a DeLSM
// manifest under the same name (LevelDB's RepairDB of a DeLSM database puts
// DeLSM's manifests there, then writes its own MANIFEST-000001, the name a
// DeLSM database's first manifest has too), which the take-in would bring
// back after its commit were the name free. The lookup of LevelDB's
// manifest fails (access(2): EIO): the take-in must not take the name for
// free and rename DeLSM's manifest over LevelDB's; both are kept.
TEST_F(StagedSstStatTest, TakeInBringsNoManifestBackOverAFile) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  ASSERT_EQ(0, unlink((dbname_ + "/CURRENT").c_str()));
  std::string manifest;  // LevelDB's
  for (const std::string& name : delsm_test::ListDir(dbname_)) {
    if (name.rfind("MANIFEST-", 0) == 0) manifest = name;
  }
  ASSERT_FALSE(manifest.empty()) << "LevelDB wrote no manifest";
  const std::string leveldb_manifest =
      delsm_test::ReadWholeFile(dbname_ + "/" + manifest);
  const std::string delsm_db = tmp_.path() + "/delsm";
  {
    Options options;
    options.create_if_missing = true;
    DB* raw = nullptr;
    ASSERT_OK(DB::Open(options, delsm_db, &raw));
    delete raw;
  }
  std::string current = delsm_test::ReadWholeFile(delsm_db + "/CURRENT");
  ASSERT_FALSE(current.empty());
  current.pop_back();
  const std::string delsm_manifest =
      delsm_test::ReadWholeFile(delsm_db + "/" + current);
  ASSERT_EQ(0, mkdir((dbname_ + "/lost").c_str(), 0755));
  ASSERT_TRUE(
      delsm_test::WriteWhole(dbname_ + "/lost/" + manifest, delsm_manifest));

  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups(dbname_ + "/" + manifest);
  Options options;
  options.env = &env;
  const Status s = RepairDB(dbname_, options);
  // Whether a manifest in the database (lost/ included) holds `bytes`.
  auto kept = [this](const std::string& bytes) {
    for (const auto& path : delsm_test::TreeSnapshot(dbname_)) {
      if (path.first.find("/MANIFEST-") != std::string::npos &&
          delsm_test::ReadWholeFile(dbname_ + path.first) == bytes) {
        return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(kept(leveldb_manifest))
      << "RepairDB (" << s.ToString() << ") replaced LevelDB's " << manifest;
  EXPECT_TRUE(kept(delsm_manifest))
      << "RepairDB (" << s.ToString() << ") lost DeLSM's manifest";
  if (!s.ok()) ASSERT_OK(RepairDB(dbname_, Options()));
  EXPECT_EQ("", CheckEveryKey());
}

// Open converts a LevelDB database; the lookup and stat of its table fail
// (EIO, as for an inode that cannot be read). The user must be able to
// tell a failing disk from a damaged database: Open, and RepairDB after
// it, fail with an IOError naming the table, not a Corruption or
// NotSupported calling it missing, change nothing LevelDB wrote, and the
// database is converted once the disk reads again.
TEST_F(StagedSstStatTest, UnstatableTableIsAnIoErrorNotAMissingTable) {
  ASSERT_NO_FATAL_FAILURE(MakeLevelDbDatabase());
  const std::vector<std::string> tables = TablesIn(dbname_);
  ASSERT_EQ(1u, tables.size());
  Logger* log = nullptr;
  ASSERT_OK(Env::Default()->NewLogger(tmp_.path() + "/LOG", &log));
  std::unique_ptr<Logger> log_guard(log);
  // The database directory's own entry is left out: the conversion makes
  // its staging directory before it reads the tables, and removes it.
  std::map<std::string, std::string> before = delsm_test::TreeSnapshot(dbname_);
  before.erase("");

  ReadErrorEnv env(Env::Default());
  env.set_failing_stats(dbname_ + "/" + tables[0]);
  Options options;
  options.env = &env;
  options.info_log = log;
  DB* raw = nullptr;
  const Status opened = DB::Open(options, dbname_, &raw);
  delete raw;
  const Status repaired = RepairDB(dbname_, options);
  for (const Status& s : {opened, repaired}) {
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(tables[0])) << s.ToString();
  }
  std::map<std::string, std::string> after = delsm_test::TreeSnapshot(dbname_);
  after.erase("");
  EXPECT_TRUE(before == after)
      << "Open (" << opened.ToString() << ") or RepairDB ("
      << repaired.ToString() << ") changed LevelDB's database";
  EXPECT_EQ("", CheckEveryKey());
}

// RepairDB and Open on a database of KV files (every value a file of its
// own, inline_threshold 0), made in a fresh directory per test.
class RepairStatTest : public testing::Test {
 protected:
  RepairStatTest() : tmp_("delsm_repair_stat"), dbname_(tmp_.path() + "/db") {
    tuning_.inline_threshold = 0;
  }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
  delsm::Tuning tuning_;
};

// RepairDB puts a file it finds under an SST directory's name in a level
// directory into lost/, under L<level>-<name> or, that being taken, a
// free name; lost/ holds a file under the first (an earlier repair's)
// whose lookup (lstat) fails. The repair must not take the name for free
// and move the file over the one lost/ held.
TEST_F(RepairStatTest, RepairMovesNothingOverAFileInLost) {
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeKvFileDatabase(dbname_, tuning_));
  const std::string stray = dbname_ + "/L0/000999.sst";
  const std::string held = dbname_ + "/lost/L0-000999.sst";
  ASSERT_TRUE(delsm_test::WriteWhole(stray, "a file, not a directory"));
  ASSERT_EQ(0, mkdir((dbname_ + "/lost").c_str(), 0755));
  ASSERT_TRUE(delsm_test::WriteWhole(held, "an earlier repair's"));
  delsm_test::StatFailingFileSystem fs;
  fs.FailExistsUnder(held);
  const Status s = RepairDBWithFileSystem(dbname_, Options(), &fs);
  ASSERT_LT(0, fs.Failed()) << "the name in lost/ was not looked up";
  EXPECT_EQ("an earlier repair's", delsm_test::ReadWholeFile(held))
      << "RepairDB (" << s.ToString() << ") replaced " << held;
  if (!s.ok()) ASSERT_OK(RepairDB(dbname_, Options()));
  delsm_test::ExpectKvFileDatabase(dbname_, tuning_);
}

// An application's Open with create_if_missing of a database whose
// CURRENT cannot be looked up (access(2): EIO; its reads work). It must not
// take the database for a new one, write a new CURRENT naming an empty
// manifest over it and remove every SST as named by no manifest.
TEST_F(RepairStatTest, UnstatableCurrentIsNoNewDatabase) {
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeKvFileDatabase(dbname_, tuning_));
  ReadErrorEnv env(Env::Default());
  env.set_failing_lookups(dbname_ + "/CURRENT");
  Options options;
  options.env = &env;
  options.create_if_missing = true;
  DB* raw = nullptr;
  const Status s = delsm::Open(options, tuning_, dbname_, &raw);
  delete raw;
  SCOPED_TRACE("Open: " + s.ToString());
  delsm_test::ExpectKvFileDatabase(dbname_, tuning_);
}

// RepairDB on a database of values that stay put, with the lstat of
// values/ (and of everything under it) failing: what the homes hold cannot
// be told, and RepairDB must not take every value for missing.
TEST_F(RepairStatTest, UnstatableValuesDirectoryLosesNoValue) {
  tuning_.values_stay_put = true;  // every value in a home
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeKvFileDatabase(dbname_, tuning_, 2));
  delsm_test::StatFailingFileSystem fs;
  fs.FailLookupsUnder(dbname_ + "/values");
  const Status s = RepairDBWithFileSystem(dbname_, Options(), &fs);
  ASSERT_LT(0, fs.Failed()) << "values/ was not looked up";
  EXPECT_FALSE(s.ok()) << "RepairDB repaired a database whose values it "
                          "could not find";
  delsm_test::ExpectKvFileDatabase(dbname_, tuning_, 2);
}

}  // namespace
}  // namespace leveldb
