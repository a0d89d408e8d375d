// NewLRUCache: a Cache split into independently locked shards (chosen by
// key hash) so concurrent readers rarely contend. Each shard evicts the
// least recently released entry that no client holds a handle to, once
// the shard's charge exceeds its share of the capacity.
#include "leveldb/cache.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "port/port.h"
#include "port/thread_annotations.h"
#include "util/hash.h"
#include "util/mutexlock.h"

namespace leveldb {

Cache::~Cache() = default;

namespace {

// One cached mapping. Handles given to clients point at an Entry.
//
// refs counts the cache's own reference (while in_cache) plus one per
// outstanding client handle. An Entry is on exactly one of its shard's
// lists while in_cache: `idle` when refs == 1 (only the cache holds it;
// evictable), `busy` otherwise. All fields but the immutable ones are
// guarded by the shard's mutex.
struct Entry : public Cache::Handle {
  std::string key;
  uint32_t hash;     // Hash(key), which picked the shard; immutable.
  Entry* next_hash;  // The next entry of its index bucket (while indexed).
  void* value;
  void (*deleter)(const Slice& key, void* value);
  size_t charge;
  uint32_t refs;
  bool in_cache;
  Entry* prev;
  Entry* next;
};

// Circular doubly-linked list with a sentinel head; oldest first.
class EntryList {
 public:
  EntryList() { head_.prev = head_.next = &head_; }
  bool empty() const { return head_.next == &head_; }
  Entry* oldest() { return head_.next; }
  Entry* end() { return &head_; }

  void PushNewest(Entry* e) {
    e->next = &head_;
    e->prev = head_.prev;
    e->prev->next = e;
    e->next->prev = e;
  }
  static void Unlink(Entry* e) {
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->prev = e->next = nullptr;
  }

 private:
  Entry head_;
};

// The index of a shard: a chained hash table threaded through the entries
// (Entry::next_hash) and keyed by their stored hash, so an operation hashes
// its key once (the hash that also picked the shard) and an insert
// allocates nothing. Not thread-safe: the shard's mutex guards it.
class EntryIndex {
 public:
  EntryIndex() : buckets_(16, nullptr), count_(0) {}

  Entry* Find(const Slice& key, uint32_t hash) { return *Slot(key, hash); }
  // Indexes e; returns the entry it replaces (no longer indexed), or null.
  Entry* Put(Entry* e) {
    Entry** slot = Slot(Slice(e->key), e->hash);
    Entry* old = *slot;
    e->next_hash = old == nullptr ? nullptr : old->next_hash;
    *slot = e;
    if (old == nullptr && ++count_ > buckets_.size()) Grow();
    return old;
  }
  // Unindexes the entry with this key; returns it, or null if absent.
  Entry* Remove(const Slice& key, uint32_t hash) {
    Entry** slot = Slot(key, hash);
    Entry* e = *slot;
    if (e != nullptr) {
      *slot = e->next_hash;
      count_--;
    }
    return e;
  }
  void Clear() {
    std::fill(buckets_.begin(), buckets_.end(), nullptr);
    count_ = 0;
  }

 private:
  // The link that points at the entry with this key, or the null link at
  // the end of its bucket.
  Entry** Slot(const Slice& key, uint32_t hash) {
    Entry** slot = &buckets_[hash & (buckets_.size() - 1)];
    while (*slot != nullptr &&
           ((*slot)->hash != hash || Slice((*slot)->key) != key)) {
      slot = &(*slot)->next_hash;
    }
    return slot;
  }
  void Grow() {
    std::vector<Entry*> bigger(buckets_.size() * 2, nullptr);
    for (Entry* head : buckets_) {
      while (head != nullptr) {
        Entry* next = head->next_hash;
        Entry** bucket = &bigger[head->hash & (bigger.size() - 1)];
        head->next_hash = *bucket;
        *bucket = head;
        head = next;
      }
    }
    buckets_.swap(bigger);
  }

  std::vector<Entry*> buckets_;  // a power of two of them
  size_t count_;                 // entries indexed
};

class LRUShard {
 public:
  LRUShard() : capacity_(0), usage_(0) {}
  LRUShard(const LRUShard&) = delete;
  LRUShard& operator=(const LRUShard&) = delete;

  ~LRUShard() {
    MutexLock guard(&mu_);
    while (!idle_.empty()) {
      Entry* e = idle_.oldest();
      EntryList::Unlink(e);
      e->in_cache = false;
      Unref(e);
    }
    // Entries still held by clients (a client bug, but not worth a crash)
    // lose the cache's reference and die when their last handle goes.
    while (!busy_.empty()) {
      Entry* e = busy_.oldest();
      EntryList::Unlink(e);
      e->in_cache = false;
      Unref(e);
    }
    index_.Clear();
  }

  void SetCapacity(size_t capacity) { capacity_ = capacity; }

