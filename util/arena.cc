#include "util/arena.h"

#include <algorithm>
#include <cstdint>

namespace leveldb {

namespace {
// Blocks start small, so a memtable of a few writes stays small, and double
// up to kMaxBlockSize as they are taken. Each block the allocating thread takes
// from glibc past its arena's high-water mark costs an mprotect of the arena's
// heap, and each mprotect in a multi-threaded process interrupts every core
// that runs another of its threads (a TLB shootdown). Growing blocks cut them
// tenfold (docs/DESIGN.md, section 4).
constexpr size_t kFirstBlockSize = 4096;
constexpr size_t kMaxBlockSize = 64 << 10;
constexpr size_t kBigRequest = kMaxBlockSize / 4;
constexpr size_t kAlign = alignof(std::max_align_t) > sizeof(void*)
                              ? alignof(std::max_align_t)
                              : sizeof(void*);
static_assert((kAlign & (kAlign - 1)) == 0, "alignment must be a power of 2");
}  // namespace

Arena::Arena()
    : alloc_ptr_(nullptr),
      remaining_(0),
      block_size_(kFirstBlockSize),
      memory_usage_(0) {}

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

char* Arena::AllocateInFreshBlock(size_t bytes) {
  // Requests above a quarter of the largest block get their own, so a big
  // allocation neither wastes the tail of the current block nor sits in
  // one mostly empty.
  if (bytes > kBigRequest) return NewBlock(bytes);
  // Abandon the tail of the current block (shorter than `bytes`) and start
  // the next, twice the last up to kMaxBlockSize, and at least `bytes`.
  if (alloc_ptr_ != nullptr)
    block_size_ = std::min(block_size_ * 2, kMaxBlockSize);
  while (block_size_ < bytes) block_size_ *= 2;
  alloc_ptr_ = NewBlock(block_size_);
  remaining_ = block_size_ - bytes;
  char* result = alloc_ptr_;
  alloc_ptr_ += bytes;
  return result;
}

char* Arena::AllocateSlow(size_t bytes) {
  if (bytes == 0) bytes = 1;  // Still hand out a distinct, valid address.
  if (bytes <= remaining_) {
    char* result = alloc_ptr_;
    alloc_ptr_ += bytes;
    remaining_ -= bytes;
    return result;
  }
  return AllocateInFreshBlock(bytes);
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
  // block's result is its beginning.
  if (bytes == 0) bytes = 1;
  return AllocateInFreshBlock(bytes);
}

}  // namespace leveldb
