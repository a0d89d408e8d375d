// Manifest record encoding. A record is a sequence of fields, each a varint32
// tag followed by that field's payload. Tags are part of the on-disk format:
// never renumber them; add new ones at the end.
#include "db/version_edit.h"

#include <algorithm>
#include <string>

#include "table/sst_dir_builder.h"
#include "util/coding.h"
#include "util/logging.h"

namespace leveldb {

namespace {

// LevelDB's manifest uses tags 1-9 (9 is its PrevLogNumber), so DeLSM's
// tags start far from them: no DeLSM record can be misread as a LevelDB
// edit or the other way round. Every DeLSM record begins with
// kFormatMarkerTag and the format version, which is how DeLSM tells its own
// manifests from LevelDB's (compat/leveldb/directory_kind.h). Manifests
// written before the marker used tags 1-9 and are not read (that format was
// never released).
enum FieldTag : uint32_t {
  kFormatMarkerTag = 7000,    // varint32 format version; first in a record
  kComparatorTag = 7001,      // length-prefixed comparator name
  kLogNumberTag = 7002,       // varint64
  kPrevLogNumberTag = 7003,   // varint64
  kNextFileNumberTag = 7004,  // varint64
  kLastSequenceTag = 7005,    // varint64
  kCompactPointerTag = 7006,  // varint32 level, length-prefixed internal key
  kRemovedSstTag = 7007,      // varint32 level, varint64 number
  kAddedSstTag = 7008,        // varint32 level, varint64 number, dir,
                              // dir entries, entries, value bytes,
                              // length-prefixed smallest, largest
  kAddedSstWithDiskBytesTag = 7009,  // kAddedSstTag's fields, then varint64
                                     // bytes on disk (FileMetaData)
  kAddedSstWithSequencesTag = 7010,  // kAddedSstWithDiskBytesTag's fields,
                                     // then varint64 smallest and largest
                                     // sequence number of its entries and
                                     // the WAL it was flushed from (or 0)
  kAddedSstWithMetaBytesTag = 7011,  // kAddedSstWithSequencesTag's fields,
                                     // then varint64 meta bytes
};

constexpr uint32_t kFormatVersion = 1;

bool GetLevel(Slice* input, int* level) {
  uint32_t v;
  if (!GetVarint32(input, &v) ||
      v >= static_cast<uint32_t>(config::kNumLevels)) {
    return false;
  }
  *level = static_cast<int>(v);
  return true;
}

bool GetInternalKey(Slice* input, InternalKey* key) {
  Slice s;
  // An internal key always carries its 8-byte tag.
  if (!GetLengthPrefixedSlice(input, &s) || s.size() < 8) return false;
  return key->DecodeFrom(s);
}

}  // namespace

FileMetaData BuiltSstMetaData(uint64_t number, uint64_t dir,
                              const SstDirBuilder& builder) {
  FileMetaData meta;
  meta.number = number;
  meta.dir = dir;
  meta.dir_entries = builder.DirEntries();
  meta.entries = builder.NumEntries();
  meta.value_bytes = builder.ValueBytes();
  meta.disk_bytes = builder.DiskBytes();
  meta.meta_bytes = builder.MetaBytes();
  meta.smallest.DecodeFrom(builder.smallest());
  meta.largest.DecodeFrom(builder.largest());
  if (builder.NumEntries() > 0) {
    meta.has_sequence_range = true;
    meta.smallest_sequence = builder.SmallestSequence();
    meta.largest_sequence = builder.LargestSequence();
  }
  return meta;
}

void VersionEdit::Clear() {
  comparator_.clear();
  log_number_ = 0;
  prev_log_number_ = 0;
  next_file_number_ = 0;
  last_sequence_ = 0;
  has_comparator_ = false;
  has_log_number_ = false;
  has_prev_log_number_ = false;
  has_next_file_number_ = false;
  has_last_sequence_ = false;
  compact_pointers_.clear();
  deleted_files_.clear();
  new_files_.clear();
}

void VersionEdit::EncodeTo(std::string* dst) const {
  PutVarint32(dst, kFormatMarkerTag);
  PutVarint32(dst, kFormatVersion);
  if (has_comparator_) {
    PutVarint32(dst, kComparatorTag);
    PutLengthPrefixedSlice(dst, comparator_);
  }
  if (has_log_number_) {
    PutVarint32(dst, kLogNumberTag);
    PutVarint64(dst, log_number_);
  }
  if (has_prev_log_number_) {
    PutVarint32(dst, kPrevLogNumberTag);
    PutVarint64(dst, prev_log_number_);
  }
  if (has_next_file_number_) {
    PutVarint32(dst, kNextFileNumberTag);
    PutVarint64(dst, next_file_number_);
  }
  if (has_last_sequence_) {
    PutVarint32(dst, kLastSequenceTag);
    PutVarint64(dst, last_sequence_);
  }
  for (const auto& cp : compact_pointers_) {
    PutVarint32(dst, kCompactPointerTag);
    PutVarint32(dst, static_cast<uint32_t>(cp.first));
    PutLengthPrefixedSlice(dst, cp.second.Encode());
  }
  for (const auto& removed : deleted_files_) {
    PutVarint32(dst, kRemovedSstTag);
    PutVarint32(dst, static_cast<uint32_t>(removed.first));
    PutVarint64(dst, removed.second);
  }
  for (const auto& added : new_files_) {
    const FileMetaData& f = added.second;
    // The newest tag that carries every field this SST has: an SST from an
    // older manifest keeps its zeros for what that manifest did not record.
    const bool with_meta_bytes = f.has_sequence_range && f.meta_bytes > 0;
    PutVarint32(dst, with_meta_bytes        ? kAddedSstWithMetaBytesTag
                     : f.has_sequence_range ? kAddedSstWithSequencesTag
                                            : kAddedSstWithDiskBytesTag);
    PutVarint32(dst, static_cast<uint32_t>(added.first));
    PutVarint64(dst, f.number);
    PutVarint64(dst, f.dir);
    PutVarint64(dst, f.dir_entries);
    PutVarint64(dst, f.entries);
    PutVarint64(dst, f.value_bytes);
    PutLengthPrefixedSlice(dst, f.smallest.Encode());
    PutLengthPrefixedSlice(dst, f.largest.Encode());
    PutVarint64(dst, f.disk_bytes);
    if (f.has_sequence_range) {
      PutVarint64(dst, f.smallest_sequence);
      PutVarint64(dst, f.largest_sequence);
      PutVarint64(dst, f.wal_number);
    }
    if (with_meta_bytes) PutVarint64(dst, f.meta_bytes);
  }
}

Status VersionEdit::DecodeFrom(const Slice& src) {
  Clear();
  Slice input = src;
  uint32_t tag, version;
  if (!GetVarint32(&input, &tag) || tag != kFormatMarkerTag) {
    return Status::Corruption("version edit without DeLSM's format marker");
  }
  if (!GetVarint32(&input, &version)) {
    return Status::Corruption("malformed version edit field", "format version");
  }
  if (version != kFormatVersion) {
    return Status::NotSupported(
        "manifest format version " + std::to_string(version),
        "this DeLSM reads version " + std::to_string(kFormatVersion));
  }
  const char* bad_field = nullptr;
  while (bad_field == nullptr && !input.empty()) {
    if (!GetVarint32(&input, &tag)) {
      bad_field = "field tag";
      break;
    }
    switch (tag) {
      case kComparatorTag: {
        Slice name;
        if (GetLengthPrefixedSlice(&input, &name)) {
          SetComparatorName(name);
        } else {
          bad_field = "comparator name";
        }
        break;
      }
      case kLogNumberTag:
        if (GetVarint64(&input, &log_number_)) {
          has_log_number_ = true;
        } else {
          bad_field = "log number";
        }
        break;
      case kPrevLogNumberTag:
        if (GetVarint64(&input, &prev_log_number_)) {
          has_prev_log_number_ = true;
        } else {
          bad_field = "previous log number";
        }
        break;
      case kNextFileNumberTag:
        if (GetVarint64(&input, &next_file_number_)) {
          has_next_file_number_ = true;
        } else {
          bad_field = "next file number";
        }
        break;
      case kLastSequenceTag:
        if (GetVarint64(&input, &last_sequence_)) {
          has_last_sequence_ = true;
        } else {
          bad_field = "last sequence number";
        }
        break;
      case kCompactPointerTag: {
        int level;
        InternalKey key;
        if (GetLevel(&input, &level) && GetInternalKey(&input, &key)) {
          compact_pointers_.push_back(std::make_pair(level, key));
        } else {
          bad_field = "compaction pointer";
        }
        break;
      }
      case kRemovedSstTag: {
        int level;
        uint64_t number;
        if (GetLevel(&input, &level) && GetVarint64(&input, &number)) {
          deleted_files_.insert(std::make_pair(level, number));
        } else {
          bad_field = "removed directory";
        }
        break;
      }
      case kAddedSstTag:
      case kAddedSstWithDiskBytesTag:
      case kAddedSstWithSequencesTag:
      case kAddedSstWithMetaBytesTag: {
        const bool with_sequences = tag == kAddedSstWithSequencesTag ||
                                    tag == kAddedSstWithMetaBytesTag;
        int level;
        FileMetaData f;
        if (GetLevel(&input, &level) && GetVarint64(&input, &f.number) &&
            GetVarint64(&input, &f.dir) &&
            GetVarint64(&input, &f.dir_entries) &&
            GetVarint64(&input, &f.entries) &&
            GetVarint64(&input, &f.value_bytes) &&
            GetInternalKey(&input, &f.smallest) &&
            GetInternalKey(&input, &f.largest) &&
            (tag == kAddedSstTag || GetVarint64(&input, &f.disk_bytes)) &&
            (!with_sequences || (GetVarint64(&input, &f.smallest_sequence) &&
                                 GetVarint64(&input, &f.largest_sequence) &&
                                 GetVarint64(&input, &f.wal_number) &&
                                 f.smallest_sequence <= f.largest_sequence)) &&
            (tag != kAddedSstWithMetaBytesTag ||
             GetVarint64(&input, &f.meta_bytes))) {
          f.has_sequence_range = with_sequences;
          new_files_.push_back(std::make_pair(level, f));
        } else {
          bad_field = "added SST";
        }
        break;
      }
      default:
        bad_field = "unknown field tag";
        break;
    }
  }
  if (bad_field != nullptr) {
    return Status::Corruption("malformed version edit field", bad_field);
  }
  return Status::OK();
}

uint64_t VersionEdit::NumberBound() const {
  uint64_t bound = has_next_file_number_ ? next_file_number_ : 0;
  for (const auto& gone : deleted_files_) {
    bound = std::max(bound, gone.second + 1);
  }
  for (const auto& added : new_files_) {
    bound = std::max(bound, added.second.number + 1);
    bound = std::max(bound, added.second.dir + 1);
  }
  return bound;
}

bool VersionEdit::HasFormatMarker(const Slice& record) {
  Slice input = record;
  uint32_t tag;
  return GetVarint32(&input, &tag) && tag == kFormatMarkerTag;
}

std::string VersionEdit::DebugString() const {
  std::string r = "VersionEdit {";
  if (has_comparator_) {
    r.append("\n  Comparator: ");
    r.append(comparator_);
  }
  if (has_log_number_) {
    r.append("\n  LogNumber: ");
    AppendNumberTo(&r, log_number_);
  }
  if (has_prev_log_number_) {
    r.append("\n  PrevLogNumber: ");
    AppendNumberTo(&r, prev_log_number_);
  }
  if (has_next_file_number_) {
    r.append("\n  NextFile: ");
    AppendNumberTo(&r, next_file_number_);
  }
  if (has_last_sequence_) {
    r.append("\n  LastSeq: ");
    AppendNumberTo(&r, last_sequence_);
  }
  for (const auto& cp : compact_pointers_) {
    r.append("\n  CompactPointer: L");
    AppendNumberTo(&r, cp.first);
    r.append(" ");
    r.append(cp.second.DebugString());
  }
  for (const auto& removed : deleted_files_) {
    r.append("\n  RemoveDir: L");
    AppendNumberTo(&r, removed.first);
    r.append(" #");
    AppendNumberTo(&r, removed.second);
  }
  for (const auto& added : new_files_) {
    const FileMetaData& f = added.second;
    r.append("\n  AddDir: L");
    AppendNumberTo(&r, added.first);
    r.append(" #");
    AppendNumberTo(&r, f.number);
    r.append(" dir=");
    AppendNumberTo(&r, f.dir);
    r.append(" entries=");
    AppendNumberTo(&r, f.entries);
    r.append(" value_bytes=");
    AppendNumberTo(&r, f.value_bytes);
    r.append(" disk_bytes=");
    AppendNumberTo(&r, f.disk_bytes);
    r.append(" meta_bytes=");
    AppendNumberTo(&r, f.meta_bytes);
    if (f.has_sequence_range) {
      r.append(" sequences=");
      AppendNumberTo(&r, f.smallest_sequence);
      r.append("..");
      AppendNumberTo(&r, f.largest_sequence);
      r.append(" wal=");
      AppendNumberTo(&r, f.wal_number);
    }
    r.append(" [");
    r.append(f.smallest.DebugString());
    r.append(" .. ");
    r.append(f.largest.DebugString());
    r.append("]");
  }
  r.append("\n}\n");
  return r;
}

}  // namespace leveldb
