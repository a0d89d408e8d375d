// The fixture the symbolic-link tests (symlink_sweep_test,
// symlink_write_test) share: a fresh temporary directory holding the
// database directory dbname_ and a directory outside_ beside it, where the
// links the tests plant point. The database keeps values that stay put
// (so it has values/) and makes every value a KV file, so that it has
// every kind of directory and file a link could stand in for. It offers
// the database filled with kKeys keys and reading the keys back through a
// fresh Open (whose recovery and sweeps run).
#ifndef DELSM_TESTS_FAULTS_SYMLINK_DATABASE_H_
#define DELSM_TESTS_FAULTS_SYMLINK_DATABASE_H_

#include <sys/stat.h>

#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/test_support.h"

namespace delsm_test {

// The value key i is given: about 3 KB, and different for every key.
inline std::string SymlinkTestValue(int i) {
  return std::to_string(i) + std::string(3000, 'v');
}

// Values that stay put (so the database has values/), every value a KV
// file (inline_threshold 0).
inline delsm::Tuning SymlinkTestTuning() {
  delsm::Tuning tuning;
  tuning.values_stay_put = true;
  tuning.inline_threshold = 0;
  return tuning;
}

// Creates the database if missing; a 64 KiB write buffer, so that kKeys
// keys take several flushes.
inline leveldb::Options SymlinkTestOptions() {
  leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 * 1024;
  return options;
}

class SymlinkDatabaseTest : public testing::Test {
 protected:
  // `tmp_prefix` names the temporary directory (see MakeTestDir).
  explicit SymlinkDatabaseTest(const char* tmp_prefix)
      : tmp_(tmp_prefix),
        dbname_(tmp_.path() + "/db"),
        outside_(tmp_.path() + "/outside"),
        tuning_(SymlinkTestTuning()),
        options_(SymlinkTestOptions()) {}

  // Fatal unless the temporary directory was made and outside_, empty,
  // in it. dbname_ does not exist yet.
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_EQ(0, mkdir(outside_.c_str(), 0755));
  }

  // Creates the database at dbname_ holding keys [0, kKeys) with
  // SymlinkTestValue, and closes it. With `compact`, compacts the whole
  // range first, and is fatal unless L0 is then empty.
  void MakeDatabase(bool compact = true) {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db->Put(leveldb::WriteOptions(), Key(i), SymlinkTestValue(i)));
    }
    if (compact) {
      db->CompactRange(nullptr, nullptr);
      ASSERT_TRUE(ListDir(dbname_ + "/L0").empty());
    }
  }

  // Opens the database (Open's recovery and sweeps run) and reads keys
  // [0, keys) back, fatal on the first that does not read as written.
  // With `compact`, then compacts the whole range before closing.
  void ExpectKeys(int keys, bool compact = false) {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    for (int i = 0; i < keys; i++) {
      std::string v;
      ASSERT_OK(db->Get(leveldb::ReadOptions(), Key(i), &v));
      ASSERT_EQ(SymlinkTestValue(i), v) << Key(i);
    }
    if (compact) db->CompactRange(nullptr, nullptr);
  }

  static constexpr int kKeys = 200;
  TempDir tmp_;
  const std::string dbname_;
  const std::string outside_;
  const delsm::Tuning tuning_;
  const leveldb::Options options_;
};

}  // namespace delsm_test

#endif  // DELSM_TESTS_FAULTS_SYMLINK_DATABASE_H_
