// DB::Open judges the directory before it takes the database's LOCK
// (CheckDatabaseFormat, before DBImpl exists: a directory it refuses keeps
// its LOG), and another process may change the directory in between.
// Under the LOCK, Open must refuse what the check would have refused
// before it changes anything.
//
// Here the directory becomes, in between, one where RepairDB's taking in
// of LevelDB's tables was cut short after placing its SSTs in L0/: its
// PLAN kept, no CURRENT (LevelDB's was lost), no manifest naming the
// SSTs. An Open with create_if_missing must refuse it, as the check
// does, changing nothing, and the take-in must then end with every key
// however its RepairDB goes. A new CURRENT naming an empty manifest,
// written before the refusal, is what that RepairDB takes for its own
// repair committed: it would remove the PLAN, which alone keeps Open out,
// before its repair merged the SSTs, and failing there (EIO reading the
// WAL, as the first did) leave the next Open to take the empty manifest
// for the database and remove the SSTs as named by none: 300 of 350 keys
// gone, which no RepairDB brings back.
//
// The change is made deterministic by an Env whose first LockFile makes
// it (renames the cut-short take-in into place) before locking.
//
// The same cut-short take-in with its PLAN damaged (it no longer decodes)
// is no different to Open: nothing proves the SSTs it placed are copies,
// and an Open with create_if_missing must refuse it under the LOCK,
// changing nothing, rather than make a new database whose sweep removes
// them as named by no manifest.
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "testing/read_error_env.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/oracle_fill_check.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

using delsm_test::OracleFillKey;
using delsm_test::OracleFillValue;

constexpr int kFlushedKeys = 300;  // in LevelDB's table
constexpr int kKeys = 350;         // the last 50 in its WAL only
constexpr int kValueSize = 100;

// An Env whose first LockFile runs `change` first: what another process
// does to the directory between Open's format check and its LOCK.
class ChangeBeforeLockEnv : public EnvWrapper {
 public:
  explicit ChangeBeforeLockEnv(std::function<void()> change)
      : EnvWrapper(Env::Default()), change_(std::move(change)) {}

  Status LockFile(const std::string& fname, FileLock** lock) override {
    std::function<void()> change;
    change.swap(change_);
    if (change) change();
    return target()->LockFile(fname, lock);
  }

 private:
  std::function<void()> change_;
};

std::string CheckEveryKey(const std::string& dbname) {
  return delsm_test::CheckOracleFill(dbname, kKeys, kValueSize);
}

// The paths whose state differs between two TreeSnapshots, one a line.
std::string Differences(const std::map<std::string, std::string>& a,
                        const std::map<std::string, std::string>& b) {
  std::string out;
  for (const auto& entry : a) {
    auto other = b.find(entry.first);
    if (other == b.end()) {
      out += entry.first + ": gone\n";
    } else if (other->second != entry.second) {
      out += entry.first + ": changed\n";
    }
  }
  for (const auto& entry : b) {
    if (a.count(entry.first) == 0) out += entry.first + ": new\n";
  }
  return out;
}

// Debian's LevelDB writes kFlushedKeys keys into a table at `cut` and the
// rest into its WAL; CURRENT is lost. RepairDB takes the table in, places
// its SST in L0/, then fails reading the WAL (EIO): the PLAN stays.
void MakeCutShortTakeIn(const std::string& tmp, const std::string& cut) {
  const delsm_test::OracleRun run = delsm_test::RunOracle(
      {"create", cut, "--write_buffer_size=20000"},
      delsm_test::OracleTableAndWalCommands(kFlushedKeys, kKeys, kValueSize),
      tmp + "/oracle");
  ASSERT_TRUE(run.ok) << run.err;
  ASSERT_EQ(0, unlink((cut + "/CURRENT").c_str()));
  {
    ReadErrorEnv env(Env::Default());
    env.set_failing_reads(".log");
    Options options;
    options.env = &env;
    ASSERT_FALSE(RepairDB(cut, options).ok());
  }
  ASSERT_EQ(0, access((cut + "/leveldb-conversion/PLAN").c_str(), F_OK))
      << "the take-in left no PLAN";
  ASSERT_FALSE(delsm_test::ListDir(cut + "/L0").empty())
      << "the take-in placed no SST";
}

