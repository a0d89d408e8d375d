// Chains of lifecycle calls that each return OK (or fail saying so), where
// a manifest one call left behind is read by a later RepairDB as if it
// were part of the database's history. Debian's LevelDB does its part for
// real, in its own process (tests/leveldb_oracle). Each chain must end
// with every key the database held, and no deleted key back:
//   * DestroyDB, whose unlink of a DeLSM manifest recording SSTs as
//     replaced a power cut undoes, leaves that manifest; LevelDB makes a
//     database at the path, numbering its tables from scratch; DB::Open
//     converts it; RepairDB (CURRENT lost) reads the stale manifest too;
//   * a RepairDB that fails at its commit leaves its manifest, which
//     records every old SST as replaced by its outputs; an Open removes
//     those outputs; LevelDB's RepairDB moves every DeLSM manifest to
//     lost/; DeLSM's RepairDB takes its tables in and brings the manifests
//     back, and with CURRENT naming LevelDB's manifest, nothing says which
//     of them was committed;
//   * a compaction killed after its commit, and an Open whose sweep of
//     what it replaced fails, leave two DeLSM manifests, the older one
//     the only record of the replaced SST; LevelDB's RepairDB, killed
//     between its moves of the two to lost/ (or cut there by a power cut,
//     its own manifest, unsynced, left empty), leaves the older in lost/
//     and the one CURRENT names in place; DeLSM's RepairDB follows;
//   * DB::Open's conversion of a LevelDB database commits and is cut short
//     before it places its SSTs; LevelDB's RepairDB makes a table of the
//     WAL the conversion had not replayed, moves the WAL to lost/ and is
//     killed before it moves a manifest; DB::Open and RepairDB follow.
// Chains where LevelDB's RepairDB makes a file under a name a staging PLAN
// names are in leveldb_repair_plan_chain_test.cc.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_contents.h"
#include "tests/db_options.h"
#include "tests/failed_repair.h"
#include "tests/leveldb_oracle/killed_repair.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/replaced_sst_left.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

using delsm_test::Contents;
using delsm_test::Difference;
using delsm_test::Scan;
using delsm_test::ScanDelsm;

constexpr int kKeys = 300;

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

std::string Value(int i) { return Key(i) + std::string(120, 'a' + i % 26); }

bool Deleted(int i) { return i % 4 == 0; }

// What a DeLSM database written by WriteDelsmDatabase holds.
Contents Written() {
  Contents c;
  for (int i = 0; i < kKeys; i++) {
    if (!Deleted(i)) c[Key(i)] = Value(i);
  }
  return c;
}

// Every key put, flushed and compacted into L1; every fourth deleted and
// flushed to L0 (its tombstones above the puts).
void WriteDelsmDatabase(const std::string& dbname) {
  Options options;
  options.create_if_missing = true;
  DB* raw = nullptr;
  Status s =
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  DBImpl* impl = static_cast<DBImpl*>(raw);
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
  }
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
  for (int i = 0; i < kKeys; i++) {
    if (Deleted(i)) ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
  }
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
}

// The manifests in `dir`, by number.
std::map<uint64_t, std::string> Manifests(const std::string& dir) {
  std::map<uint64_t, std::string> found;
  for (const std::string& name : delsm_test::ListDir(dir)) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == kDescriptorFile) {
      found[number] = name;
    }
  }
  return found;
}

// The number of the manifest CURRENT names in `dbname`; 0 if none.
uint64_t CurrentManifestNumber(const std::string& dbname) {
  std::string current;
  if (!ReadFileToString(Env::Default(), CurrentFileName(dbname), &current)
           .ok() ||
      current.empty()) {
    return 0;
  }
  current.pop_back();
  uint64_t number;
  FileType type;
  return ParseFileName(current, &number, &type) && type == kDescriptorFile
             ? number
             : 0;
}

// The SST numbers the DeLSM manifest at `path` records as removed.
std::set<uint64_t> RecordedAsRemoved(const std::string& path) {
  std::set<uint64_t> removed;
  SequentialFile* raw = nullptr;
  if (!Env::Default()->NewSequentialFile(path, &raw).ok()) return removed;
  std::unique_ptr<SequentialFile> file(raw);
  log::ReadErrorReporter errors;
  log::Reader reader(file.get(), &errors, /*checksum=*/true, 0);
  Slice record;
  std::string scratch;
  while (reader.ReadRecord(&record, &scratch)) {
    VersionEdit edit;
    if (!edit.DecodeFrom(record).ok()) continue;
    for (const auto& gone : edit.deleted_files()) removed.insert(gone.second);
  }
  return removed;
}

