// The memory the open SSTs keep resident (decoded meta
// files: index, keys, inline values, filter) is bounded by
// delsm::Tuning::table_cache_bytes and reported, whatever the number of
// SSTs, and every read still finds its value once SSTs are closed for it.
// Public API only (tuning set by name, as DELSM_OPTIONS would).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

constexpr int kKeys = 24000;
constexpr uint64_t kBudget = 1 << 20;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%08d", i);
  return buf;
}

std::string Value(int i) {
  std::string v = Key(i);
  v.resize(100, static_cast<char>('a' + i % 26));
  return v;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return std::strtoull(v.c_str(), nullptr, 10);
}

TEST(TableCacheMemoryTest, ResidentMetaBytesStayWithinTheBudget) {
  delsm_test::TempDir parent("delsm_tcmem");
  ASSERT_FALSE(parent.path().empty());
  const std::string dbname = parent.path() + "/db";
  const Options options = delsm_test::NewDbOptions(64 << 10);
  delsm::Tuning tuning;
  // Inline values make each entry's resident share large (about 135 bytes),
  // and small SSTs make many of them: about 3 MB of meta in 94 SSTs of 256
  // entries, all of which LevelDB's descriptor bound alone would keep open.
  const std::string refused = delsm_test::SetTuningFields(
      {{"inline_threshold", "128"},
       {"sst_entries", "256"},
       {"table_cache_bytes", std::to_string(kBudget)}},
      &tuning);
  ASSERT_TRUE(refused.empty()) << refused;
  DB* raw = nullptr;
  Status s = delsm::Open(options, tuning, dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kKeys; i++) {
    // A stride visits every key once, out of order.
    const int k = static_cast<int>((static_cast<int64_t>(i) * 7919) % kKeys);
    ASSERT_TRUE(db->Put(WriteOptions(), Key(k), Value(k)).ok());
  }
  db->CompactRange(nullptr, nullptr);

  uint64_t peak = 0;
  std::string v;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < kKeys; i++) {
      s = db->Get(ReadOptions(), Key(i), &v);
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i), v) << Key(i);
      if (i % 500 == 0) {
        peak = std::max(peak, Property(db.get(), "delsm.table-cache-memory"));
      }
    }
  }
  // A full scan opens every SST in turn.
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ReadOptions()));
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(kKeys, seen);
  it.reset();
  const uint64_t after = Property(db.get(), "delsm.table-cache-memory");
  peak = std::max(peak, after);
  std::printf(
      "table cache: %llu bytes after the reads, peak %llu, budget %llu\n",
      static_cast<unsigned long long>(after),
      static_cast<unsigned long long>(peak),
      static_cast<unsigned long long>(kBudget));
  // Some SSTs stay open (the budget is used), none beyond it whenever no
  // read holds one (every sample is taken between reads).
  EXPECT_GT(after, 0u);
  EXPECT_LE(peak, kBudget);
  // Reported in LevelDB's memory property too.
  EXPECT_GE(Property(db.get(), "leveldb.approximate-memory-usage"), after);
}

}  // namespace
