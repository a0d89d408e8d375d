#include "util/crc32c.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"
#include "util/random.h"

namespace leveldb {
namespace crc32c {

TEST(CRC32CTest, KnownVectors) {
  char buf[32];
  std::memset(buf, 0, sizeof(buf));
  EXPECT_EQ(0x8a9136aau, Value(buf, sizeof(buf)));
  std::memset(buf, 0xff, sizeof(buf));
  EXPECT_EQ(0x62a8ab43u, Value(buf, sizeof(buf)));
  for (int i = 0; i < 32; i++) buf[i] = static_cast<char>(i);
  EXPECT_EQ(0x46dd794eu, Value(buf, sizeof(buf)));
  for (int i = 0; i < 32; i++) buf[i] = static_cast<char>(31 - i);
  EXPECT_EQ(0x113fdb5cu, Value(buf, sizeof(buf)));
  EXPECT_EQ(0xe3069283u, Value("123456789", 9));
  EXPECT_EQ(0u, Value("", 0));
}

TEST(CRC32CTest, SoftwareMatchesKnownVectors) {
  // Runs the portable path even on machines where Extend uses SSE4.2.
  char zeros[32] = {0};
  EXPECT_EQ(0x8a9136aau, ExtendSoftware(0, zeros, sizeof(zeros)));
  EXPECT_EQ(0xe3069283u, ExtendSoftware(0, "123456789", 9));
}

TEST(CRC32CTest, HardwareAndSoftwareAgree) {
  if (!HardwareAvailable()) GTEST_SKIP() << "CPU lacks SSE4.2";
  Random rnd(301);
  std::string data;
  for (int i = 0; i < 5000; i++) data.push_back(static_cast<char>(rnd.Next()));
  // Every length 0..300 and every start alignment 0..7, plus long inputs.
  for (size_t start = 0; start < 8; start++) {
    for (size_t len = 0; len <= 300; len++) {
      const char* p = data.data() + start;
      ASSERT_EQ(ExtendSoftware(0, p, len), ExtendHardware(0, p, len))
          << start << " " << len;
      ASSERT_EQ(ExtendSoftware(0x12345678, p, len),
                ExtendHardware(0x12345678, p, len));
    }
  }
  EXPECT_EQ(ExtendSoftware(7, data.data(), data.size()),
            ExtendHardware(7, data.data(), data.size()));
}

TEST(CRC32CTest, DifferentInputsDiffer) {
  EXPECT_NE(Value("a", 1), Value("foo", 3));
  EXPECT_NE(Value("foo", 3), Value("bar", 3));
}

TEST(CRC32CTest, ExtendEqualsValueOfConcatenation) {
  EXPECT_EQ(Value("hello world", 11), Extend(Value("hello ", 6), "world", 5));
  std::string big(100000, 'q');
  uint32_t piecewise = 0;
  for (size_t off = 0; off < big.size(); off += 999) {
    size_t n = std::min<size_t>(999, big.size() - off);
    piecewise = Extend(piecewise, big.data() + off, n);
  }
  EXPECT_EQ(Value(big.data(), big.size()), piecewise);
}

TEST(CRC32CTest, MaskIsReversibleAndChangesValue) {
  uint32_t crc = Value("foo", 3);
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Unmask(Mask(Mask(crc)))));
  Random rnd(17);
  for (int i = 0; i < 1000; i++) {
    uint32_t v = rnd.Next() * 2 + (rnd.OneIn(2) ? 1 : 0);
    ASSERT_EQ(v, Unmask(Mask(v)));
  }
}

}  // namespace crc32c
}  // namespace leveldb