// An Env whose removals of the files whose path contains `lost` report
// success and leave the file: the unlink a power cut undoes when nothing
// made the directory durable after it (DestroyDB syncs none), the other
// unlinks having reached the disk.
class UnlinkLostEnv : public EnvWrapper {
 public:
  UnlinkLostEnv(Env* base, std::string lost)
      : EnvWrapper(base), lost_(std::move(lost)) {}

  Status RemoveFile(const std::string& f) override {
    if (f.find(lost_) != std::string::npos) {
      lost_count_++;
      return Status::OK();
    }
    return target()->RemoveFile(f);
  }

  int lost() const { return lost_count_; }

 private:
  const std::string lost_;
  int lost_count_ = 0;
};

// A DeLSM database whose last session deleted every key and compacted the
// deletes away, its manifest recording the first session's SSTs as
// replaced; then DestroyDB, whose unlink of that manifest a power cut
// undoes. LevelDB makes a database at the path (its Open keeps a manifest
// numbered past its own), numbering its tables from scratch, and DB::Open
// converts it. A RepairDB (CURRENT lost) reads every manifest in the
// directory, the stale one too: a converted SST numbered as one it records
// as replaced would be set aside.
// Makes that state in `dir`/db: the stale manifest's SSTs recorded as
// replaced in *replaced, what LevelDB wrote in *leveldb_view, and in
// *clashes how many of LevelDB's tables took such a number.
void MakeLevelDbDatabaseBesideAStaleManifest(const std::string& dir,
                                             std::set<uint64_t>* replaced,
                                             Contents* leveldb_view,
                                             int* clashes) {
  const std::string dbname = dir + "/db";
  {
    Options options;
    options.create_if_missing = true;
    DB* raw = nullptr;
    Status s =
        delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    DBImpl* impl = static_cast<DBImpl*>(raw);
    for (int round = 0; round < 60; round++) {
      for (int i = 0; i < 5; i++) {
        ASSERT_TRUE(db->Put(WriteOptions(), Key(round * 5 + i), "x").ok());
      }
      ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    }
  }
  {
    DB* raw = nullptr;
    Status s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(),
                           dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < 300; i++) {
      ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
    }
    db->CompactRange(nullptr, nullptr);
    EXPECT_TRUE(Scan(db.get()).empty());
  }
  for (int level = 0; level < 7; level++) {
    ASSERT_EQ(std::vector<std::string>(),
              delsm_test::ListDir(dbname + "/L" + std::to_string(level)))
        << "the compaction left SSTs in L" << level;
  }
  const std::map<uint64_t, std::string> delsm_manifests = Manifests(dbname);
  ASSERT_EQ(1u, delsm_manifests.size());
  const std::string stale = dbname + "/" + delsm_manifests.begin()->second;
  *replaced = RecordedAsRemoved(stale);
  ASSERT_FALSE(replaced->empty());
  {
    UnlinkLostEnv env(Env::Default(), "/MANIFEST-");
    Options o;
    o.env = &env;
    const Status s = DestroyDB(dbname, o);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_GT(env.lost(), 0) << "DestroyDB removed no manifest";
  }
  ASSERT_FALSE(Env::Default()->FileExists(CurrentFileName(dbname)));
  ASSERT_TRUE(Env::Default()->FileExists(stale));

  // LevelDB's database at the path: tables in several levels, numbered
  // from its own NewDB on.
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", dbname, "--write_buffer_size=16384"},
      "fill 0 1200 100\nfill 600 300 60\n", dir + "/create");
  ASSERT_TRUE(made.ok) << made.err;
  const delsm_test::OracleRun dumped =
      delsm_test::RunOracle({"dump", dbname}, "", dir + "/dump");
  ASSERT_TRUE(dumped.ok) << dumped.err;
  ASSERT_TRUE(delsm_test::ParseOracleDump(dumped.out, leveldb_view));
  ASSERT_TRUE(Env::Default()->FileExists(stale))
      << "LevelDB's Open removed the stale manifest";
  *clashes = 0;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    uint64_t number;
    if (ParseLevelDbTableFileName(name, &number) &&
        replaced->count(number) > 0) {
      (*clashes)++;
    }
  }
}

