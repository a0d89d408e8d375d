// A damaged group of a meta file (one byte of its entries flipped, so its
// crc fails) reached by a DB iterator, in every direction and by every
// kind of positioning, and by Get. What a user relies on:
//  * an iterator yields only entries the database holds, with their
//    values: never a key whose newer version (a deletion, or a newer value)
//    is in the damaged group;
//  * it never skips: the keys it yields are a run of the database's keys
//    without a gap, from where it was positioned, and once it cannot go on
//    it is invalid with Corruption (a scan that ends with an OK status has
//    yielded every key in its direction; one that yielded every key may
//    still report the damage);
//  * Get of a key in the damaged group is Corruption, never NotFound or an
//    older value.
// Both ways an SST without a KV file is iterated are driven: group by
// group (a fresh SST), and through its whole index (once the SST has
// served SstDir::kIndexAfterGroupSeeks group seeks).
//
// The database: an SST whose first group ends with the newest version of
// key "k" and whose second group starts with an older one, kept by a
// snapshot held while it was written: the deletion, or a newer value, of
// "k" is in group 0, its old value in group 1. Group 0 is then damaged.
// The SST is alone in L0 (a flush), or in L1 between two other SSTs (a
// compaction), where the level's iterator goes from SST to SST: a scan
// must not go on into the next one.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "table/sst_dir.h"
#include "tests/db_options.h"
#include "tests/file_bytes.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::ListDir;

// 15 keys before "k" (entries 0 to 14), "k"'s newest version (entry 15,
// the last of group 0), "k"'s old value (entry 16, the first of group 1),
// then kAfter keys.
constexpr int kBefore = 15;
constexpr int kAfter = 40;

std::string Before(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "a%03d", i);
  return buf;
}
std::string After(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "z%03d", i);
  return buf;
}
// Keys of the SSTs before and after it in L1.
std::string Neighbour(bool after, int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%c%03d", after ? '~' : '0', i);
  return buf;
}
constexpr int kNeighbourKeys = 20;
// Not containing the key's bytes (the test finds a key in the meta file).
std::string ValueOf(const std::string& key) {
  std::string v = key + " value";
  v[0] = static_cast<char>(v[0] ^ 0x20);
  return v;
}

enum class Newest { kDeletion, kNewerValue };
enum class Place { kAloneInL0, kBetweenSstsInL1 };

