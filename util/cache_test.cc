#include "leveldb/cache.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "util/coding.h"

namespace leveldb {

namespace {

std::string EncodeKey(int k) {
  std::string result;
  PutFixed32(&result, static_cast<uint32_t>(k));
  return result;
}
int DecodeKey(const Slice& k) {
  return static_cast<int>(DecodeFixed32(k.data()));
}
void* EncodeValue(uintptr_t v) { return reinterpret_cast<void*>(v); }
int DecodeValue(void* v) {
  return static_cast<int>(reinterpret_cast<uintptr_t>(v));
}

}  // namespace

class CacheTest : public testing::Test {
 public:
  static constexpr int kCapacity = 1000;

  CacheTest() : cache_(NewLRUCache(kCapacity)) { current_ = this; }
  ~CacheTest() override {
    cache_.reset();  // Runs deleters while current_ is still valid.
    current_ = nullptr;
  }

  static void Deleter(const Slice& key, void* value) {
    current_->deleted_keys_.push_back(DecodeKey(key));
    current_->deleted_values_.push_back(DecodeValue(value));
  }

  int Lookup(int key) {
    Cache::Handle* h = cache_->Lookup(EncodeKey(key));
    if (h == nullptr) return -1;
    int v = DecodeValue(cache_->Value(h));
    cache_->Release(h);
    return v;
  }
  void Insert(int key, int value, int charge = 1) {
    cache_->Release(cache_->Insert(EncodeKey(key), EncodeValue(value), charge,
                                   &CacheTest::Deleter));
  }
  Cache::Handle* InsertAndKeep(int key, int value, int charge = 1) {
    return cache_->Insert(EncodeKey(key), EncodeValue(value), charge,
                          &CacheTest::Deleter);
  }
  void Erase(int key) { cache_->Erase(EncodeKey(key)); }

