#include "util/hash.h"

#include "util/coding.h"

namespace leveldb {

// A Murmur-style multiply/xor-shift mix, processing four bytes at a time.
// Filters persisted by the built-in Bloom policy depend on these exact
// constants, so they must never change.
uint32_t Hash(const char* data, size_t n, uint32_t seed) {
  constexpr uint32_t kMul = 0xc6a4a793u;
  constexpr int kShift = 24;
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  const uint8_t* end = p + n;
  uint32_t h = seed ^ static_cast<uint32_t>(n * kMul);

  for (; end - p >= 4; p += 4) {
    h += DecodeFixed32(reinterpret_cast<const char*>(p));
    h *= kMul;
    h ^= h >> 16;
  }

  size_t rest = end - p;
  if (rest > 0) {
    // Tail bytes are folded in as a little-endian partial word.
    uint32_t tail = 0;
    for (size_t i = 0; i < rest; i++)
      tail |= static_cast<uint32_t>(p[i]) << (8 * i);
    h += tail;
    h *= kMul;
    h ^= h >> kShift;
  }
  return h;
}

}  // namespace leveldb
