#include "table/merging_iterator.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/iterator.h"
#include "table/vector_iterator.h"
#include "util/random.h"

namespace leveldb {
namespace {

// Orders keys backwards, to check the merge follows the given comparator.
class ReverseComparator : public Comparator {
 public:
  const char* Name() const override { return "test.Reverse"; }
  int Compare(const Slice& a, const Slice& b) const override {
    return -BytewiseComparator()->Compare(a, b);
  }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

std::string Key(int k) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%06d", k);
  return buf;
}

// Builds `n` children with random keys (distinct within a child, possibly
// shared between children), and the expected merged sequence: by key, then
// by child index.
void BuildChildren(const Comparator* cmp, int n, int keys_per_child,
                   int key_space, Random* rnd, std::vector<Iterator*>* children,
                   std::vector<std::pair<std::string, std::string>>* merged) {
  std::vector<std::tuple<std::string, int, std::string>> all;
  for (int c = 0; c < n; c++) {
    std::vector<std::string> keys;
    const int count = rnd->Uniform(keys_per_child + 1);  // May be empty.
    for (int i = 0; i < count; i++)
      keys.push_back(Key(rnd->Uniform(key_space)));
    std::sort(keys.begin(), keys.end(),
              [cmp](const std::string& a, const std::string& b) {
                return cmp->Compare(a, b) < 0;
              });
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    std::vector<std::pair<std::string, std::string>> entries;
    for (const std::string& k : keys) {
      const std::string v = k + "@" + std::to_string(c);
      entries.emplace_back(k, v);
      all.emplace_back(k, c, v);
    }
    children->push_back(new VectorIterator(cmp, entries));
  }
  std::sort(all.begin(), all.end(), [cmp](const auto& a, const auto& b) {
    const int r = cmp->Compare(std::get<0>(a), std::get<0>(b));
    if (r != 0) return r < 0;
    return std::get<1>(a) < std::get<1>(b);
  });
  for (const auto& t : all)
    merged->emplace_back(std::get<0>(t), std::get<2>(t));
}

// Drives the merged iterator and a position in the expected sequence with
// the same random operations and compares them after each step.
void RandomWalk(const Comparator* cmp, int children, int keys_per_child,
                int key_space, uint32_t seed) {
  Random rnd(seed);
  std::vector<Iterator*> kids;
  std::vector<std::pair<std::string, std::string>> model;
  BuildChildren(cmp, children, keys_per_child, key_space, &rnd, &kids, &model);
  Iterator* iter = NewMergingIterator(cmp, kids.data(), children);
  const size_t kInvalid = model.size();
  size_t pos = kInvalid;

  for (int step = 0; step < 3000; step++) {
    const int op = rnd.Uniform(10);
    if (op == 0) {
      iter->SeekToFirst();
      pos = 0;
    } else if (op == 1) {
      iter->SeekToLast();
      pos = model.empty() ? kInvalid : model.size() - 1;
    } else if (op == 2) {
      const std::string target = Key(rnd.Uniform(key_space + 2) - 1);
      iter->Seek(target);
      pos = 0;
      while (pos < model.size() && cmp->Compare(model[pos].first, target) < 0) {
        pos++;
      }
    } else if (pos != kInvalid) {
      if (op < 6) {
        iter->Next();
        pos++;
      } else {
        iter->Prev();
        pos = (pos == 0) ? kInvalid : pos - 1;
      }
    }
    if (pos >= model.size()) pos = kInvalid;
    ASSERT_EQ(pos != kInvalid, iter->Valid()) << "step " << step;
    if (pos != kInvalid) {
      ASSERT_EQ(model[pos].first, iter->key().ToString()) << "step " << step;
      ASSERT_EQ(model[pos].second, iter->value().ToString()) << "step " << step;
    }
  }
  EXPECT_TRUE(iter->status().ok());
  delete iter;
}

TEST(MergingIteratorTest, NoChildren) {
  Iterator* iter = NewMergingIterator(BytewiseComparator(), nullptr, 0);
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().ok());
  delete iter;
}

TEST(MergingIteratorTest, OneChild) {
  RandomWalk(BytewiseComparator(), 1, 50, 100, 1);
}

TEST(MergingIteratorTest, FullScansBothWays) {
  Random rnd(5);
  std::vector<Iterator*> kids;
  std::vector<std::pair<std::string, std::string>> model;
  BuildChildren(BytewiseComparator(), 4, 100, 150, &rnd, &kids, &model);
  Iterator* iter = NewMergingIterator(BytewiseComparator(), kids.data(), 4);
  size_t i = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next(), i++) {
    ASSERT_LT(i, model.size());
    EXPECT_EQ(model[i].second, iter->value().ToString());
  }
  EXPECT_EQ(model.size(), i);
  for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
    ASSERT_GT(i, 0u);
    i--;
    EXPECT_EQ(model[i].second, iter->value().ToString());
  }
  EXPECT_EQ(0u, i);
  delete iter;
}

TEST(MergingIteratorTest, RandomWalkDistinctKeys) {
  // A large key space makes shared keys rare.
  for (uint32_t seed = 1; seed <= 10; seed++) {
    RandomWalk(BytewiseComparator(), 5, 60, 1000000, seed);
  }
}

