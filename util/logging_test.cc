#include "util/logging.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace leveldb {

TEST(LoggingTest, NumberToString) {
  EXPECT_EQ("0", NumberToString(0));
  EXPECT_EQ("1", NumberToString(1));
  EXPECT_EQ("18446744073709551615",
            NumberToString(std::numeric_limits<uint64_t>::max()));
  std::string s = "x=";
  AppendNumberTo(&s, 42);
  EXPECT_EQ("x=42", s);
}

TEST(LoggingTest, EscapeString) {
  EXPECT_EQ("abc", EscapeString("abc"));
  EXPECT_EQ("a\\x00b\\xff\\x0a", EscapeString(Slice("a\0b\xff\n", 5)));
  EXPECT_EQ(" ~", EscapeString(" ~"));
}

TEST(LoggingTest, ConsumeDecimalNumberRoundTrips) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{9}, uint64_t{10},
                     uint64_t{12345}, std::numeric_limits<uint64_t>::max() - 1,
                     std::numeric_limits<uint64_t>::max()}) {
    std::string text = NumberToString(v) + "rest";
    Slice in(text);
    uint64_t got;
    ASSERT_TRUE(ConsumeDecimalNumber(&in, &got)) << v;
    EXPECT_EQ(v, got);
    EXPECT_EQ("rest", in.ToString());
  }
}

TEST(LoggingTest, ConsumeDecimalNumberRejects) {
  for (const char* bad : {"", "x1", "-1", "18446744073709551616",
                          "99999999999999999999", "184467440737095516150"}) {
    Slice in(bad);
    uint64_t got;
    EXPECT_FALSE(ConsumeDecimalNumber(&in, &got)) << bad;
  }
}

TEST(LoggingTest, LeadingZerosAreAccepted) {
  Slice in("00042");
  uint64_t got;
  ASSERT_TRUE(ConsumeDecimalNumber(&in, &got));
  EXPECT_EQ(42u, got);
  EXPECT_TRUE(in.empty());
}

}  // namespace leveldb
