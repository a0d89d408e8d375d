// RepairDB on a database Debian's LevelDB wrote, one of whose tables has a
// damaged data block: DeLSM's repair (which takes LevelDB's tables in as
// SSTs) must end with the same keys and values as LevelDB's own RepairDB
// of the same files, with paranoid_checks (LevelDB's only mode that sees
// the damage; tests/leveldb_oracle runs it in its own process). LevelDB's
// repair loses the damaged block's records and keeps every other block of
// the table. A repair that gave up on the rest of the table at the damage
// would lose the later blocks' records too, and where they deleted or
// rewrote a key an older table still holds, the key would read its old
// value: a deleted key back.
#include <unistd.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "testing/fault_injection_env.h"
#include "testing/read_error_env.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/leveldb_table_layout.h"
#include "tests/leveldb_two_rounds.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::FlipByte;
using delsm_test::ListDir;
using delsm_test::ReadWholeFile;
using delsm_test::TempDir;

constexpr int kKeys = 600;
constexpr size_t kValueSize = 60;

// The database is delsm_test's two rounds (tests/leveldb_two_rounds.h).
using delsm_test::SecondRoundDeletes;
using delsm_test::SecondRoundRewrites;
using delsm_test::SecondRoundValue;

delsm_test::OracleRun Oracle(std::vector<std::string> args,
                             const std::string& input,
                             const std::string& scratch) {
  const auto& flags = delsm_test::TwoRoundsFlags();
  args.insert(args.end(), flags.begin(), flags.end());
  return delsm_test::RunOracle(args, input, scratch);
}

class LevelDbTableRepairTest : public testing::Test {
 protected:
  // Makes pristine_ (LevelDB's database, one data block of its newest
  // table damaged) and expected_ (what LevelDB's RepairDB of a copy of it
  // keeps).
  void SetUp() override {
    pristine_ = tmp_.path() + "/pristine";
    // Old values compacted below; then the deletes and rewrites, which the
    // reopen makes a table of their own above them.
    const std::string commands =
        delsm_test::TwoRoundsCommands(kKeys, static_cast<int>(kValueSize));
    delsm_test::OracleRun run =
        Oracle({"create", pristine_}, commands, tmp_.path() + "/create");
    ASSERT_TRUE(run.ok) << run.err;

    // Damage the second data block of the newest table, which holds the
    // deletes and rewrites: blocks after it hold more of them.
    newest_ = delsm_test::NewestLevelDbTable(pristine_);
    ASSERT_FALSE(newest_.empty());
    const std::string data = ReadWholeFile(pristine_ + "/" + newest_);
    const auto blocks = delsm_test::LevelDbDataBlocks(data);
    ASSERT_GE(blocks.size(), 4u);
    const auto& victim = blocks[1];
    std::set<std::string> later_keys;  // user keys of the blocks after it
    for (size_t b = 2; b < blocks.size(); b++) {
      for (const std::string& k : delsm_test::LevelDbBlockUserKeys(
               Slice(data.data() + blocks[b].first, blocks[b].second))) {
        later_keys.insert(k);
      }
    }
    ASSERT_FALSE(later_keys.empty());
    ASSERT_TRUE(
        FlipByte(pristine_ + "/" + newest_, victim.first + victim.second / 2));

    // LevelDB's RepairDB of one copy: what it keeps.
    const std::string by_leveldb = tmp_.path() + "/by-leveldb";
    ASSERT_EQ("", delsm_test::CopyTree(pristine_, by_leveldb));
    run = Oracle({"repair", by_leveldb, "--paranoid_checks"}, "",
                 tmp_.path() + "/repair");
    ASSERT_TRUE(run.ok) << run.err;
    run = Oracle({"dump", by_leveldb}, "", tmp_.path() + "/dump");
    ASSERT_TRUE(run.ok) << run.err;
    ASSERT_TRUE(delsm_test::ParseOracleDump(run.out, &expected_));

    // The oracle's answer is the one that tells a repair that keeps the
    // later blocks from one that does not: their keys read as the second
    // round left them.
    int later_deleted = 0;
    for (int i = 0; i < kKeys; i++) {
      const std::string key = delsm_test::OracleFillKey(i);
      if (later_keys.count(key) == 0) continue;
      if (SecondRoundDeletes(i)) {
        EXPECT_EQ(0u, expected_.count(key)) << key;
        later_deleted++;
      } else if (SecondRoundRewrites(i)) {
        EXPECT_EQ(SecondRoundValue(i), expected_[key]) << key;
      }
    }
    ASSERT_GT(later_deleted, 0);
  }

  // A fresh copy of pristine_.
  std::string Copy() {
    const std::string copy =
        tmp_.path() + "/by-delsm" + std::to_string(copies_++);
    EXPECT_EQ("", delsm_test::CopyTree(pristine_, copy));
    return copy;
  }

