// Tests of the Iterator base class (cleanups), the empty and error
// iterators, and the two-level iterator.
#include "table/two_level_iterator.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/iterator.h"
#include "table/vector_iterator.h"
#include "util/random.h"

namespace leveldb {
namespace {

void CountCleanup(void* counter, void* amount) {
  *static_cast<int*>(counter) += *static_cast<int*>(amount);
}

TEST(IteratorTest, CleanupsRunOnceOnDestruction) {
  int counter = 0;
  int one = 1, ten = 10, hundred = 100;
  Iterator* iter = NewEmptyIterator();
  iter->RegisterCleanup(CountCleanup, &counter, &one);
  iter->RegisterCleanup(CountCleanup, &counter, &ten);
  iter->RegisterCleanup(CountCleanup, &counter, &hundred);
  EXPECT_EQ(0, counter);
  delete iter;
  EXPECT_EQ(111, counter);

  // No cleanups registered: nothing to run.
  delete NewEmptyIterator();
}

TEST(IteratorTest, EmptyAndErrorIterators) {
  Iterator* empty = NewEmptyIterator();
  empty->SeekToFirst();
  EXPECT_FALSE(empty->Valid());
  empty->Seek("x");
  EXPECT_FALSE(empty->Valid());
  empty->SeekToLast();
  EXPECT_FALSE(empty->Valid());
  EXPECT_TRUE(empty->status().ok());
  delete empty;

  Iterator* error = NewErrorIterator(Status::IOError("disk", "gone"));
  error->SeekToFirst();
  EXPECT_FALSE(error->Valid());
  EXPECT_TRUE(error->status().IsIOError());
  EXPECT_EQ("IO error: disk: gone", error->status().ToString());
  delete error;
}

std::string Key(int k) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%05d", k);
  return buf;
}

// Blocks of sorted keys; the index maps each block's last key to its
// number, as a table index does.
struct Blocks {
  std::vector<std::vector<std::pair<std::string, std::string>>> data;
  std::vector<Status> errors;  // Status of each block's iterator.
  int opened = 0;              // Calls of the block function.

  Iterator* NewIndex() const {
    std::vector<std::pair<std::string, std::string>> index;
    std::string last;
    for (size_t b = 0; b < data.size(); b++) {
      // Empty blocks reuse the previous separator.
      if (!data[b].empty()) last = data[b].back().first;
      index.emplace_back(last, std::to_string(b));
    }
    return new VectorIterator(BytewiseComparator(), index);
  }

  static Iterator* Open(void* arg, const ReadOptions& options,
                        const Slice& handle) {
    Blocks* blocks = static_cast<Blocks*>(arg);
    blocks->opened++;
    const size_t b = std::stoul(handle.ToString());
    if (!blocks->errors[b].ok()) return NewErrorIterator(blocks->errors[b]);
    return new VectorIterator(BytewiseComparator(), blocks->data[b]);
  }
};

// Splits keys 0, 2, 4, ... into `nblocks` blocks of random size (some
// empty); returns the flat list.
std::vector<std::pair<std::string, std::string>> MakeBlocks(int nblocks,
                                                            Random* rnd,
                                                            Blocks* blocks) {
  std::vector<std::pair<std::string, std::string>> flat;
  int next = 0;
  for (int b = 0; b < nblocks; b++) {
    std::vector<std::pair<std::string, std::string>> block;
    const int n = rnd->OneIn(4) ? 0 : rnd->Uniform(6);
    for (int i = 0; i < n; i++) {
      block.emplace_back(Key(next), "v" + std::to_string(next));
      flat.push_back(block.back());
      next += 2;
    }
    blocks->data.push_back(block);
    blocks->errors.push_back(Status::OK());
  }
  return flat;
}

TEST(TwoLevelIteratorTest, RandomWalkMatchesFlatSequence) {
  for (uint32_t seed = 1; seed <= 20; seed++) {
    Random rnd(seed);
    Blocks blocks;
    const auto flat = MakeBlocks(1 + rnd.Uniform(12), &rnd, &blocks);
    const int max_key = static_cast<int>(flat.size()) * 2 + 2;
    Iterator* iter = NewTwoLevelIterator(blocks.NewIndex(), &Blocks::Open,
                                         &blocks, ReadOptions());
    const size_t kInvalid = flat.size();
    size_t pos = kInvalid;
    for (int step = 0; step < 500; step++) {
      const int op = rnd.Uniform(8);
      if (op == 0) {
        iter->SeekToFirst();
        pos = 0;
      } else if (op == 1) {
        iter->SeekToLast();
        pos = flat.empty() ? kInvalid : flat.size() - 1;
      } else if (op == 2) {
        // Odd keys fall between entries.
        const std::string target = Key(rnd.Uniform(max_key));
        iter->Seek(target);
        pos = 0;
        while (pos < flat.size() && flat[pos].first < target) pos++;
      } else if (pos != kInvalid) {
        if (op < 5) {
          iter->Next();
          pos++;
        } else {
          iter->Prev();
          pos = (pos == 0) ? kInvalid : pos - 1;
        }
      }
      if (pos >= flat.size()) pos = kInvalid;
      ASSERT_EQ(pos != kInvalid, iter->Valid())
          << "seed " << seed << " step " << step;
      if (pos != kInvalid) {
        ASSERT_EQ(flat[pos].first, iter->key().ToString());
        ASSERT_EQ(flat[pos].second, iter->value().ToString());
      }
    }
    EXPECT_TRUE(iter->status().ok());
    delete iter;
  }
}

TEST(TwoLevelIteratorTest, BlockOpenedOncePerVisit) {
  Blocks blocks;
  blocks.data = {{{"a", "1"}, {"b", "2"}, {"c", "3"}}, {{"d", "4"}}};
  blocks.errors.assign(2, Status::OK());
  Iterator* iter = NewTwoLevelIterator(blocks.NewIndex(), &Blocks::Open,
                                       &blocks, ReadOptions());
  int n = 0;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) n++;
  EXPECT_EQ(4, n);
  EXPECT_EQ(2, blocks.opened);
  // Seeking within the block already open does not reopen it.
  iter->Seek("b");
  ASSERT_TRUE(iter->Valid());
  const int before = blocks.opened;
  iter->Seek("c");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c", iter->key().ToString());
  EXPECT_EQ(before, blocks.opened);
  delete iter;
}