TEST(OpenFormatRaceTest, TakeInCutShortBeforeTheLockIsRefusedChangingNothing) {
  delsm_test::TempDir tmp("delsm_open_race");
  ASSERT_FALSE(tmp.path().empty());
  const std::string cut = tmp.path() + "/cut";
  const std::string dbname = tmp.path() + "/db";
  ASSERT_NO_FATAL_FAILURE(MakeCutShortTakeIn(tmp.path(), cut));
  const std::map<std::string, std::string> before =
      delsm_test::TreeSnapshot(cut);

  // Open's LOG elsewhere: the directory it made is empty, and the cut-short
  // take-in takes its place before the LOCK.
  Logger* log = nullptr;
  ASSERT_OK(Env::Default()->NewLogger(tmp.path() + "/LOG", &log));
  std::unique_ptr<Logger> log_guard(log);
  bool changed = false;
  ChangeBeforeLockEnv env([&] {
    changed = rmdir(dbname.c_str()) == 0 &&
              std::rename(cut.c_str(), dbname.c_str()) == 0;
  });
  Options options;
  options.env = &env;
  options.info_log = log;
  options.create_if_missing = true;
  DB* raw = nullptr;
  const Status s = DB::Open(options, dbname, &raw);
  delete raw;
  ASSERT_TRUE(changed) << "the directory was not changed before the LOCK";
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("run RepairDB"))
      << s.ToString();
  EXPECT_EQ("", Differences(before, delsm_test::TreeSnapshot(dbname)))
      << "Open (" << s.ToString() << ") changed the directory";

  // The RepairDB it points to fails once more as the first did: the PLAN
  // must stay, and keep Open out, until a RepairDB finishes.
  {
    ReadErrorEnv failing(Env::Default());
    failing.set_failing_reads(".log");
    Options repair_options;
    repair_options.env = &failing;
    ASSERT_FALSE(RepairDB(dbname, repair_options).ok());
  }
  raw = nullptr;
  const Status reopened = DB::Open(Options(), dbname, &raw);
  delete raw;
  EXPECT_FALSE(reopened.ok())
      << "Open opened the database, its SSTs named by no manifest";
  ASSERT_OK(RepairDB(dbname, Options()));
  EXPECT_EQ("", CheckEveryKey(dbname));
}

// The cut-short take-in's PLAN loses its last line (a damaged file: the
// PLAN is written whole, by a rename). An Open with create_if_missing must
// refuse the directory, changing nothing: a new database there would
// sweep away the SST the take-in placed in L0/, named by no manifest (300
// of 350 keys gone, their table only in lost/). Once the PLAN reads again,
// RepairDB ends the take-in with every key.
TEST(OpenFormatRaceTest, DamagedTakeInPlanWithoutCurrentIsRefused) {
  delsm_test::TempDir tmp("delsm_open_race");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ASSERT_NO_FATAL_FAILURE(MakeCutShortTakeIn(tmp.path(), dbname));
  const std::string plan = dbname + "/leveldb-conversion/PLAN";
  const std::string whole = delsm_test::ReadWholeFile(plan);
  const size_t end = whole.rfind("end\n");
  ASSERT_NE(std::string::npos, end) << whole;
  ASSERT_TRUE(delsm_test::WriteWhole(plan, whole.substr(0, end)));
  const std::map<std::string, std::string> before =
      delsm_test::TreeSnapshot(dbname);

  Logger* log = nullptr;
  ASSERT_OK(Env::Default()->NewLogger(tmp.path() + "/LOG", &log));
  std::unique_ptr<Logger> log_guard(log);
  Options options;
  options.info_log = log;
  options.create_if_missing = true;
  DB* raw = nullptr;
  const Status s = DB::Open(options, dbname, &raw);
  delete raw;
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ("", Differences(before, delsm_test::TreeSnapshot(dbname)))
      << "Open (" << s.ToString() << ") changed the directory";

  ASSERT_TRUE(delsm_test::WriteWhole(plan, whole));
  ASSERT_OK(RepairDB(dbname, Options()));
  EXPECT_EQ("", CheckEveryKey(dbname));
}

}  // namespace
}  // namespace leveldb
