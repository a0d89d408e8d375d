#include "util/arena.h"

#include <cstdint>

namespace leveldb {

namespace {
constexpr size_t kBlockSize = 4096;
// Requests above this get their own block, so a big allocation does not
// waste the tail of the current block.
constexpr size_t kBigRequest = kBlockSize / 4;
constexpr size_t kAlign = alignof(std::max_align_t) > sizeof(void*)
                              ? alignof(std::max_align_t)
                              : sizeof(void*);
static_assert((kAlign & (kAlign - 1)) == 0, "alignment must be a power of 2");
}  // namespace

Arena::Arena() : alloc_ptr_(nullptr), remaining_(0), memory_usage_(0) {}

Arena::~Arena() {
  for (char* block : blocks_) delete[] block;
}

char* Arena::NewBlock(size_t block_bytes) {
  char* block = new char[block_bytes];
  blocks_.push_back(block);
  memory_usage_.store(MemoryUsage() + block_bytes + sizeof(char*),
                      std::memory_order_relaxed);
  return block;
}

char* Arena::AllocateSlow(size_t bytes) {
  if (bytes == 0) bytes = 1;  // Still hand out a distinct, valid address.
  if (bytes <= remaining_) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    remaining_ -= bytes;
    return result;
  }
  if (bytes > kBigRequest) return NewBlock(bytes);
  // Abandon the tail of the current block and start a fresh one.
  alloc_ptr_ = NewBlock(kBlockSize);
  remaining_ = kBlockSize;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  remaining_ -= bytes;
  return result;
}

char* Arena::AllocateAligned(size_t bytes) {
  size_t misalign = reinterpret_cast<uintptr_t>(alloc_ptr_) & (kAlign - 1);
  size_t pad = misalign == 0 ? 0 : kAlign - misalign;
  if (bytes > 0 && pad + bytes <= remaining_) {
    char* result = alloc_ptr_ + pad;
    alloc_ptr_ += pad + bytes;
    remaining_ -= pad + bytes;
    return result;
  }
  // new[] returns memory aligned for any fundamental type, and a fresh
  // block starts at its beginning, so AllocateSlow's result is aligned
  // whenever it opens a new block. Force that path.
  if (bytes == 0) bytes = 1;
  if (bytes > kBigRequest) return NewBlock(bytes);
  alloc_ptr_ = NewBlock(kBlockSize);
  remaining_ = kBlockSize;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  remaining_ -= bytes;
  return result;
}

}  // namespace leveldb
