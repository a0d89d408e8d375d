// Histogram: summary statistics and a bucketed distribution of samples
// (latencies in microseconds, typically), printed by db_bench.
// Not thread-safe; merge per-thread histograms with Merge.
#ifndef DELSM_UTIL_HISTOGRAM_H_
#define DELSM_UTIL_HISTOGRAM_H_

#include <string>
#include <vector>

namespace leveldb {

class Histogram {
 public:
  Histogram();

  void Clear();
  void Add(double value);
  void Merge(const Histogram& other);

  double Count() const { return count_; }
  double Average() const;
  double StandardDeviation() const;
  double Median() const { return Percentile(50.0); }
  // Estimated value below which p percent of the samples lie (0 <= p <=
  // 100), interpolated linearly inside a bucket. 0 when empty.
  double Percentile(double p) const;

  // Multi-line report: count, average, standard deviation, min, median,
  // max, then one line per non-empty bucket with its count, percentage,
  // cumulative percentage and a bar.
  std::string ToString() const;

 private:
  // Upper bounds (exclusive) of the buckets, increasing; the last is
  // effectively infinite. Shared by all histograms.
  static const std::vector<double>& BucketLimits();

  double min_;
  double max_;
  double count_;
  double sum_;
  double sum_squares_;
  std::vector<double> buckets_;  // Sample count per bucket.
};

}  // namespace leveldb

#endif  // DELSM_UTIL_HISTOGRAM_H_
