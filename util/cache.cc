// NewLRUCache: a Cache split into independently locked shards (chosen by
// key hash) so concurrent readers rarely contend. Each shard evicts the
// least recently released entry that no client holds a handle to, once
// the shard's charge exceeds its share of the capacity.
#include "leveldb/cache.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "leveldb/slice.h"
#include "util/hash.h"

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

class LRUShard {
 public:
  LRUShard() : capacity_(0), usage_(0) {}
  LRUShard(const LRUShard&) = delete;
  LRUShard& operator=(const LRUShard&) = delete;

  ~LRUShard() {
    std::lock_guard<std::mutex> guard(mu_);
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
    index_.clear();
  }

  void SetCapacity(size_t capacity) { capacity_ = capacity; }

  Cache::Handle* Insert(const Slice& key, void* value, size_t charge,
                        void (*deleter)(const Slice& key, void* value)) {
    Entry* e = new Entry;
    e->key.assign(key.data(), key.size());
    e->value = value;
    e->deleter = deleter;
    e->charge = charge;
    e->refs = 1;  // The handle returned to the caller.
    e->in_cache = false;
    e->prev = e->next = nullptr;

    std::lock_guard<std::mutex> guard(mu_);
    // A zero-capacity cache caches nothing; the caller's handle still
    // works and the entry is deleted on Release.
    if (capacity_ > 0) {
      e->refs++;
      e->in_cache = true;
      busy_.PushNewest(e);
      usage_ += charge;
      // The index key views the entry's own bytes, so a replaced entry's
      // slot must be re-created rather than re-pointed.
      auto it = index_.find(std::string_view(e->key));
      if (it != index_.end()) {
        Entry* old = it->second;
        index_.erase(it);
        Detach(old);
      }
      index_.emplace(std::string_view(e->key), e);
    }
    EvictIfFull();
    return e;
  }

  Cache::Handle* Lookup(const Slice& key) {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = index_.find(std::string_view(key.data(), key.size()));
    if (it == index_.end()) return nullptr;
    Entry* e = it->second;
    if (e->refs == 1) {  // Leaving the idle list: now held by a client.
      EntryList::Unlink(e);
      busy_.PushNewest(e);
    }
    e->refs++;
    return e;
  }

  void Release(Cache::Handle* handle) {
    std::lock_guard<std::mutex> guard(mu_);
    Unref(static_cast<Entry*>(handle));
    // Entries pinned while the shard was over capacity become evictable
    // now; shed them here rather than waiting for the next Insert.
    EvictIfFull();
  }

  void Erase(const Slice& key) {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = index_.find(std::string_view(key.data(), key.size()));
    if (it == index_.end()) return;
    Entry* e = it->second;
    index_.erase(it);
    Detach(e);
  }

  void Prune() {
    std::lock_guard<std::mutex> guard(mu_);
    while (!idle_.empty()) {
      Entry* e = idle_.oldest();
      index_.erase(std::string_view(e->key));
      Detach(e);
    }
  }

  size_t TotalCharge() {
    std::lock_guard<std::mutex> guard(mu_);
    return usage_;
  }

 private:
  // Drops the cache's reference to e, which the caller has already removed
  // from (or replaced in) index_. Requires mu_ held.
  void Detach(Entry* e) {
    EntryList::Unlink(e);
    e->in_cache = false;
    usage_ -= e->charge;
    Unref(e);
  }

  // Requires mu_ held.
  void Unref(Entry* e) {
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

  // Requires mu_ held.
  void EvictIfFull() {
    while (usage_ > capacity_ && !idle_.empty()) {
      Entry* victim = idle_.oldest();
      index_.erase(std::string_view(victim->key));
      Detach(victim);
    }
  }

  size_t capacity_;  // Set once before use.
  std::mutex mu_;
  size_t usage_;    // Sum of charges of in_cache entries; guarded by mu_.
  EntryList idle_;  // Guarded by mu_.
  EntryList busy_;  // Guarded by mu_.
  // Keys view Entry::key of the entry they map to. Guarded by mu_.
  std::unordered_map<std::string_view, Entry*> index_;
};

class ShardedLRUCache final : public Cache {
 public:
  explicit ShardedLRUCache(size_t capacity) : last_id_(0) {
    const size_t per_shard = (capacity + kShards - 1) / kShards;
    for (LRUShard& shard : shards_) shard.SetCapacity(per_shard);
  }

  Handle* Insert(const Slice& key, void* value, size_t charge,
                 void (*deleter)(const Slice& key, void* value)) override {
    return ShardFor(key).Insert(key, value, charge, deleter);
  }
  Handle* Lookup(const Slice& key) override {
    return ShardFor(key).Lookup(key);
  }
  void Release(Handle* handle) override {
    ShardFor(Slice(static_cast<Entry*>(handle)->key)).Release(handle);
  }
  void* Value(Handle* handle) override {
    return static_cast<Entry*>(handle)->value;
  }
  void Erase(const Slice& key) override { ShardFor(key).Erase(key); }
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

  LRUShard& ShardFor(const Slice& key) const {
    const uint32_t h = Hash(key.data(), key.size(), 0);
    return shards_[h >> (32 - kShardBits)];
  }

  // mutable: TotalCharge is const in the interface but must lock shards.
  mutable LRUShard shards_[kShards];
  std::atomic<uint64_t> last_id_;
};

}  // namespace

Cache* NewLRUCache(size_t capacity) { return new ShardedLRUCache(capacity); }

}  // namespace leveldb
