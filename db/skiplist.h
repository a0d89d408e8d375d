// SkipList<Key, Cmp>: an ordered set of Keys kept in an Arena.
//
// Concurrency contract:
//  - Insert() must be serialised by the caller (one writer at a time, under
//    an external lock).
//  - Readers (Contains() and Iterator) need no lock and may run while a
//    writer inserts; they see every key whose Insert() returned before the
//    read began, and possibly some that are being inserted.
//  - Nodes are never removed, and the Arena must outlive the list, so a
//    pointer to a node stays valid for as long as the list exists.
//
// Cmp is a copyable functor: int operator()(const Key& a, const Key& b)
// returning <0, 0, >0. Duplicate keys (Cmp == 0) must not be inserted.
#ifndef DELSM_DB_SKIPLIST_H_
#define DELSM_DB_SKIPLIST_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "util/arena.h"
#include "util/random.h"

namespace leveldb {

template <typename Key, class Cmp>
class SkipList {
 private:
  struct Node;

 public:
  // `arena` provides node memory and must outlive the list.
  SkipList(Cmp cmp, Arena* arena);
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  // REQUIRES: no key equal to `key` is in the list; external synchronisation
  // with other Insert() calls.
  void Insert(const Key& key);

  // For a list of `const char*` keys whose bytes the list's arena may hold:
  // returns room for a key of `bytes` bytes in the same allocation as the
  // node that will link it, so a search reads one place per node, not two.
  // The caller writes the key there, then passes it to InsertAllocated
  // before the next AllocateKey or Insert. Same requirements as Insert.
  char* AllocateKey(size_t bytes);
  void InsertAllocated(const char* key);

  bool Contains(const Key& key) const;

  // Walks the list in order. Safe to use concurrently with Insert().
  class Iterator {
   public:
    explicit Iterator(const SkipList* list) : list_(list), node_(nullptr) {}

    bool Valid() const { return node_ != nullptr; }
    // REQUIRES: Valid()
    const Key& key() const {
      assert(Valid());
      return node_->key;
    }
    // REQUIRES: Valid()
    void Next() {
      assert(Valid());
      node_ = node_->Next(0);
    }
    // REQUIRES: Valid(). Nodes have no back links, so this searches from the
    // head: O(log n).
    void Prev() {
      assert(Valid());
      node_ = list_->FindLast(node_->key);
      if (node_ == list_->head_) node_ = nullptr;
    }
    // Positions at the first key >= target.
    void Seek(const Key& target) {
      node_ = list_->FindGreaterOrEqual(target, nullptr);
    }
    void SeekToFirst() { node_ = list_->head_->Next(0); }
    void SeekToLast() {
      node_ = list_->FindLast();
      if (node_ == list_->head_) node_ = nullptr;
    }

   private:
    const SkipList* list_;
    Node* node_;
  };

 private:
  static constexpr int kMaxHeight = 12;
  // Each node reaches one level higher with probability 1/kBranching.
  static constexpr int kBranching = 4;

  int CurrentHeight() const { return height_.load(std::memory_order_relaxed); }
  Node* NewNode(const Key& key, int height);
  // Bytes of a node of `height` levels.
  static size_t NodeSize(int height) {
    return sizeof(Node) + sizeof(std::atomic<Node*>) * (height - 1);
  }
  // Sets up the node at `mem` for `key`, with `height` empty links.
  static Node* PlaceNode(char* mem, const Key& key, int height);
  // Links `x`, a node of `height` levels not yet in the list, at its key's
  // place.
  void Link(Node* x, int height);
  int PickHeight();
  bool Equal(const Key& a, const Key& b) const { return cmp_(a, b) == 0; }
  // True if `key` sorts after the key of `n` (nullptr counts as +infinity).
  bool KeyIsAfterNode(const Key& key, Node* n) const {
    return n != nullptr && cmp_(n->key, key) < 0;
  }
  // First node with key >= `key`, or nullptr. If `prev` is non-null, fills
  // prev[level] with the last node before that position at every level.
  Node* FindGreaterOrEqual(const Key& key, Node** prev) const;
  // Last node with key < `key`, or head_ if none.
  Node* FindLast(const Key& key) const;
  // Last node in the list, or head_ if empty.
  Node* FindLast() const;

  Cmp const cmp_;
  Arena* const arena_;
  Node* const head_;
  // Highest level in use. Written only by the writer; readers may see a
  // stale value, which is harmless (see Insert).
  std::atomic<int> height_;
  Random rnd_;  // Used only by the writer.
  // The node AllocateKey made and InsertAllocated links, and its height.
  // Used only by the writer; null between the two calls' pairs.
  Node* allocated_ = nullptr;
  int allocated_height_ = 0;
};

template <typename Key, class Cmp>
struct SkipList<Key, Cmp>::Node {
  explicit Node(const Key& k) : key(k) {}

