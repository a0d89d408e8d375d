// What a database holds, as a test reads it: every key and value by a
// full scan, and a readable account of how two such readings differ.
#ifndef DELSM_TESTS_DB_CONTENTS_H_
#define DELSM_TESTS_DB_CONTENTS_H_

#include <map>
#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/db_options.h"

namespace delsm_test {

using Contents = std::map<std::string, std::string>;

// Every key of `db` with its value, by one iterator; an iterator error
// fails the calling test.
inline Contents Scan(leveldb::DB* db) {
  Contents c;
  std::unique_ptr<leveldb::Iterator> it(
      db->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    c[it->key().ToString()] = it->value().ToString();
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return c;
}

// Opens the DeLSM database at `dbname` (no automatic compaction) and reads
// every key; an Open that fails fails the calling test and reads nothing.
inline Contents ScanDelsm(const std::string& dbname) {
  leveldb::DB* raw = nullptr;
  leveldb::Status s =
      delsm::Open(leveldb::Options(), ManualCompactionOnly(), dbname, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return Contents();
  std::unique_ptr<leveldb::DB> db(raw);
  return Scan(db.get());
}

// The keys of `want` that `got` lacks or reads otherwise, and those `got`
// holds that `want` does not: "" if they are equal.
inline std::string Difference(const Contents& want, const Contents& got) {
  int missing = 0, wrong = 0, extra = 0;
  std::string first;
  for (const auto& e : want) {
    auto it = got.find(e.first);
    if (it == got.end()) {
      missing++;
      if (first.empty()) first = e.first + " missing";
    } else if (it->second != e.second) {
      wrong++;
      if (first.empty()) first = e.first + " has another value";
    }
  }
  for (const auto& e : got) {
    if (want.count(e.first) == 0) {
      extra++;
      if (first.empty()) first = e.first + " came back";
    }
  }
  if (missing + wrong + extra == 0) return "";
  return std::to_string(missing) + " of " + std::to_string(want.size()) +
         " keys missing, " + std::to_string(wrong) + " with another value, " +
         std::to_string(extra) + " not expected (first: " + first + ")";
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_DB_CONTENTS_H_
