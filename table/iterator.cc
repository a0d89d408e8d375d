// Iterator base class members and the trivial iterators of
// leveldb/iterator.h.
#include "leveldb/iterator.h"

#include <cassert>

namespace leveldb {

Iterator::Iterator() {
  cleanup_head_.function = nullptr;
  cleanup_head_.arg1 = nullptr;
  cleanup_head_.arg2 = nullptr;
  cleanup_head_.next = nullptr;
}

Iterator::~Iterator() {
  if (cleanup_head_.IsEmpty()) return;
  cleanup_head_.Run();
  CleanupNode* node = cleanup_head_.next;
  while (node != nullptr) {
    node->Run();
    CleanupNode* next = node->next;
    delete node;
    node = next;
  }
}

void Iterator::RegisterCleanup(CleanupFunction func, void* arg1, void* arg2) {
  assert(func != nullptr);
  CleanupNode* node;
  if (cleanup_head_.IsEmpty()) {
    node = &cleanup_head_;
  } else {
    // The head is inline; later registrations go into heap nodes linked
    // right after it.
    node = new CleanupNode();
    node->next = cleanup_head_.next;
    cleanup_head_.next = node;
  }
  node->function = func;
  node->arg1 = arg1;
  node->arg2 = arg2;
}

namespace {

// Never valid; reports a fixed status.
class EmptyIterator : public Iterator {
 public:
  explicit EmptyIterator(const Status& s) : status_(s) {}
  ~EmptyIterator() override = default;

  bool Valid() const override { return false; }
  void Seek(const Slice&) override {}
  void SeekToFirst() override {}
  void SeekToLast() override {}
  void Next() override { assert(false); }
  void Prev() override { assert(false); }
  Slice key() const override {
    assert(false);
    return Slice();
  }
  Slice value() const override {
    assert(false);
    return Slice();
  }
  Status status() const override { return status_; }

 private:
  const Status status_;
};

}  // namespace

Iterator* NewEmptyIterator() { return new EmptyIterator(Status::OK()); }

Iterator* NewErrorIterator(const Status& status) {
  return new EmptyIterator(status);
}

}  // namespace leveldb
