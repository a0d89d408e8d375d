#include "table/merging_iterator.h"

#include <cassert>
#include <vector>

#include "leveldb/comparator.h"
#include "leveldb/iterator.h"
#include "table/iterator_wrapper.h"

namespace leveldb {

namespace {

// Positions every child and picks the smallest (forward) or largest
// (reverse) child key as the current entry. With the small number of
// children a DB has (memtables, L0 directories, one per level), a linear
// scan beats a heap.
class MergingIterator : public Iterator {
 public:
  MergingIterator(const Comparator* comparator, Iterator** children, int n)
      : comparator_(comparator),
        children_(n),
        current_(nullptr),
        direction_(kForward) {
    for (int i = 0; i < n; i++) children_[i].Set(children[i]);
  }
  ~MergingIterator() override = default;

  bool Valid() const override { return current_ != nullptr; }

  void SeekToFirst() override {
    for (IteratorWrapper& child : children_) child.SeekToFirst();
    FindSmallest();
    direction_ = kForward;
  }

  void SeekToLast() override {
    for (IteratorWrapper& child : children_) child.SeekToLast();
    FindLargest();
    direction_ = kReverse;
  }

  void Seek(const Slice& target) override {
    for (IteratorWrapper& child : children_) child.Seek(target);
    FindSmallest();
    direction_ = kForward;
  }

  void Next() override {
    assert(Valid());
    if (direction_ != kForward) {
      // The other children sit before the current entry; move each to the
      // first entry after it. Forward order among equal keys is by child
      // index, so a child before current_ skips an entry equal to key()
      // and a child after it keeps one.
      const Slice k = key();
      for (size_t i = 0; i < children_.size(); i++) {
        IteratorWrapper& child = children_[i];
        if (&child == current_) continue;
        child.Seek(k);
        if (&child < current_ && child.Valid() &&
            comparator_->Compare(k, child.key()) == 0) {
          child.Next();
        }
      }
      direction_ = kForward;
    }
    current_->Next();
    FindSmallest();
  }

  void Prev() override {
    assert(Valid());
    if (direction_ != kReverse) {
      // The other children sit after the current entry; move each to the
      // last entry before it (by the same tie rule as in Next()).
      const Slice k = key();
      for (size_t i = 0; i < children_.size(); i++) {
        IteratorWrapper& child = children_[i];
        if (&child == current_) continue;
        child.Seek(k);
        if (!child.Valid()) {
          child.SeekToLast();  // Every entry of this child is < k.
        } else if (&child > current_ ||
                   comparator_->Compare(k, child.key()) != 0) {
          child.Prev();  // Step back from the first entry >= k.
        }
      }
      direction_ = kReverse;
    }
    current_->Prev();
    FindLargest();
  }

  Slice key() const override {
    assert(Valid());
    return current_->key();
  }

  Slice value() const override {
    assert(Valid());
    return current_->value();
  }

  Status status() const override {
    for (const IteratorWrapper& child : children_) {
      Status s = child.status();
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

 private:
  enum Direction { kForward, kReverse };

  void FindSmallest() {
    IteratorWrapper* smallest = nullptr;
    for (IteratorWrapper& child : children_) {
      if (child.Valid() &&
          (smallest == nullptr ||
           comparator_->Compare(child.key(), smallest->key()) < 0)) {
        smallest = &child;
      }
    }
    current_ = smallest;
  }

  void FindLargest() {
    IteratorWrapper* largest = nullptr;
    // Scan backwards so that among equal keys the last child wins, the
    // mirror image of FindSmallest's choice.
    for (auto it = children_.rbegin(); it != children_.rend(); ++it) {
      if (it->Valid() &&
          (largest == nullptr ||
           comparator_->Compare(it->key(), largest->key()) > 0)) {
        largest = &*it;
      }
    }
    current_ = largest;
  }

  const Comparator* const comparator_;
  std::vector<IteratorWrapper> children_;
  IteratorWrapper* current_;  // Child holding the current entry, or null.
  Direction direction_;
};

}  // namespace

Iterator* NewMergingIterator(const Comparator* comparator, Iterator** children,
                             int n) {
  assert(n >= 0);
  if (n == 0) return NewEmptyIterator();
  if (n == 1) return children[0];
  return new MergingIterator(comparator, children, n);
}

}  // namespace leveldb
