// The removal pass after an automatic compaction runs on a thread of its
// own (delsm::Tuning::removal_thread), while the compaction thread goes on
// merging. What users rely on, with the thread and without it:
//  * once background work has settled, nothing a compaction retired is
//    left in the open database's directories (no reopen needed), and the
//    database reads as written;
//  * an iterator and a snapshot taken before many compactions read exactly
//    what they saw when taken, whatever removal passes ran meanwhile (a
//    pass unlinks only what no live version uses);
//  * a manual compaction has run its removal pass when CompactRange
//    returns, as LevelDB's has, with no other wait.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

using Model = std::map<std::string, std::string>;

class RemovalThreadTest : public testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    dbname_ = dir_.path() + "/db";
    const std::string refused = delsm_test::SetTuningFields(
        {// Every value a KV file: each compaction links and retires
         // directory entries.
         {"inline_threshold", "0"},
         {"sst_entries", "32"},
         {"l0_compaction_entries", "200"},
         {"l1_entries", "500"},
         {"removal_thread", GetParam() ? "1" : "0"}},
        &tuning_);
    ASSERT_TRUE(refused.empty()) << refused;
    DB* raw = nullptr;
    Status s =
        delsm::Open(delsm_test::NewDbOptions(16 << 10), tuning_, dbname_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(raw);
  }

  leveldb::DBImpl* impl() { return static_cast<leveldb::DBImpl*>(db_.get()); }

  // Writes keys [0, n) in a shuffled order with overwrites and deletes,
  // keeping `model` in step.
  void Write(int n, uint64_t seed, Model* model) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < n; i++) {
      const std::string key = delsm_test::IndexKey(rng() % n);
      if (rng() % 10 == 0) {
        ASSERT_TRUE(db_->Delete(WriteOptions(), key).ok());
        model->erase(key);
      } else {
        const std::string value =
            key + "@" + std::to_string(seed) + "." + std::to_string(i);
        ASSERT_TRUE(db_->Put(WriteOptions(), key, value).ok());
        (*model)[key] = value;
      }
    }
  }

  // The whole database through `options` equals `model`.
  void ExpectReads(const ReadOptions& options, const Model& model,
                   const char* what) {
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(options));
    ExpectIteratorReads(it.get(), model, what);
  }

  static void ExpectIteratorReads(leveldb::Iterator* it, const Model& model,
                                  const char* what) {
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_TRUE(m != model.end())
          << what << ": extra " << it->key().ToString();
      ASSERT_EQ(m->first, it->key().ToString()) << what;
      ASSERT_EQ(m->second, it->value().ToString()) << what;
    }
    ASSERT_TRUE(it->status().ok()) << what << ": " << it->status().ToString();
    ASSERT_TRUE(m == model.end()) << what << ": missing " << m->first;
  }

  uint64_t Unlinks() {
    std::string v;
    EXPECT_TRUE(db_->GetProperty("delsm.unlinks", &v));
    return std::stoull(v);
  }

  delsm_test::TempDir dir_{"delsm_removal_thread"};
  std::string dbname_;
  delsm::Tuning tuning_;
  std::unique_ptr<DB> db_;
};

TEST_P(RemovalThreadTest, RetiredEntriesGoWhileTheDatabaseIsOpen) {
  Model model;
  ASSERT_NO_FATAL_FAILURE(Write(6000, 1, &model));
  Status s = impl()->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(Unlinks(), 0u) << "no compaction retired an entry";
  EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));
  ASSERT_NO_FATAL_FAILURE(ExpectReads(ReadOptions(), model, "settled"));
}

TEST_P(RemovalThreadTest, OlderReadersReadTheirVersionThroughRemovalPasses) {
  Model before;
  ASSERT_NO_FATAL_FAILURE(Write(3000, 2, &before));
  const leveldb::Snapshot* snapshot = db_->GetSnapshot();
  std::unique_ptr<leveldb::Iterator> held(db_->NewIterator(ReadOptions()));
  Model after = before;
  const uint64_t unlinks_before = Unlinks();
  ASSERT_NO_FATAL_FAILURE(Write(3000, 3, &after));
  ASSERT_NO_FATAL_FAILURE(Write(3000, 4, &after));
  Status s = impl()->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(Unlinks(), unlinks_before) << "no removal pass ran meanwhile";

  ASSERT_NO_FATAL_FAILURE(ExpectIteratorReads(held.get(), before, "iterator"));
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  ASSERT_NO_FATAL_FAILURE(ExpectReads(at_snapshot, before, "snapshot"));
  ASSERT_NO_FATAL_FAILURE(ExpectReads(ReadOptions(), after, "latest"));

  held.reset();
  db_->ReleaseSnapshot(snapshot);
  // Nothing else asks for a pass now: the manual compaction's own pass
  // removes what the readers held, before CompactRange returns.
  db_->CompactRange(nullptr, nullptr);
  EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));
  ASSERT_NO_FATAL_FAILURE(ExpectReads(ReadOptions(), after, "compacted"));
}

INSTANTIATE_TEST_SUITE_P(WithAndWithout, RemovalThreadTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "RemovalThread"
                                             : "OnTheCompactionThread";
                         });

}  // namespace
