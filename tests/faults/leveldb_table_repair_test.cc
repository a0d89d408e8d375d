// RepairDB on a database Debian's LevelDB wrote, one of whose tables has a
// damaged data block: DeLSM's repair (which takes LevelDB's tables in as
// SSTs) must end with the same keys and values as LevelDB's own RepairDB
// of the same files, with paranoid_checks (LevelDB's only mode that sees
// the damage; tests/leveldb_oracle runs it in its own process). LevelDB's
// repair loses the damaged block's records and keeps every other block of
// the table. A repair that gave up on the rest of the table at the damage
// would lose the later blocks' records too, and where they deleted or
// rewrote a key an older table still holds, the key would read its old
// value: a deleted key back.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/leveldb_table_layout.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::FlipByte;
using delsm_test::ListDir;
using delsm_test::ReadWholeFile;
using delsm_test::TempDir;

constexpr int kKeys = 600;
constexpr size_t kValueSize = 60;

// The second round deletes every third key and rewrites every third.
bool Deleted(int i) { return i % 3 == 0; }
bool Rewritten(int i) { return i % 3 == 1; }
std::string NewValue(int i) { return "new-" + std::to_string(i); }

// LevelDB's flags for every oracle run: blocks small enough for a table
// of a few dozen, stored uncompressed so the test can find them.
const std::vector<std::string>& Flags() {
  static const std::vector<std::string> flags = {"--compression=none",
                                                 "--block_size=1024"};
  return flags;
}

delsm_test::OracleRun Oracle(std::vector<std::string> args,
                             const std::string& input,
                             const std::string& scratch) {
  args.insert(args.end(), Flags().begin(), Flags().end());
  return delsm_test::RunOracle(args, input, scratch);
}

// The newest table file of LevelDB database `dbname` (its name).
std::string NewestTable(const std::string& dbname) {
  std::string newest;
  for (const std::string& n : ListDir(dbname)) {
    if (n.size() > 4 && n.substr(n.size() - 4) == ".ldb" && n > newest) {
      newest = n;
    }
  }
  return newest;
}

TEST(LevelDbTableRepairTest, DamagedBlockLosesOnlyItsOwnRecords) {
  TempDir tmp;
  const std::string pristine = tmp.path() + "/pristine";
  // Old values compacted below; then the deletes and rewrites, which the
  // reopen makes a table of their own above them.
  std::string commands = "fill 0 " + std::to_string(kKeys) + " " +
                         std::to_string(kValueSize) + "\nflush\n";
  for (int i = 0; i < kKeys; i++) {
    const std::string key = delsm_test::OracleHex(delsm_test::OracleFillKey(i));
    if (Deleted(i)) {
      commands += "delete " + key + "\n";
    } else if (Rewritten(i)) {
      commands +=
          "put " + key + " " + delsm_test::OracleHex(NewValue(i)) + "\n";
    }
  }
  commands += "reopen\n";
  delsm_test::OracleRun run =
      Oracle({"create", pristine}, commands, tmp.path() + "/create");
  ASSERT_TRUE(run.ok) << run.err;

  // Damage the second data block of the newest table, which holds the
  // deletes and rewrites: blocks after it hold more of them.
  const std::string newest = NewestTable(pristine);
  ASSERT_FALSE(newest.empty());
  const std::string data = ReadWholeFile(pristine + "/" + newest);
  const auto blocks = delsm_test::LevelDbDataBlocks(data);
  ASSERT_GE(blocks.size(), 4u);
  const auto& victim = blocks[1];
  std::set<std::string> later_keys;  // user keys of the blocks after it
  for (size_t b = 2; b < blocks.size(); b++) {
    for (const std::string& k : delsm_test::LevelDbBlockUserKeys(
             Slice(data.data() + blocks[b].first, blocks[b].second))) {
      later_keys.insert(k);
    }
  }
  ASSERT_FALSE(later_keys.empty());
  ASSERT_TRUE(
      FlipByte(pristine + "/" + newest, victim.first + victim.second / 2));

  // LevelDB's RepairDB of one copy: what it keeps.
  const std::string by_leveldb = tmp.path() + "/by-leveldb";
  ASSERT_EQ("", delsm_test::CopyTree(pristine, by_leveldb));
  run = Oracle({"repair", by_leveldb, "--paranoid_checks"}, "",
               tmp.path() + "/repair");
  ASSERT_TRUE(run.ok) << run.err;
  run = Oracle({"dump", by_leveldb}, "", tmp.path() + "/dump");
  ASSERT_TRUE(run.ok) << run.err;
  std::map<std::string, std::string> expected;
  ASSERT_TRUE(delsm_test::ParseOracleDump(run.out, &expected));

  // The oracle's answer is the one that tells the two repairs apart: keys
  // of the later blocks read as the second round left them.
  int later_deleted = 0;
  for (int i = 0; i < kKeys; i++) {
    const std::string key = delsm_test::OracleFillKey(i);
    if (later_keys.count(key) == 0) continue;
    if (Deleted(i)) {
      EXPECT_EQ(0u, expected.count(key)) << key;
      later_deleted++;
    } else if (Rewritten(i)) {
      EXPECT_EQ(NewValue(i), expected[key]) << key;
    }
  }
  ASSERT_GT(later_deleted, 0);

  // DeLSM's RepairDB of another copy, then every key it reads.
  const std::string by_delsm = tmp.path() + "/by-delsm";
  ASSERT_EQ("", delsm_test::CopyTree(pristine, by_delsm));
  Options options;
  Status s = RepairDB(by_delsm, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  DB* raw = nullptr;
  s = DB::Open(options, by_delsm, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  std::map<std::string, std::string> got;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    got[it->key().ToString()] = it->value().ToString();
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();

  EXPECT_EQ(expected.size(), got.size());
  for (const auto& kv : expected) {
    auto g = got.find(kv.first);
    if (g == got.end()) {
      ADD_FAILURE() << kv.first << " lost (LevelDB's repair keeps it)";
    } else {
      EXPECT_EQ(kv.second, g->second) << kv.first;
    }
  }
  for (const auto& kv : got) {
    if (expected.count(kv.first) == 0) {
      ADD_FAILURE() << kv.first << " = " << kv.second
                    << " is back (LevelDB's repair has it deleted)";
    }
  }
  // The damaged table itself is kept for the user.
  bool kept = false;
  for (const std::string& n : ListDir(by_delsm + "/lost")) {
    if (n == "leveldb-" + newest) kept = true;
  }
  EXPECT_TRUE(kept) << "no lost/leveldb-" << newest;
}

}  // namespace
}  // namespace leveldb
