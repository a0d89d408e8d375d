#include "db/skiplist.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "util/arena.h"
#include "util/random.h"

namespace leveldb {
namespace {

typedef uint64_t Key;

struct KeyCmp {
  int operator()(const Key& a, const Key& b) const {
    return a < b ? -1 : (a > b ? 1 : 0);
  }
};

typedef SkipList<Key, KeyCmp> List;

TEST(SkipListTest, Empty) {
  Arena arena;
  List list(KeyCmp(), &arena);
  EXPECT_FALSE(list.Contains(10));
  List::Iterator iter(&list);
  EXPECT_FALSE(iter.Valid());
  iter.SeekToFirst();
  EXPECT_FALSE(iter.Valid());
  iter.Seek(100);
  EXPECT_FALSE(iter.Valid());
  iter.SeekToLast();
  EXPECT_FALSE(iter.Valid());
}

TEST(SkipListTest, MatchesSetModel) {
  const int kInserts = 2000;
  const Key kRange = 5000;
  Random rnd(301);
  Arena arena;
  List list(KeyCmp(), &arena);
  std::set<Key> model;
  for (int i = 0; i < kInserts; i++) {
    const Key k = rnd.Next() % kRange;
    if (model.insert(k).second) list.Insert(k);
  }

  for (Key k = 0; k < kRange; k++) {
    ASSERT_EQ(model.count(k) == 1, list.Contains(k)) << k;
  }

  // Forward and backward full scans.
  {
    List::Iterator iter(&list);
    iter.SeekToFirst();
    for (Key k : model) {
      ASSERT_TRUE(iter.Valid());
      ASSERT_EQ(k, iter.key());
      iter.Next();
    }
    EXPECT_FALSE(iter.Valid());

    iter.SeekToLast();
    for (auto it = model.rbegin(); it != model.rend(); ++it) {
      ASSERT_TRUE(iter.Valid());
      ASSERT_EQ(*it, iter.key());
      iter.Prev();
    }
    EXPECT_FALSE(iter.Valid());
  }

  // Seek to every position, then step a few entries each way.
  for (Key target = 0; target <= kRange; target += 7) {
    List::Iterator iter(&list);
    iter.Seek(target);
    auto model_it = model.lower_bound(target);
    if (model_it == model.end()) {
      EXPECT_FALSE(iter.Valid());
      continue;
    }
    ASSERT_TRUE(iter.Valid());
    ASSERT_EQ(*model_it, iter.key());
    List::Iterator back(&list);
    back.Seek(target);
    auto model_back = model_it;
    for (int step = 0; step < 3; step++) {
      iter.Next();
      ++model_it;
      if (model_it == model.end()) {
        EXPECT_FALSE(iter.Valid());
        break;
      }
      ASSERT_TRUE(iter.Valid());
      ASSERT_EQ(*model_it, iter.key());
    }
    for (int step = 0; step < 3; step++) {
      back.Prev();
      if (model_back == model.begin()) {
        EXPECT_FALSE(back.Valid());
        break;
      }
      --model_back;
      ASSERT_TRUE(back.Valid());
      ASSERT_EQ(*model_back, back.key());
    }
  }
}

// One writer inserts while readers scan. Every scan must be sorted and must
// contain every key whose Insert() finished before the scan started.
TEST(SkipListTest, ConcurrentReadersDuringInsert) {
  const int kKeys = 20000;
  std::vector<Key> order(kKeys);
  Random rnd(17);
  for (int i = 0; i < kKeys; i++) order[i] = static_cast<Key>(i) * 3 + 1;
  for (int i = kKeys - 1; i > 0; i--) {
    std::swap(order[i], order[rnd.Uniform(i + 1)]);
  }

  Arena arena;
  List list(KeyCmp(), &arena);
  std::atomic<int> inserted(0);  // order[0, inserted) are in the list.
  std::atomic<bool> writer_done(false);
  std::atomic<int> failures(0);
  std::atomic<int> scans(0);

  auto reader = [&](uint32_t seed) {
    Random r(seed);
    std::set<Key> seen;
    bool last = false;
    while (!last) {
      last = writer_done.load(std::memory_order_acquire);
      const int published = inserted.load(std::memory_order_acquire);
      seen.clear();
      List::Iterator iter(&list);
      // Scan everything, or from a random point; keys below `start` are not
      // expected in the scan.
      Key start = 0;
      if (r.OneIn(2)) {
        iter.SeekToFirst();
      } else {
        start = r.Uniform(kKeys * 3);
        iter.Seek(start);
      }
      Key prev = 0;
      bool first = true;
      for (; iter.Valid(); iter.Next()) {
        if (!first && iter.key() <= prev) failures++;
        prev = iter.key();
        first = false;
        seen.insert(prev);
      }
      for (int i = 0; i < published; i++) {
        if (order[i] >= start && seen.count(order[i]) == 0) failures++;
        if (!list.Contains(order[i])) failures++;
      }
      scans++;
    }
  };

  std::thread r1(reader, 1);
  std::thread r2(reader, 2);
  for (int i = 0; i < kKeys; i++) {
    list.Insert(order[i]);
    inserted.store(i + 1, std::memory_order_release);
    // Let the readers run between inserts so scans overlap the writer.
    if (i % 64 == 0) std::this_thread::yield();
  }
  writer_done.store(true, std::memory_order_release);
  r1.join();
  r2.join();
  EXPECT_EQ(0, failures.load());
  EXPECT_GE(scans.load(), 2);

  // After the writer finished, the list holds exactly the inserted keys.
  List::Iterator iter(&list);
  iter.SeekToFirst();
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(iter.Valid());
    ASSERT_EQ(static_cast<Key>(i) * 3 + 1, iter.key());
    iter.Next();
  }
  EXPECT_FALSE(iter.Valid());
}

// Keys of the memtable's kind: bytes the writer places beside their node
// with AllocateKey. Each key is an 8-byte big-endian number followed by a
// filler whose length and bytes follow from the number, so a key that a
// later node overwrote, or that a reader saw before the writer finished it,
// fails the check.
struct PlacedKeyCmp {
  int operator()(const char* a, const char* b) const {
    return std::memcmp(a, b, 8);
  }
};

size_t FillerSize(uint64_t n) { return n % 301; }

void WritePlacedKey(uint64_t n, char* dst) {
  for (int i = 0; i < 8; i++) dst[i] = static_cast<char>(n >> (56 - 8 * i));
  std::memset(dst + 8, static_cast<int>('a' + n % 26), FillerSize(n));
}

bool PlacedKeyIntact(const char* key, uint64_t* n) {
  *n = 0;
  for (int i = 0; i < 8; i++) *n = (*n << 8) | static_cast<uint8_t>(key[i]);
  for (size_t i = 0; i < FillerSize(*n); i++) {
    if (key[8 + i] != static_cast<char>('a' + *n % 26)) return false;
  }
  return true;
}

TEST(SkipListTest, KeysPlacedBesideTheirNodesStayIntactForConcurrentReaders) {
  typedef SkipList<const char*, PlacedKeyCmp> PlacedList;
  const int kKeys = 20000;
  std::vector<uint64_t> order(kKeys);
  Random rnd(29);
  for (int i = 0; i < kKeys; i++) order[i] = static_cast<uint64_t>(i) * 5 + 2;
  for (int i = kKeys - 1; i > 0; i--) {
    std::swap(order[i], order[rnd.Uniform(i + 1)]);
  }
  Arena arena;
  PlacedList list(PlacedKeyCmp(), &arena);
  std::atomic<int> inserted(0);
  std::atomic<bool> writer_done(false);
  std::atomic<int> failures(0);

  auto reader = [&]() {
    bool last = false;
    while (!last) {
      last = writer_done.load(std::memory_order_acquire);
      const int published = inserted.load(std::memory_order_acquire);
      PlacedList::Iterator iter(&list);
      int count = 0;
      uint64_t prev = 0;
      for (iter.SeekToFirst(); iter.Valid(); iter.Next()) {
        uint64_t n;
        if (!PlacedKeyIntact(iter.key(), &n)) failures++;
        if (count > 0 && n <= prev) failures++;
        prev = n;
        count++;
      }
      if (count < published) failures++;
    }
  };
  std::thread r1(reader);
  for (int i = 0; i < kKeys; i++) {
    char* key = list.AllocateKey(8 + FillerSize(order[i]));
    WritePlacedKey(order[i], key);
    list.InsertAllocated(key);
    inserted.store(i + 1, std::memory_order_release);
    if (i % 64 == 0) std::this_thread::yield();
  }
  writer_done.store(true, std::memory_order_release);
  r1.join();
  EXPECT_EQ(0, failures.load());

  PlacedList::Iterator iter(&list);
  iter.SeekToFirst();
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(iter.Valid());
    uint64_t n;
    ASSERT_TRUE(PlacedKeyIntact(iter.key(), &n)) << i;
    ASSERT_EQ(static_cast<uint64_t>(i) * 5 + 2, n);
    iter.Next();
  }
  EXPECT_FALSE(iter.Valid());
}

}  // namespace
}  // namespace leveldb
