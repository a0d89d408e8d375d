// Chains where LevelDB's RepairDB makes a file under a name a staging PLAN
// names (compat/leveldb/conversion_internal.h): DB::Open's conversion or
// RepairDB's taking in of LevelDB's tables commits and is cut short by a
// failure, LevelDB's RepairDB (Debian's, in its own process:
// tests/leveldb_oracle) runs on the directory, cut short or not, and DeLSM
// comes back. LevelDB's RepairDB numbers the table it makes of a WAL past
// every file it finds but the manifests, so under the name of a table the
// conversion removed or the take-in moved to lost/; run whole, it writes a
// new manifest of what is left in place. A PLAN records the identity of
// each file it names (size and checksum) and, for a take-in, the name it
// gives it in lost/: a file under a planned name of another identity is
// not the PLAN's and is kept, and the chain ends with every acknowledged
// write. A PLAN of the previous format, which names files by name alone,
// is still carried out.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_contents.h"
#include "tests/db_options.h"
#include "tests/leveldb_oracle/killed_repair.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"
#include "util/env_util.h"

namespace leveldb {
namespace {

using delsm_test::Contents;
using delsm_test::Difference;
using delsm_test::Scan;
using delsm_test::ScanDelsm;

// What the oracle's `fill first count 100` writes, added to *c.
void AddFilled(unsigned first, unsigned count, Contents* c) {
  for (unsigned i = first; i < first + count; i++) {
    (*c)[delsm_test::OracleFillKey(i)] = delsm_test::OracleFillValue(i, 100);
  }
}

// The LevelDB tables in `dbname`.
std::set<std::string> Tables(const std::string& dbname) {
  std::set<std::string> tables;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    if (delsm_test::EndsWith(name, ".ldb")) tables.insert(name);
  }
  return tables;
}

// Whether `dir` holds a file whose name ends with `suffix`.
bool HoldsFileEndingWith(const std::string& dir, const std::string& suffix) {
  for (const std::string& name : delsm_test::ListDir(dir)) {
    if (delsm_test::EndsWith(name, suffix)) return true;
  }
  return false;
}

// A LevelDB database made by the oracle from `commands` in `dbname`
// (values of 100 bytes), whose first `flushed` keys are in a table and
// the rest, if any, only in its WAL; what it holds in *view.
void MakeLevelDbDatabase(const std::string& dbname, const std::string& scratch,
                         unsigned flushed, unsigned keys, Contents* view) {
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", dbname},
      flushed == keys
          ? "fill 0 " + std::to_string(keys) + " 100\nflush\n"
          : delsm_test::OracleTableAndWalCommands(flushed, keys, 100),
      scratch + "/create");
  ASSERT_TRUE(made.ok) << made.err;
  // What `fill` wrote (a dump would open the database with LevelDB, which
  // makes a table of the WAL).
  view->clear();
  AddFilled(0, keys, view);
}

// DB::Open's conversion of the LevelDB database at `dbname` commits and is
// cut short after it removed LevelDB's tables: its removal of LevelDB's
// manifest, the next file its PLAN names, fails (EIO). The WAL is not
// replayed yet. The tables it removed in *tables.
void ConversionCutShortAfterItRemovedTheTables(const std::string& dbname,
                                               const std::string& scratch,
                                               std::set<std::string>* tables) {
  std::string current;
  ASSERT_TRUE(
      ReadFileToString(Env::Default(), dbname + "/CURRENT", &current).ok());
  ASSERT_TRUE(!current.empty() && current.back() == '\n');
  const std::string leveldb_manifest = current.substr(0, current.size() - 1);
  *tables = Tables(dbname);
  ASSERT_FALSE(tables->empty());
  {
    FaultInjectionEnv env(Env::Default(), scratch + "/shadow");
    FaultSpec spec;
    spec.err = EIO;
    spec.path_contains = "/" + leveldb_manifest;
    env.Arm(EnvOp::kRemove, spec);
    Options options;
    options.env = &env;
    DB* raw = nullptr;
    const Status s =
        delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
    delete raw;
    ASSERT_FALSE(s.ok()) << "the conversion's removal of " << leveldb_manifest
                         << " did not fail";
    ASSERT_TRUE(env.Fired());
  }
  DatabaseFormat format;
  std::string evidence;
  ASSERT_TRUE(
      DetectDatabaseFormat(Env::Default(), dbname, &format, &evidence).ok());
  ASSERT_EQ(DatabaseFormat::kDelsm, format) << "the conversion did not commit";
  ASSERT_TRUE(Env::Default()->FileExists(dbname + "/leveldb-conversion/PLAN"));
  for (const std::string& table : *tables) {
    ASSERT_FALSE(Env::Default()->FileExists(dbname + "/" + table))
        << "the conversion did not remove " << table;
  }
}

