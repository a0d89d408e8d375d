#include "util/arena.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace leveldb {

TEST(ArenaTest, EmptyArenaUsesNoMemory) {
  Arena arena;
  EXPECT_EQ(0u, arena.MemoryUsage());
}

// A memtable that took a few writes holds a few KiB, not a large block:
// the first block is small.
TEST(ArenaTest, FewSmallAllocationsUseOneSmallBlock) {
  Arena arena;
  for (int i = 0; i < 10; i++) arena.Allocate(100);
  EXPECT_GT(arena.MemoryUsage(), 1000u);
  EXPECT_LE(arena.MemoryUsage(), 4096u + sizeof(char*));
}

// Blocks grow, but what the arena takes stays close to what it hands out,
// so a memtable's size tracks its contents: at most a quarter of each
// block is abandoned, plus the block being filled.
TEST(ArenaTest, UsageTracksWhatWasAllocated) {
  for (size_t size : {24u, 100u, 1050u, 5000u}) {
    Arena arena;
    size_t total = 0;
    while (total < (4u << 20)) {
      arena.Allocate(size);
      total += size;
    }
    EXPECT_LE(arena.MemoryUsage(), total + total / 3 + (64u << 10)) << size;
  }
}

TEST(ArenaTest, AllocationsKeepTheirContents) {
  Arena arena;
  Random rnd(301);
  std::vector<std::pair<size_t, char*>> allocated;
  size_t total = 0;
  const int kCount = 50000;
  for (int i = 0; i < kCount; i++) {
    size_t size;
    if (i % (kCount / 10) == 0) {
      size = i;  // Occasionally large.
    } else {
      size = rnd.OneIn(4000)
                 ? rnd.Uniform(6000)
                 : (rnd.OneIn(10) ? rnd.Uniform(100) : rnd.Uniform(20));
    }
    if (size == 0) size = 1;
    char* r =
        rnd.OneIn(10) ? arena.AllocateAligned(size) : arena.Allocate(size);
    // Fill with a pattern that depends on the allocation's index.
    for (size_t b = 0; b < size; b++) r[b] = static_cast<char>(i % 256);
    total += size;
    allocated.emplace_back(size, r);
    ASSERT_GE(arena.MemoryUsage(), total);
  }
  for (size_t i = 0; i < allocated.size(); i++) {
    for (size_t b = 0; b < allocated[i].first; b++) {
      ASSERT_EQ(static_cast<int>(i % 256),
                static_cast<unsigned char>(allocated[i].second[b]))
          << i;
    }
  }
  // Overhead stays modest for many small allocations.
  EXPECT_LE(arena.MemoryUsage(), total * 11 / 10 + 64 * 1024);
}

TEST(ArenaTest, AlignedAllocationsArePointerAligned) {
  Arena arena;
  for (int i = 1; i < 2000; i++) {
    arena.Allocate(static_cast<size_t>(i % 7) + 1);  // Misalign the cursor.
    char* p = arena.AllocateAligned(static_cast<size_t>(i % 50) + 1);
    ASSERT_EQ(0u, reinterpret_cast<uintptr_t>(p) % sizeof(void*)) << i;
  }
}

TEST(ArenaTest, AllocationsDoNotOverlap) {
  Arena arena;
  std::vector<std::pair<char*, size_t>> spans;
  for (int i = 0; i < 3000; i++) {
    size_t size = static_cast<size_t>((i * 37) % 1500) + 1;
    spans.emplace_back(
        i % 3 ? arena.Allocate(size) : arena.AllocateAligned(size), size);
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); i++) {
    ASSERT_LE(spans[i - 1].first + spans[i - 1].second, spans[i].first);
  }
}

}  // namespace leveldb
