// VectorIterator: an Iterator over an in-memory sorted vector of key/value
// pairs, with a fixed status(). A test helper for the iterator adapters.
#ifndef DELSM_TABLE_VECTOR_ITERATOR_H_
#define DELSM_TABLE_VECTOR_ITERATOR_H_

#include <cassert>
#include <string>
#include <utility>
#include <vector>

#include "leveldb/comparator.h"
#include "leveldb/iterator.h"

namespace leveldb {

class VectorIterator : public Iterator {
 public:
  // `entries` must be sorted by `cmp`, which must outlive the iterator.
  VectorIterator(const Comparator* cmp,
                 std::vector<std::pair<std::string, std::string>> entries,
                 Status status = Status::OK())
      : cmp_(cmp),
        entries_(std::move(entries)),
        pos_(entries_.size()),
        status_(status) {}

  bool Valid() const override { return pos_ < entries_.size(); }
  void SeekToFirst() override { pos_ = 0; }
  void SeekToLast() override {
    pos_ = entries_.empty() ? entries_.size() : entries_.size() - 1;
  }
  void Seek(const Slice& target) override {
    pos_ = 0;
    while (pos_ < entries_.size() &&
           cmp_->Compare(entries_[pos_].first, target) < 0) {
      pos_++;
    }
  }
  void Next() override {
    assert(Valid());
    pos_++;
  }
  void Prev() override {
    assert(Valid());
    pos_ = (pos_ == 0) ? entries_.size() : pos_ - 1;
  }
  Slice key() const override {
    assert(Valid());
    return entries_[pos_].first;
  }
  Slice value() const override {
    assert(Valid());
    return entries_[pos_].second;
  }
  Status status() const override { return status_; }

 private:
  const Comparator* const cmp_;
  const std::vector<std::pair<std::string, std::string>> entries_;
  size_t pos_;  // entries_.size() means not valid.
  const Status status_;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_VECTOR_ITERATOR_H_
