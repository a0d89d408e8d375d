// A LevelDB database written in two rounds by Debian's LevelDB (the oracle,
// tests/leveldb_oracle/oracle.h), for the tests that damage one of its
// tables and compare a repair with LevelDB's: the first round fills every
// key and is flushed; the second deletes every third key and rewrites every
// third, and the reopen makes it a table of its own above the first.
// Blocks are small and uncompressed (TwoRoundsFlags), so a test can find
// and damage one.
#ifndef DELSM_TESTS_LEVELDB_TWO_ROUNDS_H_
#define DELSM_TESTS_LEVELDB_TWO_ROUNDS_H_

#include <string>
#include <vector>

#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"

namespace delsm_test {

inline bool SecondRoundDeletes(int i) { return i % 3 == 0; }
inline bool SecondRoundRewrites(int i) { return i % 3 == 1; }
inline std::string SecondRoundValue(int i) {
  return "new-" + std::to_string(i);
}

// The oracle's flags for every run on such a database: blocks of about
// 1 KiB, stored uncompressed.
inline const std::vector<std::string>& TwoRoundsFlags() {
  static const std::vector<std::string> flags = {"--compression=none",
                                                 "--block_size=1024"};
  return flags;
}

// The oracle's input that writes the two rounds over keys [0, keys) with
// `value_size`-byte values in the first.
inline std::string TwoRoundsCommands(int keys, int value_size) {
  std::string commands = "fill 0 " + std::to_string(keys) + " " +
                         std::to_string(value_size) + "\nflush\n";
  for (int i = 0; i < keys; i++) {
    const std::string key = OracleHex(OracleFillKey(i));
    if (SecondRoundDeletes(i)) {
      commands += "delete " + key + "\n";
    } else if (SecondRoundRewrites(i)) {
      commands += "put " + key + " " + OracleHex(SecondRoundValue(i)) + "\n";
    }
  }
  return commands + "reopen\n";
}

// The newest table file of LevelDB database `dbname` (its name; empty if
// it has none).
inline std::string NewestLevelDbTable(const std::string& dbname) {
  std::string newest;
  for (const std::string& n : ListDir(dbname)) {
    if (n.size() > 4 && n.substr(n.size() - 4) == ".ldb" && n > newest) {
      newest = n;
    }
  }
  return newest;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_LEVELDB_TWO_ROUNDS_H_
