// LevelDB db_bench's benchmarks that measure a building block rather than
// the database: crc32c (the engine's own crc32c over 4 KiB blocks, 500 MiB
// in all), snappycomp and snappyuncomp (snappy over 4 KiB blocks of
// generated values, 1 GiB in all). Same amounts and result messages as
// LevelDB's, so their lines compare directly.
#ifndef DELSM_BENCHMARKS_MICRO_BENCH_H_
#define DELSM_BENCHMARKS_MICRO_BENCH_H_

#include <cstdint>
#include <string>

#include "benchmarks/bench_util.h"

namespace bench {

struct MicroResult {
  uint64_t ops = 0;
  uint64_t bytes = 0;   // input processed; 0 when the benchmark failed
  std::string message;  // LevelDB's: "(4K per op)", "(output: 55.1%)", ...
};

// `name` is crc32c, snappycomp or snappyuncomp; `gen` supplies the input.
MicroResult RunMicroBenchmark(const std::string& name, ValueGenerator* gen);

}  // namespace bench

#endif  // DELSM_BENCHMARKS_MICRO_BENCH_H_
