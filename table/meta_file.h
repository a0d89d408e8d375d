// The meta file (META) of an SST directory: written once when the directory
// is built, never modified. It holds the sorted entries (so no reader ever
// depends on readdir order), a Bloom filter over the user keys, the key range
// and a checksummed trailer.
//
// Layout (all integers little-endian / varint per util/coding.h):
//   "DLSMMETA" fixed32(format version = 1)
//   length-prefixed comparator name
//   varint64 entry count
//   entries, each:
//     length-prefixed internal key (user key + 8-byte tag)
//     byte ValueStorage
//     varint64 value size (user bytes, uncompressed)
//     varint64 stored size (bytes in the KV file or inline)
//     fixed32 crc32c of the stored bytes (masked)
//     if ValueStorage is inline: the stored bytes
//   length-prefixed filter (FilterPolicy::CreateFilter over user keys)
//   length-prefixed smallest internal key, length-prefixed largest
//   trailer: fixed32 masked crc32c of every byte before it, "DLSMEND!"
#ifndef DELSM_TABLE_META_FILE_H_
#define DELSM_TABLE_META_FILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

constexpr char kMetaFileName[] = "META";
constexpr char kLongKeysFileName[] = "LONGKEYS";

// An SST directory holds one or more logical SSTs (meta files over disjoint
// key ranges of the same level). The SST created with the directory (its
// number equals the directory's) owns META and LONGKEYS; an SST a
// compaction later wrote into the directory owns META-<number> and
// LONGKEYS-<number>. None of these can collide with a KV file name, which
// always holds '@' (key_codec.h).
std::string MetaFileName(uint64_t sst_number, uint64_t dir_number);
std::string LongKeysFileName(uint64_t sst_number, uint64_t dir_number);

// If `name` is a meta file name, sets *sst_number (dir_number for "META")
// and returns true.
bool ParseMetaFileName(const std::string& name, uint64_t dir_number,
                       uint64_t* sst_number);
// True for "LONGKEYS" and "LONGKEYS-<number>"; sets *sst_number likewise.
bool ParseLongKeysFileName(const std::string& name, uint64_t dir_number,
                           uint64_t* sst_number);

enum class ValueStorage : uint8_t {
  kNone = 0,          // a tombstone: no value, no KV file
  kFile = 1,          // value bytes in the KV file
  kFileSnappy = 2,    // snappy-compressed value in the KV file
  kInline = 3,        // value bytes in the meta file
  kInlineSnappy = 4,  // snappy-compressed value in the meta file
};

inline bool StoredInFile(ValueStorage s) {
  return s == ValueStorage::kFile || s == ValueStorage::kFileSnappy;
}

struct MetaEntry {
  std::string internal_key;
  ValueStorage storage = ValueStorage::kNone;
  uint64_t value_size = 0;
  uint64_t stored_size = 0;
  uint32_t stored_crc = 0;   // masked crc32c of the stored bytes
  std::string inline_value;  // stored bytes, for the inline kinds only
};

struct MetaFileContents {
  std::string comparator_name;
  std::vector<MetaEntry> entries;  // in internal-key order
  std::string filter;
  std::string smallest;  // internal keys; empty when there are no entries
  std::string largest;
};

std::string EncodeMetaFile(const MetaFileContents& contents);

// Corruption naming `path_for_errors` on any damage (bad magic, version,
// checksum, truncated or trailing bytes).
Status DecodeMetaFile(const Slice& data, const std::string& path_for_errors,
                      MetaFileContents* contents);

}  // namespace leveldb

#endif  // DELSM_TABLE_META_FILE_H_