// RepairDB's taking in of the tables of the LevelDB database at `dbname`,
// whose CURRENT is lost (the conversion needs it): it stages an SST of
// each table, commits by moving the first to lost/, and fails placing
// the SSTs (EIO on the rename out of the staging directory), its PLAN
// kept. The staged SSTs are the only copy in the directory of what the
// tables held. The tables it moved in *tables.
void TakeInCutShortBeforeItPlaced(const std::string& dbname,
                                  std::set<std::string>* tables) {
  ASSERT_TRUE(Env::Default()->RemoveFile(dbname + "/CURRENT").ok());
  *tables = Tables(dbname);
  ASSERT_FALSE(tables->empty());
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    fs.FailNth(FsOp::kRename, 1, EIO);
    const Status s = RepairDBWithFileSystem(dbname, Options(), &fs);
    ASSERT_FALSE(s.ok()) << "the take-in's placing did not fail";
    ASSERT_TRUE(fs.Fired());
  }
  ASSERT_TRUE(Env::Default()->FileExists(dbname + "/leveldb-conversion/PLAN"));
  for (const std::string& table : *tables) {
    ASSERT_FALSE(Env::Default()->FileExists(dbname + "/" + table))
        << "the take-in did not move " << table << " to lost/";
  }
  ASSERT_TRUE(HoldsFileEndingWith(dbname + "/leveldb-conversion", ".sst"))
      << "no SST left in the staging directory";
}

// A LevelDB table holding keys no other database here holds (from 1000
// on), copied over dbname/`name`: a file of LevelDB's under that name
// other than the one a PLAN names. What it holds is added to *view.
void PutAnotherTableUnder(const std::string& dbname, const std::string& name,
                          const std::string& scratch, Contents* view) {
  const std::string other = scratch + "/other";
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", other}, "fill 1000 20 100\nflush\n", scratch + "/other-run");
  ASSERT_TRUE(made.ok) << made.err;
  const std::set<std::string> tables = Tables(other);
  ASSERT_EQ(1u, tables.size());
  std::string bytes;
  ASSERT_TRUE(
      ReadFileToString(Env::Default(), other + "/" + *tables.begin(), &bytes)
          .ok());
  ASSERT_TRUE(
      WriteStringToFileSync(Env::Default(), bytes, dbname + "/" + name).ok());
  AddFilled(1000, 20, view);
}

// Rewrites the PLAN in `dbname`'s staging directory in the format an
// earlier build wrote: LevelDB's files by name alone.
void WritePreviousFormatPlan(const std::string& dbname) {
  const std::string path = dbname + "/leveldb-conversion/PLAN";
  std::string text;
  ASSERT_TRUE(ReadFileToString(Env::Default(), path, &text).ok());
  std::string old;
  size_t start = 0;
  bool first = true;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    ASSERT_NE(std::string::npos, nl);
    std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (first) {
      ASSERT_EQ('2', line.back()) << line;
      line.back() = '1';
      first = false;
    } else if (line.rfind("remove ", 0) == 0 || line.rfind("lost ", 0) == 0) {
      const size_t name = line.find(' ') + 1;
      line = line.substr(0, line.find(' ', name));
    }
    old += line + "\n";
  }
  ASSERT_TRUE(WriteStringToFileSync(Env::Default(), old, path).ok());
}

// Opens `dbname` with DeLSM: it must refuse, with Corruption, and change
// nothing.
void ExpectOpenRefusesChangingNothing(const std::string& dbname) {
  const auto before = delsm_test::TreeSnapshot(dbname);
  DB* raw = nullptr;
  const Status opened =
      delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  delete raw;
  EXPECT_TRUE(opened.IsCorruption()) << opened.ToString();
  EXPECT_TRUE(before == delsm_test::TreeSnapshot(dbname))
      << "the refused Open changed the directory";
}

