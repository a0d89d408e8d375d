#include "benchmarks/micro_bench.h"

#include <snappy.h>

#include <cstdio>
#include <vector>

#include "benchmarks/engine.h"

namespace bench {

namespace {

constexpr size_t kBlock = 4096;

MicroResult Crc32c() {
  MicroResult r;
  const std::string data(kBlock, 'x');  // as LevelDB's: 4K of 'x'
  uint32_t crc = 0;
  while (r.bytes < 500ull * 1048576) {
    if (!EngineCrc32c(data.data(), data.size(), &crc)) {
      r.bytes = 0;
      r.message =
          "(this " + EngineName() + " build does not export its crc32c)";
      return r;
    }
    r.ops++;
    r.bytes += kBlock;
  }
  // Printed so the loop is not optimised away, as LevelDB does.
  std::fprintf(stderr, "... crc=0x%x\r", static_cast<unsigned>(crc));
  r.message = "(4K per op)";
  return r;
}

MicroResult SnappyCompress(ValueGenerator* gen) {
  MicroResult r;
  const std::string input = gen->Generate(kBlock).ToString();
  std::string compressed;
  uint64_t produced = 0;
  while (r.bytes < 1024ull * 1048576) {
    snappy::Compress(input.data(), input.size(), &compressed);
    produced += compressed.size();
    r.bytes += input.size();
    r.ops++;
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "(output: %.1f%%)",
                produced * 100.0 / r.bytes);
  r.message = buf;
  return r;
}

MicroResult SnappyUncompress(ValueGenerator* gen) {
  MicroResult r;
  const std::string input = gen->Generate(kBlock).ToString();
  std::string compressed;
  snappy::Compress(input.data(), input.size(), &compressed);
  std::vector<char> out(input.size());
  while (r.bytes < 1024ull * 1048576) {
    if (!snappy::RawUncompress(compressed.data(), compressed.size(),
                               out.data())) {
      r.bytes = 0;
      r.message = "(snappy failure)";
      return r;
    }
    r.bytes += input.size();
    r.ops++;
  }
  return r;
}

}  // namespace

MicroResult RunMicroBenchmark(const std::string& name, ValueGenerator* gen) {
  if (name == "crc32c") return Crc32c();
  if (name == "snappycomp") return SnappyCompress(gen);
  return SnappyUncompress(gen);
}

}  // namespace bench
