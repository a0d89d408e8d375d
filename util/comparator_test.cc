#include "leveldb/comparator.h"

#include <string>

#include "gtest/gtest.h"
#include "leveldb/slice.h"

namespace leveldb {

namespace {
const Comparator* cmp() { return BytewiseComparator(); }

std::string Separator(std::string start, const std::string& limit) {
  cmp()->FindShortestSeparator(&start, limit);
  return start;
}
std::string Successor(std::string key) {
  cmp()->FindShortSuccessor(&key);
  return key;
}
}  // namespace

TEST(BytewiseComparatorTest, NameAndSingleton) {
  EXPECT_STREQ("leveldb.BytewiseComparator", cmp()->Name());
  EXPECT_EQ(BytewiseComparator(), BytewiseComparator());
}

TEST(BytewiseComparatorTest, OrdersUnsignedBytes) {
  EXPECT_LT(cmp()->Compare("a", "b"), 0);
  EXPECT_GT(cmp()->Compare("b", "a"), 0);
  EXPECT_EQ(0, cmp()->Compare("abc", "abc"));
  EXPECT_LT(cmp()->Compare("ab", "abc"), 0);
  EXPECT_LT(cmp()->Compare("", "a"), 0);
  // 0xff sorts after ASCII (unsigned comparison).
  EXPECT_LT(cmp()->Compare("z", "\xff"), 0);
  EXPECT_LT(cmp()->Compare(Slice("a\0", 2), "a\x01"), 0);
}

TEST(BytewiseComparatorTest, ShortestSeparator) {
  EXPECT_EQ("abd", Separator("abcxyz", "abfoo"));
  // Separator stays in [start, limit).
  EXPECT_EQ("abc", Separator("abc", "abd"));    // No room between.
  EXPECT_EQ("abc", Separator("abc", "abcde"));  // start is a prefix.
  EXPECT_EQ("abcde", Separator("abcde", "abc"));
  EXPECT_EQ(
      "a\xff"
      "b",
      Separator("a\xff"
                "b",
                "b"));
  EXPECT_EQ("\xff\xff", Separator("\xff\xff", "\xff\xff\x01"));
}

TEST(BytewiseComparatorTest, ShortSuccessor) {
  EXPECT_EQ("b", Successor("abc"));
  EXPECT_EQ("\xff\x01", Successor(std::string("\xff\x00zz", 4)));
  EXPECT_EQ("\xff\xff", Successor("\xff\xff"));  // No shorter successor.
  EXPECT_EQ("", Successor(""));
}

}  // namespace leveldb
