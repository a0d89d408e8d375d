// The meta file (META) of an SST directory: written once when the directory
// is built, never modified. It holds the sorted entries (so no reader ever
// depends on readdir order), the values small enough to live inline, a
// Bloom filter over the user keys and the key range.
//
// Layout, format versions 2 and 3 (integers little-endian / varint per
// util/coding.h):
//   head:    "DLSMMETA" fixed32(format version = 2 or 3)
//   values:  the stored bytes of every inline value, in entry order
//   index:   length-prefixed comparator name
//            varint64 entry count
//            entries, each:
//              length-prefixed internal key (user key + 8-byte tag)
//              byte ValueStorage
//              varint64 value size (user bytes, uncompressed)
//              varint64 stored size (bytes in the KV file or inline)
//              fixed32 crc32c of the stored bytes (masked)
//              version 3, home kinds only: varint64 home number
//            length-prefixed filter (FilterPolicy::CreateFilter over user keys)
//            length-prefixed smallest internal key, length-prefixed largest
//   footer:  fixed64 offset of the index, fixed32 masked crc32c of the
//            index, fixed32(format version), "DLSMEND2"
//
// Format 3 is format 2 plus the home kinds (values_stay_put, DESIGN.md
// section 5): the entry's KV file is not in the SST's directory but in
// home directory <db>/values/<home>/ (table/home_dirs.h), under the same
// name. A meta file is written as version 3 only if it holds a home entry,
// so a database that never used the mode writes exactly the files it
// wrote before; an older reader refuses a version-3 file as an unsupported
// version rather than misreading it. A home kind in a version-2 file, a
// kind above kHomeFileSnappy, or a home number of 0 is Corruption.
//
// Why this order: a reader needs the index (keys, sizes, filter) resident
// but only the odd inline value, so it maps or reads the footer and the
// index (decoding the index in place, MetaIndex) and leaves the value
// section on disk; an inline value is then one read (in a mapping, a memory
// access) at an offset that follows from the stored sizes of the inline
// entries before it (the value section starts right after the head and
// holds nothing else, so the offsets need not be stored). A scan reads the
// value section sequentially in large pieces; a compaction copies it the
// same way.
// Integrity: the index has its own checksum; each inline value is checked
// against its entry's crc when read; the sum of the inline stored sizes must
// equal the value section's length.
//
// Format version 1 (still read, never written) had the values interleaved
// with the entries, a checksum over the whole file and "DLSMEND!" at the end;
// such a file is read whole and its inline values kept in memory.
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

// If `name` is a meta file name spelled exactly as MetaFileName spells it
// in directory dir_number, sets *sst_number (dir_number for "META") and
// returns true. The number is zero-padded to six digits, no further
// leading zeros (every version of DeLSM has written this one form), and
// "META-<dir_number>" is never written: "META-5", "META-0000005" are not
// DeLSM's, and nothing that removes meta files may take them. A caller
// that does not know the directory's number passes 0 (no SST is numbered
// 0), accepting "META-<n>" for every n but 0.
bool ParseMetaFileName(const std::string& name, uint64_t dir_number,
                       uint64_t* sst_number);
// True for "LONGKEYS" and "LONGKEYS-<number>" spelled as LongKeysFileName
// spells them; sets *sst_number likewise.
bool ParseLongKeysFileName(const std::string& name, uint64_t dir_number,
                           uint64_t* sst_number);

enum class ValueStorage : uint8_t {
  kNone = 0,          // a tombstone: no value, no KV file
  kFile = 1,          // value bytes in the KV file
  kFileSnappy = 2,    // snappy-compressed value in the KV file
  kInline = 3,        // value bytes in the meta file
  kInlineSnappy = 4,  // snappy-compressed value in the meta file
  // Format 3: the KV file stays in home directory ValueRecord::home, where
  // its flush wrote it, until the value dies (values_stay_put).
  kHomeFile = 5,
  kHomeFileSnappy = 6,
};

// The KV file is in the SST's own directory.
inline bool StoredInFile(ValueStorage s) {
  return s == ValueStorage::kFile || s == ValueStorage::kFileSnappy;
}

// The KV file is in the entry's home directory.
inline bool StoredInHome(ValueStorage s) {
  return s == ValueStorage::kHomeFile || s == ValueStorage::kHomeFileSnappy;
}

// The entry has a KV file somewhere (its own directory or its home).
inline bool HasKvFile(ValueStorage s) {
  return StoredInFile(s) || StoredInHome(s);
}

// The stored bytes are snappy-compressed.
inline bool StoredCompressed(ValueStorage s) {
  return s == ValueStorage::kFileSnappy || s == ValueStorage::kInlineSnappy ||
         s == ValueStorage::kHomeFileSnappy;
}

inline bool StoredInline(ValueStorage s) {
  return s == ValueStorage::kInline || s == ValueStorage::kInlineSnappy;
}

// What an index entry records about its value: every field of the entry
// but its key.
struct ValueRecord {
  ValueStorage storage = ValueStorage::kNone;
  uint32_t stored_crc = 0;  // masked crc32c of the stored bytes
  uint64_t value_size = 0;
  uint64_t stored_size = 0;
  // Home kinds: the number of the home directory holding the KV file
  // (never 0); 0 for every other kind.
  uint64_t home = 0;
  // Inline kinds, once decoded: where the stored bytes are in the meta
  // file (0 in an entry being built).
  uint64_t inline_offset = 0;
};

// An entry that owns its bytes: one being built or repaired, or one of a
// whole meta file decoded by DecodeMetaFile. A reader of an open SST sees
// MetaIndexEntry instead.
struct MetaEntry : ValueRecord {
  std::string internal_key;
  // Inline kinds: the stored bytes, when held in memory (an entry being
  // built, DecodeMetaFile); empty otherwise.
  std::string inline_value;
};

