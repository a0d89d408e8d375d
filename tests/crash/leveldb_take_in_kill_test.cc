// RepairDB's take-in of LevelDB's tables (compat/leveldb/conversion.h,
// TakeInLevelDbTables) killed with SIGKILL at each of its disk calls in
// turn, on a fresh copy of a database Debian's LevelDB wrote, which DeLSM
// cannot convert as it is (tests/crash/kill_at_each_call.h is the rig).
// After each kill the user does what that directory then allows:
//  - LevelDB can still use it (before the take-in's commit): LevelDB goes
//    on, deleting keys and compacting them away (CompactRange over the
//    whole database drops their old values and the tombstones), then
//    DeLSM's RepairDB runs. It must read exactly what LevelDB read last:
//    every key LevelDB holds, with its value, and none that LevelDB
//    deleted. SSTs the killed take-in had made, left where the next
//    RepairDB takes them for DeLSM's data, would bring the deleted keys
//    back with their old values. On a copy, DeLSM's RepairDB run at once
//    instead must end as the next case does.
//  - LevelDB cannot (after the commit): DeLSM's RepairDB runs again and
//    must end with what LevelDB's own RepairDB (paranoid) keeps of the
//    database as it was, after an application's DB::Open with
//    create_if_missing first. Where the take-in was committed and the
//    repair after it has not (its PLAN still staged), that Open must
//    refuse the directory, pointing to RepairDB.
// The sweep covers the whole RepairDB: the take-in, then DeLSM's repair.
// Two databases: one table with a damaged data block (its checksum; LevelDB
// without paranoid_checks does not verify it and opens the database as it
// is, DeLSM's conversion refuses it) and the same with CURRENT lost (LevelDB
// needs its RepairDB first, which works while every table is in place).
// LevelDB runs in its own process (tests/leveldb_oracle).
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/crash/kill_at_each_call.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/leveldb_table_layout.h"
#include "tests/leveldb_two_rounds.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using Contents = std::map<std::string, std::string>;

constexpr int kKeys = 600;
constexpr size_t kValueSize = 60;

// The database is delsm_test's two rounds (tests/leveldb_two_rounds.h);
// after a kill, LevelDB deletes some of the keys the second left alone.
bool DeletedAfterTheKill(int i) { return i % 3 == 2 && i % 5 == 0; }

// The oracle's arguments with the two rounds' flags.
std::vector<std::string> WithFlags(std::vector<std::string> args) {
  const auto& flags = delsm_test::TwoRoundsFlags();
  args.insert(args.end(), flags.begin(), flags.end());
  return args;
}

// What DeLSM reads from `dbname`; "" or what failed in *error.
Contents ReadWithDelsm(const std::string& dbname, std::string* error) {
  Contents got;
  DB* raw = nullptr;
  Status s = DB::Open(Options(), dbname, &raw);
  if (!s.ok()) {
    *error = "open: " + s.ToString();
    return got;
  }
  std::unique_ptr<DB> db(raw);
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    got[it->key().ToString()] = it->value().ToString();
  }
  if (!it->status().ok()) *error = "scan: " + it->status().ToString();
  return got;
}

// "" if `got` is `want`; else the first difference: a key lost, a key back
// that `want` does not hold (deleted), or another value.
std::string Compare(const Contents& want, const Contents& got) {
  for (const auto& kv : want) {
    auto g = got.find(kv.first);
    if (g == got.end()) return kv.first + " lost";
    if (g->second != kv.second) {
      return kv.first + " = " + g->second + ", not " + kv.second;
    }
  }
  for (const auto& kv : got) {
    if (want.count(kv.first) == 0) {
      return kv.first + " = " + kv.second + " is back (deleted)";
    }
  }
  return "";
}

TEST(LevelDbTakeInKilledChild, Child) {
  delsm_test::RunKilledChild(Options(), delsm::Tuning());
}

class LevelDbTakeInKill : public testing::Test {
 protected:
  // Makes pristine_ (LevelDB's database, one data block of its newest table
  // with a damaged checksum) and expected_ (what LevelDB's paranoid
  // RepairDB of a copy keeps).
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    pristine_ = tmp_.path() + "/pristine";
    const std::string commands =
        delsm_test::TwoRoundsCommands(kKeys, static_cast<int>(kValueSize));
    delsm_test::OracleRun run =
        Oracle(WithFlags({"create", pristine_}), commands);
    ASSERT_TRUE(run.ok) << run.err;

