// Implements benchmarks/engine.h on RocksDB; see rocksdb_adapter.h.
#include "benchmarks/rocksdb_adapter.h"

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/iterator.h"
#include "rocksdb/table.h"
#include "rocksdb/version.h"
#include "rocksdb/write_batch.h"

#ifndef DB_BENCH_ENGINE_BUILD
#define DB_BENCH_ENGINE_BUILD "unknown build"
#endif

// RocksDB's util/crc32c.h is not installed; both its static and shared
// libraries export this function.
namespace rocksdb {
namespace crc32c {
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);
}  // namespace crc32c
}  // namespace rocksdb

namespace bench {

namespace {

// Both Slice types are (pointer, size) views; conversions copy no bytes.
rocksdb::Slice ToRocks(const Slice& s) {
  return rocksdb::Slice(s.data(), s.size());
}
Slice FromRocks(const rocksdb::Slice& s) { return Slice(s.data(), s.size()); }

Status FromRocks(const rocksdb::Status& s) {
  if (s.ok()) return Status::OK();
  if (s.IsNotFound()) return Status::NotFound();
  return Status::Error(s.ToString());
}

class RocksSnapshot : public Snapshot {
 public:
  explicit RocksSnapshot(const rocksdb::Snapshot* s) : snapshot(s) {}
  const rocksdb::Snapshot* const snapshot;
};

rocksdb::ReadOptions ToRocks(const ReadOptions& o) {
  rocksdb::ReadOptions r;
  r.verify_checksums = o.verify_checksums;
  r.fill_cache = o.fill_cache;
  if (o.snapshot != nullptr) {
    r.snapshot = static_cast<const RocksSnapshot*>(o.snapshot)->snapshot;
  }
  return r;
}

rocksdb::WriteOptions ToRocks(const WriteOptions& o) {
  rocksdb::WriteOptions w;
  w.sync = o.sync;
  return w;
}

class RocksBatch : public Batch {
 public:
  void Put(const Slice& key, const Slice& value) override {
    // WriteBatch only fails on size overflow (over 4 GiB), which db_bench's
    // batches never reach.
    batch.Put(ToRocks(key), ToRocks(value)).PermitUncheckedError();
  }
  void Delete(const Slice& key) override {
    batch.Delete(ToRocks(key)).PermitUncheckedError();
  }
  void Clear() override { batch.Clear(); }
  rocksdb::WriteBatch batch;
};

class RocksIterator : public Iterator {
 public:
  explicit RocksIterator(rocksdb::Iterator* it) : it_(it) {}
  bool Valid() const override { return it_->Valid(); }
  void SeekToFirst() override { it_->SeekToFirst(); }
  void SeekToLast() override { it_->SeekToLast(); }
  void Seek(const Slice& target) override { it_->Seek(ToRocks(target)); }
  void Next() override { it_->Next(); }
  void Prev() override { it_->Prev(); }
  Slice key() const override { return FromRocks(it_->key()); }
  Slice value() const override { return FromRocks(it_->value()); }
  Status status() const override { return FromRocks(it_->status()); }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksEngine : public Engine {
 public:
  explicit RocksEngine(rocksdb::DB* db) : db_(db) {}
  ~RocksEngine() override {
    if (db_ != nullptr) db_->Close().PermitUncheckedError();
  }

  Status Put(const WriteOptions& o, const Slice& key,
             const Slice& value) override {
    return FromRocks(db_->Put(ToRocks(o), ToRocks(key), ToRocks(value)));
  }
  Status Delete(const WriteOptions& o, const Slice& key) override {
    return FromRocks(db_->Delete(ToRocks(o), ToRocks(key)));
  }
  std::unique_ptr<Batch> NewBatch() override {
    return std::make_unique<RocksBatch>();
  }
  Status Write(const WriteOptions& o, Batch* batch) override {
    return FromRocks(
        db_->Write(ToRocks(o), &static_cast<RocksBatch*>(batch)->batch));
  }
  Status Get(const ReadOptions& o, const Slice& key,
             std::string* value) override {
    return FromRocks(db_->Get(ToRocks(o), ToRocks(key), value));
  }
  std::unique_ptr<Iterator> NewIterator(const ReadOptions& o) override {
    return std::make_unique<RocksIterator>(db_->NewIterator(ToRocks(o)));
  }
  const Snapshot* GetSnapshot() override {
    return new RocksSnapshot(db_->GetSnapshot());
  }
  void ReleaseSnapshot(const Snapshot* s) override {
    auto* snap = static_cast<const RocksSnapshot*>(s);
    db_->ReleaseSnapshot(snap->snapshot);
    delete snap;
  }
  Status CompactAll() override {
    rocksdb::CompactRangeOptions options;
    return FromRocks(db_->CompactRange(options, nullptr, nullptr));
  }
  bool GetProperty(const std::string& name, std::string* value) override {
    return db_->GetProperty(name, value);
  }
  std::vector<std::string> StatsProperties() const override {
    return {"rocksdb.stats"};
  }

 private:
  std::unique_ptr<rocksdb::DB> db_;
};

}  // namespace

rocksdb::Options RocksDBOptionsFor(const EngineOptions& opts) {
  rocksdb::Options options;
  options.create_if_missing = opts.create_if_missing;
  options.error_if_exists = opts.error_if_exists;
  options.write_buffer_size = opts.write_buffer_size;
  options.max_open_files = opts.open_files;
  options.compression =
      opts.compression ? rocksdb::kSnappyCompression : rocksdb::kNoCompression;
  rocksdb::BlockBasedTableOptions table;
  if (opts.cache_size > 0) {
    table.block_cache =
        rocksdb::NewLRUCache(static_cast<size_t>(opts.cache_size));
  } else {
    table.no_block_cache = true;
  }
  if (opts.bloom_bits >= 0) {
    table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(opts.bloom_bits));
  }
  if (opts.block_size > 0) table.block_size = opts.block_size;
  if (opts.max_file_size > 0) {
    options.target_file_size_base = opts.max_file_size;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  if (opts.blob) {
    options.enable_blob_files = true;
    options.min_blob_size = opts.min_blob_size;
    options.enable_blob_garbage_collection = opts.blob_gc;
    options.blob_compression_type = options.compression;
  }
  return options;
}

std::string EngineName() { return "RocksDB"; }

std::string EngineBuild() {
  return std::string(DB_BENCH_ENGINE_BUILD) + "; headers say " +
         std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) +
         "." + std::to_string(ROCKSDB_PATCH);
}

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
                            : std::string("none")) +
      " max_open_files=" + std::to_string(opts.open_files) +
      " compression=" + (opts.compression ? "snappy" : "none");
  if (opts.blob) {
    d += " BlobDB: enable_blob_files=1 min_blob_size=" +
         std::to_string(opts.min_blob_size) +
         " blob_gc=" + (opts.blob_gc ? "1" : "0");
  } else {
    d += " blob=0";
  }
  return d;
}

Status OpenEngine(const EngineOptions& opts, const std::string& path,
                  std::unique_ptr<Engine>* engine) {
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(RocksDBOptionsFor(opts), path, &db);
  if (!s.ok()) return FromRocks(s);
  engine->reset(new RocksEngine(db));
  return Status::OK();
}

Status DestroyEngine(const std::string& path) {
  return FromRocks(rocksdb::DestroyDB(path, rocksdb::Options()));
}

bool EngineCrc32c(const char* data, size_t n, uint32_t* crc) {
  *crc = rocksdb::crc32c::Extend(0, data, n);
  return true;
}

}  // namespace bench
