// The record codec of META (table/meta_file.h): how one index record is
// read, shared by the whole-index decoder (meta_file.cc, formats 1 to 3)
// and the group decoder (meta_file_groups.cc, format 4). Internal to those
// two files; every function checks its input and never reads past
// `limit`.
#ifndef DELSM_TABLE_META_FILE_RECORD_H_
#define DELSM_TABLE_META_FILE_RECORD_H_

#include <cstdint>
#include <string>

#include "table/meta_file.h"
#include "util/coding.h"

namespace leveldb {
namespace meta_file_internal {

constexpr uint32_t kFormatVersion2 = 2;
// Format 2 plus the home kinds (meta_file.h).
constexpr uint32_t kFormatVersionHomes = 3;
// Grouped entries and a trailer (meta_file.h); the version written.
constexpr uint32_t kFormatVersionGroups = 4;

inline bool IsValidStorage(uint8_t b, uint32_t version) {
  return b <= static_cast<uint8_t>(version >= kFormatVersionHomes
                                       ? ValueStorage::kHomeFileSnappy
                                       : ValueStorage::kInlineSnappy);
}

// Read a varint at *p, before `limit`, and move *p past it; false if it is
// malformed or runs past `limit`. Most of an index's varints (key lengths,
// small sizes) are one or two bytes long, so those are decoded here.
template <typename T>
inline bool ReadShortVarint(const char** p, const char* limit, T* v) {
  const uint8_t* b = reinterpret_cast<const uint8_t*>(*p);
  if (*p < limit && b[0] < 0x80) {
    *v = b[0];
    *p += 1;
    return true;
  }
  if (limit - *p >= 2 && b[1] < 0x80) {
    *v = static_cast<T>((b[0] & 0x7f) | (static_cast<T>(b[1]) << 7));
    *p += 2;
    return true;
  }
  return false;
}
inline bool ReadVarint32(const char** p, const char* limit, uint32_t* v) {
  if (ReadShortVarint(p, limit, v)) return true;
  *p = GetVarint32Ptr(*p, limit, v);
  return *p != nullptr;
}
inline bool ReadVarint64(const char** p, const char* limit, uint64_t* v) {
  if (ReadShortVarint(p, limit, v)) return true;
  *p = GetVarint64Ptr(*p, limit, v);
  return *p != nullptr;
}

// DecodeRecord's failure: *error = what, false. Out of line, so that the
// decoding of a good record (every entry of every scan) builds no string.
inline __attribute__((noinline, cold)) bool RecordFails(std::string* error,
                                                        const char* what) {
  *error = what;
  return false;
}
inline __attribute__((noinline, cold)) bool BadStorageKind(std::string* error,
                                                           uint8_t storage) {
  *error = "bad value storage kind " + std::to_string(storage);
  return false;
}

// Decodes the record at *p, which ends before `limit`, into *e and moves
// *p past it (inline_offset is left alone); false, with *error saying what
// is wrong, if it is malformed (*p and *e then unspecified).
// Inlined (a call's saving and restoring of registers was a fifth of its
// cost), and decoded into locals stored once at the end: *p and the key's
// Slice are both char pointers, which the compiler would otherwise store
// and reload around every field.
__attribute__((always_inline)) inline bool DecodeRecord(const char** p,
                                                        const char* limit,
                                                        uint32_t version,
                                                        MetaIndexEntry* e,
                                                        std::string* error) {
  const char* q = *p;
  uint32_t key_size;
  if (!ReadVarint32(&q, limit, &key_size) ||
      key_size > static_cast<uint64_t>(limit - q)) {
    return RecordFails(error, "bad internal key");
  }
  if (key_size < 8) return RecordFails(error, "internal key too short");
  const char* const key = q;
  q += key_size;
  if (q == limit) return RecordFails(error, "truncated");
  const uint8_t storage = static_cast<uint8_t>(*q++);
  if (!IsValidStorage(storage, version)) {
    return BadStorageKind(error, storage);
  }
  const ValueStorage kind = static_cast<ValueStorage>(storage);
  uint64_t value_size, stored_size;
  if (!ReadVarint64(&q, limit, &value_size) ||
      !ReadVarint64(&q, limit, &stored_size) || limit - q < 4) {
    return RecordFails(error, "truncated");
  }
  const uint32_t stored_crc = DecodeFixed32(q);
  q += 4;
  uint64_t home = 0;
  if (StoredInHome(kind) && (!ReadVarint64(&q, limit, &home) || home == 0)) {
    return RecordFails(error, "bad home number");
  }
  if (kind == ValueStorage::kNone && (value_size != 0 || stored_size != 0)) {
    return RecordFails(error, "tombstone with a value");
  }
  if ((kind == ValueStorage::kFile || kind == ValueStorage::kInline ||
       kind == ValueStorage::kHomeFile) &&
      value_size != stored_size) {
    return RecordFails(error, "stored size differs from value size");
  }
  e->internal_key = Slice(key, key_size);
  e->storage = kind;
  e->stored_crc = stored_crc;
  e->value_size = value_size;
  e->stored_size = stored_size;
  e->home = home;
  *p = q;
  return true;
}

}  // namespace meta_file_internal
}  // namespace leveldb

#endif  // DELSM_TABLE_META_FILE_RECORD_H_
