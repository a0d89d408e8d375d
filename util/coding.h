// Little-endian fixed-width and varint encodings used by every on-disk format
// (WAL, manifest, meta files). Get* functions consume from the front of the
// slice and return false on truncated or malformed input.
#ifndef DELSM_UTIL_CODING_H_
#define DELSM_UTIL_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "leveldb/slice.h"

namespace leveldb {

void PutFixed32(std::string* dst, uint32_t value);
void PutFixed64(std::string* dst, uint64_t value);
void PutVarint32(std::string* dst, uint32_t value);
void PutVarint64(std::string* dst, uint64_t value);
void PutLengthPrefixedSlice(std::string* dst, const Slice& value);

bool GetFixed32(Slice* input, uint32_t* value);
bool GetFixed64(Slice* input, uint64_t* value);
bool GetVarint32(Slice* input, uint32_t* value);
bool GetVarint64(Slice* input, uint64_t* value);
bool GetLengthPrefixedSlice(Slice* input, Slice* result);

// Decode a varint from [p, limit). Returns the byte after it, or nullptr.
const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v);
// GetVarint32Ptr's decoding of every length, out of line.
const char* GetVarint32PtrFallback(const char* p, const char* limit,
                                   uint32_t* v);
// A one-byte varint (a length under 128, the common case on the memtable's
// and the meta files' hot paths) is decoded inline.
inline const char* GetVarint32Ptr(const char* p, const char* limit,
                                  uint32_t* v) {
  if (p < limit) {
    const uint32_t byte = static_cast<uint8_t>(*p);
    if ((byte & 0x80) == 0) {
      *v = byte;
      return p + 1;
    }
  }
  return GetVarint32PtrFallback(p, limit, v);
}

// Number of bytes the varint encoding of v takes.
int VarintLength(uint64_t v);

// Write a varint to dst (which must have room for 5 / 10 bytes); returns
// the byte after it.
char* EncodeVarint32(char* dst, uint32_t value);
char* EncodeVarint64(char* dst, uint64_t value);

inline void EncodeFixed32(char* dst, uint32_t value) {
  uint8_t* b = reinterpret_cast<uint8_t*>(dst);
  for (int i = 0; i < 4; i++) b[i] = static_cast<uint8_t>(value >> (8 * i));
}
inline void EncodeFixed64(char* dst, uint64_t value) {
  uint8_t* b = reinterpret_cast<uint8_t*>(dst);
  for (int i = 0; i < 8; i++) b[i] = static_cast<uint8_t>(value >> (8 * i));
}
// Written as one expression of shifted bytes, which GCC and Clang compile to
// a single load on a little-endian machine (a loop over the bytes stays a
// byte load, shift and or per byte: ParseInternalKey's tag, every crc
// read).
inline uint32_t DecodeFixed32(const char* ptr) {
  const uint8_t* const b = reinterpret_cast<const uint8_t*>(ptr);
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
         (static_cast<uint32_t>(b[2]) << 16) |
         (static_cast<uint32_t>(b[3]) << 24);
}
inline uint64_t DecodeFixed64(const char* ptr) {
  const uint8_t* const b = reinterpret_cast<const uint8_t*>(ptr);
  return static_cast<uint64_t>(b[0]) | (static_cast<uint64_t>(b[1]) << 8) |
         (static_cast<uint64_t>(b[2]) << 16) |
         (static_cast<uint64_t>(b[3]) << 24) |
         (static_cast<uint64_t>(b[4]) << 32) |
         (static_cast<uint64_t>(b[5]) << 40) |
         (static_cast<uint64_t>(b[6]) << 48) |
         (static_cast<uint64_t>(b[7]) << 56);
}

}  // namespace leveldb

#endif  // DELSM_UTIL_CODING_H_