class DamagedGroupScanTest
    : public testing::TestWithParam<std::tuple<Newest, Place>> {
 protected:
  DamagedGroupScanTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.compression = kNoCompression;
    tuning_ = delsm_test::ManualCompactionOnly();
  }

  // Builds the database described at the top, closes it and damages group
  // 0 of its SST's meta file; fills model_ with what it holds.
  void BuildAndDamage() {
    const Newest newest = std::get<0>(GetParam());
    const Place place = std::get<1>(GetParam());
    DB* raw = nullptr;
    ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &raw));
    std::unique_ptr<DB> db(raw);
    DBImpl* impl = static_cast<DBImpl*>(raw);
    auto put = [&](const std::string& key) {
      ASSERT_OK(db->Put(WriteOptions(), key, ValueOf(key)));
      model_[key] = ValueOf(key);
    };
    if (place == Place::kBetweenSstsInL1) {
      // Two SSTs in L1, one each side of the damaged one's keys.
      for (bool after : {false, true}) {
        for (int i = 0; i < kNeighbourKeys; i++) put(Neighbour(after, i));
        ASSERT_OK(impl->TEST_FlushMemTable());
        ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));
      }
    }
    for (int i = 0; i < kBefore; i++) put(Before(i));
    for (int i = 0; i < kAfter; i++) put(After(i));
    ASSERT_OK(db->Put(WriteOptions(), "k", "old value of k"));
    const Snapshot* snapshot = db->GetSnapshot();
    if (newest == Newest::kDeletion) {
      ASSERT_OK(db->Delete(WriteOptions(), "k"));
    } else {
      ASSERT_OK(db->Put(WriteOptions(), "k", "new value of k"));
      model_["k"] = "new value of k";
    }
    ASSERT_OK(impl->TEST_FlushMemTable());
    if (place == Place::kBetweenSstsInL1) {
      ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));
      std::string n;
      ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level1", &n));
      ASSERT_EQ("3", n);
      ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level0", &n));
      ASSERT_EQ("0", n);
    }
    db->ReleaseSnapshot(snapshot);
    db.reset();

    // The meta file holding entry 5's key, and a byte of that key (in
    // group 0; not a group's first key, which the trailer repeats).
    const std::string level = place == Place::kAloneInL0 ? "/L0" : "/L1";
    std::string meta;
    size_t at = std::string::npos;
    for (const std::string& d : ListDir(dbname_ + level)) {
      for (const std::string& f : ListDir(dbname_ + level + "/" + d)) {
        if (f.rfind("META", 0) != 0) continue;
        const std::string path = dbname_ + level + "/" + d + "/" + f;
        std::string data;
        ASSERT_TRUE(delsm_test::ReadWhole(path, &data));
        const size_t found = data.find(Before(5));
        if (found == std::string::npos) continue;
        ASSERT_TRUE(meta.empty()) << "two meta files hold " << Before(5);
        ASSERT_EQ(found, data.rfind(Before(5))) << "entry 5's key twice";
        meta = path;
        at = found;
      }
    }
    ASSERT_FALSE(meta.empty());
    ASSERT_TRUE(delsm_test::FlipByte(meta, at + 1));
  }

  void Open() {
    DB* raw = nullptr;
    ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &raw));
    db_.reset(raw);
  }

  // Makes the SST one whose iterators read its whole index: enough seeks
  // through group iterators (each Seek of a DB iterator seeks it once; an
  // SST of a few groups loads its index after the minimum).
  void ServeSeeks() {
    for (uint32_t i = 0; i <= SstDir::kMinIndexAfterGroupSeeks; i++) {
      std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
      it->Seek(After(i % kAfter));
    }
  }

  // Checks one scan: `it` was just positioned (at model key `start`, the
  // first key it should yield, or past the model's end: ""), and moves
  // forward (`forward`) or backward. Every key it yields must be the next
  // key of the model in that direction, with its value; when it stops
  // before the model's end its status must be Corruption, and when it
  // reached the model's end, OK.
  void CheckScan(Iterator* it, const std::string& start, bool forward,
                 const std::string& what) {
    SCOPED_TRACE(what);
    std::vector<std::string> expected;
    if (forward) {
      for (auto m = model_.lower_bound(start); m != model_.end(); ++m) {
        expected.push_back(m->first);
      }
    } else {
      auto m = model_.upper_bound(start);
      while (m != model_.begin()) expected.push_back((--m)->first);
    }
    size_t n = 0;
    for (; it->Valid(); forward ? it->Next() : it->Prev(), n++) {
      const std::string key = it->key().ToString();
      const std::string value = it->value().ToString();
      ASSERT_LT(n, expected.size()) << "extra key " << key;
      ASSERT_EQ(expected[n], key)
          << "after " << n << " keys: yielded " << key << ", skipping "
          << expected[n] << (model_.count(key) == 0 ? " (a deleted key)" : "");
      if (!it->Valid()) break;  // the value's read failed
      ASSERT_EQ(model_[key], value) << key;
    }
    // Having yielded every key it may still report the damage (an SST
    // read through its whole index fails whole, wherever it is entered).
    EXPECT_TRUE(it->status().IsCorruption() ||
                (n == expected.size() && it->status().ok()))
        << "stopped after " << n << " of " << expected.size()
        << " keys: " << it->status().ToString();
  }

  // Every way of positioning and moving a DB iterator.
  void CheckEveryScan(const std::string& how) {
    {
      std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
      it->SeekToFirst();
      CheckScan(it.get(), "", true, how + ", SeekToFirst then Next");
    }
    {
      std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
      it->SeekToLast();
      CheckScan(it.get(), model_.rbegin()->first, false,
                how + ", SeekToLast then Prev");
    }
    // Seeks to "k" (its group 1 entry, or its newer version in group 0),
    // into group 0, past it, and into the SSTs before and after it (when
    // there are): forward and backward from each.
    for (const std::string& target :
         {std::string("k"), Before(3), After(0), Neighbour(false, 5),
          Neighbour(true, 5)}) {
      {
        std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
        it->Seek(target);
        CheckScan(it.get(), target, true,
                  how + ", Seek(" + target + ") then Next");
      }
      {
        // Backward from the first key at or after the target: none when
        // the target is past the last key (then the iterator is invalid,
        // with no error or with the damage).
        std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
        it->Seek(target);
        auto first = model_.lower_bound(target);
        if (first != model_.end()) {
          CheckScan(it.get(), first->first, false,
                    how + ", Seek(" + target + ") then Prev");
        } else {
          EXPECT_FALSE(it->Valid());
          EXPECT_TRUE(it->status().ok() || it->status().IsCorruption())
              << it->status().ToString();
        }
      }
    }
  }

  // Get: the damaged group's keys are Corruption; the others read as the
  // model says.
  void CheckGets() {
    for (int i = 0; i < kBefore; i++) {
      std::string v;
      Status s = db_->Get(ReadOptions(), Before(i), &v);
      EXPECT_TRUE(s.IsCorruption()) << Before(i) << ": " << s.ToString();
    }
    std::string v;
    Status s = db_->Get(ReadOptions(), "k", &v);
    EXPECT_TRUE(s.IsCorruption())
        << "k: " << (s.ok() ? "reads " + v : s.ToString());
    for (int i = 0; i < kAfter; i++) {
      s = db_->Get(ReadOptions(), After(i), &v);
      ASSERT_OK(s);
      EXPECT_EQ(ValueOf(After(i)), v);
    }
  }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
  std::map<std::string, std::string> model_;
  std::unique_ptr<DB> db_;
};

TEST_P(DamagedGroupScanTest, GroupIteratorNeverSkipsNorResurrects) {
  ASSERT_NO_FATAL_FAILURE(BuildAndDamage());
  ASSERT_NO_FATAL_FAILURE(Open());
  CheckEveryScan("group iterator");
  CheckGets();
}

TEST_P(DamagedGroupScanTest, IndexIteratorNeverSkipsNorResurrects) {
  ASSERT_NO_FATAL_FAILURE(BuildAndDamage());
  ASSERT_NO_FATAL_FAILURE(Open());
  ServeSeeks();
  CheckEveryScan("index iterator");
  CheckGets();
}

INSTANTIATE_TEST_SUITE_P(
    NewestVersionOfK, DamagedGroupScanTest,
    testing::Combine(testing::Values(Newest::kDeletion, Newest::kNewerValue),
                     testing::Values(Place::kAloneInL0,
                                     Place::kBetweenSstsInL1)),
    [](const testing::TestParamInfo<std::tuple<Newest, Place>>& info) {
      return std::string(std::get<0>(info.param) == Newest::kDeletion
                             ? "Deletion"
                             : "NewerValue") +
             (std::get<1>(info.param) == Place::kAloneInL0 ? "_AloneInL0"
                                                           : "_InL1");
    });

}  // namespace
}  // namespace leveldb
