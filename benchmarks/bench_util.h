// Building blocks of db_bench's workloads: a seeded random generator, a
// keyed random permutation (each key exactly once, in random order, in O(1)
// memory), the compressible value generator, key formatting, and the
// process's own I/O counter.
#ifndef DELSM_BENCHMARKS_BENCH_UTIL_H_
#define DELSM_BENCHMARKS_BENCH_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "leveldb/slice.h"

namespace bench {

// A 64-bit mixing function (bijective): equal inputs give equal outputs, and
// nearby inputs give unrelated ones.
uint64_t Mix64(uint64_t x);

// Pseudo-random numbers (xoshiro256**), fully determined by the seed.
class Random {
 public:
  explicit Random(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, n); n > 0.
  uint64_t Uniform(uint64_t n);
  // Uniform in [0, 1).
  double NextDouble();

 private:
  uint64_t s_[4];
};

// A random bijection of [0, n) chosen by `seed`: At(0), ..., At(n-1) visit
// every index exactly once, in an order that looks random. A Feistel network
// over the next even power of two, walking the cycle until it lands below n.
class Permutation {
 public:
  Permutation(uint64_t n, uint64_t seed);
  uint64_t size() const { return n_; }
  uint64_t At(uint64_t i) const;  // i < size()

 private:
  uint64_t Encrypt(uint64_t x) const;

  uint64_t n_;
  int half_bits_;
  uint64_t half_mask_;
  uint64_t round_keys_[4];
};

// Values whose snappy-compressed size is about `ratio` of their length, as
// LevelDB's db_bench makes them: every 100-byte stretch repeats a random
// printable run of ratio*100 bytes. Generate() returns successive windows of
// one pre-built buffer.
class ValueGenerator {
 public:
  ValueGenerator(double ratio, size_t max_len, uint64_t seed);
  // Valid until the generator is destroyed. len <= max_len.
  leveldb::Slice Generate(size_t len);

 private:
  std::string data_;
  size_t pos_;
};

// Writes the decimal form of `index`, zero-padded to `width`, into `out`
// (which must have room for `width` bytes). Returns false if it needs more
// than `width` digits.
bool FormatKey(uint64_t index, int width, char* out);

// Number of decimal digits of n (at least 1).
int DecimalDigits(uint64_t n);

// write_bytes and cancelled_write_bytes from /proc/self/io: bytes this
// process (all threads) caused to be sent to storage. False if unreadable.
bool ProcessWriteBytes(uint64_t* write_bytes, uint64_t* cancelled);

// Peak resident set size of this process image (VmHWM of /proc/self/status)
// in KiB. Unlike getrusage's ru_maxrss it does not include the RSS of the
// process this one was exec'ed from (a forking parent). False if unreadable.
bool PeakRssKb(uint64_t* kb);

// Prints LevelDB db_bench's "CPU:" and "CPUCache:" header lines from
// /proc/cpuinfo (nothing if it cannot be read).
void PrintCpuInfo();

// Monotonic clock in microseconds.
uint64_t NowMicros();
// Monotonic clock in nanoseconds (for per-operation latencies).
uint64_t NowNanos();

}  // namespace bench

#endif  // DELSM_BENCHMARKS_BENCH_UTIL_H_