TEST(TwoLevelIteratorTest, BlockErrorsAreReported) {
  Blocks blocks;
  blocks.data = {{{"a", "1"}}, {{"b", "2"}}, {{"c", "3"}}};
  blocks.errors = {Status::OK(), Status::Corruption("bad block"), Status::OK()};
  Iterator* iter = NewTwoLevelIterator(blocks.NewIndex(), &Blocks::Open,
                                       &blocks, ReadOptions());
  std::string keys;
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    keys += iter->key().ToString();
  }
  // The broken block contributes nothing, and the error is kept after the
  // iterator moved past it.
  EXPECT_EQ("ac", keys);
  EXPECT_TRUE(iter->status().IsCorruption()) << iter->status().ToString();
  delete iter;
}

TEST(TwoLevelIteratorTest, IndexErrorIsReported) {
  Blocks blocks;
  Iterator* iter =
      NewTwoLevelIterator(NewErrorIterator(Status::IOError("index")),
                          &Blocks::Open, &blocks, ReadOptions());
  iter->SeekToFirst();
  EXPECT_FALSE(iter->Valid());
  EXPECT_TRUE(iter->status().IsIOError());
  EXPECT_EQ(0, blocks.opened);
  delete iter;
}

// An index over `blocks` whose status turns to Corruption, for good, when it
// moves onto entry `fail_at` (it is then invalid) or, with `on_value`, when
// that entry's value is read (it stays valid): an error that appears after
// the two-level iterator first read the index's status.
class FailingIndex : public Iterator {
 public:
  FailingIndex(const Blocks& blocks, size_t fail_at, bool on_value)
      : inner_(blocks.NewIndex()), fail_at_(fail_at), on_value_(on_value) {}
  ~FailingIndex() override { delete inner_; }

  bool Valid() const override { return status_.ok() && inner_->Valid(); }
  void SeekToFirst() override {
    Moved(0, [this] { inner_->SeekToFirst(); });
  }
  void SeekToLast() override {
    Moved(0, [this] { inner_->SeekToLast(); });
  }
  void Seek(const Slice& target) override {
    Moved(0, [&] { inner_->Seek(target); });
  }
  void Next() override {
    Moved(pos_ + 1, [this] { inner_->Next(); });
  }
  void Prev() override {
    Moved(pos_ - 1, [this] { inner_->Prev(); });
  }
  Slice key() const override { return inner_->key(); }
  Slice value() const override {
    if (on_value_ && pos_ == fail_at_) status_ = Status::Corruption("value");
    return inner_->value();
  }
  Status status() const override { return status_; }

 private:
  // Runs `move`, then works out the position (seeks other than to the
  // first entry are not used by the tests below).
  template <typename Move>
  void Moved(size_t pos, const Move& move) {
    move();
    pos_ = pos;
    if (!on_value_ && pos_ == fail_at_ && inner_->Valid()) {
      status_ = Status::Corruption("moved");
    }
  }

  Iterator* const inner_;
  const size_t fail_at_;
  const bool on_value_;
  size_t pos_ = 0;
  mutable Status status_;
};

TEST(TwoLevelIteratorTest, IndexErrorOnAMoveIsReportedWhenItAppears) {
  Blocks blocks;
  blocks.data = {{{"a", "1"}}, {{"b", "2"}}, {{"c", "3"}}};
  blocks.errors.assign(3, Status::OK());
  Iterator* iter = NewTwoLevelIterator(new FailingIndex(blocks, 2, false),
                                       &Blocks::Open, &blocks, ReadOptions());
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("a", iter->key().ToString());
  EXPECT_TRUE(iter->status().ok());
  iter->Next();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());
  EXPECT_TRUE(iter->status().ok());
  // The index fails as it moves onto c's block: the iteration ends there
  // with the index's error, not as if the index had run out.
  iter->Next();
  EXPECT_FALSE(iter->Valid());
  EXPECT_EQ("Corruption: moved", iter->status().ToString());
  delete iter;
}

TEST(TwoLevelIteratorTest, IndexErrorOnReadingItsValueIsReportedAtOnce) {
  Blocks blocks;
  blocks.data = {{{"a", "1"}}, {{"b", "2"}}, {{"c", "3"}}};
  blocks.errors.assign(3, Status::OK());
  Iterator* iter = NewTwoLevelIterator(new FailingIndex(blocks, 1, true),
                                       &Blocks::Open, &blocks, ReadOptions());
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_TRUE(iter->status().ok());
  // Reading the value of the index's second entry (to open b's block)
  // fails: status() says so on the entry it opened, before any other move.
  iter->Next();
  EXPECT_EQ("Corruption: value", iter->status().ToString());
  delete iter;
}

}  // namespace
}  // namespace leveldb
