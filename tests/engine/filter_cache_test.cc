// The filters of SSTs the table cache has closed are kept
// (delsm::Tuning::filter_cache_bytes): a read that would open a closed SST
// asks its kept filter first and opens it only when the filter lets the key
// through. These tests hold the table cache to nothing beyond the SSTs in
// use (table_cache_bytes=1), so every read of an SST not in use is a read
// of a closed one, and prove that
//   - what every read returns is unchanged: each key's latest value, NotFound
//     for deleted and absent keys, a snapshot's view, while compactions
//     run and retire SSTs;
//   - reads of absent keys open (almost) no meta file once the filters are
//     kept, where without them each opens one per level;
//   - the kept filters are reported and stay within their budget.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace {

using delsm_test::Key;
using delsm_test::TempDir;
using leveldb::DB;
using leveldb::FaultInjectionFileSystem;
using leveldb::FileSystem;
using leveldb::FsOp;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

constexpr int kKeys = 20000;

std::string Value(int i, int round) {
  std::string v = Key(i) + "/" + std::to_string(round);
  v.resize(60, static_cast<char>('a' + (i + round) % 26));
  return v;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return std::strtoull(v.c_str(), nullptr, 10);
}

class FilterCacheTest : public testing::Test {
 protected:
  FilterCacheTest() : dir_("delsm_filter_cache"), fs_(FileSystem::Default()) {}

  // Small SSTs over several levels, none kept open beyond their use.
  void OpenDb(const std::string& filter_cache_bytes) {
    delsm::Tuning tuning;
    const std::string refused = delsm_test::SetTuningFields(
        {{"sst_entries", "256"},
         {"l1_entries", "2000"},
         {"table_cache_bytes", "1"},
         {"filter_cache_bytes", filter_cache_bytes}},
        &tuning);
    ASSERT_TRUE(refused.empty()) << refused;
    DB* raw = nullptr;
    Status s =
        leveldb::OpenWithFileSystem(delsm_test::NewDbOptions(64 << 10), tuning,
                                    dir_.path() + "/db", &fs_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(raw);
  }

  // Writes every key, then overwrites a third and deletes a third, leaving
  // model_ as what a read must see.
  void Fill() {
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < kKeys; i++) {
        const int k =
            static_cast<int>((static_cast<int64_t>(i) * 7919) % kKeys);
        if (round == 1 && k % 3 != 0) continue;
        if (round == 2) {
          if (k % 3 != 1) continue;
          ASSERT_TRUE(db_->Delete(WriteOptions(), Key(k)).ok());
          model_.erase(k);
          continue;
        }
        ASSERT_TRUE(db_->Put(WriteOptions(), Key(k), Value(k, round)).ok());
        model_[k] = Value(k, round);
      }
    }
  }

  void ExpectModel(const ReadOptions& options,
                   const std::map<int, std::string>& model) {
    std::string v;
    for (int k = 0; k < kKeys; k++) {
      Status s = db_->Get(options, Key(k), &v);
      auto it = model.find(k);
      if (it == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << Key(k) << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << Key(k) << ": " << s.ToString();
        ASSERT_EQ(it->second, v) << Key(k);
      }
    }
  }

  // Meta files and directories opened while reading `n` absent keys
  // (between existing ones, so every level's key range holds them).
  uint64_t OpensForAbsentReads(int n) {
    const uint64_t before = fs_.Count(FsOp::kOpen);
    std::string v;
    for (int i = 0; i < n; i++) {
      const std::string absent = Key(i * (kKeys / n)) + "x";
      EXPECT_TRUE(db_->Get(ReadOptions(), absent, &v).IsNotFound()) << absent;
    }
    return fs_.Count(FsOp::kOpen) - before;
  }

  TempDir dir_;
  FaultInjectionFileSystem fs_;
  std::unique_ptr<DB> db_;
  std::map<int, std::string> model_;
};

TEST_F(FilterCacheTest, ReadsSeeWhatTheyWouldWithoutKeptFilters) {
  OpenDb("33554432");
  const std::map<int, std::string> first = [&] {
    for (int i = 0; i < kKeys; i++) {
      EXPECT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i, 9)).ok());
    }
    std::map<int, std::string> m;
    for (int i = 0; i < kKeys; i++) m[i] = Value(i, 9);
    return m;
  }();
  const leveldb::Snapshot* snapshot = db_->GetSnapshot();
  Fill();
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  // Twice each: the first pass opens SSTs and keeps their filters, the
  // second reads through the kept filters; compactions run meanwhile.
  for (int pass = 0; pass < 2; pass++) {
    ExpectModel(ReadOptions(), model_);
    ExpectModel(at_snapshot, first);
  }
  db_->ReleaseSnapshot(snapshot);
  db_->CompactRange(nullptr, nullptr);
  for (int pass = 0; pass < 2; pass++) ExpectModel(ReadOptions(), model_);
  EXPECT_GT(Property(db_.get(), "delsm.filter-cache-memory"), 0u);
}

TEST_F(FilterCacheTest, ClosedSstsTheFilterExcludesAreNotOpened) {
  OpenDb("33554432");
  Fill();
  db_->CompactRange(nullptr, nullptr);
  ExpectModel(ReadOptions(), model_);  // opens every SST once
  const uint64_t kept = OpensForAbsentReads(2000);
  // 10 bits per key: about 1% of the SSTs asked let an absent key through.
  EXPECT_LT(kept, 200u) << "meta files opened for 2000 absent keys";

  db_.reset();
  OpenDb("0");
  ExpectModel(ReadOptions(), model_);
  const uint64_t none = OpensForAbsentReads(2000);
  EXPECT_GE(none, 2000u) << "without kept filters each read opens its SSTs";
}

TEST_F(FilterCacheTest, KeptFiltersStayWithinTheirBudget) {
  constexpr uint64_t kBudget = 4096;
  OpenDb(std::to_string(kBudget));
  Fill();
  db_->CompactRange(nullptr, nullptr);
  ExpectModel(ReadOptions(), model_);
  const uint64_t used = Property(db_.get(), "delsm.filter-cache-memory");
  EXPECT_GT(used, 0u);
  EXPECT_LE(used, kBudget);
}

}  // namespace
