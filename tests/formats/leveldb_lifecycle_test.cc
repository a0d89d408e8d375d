// DestroyDB and RepairDB on the directories a user who moves between
// LevelDB and DeLSM can have, each checked against Debian's LevelDB
// (tests/leveldb_oracle, its own process) doing its part for real:
//   * DestroyDB on a LevelDB database DeLSM has not converted (with the
//     staging directory of a conversion cut short) removes what LevelDB's
//     own DestroyDB removes plus DeLSM's directories, and nothing else, so
//     that Open(create_if_missing) then makes a new database there;
//   * a DeLSM database that LevelDB's RepairDB has rewritten (LevelDB's
//     manifest, maybe tables LevelDB made from the WALs, DeLSM's level
//     directories left as they were): DB::Open refuses it with a Status
//     that says so and tells the user to run RepairDB, changing nothing;
//     DeLSM's RepairDB then brings back every key, newest version winning.
// The same rewrite over an SST a compaction replaced, LevelDB's RepairDB
// killed on its way, and DeLSM's repair of it cut short or failing:
// leveldb_repair_replaced_sst_test.cc.
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/db_contents.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using delsm_test::Contents;
using delsm_test::Key;
using delsm_test::LevelDbTableFiles;
using delsm_test::ListDir;
using delsm_test::Scan;
using delsm_test::SnapshotChanges;

// SST directories under the level directories, as "Ln/NNNNNN.sst".
std::vector<std::string> SstDirs(const std::string& db) {
  std::vector<std::string> out;
  for (int level = 0; level < 7; level++) {
    const std::string l = "L" + std::to_string(level);
    for (const std::string& d : ListDir(db + "/" + l)) {
      out.push_back(l + "/" + d);
    }
  }
  return out;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

// Sizes alternate so that some values are inline and some KV files.
std::string Value(int i, int gen) {
  std::string v = std::to_string(i) + "/" + std::to_string(gen) + ":";
  const size_t size = (i % 3 == 0) ? 40 : 150;
  while (v.size() < size) v.push_back(static_cast<char>('a' + (i + gen) % 26));
  return v;
}

class LevelDbLifecycleTest : public testing::Test {
 protected:
  LevelDbLifecycleTest() : db_(tmp_.path() + "/db") {
    tuning_.inline_threshold = 64;
    tuning_.l0_compaction_entries = 400;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
  }

  leveldb::Status OpenDelsm(bool create, std::unique_ptr<leveldb::DB>* db) {
    leveldb::Options options;
    options.create_if_missing = create;
    options.write_buffer_size = 64 << 10;
    leveldb::DB* raw = nullptr;
    leveldb::Status s = delsm::Open(options, tuning_, db_, &raw);
    db->reset(raw);
    return s;
  }

  delsm_test::OracleRun Oracle(const std::vector<std::string>& args,
                               const std::string& input = "") {
    return delsm_test::RunOracle(
        args, input, tmp_.path() + "/oracle" + std::to_string(n_++));
  }

  delsm_test::TempDir tmp_{"delsm_leveldb_lifecycle"};
  const std::string db_;
  delsm::Tuning tuning_;
  int n_ = 0;
};

// What a conversion cut short before its commit leaves: SST directories
// staged in leveldb-conversion/ and its PLAN.
void AddStagedConversion(const std::string& db) {
  const std::string staging = db + "/leveldb-conversion";
  ASSERT_EQ(0, mkdir(staging.c_str(), 0755));
  ASSERT_EQ(0, mkdir((staging + "/000100.sst").c_str(), 0755));
  WriteFile(staging + "/000100.sst/META", "a staged meta file");
  WriteFile(staging + "/000100.sst/key%3A1@00000000000001", "a value");
  WriteFile(staging + "/PLAN", "DeLSM conversion of a LevelDB database, v1\n");
}

// The user's own files beside the database, which no DestroyDB may take.
void AddUserFiles(const std::string& db) {
  WriteFile(db + "/notes.txt", "the user's notes");
  WriteFile(db + "/000123.txt", "numbered, but not a database file");
  ASSERT_EQ(0, mkdir((db + "/mine").c_str(), 0755));
  WriteFile(db + "/mine/000005.ldb", "a file named like a table, elsewhere");
}

// What LevelDB's DestroyDB removes of a copy, plus the staging directory
// of a conversion cut short, and nothing of the user's.
TEST_F(LevelDbLifecycleTest, DestroyDbOnAnUnconvertedLevelDbDatabase) {
  // Tables on disk and a WAL tail only the log holds.
  const delsm_test::OracleRun made =
      Oracle({"create", db_, "--write_buffer_size=65536", "--no_close"},
             "fill 0 3000 100\nflush\nfill 3000 300 100\n");
  ASSERT_TRUE(made.ok) << made.err;
  ASSERT_FALSE(LevelDbTableFiles(db_).empty());
  ASSERT_NO_FATAL_FAILURE(AddStagedConversion(db_));
  ASSERT_NO_FATAL_FAILURE(AddUserFiles(db_));

  // What Debian's LevelDB leaves of a copy.
  const std::string copy = tmp_.path() + "/leveldb-copy";
  ASSERT_EQ("", delsm_test::CopyTree(db_, copy));
  const delsm_test::OracleRun destroyed = Oracle({"destroy", copy});
  ASSERT_TRUE(destroyed.ok) << destroyed.err;
  std::vector<std::string> want = ListDir(copy);
  // LevelDB does not know DeLSM's staging directory; DeLSM removes it.
  auto staging = std::find(want.begin(), want.end(), "leveldb-conversion");
  ASSERT_NE(want.end(), staging) << "LevelDB removed the staging directory";
  want.erase(staging);
  EXPECT_EQ((std::vector<std::string>{"000123.txt", "mine", "notes.txt"}),
            want);

  leveldb::Status s = leveldb::DestroyDB(db_, leveldb::Options());
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(want, ListDir(db_));
  EXPECT_EQ("the user's notes", delsm_test::ReadWholeFile(db_ + "/notes.txt"));
  EXPECT_EQ("a file named like a table, elsewhere",
            delsm_test::ReadWholeFile(db_ + "/mine/000005.ldb"));

  // A new, empty database can be made there.
  {
    std::unique_ptr<leveldb::DB> db;
    s = OpenDelsm(true, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(Scan(db.get()).empty());
    ASSERT_TRUE(db->Put(leveldb::WriteOptions(), "k", "v").ok());
  }
  std::unique_ptr<leveldb::DB> db;
  s = OpenDelsm(false, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((Contents{{"k", "v"}}), Scan(db.get()));
}

// DeLSM's DestroyDB on a LevelDB-repaired DeLSM database and on a DeLSM
// database with the staging directory a crash left: everything of the
// database goes, the user's files stay.
TEST_F(LevelDbLifecycleTest, DestroyDbOnADelsmDatabaseWithLeftovers) {
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDelsm(true, &db).ok());
    for (int i = 0; i < 2000; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)).ok());
    }
  }
  ASSERT_FALSE(SstDirs(db_).empty());
  ASSERT_NO_FATAL_FAILURE(AddStagedConversion(db_));
  ASSERT_NO_FATAL_FAILURE(AddUserFiles(db_));
  leveldb::Status s = leveldb::DestroyDB(db_, leveldb::Options());
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((std::vector<std::string>{"000123.txt", "mine", "notes.txt"}),
            ListDir(db_));
}

