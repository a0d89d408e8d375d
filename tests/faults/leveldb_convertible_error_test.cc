// Whether a LevelDB database can be converted is judged, before DB::Open
// and RepairDB change anything, from CURRENT, the manifest it names and
// the directory's listing (LevelDbConvertible). A read among these that
// fails otherwise than on absence or damage (EIO) leaves that unknown: it
// is an IOError, not a verdict. Taken for "cannot be converted", it made
// DB::Open answer NotSupported (what a user answers with another program,
// not by retrying), and RepairDB take in LevelDB's tables instead of
// converting the database: LevelDB's manifest moved to lost/ for a
// transient error. Each case fails one of these reads once, the one the
// check makes (the format's detection made the same read just before),
// and the call must fail with an IOError, changing nothing; with the reads
// working, DB::Open converts the database and reads every key Debian's
// LevelDB (tests/leveldb_oracle, its own process) wrote.
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/oracle_fill_check.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace leveldb {
namespace {

constexpr int kFlushedKeys = 300;  // in LevelDB's tables
constexpr int kKeys = 350;         // the last 50 in its WAL only
constexpr size_t kValueSize = 100;

// Fails with EIO the `nth` (from 1) listing (GetChildren) of `path`, or
// opening of it for sequential reading; every other call passes through.
class NthCallFailsEnv : public EnvWrapper {
 public:
  NthCallFailsEnv(Env* base, std::string path, int nth)
      : EnvWrapper(base), path_(std::move(path)), nth_(nth) {}

  Status GetChildren(const std::string& dir,
                     std::vector<std::string>* result) override {
    if (Fails(dir)) {
      result->clear();
      return Status::IOError(dir, "Input/output error");
    }
    return target()->GetChildren(dir, result);
  }
  Status NewSequentialFile(const std::string& f,
                           SequentialFile** result) override {
    if (Fails(f)) {
      *result = nullptr;
      return Status::IOError(f, "Input/output error");
    }
    return target()->NewSequentialFile(f, result);
  }

  bool failed() const { return calls_ >= nth_; }

 private:
  bool Fails(const std::string& path) {
    return path == path_ && ++calls_ == nth_;
  }

  const std::string path_;
  const int nth_;
  int calls_ = 0;
};

// Which of the check's reads fails.
enum class FailedRead { kListing, kCurrent, kManifest };

class LevelDbConvertibleErrorTest : public testing::TestWithParam<FailedRead> {
 protected:
  LevelDbConvertibleErrorTest()
      : tmp_("delsm_convertible_error"), dbname_(tmp_.path() + "/db") {}

  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    const std::string commands =
        delsm_test::OracleTableAndWalCommands(kFlushedKeys, kKeys, kValueSize);
    const delsm_test::OracleRun made = delsm_test::RunOracle(
        {"create", dbname_}, commands, tmp_.path() + "/create");
    ASSERT_TRUE(made.ok) << made.err;
  }

  // The path whose second read fails: the detection of the format reads
  // it first, the check second.
  std::string FailedPath() const {
    switch (GetParam()) {
      case FailedRead::kListing:
        return dbname_;
      case FailedRead::kCurrent:
        return dbname_ + "/CURRENT";
      case FailedRead::kManifest: {
        std::string current = delsm_test::ReadWholeFile(dbname_ + "/CURRENT");
        EXPECT_FALSE(current.empty());
        if (!current.empty()) current.pop_back();  // its newline
        return dbname_ + "/" + current;
      }
    }
    return "";
  }

  // Runs `call` with the second read of FailedPath() failing: it must fail
  // with an IOError, having changed nothing; then DB::Open converts the
  // database and reads every key.
  void ExpectIoErrorChangingNothing(const char* what,
                                    Status (*call)(const std::string&, Env*)) {
    const auto before = delsm_test::TreeSnapshot(dbname_);
    NthCallFailsEnv env(Env::Default(), FailedPath(), 2);
    const Status s = call(dbname_, &env);
    ASSERT_TRUE(env.failed()) << "the check's read did not fail";
    EXPECT_TRUE(s.IsIOError()) << what << ": " << s.ToString();
    EXPECT_TRUE(before == delsm_test::TreeSnapshot(dbname_))
        << what << " changed the directory (" << s.ToString() << ")";
    EXPECT_EQ("", delsm_test::CheckOracleFill(dbname_, kKeys, kValueSize));
  }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
};

Status OpenWith(const std::string& dbname, Env* env) {
  Options options;
  options.env = env;
  DB* raw = nullptr;
  Status s = DB::Open(options, dbname, &raw);
  delete raw;
  return s;
}

Status RepairWith(const std::string& dbname, Env* env) {
  Options options;
  options.env = env;
  return RepairDB(dbname, options);
}

TEST_P(LevelDbConvertibleErrorTest, OpenFailsWithTheIoError) {
  ExpectIoErrorChangingNothing("DB::Open", &OpenWith);
}

TEST_P(LevelDbConvertibleErrorTest, RepairDbFailsWithTheIoError) {
  ExpectIoErrorChangingNothing("RepairDB", &RepairWith);
}

INSTANTIATE_TEST_SUITE_P(Reads, LevelDbConvertibleErrorTest,
                         testing::Values(FailedRead::kListing,
                                         FailedRead::kCurrent,
                                         FailedRead::kManifest),
                         [](const testing::TestParamInfo<FailedRead>& info) {
                           switch (info.param) {
                             case FailedRead::kListing:
                               return "Listing";
                             case FailedRead::kCurrent:
                               return "Current";
                             case FailedRead::kManifest:
                               return "Manifest";
                           }
                           return "";
                         });

}  // namespace
}  // namespace leveldb
