#include "db/db_iter.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "db/dbformat.h"
#include "db/memtable.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "table/vector_iterator.h"
#include "util/random.h"

namespace leveldb {
namespace {

class ReverseComparator : public Comparator {
 public:
  const char* Name() const override { return "test.Reverse"; }
  int Compare(const Slice& a, const Slice& b) const override {
    return -BytewiseComparator()->Compare(a, b);
  }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// A memtable plus the history needed to compute what a DB iterator at a
// given sequence must show.
class DBIterTest : public testing::Test {
 protected:
  void Open(const Comparator* ucmp) {
    ucmp_ = ucmp;
    icmp_.reset(new InternalKeyComparator(ucmp));
    mem_ = new MemTable(*icmp_);
    mem_->Ref();
  }
  ~DBIterTest() override {
    if (mem_ != nullptr) mem_->Unref();
  }

  void Put(const std::string& k, const std::string& v) {
    mem_->Add(++seq_, kTypeValue, k, v);
    history_.push_back({seq_, k, v, false});
  }
  void Del(const std::string& k) {
    mem_->Add(++seq_, kTypeDeletion, k, "");
    history_.push_back({seq_, k, "", true});
  }

  Iterator* NewIter(SequenceNumber s) {
    return NewDBIterator(ucmp_, mem_->NewIterator(), s);
  }

  // Visible key -> value as of sequence s, ordered by ucmp_.
  std::vector<std::pair<std::string, std::string>> Model(SequenceNumber s) {
    std::map<std::string, std::pair<bool, std::string>> latest;
    for (const auto& h : history_) {
      if (h.seq <= s) latest[h.key] = {h.deleted, h.value};
    }
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : latest) {
      if (!e.second.first) out.emplace_back(e.first, e.second.second);
    }
    std::sort(out.begin(), out.end(), [this](const auto& a, const auto& b) {
      return ucmp_->Compare(a.first, b.first) < 0;
    });
    return out;
  }

  std::string Scan(Iterator* iter, bool forward) {
    std::string out;
    if (forward) {
      for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
        out += iter->key().ToString() + "=" + iter->value().ToString() + " ";
      }
    } else {
      for (iter->SeekToLast(); iter->Valid(); iter->Prev()) {
        out += iter->key().ToString() + "=" + iter->value().ToString() + " ";
      }
    }
    return out;
  }

  struct Op {
    SequenceNumber seq;
    std::string key, value;
    bool deleted;
  };
  const Comparator* ucmp_ = nullptr;
  std::unique_ptr<InternalKeyComparator> icmp_;
  MemTable* mem_ = nullptr;
  SequenceNumber seq_ = 0;
  std::vector<Op> history_;
};

TEST_F(DBIterTest, SnapshotVisibilityAndDeletions) {
  Open(BytewiseComparator());
  Put("a", "a1");  // 1
  Put("b", "b2");  // 2
  Del("a");        // 3
  Put("c", "c4");  // 4
  Put("b", "b5");  // 5
  Del("c");        // 6

  const char* expected[] = {"",           "a=a1 ",      "a=a1 b=b2 ", "b=b2 ",
                            "b=b2 c=c4 ", "b=b5 c=c4 ", "b=b5 "};
  for (SequenceNumber s = 0; s <= 6; s++) {
    SCOPED_TRACE(s);
    Iterator* iter = NewIter(s);
    EXPECT_EQ(expected[s], Scan(iter, true));
    // Backwards gives the same entries reversed.
    std::string back;
    const auto model = Model(s);
    for (auto it = model.rbegin(); it != model.rend(); ++it) {
      back += it->first + "=" + it->second + " ";
    }
    EXPECT_EQ(back, Scan(iter, false));
    EXPECT_TRUE(iter->status().ok());
    delete iter;
  }

  Iterator* iter = NewIter(4);
  iter->Seek("a");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());  // "a" is deleted at 4.
  iter->Seek("bb");
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("c4", iter->value().ToString());
  iter->Seek("d");
  EXPECT_FALSE(iter->Valid());
  delete iter;
}

