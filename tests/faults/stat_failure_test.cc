// Lifecycle calls when the lstat of a path fails (EIO, as for a damaged
// inode; tests/stat_failing_file_system.h). A failed lookup is no proof of
// absence, and each call here once took it for one, and lost data:
//  - The conversion of a LevelDB database and RepairDB's take-in of
//    LevelDB's tables decide, after each one's commit, that LevelDB's
//    tables may go (the conversion removes them) and that the staging
//    directory may go (the take-in's PLAN is removed once no SST is
//    staged) by whether an SST is still staged. Taken for moved, the
//    conversion removed LevelDB's table while its only copy stayed staged,
//    leaving a database that neither Open nor RepairDB would open again;
//    the take-in left its SST staged, DeLSM's repair committed without it,
//    the PLAN went, and the next Open removed the SST as a leftover,
//    answering for an empty database.
//  - RepairDB lists the homes of values that stay put to know which
//    values are there. Taking values/ for absent, it found every value an
//    entry names missing, left those entries out of the repaired database,
//    and the next Open removed the values as named by no entry.
// Each test fails those lstats during one call, then does what the
// directory allows with the file system whole again, and must read every
// key written before: by Debian's LevelDB (tests/leveldb_oracle, its own
// process) for the first two.
#include <unistd.h>

#include <map>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/faults/kv_file_database.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/stat_failing_file_system.h"
#include "tests/test_support.h"

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
  // (several, with a small write buffer), then the rest into its WAL.
  void MakeLevelDbDatabase() {
    const delsm_test::OracleRun run = delsm_test::RunOracle(
        {"create", dbname_, "--write_buffer_size=20000"},
        "fill 0 " + std::to_string(kFlushedKeys) + " " +
            std::to_string(kValueSize) + "\nflush\nfill " +
            std::to_string(kFlushedKeys) + " " +
            std::to_string(kKeys - kFlushedKeys) + " " +
            std::to_string(kValueSize) + "\n",
        tmp_.path() + "/oracle");
    ASSERT_TRUE(run.ok) << run.err;
  }

  // "" if DeLSM opens the database and reads every key LevelDB wrote,
  // with its value, and nothing else; else what differs.
  std::string CheckEveryKey() {
    DB* raw = nullptr;
    Status s = DB::Open(Options(), dbname_, &raw);
    if (!s.ok()) return "open: " + s.ToString();
    std::unique_ptr<DB> db(raw);
    std::map<std::string, std::string> got;
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      got[it->key().ToString()] = it->value().ToString();
    }
    if (!it->status().ok()) return "scan: " + it->status().ToString();
    int missing = 0;
    std::string first;
    for (int i = 0; i < kKeys; i++) {
      auto found = got.find(OracleFillKey(i));
      if (found == got.end() ||
          found->second != OracleFillValue(i, kValueSize)) {
        if (missing++ == 0) first = OracleFillKey(i);
      }
    }
    if (missing > 0 || got.size() != static_cast<size_t>(kKeys)) {
      return std::to_string(missing) + " of " + std::to_string(kKeys) +
             " keys missing or wrong (the first " + first + "), " +
             std::to_string(got.size()) + " keys read";
    }
    return "";
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

// RepairDB on a database of values that stay put, with the lstat of
// values/ (and of everything under it) failing: what the homes hold cannot
// be told, and RepairDB must not take every value for missing.
TEST(RepairStatTest, UnstatableValuesDirectoryLosesNoValue) {
  delsm_test::TempDir tmp("delsm_repair_stat");
  const std::string dbname = tmp.path() + "/db";
  delsm::Tuning tuning;
  tuning.values_stay_put = true;
  tuning.inline_threshold = 0;  // every value a KV file, in a home
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeKvFileDatabase(dbname, tuning, 2));
  delsm_test::StatFailingFileSystem fs;
  fs.FailLookupsUnder(dbname + "/values");
  const Status s = RepairDBWithFileSystem(dbname, Options(), &fs);
  ASSERT_LT(0, fs.Failed()) << "values/ was not looked up";
  EXPECT_FALSE(s.ok()) << "RepairDB repaired a database whose values it "
                          "could not find";
  delsm_test::ExpectKvFileDatabase(dbname, tuning, 2);
}

}  // namespace
}  // namespace leveldb
