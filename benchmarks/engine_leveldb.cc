// bench::Engine over the LevelDB API. Built against a LevelDB library
// (Debian's shared library or the Release peer); with DB_BENCH_DELSM against
// DeLSM, which implements the same API and adds delsm::Open for its tuning
// knobs; and against the peers that keep LevelDB's API in namespace leveldb:
// BoLT (DB_BENCH_BOLT, its include/leveldb/ first on the path) and PebblesDB
// (DB_BENCH_PEBBLESDB, headers under pebblesdb/). engine.h has already
// included LevelDB's slice.h; the peers' slice.h has the same include guard
// and the same inline class, so it is skipped.
#include <memory>
#include <string>
#include <vector>

#include "benchmarks/engine.h"
#ifdef DB_BENCH_PEBBLESDB
#include "pebblesdb/cache.h"
#include "pebblesdb/db.h"
#include "pebblesdb/filter_policy.h"
#include "pebblesdb/iterator.h"
#include "pebblesdb/options.h"
#include "pebblesdb/write_batch.h"
#else
#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#endif

#ifdef DB_BENCH_DELSM
#include "delsm/delsm.h"
#include "delsm_git_commit.h"  // generated at build time: DELSM_GIT_COMMIT
#include "util/crc32c.h"
#define DB_BENCH_ENGINE_BUILD \
  DB_BENCH_ENGINE_BUILD_PREFIX ", git " DELSM_GIT_COMMIT
#elif defined(DB_BENCH_LEVELDB_STATIC)
// LevelDB's util/crc32c.h is not installed; the static library defines it.
namespace leveldb {
namespace crc32c {
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);
}  // namespace crc32c
}  // namespace leveldb
#endif

#ifndef DB_BENCH_ENGINE_BUILD
#define DB_BENCH_ENGINE_BUILD "unknown build"
#endif

