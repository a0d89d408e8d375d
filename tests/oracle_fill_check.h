// Whether DeLSM reads a database that the LevelDB oracle's `fill` wrote
// (tests/leveldb_oracle/oracle.h) with every key and value, and nothing
// else: for the tests that convert, take in or repair such a database.
#ifndef DELSM_TESTS_ORACLE_FILL_CHECK_H_
#define DELSM_TESTS_ORACLE_FILL_CHECK_H_

#include <map>
#include <memory>
#include <string>

#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/leveldb_oracle/oracle.h"

namespace delsm_test {

// "" if DB::Open of `dbname` succeeds and a scan reads exactly keys 0 to
// keys-1 of `fill`, each with its value of `value_size` bytes; else what
// differs (the Open's or the scan's error, or how many keys are missing or
// wrong, the first of them, and how many were read).
inline std::string CheckOracleFill(const std::string& dbname, int keys,
                                   size_t value_size) {
  leveldb::DB* raw = nullptr;
  leveldb::Status s = leveldb::DB::Open(leveldb::Options(), dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<leveldb::DB> db(raw);
  std::map<std::string, std::string> got;
  std::unique_ptr<leveldb::Iterator> it(
      db->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    got[it->key().ToString()] = it->value().ToString();
  }
  if (!it->status().ok()) return "scan: " + it->status().ToString();
  int wrong = 0;
  std::string first;
  for (int i = 0; i < keys; i++) {
    auto found = got.find(OracleFillKey(i));
    if (found == got.end() || found->second != OracleFillValue(i, value_size)) {
      if (wrong++ == 0) first = OracleFillKey(i);
    }
  }
  if (wrong > 0 || got.size() != static_cast<size_t>(keys)) {
    return std::to_string(wrong) + " of " + std::to_string(keys) +
           " keys missing or wrong (the first " + first + "), " +
           std::to_string(got.size()) + " keys read";
  }
  return "";
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_ORACLE_FILL_CHECK_H_