  Key const key;

  // Release/acquire so that a reader who sees a node through a link also
  // sees the node's fully initialised contents.
  Node* Next(int level) { return links[level].load(std::memory_order_acquire); }
  void SetNext(int level, Node* n) {
    links[level].store(n, std::memory_order_release);
  }
  // Used only where no reader can yet observe this node.
  Node* RelaxedNext(int level) {
    return links[level].load(std::memory_order_relaxed);
  }
  void RelaxedSetNext(int level, Node* n) {
    links[level].store(n, std::memory_order_relaxed);
  }

  // Over-allocated: a node of height h has h entries here.
  std::atomic<Node*> links[1];
};

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::PlaceNode(char* mem,
                                                                 const Key& key,
                                                                 int height) {
  Node* n = new (mem) Node(key);
  for (int i = 1; i < height; i++) {
    new (&n->links[i]) std::atomic<Node*>(nullptr);
  }
  n->links[0].store(nullptr, std::memory_order_relaxed);
  return n;
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::NewNode(const Key& key,
                                                               int height) {
  return PlaceNode(arena_->AllocateAligned(NodeSize(height)), key, height);
}

template <typename Key, class Cmp>
int SkipList<Key, Cmp>::PickHeight() {
  int h = 1;
  while (h < kMaxHeight && rnd_.OneIn(kBranching)) h++;
  return h;
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::FindGreaterOrEqual(
    const Key& key, Node** prev) const {
  Node* x = head_;
  int level = CurrentHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (KeyIsAfterNode(key, next)) {
      x = next;
      continue;
    }
    if (prev != nullptr) prev[level] = x;
    if (level == 0) return next;
    level--;
  }
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::FindLast(
    const Key& key) const {
  Node* x = head_;
  int level = CurrentHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr && cmp_(next->key, key) < 0) {
      x = next;
      continue;
    }
    if (level == 0) return x;
    level--;
  }
}

template <typename Key, class Cmp>
typename SkipList<Key, Cmp>::Node* SkipList<Key, Cmp>::FindLast() const {
  Node* x = head_;
  int level = CurrentHeight() - 1;
  while (true) {
    Node* next = x->Next(level);
    if (next != nullptr) {
      x = next;
      continue;
    }
    if (level == 0) return x;
    level--;
  }
}

template <typename Key, class Cmp>
SkipList<Key, Cmp>::SkipList(Cmp cmp, Arena* arena)
    : cmp_(cmp),
      arena_(arena),
      head_(NewNode(Key(), kMaxHeight)),
      height_(1),
      rnd_(0xdeadbeef) {}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::Insert(const Key& key) {
  assert(allocated_ == nullptr);
  const int height = PickHeight();
  Link(NewNode(key, height), height);
}

template <typename Key, class Cmp>
char* SkipList<Key, Cmp>::AllocateKey(size_t bytes) {
  static_assert(std::is_same<Key, const char*>::value,
                "AllocateKey is for lists of const char* keys");
  assert(allocated_ == nullptr);
  const int height = PickHeight();
  char* mem = arena_->AllocateAligned(NodeSize(height) + bytes);
  char* key = mem + NodeSize(height);
  allocated_ = PlaceNode(mem, key, height);
  allocated_height_ = height;
  return key;
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::InsertAllocated(const char* key) {
  assert(allocated_ != nullptr && allocated_->key == key);
  (void)key;
  Node* x = allocated_;
  allocated_ = nullptr;
  Link(x, allocated_height_);
}

template <typename Key, class Cmp>
void SkipList<Key, Cmp>::Link(Node* x, int height) {
  Node* prev[kMaxHeight];
  Node* existing = FindGreaterOrEqual(x->key, prev);
  assert(existing == nullptr || !Equal(x->key, existing->key));
  (void)existing;

  const int old_height = CurrentHeight();
  if (height > old_height) {
    for (int i = old_height; i < height; i++) prev[i] = head_;
    // A reader that sees the new height before the new node is linked in
    // finds nullptr at head_'s upper levels and simply drops a level; one
    // that sees the old height never looks at the new levels. Either way it
    // stays correct, so relaxed order suffices.
    height_.store(height, std::memory_order_relaxed);
  }

  for (int i = 0; i < height; i++) {
    // Link bottom-up: the node is reachable at level 0 before any higher
    // level points at it, and its own links are set before it is published.
    x->RelaxedSetNext(i, prev[i]->RelaxedNext(i));
    prev[i]->SetNext(i, x);
  }
}

template <typename Key, class Cmp>
bool SkipList<Key, Cmp>::Contains(const Key& key) const {
  Node* n = FindGreaterOrEqual(key, nullptr);
  return n != nullptr && Equal(key, n->key);
}

}  // namespace leveldb

#endif  // DELSM_DB_SKIPLIST_H_
