#include "util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define DELSM_CRC32C_X86 1
#endif

namespace leveldb {
namespace crc32c {

namespace {

// Reflected form of the Castagnoli polynomial 0x1EDC6F41.
constexpr uint32_t kPoly = 0x82f63b78u;

// Tables for slicing-by-8: kTables[0] is the classic byte-at-a-time table;
// kTables[k][b] is the CRC contribution of byte b followed by k zero bytes.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables BuildTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; b++) {
    uint32_t crc = b;
    for (int bit = 0; bit < 8; bit++) {
      crc = (crc & 1) ? (crc >> 1) ^ kPoly : (crc >> 1);
    }
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; k++) {
    for (uint32_t b = 0; b < 256; b++) {
      uint32_t prev = t[k - 1][b];
      t[k][b] = (prev >> 8) ^ t[0][prev & 0xff];
    }
  }
  return t;
}

constexpr Tables kTables = BuildTables();

inline uint32_t LoadLE32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

bool DetectHardware() {
#if defined(DELSM_CRC32C_X86)
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

// Decided once; the CPU does not change under a running process.
const bool kHaveHardware = DetectHardware();

}  // namespace

bool HardwareAvailable() { return kHaveHardware; }

uint32_t ExtendSoftware(uint32_t init_crc, const char* data, size_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(data);
  const uint8_t* end = p + n;
  uint32_t crc = ~init_crc;
  while (end - p >= 8) {
    uint32_t lo = LoadLE32(p) ^ crc;
    uint32_t hi = LoadLE32(p + 4);
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^
          kTables[5][(lo >> 16) & 0xff] ^ kTables[4][lo >> 24] ^
          kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
          kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
    p += 8;
  }
  while (p < end) {
    crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
  }
  return ~crc;
}

#if defined(DELSM_CRC32C_X86)
// Compiled for SSE4.2 regardless of the build flags, so the rest of the
// library never depends on the instruction; only reached after the runtime
// check.
__attribute__((target("sse4.2"))) uint32_t ExtendHardware(uint32_t init_crc,
                                                          const char* data,
                                                          size_t n) {
  const char* p = data;
  const char* end = data + n;
  uint32_t crc = ~init_crc;
#if defined(__x86_64__)
  uint64_t crc64 = crc;
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, sizeof(word));
    crc64 = _mm_crc32_u64(crc64, word);
    p += 8;
  }
  crc = static_cast<uint32_t>(crc64);
#endif
  while (end - p >= 4) {
    uint32_t word;
    std::memcpy(&word, p, sizeof(word));
    crc = _mm_crc32_u32(crc, word);
    p += 4;
  }
  while (p < end) {
    crc = _mm_crc32_u8(crc, static_cast<uint8_t>(*p++));
  }
  return ~crc;
}
#else
uint32_t ExtendHardware(uint32_t init_crc, const char* data, size_t n) {
  return ExtendSoftware(init_crc, data, n);
}
#endif

uint32_t Extend(uint32_t init_crc, const char* data, size_t n) {
  if (kHaveHardware) return ExtendHardware(init_crc, data, n);
  return ExtendSoftware(init_crc, data, n);
}

}  // namespace crc32c
}  // namespace leveldb
