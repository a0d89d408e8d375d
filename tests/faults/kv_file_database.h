// The database the lifecycle tests (destroy_db_test, foreign_names_test)
// work on: kKvFileKeys keys with values of about 3 KB, written in rounds,
// so that with Tuning::inline_threshold 0 each value is a KV file and the
// database has SST directories in its level directories (and, with values
// that stay put, homes under values/). Each round's values differ from the
// last, so a read that finds an older round's value fails.
#ifndef DELSM_TESTS_FAULTS_KV_FILE_DATABASE_H_
#define DELSM_TESTS_FAULTS_KV_FILE_DATABASE_H_

#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/test_support.h"

namespace delsm_test {

constexpr int kKvFileKeys = 300;

// The value key i is given in round `round` (0 first).
inline std::string KvFileValue(int i, int round) {
  return std::to_string(i) + "/" + std::to_string(round) +
         std::string(3000, 'v');
}

// Creates the database `dbname` with `tuning` and a 64 KiB write buffer
// (several flushes), writes every key once per round, and closes it
// cleanly.
inline void MakeKvFileDatabase(const std::string& dbname,
                               const delsm::Tuning& tuning, int rounds = 1) {
  leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 64 * 1024;
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
  std::unique_ptr<leveldb::DB> guard(db);
  for (int round = 0; round < rounds; round++) {
    for (int i = 0; i < kKvFileKeys; i++) {
      ASSERT_OK(
          db->Put(leveldb::WriteOptions(), Key(i), KvFileValue(i, round)));
    }
  }
}

// Opens `dbname` with `tuning` (so Open's recovery and sweeps run) and
// reads every key as the last of `rounds` rounds wrote it. Fatal on the
// first key that does not read so.
inline void ExpectKvFileDatabase(const std::string& dbname,
                                 const delsm::Tuning& tuning, int rounds = 1) {
  leveldb::DB* db = nullptr;
  ASSERT_OK(delsm::Open(leveldb::Options(), tuning, dbname, &db));
  std::unique_ptr<leveldb::DB> guard(db);
  for (int i = 0; i < kKvFileKeys; i++) {
    std::string v;
    ASSERT_OK(db->Get(leveldb::ReadOptions(), Key(i), &v));
    ASSERT_EQ(KvFileValue(i, rounds - 1), v) << Key(i);
  }
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_FAULTS_KV_FILE_DATABASE_H_
