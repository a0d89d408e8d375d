// The stored form of a user value: what a KV file (or an inline meta entry)
// holds. A value is snappy-compressed only when the options ask for it and
// compression saves at least an eighth of its size; otherwise the stored
// bytes are the value itself, so a 4 KiB value fills exactly one 4 KiB block.
#ifndef DELSM_TABLE_KV_VALUE_H_
#define DELSM_TABLE_KV_VALUE_H_

#include <cstdint>
#include <string>

#include "leveldb/options.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

// Returns the bytes to store for `value`: either `value` itself or the
// compressed bytes held in *scratch (which must outlive the result). Sets
// *compressed to tell which.
Slice EncodeKvValue(const Slice& value, CompressionType compression,
                    std::string* scratch, bool* compressed);

// Recovers the user value from stored bytes into *value (cleared on
// error). `expected_size` is the user value size recorded for the entry; a
// mismatch, or undecodable snappy data, is Corruption naming
// `name_for_errors`. A *value that already holds expected_size bytes (a
// buffer reused along a scan) is overwritten in place.
Status DecodeKvValue(const Slice& stored, bool compressed,
                     uint64_t expected_size, const std::string& name_for_errors,
                     std::string* value);

}  // namespace leveldb

#endif  // DELSM_TABLE_KV_VALUE_H_
