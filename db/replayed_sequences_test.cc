// ReplayedSequences must say "held" only for ranges every sequence of
// which was added: recovery deletes an L0 SST on its word.
#include "db/replayed_sequences.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace leveldb {
namespace {

TEST(ReplayedSequencesTest, EmptyHoldsNothing) {
  ReplayedSequences r;
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.Holds(1, 1));
  EXPECT_EQ(0u, r.largest());
}

TEST(ReplayedSequencesTest, AdjacentBatchesJoinAndGapsDoNot) {
  ReplayedSequences r;
  r.Add(1, 10);
  r.Add(11, 20);  // touches: one range 1..20
  r.Add(25, 30);  // 21..24 missing (a damaged record)
  EXPECT_TRUE(r.Holds(1, 20));
  EXPECT_TRUE(r.Holds(5, 5));
  EXPECT_FALSE(r.Holds(1, 21));
  EXPECT_FALSE(r.Holds(20, 25));
  EXPECT_TRUE(r.Holds(25, 30));
  EXPECT_FALSE(r.Holds(24, 30));
  EXPECT_EQ(30u, r.largest());
  r.Add(21, 24);  // the gap filled, out of order
  EXPECT_TRUE(r.Holds(1, 30));
}

// Against a set of every sequence added, over random batches.
TEST(ReplayedSequencesTest, AgreesWithTheSetOfSequencesAdded) {
  std::mt19937 rng(301);
  for (int round = 0; round < 200; round++) {
    ReplayedSequences r;
    std::set<uint64_t> added;
    for (int b = 0; b < 20; b++) {
      const uint64_t first = 1 + rng() % 200;
      const uint64_t last = first + rng() % 8;
      r.Add(first, last);
      for (uint64_t s = first; s <= last; s++) added.insert(s);
    }
    for (int q = 0; q < 200; q++) {
      const uint64_t first = 1 + rng() % 210;
      const uint64_t last = first + rng() % 20;
      bool all = true;
      for (uint64_t s = first; s <= last && all; s++) all = added.count(s) > 0;
      ASSERT_EQ(all, r.Holds(first, last)) << first << ".." << last;
    }
    ASSERT_EQ(*added.rbegin(), r.largest());
  }
}

}  // namespace
}  // namespace leveldb
