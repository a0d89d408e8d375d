#include "util/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace leveldb {

const std::vector<double>& Histogram::BucketLimits() {
  // Roughly logarithmic: 16 steps per decade from 1 to 1e10, then +inf.
  // Finer at the low end of each decade, where latency tails are read.
  static const std::vector<double>* const limits = [] {
    static const double kSteps[] = {1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.5, 3.0,
                                    3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0};
    auto* v = new std::vector<double>;
    double scale = 1.0;
    for (int decade = 0; decade < 10; decade++, scale *= 10) {
      for (double step : kSteps) {
        double limit = std::round(step * scale);
        if (v->empty() || limit > v->back()) v->push_back(limit);
      }
    }
    v->push_back(1e10);
    v->push_back(std::numeric_limits<double>::infinity());
    return v;
  }();
  return *limits;
}

Histogram::Histogram() { Clear(); }

void Histogram::Clear() {
  min_ = std::numeric_limits<double>::max();
  max_ = 0;
  count_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  buckets_.assign(BucketLimits().size(), 0.0);
}

void Histogram::Add(double value) {
  const std::vector<double>& limits = BucketLimits();
  size_t b =
      std::upper_bound(limits.begin(), limits.end(), value) - limits.begin();
  if (b >= limits.size()) b = limits.size() - 1;  // NaN or +inf.
  buckets_[b] += 1.0;
  if (count_ == 0 || value < min_) min_ = value;
  if (count_ == 0 || value > max_) max_ = value;
  count_++;
  sum_ += value;
  sum_squares_ += value * value;
}

void Histogram::Merge(const Histogram& other) {
  if (other.count_ == 0) return;
  if (count_ == 0 || other.min_ < min_) min_ = other.min_;
  if (count_ == 0 || other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
  sum_ += other.sum_;
  sum_squares_ += other.sum_squares_;
  for (size_t b = 0; b < buckets_.size(); b++) buckets_[b] += other.buckets_[b];
}

double Histogram::Average() const { return count_ == 0 ? 0.0 : sum_ / count_; }

double Histogram::StandardDeviation() const {
  if (count_ == 0) return 0.0;
  const double mean = sum_ / count_;
  const double variance = sum_squares_ / count_ - mean * mean;
  return variance > 0 ? std::sqrt(variance) : 0.0;
}

double Histogram::Percentile(double p) const {
  if (count_ == 0) return 0.0;
  const std::vector<double>& limits = BucketLimits();
  const double threshold = count_ * (p / 100.0);
  double seen = 0;
  for (size_t b = 0; b < buckets_.size(); b++) {
    if (buckets_[b] == 0) continue;
    if (seen + buckets_[b] >= threshold) {
      double low = b == 0 ? 0.0 : limits[b - 1];
      double high = limits[b];
      // Clamp to observed extremes so the estimate is never outside them
      // (and the last bucket's infinite bound is never used).
      low = std::max(low, min_);
      high = std::min(high, max_);
      const double fraction = (threshold - seen) / buckets_[b];
      return low + (high - low) * fraction;
    }
    seen += buckets_[b];
  }
  return max_;
}

std::string Histogram::ToString() const {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof(line),
                "Count: %.0f  Average: %.4f  StdDev: %.2f\n", count_, Average(),
                StandardDeviation());
  out.append(line);
  std::snprintf(line, sizeof(line), "Min: %.4f  Median: %.4f  Max: %.4f\n",
                count_ == 0 ? 0.0 : min_, Median(), max_);
  out.append(line);
  out.append(54, '-');
  out.push_back('\n');

  const std::vector<double>& limits = BucketLimits();
  const double per_percent = count_ / 100.0;
  double cumulative = 0;
  for (size_t b = 0; b < buckets_.size(); b++) {
    if (buckets_[b] == 0) continue;
    cumulative += buckets_[b];
    const double low = b == 0 ? 0.0 : limits[b - 1];
    const double pct = buckets_[b] / per_percent;
    std::snprintf(line, sizeof(line), "[ %7.0f, %7.0f ) %7.0f %7.3f%% %7.3f%% ",
                  low, limits[b], buckets_[b], pct, cumulative / per_percent);
    out.append(line);
    // 20 marks for 100%.
    const int marks = static_cast<int>(pct / 5.0 + 0.5);
    out.append(marks, '#');
    out.push_back('\n');
  }
  return out;
}

}  // namespace leveldb