// Whether LevelDB's tables take numbers the stale manifest records as
// replaced depends on how LevelDB's own compactions interleave their
// numbers with its WALs' (about one run in two): the state is made again,
// in a new directory, until they do.
TEST(LifecycleChainTest, ConvertedTablesTakeNoNumberAStaleManifestRemoved) {
  delsm_test::TempDir tmp("delsm_lifecycle_chain");
  std::string dbname;
  std::set<uint64_t> replaced;
  Contents leveldb_view;
  int clashes = 0;
  for (int attempt = 0; attempt < 20 && clashes == 0; attempt++) {
    const std::string dir = tmp.path() + "/" + std::to_string(attempt);
    ASSERT_EQ(0, mkdir(dir.c_str(), 0755)) << dir;
    MakeLevelDbDatabaseBesideAStaleManifest(dir, &replaced, &leveldb_view,
                                            &clashes);
    if (HasFatalFailure()) return;
    dbname = dir + "/db";
  }
  ASSERT_GT(clashes, 0) << "no LevelDB table is numbered as an SST the stale "
                           "manifest records as removed";

  EXPECT_EQ("", Difference(leveldb_view, ScanDelsm(dbname)))
      << "after the conversion";
  // No SST takes a number the stale manifest records as replaced (it
  // numbers SSTs past it; the Open after the conversion may then remove it
  // as a manifest older than its own).
  for (int level = 0; level < 7; level++) {
    for (const std::string& name :
         delsm_test::ListDir(dbname + "/L" + std::to_string(level))) {
      uint64_t number;
      EXPECT_FALSE(ParseSstDirName(name, &number) && replaced.count(number) > 0)
          << "L" << level << "/" << name
          << " is numbered as an SST the stale manifest records as replaced";
    }
  }
  ASSERT_TRUE(Env::Default()->RemoveFile(CurrentFileName(dbname)).ok());
  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(leveldb_view, ScanDelsm(dbname)))
      << "after RepairDB";
}

// A RepairDB that fails at its commit (EIO renaming CURRENT) keeps the
// manifest it wrote, numbered past every other, which records every old
// SST as replaced by the repair's outputs; the Open after it reads the old
// manifest and removes those outputs as directories no version holds.
// LevelDB's RepairDB then moves every DeLSM manifest to lost/ and names its
// own in CURRENT. DeLSM's RepairDB takes LevelDB's files in and brings
// DeLSM's manifests back: CURRENT, naming LevelDB's, no longer tells the
// uncommitted manifest from the others, and read, it sets every old SST
// aside, the only copy of the data.
TEST(LifecycleChainTest, UncommittedRepairManifestBroughtBackSetsNothingAside) {
  delsm_test::TempDir tmp("delsm_lifecycle_chain");
  const std::string dbname = tmp.path() + "/db";
  ASSERT_NO_FATAL_FAILURE(WriteDelsmDatabase(dbname));
  ASSERT_NO_FATAL_FAILURE(
      delsm_test::FailRepairAtRename(dbname, tmp.path() + "/shadow", "/CURRENT",
                                     "the repair renamed no CURRENT"));
  EXPECT_EQ("", Difference(Written(), ScanDelsm(dbname))) << "after the Open";
  ASSERT_LT(CurrentManifestNumber(dbname), Manifests(dbname).rbegin()->first)
      << "no manifest numbered past the one CURRENT names: the failed "
         "repair's is gone";

  const delsm_test::OracleRun repaired =
      delsm_test::RunOracle({"repair", dbname}, "", tmp.path() + "/repair");
  ASSERT_TRUE(repaired.ok) << "LevelDB's RepairDB: " << repaired.err;

  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(Written(), ScanDelsm(dbname)))
      << "after DeLSM's RepairDB";
}