  static CacheTest* current_;
  std::vector<int> deleted_keys_;
  std::vector<int> deleted_values_;
  std::unique_ptr<Cache> cache_;
};
CacheTest* CacheTest::current_ = nullptr;

TEST_F(CacheTest, HitAndMiss) {
  EXPECT_EQ(-1, Lookup(100));
  Insert(100, 101);
  EXPECT_EQ(101, Lookup(100));
  EXPECT_EQ(-1, Lookup(200));
  EXPECT_EQ(-1, Lookup(300));

  Insert(200, 201);
  EXPECT_EQ(101, Lookup(100));
  EXPECT_EQ(201, Lookup(200));
  EXPECT_EQ(-1, Lookup(300));

  Insert(100, 102);  // Replaces; the old value is deleted.
  EXPECT_EQ(102, Lookup(100));
  EXPECT_EQ(201, Lookup(200));
  ASSERT_EQ(1u, deleted_keys_.size());
  EXPECT_EQ(100, deleted_keys_[0]);
  EXPECT_EQ(101, deleted_values_[0]);
}

TEST_F(CacheTest, Erase) {
  Erase(200);
  EXPECT_EQ(0u, deleted_keys_.size());
  Insert(100, 101);
  Insert(200, 201);
  Erase(100);
  EXPECT_EQ(-1, Lookup(100));
  EXPECT_EQ(201, Lookup(200));
  ASSERT_EQ(1u, deleted_keys_.size());
  EXPECT_EQ(100, deleted_keys_[0]);
  EXPECT_EQ(101, deleted_values_[0]);
  Erase(100);
  EXPECT_EQ(1u, deleted_keys_.size());
}

TEST_F(CacheTest, EntriesArePinnedWhileHeld) {
  Insert(100, 101);
  Cache::Handle* h1 = cache_->Lookup(EncodeKey(100));
  EXPECT_EQ(101, DecodeValue(cache_->Value(h1)));

  Insert(100, 102);
  Cache::Handle* h2 = cache_->Lookup(EncodeKey(100));
  EXPECT_EQ(102, DecodeValue(cache_->Value(h2)));
  EXPECT_EQ(0u, deleted_keys_.size());  // 101 is still held by h1.

  cache_->Release(h1);
  ASSERT_EQ(1u, deleted_keys_.size());
  EXPECT_EQ(101, deleted_values_[0]);

  Erase(100);
  EXPECT_EQ(-1, Lookup(100));
  EXPECT_EQ(1u, deleted_keys_.size());  // 102 is still held by h2.
  cache_->Release(h2);
  ASSERT_EQ(2u, deleted_keys_.size());
  EXPECT_EQ(102, deleted_values_[1]);
}

TEST_F(CacheTest, EvictionPolicyKeepsRecentlyUsed) {
  Insert(100, 101);
  Insert(200, 201);
  Insert(300, 301);
  Cache::Handle* h = cache_->Lookup(EncodeKey(300));

  // Keep touching 100 while filling the cache far past its capacity.
  for (int i = 0; i < kCapacity + 100; i++) {
    Insert(1000 + i, 2000 + i);
    ASSERT_EQ(2000 + i, Lookup(1000 + i));
    ASSERT_EQ(101, Lookup(100));
  }
  EXPECT_EQ(101, Lookup(100));
  EXPECT_EQ(-1, Lookup(200));   // Least recently used: evicted.
  EXPECT_EQ(301, Lookup(300));  // Pinned by h: never evicted.
  cache_->Release(h);
}

TEST_F(CacheTest, UsageStaysNearCapacity) {
  // Large entries evict earlier ones; total charge stays bounded.
  for (int i = 0; i < kCapacity * 2; i++) {
    Insert(i, i, /*charge=*/10);
  }
  EXPECT_LE(cache_->TotalCharge(), static_cast<size_t>(kCapacity) + 16 * 10);
  EXPECT_GT(deleted_keys_.size(), 0u);
}

TEST_F(CacheTest, HeldEntriesCanExceedCapacity) {
  std::vector<Cache::Handle*> handles;
  for (int i = 0; i < kCapacity + 100; i++) {
    handles.push_back(InsertAndKeep(1000 + i, 2000 + i));
  }
  // Nothing can be evicted while every entry is held.
  for (int i = 0; i < kCapacity + 100; i++) {
    ASSERT_EQ(2000 + i, Lookup(1000 + i));
  }
  EXPECT_EQ(0u, deleted_keys_.size());
  for (Cache::Handle* h : handles) cache_->Release(h);
  EXPECT_GT(deleted_keys_.size(), 0u);
}

TEST_F(CacheTest, NewIdIsUnique) {
  uint64_t a = cache_->NewId();
  uint64_t b = cache_->NewId();
  EXPECT_NE(a, b);
}

TEST_F(CacheTest, PruneDropsUnheldEntries) {
  Insert(1, 100);
  Insert(2, 200);
  Cache::Handle* h = cache_->Lookup(EncodeKey(1));
  cache_->Prune();
  cache_->Release(h);
  EXPECT_EQ(100, Lookup(1));
  EXPECT_EQ(-1, Lookup(2));
}

TEST_F(CacheTest, ZeroCapacityCachesNothing) {
  cache_.reset(NewLRUCache(0));
  Insert(1, 100);
  EXPECT_EQ(-1, Lookup(1));
  EXPECT_EQ(1u, deleted_keys_.size());
}

TEST_F(CacheTest, TotalChargeTracksInsertAndErase) {
  EXPECT_EQ(0u, cache_->TotalCharge());
  Insert(1, 1, 30);
  Insert(2, 2, 20);
  EXPECT_EQ(50u, cache_->TotalCharge());
  Erase(1);
  EXPECT_EQ(20u, cache_->TotalCharge());
}

TEST_F(CacheTest, DestructorDeletesEverything) {
  Insert(1, 100);
  Insert(2, 200);
  cache_.reset();
  EXPECT_EQ(2u, deleted_keys_.size());
}

TEST_F(CacheTest, KeysWithArbitraryBytes) {
  std::string k1("ab\0cd", 5), k2("ab\0ce", 5);
  cache_->Release(cache_->Insert(k1, EncodeValue(1), 1, &CacheTest::Deleter));
  cache_->Release(cache_->Insert(k2, EncodeValue(2), 1, &CacheTest::Deleter));
  Cache::Handle* h = cache_->Lookup(k1);
  ASSERT_NE(nullptr, h);
  EXPECT_EQ(1, DecodeValue(cache_->Value(h)));
  cache_->Release(h);
  h = cache_->Lookup(k2);
  ASSERT_NE(nullptr, h);
  EXPECT_EQ(2, DecodeValue(cache_->Value(h)));
  cache_->Release(h);
}

namespace {
std::atomic<int> live_values{0};
void CountingDeleter(const Slice& key, void* value) {
  // Every value is the key's number plus one million; a mismatch would mean
  // a deleter ran with the wrong entry.
  EXPECT_EQ(DecodeKey(key) + 1000000, DecodeValue(value));
  live_values.fetch_sub(1);
}
}  // namespace

TEST(CacheConcurrencyTest, ThreadsSeeConsistentEntriesAndEverythingIsFreed) {
  std::unique_ptr<Cache> cache(NewLRUCache(200));
  const int kThreads = 4;
  const int kOps = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&cache, t] {
      uint32_t state = 12345 + t;
      for (int i = 0; i < kOps; i++) {
        state = state * 1103515245u + 12345u;
        const int key = static_cast<int>((state >> 8) % 500);
        const std::string k = EncodeKey(key);
        switch ((state >> 4) % 4) {
          case 0: {
            live_values.fetch_add(1);
            cache->Release(cache->Insert(k, EncodeValue(key + 1000000), 1,
                                         &CountingDeleter));
            break;
          }
          case 1:
            cache->Erase(k);
            break;
          default: {
            Cache::Handle* h = cache->Lookup(k);
            if (h != nullptr) {
              EXPECT_EQ(key + 1000000, DecodeValue(cache->Value(h)));
              cache->Release(h);
            }
            break;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_LE(cache->TotalCharge(), 200u + 16u);
  cache.reset();
  EXPECT_EQ(0, live_values.load());
}

}  // namespace leveldb
