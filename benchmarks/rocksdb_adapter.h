// bench::Engine over RocksDB's API: the thin adapter that lets the one
// db_bench source measure RocksDB, and with EngineOptions::blob RocksDB's
// BlobDB (integrated key-value separation: values in blob files, keys and
// blob references in the LSM tree - WiscKey's design).
//
// Mapping: Put/Delete/Get/Write(WriteBatch)/NewIterator/GetSnapshot and
// CompactRange map one to one. write_buffer_size, max_open_files and the LRU
// block cache are set to db_bench's values (LevelDB's defaults unless given)
// so every engine runs with the same memory budget; everything else is
// RocksDB's default Options.
#ifndef DELSM_BENCHMARKS_ROCKSDB_ADAPTER_H_
#define DELSM_BENCHMARKS_ROCKSDB_ADAPTER_H_

#include "benchmarks/engine.h"
#include "rocksdb/options.h"

namespace bench {

// The RocksDB options db_bench opens with for `opts`.
rocksdb::Options RocksDBOptionsFor(const EngineOptions& opts);

}  // namespace bench

#endif  // DELSM_BENCHMARKS_ROCKSDB_ADAPTER_H_
