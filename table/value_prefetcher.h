// Reads the KV files of the entries ahead of a scan's cursor in parallel
// with the scan, so that a scan finds most values already read. The
// entries ahead (at most read_ahead_files files and, give or take the file
// that crosses it, read_ahead_bytes bytes past the cursor) form a window;
// each is claimed, in scan order, by whichever thread comes first: helper
// tasks on the read-ahead pool, or the scan itself when the value it needs
// is not claimed yet, or while it would otherwise wait for a helper. So
// every value is read once, no thread waits while there is a file to read,
// and a helper is woken once per batch of files rather than once per file.
// While the scan's files are in memory one helper reads beside the scan
// (open+read+close on both cores); once a read waits for the device, up to
// every pool thread does, until kReadsFromMemoryToStopReadAhead reads in a
// row found their file in memory.
//
// Reads not started when the prefetcher is cleared or destroyed are
// dropped; destruction waits for the reads already running (so none
// outlives the SstDir it reads). Used by one iterator at a time (not
// thread-safe itself).
#ifndef DELSM_TABLE_VALUE_PREFETCHER_H_
#define DELSM_TABLE_VALUE_PREFETCHER_H_

#include <cstddef>
#include <cstdint>
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

  // The value of entry `index` (which has a KV file) for a scan moving in
  // `direction` (+1 or -1): taken from the window if it was read ahead
  // (waiting for a read under way), read here otherwise; either way with
  // the read's own status (a failed read is never a value). Then the
  // window moves past `index` and helpers start as needed. Entries of the
  // window the scan went past (shadowed versions) are dropped.
  Status Read(size_t index, int direction, std::string* value);

  // Drop every read not yet started (a seek, a change of direction).
  void Clear();

 private:
  struct Shared;

  // Adds entries past `index` to the window and starts helpers.
  void Advance(size_t index, int direction);
  // A helper task: reads the window's unclaimed positions in order until
  // none is left, then ends.
  static void RunHelper(const std::shared_ptr<Shared>& sh);

  const SstDir* const dir_;
  const ReadOptions options_;
  std::shared_ptr<Shared> shared_;
  int direction_ = 0;
  // The next entry to consider for the window, in direction_.
  int64_t next_ = 0;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_VALUE_PREFETCHER_H_
