// SortedRunMerge must visit every entry of its inputs once, in the order a
// binary heap over one cursor per input gives (the order DentryCompaction
// relies on: internal key, then resident inputs, then the earlier input),
// however the inputs overlap, and chain only inputs that do not overlap.
#include "db/sorted_run_merge.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <queue>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "table/meta_file.h"

namespace leveldb {
namespace {

using Position = std::pair<size_t, size_t>;  // input, entry

class SortedRunMergeTest : public testing::Test {
 protected:
  SortedRunMergeTest() : icmp_(BytewiseComparator()) {}

  // An input holding the internal keys of `keys` (user key, sequence,
  // type), sorted; its MetaIndex points into keys_.
  void AddInput(std::vector<std::pair<std::string, SequenceNumber>> keys,
                bool resident = false, ValueType type = kTypeValue) {
    std::vector<std::string> encoded;
    for (const auto& k : keys) {
      encoded.push_back(
          InternalKey(k.first, k.second, type).Encode().ToString());
    }
    std::sort(encoded.begin(), encoded.end(),
              [this](const std::string& a, const std::string& b) {
                return icmp_.Compare(a, b) < 0;
              });
    encoded.erase(std::unique(encoded.begin(), encoded.end()), encoded.end());
    indexes_.emplace_back();
    for (const std::string& e : encoded) {
      keys_.push_back(e);
      MetaIndexEntry entry;
      entry.internal_key = keys_.back();
      indexes_.back().entries.push_back(entry);
    }
    resident_.push_back(resident);
  }

  std::vector<SortedRunMerge::Input> Inputs() const {
    std::vector<SortedRunMerge::Input> inputs;
    for (size_t i = 0; i < indexes_.size(); i++) {
      inputs.push_back({&indexes_[i], resident_[i]});
    }
    return inputs;
  }

  std::vector<Position> Merged(size_t* runs = nullptr) const {
    SortedRunMerge merge(&icmp_, Inputs());
    if (runs != nullptr) *runs = merge.runs();
    std::vector<Position> order;
    for (; merge.Valid(); merge.Next()) {
      EXPECT_EQ(merge.entry().internal_key,
                indexes_[merge.input()].entries[merge.index()].internal_key);
      order.push_back({merge.input(), merge.index()});
    }
    return order;
  }

  // The order of a binary heap holding one cursor per input, ties going to
  // a resident input, then to the earlier one.
  std::vector<Position> HeapOrder() const {
    auto later = [this](const Position& a, const Position& b) {
      int r = icmp_.Compare(indexes_[a.first].entries[a.second].internal_key,
                            indexes_[b.first].entries[b.second].internal_key);
      if (r != 0) return r > 0;
      if (resident_[a.first] != resident_[b.first]) {
        return static_cast<bool>(resident_[b.first]);
      }
      return a.first > b.first;
    };
    std::priority_queue<Position, std::vector<Position>, decltype(later)> heap(
        later);
    for (size_t i = 0; i < indexes_.size(); i++) {
      if (!indexes_[i].entries.empty()) heap.push({i, 0});
    }
    std::vector<Position> order;
    while (!heap.empty()) {
      Position p = heap.top();
      heap.pop();
      order.push_back(p);
      if (p.second + 1 < indexes_[p.first].entries.size()) {
        heap.push({p.first, p.second + 1});
      }
    }
    return order;
  }

