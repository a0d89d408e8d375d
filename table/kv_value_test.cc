#include "table/kv_value.h"

#include <string>

#include "gtest/gtest.h"

namespace leveldb {
namespace {

TEST(KvValueTest, UncompressedIsTheValueItself) {
  std::string scratch;
  bool compressed = true;
  const std::string v(5000, 'a');
  Slice stored = EncodeKvValue(v, kNoCompression, &scratch, &compressed);
  EXPECT_FALSE(compressed);
  EXPECT_EQ(stored.data(), v.data());  // no copy
  std::string out;
  ASSERT_TRUE(DecodeKvValue(stored, false, v.size(), "f", &out).ok());
  EXPECT_EQ(out, v);
}

TEST(KvValueTest, SnappyRoundTripAndThreshold) {
  std::string scratch;
  bool compressed = false;
  const std::string v(5000, 'a');
  Slice stored = EncodeKvValue(v, kSnappyCompression, &scratch, &compressed);
  ASSERT_TRUE(compressed);
  EXPECT_LT(stored.size(), v.size());
  std::string out;
  ASSERT_TRUE(DecodeKvValue(stored, true, v.size(), "f", &out).ok());
  EXPECT_EQ(out, v);
  // Short or incompressible values stay as they are.
  for (const std::string& plain :
       {std::string(), std::string("abc"), std::string("\x01\x7f\x33\xa0")}) {
    stored = EncodeKvValue(plain, kSnappyCompression, &scratch, &compressed);
    EXPECT_FALSE(compressed);
    EXPECT_EQ(stored.ToString(), plain);
  }
}

// A scan decodes each value into one reused buffer: whatever the buffer
// held before (the same size, longer, shorter), it ends up holding exactly
// the value; a value that fails to decode leaves it empty.
TEST(KvValueTest, DecodingIntoAReusedBufferGivesExactlyTheValue) {
  std::string scratch;
  bool compressed;
  std::string v;
  for (int i = 0; i < 300; i++) v.push_back(static_cast<char>('a' + i % 7));
  const std::string stored =
      EncodeKvValue(v, kSnappyCompression, &scratch, &compressed).ToString();
  ASSERT_TRUE(compressed);
  for (size_t held : {size_t{0}, v.size() - 1, v.size(), v.size() + 50}) {
    SCOPED_TRACE(held);
    std::string out(held, '\xee');
    ASSERT_TRUE(DecodeKvValue(stored, true, v.size(), "f", &out).ok());
    EXPECT_EQ(out, v);
    out.assign(held, '\xee');
    ASSERT_TRUE(DecodeKvValue(v, false, v.size(), "f", &out).ok());
    EXPECT_EQ(out, v);
    out.assign(held, '\xee');
    EXPECT_TRUE(DecodeKvValue(Slice(stored.data(), stored.size() - 1), true,
                              v.size(), "f", &out)
                    .IsCorruption());
    EXPECT_TRUE(out.empty());
    out.assign(held, '\xee');
    EXPECT_TRUE(
        DecodeKvValue(stored, true, v.size() + 1, "f", &out).IsCorruption());
    EXPECT_TRUE(out.empty());
  }
}

TEST(KvValueTest, DamageIsCorruption) {
  std::string scratch;
  bool compressed;
  const std::string v(5000, 'a');
  std::string stored =
      EncodeKvValue(v, kSnappyCompression, &scratch, &compressed).ToString();
  ASSERT_TRUE(compressed);
  std::string out;
  Status s =
      DecodeKvValue("\xff\xff\xff\xff\xff\xff", true, 5000, "dir/kv", &out);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.ToString().find("dir/kv"), std::string::npos);
  // Truncated compressed data.
  EXPECT_TRUE(DecodeKvValue(Slice(stored.data(), stored.size() - 1), true, 5000,
                            "f", &out)
                  .IsCorruption());
  // Sizes that disagree with the record.
  EXPECT_TRUE(DecodeKvValue(stored, true, 4999, "f", &out).IsCorruption());
  EXPECT_TRUE(DecodeKvValue("abc", false, 4, "f", &out).IsCorruption());
}

}  // namespace
}  // namespace leveldb
