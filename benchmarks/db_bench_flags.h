// db_bench's command-line flags: LevelDB db_bench's names and meanings, plus
// --key_size, --sync, --seed, --delete_ratio, --stats_interval,
// --stage_barrier, BlobDB's
// --blob/--min_blob_size/--blob_gc and DeLSM's knobs. Every binary accepts
// every flag; an engine ignores knobs that are not its own (db_bench warns).
#ifndef DELSM_BENCHMARKS_DB_BENCH_FLAGS_H_
#define DELSM_BENCHMARKS_DB_BENCH_FLAGS_H_

#include <cstdint>
#include <string>

namespace bench {

struct Flags {
  std::string benchmarks =
      "fillseq,fillsync,fillrandom,overwrite,readrandom,readrandom,readseq,"
      "readreverse,compact,readrandom,readseq,readreverse,fill100K,crc32c,"
      "snappycomp,snappyuncomp";
  int64_t num = 1000000;
  int64_t reads = -1;  // <0: same as num
  int value_size = 100;
  int key_size = 16;
  bool histogram = false;
  std::string db;  // empty: /tmp/db_bench-<engine>-<uid>
  bool use_existing_db = false;
  double compression_ratio = 0.5;
  bool compression = true;
  int64_t write_buffer_size = 0;  // 0: LevelDB's default, 4 MiB
  int64_t cache_size = -1;        // <0: LevelDB's default, 8 MiB
  int bloom_bits = -1;            // <0: engine's default
  int open_files = 0;             // 0: LevelDB's default, 1000
  int threads = 1;
  bool sync = false;
  uint64_t seed = 0;  // 0: draw a fresh seed
  double delete_ratio = 0.5;
  // seekrandom: Next() calls after each Seek, each reading the value.
  int64_t seek_nexts = 0;
  int64_t stats_interval = 0;  // ops between progress lines; 0: off
  // After each stage: print a "stage end:" line with the process's
  // write_bytes and the user bytes so far, then wait for a line on stdin
  // (benchmarks/paper/table2.py syncs and reads the device meanwhile).
  bool stage_barrier = false;
  // LevelDB's table-format flags (0 / false: engine default); --comparisons
  // is accepted and not counted.
  int64_t block_size = 0;
  int64_t max_file_size = 0;
  bool reuse_logs = false;
  bool comparisons = false;
  // RocksDB (db_bench_rocksdb) only.
  bool blob = false;
  int64_t min_blob_size = 0;
  bool blob_gc = false;
  // DeLSM (db_bench) only; <0 / empty: DeLSM's default.
  std::string durability;
  int64_t inline_threshold = -1;
  int64_t l0_compaction_entries = -1;
  int64_t sst_entries = -1;
  int64_t read_ahead_files = -1;
  int64_t values_stay_put = -1;  // 0 or 1
  std::string tuning;            // delsm::ParseTuning's syntax
};

// Parses argv into *flags. On a bad or unknown flag returns false with a
// message in *error. Sets *help when --help was given.
bool ParseFlags(int argc, char** argv, Flags* flags, bool* help,
                std::string* error);

// Usage text listing every flag and workload.
std::string FlagsUsage();

}  // namespace bench

#endif  // DELSM_BENCHMARKS_DB_BENCH_FLAGS_H_