  InternalKeyComparator icmp_;
  std::deque<std::string> keys_;
  std::deque<MetaIndex> indexes_;
  std::vector<bool> resident_;
};

std::string K(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "k%06d", i);
  return buf;
}

TEST_F(SortedRunMergeTest, NoInputsOrOnlyEmptyOnes) {
  EXPECT_TRUE(Merged().empty());
  AddInput({});
  AddInput({});
  size_t runs = 99;
  EXPECT_TRUE(Merged(&runs).empty());
  EXPECT_EQ(0u, runs);
}

// An L0 SST over the SSTs of the level below: those are chained into one
// run, and the order is the heap's (newer versions first within a key).
TEST_F(SortedRunMergeTest, DisjointInputsAreChainedIntoOneRun) {
  AddInput({{K(1), 50}, {K(4), 51}, {K(7), 52}, {K(10), 53}});  // L0
  AddInput({{K(0), 5}, {K(1), 6}, {K(2), 7}});                  // L1
  AddInput({{K(4), 8}, {K(5), 9}});
  AddInput({{K(7), 10}, {K(9), 11}, {K(11), 12}});
  size_t runs = 0;
  std::vector<Position> merged = Merged(&runs);
  EXPECT_EQ(2u, runs);
  EXPECT_EQ(HeapOrder(), merged);
  EXPECT_EQ(12u, merged.size());
  // k000001@50 before k000001@6.
  EXPECT_EQ(Position(1, 0), merged[0]);
  EXPECT_EQ(Position(0, 0), merged[1]);
  EXPECT_EQ(Position(1, 1), merged[2]);
}

// Inputs given out of key order, and one sharing a boundary key with the
// next (the same internal key in two inputs): never chained together.
TEST_F(SortedRunMergeTest, InputsThatShareAKeyAreNotChained) {
  AddInput({{K(5), 9}, {K(6), 9}});
  AddInput({{K(1), 9}, {K(5), 9}});
  AddInput({{K(7), 9}, {K(8), 9}});
  size_t runs = 0;
  std::vector<Position> merged = Merged(&runs);
  EXPECT_EQ(2u, runs);
  EXPECT_EQ(HeapOrder(), merged);
  // The two copies of k000005@9: the earlier input's first.
  EXPECT_EQ(Position(1, 0), merged[0]);
  EXPECT_EQ(Position(0, 0), merged[1]);
  EXPECT_EQ(Position(1, 1), merged[2]);
}

// A duplicate in a resident input goes first, wherever that input is.
TEST_F(SortedRunMergeTest, ResidentInputWinsTies) {
  AddInput({{K(1), 7}, {K(2), 7}});
  AddInput({{K(2), 7}, {K(3), 7}}, /*resident=*/true);
  std::vector<Position> merged = Merged();
  EXPECT_EQ(HeapOrder(), merged);
  EXPECT_EQ((std::vector<Position>{{0, 0}, {1, 0}, {0, 1}, {1, 1}}), merged);
}

// Random inputs of every kind at once: overlapping L0-like inputs, disjoint
// runs given in any order, several versions of a user key (values and
// tombstones) spread over inputs, exact duplicates, resident inputs and
// empty ones. The merge must give the heap's order, each entry once.
TEST_F(SortedRunMergeTest, MatchesTheHeapOrderOnRandomInputs) {
  std::mt19937 rng(301);
  for (int round = 0; round < 200; round++) {
    keys_.clear();
    indexes_.clear();
    resident_.clear();
    const int overlapping = std::uniform_int_distribution<int>(0, 5)(rng);
    for (int i = 0; i < overlapping; i++) {
      std::vector<std::pair<std::string, SequenceNumber>> keys;
      const int n = std::uniform_int_distribution<int>(0, 40)(rng);
      for (int j = 0; j < n; j++) {
        keys.push_back(
            {K(std::uniform_int_distribution<int>(0, 60)(rng)),
             std::uniform_int_distribution<SequenceNumber>(1, 12)(rng)});
      }
      AddInput(keys, rng() % 8 == 0,
               rng() % 4 == 0 ? kTypeDeletion : kTypeValue);
    }
    // A level below, cut into disjoint inputs at random points, in a
    // random order.
    std::vector<std::vector<std::pair<std::string, SequenceNumber>>> pieces(1);
    for (int k = 0; k < 60; k++) {
      if (rng() % 3 == 0) continue;
      const int versions = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int v = 0; v < versions; v++) {
        pieces.back().push_back({K(k), static_cast<SequenceNumber>(v + 1)});
      }
      if (rng() % 7 == 0) pieces.emplace_back();
    }
    std::shuffle(pieces.begin(), pieces.end(), rng);
    for (const auto& piece : pieces) AddInput(piece, rng() % 5 == 0);
    std::shuffle(resident_.begin(), resident_.end(), rng);

    size_t total = 0;
    for (const MetaIndex& index : indexes_) total += index.entries.size();
    size_t runs = 0;
    std::vector<Position> merged = Merged(&runs);
    ASSERT_EQ(total, merged.size()) << "round " << round;
    ASSERT_EQ(HeapOrder(), merged) << "round " << round;
    // Every piece of the level below fits one run.
    EXPECT_LE(runs, static_cast<size_t>(overlapping) + 1) << "round " << round;
  }
}

}  // namespace
}  // namespace leveldb