// DB::Open's conversion of a LevelDB database whose only table is numbered
// just past its WAL (LevelDB numbers the WAL of a memtable switch before
// the table of the memtable it replaces) is cut short after it removed
// that table (ConversionCutShortAfterItRemovedTheTables). LevelDB's
// RepairDB numbers the table it makes of the WAL past every file it finds
// but the manifests, so under the name of the table the conversion
// removed, which the PLAN names; it moves the WAL to lost/ and is killed
// at its first move of a manifest. That table is the only copy of the
// WAL's writes in the directory. DB::Open must not remove it as the
// conversion's table (it refuses, changing nothing), and RepairDB must
// keep every write.
TEST(LevelDbRepairPlanChainTest,
     LevelDbRepairTableUnderANameTheConversionRemoved) {
#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents leveldb_view;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 150, &leveldb_view));
  std::set<std::string> tables;
  ASSERT_NO_FATAL_FAILURE(
      ConversionCutShortAfterItRemovedTheTables(dbname, tmp.path(), &tables));

  std::string why;
  ASSERT_TRUE(delsm_test::KillLevelDbRepairAtFirstManifestMove(dbname, &why))
      << why;
  bool reused = false;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    reused |= tables.count(name) > 0;
  }
  ASSERT_TRUE(reused) << "LevelDB's RepairDB named its table otherwise";
  ASSERT_TRUE(HoldsFileEndingWith(dbname + "/lost", ".log"))
      << "LevelDB's RepairDB moved no WAL to lost/";
  const std::string copy = tmp.path() + "/repair-copy";
  ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));

  ExpectOpenRefusesChangingNothing(dbname);
  const Status s = RepairDB(copy, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(leveldb_view, ScanDelsm(copy)))
      << "after DeLSM's RepairDB";
#else
  FAIL() << "needs the LevelDB oracle and x86-64 system call registers";
#endif
}

// The chain above without LevelDB's RepairDB: a table of another database
// is put under the name of the table the conversion removed, while the
// WAL is still in place. DB::Open refuses, changing nothing; RepairDB
// finishes the conversion, leaves that table in place (it is not the one
// the PLAN removes), takes it in and replays the WAL: every key of both.
TEST(LevelDbRepairPlanChainTest, TableUnderARemovedNameWithAnotherIdentity) {
#if defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents want;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 150, &want));
  std::set<std::string> tables;
  ASSERT_NO_FATAL_FAILURE(
      ConversionCutShortAfterItRemovedTheTables(dbname, tmp.path(), &tables));
  ASSERT_NO_FATAL_FAILURE(
      PutAnotherTableUnder(dbname, *tables.begin(), tmp.path(), &want));

  ExpectOpenRefusesChangingNothing(dbname);
  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(want, ScanDelsm(dbname))) << "after RepairDB";
  EXPECT_TRUE(
      Env::Default()->FileExists(dbname + "/lost/leveldb-" + *tables.begin()))
      << "the take-in did not keep the other table in lost/";
#else
  FAIL() << "needs the LevelDB oracle";
#endif
}

// A LevelDB database whose CURRENT is lost, every write in its one table
// (its WAL holds nothing). RepairDB's take-in is cut short before it
// placed its SST (TakeInCutShortBeforeItPlaced). LevelDB cannot open the
// directory (no CURRENT); its RepairDB makes a database of what it finds
// in place, none of those writes (the table is in lost/), and a CURRENT
// naming its manifest, which reads. DB::Open must not take the staged SST
// for a copy of a table still in place and remove it: it refuses,
// changing nothing. RepairDB finishes the take-in, with every write.
TEST(LevelDbRepairPlanChainTest,
     LevelDbRepairAfterATakeInCutShortBeforeItPlaced) {
#if defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents leveldb_view;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 100, &leveldb_view));
  std::set<std::string> tables;
  ASSERT_NO_FATAL_FAILURE(TakeInCutShortBeforeItPlaced(dbname, &tables));

  const delsm_test::OracleRun repaired = delsm_test::RunOracle(
      {"repair", dbname}, "", tmp.path() + "/leveldb-repair");
  ASSERT_TRUE(repaired.ok) << repaired.err;
  ASSERT_TRUE(Env::Default()->FileExists(dbname + "/CURRENT"));
  const std::string copy = tmp.path() + "/repair-copy";
  ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));

  ExpectOpenRefusesChangingNothing(dbname);
  const Status s = RepairDB(copy, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(leveldb_view, ScanDelsm(copy)))
      << "after DeLSM's RepairDB";
#else
  FAIL() << "needs the LevelDB oracle";
#endif
}

// The take-in of LevelDbRepairAfterATakeInCutShortBeforeItPlaced, on a
// database whose WAL holds writes too: the table is numbered just past
// the WAL. LevelDB's RepairDB numbers the table it makes of the WAL past
// every file it finds but the manifests, so under the name of the table
// the take-in moved to lost/, which its PLAN names; it moves the WAL to
// lost/ and is killed at its first move of a manifest (no CURRENT yet).
// The table in place is not the one the PLAN moves: the take-in has
// committed, and its staged SST is the only copy of the first table's
// writes in the directory. RepairDB must keep every write.
TEST(LevelDbRepairPlanChainTest, LevelDbRepairTableUnderANameTheTakeInMoved) {
#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents leveldb_view;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 150, &leveldb_view));
  std::set<std::string> tables;
  ASSERT_NO_FATAL_FAILURE(TakeInCutShortBeforeItPlaced(dbname, &tables));

  std::string why;
  ASSERT_TRUE(delsm_test::KillLevelDbRepairAtFirstManifestMove(dbname, &why))
      << why;
  bool reused = false;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    reused |= tables.count(name) > 0;
  }
  ASSERT_TRUE(reused) << "LevelDB's RepairDB named its table otherwise";

  ExpectOpenRefusesChangingNothing(dbname);
  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(leveldb_view, ScanDelsm(dbname)))
      << "after DeLSM's RepairDB";
