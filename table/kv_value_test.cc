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
