#include "util/histogram.h"

#include <string>

#include "gtest/gtest.h"

namespace leveldb {

TEST(HistogramTest, EmptyHistogram) {
  Histogram h;
  EXPECT_EQ(0, h.Count());
  EXPECT_EQ(0, h.Average());
  EXPECT_EQ(0, h.Median());
  EXPECT_NE(std::string::npos, h.ToString().find("Count: 0"));
}

TEST(HistogramTest, SummaryStatistics) {
  Histogram h;
  for (int i = 1; i <= 100; i++) h.Add(i);
  EXPECT_EQ(100, h.Count());
  EXPECT_DOUBLE_EQ(50.5, h.Average());
  EXPECT_NEAR(28.866, h.StandardDeviation(), 0.01);
  // Bucketed estimates: near the truth, and within [min, max].
  EXPECT_NEAR(50, h.Median(), 5);
  EXPECT_NEAR(99, h.Percentile(99), 5);
  EXPECT_LE(h.Percentile(100), 100);
  EXPECT_GE(h.Percentile(0), 1);

  std::string s = h.ToString();
  EXPECT_NE(std::string::npos, s.find("Count: 100  Average: 50.5000"));
  EXPECT_NE(std::string::npos, s.find("Min: 1.0000"));
  EXPECT_NE(std::string::npos, s.find("Max: 100.0000"));
  EXPECT_NE(std::string::npos, s.find("100.000%"));  // Final cumulative.
}

TEST(HistogramTest, MergeEqualsAddingEverything) {
  Histogram a, b, all;
  for (int i = 0; i < 1000; i++) {
    double v = (i * 37) % 5000;
    (i % 2 ? a : b).Add(v);
    all.Add(v);
  }
  a.Merge(b);
  EXPECT_EQ(all.ToString(), a.ToString());
  Histogram empty;
  a.Merge(empty);
  EXPECT_EQ(all.ToString(), a.ToString());
  empty.Merge(all);
  EXPECT_EQ(all.ToString(), empty.ToString());
}

TEST(HistogramTest, ClearResets) {
  Histogram h;
  h.Add(5);
  h.Add(1e12);  // Beyond the last finite bucket.
  h.Clear();
  EXPECT_EQ(Histogram().ToString(), h.ToString());
}

}  // namespace leveldb
