// SstDir's iterator through the whole index (an SST without a KV file may
// be iterated through its groups instead: sst_dir_group_iterator.cc):
// positions are indices into the meta-file index; a
// value is read on the first value() call at a position. An inline value
// of a mapped meta file is read in memory. Otherwise, once value() has
// been asked at two successive positions in one direction, the iterator
// treats the access as a scan: it reads the meta file's value section in
// pieces of up to read_ahead_bytes (inline values lie in key order there),
// and reads its KV files through the ValuePrefetcher, which reads the next
// ones in parallel.
#include <cassert>
#include <memory>

#include "table/sst_dir.h"
#include "table/value_prefetcher.h"

namespace leveldb {

namespace {

class SstDirIterator final : public Iterator {
 public:
  SstDirIterator(const SstDir* dir, const ReadOptions& options)
      : dir_(dir),
        options_(options),
        n_(dir->index().entries.size()),
        index_(n_) {}

  bool Valid() const override { return index_ < n_ && status_.ok(); }
  void SeekToFirst() override { Reposition(0); }
  void SeekToLast() override { Reposition(n_ == 0 ? 0 : n_ - 1); }
  void Seek(const Slice& target) override {
    Reposition(dir_->LowerBound(target));
  }
  void Next() override {
    assert(Valid());
    MoveTo(index_ + 1);
  }
  void Prev() override {
    assert(Valid());
    MoveTo(index_ == 0 ? n_ : index_ - 1);
  }
  Slice key() const override {
    assert(Valid());
    return dir_->index().entries[index_].internal_key;
  }
  Slice value() const override {
    assert(Valid());
    if (!value_loaded_) {
      Status s = Load();
      if (!s.ok()) {
        // The contract: a failed read invalidates the iterator.
        status_ = s;
        value_.clear();
        value_slice_ = Slice();
        return Slice();
      }
      value_loaded_ = true;
    }
    return value_slice_;
  }
  Status status() const override { return status_; }

 private:
  void MoveTo(size_t index) {
    index_ = index < n_ ? index : n_;
    value_loaded_ = false;
  }
  // A seek ends any scan in progress.
  void Reposition(size_t index) {
    MoveTo(index);
    last_loaded_ = n_;
    direction_ = 0;
    run_ = 0;
    if (prefetcher_ != nullptr) prefetcher_->Clear();
  }

  // Reads the value at index_ into value_slice_.
  Status Load() const {
    const MetaIndexEntry& e = dir_->index().entries[index_];
    value_slice_ = Slice();
    if (e.storage == ValueStorage::kNone) return Status::OK();
    if (dir_->InlineInMemory(e.storage)) {
      // Read in memory, whatever the access pattern: no scan detection, no
      // buffer, no value cache. An uncompressed value is not even copied.
      Slice stored;
      Status s = dir_->ReadInlineStored(index_, 0, 0, &inline_buffer_,
                                        &inline_buffer_offset_, &stored);
      if (!s.ok()) return s;
      if (!StoredCompressed(e.storage) && stored.size() == e.value_size) {
        value_slice_ = stored;
        return Status::OK();
      }
      s = dir_->DecodeInlineValue(index_, stored, &value_);
      if (s.ok()) value_slice_ = value_;
      return s;
    }
    Status s = LoadFromFile(e);
    if (s.ok()) value_slice_ = value_;
    return s;
  }

  // Load() of a value read by system calls, noting whether the reads form
  // a scan.
  Status LoadFromFile(const MetaIndexEntry& e) const {
    const int direction =
        last_loaded_ == n_ ? 0 : (index_ > last_loaded_ ? 1 : -1);
    if (direction != 0 && (direction_ == 0 || direction == direction_)) {
      run_++;
    } else {
      run_ = 1;
    }
    direction_ = direction;
    last_loaded_ = index_;
    const bool scan = run_ >= 2;

    // A scan leaves the value cache alone: it takes inline values from its
    // sequential buffer of the meta file and KV files from the file system
    // (or the read-ahead). A lookup and an insert per entry (locks,
    // hashing, a copy of the value, an eviction) cost most of a 256-byte
    // readseq's time and a tenth of a 4 KiB one's, and would only evict
    // what point reads cached.
    if (!scan && dir_->LookupCachedValue(index_, &value_)) {
      return Status::OK();
    }
    Status s;
    bool read = false;
    if (StoredInline(e.storage)) {
      const size_t ahead = scan ? dir_->options().read_ahead_bytes : 0;
      Slice stored;
      s = dir_->ReadInlineStored(index_, direction_, ahead, &inline_buffer_,
                                 &inline_buffer_offset_, &stored);
      if (s.ok()) s = dir_->DecodeInlineValue(index_, stored, &value_);
      read = true;
    } else if (scan && dir_->options().read_ahead_pool != nullptr &&
               dir_->options().read_ahead_files > 0) {
      if (prefetcher_ == nullptr) {
        prefetcher_.reset(new ValuePrefetcher(dir_, options_));
      }
      s = prefetcher_->Read(index_, direction_, &value_);
      read = true;
    }
    if (!read) s = dir_->ReadValueUncached(options_, index_, &value_);
    if (s.ok() && options_.fill_cache && !scan) {
      dir_->CacheValue(index_, value_);
    }
    return s;
  }

  const SstDir* const dir_;
  const ReadOptions options_;
  const size_t n_;
  size_t index_;  // n_ when not positioned
  // Lazily loaded value of entries[index_]; mutable because value() is const.
  mutable std::string value_;
  // What value() returns: value_, or the stored bytes of an uncompressed
  // inline value in a mapped meta file (valid while dir_ lives).
  mutable Slice value_slice_;
  mutable bool value_loaded_ = false;
  mutable Status status_;
  // Scan detection: the last position whose value was read (n_: none), the
  // direction from the one before, and how many reads in a row went that way.
  mutable size_t last_loaded_ = n_;
  mutable int direction_ = 0;
  mutable int run_ = 0;
  // A piece of the meta file's value section, at inline_buffer_offset_.
  mutable std::string inline_buffer_;
  mutable uint64_t inline_buffer_offset_ = 0;
  // Created at a scan's first read of a KV file; destroyed (stopping its
  // reads) with the iterator, before the SstDir it reads is released.
  mutable std::unique_ptr<ValuePrefetcher> prefetcher_;
};

}  // namespace

Iterator* SstDir::NewIterator(const ReadOptions& options) const {
  // Without a KV file there is nothing to read ahead but the value section,
  // which the group iterator reads the same way: the whole index is not
  // decoded for it, unless the SST serves seeks. (Formats 1 to 3 are loaded
  // by Open.)
  if (!index_loaded_.load(std::memory_order_acquire) &&
      trailer_.kv_entries == 0 &&
      group_seeks_.load(std::memory_order_relaxed) < kIndexAfterGroupSeeks) {
    return NewGroupIterator(options);
  }
  Status s = LoadIndex();
  if (!s.ok()) return NewErrorIterator(s);
  return new SstDirIterator(this, options);
}

}  // namespace leveldb
