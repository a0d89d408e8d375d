// The meta file (META) of an SST directory: written once when the directory
// is built, never modified. It holds the sorted entries (so no reader ever
// depends on readdir order), the values small enough to live inline, a
// Bloom filter over the user keys and the key range.
//
// Layout, format version 4, the one written (integers little-endian /
// varint per util/coding.h):
//   head:    "DLSMMETA" fixed32(4)
//   values:  the stored bytes of every inline value, in entry order
//   groups:  the entries in groups of kMetaGroupEntries, in order (the last
//            group holds the rest; none when there are no entries); a group:
//              its entries' records, each:
//                length-prefixed internal key (user key + 8-byte tag)
//                byte ValueStorage
//                varint64 value size (user bytes, uncompressed)
//                varint64 stored size (bytes in the KV file or inline)
//                fixed32 crc32c of the stored bytes (masked)
//                home kinds only: varint64 home number
//              fixed32 masked crc32c of those records
//   trailer: length-prefixed comparator name
//            varint64 entry count
//            varint64 count of the entries with a KV file (a kind that
//              StoredInFile or StoredInHome: in the SST's directory or in
//              a home directory)
//            varint64 size of the value section (the groups start at
//              kMetaValuesOffset plus it)
//            for each group, in order:
//              varint64 size of the group (its records and its crc)
//              varint64 offset in the value section of the group's first
//                inline value (where it would be if the group has none)
//              length-prefixed internal key of its first entry
//            length-prefixed filter (FilterPolicy::CreateFilter over user keys)
//            length-prefixed smallest internal key, length-prefixed largest
//   footer:  fixed64 offset of the trailer, fixed32 masked crc32c of the
//            trailer, fixed32(4), "DLSMEND2"
// A group starts where the one before it ends (the first at the end of
// the value section) and the last ends at the trailer. An inline entry's
// stored bytes follow those of the inline entries before it in its group,
// from its group's value offset; a group's inline values end exactly where
// the next group's begin (the last group's at the value section's end).
//
// Why groups: a reader opening the file reads and checks the footer and the
// trailer only (a few KB: one key per group, the filter), whatever the
// number of entries; a point lookup searches the groups' first keys,
// decodes and checks one group and searches it; an iterator over an SST
// without a KV file decodes one group at a time as it moves; a compaction
// or a check of the whole file decodes every group, checking each crc.
// Every kind, the home kinds included (values_stay_put, DESIGN.md section
// 5), may appear in a version-4 file: a reader that knows version 4 knows
// them, and an older reader refuses the version whole.
//
// Why the count of entries with a KV file: an SST whose count is 0 (every
// value inline, or a tombstone) is read through its meta file alone, so a
// reader that opens it by its trailer knows, without decoding a group, that
// it need not keep the SST's directory open (SstDir::OpenDescriptors). The
// count is part of format 4: every version-4 file has it.
//
// Integrity: the trailer has its own checksum and each group its own; a
// group's records must agree with the trailer (its first key, its inline
// values filling exactly its share of the value section, no entry with a
// KV file when the trailer counts none, and, once every group is decoded,
// as many such entries as the trailer counts); each inline value
// is checked against its entry's crc when read. A reader that uses a group
// without checking its crc never exists: a damaged group is Corruption for
// whoever reads it, never entries skipped.
//
// Format versions 2 and 3 (still read, no longer written) have the same
// head, value section and footer (which points at the index instead of the
// trailer, and holds the index's crc):
//   index:   length-prefixed comparator name
//            varint64 entry count
//            entries, each a record as in version 4 (the home number only
//              in version 3)
//            length-prefixed filter
//            length-prefixed smallest internal key, length-prefixed largest
// in which inline values follow each other from the value section's start
// in entry order, and the whole index is under the footer's crc. Format 3
// is format 2 plus the home kinds; a home kind in a version-2 file, a kind
// above kHomeFileSnappy, or a home number of 0 is Corruption in every
// version.
//
// Why the values come first: a reader needs the index (keys, sizes, filter)
// resident but only the odd inline value, so it maps or reads the footer and
// the index (decoding it in place, MetaIndex, MetaTrailer) and leaves the
// value section on disk; an inline value is then one read (in a mapping, a
// memory access) at an offset that follows from the stored sizes of the
// inline entries before it, so the offsets need not be stored per entry. A
// scan reads the value section sequentially in large pieces; a compaction
// copies it the same way.
//
// Format version 1 (still read, never written) had the values interleaved
// with the entries, a checksum over the whole file and "DLSMEND!" at the end;
// such a file is read whole and its inline values kept in memory.
#ifndef DELSM_TABLE_META_FILE_H_
#define DELSM_TABLE_META_FILE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/comparator.h"
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