namespace bench {

namespace {

Status FromLevelDB(const leveldb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound();
  return Status::Error(s.ToString());
}

class LevelDBSnapshot : public Snapshot {
 public:
  explicit LevelDBSnapshot(const leveldb::Snapshot* s) : snapshot(s) {}
  const leveldb::Snapshot* const snapshot;
};

leveldb::ReadOptions ToLevelDB(const ReadOptions& o) {
  leveldb::ReadOptions r;
  r.verify_checksums = o.verify_checksums;
  r.fill_cache = o.fill_cache;
  if (o.snapshot != nullptr) {
    r.snapshot = static_cast<const LevelDBSnapshot*>(o.snapshot)->snapshot;
  }
  return r;
}

leveldb::WriteOptions ToLevelDB(const WriteOptions& o) {
  leveldb::WriteOptions w;
  w.sync = o.sync;
  return w;
}

class LevelDBBatch : public Batch {
 public:
  void Put(const Slice& key, const Slice& value) override {
    batch.Put(key, value);
  }
  void Delete(const Slice& key) override { batch.Delete(key); }
  void Clear() override { batch.Clear(); }
  leveldb::WriteBatch batch;
};

class LevelDBIterator : public Iterator {
 public:
  explicit LevelDBIterator(leveldb::Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(const Slice& target) override { it_->Seek(target); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  Slice key() const override { return it_->key(); }
  Slice value() const override { return it_->value(); }
  Status status() const override { return FromLevelDB(it_->status()); }

 private:
  std::unique_ptr<leveldb::Iterator> it_;
};

class LevelDBEngine : public Engine {
 public:
  // Takes ownership of all three; the database is closed before the cache
  // and filter policy it refers to are freed.
  LevelDBEngine(leveldb::DB* db, leveldb::Cache* cache,
                const leveldb::FilterPolicy* filter)
      : cache_(cache), filter_(filter), db_(db) {}
  ~LevelDBEngine() override { db_.reset(); }

  Status Put(const WriteOptions& o, const Slice& key,
             const Slice& value) override {
    return FromLevelDB(db_->Put(ToLevelDB(o), key, value));
  }
  Status Delete(const WriteOptions& o, const Slice& key) override {
    return FromLevelDB(db_->Delete(ToLevelDB(o), key));
  }
  std::unique_ptr<Batch> NewBatch() override {
    return std::make_unique<LevelDBBatch>();
  }
  Status Write(const WriteOptions& o, Batch* batch) override {
    return FromLevelDB(
        db_->Write(ToLevelDB(o), &static_cast<LevelDBBatch*>(batch)->batch));
  }
  Status Get(const ReadOptions& o, const Slice& key,
             std::string* value) override {
    return FromLevelDB(db_->Get(ToLevelDB(o), key, value));
  }
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& o) override {
    return std::make_unique<LevelDBIterator>(db_->NewIterator(ToLevelDB(o)));
  }
  const Snapshot* GetSnapshot() override {
    return new LevelDBSnapshot(db_->GetSnapshot());
  }
  void ReleaseSnapshot(const Snapshot* s) override {
    auto* snap = static_cast<const LevelDBSnapshot*>(s);
    db_->ReleaseSnapshot(snap->snapshot);
    delete snap;
  }
  Status CompactAll() override {
    db_->CompactRange(nullptr, nullptr);
    return Status::OK();
  }
  bool GetProperty(const std::string& name, std::string* value) override {
    return db_->GetProperty(name, value);
  }
  std::vector<std::string> StatsProperties() const override {
#ifdef DB_BENCH_DELSM
    return {"leveldb.stats", "delsm.stats"};
#else
    return {"leveldb.stats"};
#endif
  }

 private:
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;  // declared last: destroyed first
};

#ifdef DB_BENCH_DELSM
bool ParseDurability(const std::string& name, delsm::Durability* d) {
  if (name == "syncfs") {
    *d = delsm::Durability::kSyncfs;
  } else if (name == "fsync") {
    *d = delsm::Durability::kFsync;
  } else if (name == "deferred") {
    *d = delsm::Durability::kDeferred;
  } else {
    return false;
  }
  return true;
}
#endif

}  // namespace

std::string EngineName() {
#ifdef DB_BENCH_DELSM
  return "DeLSM";
#elif defined(DB_BENCH_PEBBLESDB)
  return "PebblesDB";
#elif defined(DB_BENCH_BOLT)
  return "BoLT";
#else
  return "LevelDB";
#endif
}

std::string EngineBuild() { return DB_BENCH_ENGINE_BUILD; }

bool EngineHasAssertions() {
#ifdef DB_BENCH_ENGINE_HAS_ASSERTIONS
  return true;
#else
  return false;
#endif
}

std::string DescribeOptions(const EngineOptions& opts) {
  std::string d =
      "write_buffer_size=" + std::to_string(opts.write_buffer_size) +
      " block_cache=" + std::to_string(opts.cache_size) + " bloom_bits=" +
      (opts.bloom_bits >= 0 ? std::to_string(opts.bloom_bits)
                            : std::string("default")) +
      " max_open_files=" + std::to_string(opts.open_files) +
      " compression=" + (opts.compression ? "snappy" : "none");
#ifdef DB_BENCH_DELSM
  delsm::Tuning t;
  std::string durability =
      opts.durability.empty() ? "default" : opts.durability;
  d +=
      " durability=" + durability + " inline_threshold=" +
      std::to_string(opts.inline_threshold >= 0 ? opts.inline_threshold
                                                : t.inline_threshold) +
      " l0_compaction_entries=" +
      std::to_string(opts.l0_compaction_entries >= 0
                         ? opts.l0_compaction_entries
                         : t.l0_compaction_entries) +
      " sst_entries=" +
      std::to_string(opts.sst_entries >= 0 ? opts.sst_entries : t.sst_entries) +
      " read_ahead_files=" +
      std::to_string(opts.read_ahead_files >= 0 ? opts.read_ahead_files
                                                : t.read_ahead_files) +
      " values_stay_put=" +
      std::to_string(opts.values_stay_put >= 0 ? opts.values_stay_put != 0
                                               : t.values_stay_put);
  if (!opts.tuning.empty()) d += " tuning=" + opts.tuning;
#endif
  return d;
}

Status OpenEngine(const EngineOptions& opts, const std::string& path,
                  std::unique_ptr<Engine>* engine) {
  leveldb::Options options;
  options.create_if_missing = opts.create_if_missing;
  options.error_if_exists = opts.error_if_exists;
  options.write_buffer_size = opts.write_buffer_size;
  options.max_open_files = opts.open_files;
  options.compression =
      opts.compression ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  if (opts.block_size > 0) options.block_size = opts.block_size;
#ifndef DB_BENCH_PEBBLESDB
  // PebblesDB's options have neither: its guards decide file sizes.
  if (opts.max_file_size > 0) options.max_file_size = opts.max_file_size;
  options.reuse_logs = opts.reuse_logs;
#endif
  leveldb::Cache* cache = nullptr;
  if (opts.cache_size > 0) {
    cache = leveldb::NewLRUCache(static_cast<size_t>(opts.cache_size));
    options.block_cache = cache;
  }
  const leveldb::FilterPolicy* filter = nullptr;
  if (opts.bloom_bits >= 0) {
    filter = leveldb::NewBloomFilterPolicy(opts.bloom_bits);
    options.filter_policy = filter;
  }
  leveldb::DB* db = nullptr;
  leveldb::Status s;
#ifdef DB_BENCH_DELSM
  delsm::Tuning tuning;
  leveldb::Status parsed = delsm::ParseTuning(opts.tuning, &tuning);
  if (!parsed.ok()) {
    delete cache;
    delete filter;
    return Status::Error("--tuning: " + parsed.ToString());
  }
  if (!opts.durability.empty() &&
      !ParseDurability(opts.durability, &tuning.durability)) {
    delete cache;
    delete filter;
    return Status::Error("unknown --durability '" + opts.durability +
                         "' (want syncfs, fsync or deferred)");
  }
  if (opts.inline_threshold >= 0)
    tuning.inline_threshold = opts.inline_threshold;
  if (opts.l0_compaction_entries >= 0) {
    tuning.l0_compaction_entries = opts.l0_compaction_entries;
  }
  if (opts.sst_entries >= 0) tuning.sst_entries = opts.sst_entries;
  if (opts.read_ahead_files >= 0) {
    tuning.read_ahead_files = static_cast<int>(opts.read_ahead_files);
  }
  if (opts.values_stay_put > 1) {
    delete cache;
    delete filter;
    return Status::Error("--values_stay_put wants 0 or 1");
  }
  if (opts.values_stay_put >= 0) {
    tuning.values_stay_put = opts.values_stay_put != 0;
  }
  s = delsm::Open(options, tuning, path, &db);
#else
  s = leveldb::DB::Open(options, path, &db);
#endif
  if (!s.ok()) {
    delete cache;
    delete filter;
    return FromLevelDB(s);
  }
  engine->reset(new LevelDBEngine(db, cache, filter));
  return Status::OK();
}

Status DestroyEngine(const std::string& path) {
  return FromLevelDB(leveldb::DestroyDB(path, leveldb::Options()));
}

bool EngineCrc32c(const char* data, size_t n, uint32_t* crc) {
#if defined(DB_BENCH_DELSM) || defined(DB_BENCH_LEVELDB_STATIC)
  *crc = leveldb::crc32c::Extend(0, data, n);
  return true;
#else
  return false;
#endif
}

}  // namespace bench
