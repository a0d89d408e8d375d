// CRC-32C (Castagnoli polynomial), the checksum of every record DeLSM
// writes: WAL and manifest records, meta files, KV file values.
//
// Extend/Value use the SSE4.2 crc32 instruction when the running CPU has it
// and a portable table-driven routine otherwise; both give identical
// results. Mask/Unmask exist because a CRC computed over data that itself
// embeds CRCs is weak; stored checksums are masked.
#ifndef DELSM_UTIL_CRC32C_H_
#define DELSM_UTIL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace leveldb {
namespace crc32c {

// crc32c of the concatenation A+data[0,n), where init_crc is crc32c(A).
uint32_t Extend(uint32_t init_crc, const char* data, size_t n);

// crc32c of data[0,n).
inline uint32_t Value(const char* data, size_t n) { return Extend(0, data, n); }

static constexpr uint32_t kMaskDelta = 0xa282ead8ul;

// A masked representation of crc, for storing next to the data it covers.
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

// Inverse of Mask.
inline uint32_t Unmask(uint32_t masked) {
  uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

// The two implementations behind Extend, exposed so tests can check they
// agree. ExtendHardware must only be called when HardwareAvailable().
bool HardwareAvailable();
uint32_t ExtendSoftware(uint32_t init_crc, const char* data, size_t n);
uint32_t ExtendHardware(uint32_t init_crc, const char* data, size_t n);

}  // namespace crc32c
}  // namespace leveldb

#endif  // DELSM_UTIL_CRC32C_H_