TEST(MergingIteratorTest, RandomWalkSharedKeys) {
  // A small key space makes most keys appear in several children, which
  // exercises direction switches among equal keys.
  for (uint32_t seed = 1; seed <= 10; seed++) {
    RandomWalk(BytewiseComparator(), 4, 20, 30, seed);
  }
}

TEST(MergingIteratorTest, RandomWalkManyChildren) {
  RandomWalk(BytewiseComparator(), 20, 30, 500, 99);
}

TEST(MergingIteratorTest, RandomWalkAsManyChildrenAsAStoppedLevel0) {
  // A DB merges up to l0_stop_dirs L0 directories plus the memtables and
  // one iterator per level; with a small key space most keys are in several
  // children, so the heap's tie order is exercised at every step.
  for (uint32_t seed = 1; seed <= 5; seed++) {
    RandomWalk(BytewiseComparator(), 48, 40, 200, seed);
  }
}

TEST(MergingIteratorTest, CustomComparator) {
  ReverseComparator reverse;
  for (uint32_t seed = 1; seed <= 5; seed++) {
    RandomWalk(&reverse, 3, 40, 80, seed);
  }
}

TEST(MergingIteratorTest, DirectionSwitchOnTies) {
  // Key "b" in all three children: forward order b@0, b@1, b@2.
  const Comparator* cmp = BytewiseComparator();
  std::vector<Iterator*> kids = {
      new VectorIterator(cmp, {{"a", "a0"}, {"b", "b0"}}),
      new VectorIterator(cmp, {{"b", "b1"}, {"c", "c1"}}),
      new VectorIterator(cmp, {{"b", "b2"}})};
  Iterator* iter = NewMergingIterator(cmp, kids.data(), 3);
  iter->Seek("b");
  ASSERT_EQ("b0", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("b1", iter->value().ToString());
  iter->Prev();
  ASSERT_EQ("b0", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("b1", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("b2", iter->value().ToString());
  iter->Prev();
  ASSERT_EQ("b1", iter->value().ToString());
  iter->Prev();
  ASSERT_EQ("b0", iter->value().ToString());
  iter->Prev();
  ASSERT_EQ("a0", iter->value().ToString());
  iter->Prev();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  ASSERT_EQ("c1", iter->value().ToString());
  iter->Prev();
  ASSERT_EQ("b2", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("c1", iter->value().ToString());
  delete iter;
}

TEST(MergingIteratorTest, ChildErrorIsReported) {
  const Comparator* cmp = BytewiseComparator();
  std::vector<Iterator*> kids = {
      new VectorIterator(cmp, {{"a", "1"}}),
      new VectorIterator(cmp, {}, Status::Corruption("child broke")),
      NewErrorIterator(Status::IOError("second"))};
  Iterator* iter = NewMergingIterator(cmp, kids.data(), 3);
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("a", iter->key().ToString());
  Status s = iter->status();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  delete iter;
}

// Fails like an SST whose next piece cannot be read: valid up to `good`
// entries, then invalid with an error once moved past them.
class FailsAfterIterator : public Iterator {
 public:
  FailsAfterIterator(std::vector<std::string> keys, size_t good)
      : keys_(std::move(keys)), good_(good), pos_(keys_.size()) {}
  bool Valid() const override { return pos_ < good_ && status_.ok(); }
  void SeekToFirst() override { Move(0); }
  void SeekToLast() override { Move(keys_.size() - 1); }
  void Seek(const Slice& target) override {
    size_t i = 0;
    while (i < keys_.size() && Slice(keys_[i]).compare(target) < 0) i++;
    Move(i);
  }
  void Next() override { Move(pos_ + 1); }
  void Prev() override { Move(pos_ == 0 ? keys_.size() : pos_ - 1); }
  Slice key() const override { return keys_[pos_]; }
  Slice value() const override { return "v"; }
  Status status() const override { return status_; }

 private:
  void Move(size_t pos) {
    pos_ = pos;
    if (pos_ >= good_ && pos_ < keys_.size()) {
      status_ = Status::IOError("unreadable piece");
    }
  }
  const std::vector<std::string> keys_;
  const size_t good_;
  size_t pos_;
  Status status_;
};

TEST(MergingIteratorTest, ErrorOfAChildMidScanIsReportedWhileOthersGoOn) {
  // One child of many fails when it is moved past its last readable entry;
  // the merged iterator must report that error from then on, as LevelDB's
  // does, although the other children could go on.
  const Comparator* cmp = BytewiseComparator();
  std::vector<Iterator*> kids;
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 100; i += 2) many.emplace_back(Key(i), "x");
  kids.push_back(new VectorIterator(cmp, many));
  for (int c = 0; c < 8; c++) {
    kids.push_back(new VectorIterator(cmp, {{Key(200 + c), "y"}}));
  }
  kids.push_back(new FailsAfterIterator({Key(11), Key(31), Key(51)}, 2));
  Iterator* iter = NewMergingIterator(cmp, kids.data(), kids.size());
  iter->SeekToFirst();
  int steps = 0;
  while (iter->Valid() && iter->status().ok()) {
    iter->Next();
    steps++;
  }
  // Key(31) is the failing child's last good entry; stepping past it makes
  // that child fail, after 17 entries of the even child and 2 of its own.
  EXPECT_EQ(18, steps);
  EXPECT_TRUE(iter->status().IsIOError()) << iter->status().ToString();
  delete iter;
}

}  // namespace
}  // namespace leveldb
