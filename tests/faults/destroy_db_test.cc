// DestroyDB meeting an error it cannot classify: it fails, and the database
// it could not judge whole is left as it was, openable with every key. A
// DestroyDB that returned OK after removing only part of a database (its
// SST directories, say, but not the manifest naming them) would leave
// behind a database whose Open fails, where the caller was told there is
// none.
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/read_error_env.h"
#include "tests/test_support.h"

namespace {

using delsm_test::Key;
using delsm_test::ListDir;
using delsm_test::TempDir;

std::string Value(int i) { return std::to_string(i) + std::string(3000, 'v'); }

constexpr int kKeys = 300;

// A closed database with SST directories (and, with values that stay
// put, homes) holding kKeys keys.
void MakeDatabase(const std::string& dbname, const delsm::Tuning& tuning) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 * 1024;
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
  std::unique_ptr<leveldb::DB> guard(db);
  for (int i = 0; i < kKeys; i++) {
    ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), Value(i)));
  }
}

void ExpectEveryKey(const std::string& dbname, const delsm::Tuning& tuning) {
  leveldb::Options options;
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
  std::unique_ptr<leveldb::DB> guard(db);
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    ASSERT_OK(db->Get(leveldb::ReadOptions(), Key(i), &v));
    ASSERT_EQ(Value(i), v) << Key(i);
  }
}

class DestroyDbListingTest : public testing::TestWithParam<bool> {};

// The DB directory cannot be listed (EIO) while its level directories
// can: DestroyDB cannot tell which files are the database's, fails naming
// the directory, and removes nothing (no SST directory, no home).
TEST_P(DestroyDbListingTest, UnlistableDbDirectoryFailsAndRemovesNothing) {
  TempDir tmp("delsm_destroy");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  delsm::Tuning tuning;
  tuning.values_stay_put = GetParam();
  tuning.inline_threshold = 0;  // every value a KV file
  ASSERT_NO_FATAL_FAILURE(MakeDatabase(dbname, tuning));
  std::vector<std::string> sst_dirs;
  for (int level = 0; level < 7; level++) {
    for (const std::string& d :
         ListDir(dbname + "/L" + std::to_string(level))) {
      sst_dirs.push_back("L" + std::to_string(level) + "/" + d);
    }
  }
  ASSERT_FALSE(sst_dirs.empty());
  const std::vector<std::string> top = ListDir(dbname);
  const std::vector<std::string> homes =
      GetParam() ? ListDir(dbname + "/values") : std::vector<std::string>();
  if (GetParam()) ASSERT_FALSE(homes.empty());

  leveldb::ReadErrorEnv env(leveldb::Env::Default());
  env.set_failing_listings(dbname);
  leveldb::Options options;
  options.env = &env;
  const leveldb::Status s = leveldb::DestroyDB(dbname, options);
  ASSERT_GT(env.failed_listings(), 0) << "the DB directory was not listed";
  EXPECT_TRUE(s.IsIOError()) << s.ToString();

  EXPECT_EQ(top, ListDir(dbname));
  std::vector<std::string> sst_dirs_after;
  for (int level = 0; level < 7; level++) {
    for (const std::string& d :
         ListDir(dbname + "/L" + std::to_string(level))) {
      sst_dirs_after.push_back("L" + std::to_string(level) + "/" + d);
    }
  }
  EXPECT_EQ(sst_dirs, sst_dirs_after);
  if (GetParam()) EXPECT_EQ(homes, ListDir(dbname + "/values"));
  ExpectEveryKey(dbname, tuning);
}

INSTANTIATE_TEST_SUITE_P(Modes, DestroyDbListingTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace
