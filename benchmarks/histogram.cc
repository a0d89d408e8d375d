#include "benchmarks/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace bench {

const std::vector<double>& Histogram::Limits() {
  // Built once: 0.01 us upward by 5% steps up to ~1e10 us, then a catch-all.
  static const std::vector<double>* limits = [] {
    auto* v = new std::vector<double>;
    for (double x = 0.01; x < 1e10; x *= 1.05) v->push_back(x);
    v->push_back(std::numeric_limits<double>::infinity());
    return v;
  }();
  return *limits;
}

Histogram::Histogram() { Clear(); }

void Histogram::Clear() {
  buckets_.assign(Limits().size(), 0);
  count_ = 0;
  min_ = std::numeric_limits<double>::infinity();
  max_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
}

void Histogram::Add(double micros) {
  const std::vector<double>& limits = Limits();
  size_t b =
      std::upper_bound(limits.begin(), limits.end(), micros) - limits.begin();
  if (b >= limits.size()) b = limits.size() - 1;
  buckets_[b]++;
  count_++;
  min_ = std::min(min_, micros);
  max_ = std::max(max_, micros);
  sum_ += micros;
  sum_squares_ += micros * micros;
}

void Histogram::Merge(const Histogram& other) {
  for (size_t i = 0; i < buckets_.size(); i++) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
}

double Histogram::Average() const { return count_ == 0 ? 0 : sum_ / count_; }

double Histogram::StandardDeviation() const {
  if (count_ == 0) return 0;
  double mean = sum_ / count_;
  double variance = sum_squares_ / count_ - mean * mean;
  return variance > 0 ? std::sqrt(variance) : 0;
}

double Histogram::Percentile(double p) const {
  if (count_ == 0) return 0;
  const std::vector<double>& limits = Limits();
  double rank = count_ * (p / 100.0);
  double seen = 0;
  for (size_t b = 0; b < buckets_.size(); b++) {
    if (buckets_[b] == 0) continue;
    if (seen + buckets_[b] >= rank) {
      double lo = b == 0 ? 0 : limits[b - 1];
      double hi = std::isinf(limits[b]) ? max_ : limits[b];
      double frac = (rank - seen) / buckets_[b];
      double v = lo + (hi - lo) * frac;
      return std::min(std::max(v, min_), max_);
    }
    seen += buckets_[b];
  }
  return max_;
}

std::string Histogram::ToString() const {
  std::string out;
  char line[200];
  std::snprintf(
      line, sizeof(line), "Count: %llu  Average: %.4f  StdDev: %.2f\n",
      static_cast<unsigned long long>(count_), Average(), StandardDeviation());
  out += line;
  std::snprintf(line, sizeof(line), "Min: %.4f  Median: %.4f  Max: %.4f\n",
                count_ == 0 ? 0.0 : min_, Percentile(50), max_);
  out += line;
  std::snprintf(line, sizeof(line),
                "Percentiles: P50: %.2f P75: %.2f P99: %.2f P99.9: %.2f "
                "P99.99: %.2f\n",
                Percentile(50), Percentile(75), Percentile(99),
                Percentile(99.9), Percentile(99.99));
  out += line;
  out += "------------------------------------------------------\n";
  const std::vector<double>& limits = Limits();
  double cumulative = 0;
  for (size_t b = 0; b < buckets_.size(); b++) {
    if (buckets_[b] == 0) continue;
    cumulative += buckets_[b];
    double lo = b == 0 ? 0 : limits[b - 1];
    double pct = 100.0 * buckets_[b] / count_;
    std::snprintf(line, sizeof(line),
                  "[ %10.2f, %10.2f ) %9llu %7.3f%% %7.3f%% ", lo, limits[b],
                  static_cast<unsigned long long>(buckets_[b]), pct,
                  100.0 * cumulative / count_);
    out += line;
    out.append(static_cast<size_t>(pct / 5 + 0.5), '#');
    out += '\n';
  }
  return out;
}

}  // namespace bench
