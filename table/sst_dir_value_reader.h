// SstDir::ValueReader: how SstDir's iterators read the value of the entry
// they are positioned on, shared by the index iterator
// (sst_dir_iterator.cc) and the group iterator (sst_dir_group_iterator.cc).
// Contract:
//  - a value is read on the first Value() at a position (Moved() and
//    Repositioned() say the position changed) and kept until it changes;
//  - an inline value of a mapped meta file is read in memory, whatever the
//    access pattern, without a copy when stored uncompressed;
//  - otherwise, once values were read at two successive positions in one
//    direction, the reads are a scan: inline values are read in pieces of
//    read_ahead_bytes (the value section holds them in key order), KV files
//    through a ValuePrefetcher when the SST's whole index is loaded, and the
//    value cache is neither looked up nor filled (a lookup and an insert
//    per entry cost most of a small-value scan and evict what point reads
//    cached); outside a scan a value is looked up and, with fill_cache,
//    cached;
//  - a seek (Repositioned()) ends any scan in progress.
// Not thread-safe: one per iterator.
#ifndef DELSM_TABLE_SST_DIR_VALUE_READER_H_
#define DELSM_TABLE_SST_DIR_VALUE_READER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "leveldb/options.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"
#include "table/value_prefetcher.h"

namespace leveldb {

class SstDir::ValueReader {
 public:
  // `entries`: the SST's entry count (entries are numbered 0 .. entries-1).
  // With `whole_index`, KV files of a scan are read ahead by a
  // ValuePrefetcher (which needs the SST's index loaded).
  ValueReader(const SstDir* dir, const ReadOptions& options, size_t entries,
              bool whole_index)
      : dir_(dir),
        options_(options),
        entries_(entries),
        whole_index_(whole_index),
        last_loaded_(entries) {}
  ValueReader(const ValueReader&) = delete;
  ValueReader& operator=(const ValueReader&) = delete;

  // The iterator moved to another entry.
  void Moved() { loaded_ = false; }
  // The iterator was repositioned by a seek: also ends any scan.
  void Repositioned() {
    loaded_ = false;
    last_loaded_ = entries_;
    direction_ = 0;
    run_ = 0;
    if (prefetcher_ != nullptr) prefetcher_->Clear();
  }

  // The value of entry `e`, numbered `number`: read now unless already read
  // at this position; valid until the position changes. On failure, an
  // empty Slice and *status set (the caller's iterator is then invalid).
  Slice Value(size_t number, const MetaIndexEntry& e, Status* status) {
    if (!loaded_) {
      Status s = Load(number, e);
      if (!s.ok()) {
        *status = s;
        value_.clear();
        value_slice_ = Slice();
        return Slice();
      }
      loaded_ = true;
    }
    return value_slice_;
  }

 private:
  Status Load(size_t number, const MetaIndexEntry& e);
  Status LoadFromFile(size_t number, const MetaIndexEntry& e);

  const SstDir* const dir_;
  const ReadOptions options_;
  const size_t entries_;
  const bool whole_index_;
  // The value at the current position, once read: value_, or the stored
  // bytes of an uncompressed inline value in a mapped meta file (valid while
  // dir_ lives).
  std::string value_;
  Slice value_slice_;
  bool loaded_ = false;
  // Scan detection: the number of the last entry whose value was read from
  // a file (entries_: none), the direction from the one before, and how
  // many reads in a row went that way.
  size_t last_loaded_;
  int direction_ = 0;
  int run_ = 0;
  // A piece of the meta file's value section, at inline_buffer_offset_.
  std::string inline_buffer_;
  uint64_t inline_buffer_offset_ = 0;
  // Created at a scan's first read of a KV file; destroyed (stopping its
  // reads) with the iterator, before the SstDir it reads is released.
  std::unique_ptr<ValuePrefetcher> prefetcher_;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_VALUE_READER_H_
