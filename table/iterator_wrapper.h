// IteratorWrapper: holds an Iterator and caches its Valid() and key(), which
// merging and two-level iteration consult far more often than they move the
// iterator, saving a virtual call each time.
//
// The wrapper owns the iterator it holds.
#ifndef DELSM_TABLE_ITERATOR_WRAPPER_H_
#define DELSM_TABLE_ITERATOR_WRAPPER_H_

#include <cassert>

#include "leveldb/iterator.h"
#include "leveldb/slice.h"

namespace leveldb {

class IteratorWrapper {
 public:
  IteratorWrapper() : iter_(nullptr), valid_(false) {}
  explicit IteratorWrapper(Iterator* iter) : iter_(nullptr) { Set(iter); }
  IteratorWrapper(const IteratorWrapper&) = delete;
  IteratorWrapper& operator=(const IteratorWrapper&) = delete;
  ~IteratorWrapper() { delete iter_; }

  Iterator* iter() const { return iter_; }

  // Deletes the current iterator and takes ownership of `iter` (may be
  // null).
  void Set(Iterator* iter) {
    delete iter_;
    iter_ = iter;
    if (iter_ == nullptr) {
      valid_ = false;
    } else {
      Update();
    }
  }

  bool Valid() const { return valid_; }
  Slice key() const {
    assert(Valid());
    return key_;
  }
  Slice value() const {
    assert(Valid());
    return iter_->value();
  }
  // REQUIRES: iter() != nullptr
  Status status() const {
    assert(iter_ != nullptr);
    return iter_->status();
  }

  // The movement methods REQUIRE iter() != nullptr.
  void Next() {
    assert(iter_ != nullptr);
    iter_->Next();
    Update();
  }
  void Prev() {
    assert(iter_ != nullptr);
    iter_->Prev();
    Update();
  }
  void Seek(const Slice& k) {
    assert(iter_ != nullptr);
    iter_->Seek(k);
    Update();
  }
  void SeekToFirst() {
    assert(iter_ != nullptr);
    iter_->SeekToFirst();
    Update();
  }
  void SeekToLast() {
    assert(iter_ != nullptr);
    iter_->SeekToLast();
    Update();
  }

 private:
  void Update() {
    valid_ = iter_->Valid();
    if (valid_) key_ = iter_->key();
  }

  Iterator* iter_;
  // Cached from iter_ after every movement.
  bool valid_;
  Slice key_;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_ITERATOR_WRAPPER_H_
