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
inline uint32_t DecodeFixed32(const char* ptr) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(ptr);
  uint32_t v = 0;
  for (int i = 3; i >= 0; i--) v = (v << 8) | b[i];
  return v;
}
inline uint64_t DecodeFixed64(const char* ptr) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(ptr);
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = (v << 8) | b[i];
  return v;
}

}  // namespace leveldb

#endif  // DELSM_UTIL_CODING_H_