  // DeLSM reads expected_ from `dbname` (after its RepairDB), and keeps the
  // damaged table in lost/.
  void ExpectRepaired(const std::string& dbname) {
    Options options;
    DB* raw = nullptr;
    Status s = DB::Open(options, dbname, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    std::map<std::string, std::string> got;
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      got[it->key().ToString()] = it->value().ToString();
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(expected_.size(), got.size());
    for (const auto& kv : expected_) {
      auto g = got.find(kv.first);
      if (g == got.end()) {
        ADD_FAILURE() << kv.first << " lost (LevelDB's repair keeps it)";
      } else {
        EXPECT_EQ(kv.second, g->second) << kv.first;
      }
    }
    for (const auto& kv : got) {
      if (expected_.count(kv.first) == 0) {
        ADD_FAILURE() << kv.first << " = " << kv.second
                      << " is back (LevelDB's repair has it deleted)";
      }
    }
    bool kept = false;
    for (const std::string& n : ListDir(dbname + "/lost")) {
      if (n == "leveldb-" + newest_) kept = true;
    }
    EXPECT_TRUE(kept) << "no lost/leveldb-" << newest_;
  }

  TempDir tmp_;
  std::string pristine_;
  std::string newest_;  // the damaged table's name
  std::map<std::string, std::string> expected_;
  int copies_ = 0;
};

TEST_F(LevelDbTableRepairTest, DamagedBlockLosesOnlyItsOwnRecords) {
  const std::string dbname = Copy();
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectRepaired(dbname);
}

// The repair cut short (EIO) at each move of a LevelDB file into lost/
// (the tables, then LevelDB's manifest: after the first, the directory is
// no longer a LevelDB database LevelDB could open), then run again: the
// same result. The tables moved before the cut were taken in first, so
// the second repair finds their SSTs and takes in those left.
TEST_F(LevelDbTableRepairTest, CutShortAtEachMoveToLostThenRepairedAgain) {
  int moves = 0;
  for (uint64_t nth = 1;; nth++) {
    SCOPED_TRACE("the move into lost/ number " + std::to_string(nth) +
                 " fails");
    const std::string dbname = Copy();
    bool fired;
    {
      FaultInjectionEnv env(Env::Default(),
                            tmp_.path() + "/shadow" + std::to_string(nth));
      FaultSpec into_lost;
      into_lost.nth = nth;
      into_lost.path_contains = "/lost/leveldb-";
      env.Arm(EnvOp::kRename, into_lost);
      Options o;
      o.env = &env;
      Status s = RepairDB(dbname, o);
      fired = env.Fired();
      EXPECT_EQ(fired, !s.ok()) << s.ToString();
    }
    if (!fired) break;  // every move was cut at once
    moves++;
    Status s = RepairDB(dbname, Options());
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectRepaired(dbname);
    if (HasFailure()) break;
  }
  EXPECT_GE(moves, 3) << "expected at least two tables and a manifest moved";
}

// A repair that fails on a read error (not damage) in the middle of taking
// in the tables leaves the LevelDB database as it was: LevelDB repairs it,
// runs on (here deleting a key and compacting, which drops the key's old
// value), and DeLSM's RepairDB then repairs what LevelDB left. SSTs left
// by the failed take-in would hold the old value, and that repair would
// merge them: a deleted key back.
TEST_F(LevelDbTableRepairTest, FailedTakeInLeavesNoSstsBehind) {
  const std::string dbname = Copy();
  ASSERT_EQ(0, ::unlink((dbname + "/CURRENT").c_str()));  // not convertible
  {
    ReadErrorEnv env(Env::Default());
    env.set_failing_reads("/" + newest_);  // the last table taken in
    Options o;
    o.env = &env;
    Status s = RepairDB(dbname, o);
    ASSERT_TRUE(s.IsIOError()) << s.ToString();
    ASSERT_GT(env.failed_reads(), 0);
  }
  delsm_test::OracleRun run =
      Oracle({"repair", dbname}, "", tmp_.path() + "/repair-after-eio");
  ASSERT_TRUE(run.ok) << run.err;
  const std::string untouched = delsm_test::OracleFillKey(2);
  ASSERT_FALSE(SecondRoundDeletes(2) || SecondRoundRewrites(2));
  run = Oracle({"create", dbname},
               "delete " + delsm_test::OracleHex(untouched) + "\nflush\n",
               tmp_.path() + "/delete-after-eio");
  ASSERT_TRUE(run.ok) << run.err;

  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  DB* raw = nullptr;
  s = DB::Open(Options(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  std::string value;
  s = db->Get(ReadOptions(), untouched, &value);
  EXPECT_TRUE(s.IsNotFound())
      << untouched << " = " << value << " is back (LevelDB deleted it)";
}

}  // namespace
}  // namespace leveldb
