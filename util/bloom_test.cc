#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/filter_policy.h"
#include "util/coding.h"

namespace leveldb {

namespace {
std::string Key(int i) {
  std::string s;
  PutFixed32(&s, static_cast<uint32_t>(i));
  return s;
}
}  // namespace

class BloomTest : public testing::Test {
 public:
  BloomTest() : policy_(NewBloomFilterPolicy(10)) {}

  void Build(const std::vector<std::string>& keys) {
    std::vector<Slice> slices(keys.begin(), keys.end());
    filter_.clear();
    policy_->CreateFilter(slices.data(), static_cast<int>(slices.size()),
                          &filter_);
  }
  bool Matches(const Slice& key) const {
    return policy_->KeyMayMatch(key, filter_);
  }

  std::unique_ptr<const FilterPolicy> policy_;
  std::string filter_;
};

TEST_F(BloomTest, Name) {
  EXPECT_STREQ("leveldb.BuiltinBloomFilter2", policy_->Name());
}

TEST_F(BloomTest, EmptyFilterMatchesNothing) {
  Build({});
  EXPECT_FALSE(Matches("hello"));
  EXPECT_FALSE(Matches("world"));
}

TEST_F(BloomTest, SmallFilter) {
  Build({"hello", "world"});
  EXPECT_TRUE(Matches("hello"));
  EXPECT_TRUE(Matches("world"));
  EXPECT_FALSE(Matches("x"));
  EXPECT_FALSE(Matches("foo"));
}

TEST_F(BloomTest, NoFalseNegativesAndLowFalsePositiveRate) {
  for (int n : {1, 10, 100, 1000, 10000}) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; i++) keys.push_back(Key(i));
    Build(keys);
    // Size is about bits_per_key * n / 8 bytes (at least 64 bits).
    EXPECT_LE(filter_.size(), static_cast<size_t>(n * 10 / 8 + 40)) << n;
    for (int i = 0; i < n; i++) {
      ASSERT_TRUE(Matches(keys[i])) << "false negative, n=" << n << " i=" << i;
    }
    int false_positives = 0;
    const int kProbes = 10000;
    for (int i = 0; i < kProbes; i++) {
      if (Matches(Key(i + 1000000000))) false_positives++;
    }
    double rate = static_cast<double>(false_positives) / kProbes;
    EXPECT_LT(rate, 0.02) << "n=" << n;
  }
}

TEST_F(BloomTest, FiltersAppendToExistingData) {
  filter_ = "prefix";
  std::vector<Slice> keys = {Slice("a"), Slice("b")};
  policy_->CreateFilter(keys.data(), 2, &filter_);
  ASSERT_EQ("prefix", filter_.substr(0, 6));
  Slice filter(filter_.data() + 6, filter_.size() - 6);
  EXPECT_TRUE(policy_->KeyMayMatch("a", filter));
  EXPECT_TRUE(policy_->KeyMayMatch("b", filter));
}

TEST_F(BloomTest, MalformedFiltersDoNotCrash) {
  EXPECT_FALSE(policy_->KeyMayMatch("a", Slice()));
  EXPECT_FALSE(policy_->KeyMayMatch("a", Slice("\x01", 1)));
  // A probe count above 30 is reserved: must match conservatively.
  std::string reserved(8, '\0');
  reserved.push_back(static_cast<char>(31));
  EXPECT_TRUE(policy_->KeyMayMatch("a", reserved));
}

TEST_F(BloomTest, VaryingBitsPerKey) {
  for (int bits : {1, 5, 20, 50}) {
    std::unique_ptr<const FilterPolicy> p(NewBloomFilterPolicy(bits));
    std::vector<std::string> keys;
    for (int i = 0; i < 500; i++) keys.push_back(Key(i * 7));
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::string f;
    p->CreateFilter(slices.data(), 500, &f);
    for (const std::string& k : keys) ASSERT_TRUE(p->KeyMayMatch(k, f)) << bits;
  }
}

}  // namespace leveldb
