#include "util/coding.h"

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace leveldb {

TEST(CodingTest, Fixed32RoundTripIsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  ASSERT_EQ(4u, s.size());
  EXPECT_EQ(std::string("\x01\x02\x03\x04", 4), s);
  for (uint32_t v = 0; v < 100000; v += 7) PutFixed32(&s, v);
  Slice in(s);
  uint32_t got;
  ASSERT_TRUE(GetFixed32(&in, &got));
  EXPECT_EQ(0x04030201u, got);
  for (uint32_t v = 0; v < 100000; v += 7) {
    ASSERT_TRUE(GetFixed32(&in, &got));
    ASSERT_EQ(v, got);
  }
  EXPECT_TRUE(in.empty());
  EXPECT_FALSE(GetFixed32(&in, &got));
}

TEST(CodingTest, Fixed64RoundTrip) {
  std::string s;
  std::vector<uint64_t> values;
  for (int power = 0; power <= 63; power++) {
    uint64_t v = uint64_t{1} << power;
    values.push_back(v - 1);
    values.push_back(v);
    values.push_back(v + 1);
  }
  for (uint64_t v : values) PutFixed64(&s, v);
  EXPECT_EQ(values.size() * 8, s.size());
  Slice in(s);
  for (uint64_t v : values) {
    uint64_t got;
    ASSERT_TRUE(GetFixed64(&in, &got));
    ASSERT_EQ(v, got);
    ASSERT_EQ(v, DecodeFixed64(s.data() + (s.size() - in.size() - 8)));
  }
}

TEST(CodingTest, Varint32RoundTripAndLength) {
  std::string s;
  std::vector<uint32_t> values;
  for (uint32_t i = 0; i < 32 * 32; i++) values.push_back((i / 32) << (i % 32));
  values.push_back(UINT32_MAX);
  for (uint32_t v : values) PutVarint32(&s, v);
  Slice in(s);
  for (uint32_t v : values) {
    size_t before = in.size();
    uint32_t got;
    ASSERT_TRUE(GetVarint32(&in, &got));
    ASSERT_EQ(v, got);
    ASSERT_EQ(VarintLength(v), static_cast<int>(before - in.size()));
  }
  EXPECT_TRUE(in.empty());
}

TEST(CodingTest, Varint64RoundTripAndLength) {
  std::vector<uint64_t> values = {0, 100, ~uint64_t{0}, ~uint64_t{0} - 1};
  for (int k = 0; k < 64; k++) {
    uint64_t p = uint64_t{1} << k;
    values.push_back(p);
    values.push_back(p - 1);
    values.push_back(p + 1);
  }
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  Slice in(s);
  for (uint64_t v : values) {
    size_t before = in.size();
    uint64_t got;
    ASSERT_TRUE(GetVarint64(&in, &got));
    ASSERT_EQ(v, got);
    ASSERT_EQ(VarintLength(v), static_cast<int>(before - in.size()));
  }
  EXPECT_EQ(10, VarintLength(~uint64_t{0}));
  EXPECT_EQ(1, VarintLength(127));
  EXPECT_EQ(2, VarintLength(128));
}

TEST(CodingTest, Varint32RejectsOverlongEncoding) {
  // Six continuation bytes: longer than any 32-bit varint.
  std::string bad("\x81\x82\x83\x84\x85\x11");
  uint32_t v;
  EXPECT_EQ(nullptr, GetVarint32Ptr(bad.data(), bad.data() + bad.size(), &v));
}

TEST(CodingTest, Varint64RejectsOverlongEncoding) {
  std::string bad(11, '\x81');
  uint64_t v;
  EXPECT_EQ(nullptr, GetVarint64Ptr(bad.data(), bad.data() + bad.size(), &v));
}

TEST(CodingTest, TruncatedVarintsFail) {
  const uint32_t large = (1u << 31) + 100;
  std::string s;
  PutVarint32(&s, large);
  for (size_t len = 0; len + 1 < s.size(); len++) {
    uint32_t v;
    EXPECT_EQ(nullptr, GetVarint32Ptr(s.data(), s.data() + len, &v)) << len;
    Slice in(s.data(), len);
    EXPECT_FALSE(GetVarint32(&in, &v));
  }
  uint32_t v;
  EXPECT_NE(nullptr, GetVarint32Ptr(s.data(), s.data() + s.size(), &v));
  EXPECT_EQ(large, v);

  std::string s64;
  PutVarint64(&s64, ~uint64_t{0});
  for (size_t len = 0; len + 1 < s64.size(); len++) {
    uint64_t v64;
    Slice in(s64.data(), len);
    EXPECT_FALSE(GetVarint64(&in, &v64)) << len;
  }
}

TEST(CodingTest, EncodeVarintReturnsEnd) {
  char buf[10];
  EXPECT_EQ(buf + 1, EncodeVarint32(buf, 0));
  EXPECT_EQ(buf + 5, EncodeVarint32(buf, UINT32_MAX));
  EXPECT_EQ(buf + 10, EncodeVarint64(buf, ~uint64_t{0}));
}

TEST(CodingTest, LengthPrefixedSlices) {
  std::string s;
  PutLengthPrefixedSlice(&s, Slice(""));
  PutLengthPrefixedSlice(&s, Slice("foo"));
  PutLengthPrefixedSlice(&s, Slice("bar"));
  PutLengthPrefixedSlice(&s, Slice(std::string(200, 'x')));
  std::string with_nul("a\0b", 3);
  PutLengthPrefixedSlice(&s, with_nul);

  Slice in(s);
  Slice v;
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &v));
  EXPECT_EQ("", v.ToString());
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &v));
  EXPECT_EQ("foo", v.ToString());
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &v));
  EXPECT_EQ("bar", v.ToString());
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &v));
  EXPECT_EQ(std::string(200, 'x'), v.ToString());
  ASSERT_TRUE(GetLengthPrefixedSlice(&in, &v));
  EXPECT_EQ(with_nul, v.ToString());
  EXPECT_FALSE(GetLengthPrefixedSlice(&in, &v));
}

TEST(CodingTest, LengthPrefixLongerThanInputFails) {
  std::string s;
  PutVarint32(&s, 10);
  s.append("short");
  Slice in(s);
  Slice v;
  EXPECT_FALSE(GetLengthPrefixedSlice(&in, &v));
}

}  // namespace leveldb