TEST_F(DBIterTest, DirectionSwitches) {
  Open(BytewiseComparator());
  Put("a", "1");
  Put("b", "old");
  Put("b", "2");
  Del("c");
  Put("d", "4");
  Iterator* iter = NewIter(seq_);
  iter->Seek("b");
  ASSERT_EQ("b", iter->key().ToString());
  EXPECT_EQ("2", iter->value().ToString());
  iter->Next();
  ASSERT_EQ("d", iter->key().ToString());
  iter->Prev();
  ASSERT_EQ("b", iter->key().ToString());
  EXPECT_EQ("2", iter->value().ToString());
  iter->Prev();
  ASSERT_EQ("a", iter->key().ToString());
  iter->Next();
  ASSERT_EQ("b", iter->key().ToString());
  iter->Prev();
  iter->Prev();
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  ASSERT_EQ("d", iter->key().ToString());
  iter->Next();
  EXPECT_FALSE(iter->Valid());
  delete iter;
}

TEST_F(DBIterTest, RandomAgainstModel) {
  Open(BytewiseComparator());
  Random rnd(301);
  for (int i = 0; i < 400; i++) {
    const std::string k = "k" + std::to_string(rnd.Uniform(40));
    if (rnd.OneIn(3)) {
      Del(k);
    } else {
      Put(k, "v" + std::to_string(i));
    }
  }
  for (int round = 0; round < 30; round++) {
    const SequenceNumber s = rnd.Uniform(seq_ + 2);
    const auto model = Model(s);
    Iterator* iter = NewIter(s);
    const size_t kInvalid = model.size();
    size_t pos = kInvalid;
    for (int step = 0; step < 300; step++) {
      const int op = rnd.Uniform(8);
      if (op == 0) {
        iter->SeekToFirst();
        pos = 0;
      } else if (op == 1) {
        iter->SeekToLast();
        pos = model.empty() ? kInvalid : model.size() - 1;
      } else if (op == 2) {
        const std::string target = "k" + std::to_string(rnd.Uniform(45));
        iter->Seek(target);
        pos = 0;
        while (pos < model.size() && model[pos].first < target) pos++;
      } else if (pos != kInvalid) {
        if (op < 5) {
          iter->Next();
          pos++;
        } else {
          iter->Prev();
          pos = (pos == 0) ? kInvalid : pos - 1;
        }
      }
      if (pos >= model.size()) pos = kInvalid;
      ASSERT_EQ(pos != kInvalid, iter->Valid())
          << "seq " << s << " step " << step;
      if (pos != kInvalid) {
        ASSERT_EQ(model[pos].first, iter->key().ToString());
        ASSERT_EQ(model[pos].second, iter->value().ToString());
      }
    }
    EXPECT_TRUE(iter->status().ok());
    delete iter;
  }
}

TEST_F(DBIterTest, ReverseComparator) {
  ReverseComparator reverse;
  Open(&reverse);
  Put("a", "1");
  Put("c", "3");
  Put("b", "2");
  Del("c");
  Put("d", "4");
  Iterator* iter = NewIter(seq_);
  EXPECT_EQ("d=4 b=2 a=1 ", Scan(iter, true));
  EXPECT_EQ("a=1 b=2 d=4 ", Scan(iter, false));
  iter->Seek("c");  // First key at or after "c" in reverse order.
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());
  iter->Prev();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("d", iter->key().ToString());
  delete iter;
  iter = NewIter(3);  // Before the deletion of "c".
  EXPECT_EQ("c=3 b=2 a=1 ", Scan(iter, true));
  delete iter;
}

TEST(DBIterCorruptionTest, BadInternalKeyIsSkippedAndReported) {
  std::string good;
  AppendInternalKey(&good, ParsedInternalKey("b", 1, kTypeValue));
  // "a" sorts first and is too short to be an internal key.
  Iterator* internal =
      new VectorIterator(BytewiseComparator(), {{"a", "bad"}, {good, "1"}});
  Iterator* iter = NewDBIterator(BytewiseComparator(), internal, 5);
  iter->SeekToFirst();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());
  EXPECT_TRUE(iter->status().IsCorruption());
  iter->Prev();  // Backs over the malformed entry without crashing.
  EXPECT_FALSE(iter->Valid());
  iter->SeekToLast();
  ASSERT_TRUE(iter->Valid());
  EXPECT_EQ("b", iter->key().ToString());
  delete iter;
}

}  // namespace
}  // namespace leveldb
