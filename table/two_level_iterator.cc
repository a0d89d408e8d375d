#include "table/two_level_iterator.h"

#include <cassert>
#include <string>

#include "table/iterator_wrapper.h"

namespace leveldb {

namespace {

class TwoLevelIterator : public Iterator {
 public:
  TwoLevelIterator(Iterator* index_iter, BlockFunction block_function,
                   void* arg, const ReadOptions& options)
      : block_function_(block_function),
        arg_(arg),
        options_(options),
        index_iter_(index_iter),
        index_status_(index_iter->status()),
        data_iter_(nullptr) {}
  ~TwoLevelIterator() override = default;

  bool Valid() const override { return data_iter_.Valid(); }
  Slice key() const override {
    assert(Valid());
    return data_iter_.key();
  }
  Slice value() const override {
    assert(Valid());
    return data_iter_.value();
  }

  void Seek(const Slice& target) override {
    index_iter_.Seek(target);
    IndexMoved();
    if (data_iter_.iter() != nullptr) data_iter_.Seek(target);
    SkipEmptyForward();
  }

  void SeekToFirst() override {
    index_iter_.SeekToFirst();
    IndexMoved();
    if (data_iter_.iter() != nullptr) data_iter_.SeekToFirst();
    SkipEmptyForward();
  }

  void SeekToLast() override {
    index_iter_.SeekToLast();
    IndexMoved();
    if (data_iter_.iter() != nullptr) data_iter_.SeekToLast();
    SkipEmptyBackward();
  }

  void Next() override {
    assert(Valid());
    data_iter_.Next();
    SkipEmptyForward();
  }

  void Prev() override {
    assert(Valid());
    data_iter_.Prev();
    SkipEmptyBackward();
  }

  // The index's status as read when it last moved, else the current nested
  // iterator's, else the first of those left behind: a scan asks twice an
  // entry (MergingIterator after each move, DBIter after each value), and
  // the index is asked only once a nested sequence.
  Status status() const override {
    if (!index_status_.ok()) return index_status_;
    if (data_iter_.iter() != nullptr) {
      Status s = data_iter_.status();
      if (!s.ok()) return s;
    }
    return saved_status_;
  }

 private:
  // Remembers the first error of a nested iterator about to be discarded.
  void SaveError(const Status& s) {
    if (saved_status_.ok() && !s.ok()) saved_status_ = s;
  }

  void SetDataIterator(Iterator* iter) {
    if (data_iter_.iter() != nullptr) SaveError(data_iter_.status());
    data_iter_.Set(iter);
  }

  // After every move of the index: opens its entry's nested iterator and
  // notes the index's status (only a move or the read of its value, both
  // made here, can change it).
  void IndexMoved() {
    OpenDataIterator();
    index_status_ = index_iter_.status();
  }

  // Makes data_iter_ the nested iterator of the current index entry (or
  // null when the index is not valid), reusing the open one if the index
  // value is unchanged.
  void OpenDataIterator() {
    if (!index_iter_.Valid()) {
      SetDataIterator(nullptr);
      return;
    }
    const Slice handle = index_iter_.value();
    if (data_iter_.iter() != nullptr && handle == data_handle_) return;
    Iterator* iter = (*block_function_)(arg_, options_, handle);
    data_handle_.assign(handle.data(), handle.size());
    SetDataIterator(iter);
  }

  // Moves forward past exhausted or empty nested sequences.
  void SkipEmptyForward() {
    while (data_iter_.iter() == nullptr || !data_iter_.Valid()) {
      if (!index_iter_.Valid()) {
        SetDataIterator(nullptr);
        return;
      }
      index_iter_.Next();
      IndexMoved();
      if (data_iter_.iter() != nullptr) data_iter_.SeekToFirst();
    }
  }

  void SkipEmptyBackward() {
    while (data_iter_.iter() == nullptr || !data_iter_.Valid()) {
      if (!index_iter_.Valid()) {
        SetDataIterator(nullptr);
        return;
      }
      index_iter_.Prev();
      IndexMoved();
      if (data_iter_.iter() != nullptr) data_iter_.SeekToLast();
    }
  }

  const BlockFunction block_function_;
  void* const arg_;
  const ReadOptions options_;
  Status saved_status_;  // First error of a discarded nested iterator.
  IteratorWrapper index_iter_;
  // index_iter_'s status after its last move (IndexMoved).
  Status index_status_;
  IteratorWrapper data_iter_;  // May hold null.
  // Index value data_iter_ was opened from, when data_iter_ is non-null.
  std::string data_handle_;
};

}  // namespace

Iterator* NewTwoLevelIterator(Iterator* index_iter,
                              BlockFunction block_function, void* arg,
                              const ReadOptions& options) {
  return new TwoLevelIterator(index_iter, block_function, arg, options);
}

}  // namespace leveldb
