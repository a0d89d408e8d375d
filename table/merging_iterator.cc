#include "table/merging_iterator.h"

#include <cassert>
#include <vector>

#include "leveldb/comparator.h"
#include "leveldb/iterator.h"
#include "table/iterator_wrapper.h"

namespace leveldb {

namespace {

// Positions every child and keeps the valid ones in a binary heap ordered
// for the direction of travel: forward, smallest key first (ties: lower
// child index first); backward, largest key first (ties: higher child index
// first). The top of the heap is the current entry. A DB merges its
// memtables, every L0 directory (up to l0_stop_dirs of them) and one
// iterator per deeper level, so a step costs O(log n) comparisons instead
// of the n a linear scan over the children would.
class MergingIterator : public Iterator {
 public:
  MergingIterator(const Comparator* comparator, Iterator** children, int n)
      : comparator_(comparator), children_(n), direction_(kForward) {
    for (int i = 0; i < n; i++) children_[i].Set(children[i]);
    heap_.reserve(n);
  }
  ~MergingIterator() override = default;

  bool Valid() const override { return !heap_.empty(); }

  void SeekToFirst() override {
    for (IteratorWrapper& child : children_) child.SeekToFirst();
    Rebuild(kForward);
  }

  void SeekToLast() override {
    for (IteratorWrapper& child : children_) child.SeekToLast();
    Rebuild(kReverse);
  }

  void Seek(const Slice& target) override {
    for (IteratorWrapper& child : children_) child.Seek(target);
    Rebuild(kForward);
  }

  void Next() override {
    assert(Valid());
    if (direction_ != kForward) {
      // The other children sit before the current entry; move each to the
      // first entry after it. Forward order among equal keys is by child
      // index, so a child before the current one skips an entry equal to
      // key() and a child after it keeps one.
      IteratorWrapper* current = heap_[0];
      const Slice k = current->key();  // current does not move here
      for (IteratorWrapper& child : children_) {
        if (&child == current) continue;
        child.Seek(k);
        if (&child < current && child.Valid() &&
            comparator_->Compare(k, child.key()) == 0) {
          child.Next();
        }
      }
      Rebuild(kForward);  // current is still the smallest
    }
    heap_[0]->Next();
    NoteError(*heap_[0]);
    ReplaceTop();
  }

  void Prev() override {
    assert(Valid());
    if (direction_ != kReverse) {
      // The other children sit after the current entry; move each to the
      // last entry before it (by the same tie rule as in Next()).
      IteratorWrapper* current = heap_[0];
      const Slice k = current->key();  // current does not move here
      for (IteratorWrapper& child : children_) {
        if (&child == current) continue;
        child.Seek(k);
        if (!child.Valid()) {
          child.SeekToLast();  // Every entry of this child is < k.
        } else if (&child > current ||
                   comparator_->Compare(k, child.key()) != 0) {
          child.Prev();  // Step back from the first entry >= k.
        }
      }
      Rebuild(kReverse);  // current is still the largest
    }
    heap_[0]->Prev();
    NoteError(*heap_[0]);
    ReplaceTop();
  }

  Slice key() const override {
    assert(Valid());
    return heap_[0]->key();
  }

  Slice value() const override {
    assert(Valid());
    return heap_[0]->value();
  }

  // A child's status changes only when it moves (noted then) or when the
  // current child reads its value; so the first error noted, else the
  // current child's, is the first error of any child, at O(1) per call
  // (DBIter asks after every value it reads).
  Status status() const override {
    if (!error_.ok()) return error_;
    if (!heap_.empty()) return heap_[0]->status();
    return Status::OK();
  }

 private:
  enum Direction { kForward, kReverse };

  // True if child a's entry comes before child b's in direction_.
  bool Before(const IteratorWrapper* a, const IteratorWrapper* b) const {
    const int c = comparator_->Compare(a->key(), b->key());
    if (direction_ == kForward) return c < 0 || (c == 0 && a < b);
    return c > 0 || (c == 0 && a > b);
  }

  void NoteError(const IteratorWrapper& child) {
    if (error_.ok()) {
      Status s = child.status();
      if (!s.ok()) error_ = s;
    }
  }

  // Every child was repositioned: note their errors (afresh) and heap the
  // valid ones for `direction`.
  void Rebuild(Direction direction) {
    direction_ = direction;
    error_ = Status::OK();
    heap_.clear();
    for (IteratorWrapper& child : children_) {
      NoteError(child);
      if (child.Valid()) heap_.push_back(&child);
    }
    for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
  }

  // The top child moved: drop it if it ran out, and restore the heap.
  void ReplaceTop() {
    if (!heap_[0]->Valid()) {
      heap_[0] = heap_.back();
      heap_.pop_back();
      if (heap_.empty()) return;
    }
    SiftDown(0);
  }

  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    IteratorWrapper* const moving = heap_[i];
    for (;;) {
      size_t first = 2 * i + 1;
      if (first >= n) break;
      if (first + 1 < n && Before(heap_[first + 1], heap_[first])) first++;
      if (!Before(heap_[first], moving)) break;
      heap_[i] = heap_[first];
      i = first;
    }
    heap_[i] = moving;
  }

  const Comparator* const comparator_;
  std::vector<IteratorWrapper> children_;
  // The valid children, a heap by Before(); heap_[0] holds the current
  // entry. Rebuilt on every seek and change of direction.
  std::vector<IteratorWrapper*> heap_;
  Direction direction_;
  // The first error a child showed since the last seek or change of
  // direction (see status()).
  Status error_;
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
