// db_bench's latency histogram: the summary statistics are exact, the
// percentiles estimated from the buckets stay within a bucket's width (5%)
// of the truth and within [min, max], merging per-thread histograms equals
// recording every sample in one, and Clear forgets everything.
#include "benchmarks/histogram.h"

#include <gtest/gtest.h>

#include <string>

namespace bench {
namespace {

TEST(HistogramTest, EmptyHistogramReportsZeros) {
  Histogram h;
  EXPECT_EQ(0u, h.count());
  EXPECT_EQ(0, h.Average());
  EXPECT_EQ(0, h.StandardDeviation());
  EXPECT_EQ(0, h.Percentile(50));
  EXPECT_NE(std::string::npos, h.ToString().find("Count: 0 "));
  EXPECT_NE(std::string::npos, h.ToString().find("Min: 0.0000"));
}

TEST(HistogramTest, SummaryStatisticsAndPercentiles) {
  Histogram h;
  for (int i = 1; i <= 100; i++) h.Add(i);
  EXPECT_EQ(100u, h.count());
  EXPECT_DOUBLE_EQ(50.5, h.Average());
  EXPECT_NEAR(28.866, h.StandardDeviation(), 0.01);
  EXPECT_NEAR(50, h.Percentile(50), 50 * 0.05);
  EXPECT_NEAR(99, h.Percentile(99), 99 * 0.05);
  EXPECT_LE(h.Percentile(100), 100);
  EXPECT_GE(h.Percentile(0), 1);

  const std::string s = h.ToString();
  EXPECT_NE(std::string::npos, s.find("Count: 100  Average: 50.5000"));
  EXPECT_NE(std::string::npos, s.find("Min: 1.0000"));
  EXPECT_NE(std::string::npos, s.find("Max: 100.0000"));
  EXPECT_NE(std::string::npos, s.find("100.000%"));  // the last cumulative
}

TEST(HistogramTest, PercentilesOfOneSampleAreThatSample) {
  Histogram h;
  h.Add(1234.5);
  EXPECT_DOUBLE_EQ(1234.5, h.Percentile(0));
  EXPECT_DOUBLE_EQ(1234.5, h.Percentile(50));
  EXPECT_DOUBLE_EQ(1234.5, h.Percentile(100));
}

TEST(HistogramTest, MergeEqualsAddingEverything) {
  Histogram a, b, all;
  for (int i = 0; i < 1000; i++) {
    const double v = (i * 37) % 5000;
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

TEST(HistogramTest, ClearForgetsEverySample) {
  Histogram h;
  h.Add(5);
  h.Add(1e12);  // beyond the last finite bucket
  h.Clear();
  EXPECT_EQ(Histogram().ToString(), h.ToString());
}

}  // namespace
}  // namespace bench
