// Reads the KV files of the entries ahead of a scan's cursor in parallel,
// on a thread pool, so that a scan finds most values already read. Bounded
// by a number of files and of bytes ahead. Reads not started when the
// prefetcher is cleared or destroyed are dropped; destruction waits for
// the reads already running (so none outlives the SstDir it reads). Used by one
// iterator at a time (not thread-safe itself).
#ifndef DELSM_TABLE_VALUE_PREFETCHER_H_
#define DELSM_TABLE_VALUE_PREFETCHER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>

#include "leveldb/options.h"
#include "leveldb/status.h"

namespace leveldb {

class SstDir;

class ValuePrefetcher {
 public:
  // `dir` and options.read_ahead_pool (non-null) must outlive this.
  ValuePrefetcher(const SstDir* dir, const ReadOptions& options);
  ~ValuePrefetcher();
  ValuePrefetcher(const ValuePrefetcher&) = delete;
  ValuePrefetcher& operator=(const ValuePrefetcher&) = delete;

  // If the value of entry `index` was read ahead (or is being read), waits
  // for it and returns true with the read's outcome in *value and *status,
  // and in *from_cache whether the file was in memory (read without
  // waiting for the device). A read not yet started is done here instead
  // of waiting behind other tasks. Reads ahead of entries the scan has
  // passed are dropped.
  bool Take(size_t index, int direction, std::string* value, Status* status,
            bool* from_cache);

  // The scan is at `index`, moving in `direction` (+1 or -1): start reads
  // of the KV files after it, up to the bounds.
  void Advance(size_t index, int direction);

  // Drop every read not yet started (a seek, a change of direction).
  void Clear();

 private:
  struct Slot;
  struct Shared;

  void Schedule(size_t index);

  const SstDir* const dir_;
  const ReadOptions options_;
  std::shared_ptr<Shared> shared_;
  // Reads in scan order; window_bytes_ is the sum of their sizes.
  std::deque<std::shared_ptr<Slot>> window_;
  uint64_t window_bytes_ = 0;
  int direction_ = 0;
  // The next entry to consider for reading ahead, in direction_.
  int64_t next_ = 0;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_VALUE_PREFETCHER_H_
