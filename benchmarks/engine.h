// The storage-engine surface db_bench measures, shaped after LevelDB's public
// API (Put, Delete, Write of a batch, Get, iterators, snapshots, CompactRange,
// GetProperty). db_bench.cc is written against this interface only; exactly
// one implementation is linked into each binary:
//   engine_leveldb.cc  - leveldb::DB (Debian's or the Release peer LevelDB;
//                        with DB_BENCH_DELSM, DeLSM through delsm::Open)
//   rocksdb_adapter.cc - RocksDB, optionally with BlobDB (blob files)
// Only header-only LevelDB types (Slice) appear here, so the RocksDB binary
// does not need any LevelDB library.
#ifndef DELSM_BENCHMARKS_ENGINE_H_
#define DELSM_BENCHMARKS_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "leveldb/slice.h"

namespace bench {

using leveldb::Slice;

// Outcome of an engine call. `code` kNotFound is only produced by Get.
struct Status {
  enum Code { kOk, kNotFound, kError };
  Code code = kOk;
  std::string message;  // engine's own text for kError

  bool ok() const { return code == kOk; }
  bool IsNotFound() const { return code == kNotFound; }
  static Status OK() { return Status(); }
  static Status NotFound() { return Status{kNotFound, "NotFound"}; }
  static Status Error(std::string msg) {
    return Status{kError, std::move(msg)};
  }
  std::string ToString() const { return ok() ? "OK" : message; }
};

// Everything db_bench can configure. Fields an engine has no use for are
// ignored by it; each engine's Describe() says what it applied.
struct EngineOptions {
  bool create_if_missing = true;
  bool error_if_exists = false;
  bool compression = true;             // snappy blocks / KV files
  size_t write_buffer_size = 4 << 20;  // memtable size, bytes
  int64_t cache_size = 8 << 20;        // block/value cache bytes; 0 = none
  int bloom_bits = -1;                 // <0: engine default (LevelDB: none)
  int open_files = 1000;               // max_open_files
  // LevelDB's table-format options; 0 / false = the engine's default. DeLSM
  // has no data blocks, table files or reusable logs and ignores them;
  // RocksDB takes block_size and max_file_size (target_file_size_base).
  size_t block_size = 0;
  size_t max_file_size = 0;
  bool reuse_logs = false;
  // RocksDB only: key-value separation (BlobDB).
  bool blob = false;
  uint64_t min_blob_size = 0;
  bool blob_gc = false;
  // DeLSM only (see include/delsm/delsm.h); <0 / empty = DeLSM's default.
  std::string durability;
  int64_t inline_threshold = -1;
  int64_t l0_compaction_entries = -1;
  int64_t sst_entries = -1;
  int64_t read_ahead_files = -1;  // 0: scans read no values ahead
  int64_t values_stay_put = -1;   // 0 or 1
  // Any Tuning fields, in delsm::ParseTuning's syntax; applied before the
  // fields above.
  std::string tuning;
};

// An opaque point-in-time view returned by Engine::GetSnapshot.
class Snapshot {
 public:
  virtual ~Snapshot() = default;
};

struct ReadOptions {
  bool verify_checksums = false;
  bool fill_cache = true;
  const Snapshot* snapshot = nullptr;  // nullptr = latest
};

struct WriteOptions {
  bool sync = false;
};

// A group of updates applied atomically by Engine::Write. Made by
// Engine::NewBatch; only the engine that made it may apply it.
class Batch {
 public:
  virtual ~Batch() = default;
  virtual void Put(const Slice& key, const Slice& value) = 0;
  virtual void Delete(const Slice& key) = 0;
  virtual void Clear() = 0;
};

// Same contract as leveldb::Iterator. key()/value() are valid until the next
// move; status() reports an error that ended the iteration.
class Iterator {
 public:
  virtual ~Iterator() = default;
  virtual bool Valid() const = 0;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  virtual void Seek(const Slice& target) = 0;
  virtual void Next() = 0;
  virtual void Prev() = 0;
  virtual Slice key() const = 0;
  virtual Slice value() const = 0;
  virtual Status status() const = 0;
};

// An open database. All methods may be called from several threads at once.
class Engine {
 public:
  virtual ~Engine() = default;

  virtual Status Put(const WriteOptions& o, const Slice& key,
                     const Slice& value) = 0;
  virtual Status Delete(const WriteOptions& o, const Slice& key) = 0;
  virtual std::unique_ptr<Batch> NewBatch() = 0;
  virtual Status Write(const WriteOptions& o, Batch* batch) = 0;
  // kNotFound when the key has no live value.
  virtual Status Get(const ReadOptions& o, const Slice& key,
                     std::string* value) = 0;
  virtual std::unique_ptr<Iterator> NewIterator(const ReadOptions& o) = 0;
  // The snapshot must be released (ReleaseSnapshot) before the engine closes.
  virtual const Snapshot* GetSnapshot() = 0;
  virtual void ReleaseSnapshot(const Snapshot* s) = 0;
  // Compacts the whole key range.
  virtual Status CompactAll() = 0;
  virtual bool GetProperty(const std::string& name, std::string* value) = 0;
  // Property names worth printing for the "stats" benchmark.
  virtual std::vector<std::string> StatsProperties() const = 0;
};

// What this binary measures: engine name ("DeLSM", "LevelDB", "RocksDB"),
// and which build of it (shared library from Debian, Release peer, ...).
std::string EngineName();
std::string EngineBuild();
// True when the linked engine library is known to have assertions compiled
// in (Debian's binary packages), which slows it down.
bool EngineHasAssertions();
// One line stating the engine-specific options applied for `opts`.
std::string DescribeOptions(const EngineOptions& opts);

// The engine library's own crc32c of data[0, n) (what LevelDB's crc32c
// benchmark measures) in *crc; false when the linked build does not export
// it (Debian's shared LevelDB hides it).
bool EngineCrc32c(const char* data, size_t n, uint32_t* crc);

// Opens (creating per opts) the database at `path`.
Status OpenEngine(const EngineOptions& opts, const std::string& path,
                  std::unique_ptr<Engine>* engine);
// Deletes the database at `path`, if any.
Status DestroyEngine(const std::string& path);

}  // namespace bench

#endif  // DELSM_BENCHMARKS_ENGINE_H_