  Cache::Handle* Insert(const Slice& key, uint32_t hash, void* value,
                        size_t charge,
                        void (*deleter)(const Slice& key, void* value)) {
    Entry* e = new Entry;
    e->key.assign(key.data(), key.size());
    e->hash = hash;
    e->next_hash = nullptr;
    e->value = value;
    e->deleter = deleter;
    e->charge = charge;
    e->refs = 1;  // The handle returned to the caller.
    e->in_cache = false;
    e->prev = e->next = nullptr;

    MutexLock guard(&mu_);
    // A zero-capacity cache caches nothing; the caller's handle still
    // works and the entry is deleted on Release.
    if (capacity_ > 0) {
      e->refs++;
      e->in_cache = true;
      busy_.PushNewest(e);
      usage_ += charge;
      Entry* old = index_.Put(e);
      if (old != nullptr) Detach(old);
    }
    EvictIfFull();
    return e;
  }

  Cache::Handle* Lookup(const Slice& key, uint32_t hash) {
    MutexLock guard(&mu_);
    Entry* e = index_.Find(key, hash);
    if (e == nullptr) return nullptr;
    if (e->refs == 1) {  // Leaving the idle list: now held by a client.
      EntryList::Unlink(e);
      busy_.PushNewest(e);
    }
    e->refs++;
    return e;
  }

  void Release(Cache::Handle* handle) {
    MutexLock guard(&mu_);
    Unref(static_cast<Entry*>(handle));
    // Entries pinned while the shard was over capacity become evictable
    // now; shed them here rather than waiting for the next Insert.
    EvictIfFull();
  }

  void Erase(const Slice& key, uint32_t hash) {
    MutexLock guard(&mu_);
    Entry* e = index_.Remove(key, hash);
    if (e != nullptr) Detach(e);
  }

  void Prune() {
    MutexLock guard(&mu_);
    while (!idle_.empty()) {
      Entry* e = idle_.oldest();
      index_.Remove(Slice(e->key), e->hash);
      Detach(e);
    }
  }

  size_t TotalCharge() {
    MutexLock guard(&mu_);
    return usage_;
  }

 private:
  // Drops the cache's reference to e, which the caller has already removed
  // from (or replaced in) index_.
  void Detach(Entry* e) EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    EntryList::Unlink(e);
    e->in_cache = false;
    usage_ -= e->charge;
    Unref(e);
  }

  void Unref(Entry* e) EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    e->refs--;
    if (e->refs == 0) {
      e->deleter(Slice(e->key), e->value);
      delete e;
    } else if (e->in_cache && e->refs == 1) {
      // Last client handle gone: it becomes the most recently used idle
      // entry.
      EntryList::Unlink(e);
      idle_.PushNewest(e);
    }
  }

  void EvictIfFull() EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (usage_ > capacity_ && !idle_.empty()) {
      Entry* victim = idle_.oldest();
      index_.Remove(Slice(victim->key), victim->hash);
      Detach(victim);
    }
  }

  size_t capacity_;  // Set once before use.
  port::Mutex mu_;
  // Sum of charges of in_cache entries.
  size_t usage_ GUARDED_BY(mu_);
  EntryList idle_ GUARDED_BY(mu_);
  EntryList busy_ GUARDED_BY(mu_);
  EntryIndex index_ GUARDED_BY(mu_);  // every in_cache entry, by key
};

class ShardedLRUCache final : public Cache {
 public:
  explicit ShardedLRUCache(size_t capacity) : last_id_(0) {
    const size_t per_shard = (capacity + kShards - 1) / kShards;
    for (LRUShard& shard : shards_) shard.SetCapacity(per_shard);
  }

  Handle* Insert(const Slice& key, void* value, size_t charge,
                 void (*deleter)(const Slice& key, void* value)) override {
    const uint32_t hash = HashOf(key);
    return ShardFor(hash).Insert(key, hash, value, charge, deleter);
  }
  Handle* Lookup(const Slice& key) override {
    const uint32_t hash = HashOf(key);
    return ShardFor(hash).Lookup(key, hash);
  }
  void Release(Handle* handle) override {
    ShardFor(static_cast<Entry*>(handle)->hash).Release(handle);
  }
  void* Value(Handle* handle) override {
    return static_cast<Entry*>(handle)->value;
  }
  void Erase(const Slice& key) override {
    const uint32_t hash = HashOf(key);
    ShardFor(hash).Erase(key, hash);
  }
  uint64_t NewId() override {
    return last_id_.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  void Prune() override {
    for (LRUShard& shard : shards_) shard.Prune();
  }
  size_t TotalCharge() const override {
    size_t total = 0;
    for (LRUShard& shard : shards_) total += shard.TotalCharge();
    return total;
  }

 private:
  static constexpr int kShardBits = 4;
  static constexpr int kShards = 1 << kShardBits;

  static uint32_t HashOf(const Slice& key) {
    return Hash(key.data(), key.size(), 0);
  }
  // The top bits pick the shard, the low bits the bucket within it.
  LRUShard& ShardFor(uint32_t hash) const {
    return shards_[hash >> (32 - kShardBits)];
  }

  // mutable: TotalCharge is const in the interface but must lock shards.
  mutable LRUShard shards_[kShards];
  std::atomic<uint64_t> last_id_;
};

}  // namespace

Cache* NewLRUCache(size_t capacity) { return new ShardedLRUCache(capacity); }

}  // namespace leveldb
