#include "benchmarks/db_bench_flags.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

namespace bench {

namespace {

bool ToInt64(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ToDouble(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool ToBool(const std::string& s, bool* out) {
  if (s == "1" || s == "true") {
    *out = true;
  } else if (s == "0" || s == "false") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

using Setter = std::function<bool(const std::string&)>;

template <typename T>
Setter IntSetter(T* field) {
  return [field](const std::string& v) {
    int64_t x;
    if (!ToInt64(v, &x)) return false;
    *field = static_cast<T>(x);
    return static_cast<int64_t>(*field) == x;
  };
}

Setter BoolSetter(bool* field) {
  return [field](const std::string& v) { return ToBool(v, field); };
}

Setter DoubleSetter(double* field) {
  return [field](const std::string& v) { return ToDouble(v, field); };
}

Setter StringSetter(std::string* field) {
  return [field](const std::string& v) {
    *field = v;
    return true;
  };
}

std::map<std::string, Setter> SettersFor(Flags* f) {
  return {
      {"benchmarks", StringSetter(&f->benchmarks)},
      {"num", IntSetter(&f->num)},
      {"reads", IntSetter(&f->reads)},
      {"value_size", IntSetter(&f->value_size)},
      {"key_size", IntSetter(&f->key_size)},
      {"histogram", BoolSetter(&f->histogram)},
      {"db", StringSetter(&f->db)},
      {"use_existing_db", BoolSetter(&f->use_existing_db)},
      {"compression_ratio", DoubleSetter(&f->compression_ratio)},
      {"compression", BoolSetter(&f->compression)},
      {"write_buffer_size", IntSetter(&f->write_buffer_size)},
      {"cache_size", IntSetter(&f->cache_size)},
      {"bloom_bits", IntSetter(&f->bloom_bits)},
      {"open_files", IntSetter(&f->open_files)},
      {"threads", IntSetter(&f->threads)},
      {"sync", BoolSetter(&f->sync)},
      {"seed", IntSetter(&f->seed)},
      {"delete_ratio", DoubleSetter(&f->delete_ratio)},
      {"seek_nexts", IntSetter(&f->seek_nexts)},
      {"stats_interval", IntSetter(&f->stats_interval)},
      {"stage_barrier", BoolSetter(&f->stage_barrier)},
      {"block_size", IntSetter(&f->block_size)},
      {"max_file_size", IntSetter(&f->max_file_size)},
      {"reuse_logs", BoolSetter(&f->reuse_logs)},
      {"comparisons", BoolSetter(&f->comparisons)},
      {"blob", BoolSetter(&f->blob)},
      {"min_blob_size", IntSetter(&f->min_blob_size)},
      {"blob_gc", BoolSetter(&f->blob_gc)},
      {"durability", StringSetter(&f->durability)},
      {"inline_threshold", IntSetter(&f->inline_threshold)},
      {"l0_compaction_entries", IntSetter(&f->l0_compaction_entries)},
      {"sst_entries", IntSetter(&f->sst_entries)},
      {"read_ahead_files", IntSetter(&f->read_ahead_files)},
      {"values_stay_put", IntSetter(&f->values_stay_put)},
      {"tuning", StringSetter(&f->tuning)},
  };
}

}  // namespace

bool ParseFlags(int argc, char** argv, Flags* flags, bool* help,
                std::string* error) {
  *help = false;
  std::map<std::string, Setter> setters = SettersFor(flags);
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *help = true;
      continue;
    }
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") != 0 || eq == std::string::npos) {
      *error = "invalid argument '" + arg + "' (flags are --name=value)";
      return false;
    }
    std::string name = arg.substr(2, eq - 2);
    std::string value = arg.substr(eq + 1);
    auto it = setters.find(name);
    if (it == setters.end()) {
      *error = "unknown flag '--" + name + "'";
      return false;
    }
    if (!it->second(value)) {
      *error = "bad value '" + value + "' for --" + name;
      return false;
    }
  }
  if (flags->num < 0 || flags->value_size < 0 || flags->key_size < 1 ||
      flags->threads < 1 || flags->delete_ratio < 0 ||
      flags->delete_ratio > 1 || flags->stats_interval < 0 ||
      flags->min_blob_size < 0 || flags->block_size < 0 ||
      flags->max_file_size < 0 || flags->seek_nexts < 0) {
    *error =
        "out of range: need --num>=0 --value_size>=0 --key_size>=1 "
        "--threads>=1 0<=--delete_ratio<=1 --stats_interval>=0 "
        "--min_blob_size>=0 --block_size>=0 --max_file_size>=0 "
        "--seek_nexts>=0";
    return false;
  }
  return true;
}

std::string FlagsUsage() {
  return R"(usage: db_bench [--name=value ...]
  --benchmarks=a,b,...   workloads, run in order (default: LevelDB's list):
      fillseq fillrandom fillsync fillbatch overwrite fill100K
      readseq readreverse readrandom readmissing readhot seekrandom
      deleteseq deleterandom compact stats
      open readrandomsmall crc32c snappycomp snappyuncomp sstables
      heapprofile  (as LevelDB's db_bench)
      writedeletewrite writedeleteread  (fill N random keys, delete
          --delete_ratio of them, then write N new keys / read the first N)
      fsmeta  (16-byte parent-id + name-hash keys, 128-byte values, 20 per
          parent: load, gets by parent, per-parent prefix scans)
  --num=N                keys per fill (default 1000000)
  --reads=N              reads per read workload (default: --num)
  --value_size=N         bytes per value (default 100)
  --key_size=N           bytes per key, zero-padded decimal (default 16)
  --compression_ratio=R  compressed/raw size of generated values (0.5)
  --compression=0|1      snappy compression (default 1)
  --histogram=0|1        print latency histograms
  --db=PATH              database directory
  --use_existing_db=0|1  keep the database; fill* workloads are skipped
  --write_buffer_size=N  memtable bytes (default 4 MiB, for every engine)
  --cache_size=N         block/value cache bytes (default 8 MiB)
  --bloom_bits=N         Bloom filter bits per key (default: engine's)
  --open_files=N         max open files (default 1000)
  --threads=N            threads sharing each workload's operations
  --sync=0|1             sync every write
  --seed=N               key-order seed; 0 (default) draws a fresh one
  --delete_ratio=R       share deleted by the three-stage workloads (0.5)
  --seek_nexts=N         seekrandom: N Next() calls after each Seek, each
                         reading its value (default 0)
  --stats_interval=N     progress line with ops/s and write_bytes every N ops
  --stage_barrier=0|1    after each stage print "stage end: NAME write_bytes=W
                         cancelled_write_bytes=C user_bytes=U" (process
                         totals so far) and wait for a line on stdin
  --block_size=N --max_file_size=N --reuse_logs=0|1
                         LevelDB's table-format options (LevelDB, RocksDB;
                         no effect on DeLSM, which has no tables)
  --comparisons=0|1      accepted; comparator calls are not counted
  RocksDB: --blob=0|1 (BlobDB) --min_blob_size=N --blob_gc=0|1
  DeLSM:   --durability=syncfs|fsync|deferred --inline_threshold=N
           --l0_compaction_entries=N --sst_entries=N
           --read_ahead_files=N (0: scans read no values ahead)
           --values_stay_put=0|1
           --tuning='name=value;...' (any delsm::Tuning fields, as in
           DELSM_OPTIONS; the flags above override them)
)";
}

}  // namespace bench