// Encodes in format version 4; inline entries must hold inline_value.
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
// produces for the same entries. Not thread-safe.
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
  // Entries added whose value is a KV file (HasKvFile), in the SST's
  // directory or a home.
  uint64_t kv_entries() const { return kv_entries_; }
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
  // Appends the crc of the open group's records to entries_ and the
  // group's description to groups_.
  void CloseGroup();

  std::string file_;     // head and value section so far
  std::string entries_;  // the closed groups, and the open one's records
  std::string groups_;   // the trailer's description of the closed groups
  uint64_t num_entries_ = 0;
  uint64_t kv_entries_ = 0;     // entries with a KV file (HasKvFile)
  size_t last_key_offset_ = 0;  // where last_key() is in entries_
  size_t last_key_size_ = 0;
  // The open group: where it starts in entries_, where its first key is in
  // entries_, and its value offset (in the value section).
  size_t group_offset_ = 0;
  size_t group_key_offset_ = 0;
  size_t group_key_size_ = 0;
  uint64_t group_value_offset_ = 0;
};

// Decodes a whole meta file of any version into entries that own
// their bytes, inline values included (in inline_value, each checked
// against its crc). Corruption naming `path_for_errors` on any damage (bad
// magic, version, checksum, truncated or trailing bytes).
Status DecodeMetaFile(const Slice& data, const std::string& path_for_errors,
                      MetaFileContents* contents);

// Reading the index alone: a reader passes the file's last
// min(size, kMetaTailLength) bytes to DecodeMetaFooter, which says which
// byte range to pass to DecodeMetaIndex (formats 1 to 3) or to
// DecodeMetaTrailer (format 4). For a format-1 file the range is the whole
// file.
constexpr size_t kMetaTailLength = 24;
struct MetaIndexRange {
  uint32_t version = 0;
  // Of the index, or format 4 the trailer (0 for format 1: the whole file).
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t index_crc = 0;  // formats 2 to 4: its crc (unmasked)
};
Status DecodeMetaFooter(const Slice& tail, uint64_t file_size,
                        const std::string& path_for_errors,
                        MetaIndexRange* range);
// Formats 1 to 3 (format 4: InvalidArgument, see DecodeMetaTrailer):
// `index` holds the bytes of `range`; *result points into them (see
// MetaIndex). The index's checksum is verified (format 1: the whole
// file's), and every entry's fields; the order of the keys is not (see
// SstDir::Open). Entries of inline kinds get their inline_offset, the
// offset of their stored bytes in the meta file: for formats 2 and 3 in
// the value section, which the reader reads or maps; for format 1 within
// `index` itself (the whole file).
Status DecodeMetaIndex(const Slice& index, const MetaIndexRange& range,
                       const std::string& path_for_errors, MetaIndex* result);
// Formats 2 to 4: the offset at which the value section starts (the head's
// size).
constexpr uint64_t kMetaValuesOffset = 12;

// Format 4: entries per group. A point lookup decodes and checks one group
// (16 records of a short key are about 600 bytes: a couple of thousand
// instructions, against some 110 per entry to decode a whole index), while
// the trailer an open reads and keeps holds one key per group, a sixteenth
// of the index's keys. Halving the group would double the trailer's keys
// for little: the lookup's cost is then mostly the search and the value.
constexpr uint64_t kMetaGroupEntries = 16;

// Format 4: one group as the trailer describes it.
struct MetaGroup {
  Slice first_key;      // internal key of its first entry, into the trailer
  uint64_t offset = 0;  // of its records, in the file
  uint64_t size = 0;    // its records and their crc
  // In the file: where its first inline value is (or would be), and where
  // its inline values end (the next group's value offset).
  uint64_t value_offset = 0;
  uint64_t value_end = 0;
};

