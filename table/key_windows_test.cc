// KeyWindows decides order only where a window proves it: whatever the
// keys (prefixes of each other, zero bytes, empty keys, a common prefix
// longer than a window, duplicates as an SST holds several versions of a
// key), Narrow leaves in range every entry equal to the target and puts
// only smaller entries before it and only larger ones after it. An SST's
// point read and seek rest on that: a wrong narrowing would skip a key.
#include "table/key_windows.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace leveldb {
namespace {

// Checks Narrow's contract for `target` over sorted `keys` by brute force.
void ExpectNarrowed(const std::vector<std::string>& keys,
                    const std::string& target) {
  KeyWindows w;
  w.Build(keys.size(), [&keys](size_t i) { return Slice(keys[i]); });
  size_t lo = 0, hi = keys.size();
  w.Narrow(target, &lo, &hi);
  ASSERT_LE(lo, hi);
  ASSERT_LE(hi, keys.size());
  for (size_t i = 0; i < lo; i++) {
    ASSERT_LT(Slice(keys[i]).compare(target), 0) << i << " " << target;
  }
  for (size_t i = hi; i < keys.size(); i++) {
    ASSERT_GT(Slice(keys[i]).compare(target), 0) << i << " " << target;
  }
  // The first key >= target is found from the narrowed range.
  const size_t expected =
      std::lower_bound(keys.begin(), keys.end(), target) - keys.begin();
  size_t found = lo;
  while (found < hi && Slice(keys[found]).compare(target) < 0) found++;
  ASSERT_EQ(found, expected) << target;
}

std::string RandomKey(std::mt19937* rng, const std::string& prefix) {
  // Bytes drawn from a small alphabet with 0x00 and 0xff, so keys share
  // prefixes, differ only in length, and end in zero bytes.
  static const char kBytes[] = {'\0', '\x01', 'a', 'b', '\xff'};
  std::string k = prefix.substr(0, (*rng)() % (prefix.size() + 1));
  const size_t extra = (*rng)() % 14;
  for (size_t i = 0; i < extra; i++) k.push_back(kBytes[(*rng)() % 5]);
  return k;
}

TEST(KeyWindowsTest, NarrowKeepsEveryEqualKeyAndOnlyOrdersWhatItProves) {
  std::mt19937 rng(301);
  const std::string prefixes[] = {"", "user/", std::string(20, 'p'),
                                  std::string("\0\0\0\0\0\0\0\0\0", 9)};
  for (int round = 0; round < 400; round++) {
    const std::string& prefix = prefixes[round % 4];
    std::vector<std::string> keys;
    const size_t n = 1 + rng() % 60;
    for (size_t i = 0; i < n; i++) keys.push_back(RandomKey(&rng, prefix));
    // Duplicates stand for versions of one user key.
    for (size_t i = 0; i < n / 4; i++) keys.push_back(keys[rng() % n]);
    std::sort(keys.begin(), keys.end());
    for (const std::string& k : keys) ExpectNarrowed(keys, k);
    for (int t = 0; t < 30; t++) ExpectNarrowed(keys, RandomKey(&rng, prefix));
    ExpectNarrowed(keys, "");
    ExpectNarrowed(keys, std::string(30, '\xff'));
    ExpectNarrowed(keys, prefix);
    if (!prefix.empty()) {
      ExpectNarrowed(keys, prefix.substr(0, prefix.size() - 1));
    }
  }
}

TEST(KeyWindowsTest, DecimalKeysNarrowToTheirOwnVersions) {
  // db_bench's keys: zero-padded decimals, a long common prefix. Every
  // lookup of a present key narrows to exactly its versions.
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; i++) {
    char buf[17];
    snprintf(buf, sizeof(buf), "%016d", i * 7);
    keys.push_back(buf);
    if (i % 3 == 0) keys.push_back(buf);
  }
  KeyWindows w;
  w.Build(keys.size(), [&keys](size_t i) { return Slice(keys[i]); });
  for (size_t i = 0; i < keys.size(); i++) {
    size_t lo = 0, hi = keys.size();
    w.Narrow(keys[i], &lo, &hi);
    for (size_t j = lo; j < hi; j++) ASSERT_EQ(keys[j], keys[i]);
    ASSERT_TRUE(lo <= i && i < hi);
  }
}

TEST(KeyWindowsTest, AnEmptyAidLeavesTheRangeAlone) {
  KeyWindows w;
  size_t lo = 3, hi = 9;
  w.Narrow("anything", &lo, &hi);
  EXPECT_EQ(lo, 3u);
  EXPECT_EQ(hi, 9u);
  w.Build(0, [](size_t) { return Slice(); });
  EXPECT_TRUE(w.empty());
}

}  // namespace
}  // namespace leveldb
