// Cache of open SSTs (decoded meta-file index + directory descriptor, and a
// descriptor on the meta file when it holds inline values), keyed by SST
// number. Two bounds hold at once for the SSTs it keeps open beyond those in
// use: their descriptors stay within `descriptors` (Options::max_open_files
// - 10, as LevelDB's table cache) and their resident memory within `bytes`
// (delsm::Tuning::table_cache_bytes). An SST is named by its
// level, its number (which names its meta file) and its directory's number
// (FileMetaData::dir). Thread-safe.
//
// A directory's path depends on its level (L<level>/<dir>.sst) and a
// trivial move renames it to the next level; a caller holding an older
// version may ask for the old level. Opening therefore falls back to the
// other level directories when the named one does not hold the directory.
#ifndef DELSM_DB_TABLE_CACHE_H_
#define DELSM_DB_TABLE_CACHE_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "leveldb/cache.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "table/sst_dir.h"
#include "table/sst_dir_options.h"

namespace leveldb {

class TableCache {
 public:
  TableCache(const std::string& dbname, const SstDirOptions& options,
             int descriptors, uint64_t bytes);
  ~TableCache();
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // Iterator over SST `number` in directory `dir` (see
  // SstDir::NewIterator). If `dirptr` is non-null it is set to the SstDir,
  // which lives as long as the iterator. On error returns an error
  // iterator.
  Iterator* NewIterator(const ReadOptions& options, int level, uint64_t number,
                        uint64_t dir, SstDir** dirptr = nullptr);

  // SstDir::InternalGet on SST `number` in directory `dir`.
  Status Get(const ReadOptions& options, int level, uint64_t number,
             uint64_t dir, const Slice& internal_key, void* arg,
             void (*handle)(void*, const Slice&, const Slice&));

  // Pin SST `number` (in directory `dir`) in the cache. Release with
  // Release().
  Status Find(int level, uint64_t number, uint64_t dir, Cache::Handle** handle);
  SstDir* Value(Cache::Handle* handle);
  void Release(Cache::Handle* handle);

  // Drop SST `number` from the cache (no version uses it any more).
  void Evict(uint64_t number);

  // Bytes of memory the open SSTs keep resident (SstDir::
  // ApproximateMemoryUsage summed over every open SST, cached or pinned).
  size_t MemoryUsage() const { return memory_.load(std::memory_order_relaxed); }

 private:
  // The cache's charge for an SST: the larger of its shares of the two
  // bounds, in units of which the cache holds kCapacityUnits.
  size_t Charge(int descriptors, size_t memory) const;

  const std::string dbname_;
  const SstDirOptions options_;
  const int max_descriptors_;  // >= 1
  const uint64_t max_bytes_;   // >= 1
  Cache* cache_;
  // Updated as SSTs are opened and freed; read without a lock.
  std::atomic<size_t> memory_{0};
};

}  // namespace leveldb

#endif  // DELSM_DB_TABLE_CACHE_H_