// Format 4: the trailer decoded in place (its Slices point into the
// trailer's bytes, which whoever decodes it keeps alive, as for MetaIndex).
struct MetaTrailer {
  Slice comparator_name;
  uint64_t num_entries = 0;
  // The entries with a KV file (HasKvFile), at most num_entries.
  uint64_t kv_entries = 0;
  uint64_t groups_offset = 0;  // where the groups start (the values end)
  std::vector<MetaGroup> groups;
  Slice filter;
  Slice smallest;  // internal keys; empty when there are no entries
  Slice largest;

  // The number of entries in group g.
  uint64_t EntriesIn(size_t g) const {
    const uint64_t first = g * kMetaGroupEntries;
    return std::min<uint64_t>(kMetaGroupEntries, num_entries - first);
  }
};

// Format 4: `trailer` holds the bytes of `range`. Checks the trailer's crc
// and that its groups tile the file between the value section and the
// trailer; Corruption naming `path_for_errors` otherwise. No group is
// read.
Status DecodeMetaTrailer(const Slice& trailer, const MetaIndexRange& range,
                         const std::string& path_for_errors,
                         MetaTrailer* result);
// Format 4: decodes group g of `trailer` from `group` (exactly its bytes,
// trailer.groups[g].size of them) into out[0 .. trailer.EntriesIn(g)),
// pointing into `group`. Checks its crc, every entry's fields, that its
// first key is the one the trailer gives, that its inline values fill
// its share of the value section and, when the trailer counts no entry
// with a KV file, that it has none; Corruption otherwise.
Status DecodeMetaGroup(const Slice& group, const MetaTrailer& trailer, size_t g,
                       const std::string& path_for_errors, MetaIndexEntry* out);
// Format 4: where a reader that decodes a checked group a few entries at a
// time is in it: out[0 .. decoded) are decoded, and the next record, its
// end and the next inline value's offset. Points into the group's bytes.
struct MetaGroupCursor {
  const char* next = nullptr;
  const char* limit = nullptr;
  uint64_t value_offset = 0;
  size_t decoded = 0;
};
// Format 4: for a group whose bytes DecodeMetaGroup has found whole, the
// place of `target` in it: decodes its entries in order into out[0 ..] and
// stops at the first one from index `from` on whose internal key `cmp`
// orders at or after `target`, setting *pos to its index, or to
// trailer.EntriesIn(g) when there is none. Checks each decoded entry's
// fields as DecodeMetaGroup does, but neither the crc nor what only a whole
// group shows (its length, where its values end, its first key).
// With `cursor`, leaves it after the last entry decoded, for
// ContinueCheckedMetaGroup.
Status SeekInCheckedMetaGroup(const Slice& group, const MetaTrailer& trailer,
                              size_t g, const Comparator* cmp,
                              const Slice& target, size_t from,
                              const std::string& path_for_errors,
                              MetaIndexEntry* out, size_t* pos,
                              MetaGroupCursor* cursor = nullptr);
// Format 4: for a group whose bytes DecodeMetaGroup has found whole, decodes
// its first `until` entries (at most trailer.EntriesIn(g)) into out[0 ..
// until), checking each one's fields as SeekInCheckedMetaGroup does, and
// leaves *cursor after them.
Status StartCheckedMetaGroup(const Slice& group, const MetaTrailer& trailer,
                             size_t g, size_t until,
                             const std::string& path_for_errors,
                             MetaIndexEntry* out, MetaGroupCursor* cursor);
// Decodes the entries of the same group (its trailer and number, the out[]
// that *cursor was left for) after the ones *cursor has decoded, up to
// `until` of them (at most trailer.EntriesIn(g)), the same way.
Status ContinueCheckedMetaGroup(const MetaTrailer& trailer, size_t g,
                                size_t until,
                                const std::string& path_for_errors,
                                MetaIndexEntry* out, MetaGroupCursor* cursor);
// Format 4: decodes every group from `groups` (the file's bytes from
// trailer.groups_offset to the trailer) into a whole MetaIndex whose keys
// point into `groups` and whose comparator name, filter and key range
// point into the trailer's bytes. Every group's crc is checked, that the
// key range is the first and the last entry's, and that the entries with a
// KV file are as many as the trailer counts.
Status DecodeMetaGroups(const Slice& groups, const MetaTrailer& trailer,
                        const std::string& path_for_errors, MetaIndex* result);

}  // namespace leveldb

#endif  // DELSM_TABLE_META_FILE_H_