// Space on disk, as GetApproximateSizes reports it: a file allocates whole
// blocks of kDiskBlockSize (ext4's and most file systems' 4 KiB).
constexpr uint64_t kDiskBlockSize = 4096;
inline uint64_t AllocatedBytes(uint64_t file_size) {
  return (file_size + kDiskBlockSize - 1) / kDiskBlockSize * kDiskBlockSize;
}
// The bytes the entry's own KV file allocates: 0 for a tombstone or an
// inline value (the meta file holds those). A value in a home directory
// counts here too: space is reported with the SST whose entry names the
// value, wherever its file sits.
inline uint64_t KvFileAllocatedBytes(const ValueRecord& e) {
  return HasKvFile(e.storage) ? AllocatedBytes(e.stored_size) : 0;
}

struct MetaFileContents {
  std::string comparator_name;
  std::vector<MetaEntry> entries;  // in internal-key order
  std::string filter;
  std::string smallest;  // internal keys; empty when there are no entries
  std::string largest;
};

// Encodes in format version 2, or 3 when some entry is of a home kind;
// inline entries must hold inline_value.
std::string EncodeMetaFile(const MetaFileContents& contents);

// A meta file's index as a reader holds it, decoded in place: every key,
// the comparator name, the filter and the key range are Slices into the
// index's bytes, so decoding allocates nothing per entry. The MetaIndex
// does not own those bytes: whoever decodes one keeps the bytes it was
// decoded from alive and unchanged for as long as the MetaIndex, or any
// Slice taken from it, is used (SstDir keeps its meta file's mapping, or
// its own copy of the index, for its whole life).
struct MetaIndexEntry : ValueRecord {
  Slice internal_key;  // into the index's bytes
};
struct MetaIndex {
  Slice comparator_name;
  std::vector<MetaIndexEntry> entries;  // in internal-key order
  Slice filter;
  Slice smallest;  // internal keys; empty when there are no entries
  Slice largest;
};

// A copy of `entry` that owns its key (inline_value is left empty).
MetaEntry CopyOfEntry(const MetaIndexEntry& entry);

// Encodes a meta file one entry at a time, for a builder that should not
// keep a MetaEntry (and its strings) per entry: each entry's index record
// and inline bytes are appended to two growing buffers, so an entry costs
// no allocation of its own. Produces exactly the bytes EncodeMetaFile
// produces for the same entries (format 3 when one is of a home kind).
// Not thread-safe.
class MetaFileEncoder {
 public:
  MetaFileEncoder();
  MetaFileEncoder(const MetaFileEncoder&) = delete;
  MetaFileEncoder& operator=(const MetaFileEncoder&) = delete;

  // Appends an entry (in internal-key order; the caller checks the order)
  // with the key `internal_key` and the fields of `entry` (inline_offset
  // is not read: it follows from the order). `inline_stored` is the stored
  // bytes of an inline kind; ignored for the other kinds.
  void Add(const Slice& internal_key, const ValueRecord& entry,
           const Slice& inline_stored);

  uint64_t num_entries() const { return num_entries_; }
  // The internal key of the last entry added (empty before the first);
  // valid until the next Add or Finish.
  Slice last_key() const {
    return Slice(entries_.data() + last_key_offset_, last_key_size_);
  }

  // Moves the complete file into *out. Called once; no Add after it.
  // `smallest` and `largest` are the first and last entries' internal keys
  // (empty when there are none).
  void Finish(const Slice& comparator_name, const Slice& filter,
              const Slice& smallest, const Slice& largest, std::string* out);

 private:
  std::string file_;     // head and value section so far
  std::string entries_;  // the entries' index records so far
  uint64_t num_entries_ = 0;
  size_t last_key_offset_ = 0;  // where last_key() is in entries_
  size_t last_key_size_ = 0;
  bool has_home_ = false;  // some entry is of a home kind: format 3
};

// Decodes a whole meta file of either version into entries that own
// their bytes, inline values included (in inline_value, each checked
// against its crc). Corruption naming `path_for_errors` on any damage (bad
// magic, version, checksum, truncated or trailing bytes).
Status DecodeMetaFile(const Slice& data, const std::string& path_for_errors,
                      MetaFileContents* contents);

// Reading the index alone: a reader passes the file's last
// min(size, kMetaTailLength) bytes to DecodeMetaFooter, which says which
// byte range to pass to DecodeMetaIndex. For a format-1 file the range is
// the whole file.
constexpr size_t kMetaTailLength = 24;
struct MetaIndexRange {
  uint32_t version = 0;
  uint64_t offset = 0;  // of the index (0 for format 1: the whole file)
  uint64_t size = 0;
  uint32_t index_crc = 0;  // format 2: the index's masked crc
};
Status DecodeMetaFooter(const Slice& tail, uint64_t file_size,
                        const std::string& path_for_errors,
                        MetaIndexRange* range);
// `index` holds the bytes of `range`; *result points into them (see
// MetaIndex). The index's checksum is verified (format 1: the whole
// file's), and every entry's fields; the order of the keys is not (see
// SstDir::Open). Entries of inline kinds get their inline_offset, the
// offset of their stored bytes in the meta file: for format 2 in the value
// section, which the reader reads or maps; for format 1 within `index`
// itself (the whole file).
Status DecodeMetaIndex(const Slice& index, const MetaIndexRange& range,
                       const std::string& path_for_errors, MetaIndex* result);
// Format 2: the offset at which the value section starts (the head's size).
constexpr uint64_t kMetaValuesOffset = 12;

}  // namespace leveldb

#endif  // DELSM_TABLE_META_FILE_H_
