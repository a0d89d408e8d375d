// SstDir's iterator through the whole index (an SST without a KV file may
// be iterated through its groups instead: sst_dir_group_iterator.cc):
// positions are indices into the meta-file index; values are read as
// SstDir::ValueReader reads them (sst_dir_value_reader.h), KV files of a
// scan through its ValuePrefetcher.
#include <cassert>
#include <memory>

#include "table/sst_dir.h"
#include "table/sst_dir_value_reader.h"

namespace leveldb {

namespace {

class SstDirIterator final : public Iterator {
 public:
  SstDirIterator(const SstDir* dir, const ReadOptions& options)
      : dir_(dir),
        n_(dir->index().entries.size()),
        index_(n_),
        reader_(dir, options, n_, /*whole_index=*/true) {}

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
    // A failed read invalidates the iterator (the Iterator contract).
    return reader_.Value(index_, dir_->index().entries[index_], &status_);
  }
  Status status() const override { return status_; }

 private:
  void MoveTo(size_t index) {
    index_ = index < n_ ? index : n_;
    reader_.Moved();
  }
  void Reposition(size_t index) {
    MoveTo(index);
    reader_.Repositioned();
  }

  const SstDir* const dir_;
  const size_t n_;
  size_t index_;  // n_ when not positioned
  // value() is const; reading a value changes only what is read.
  mutable SstDir::ValueReader reader_;
  mutable Status status_;
};

}  // namespace

Iterator* SstDir::NewIterator(const ReadOptions& options) const {
  // Without a KV file there is nothing to read ahead but the value section,
  // which the group iterator reads the same way: the whole index is not
  // decoded for it, unless the SST serves seeks. (Formats 1 to 3 are loaded
  // by Open.)
  if (!index_loaded_.load(std::memory_order_acquire) &&
      trailer_.kv_entries == 0 &&
      group_seeks_.load(std::memory_order_relaxed) < index_after_group_seeks_) {
    return NewGroupIterator(options);
  }
  Status s = LoadIndex();
  if (!s.ok()) return NewErrorIterator(s);
  return new SstDirIterator(this, options);
}

}  // namespace leveldb
