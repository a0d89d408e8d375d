// Latency histogram for db_bench's --histogram: records microsecond samples
// into exponentially growing buckets (about 5% wide), so percentiles are
// accurate to a few percent over 0.01 us .. hours with fixed memory.
// Not thread-safe: one per thread, merged afterwards.
#ifndef DELSM_BENCHMARKS_HISTOGRAM_H_
#define DELSM_BENCHMARKS_HISTOGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

class Histogram {
 public:
  Histogram();

  void Clear();
  void Add(double micros);
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  double Average() const;
  double StandardDeviation() const;
  // p in [0, 100]; interpolated inside the bucket holding the p-th sample.
  double Percentile(double p) const;
  // Count, average, deviation, min/max, percentiles and a bucket table.
  std::string ToString() const;

 private:
  static const std::vector<double>& Limits();  // upper bound of each bucket

  std::vector<uint64_t> buckets_;
  uint64_t count_;
  double min_;
  double max_;
  double sum_;
  double sum_squares_;
};

}  // namespace bench

#endif  // DELSM_BENCHMARKS_HISTOGRAM_H_