// A compaction committed and was killed before it removed what it
// replaced (its unlinks fail here, as a kill after the commit leaves
// them); the next Open's sweep of L1 fails too (EIO), so the replaced
// SST's meta file stays, and so does the manifest that records it as
// replaced, beside the one this Open wrote (a snapshot, no history).
// LevelDB's RepairDB, killed at its first move of a manifest, has moved
// the WALs (which held nothing: it made no table) to lost/; the file
// system's listing decides which manifest LevelDB moves first, and here it
// moved the older one and was killed at its move of the other (what it
// does with the older one is done by hand: the rename ArchiveFile makes).
// The directory then holds DeLSM's manifest CURRENT names and the replaced
// SST, and the only record of its replacement is in lost/. Read without
// that record, the replaced SST's puts come back over the deletes the
// compaction dropped. With `power_cut`, the directory is what a power cut
// there leaves: the moves made, and LevelDB's own manifest, which it
// writes as 000001.dbtmp without a sync, empty.
void ExpectRepairAfterLevelDbRepairKilledBetweenTwoManifestMoves(
    bool power_cut) {
#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_lifecycle_chain");
  const std::string dbname = tmp.path() + "/db";
  delsm_test::ReplacedSstLeft spec;
  spec.keys = kKeys;
  spec.value = Value;
  spec.deleted = Deleted;
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeReplacedSstLeft(dbname, spec));
  const std::map<uint64_t, std::string> delsm_manifests = Manifests(dbname);
  ASSERT_EQ(2u, delsm_manifests.size());
  const std::string current = delsm_manifests.rbegin()->second;
  const std::string older = delsm_manifests.begin()->second;
  ASSERT_EQ(delsm_manifests.rbegin()->first, CurrentManifestNumber(dbname));

  std::string why;
  ASSERT_TRUE(delsm_test::KillLevelDbRepairAtFirstManifestMove(dbname, &why))
      << why;
  ASSERT_TRUE(Env::Default()->FileExists(dbname + "/" + current));
  if (Env::Default()->FileExists(dbname + "/" + older)) {
    ASSERT_TRUE(
        Env::Default()
            ->RenameFile(dbname + "/" + older, dbname + "/lost/" + older)
            .ok());
  }
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    ASSERT_EQ(std::string::npos, name.find(".ldb"))
        << "LevelDB made a table of a WAL that held nothing";
  }
  if (power_cut) {
    const std::string dbtmp = dbname + "/" + LevelDbRepairManifestName();
    ASSERT_TRUE(Env::Default()->FileExists(dbtmp));
    ASSERT_TRUE(WriteStringToFile(Env::Default(), "", dbtmp).ok());
  }

  const std::string copy = tmp.path() + "/open-copy";
  ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));

  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(Written(), ScanDelsm(dbname)))
      << "after DeLSM's RepairDB";
  EXPECT_EQ("", Difference(Written(), ScanDelsm(dbname)))
      << "after DeLSM's RepairDB and an Open";

  // DB::Open refuses it, changing nothing: it would leave the record of
  // the replaced SST in lost/ (and remove the temporary manifest that
  // tells LevelDB's RepairDB was here), for a later RepairDB to miss.
  const auto before = delsm_test::TreeSnapshot(copy);
  DB* raw = nullptr;
  const Status opened =
      delsm::Open(Options(), delsm_test::ManualCompactionOnly(), copy, &raw);
  delete raw;
  EXPECT_TRUE(opened.IsCorruption()) << opened.ToString();
  EXPECT_NE(std::string::npos, opened.ToString().find("run RepairDB"))
      << opened.ToString();
  EXPECT_TRUE(before == delsm_test::TreeSnapshot(copy))
      << "the refused Open changed the directory";
#else
  (void)power_cut;
  FAIL() << "needs the LevelDB oracle and x86-64 system call registers";
#endif
}

TEST(LifecycleChainTest, LevelDbRepairKilledBetweenTwoManifestMoves) {
  ExpectRepairAfterLevelDbRepairKilledBetweenTwoManifestMoves(false);
}

TEST(LifecycleChainTest, PowerCutBetweenTwoManifestMovesOfLevelDbsRepair) {
  ExpectRepairAfterLevelDbRepairKilledBetweenTwoManifestMoves(true);
}