// What the DeLSM database's WALs hold when LevelDB's RepairDB turns them
// into LevelDB tables.
enum WalsAtRepair {
  kNoWalData,        // nothing: every write is in SST directories
  kWalTail,          // writes no SST has, overwriting and deleting older ones
  kFlushedWalsKept,  // kDeferred: WALs outlive their flushes, so the tables
                     // repeat what SST directories hold (exact duplicates)
  kFlushedWalsKeptManySsts,  // the same with SSTs of 100 entries: the
                             // compactions hand out numbers past every WAL's,
                             // so LevelDB's tables take numbers DeLSM's SSTs
                             // and manifests use
};

class LevelDbRepairedTest : public LevelDbLifecycleTest,
                            public testing::WithParamInterface<WalsAtRepair> {};

TEST_P(LevelDbRepairedTest, OpenRefusesAndRepairDbRecoversEveryKey) {
  const bool wal_tail = GetParam() == kWalTail;
  const bool wals_kept =
      GetParam() == kFlushedWalsKept || GetParam() == kFlushedWalsKeptManySsts;
  if (wals_kept) tuning_.durability = delsm::Durability::kDeferred;
  if (GetParam() == kFlushedWalsKeptManySsts) tuning_.sst_entries = 100;
  Contents model;
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDelsm(true, &db).ok());
    if (wals_kept) {
      // A compaction retires the WALs of the flushes before it; this case
      // needs WALs that outlive their flushes' trip out of L0, as a crash
      // before that compaction leaves them.
      static_cast<leveldb::DBImpl*>(db.get())->TEST_KeepDeferredLogs();
    }
    for (int i = 0; i < 3000; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)).ok());
      model[Key(i)] = Value(i, 1);
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < 1000; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 2)).ok());
      model[Key(i)] = Value(i, 2);
    }
    for (int i = 2000; i < 2100; i++) {
      ASSERT_TRUE(db->Delete(leveldb::WriteOptions(), Key(i)).ok());
      model.erase(Key(i));
    }
    db->CompactRange(nullptr, nullptr);
  }
  if (wal_tail) {
    // Reopened: these are in the WAL only when the DB is closed.
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDelsm(false, &db).ok());
    for (int i = 500; i < 700; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 3)).ok());
      model[Key(i)] = Value(i, 3);
    }
    for (int i = 100; i < 150; i++) {
      ASSERT_TRUE(db->Delete(leveldb::WriteOptions(), Key(i)).ok());
      model.erase(Key(i));
    }
    for (int i = 5000; i < 5100; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 3)).ok());
      model[Key(i)] = Value(i, 3);
    }
  }
  ASSERT_FALSE(SstDirs(db_).empty());

  // The user goes back to LevelDB without `delsm export`: LevelDB refuses
  // DeLSM's manifest, and the user runs LevelDB's RepairDB.
  EXPECT_FALSE(Oracle({"dump", db_}).ok);
  const delsm_test::OracleRun repaired = Oracle({"repair", db_});
  ASSERT_TRUE(repaired.ok) << repaired.err;
  EXPECT_EQ(GetParam() != kNoWalData, !LevelDbTableFiles(db_).empty());
  ASSERT_FALSE(SstDirs(db_).empty()) << "LevelDB's repair took L0..L6";
  // LevelDB now reads only what it made of the WALs (all of it when every
  // WAL was kept).
  Contents leveldb_view;
  const delsm_test::OracleRun dump = Oracle({"dump", db_});
  ASSERT_TRUE(dump.ok) << dump.err;
  ASSERT_TRUE(delsm_test::ParseOracleDump(dump.out, &leveldb_view));
  if (!wals_kept) {
    EXPECT_LT(leveldb_view.size(), model.size());
  }

  // DeLSM's Open refuses it, names the situation and the way out, and
  // changes nothing, with or without create_if_missing.
  const auto before = delsm_test::TreeSnapshot(db_);
  for (bool create : {false, true}) {
    std::unique_ptr<leveldb::DB> db;
    const leveldb::Status s = OpenDelsm(create, &db);
    if (create) std::printf("DB::Open: %s\n", s.ToString().c_str());
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("LevelDB's RepairDB"))
        << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("run RepairDB"))
        << s.ToString();
    EXPECT_EQ(std::vector<std::string>(),
              SnapshotChanges(before, delsm_test::TreeSnapshot(db_)));
  }

  // DeLSM's RepairDB brings every key back.
  leveldb::Options options;
  const std::vector<std::string> dirs_before = SstDirs(db_);
  leveldb::Status s = leveldb::RepairDB(db_, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Each LevelDB table became an L0 SST directory that did not exist
  // before; none may take a number DeLSM's manifest records as replaced
  // (the merge would skip it and lose what it holds).
  {
    std::ifstream log(db_ + "/LOG");
    std::string line;
    while (std::getline(log, line)) {
      if (line.find("replaced by a committed compaction") == std::string::npos)
        continue;
      const size_t at = line.find("/L0/");
      if (at == std::string::npos) continue;
      const std::string dir =
          line.substr(at + 1, line.find('/', at + 4) - at - 1);
      EXPECT_NE(dirs_before.end(),
                std::find(dirs_before.begin(), dirs_before.end(), dir))
          << "a LevelDB table taken in as " << dir
          << " was not merged: " << line;
    }
  }
  EXPECT_TRUE(LevelDbTableFiles(db_).empty());
  for (int pass = 0; pass < 2; pass++) {
    std::unique_ptr<leveldb::DB> db;
    s = OpenDelsm(false, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const Contents got = Scan(db.get());
    EXPECT_EQ(model.size(), got.size());
    EXPECT_TRUE(model == got);
    for (int i : {0, 120, 600, 999, 1000, 2050, 2999, 5050}) {
      std::string v;
      const leveldb::Status g = db->Get(leveldb::ReadOptions(), Key(i), &v);
      if (model.count(Key(i)) == 0) {
        EXPECT_TRUE(g.IsNotFound()) << Key(i) << ": " << g.ToString();
      } else {
        EXPECT_TRUE(g.ok()) << Key(i) << ": " << g.ToString();
        EXPECT_EQ(model[Key(i)], v) << Key(i);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Wals, LevelDbRepairedTest,
                         testing::Values(kNoWalData, kWalTail, kFlushedWalsKept,
                                         kFlushedWalsKeptManySsts),
                         [](const testing::TestParamInfo<WalsAtRepair>& info) {
                           return info.param == kNoWalData ? "SstsOnly"
                                  : info.param == kWalTail ? "WithWalTail"
                                  : info.param == kFlushedWalsKept
                                      ? "FlushedWalsKept"
                                      : "FlushedWalsKeptManySsts";
                         });

}  // namespace