#else
  FAIL() << "needs the LevelDB oracle and x86-64 system call registers";
#endif
}

// The chain above without LevelDB's RepairDB: a table of another database
// is put under the name of the table the take-in moved to lost/. RepairDB
// finishes the committed take-in, leaves that table in place (it is not
// the one the PLAN moves), then takes it in too, under the same PLAN: every
// key of both, both tables in lost/.
TEST(LevelDbRepairPlanChainTest, TableUnderAMovedNameWithAnotherIdentity) {
#if defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents want;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 150, &want));
  std::set<std::string> tables;
  ASSERT_NO_FATAL_FAILURE(TakeInCutShortBeforeItPlaced(dbname, &tables));
  ASSERT_NO_FATAL_FAILURE(
      PutAnotherTableUnder(dbname, *tables.begin(), tmp.path(), &want));

  ExpectOpenRefusesChangingNothing(dbname);
  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(want, ScanDelsm(dbname))) << "after RepairDB";
  const std::string lost = dbname + "/lost/leveldb-" + *tables.begin();
  EXPECT_TRUE(Env::Default()->FileExists(lost));
  EXPECT_TRUE(Env::Default()->FileExists(lost + ".1"));
  EXPECT_FALSE(Env::Default()->FileExists(dbname + "/leveldb-conversion"));
#else
  FAIL() << "needs the LevelDB oracle";
#endif
}

// A conversion committed and cut short (EIO placing its first SST) by an
// earlier build, whose PLAN names LevelDB's files by name alone: DB::Open
// still finishes it, with every key (the WAL replayed after it), and
// moves those files to lost/ instead of removing them on a name.
TEST(LevelDbRepairPlanChainTest, PreviousFormatConversionPlanStillFinishes) {
#if defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents want;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 150, &want));
  const std::set<std::string> tables = Tables(dbname);
  ASSERT_FALSE(tables.empty());
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    fs.FailNth(FsOp::kRename, 1, EIO);
    DB* raw = nullptr;
    const Status s = OpenWithFileSystem(
        Options(), delsm_test::ManualCompactionOnly(), dbname, &fs, &raw);
    delete raw;
    ASSERT_FALSE(s.ok()) << "the conversion's first placing did not fail";
    ASSERT_TRUE(fs.Fired());
  }
  ASSERT_NO_FATAL_FAILURE(WritePreviousFormatPlan(dbname));

  EXPECT_EQ("", Difference(want, ScanDelsm(dbname))) << "after DB::Open";
  EXPECT_FALSE(Env::Default()->FileExists(dbname + "/leveldb-conversion"));
  for (const std::string& table : tables) {
    EXPECT_FALSE(Env::Default()->FileExists(dbname + "/" + table));
    EXPECT_TRUE(Env::Default()->FileExists(dbname + "/lost/leveldb-" + table))
        << table << " was not kept in lost/";
  }
#else
  FAIL() << "needs the LevelDB oracle";
#endif
}

// A take-in committed and cut short before it placed its SSTs by an
// earlier build, whose PLAN names LevelDB's files by name alone: DB::Open
// refuses it, changing nothing, and RepairDB still finishes it, with every
// key (the WAL replayed by the repair).
TEST(LevelDbRepairPlanChainTest, PreviousFormatTakeInPlanStillFinishes) {
#if defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_plan_chain");
  const std::string dbname = tmp.path() + "/db";
  Contents want;
  ASSERT_NO_FATAL_FAILURE(
      MakeLevelDbDatabase(dbname, tmp.path(), 100, 150, &want));
  std::set<std::string> tables;
  ASSERT_NO_FATAL_FAILURE(TakeInCutShortBeforeItPlaced(dbname, &tables));
  ASSERT_NO_FATAL_FAILURE(WritePreviousFormatPlan(dbname));

  ExpectOpenRefusesChangingNothing(dbname);
  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(want, ScanDelsm(dbname))) << "after RepairDB";
  EXPECT_FALSE(Env::Default()->FileExists(dbname + "/leveldb-conversion"));
#else
  FAIL() << "needs the LevelDB oracle";
#endif
}

}  // namespace
}  // namespace leveldb