    // One byte of the second data block's checksum (the four bytes after
    // the block's type byte): LevelDB reads the block as it is unless told
    // to verify checksums; DeLSM always does.
    const std::string newest = delsm_test::NewestLevelDbTable(pristine_);
    ASSERT_FALSE(newest.empty());
    const std::string data =
        delsm_test::ReadWholeFile(pristine_ + "/" + newest);
    const auto blocks = delsm_test::LevelDbDataBlocks(data);
    ASSERT_GE(blocks.size(), 3u);
    ASSERT_TRUE(delsm_test::FlipByte(pristine_ + "/" + newest,
                                     blocks[1].first + blocks[1].second + 2));
    for (const std::string& n : delsm_test::ListDir(pristine_)) {
      if (n.size() > 4 && n.substr(n.size() - 4) == ".ldb") {
        tables_.push_back(n);
      }
    }
    ASSERT_GE(tables_.size(), 2u);

    // LevelDB's paranoid RepairDB of a copy: what a repair keeps.
    const std::string by_leveldb = tmp_.path() + "/by-leveldb";
    ASSERT_EQ("", delsm_test::CopyTree(pristine_, by_leveldb));
    run = Oracle(WithFlags({"repair", by_leveldb, "--paranoid_checks"}), "");
    ASSERT_TRUE(run.ok) << run.err;
    ASSERT_TRUE(DumpWithLevelDb(by_leveldb, &expected_));
    delsm_test::RemoveTree(by_leveldb);
    // LevelDB as it is reads more: the damaged block's keys.
    Contents as_is;
    ASSERT_TRUE(DumpWithLevelDb(pristine_, &as_is));
    ASSERT_NE(expected_, as_is) << "the damage costs LevelDB's repair nothing";
  }

  delsm_test::OracleRun Oracle(const std::vector<std::string>& args,
                               const std::string& input) {
    return delsm_test::RunOracle(
        args, input, tmp_.path() + "/oracle" + std::to_string(runs_++));
  }

  // What LevelDB (as a user runs it: no paranoid checks) reads from
  // `dbname`; false if it refuses to open it.
  bool DumpWithLevelDb(const std::string& dbname, Contents* contents) {
    delsm_test::OracleRun run = Oracle({"dump", dbname}, "");
    if (!run.ok) return false;
    EXPECT_TRUE(delsm_test::ParseOracleDump(run.out, contents)) << run.out;
    return true;
  }

  // Whether every table of the pristine database is in `dbname`.
  bool TablesInPlace(const std::string& dbname) {
    for (const std::string& t : tables_) {
      if (access((dbname + "/" + t).c_str(), F_OK) != 0) return false;
    }
    return true;
  }

  // LevelDB goes on with `dbname`: deletes the keys DeletedAfterTheKill
  // names and compacts the whole database; *model is what it reads then.
  // "" or what failed.
  std::string LevelDbGoesOn(const std::string& dbname, Contents* model) {
    std::string commands;
    for (int i = 0; i < kKeys; i++) {
      if (DeletedAfterTheKill(i)) {
        commands += "delete " +
                    delsm_test::OracleHex(delsm_test::OracleFillKey(i)) + "\n";
      }
    }
    commands += "flush\n";
    delsm_test::OracleRun run = Oracle(WithFlags({"create", dbname}), commands);
    if (!run.ok) return "LevelDB's deletes: " + run.err;
    if (!DumpWithLevelDb(dbname, model)) return "LevelDB's dump failed";
    for (int i = 0; i < kKeys; i++) {
      if (DeletedAfterTheKill(i) &&
          model->count(delsm_test::OracleFillKey(i)) > 0) {
        return "LevelDB still reads " + delsm_test::OracleFillKey(i);
      }
    }
    return "";
  }

  // DeLSM's RepairDB of `dbname` to the end; "" if it then reads `want`.
  std::string RepairAndCompare(const std::string& dbname,
                               const Contents& want) {
    Status s = RepairDB(dbname, Options());
    if (!s.ok()) return "RepairDB: " + s.ToString();
    std::string error;
    const Contents got = ReadWithDelsm(dbname, &error);
    if (!error.empty()) return error;
    return Compare(want, got);
  }

  // Kills a RepairDB of `pristine` at each of its disk calls; after each,
  // the check the top of this file describes. `lost_current`: the database
  // has no CURRENT, so LevelDB takes it back by its RepairDB, which it can
  // while every table is in place.
  void Sweep(const std::string& pristine, bool lost_current) {
    uint64_t calls = 0;
    {
      const std::string copy = tmp_.path() + "/measure";
      ASSERT_EQ("", delsm_test::CopyTree(pristine, copy));
      Status s = delsm_test::RunCountingDiskCalls(
          delsm_test::KilledOperation::kRepairDB, Options(), delsm::Tuning(),
          copy, tmp_.path() + "/shadow", &calls);
      ASSERT_TRUE(s.ok()) << s.ToString();
      std::string error;
      EXPECT_EQ("", Compare(expected_, ReadWithDelsm(copy, &error)));
      ASSERT_EQ("", error);
      delsm_test::RemoveTree(copy);
    }
    ASSERT_GT(calls, 0u);
    delsm_test::KillAtEachCall sweep;
    sweep.child = "LevelDbTakeInKilledChild.Child";
    sweep.operation = delsm_test::KilledOperation::kRepairDB;
    sweep.pristine = pristine;
    sweep.work = tmp_.path() + "/work";
    sweep.shadow = tmp_.path() + "/child_shadow";
    sweep.calls = calls;
    int leveldb_went_on = 0, repaired_again = 0, committed_unfinished = 0;
    const delsm_test::KillCheck check = [&](const std::string& work,
                                            uint64_t) -> std::string {
      Contents model;  // what LevelDB reads, where it can
      if (lost_current ? TablesInPlace(work) : DumpWithLevelDb(work, &model)) {
        leveldb_went_on++;
        // On a copy, the user runs DeLSM's RepairDB again at once.
        const std::string at_once = work + "-at-once";
        if (!delsm_test::CopyTree(work, at_once).empty()) return "copy failed";
        std::string problem = RepairAndCompare(at_once, expected_);
        delsm_test::RemoveTree(at_once);
        if (!problem.empty()) return "repaired at once: " + problem;
        // Or LevelDB goes on (after its RepairDB, without CURRENT).
        if (lost_current) {
          delsm_test::OracleRun run = Oracle(WithFlags({"repair", work}), "");
          if (!run.ok) return "LevelDB's RepairDB: " + run.err;
        }
        problem = LevelDbGoesOn(work, &model);
        if (!problem.empty()) return problem;
        problem = RepairAndCompare(work, model);
        return problem.empty() ? "" : "after LevelDB went on: " + problem;
      }
      // An application opens it first, as applications do (with
      // create_if_missing): Open must not take it for a new database.
      Options o;
      o.create_if_missing = true;
      DB* raw = nullptr;
      Status s = DB::Open(o, work, &raw);
      delete raw;
      if (access((work + "/leveldb-conversion/PLAN").c_str(), F_OK) == 0) {
        // Committed, unfinished (the take-in or the repair after it):
        // DB::Open refuses it, changing nothing, and points to RepairDB.
        committed_unfinished++;
        if (!s.IsCorruption() ||
            s.ToString().find("RepairDB") == std::string::npos) {
          return "DB::Open of a committed, unfinished take-in: " + s.ToString();
        }
      }
      repaired_again++;
      const std::string problem = RepairAndCompare(work, expected_);
      return problem.empty() ? "" : "repaired again: " + problem;
    };
    uint64_t killed = 0;
    delsm_test::RunKillAtEachCall(sweep, check, &killed);
    std::printf(
        "%llu kill points: LevelDB went on after %d, DeLSM's RepairDB "
        "repaired %d (%d a committed, unfinished take-in)\n",
        static_cast<unsigned long long>(killed), leveldb_went_on,
        repaired_again, committed_unfinished);
    EXPECT_GT(leveldb_went_on, 0) << "no kill before the take-in's commit";
    EXPECT_GT(committed_unfinished, 0)
        << "no kill between the take-in's commit and its end";
  }

  delsm_test::TempDir tmp_;
  std::string pristine_;
  std::vector<std::string> tables_;  // the pristine database's tables
  Contents expected_;
  int runs_ = 0;
};

// LevelDB opens the database as it is.
TEST_F(LevelDbTakeInKill, DamagedTableNoKeyDeletedByLevelDbComesBack) {
  Sweep(pristine_, /*lost_current=*/false);
}

// LevelDB's RepairDB takes the database back while every table is in place.
TEST_F(LevelDbTakeInKill, LostCurrentNoKeyDeletedByLevelDbComesBack) {
  const std::string no_current = tmp_.path() + "/no-current";
  ASSERT_EQ("", delsm_test::CopyTree(pristine_, no_current));
  ASSERT_EQ(0, unlink((no_current + "/CURRENT").c_str()));
  Sweep(no_current, /*lost_current=*/true);
}

}  // namespace
}  // namespace leveldb
