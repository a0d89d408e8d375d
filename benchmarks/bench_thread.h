// What one db_bench thread carries through a workload stage: its share of
// the operations, its random source and value generator, and its
// measurements (Stats), which are merged into one result line when every
// thread of the stage has finished.
#ifndef DELSM_BENCHMARKS_BENCH_THREAD_H_
#define DELSM_BENCHMARKS_BENCH_THREAD_H_

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

#include "benchmarks/bench_util.h"
#include "benchmarks/db_bench_flags.h"
#include "benchmarks/histogram.h"

namespace bench {

// Largest value a workload writes regardless of --value_size (fill100K).
constexpr size_t kMaxFixedValueSize = 100000;

// Per-thread measurements of one workload stage; merged when all finish.
class Stats {
 public:
  // `histogram`: keep per-op latencies (--histogram); `stats_interval`: ops
  // between progress lines on stderr (--stats_interval), 0 for none.
  Stats(bool histogram, int64_t stats_interval)
      : histogram_(histogram), stats_interval_(stats_interval) {}

  void Start(int tid) {
    tid_ = tid;
    start_ = interval_start_ = NowMicros();
    last_op_ns_ = NowNanos();
    next_report_ = 100;
  }
  void Stop() { finish_ = NowMicros(); }

  void AddBytes(uint64_t n) { bytes_ += n; }
  // Appended to the result line, as LevelDB's AddMessage.
  void AddMessage(const std::string& m) { message_ = m; }
  void AddFound(uint64_t found, uint64_t attempted) {
    reads_ = true;
    found_ += found;
    attempted_ += attempted;
  }
  // Tells Report the count the workload knows it should find.
  void SetExpectedFound(uint64_t n) {
    has_expected_ = true;
    expected_ += n;
  }

  void FinishedOps(uint64_t n) {
    if (histogram_) {
      uint64_t now = NowNanos();
      hist_.Add(static_cast<double>(now - last_op_ns_) / 1000.0 / n);
      last_op_ns_ = now;
    }
    uint64_t before = done_;
    done_ += n;
    if (done_ >= next_report_) {
      uint64_t step = 100;
      while (step * 10 <= done_ && step < 1000000) step *= 10;
      next_report_ = (done_ / step + 1) * step;
      std::fprintf(stderr, "... finished %" PRIu64 " ops%30s\r", done_, "");
      std::fflush(stderr);
    }
    if (stats_interval_ > 0 &&
        done_ / stats_interval_ != before / stats_interval_) {
      ReportInterval();
    }
  }

  void Merge(const Stats& o) {
    hist_.Merge(o.hist_);
    done_ += o.done_;
    bytes_ += o.bytes_;
    seconds_ += o.Seconds();
    found_ += o.found_;
    attempted_ += o.attempted_;
    expected_ += o.expected_;
    reads_ = reads_ || o.reads_;
    if (message_.empty()) message_ = o.message_;
    has_expected_ = has_expected_ || o.has_expected_;
    if (o.start_ < start_) start_ = o.start_;
    if (o.finish_ > finish_) finish_ = o.finish_;
  }

  double Seconds() const { return (finish_ - start_) * 1e-6; }
  // Call on the stats that others are merged into, before the first Merge,
  // so its own thread time counts in the per-op average.
  void BeginMerge() { seconds_ = Seconds(); }

  void Report(const std::string& name) const {
    uint64_t done = done_ < 1 ? 1 : done_;
    double elapsed = (finish_ - start_) * 1e-6;
    double per_thread = seconds_ > 0 ? seconds_ : elapsed;
    std::string extra;
    char buf[200];
    if (bytes_ > 0 && elapsed > 0) {
      std::snprintf(buf, sizeof(buf), "%6.1f MB/s",
                    bytes_ / 1048576.0 / elapsed);
      extra = buf;
    }
    if (reads_) {
      std::snprintf(buf, sizeof(buf), "(%" PRIu64 " of %" PRIu64 " found",
                    found_, attempted_);
      if (!extra.empty()) extra += " ";
      extra += buf;
      if (has_expected_) {
        std::snprintf(buf, sizeof(buf), ", expected %" PRIu64, expected_);
        extra += buf;
      }
      extra += ")";
      if (found_ == 0 && attempted_ > 0) extra += " -- found nothing";
    }
    if (!message_.empty()) {
      if (!extra.empty()) extra += " ";
      extra += message_;
    }
    std::fprintf(stdout, "%-12s : %11.3f micros/op;%s%s\n", name.c_str(),
                 per_thread * 1e6 / done, extra.empty() ? "" : " ",
                 extra.c_str());
    if (histogram_) {
      std::fprintf(stdout, "Microseconds per op:\n%s\n",
                   hist_.ToString().c_str());
    }
    std::fflush(stdout);
  }

 private:
  void ReportInterval() {
    uint64_t now = NowMicros();
    uint64_t wb = 0, cancelled = 0;
    char io[64] = "unavailable";
    if (ProcessWriteBytes(&wb, &cancelled)) {
      std::snprintf(io, sizeof(io), "%.1f MB", wb / 1048576.0);
    }
    double interval_s = (now - interval_start_) * 1e-6;
    double total_s = (now - start_) * 1e-6;
    std::fprintf(stderr,
                 "... thread %d: %" PRIu64
                 " ops; %.0f ops/s last interval, %.0f ops/s overall; "
                 "process write_bytes so far: %s\n",
                 tid_, done_,
                 interval_s > 0 ? stats_interval_ / interval_s : 0.0,
                 total_s > 0 ? done_ / total_s : 0.0, io);
    interval_start_ = now;
  }

  bool histogram_;
  int64_t stats_interval_;
  int tid_ = 0;
  uint64_t start_ = 0, finish_ = 0, interval_start_ = 0;  // micros
  uint64_t last_op_ns_ = 0;  // end of the previous op, for --histogram
  double seconds_ = 0;       // sum of per-thread times, once merged
  uint64_t done_ = 0, next_report_ = 100, bytes_ = 0;
  bool reads_ = false, has_expected_ = false;
  uint64_t found_ = 0, attempted_ = 0, expected_ = 0;
  std::string message_;
  Histogram hist_;
};

struct ThreadState {
  int tid;
  int nthreads;
  Random rand;
  Stats stats;
  // Built before the clock starts: making its buffer costs milliseconds.
  ValueGenerator gen;
  ThreadState(int t, int n, uint64_t seed, const Flags& flags)
      : tid(t),
        nthreads(n),
        rand(seed),
        stats(flags.histogram, flags.stats_interval),
        gen(flags.compression_ratio,
            std::max<size_t>(flags.value_size, kMaxFixedValueSize),
            Mix64(seed)) {}

  // This thread's share [*begin, *end) of `total` operations.
  void Share(uint64_t total, uint64_t* begin, uint64_t* end) const {
    *begin = total * tid / nthreads;
    *end = total * (tid + 1) / nthreads;
  }
};

}  // namespace bench

#endif  // DELSM_BENCHMARKS_BENCH_THREAD_H_
