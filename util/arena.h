// Arena: a bump allocator for many small, same-lifetime allocations (the
// memtable's skiplist nodes and keys). Memory is released only when the
// Arena is destroyed.
//
// Allocate/AllocateAligned must be called by one thread at a time (the
// memtable's single writer). MemoryUsage may be called concurrently from
// any thread.
#ifndef DELSM_UTIL_ARENA_H_
#define DELSM_UTIL_ARENA_H_

#include <atomic>
#include <cstddef>
#include <vector>

namespace leveldb {

class Arena {
 public:
  Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena();

  // Returns `bytes` bytes of uninitialised memory (bytes > 0), valid until
  // the Arena is destroyed.
  char* Allocate(size_t bytes);

  // As Allocate, aligned for any fundamental type (at least pointer size).
  char* AllocateAligned(size_t bytes);

  // Approximate total bytes obtained from the system, including overhead.
  size_t MemoryUsage() const {
    return memory_usage_.load(std::memory_order_relaxed);
  }

 private:
  char* AllocateSlow(size_t bytes);
  // Returns `bytes` from a fresh block of the next size, which becomes the
  // bump region, or from a block of their own if they are big.
  char* AllocateInFreshBlock(size_t bytes);
  char* NewBlock(size_t block_bytes);

  // Bump region of the current block: [alloc_ptr_, alloc_ptr_ + remaining_).
  char* alloc_ptr_;
  size_t remaining_;
  // Size of the current bump block: grows from 4 KiB to 64 KiB as blocks
  // are taken. Written only by the allocating thread.
  size_t block_size_;

  // Every block ever allocated; freed in the destructor.
  std::vector<char*> blocks_;

  // Written only by the allocating thread; read by anyone.
  std::atomic<size_t> memory_usage_;
};

inline char* Arena::Allocate(size_t bytes) {
  if (bytes <= remaining_ && bytes > 0) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    remaining_ -= bytes;
    return result;
  }
  return AllocateSlow(bytes);
}

}  // namespace leveldb

#endif  // DELSM_UTIL_ARENA_H_
