// Cache of open SSTs (decoded meta-file index + directory descriptor, and a
// descriptor on the meta file when it holds inline values), keyed by SST
// number. Two bounds hold at once for the SSTs it keeps open beyond those in
// use: their descriptors stay within `descriptors` (Options::max_open_files
// - 10, as LevelDB's table cache) and their resident memory within `bytes`
// (delsm::Tuning::table_cache_bytes). An SST without a KV file whose meta
// file is mapped holds no descriptor (SstDir::OpenDescriptors), so only the
// memory bound closes it. Beside them it keeps the Bloom
// filters of SSTs it has opened, within `filter_bytes`
// (delsm::Tuning::filter_cache_bytes), after the SSTs themselves are
// closed: a Get that would open an SST asks its kept filter first. An SST
// is named by its
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
#include <mutex>
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
             int descriptors, uint64_t bytes, uint64_t filter_bytes = 0);
  ~TableCache();
  TableCache(const TableCache&) = delete;
  TableCache& operator=(const TableCache&) = delete;

  // Iterator over SST `number` in directory `dir` (see
  // SstDir::NewIterator). If `dirptr` is non-null it is set to the SstDir,
  // which lives as long as the iterator. On error returns an error
  // iterator.
  Iterator* NewIterator(const ReadOptions& options, int level, uint64_t number,
                        uint64_t dir, SstDir** dirptr = nullptr);

  // SstDir::InternalGet on SST `number` in directory `dir`. If the SST is
  // not open and its kept filter excludes the key's user key, returns OK
  // without opening it (the filter is the one SstDir::InternalGet would
  // ask, so what the handler is called with does not change).
  Status Get(const ReadOptions& options, int level, uint64_t number,
             uint64_t dir, const Slice& internal_key, void* arg,
             void (*handle)(void*, const Slice&, const Slice&));

  // Pin SST `number` (in directory `dir`) in the cache. Release with
  // Release(), which also charges the cache for what the SST came to hold
  // meanwhile (SstDir::LoadIndex, which a user of the whole index calls).
  Status Find(int level, uint64_t number, uint64_t dir, Cache::Handle** handle);
  // Find, then SstDir::LoadIndex: for a user of every entry, each group of
  // the meta file checked. On any failure no handle is held.
  Status FindWhole(int level, uint64_t number, uint64_t dir,
                   Cache::Handle** handle);
  SstDir* Value(Cache::Handle* handle);
  void Release(Cache::Handle* handle);

  // Drop SST `number` and its kept filter (no version uses it any more).
  void Evict(uint64_t number);

  // Bytes of memory the open SSTs keep resident (SstDir::
  // ApproximateMemoryUsage summed over every open SST, cached or pinned).
  size_t MemoryUsage() const { return memory_.load(std::memory_order_relaxed); }
  // Bytes of the kept filters (within filter_bytes).
  size_t FilterMemoryUsage() const {
    return filters_ == nullptr ? 0 : filters_->TotalCharge();
  }

 private:
  // The cache's charge for an SST: the larger of its shares of the two
  // bounds, in units of which the cache holds kCapacityUnits (its memory
  // share alone for an SST holding no descriptor).
  size_t Charge(int descriptors, size_t memory) const;
  // Opens SST `number` and inserts it (and keeps its filter); *handle
  // pins it. For Find after a missed lookup.
  // An SST is charged what it holds when opened; one whose memory has
  // grown since (its whole index loaded) is inserted again, charged
  // anew, by this, which every release of a handle and every new
  // iterator calls.
  void Recharge(Cache::Handle* handle);
  Status Open(int level, uint64_t number, uint64_t dir_number,
              const Slice& cache_key, Cache::Handle** handle);
  // True if the kept filter of SST `cache_key` excludes internal_key's
  // user key; false when no filter is kept for it.
  bool KeptFilterExcludes(const Slice& cache_key, const Slice& internal_key);
  void KeepFilter(const Slice& cache_key, const SstDir& dir);

  const std::string dbname_;
  const SstDirOptions options_;
  const int max_descriptors_;  // >= 1
  const uint64_t max_bytes_;   // >= 1
  Cache* cache_;
  // Filters of opened SSTs, each a std::string charged by its size; null
  // when filter_bytes is 0 or there is no filter policy. Every entry is the
  // filter of the SST its key names: SSTs are never rewritten, and within a
  // process an SST number is never given to another SST (only a WAL's
  // number is handed back, VersionSet::ReuseFileNumber), so an entry is
  // never stale. Set by Open, dropped by Evict or the LRU bound.
  Cache* filters_;
  // Updated as SSTs are opened, recharged and freed; read without a lock.
  std::atomic<size_t> memory_{0};
  // Orders Recharge's re-insertion against Evict.
  std::mutex recharge_mu_;
};

}  // namespace leveldb

#endif  // DELSM_DB_TABLE_CACHE_H_
