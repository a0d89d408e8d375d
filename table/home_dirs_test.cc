// Home directory names: HomeDirName and ParseHomeDirName.
#include "table/home_dirs.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace leveldb {
namespace {

TEST(HomeDirNameTest, ParsesWhatHomeDirNameWrites) {
  EXPECT_EQ("000042", HomeDirName(42));
  // Round trips below and past six digits, up to the largest number.
  for (uint64_t n :
       {uint64_t{0}, uint64_t{7}, uint64_t{42}, uint64_t{999999},
        uint64_t{1000000}, uint64_t{123456789}, uint64_t{UINT64_MAX}}) {
    uint64_t home = 123;
    ASSERT_TRUE(ParseHomeDirName(HomeDirName(n), &home)) << HomeDirName(n);
    EXPECT_EQ(n, home);
  }
}

TEST(HomeDirNameTest, RejectsSpellingsDeLsmNeverWrites) {
  // Spellings of a number HomeDirName never gives it: the directory is not
  // DeLSM's, whatever number it spells, and *home is left alone.
  uint64_t home = 123;
  for (const char* foreign : {"5", "42", "00042", "0000042", "0000005",
                              "01000000", "+00042", " 00042", "00042 "}) {
    EXPECT_FALSE(ParseHomeDirName(foreign, &home)) << foreign;
    EXPECT_EQ(123u, home) << foreign;
  }
  for (const char* bad : {"", "x", "00004x", "000042/", "000042.sst", "lost",
                          "18446744073709551616", "99999999999999999999"}) {
    EXPECT_FALSE(ParseHomeDirName(bad, &home)) << bad;
    EXPECT_EQ(123u, home) << bad;
  }
}

}  // namespace
}  // namespace leveldb