// A LevelDB database whose last writes are only in its WAL. DB::Open's
// conversion commits (CURRENT names its manifest) and is cut short before
// it places its SSTs (EIO renaming the first out of the staging
// directory), leaving its PLAN, LevelDB's tables and the WAL, which the
// conversion had not replayed yet. LevelDB's RepairDB then makes a table
// of the WAL, moves the WAL to lost/, and is killed at its first move of
// a manifest: that table, which the PLAN does not name, is the only copy
// of the WAL's writes. DB::Open must not open the directory without them
// (it refuses, or opens with every write), and RepairDB brings them back.
TEST(LifecycleChainTest, LevelDbRepairKilledAfterAConversionCutShort) {
#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
  delsm_test::TempDir tmp("delsm_lifecycle_chain");
  const std::string dbname = tmp.path() + "/db";
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", dbname}, delsm_test::OracleTableAndWalCommands(100, 150, 100),
      tmp.path() + "/create");
  ASSERT_TRUE(made.ok) << made.err;
  // What `fill` wrote (a dump would open the database with LevelDB, which
  // makes a table of the WAL).
  Contents leveldb_view;
  for (unsigned i = 0; i < 150; i++) {
    leveldb_view[delsm_test::OracleFillKey(i)] =
        delsm_test::OracleFillValue(i, 100);
  }
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
  DatabaseFormat format;
  std::string evidence;
  ASSERT_TRUE(
      DetectDatabaseFormat(Env::Default(), dbname, &format, &evidence).ok());
  ASSERT_EQ(DatabaseFormat::kDelsm, format) << "the conversion did not commit";
  ASSERT_TRUE(Env::Default()->FileExists(dbname + "/leveldb-conversion/PLAN"));

  std::string why;
  ASSERT_TRUE(delsm_test::KillLevelDbRepairAtFirstManifestMove(dbname, &why))
      << why;
  bool wal_in_lost = false;
  for (const std::string& name : delsm_test::ListDir(dbname + "/lost")) {
    wal_in_lost |= delsm_test::EndsWith(name, ".log");
  }
  ASSERT_TRUE(wal_in_lost) << "LevelDB's RepairDB moved no WAL to lost/";

  DB* raw = nullptr;
  const Status opened =
      delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  if (opened.ok()) {
    std::unique_ptr<DB> db(raw);
    EXPECT_EQ("", Difference(leveldb_view, Scan(db.get())))
        << "DB::Open returned OK";
  } else {
    EXPECT_TRUE(opened.IsCorruption()) << opened.ToString();
  }
  const Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Difference(leveldb_view, ScanDelsm(dbname)))
      << "after DeLSM's RepairDB";
#else
  FAIL() << "needs the LevelDB oracle and x86-64 system call registers";
#endif
}

// An empty 000001.dbtmp beside a DeLSM database that a RepairDB has run on
// (the manifests it replaced are in lost/, which the directory no longer
// holds): what a power cut leaves of LevelDB's RepairDB's own manifest,
// and of the CURRENT switch of a new DeLSM database made before that
// repair (DeLSM's NewDB names its manifest MANIFEST-000001 and writes
// 000001.dbtmp; a RepairDB that commits there does not remove it). Open
// cannot tell the two apart and refuses, changing nothing; RepairDB takes
// the manifests in lost/ back, moves the file to lost/, and keeps every
// key, no deleted key back.
TEST(LifecycleChainTest, EmptyDbtmpBesideARepairedDatabase) {
  delsm_test::TempDir tmp("delsm_lifecycle_chain");
  const std::string dbname = tmp.path() + "/db";
  ASSERT_NO_FATAL_FAILURE(WriteDelsmDatabase(dbname));
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  bool moved = false;
  for (const auto& m : Manifests(dbname + "/lost")) {
    moved |= !Env::Default()->FileExists(dbname + "/" + m.second);
  }
  ASSERT_TRUE(moved) << "the repair left no manifest in lost/";
  {
    DB* raw = nullptr;
    s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname,
                    &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    db->CompactRange(nullptr, nullptr);
    EXPECT_EQ("", Difference(Written(), Scan(db.get())));
  }
  const std::string dbtmp = dbname + "/" + LevelDbRepairManifestName();
  ASSERT_FALSE(Env::Default()->FileExists(dbtmp));
  ASSERT_TRUE(WriteStringToFile(Env::Default(), "", dbtmp).ok());

  const auto before = delsm_test::TreeSnapshot(dbname);
  DB* raw = nullptr;
  const Status opened =
      delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  delete raw;
  EXPECT_TRUE(opened.IsCorruption()) << opened.ToString();
  EXPECT_TRUE(before == delsm_test::TreeSnapshot(dbname))
      << "the refused Open changed the directory";

  s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_FALSE(Env::Default()->FileExists(dbtmp));
  EXPECT_EQ("", Difference(Written(), ScanDelsm(dbname)))
      << "after DeLSM's RepairDB";
  EXPECT_EQ("", Difference(Written(), ScanDelsm(dbname)))
      << "after DeLSM's RepairDB and an Open";
}

}  // namespace
}  // namespace leveldb
