// META's format-4 groups decoded (table/meta_file.h): a group checked
// whole on its first read, then decoded a few entries at a time.
#include <string>

#include "table/meta_file.h"
#include "table/meta_file_record.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

using meta_file_internal::DecodeRecord;
using meta_file_internal::kFormatVersionGroups;

namespace {

Status GroupCorruption(const std::string& path_for_errors, size_t g,
                       const std::string& what) {
  return Status::Corruption(path_for_errors,
                            "group " + std::to_string(g) + ": " + what);
}

// Decodes the entries of group g from cursor->decoded on into out[..],
// checking each entry's fields, until `until` of them are decoded, and
// moves the cursor past the last one decoded. With `cmp`, stops after the
// first entry from index `from` on whose key is at or after `target`, and
// sets *stop to its index (to `until` if there is none).
Status DecodeGroupRecords(MetaGroupCursor* cursor, const MetaTrailer& trailer,
                          size_t g, const Comparator* cmp, const Slice& target,
                          size_t from, size_t until,
                          const std::string& path_for_errors,
                          MetaIndexEntry* out, size_t* stop) {
  assert(until <= trailer.EntriesIn(g));
  // The cursor is kept in locals and stored back once (the entries' Slices
  // are char pointers too, which would make the compiler store and reload
  // it around every entry).
  const char* next = cursor->next;
  const char* const limit = cursor->limit;
  uint64_t value_offset = cursor->value_offset;
  const uint64_t value_end = trailer.groups[g].value_end;
  const bool no_kv_files = trailer.kv_entries == 0;
  size_t i = cursor->decoded;
  std::string error;
  const char* what = nullptr;
  for (; i < until; i++) {
    MetaIndexEntry& e = out[i];
    if (!DecodeRecord(&next, limit, kFormatVersionGroups, &e, &error)) break;
    e.inline_offset = 0;
    // A reader of such an SST may hold no directory to read a KV file in
    // (SstDir::OpenDescriptors).
    if (no_kv_files && HasKvFile(e.storage)) {
      what = "a KV file, and the trailer counts none";
      break;
    }
    if (StoredInline(e.storage)) {
      if (e.stored_size > value_end - value_offset) {
        what = "inline value runs past its group's values";
        break;
      }
      e.inline_offset = value_offset;
      value_offset += e.stored_size;
    }
    if (cmp != nullptr && i >= from &&
        cmp->Compare(e.internal_key, target) >= 0) {
      cursor->next = next;
      cursor->value_offset = value_offset;
      cursor->decoded = i + 1;
      *stop = i;
      return Status::OK();
    }
  }
  cursor->next = next;
  cursor->value_offset = value_offset;
  cursor->decoded = i;
  if (i < until) {
    return GroupCorruption(
        path_for_errors, g,
        "entry " + std::to_string(g * kMetaGroupEntries + i) + ": " +
            (what != nullptr ? std::string(what) : error));
  }
  *stop = until;
  return Status::OK();
}

// A cursor at the first record of group g, whose bytes are `group`;
// Corruption if they are not the trailer's length for it.
Status StartGroup(const Slice& group, const MetaTrailer& trailer, size_t g,
                  const std::string& path_for_errors, MetaGroupCursor* cursor) {
  const MetaGroup& m = trailer.groups[g];
  if (group.size() != m.size || group.size() < 4) {
    return GroupCorruption(path_for_errors, g, "truncated");
  }
  cursor->next = group.data();
  cursor->limit = group.data() + group.size() - 4;
  cursor->value_offset = m.value_offset;
  cursor->decoded = 0;
  return Status::OK();
}

}  // namespace

Status DecodeMetaGroup(const Slice& group, const MetaTrailer& trailer, size_t g,
                       const std::string& path_for_errors,
                       MetaIndexEntry* out) {
  const MetaGroup& m = trailer.groups[g];
  MetaGroupCursor cursor;
  Status s = StartGroup(group, trailer, g, path_for_errors, &cursor);
  if (!s.ok()) return s;
  const size_t records = group.size() - 4;
  if (crc32c::Value(group.data(), records) !=
      crc32c::Unmask(DecodeFixed32(group.data() + records))) {
    return GroupCorruption(path_for_errors, g, "checksum mismatch");
  }
  size_t all;
  s = DecodeGroupRecords(&cursor, trailer, g, nullptr, Slice(), 0,
                         trailer.EntriesIn(g), path_for_errors, out, &all);
  if (!s.ok()) return s;
  if (cursor.next != cursor.limit) {
    return GroupCorruption(path_for_errors, g, "unexpected trailing bytes");
  }
  if (cursor.value_offset != m.value_end) {
    return GroupCorruption(path_for_errors, g,
                           "inline values do not fill the group's values");
  }
  if (out[0].internal_key != m.first_key) {
    return GroupCorruption(path_for_errors, g,
                           "first key differs from the trailer's");
  }
  return Status::OK();
}

Status SeekInCheckedMetaGroup(const Slice& group, const MetaTrailer& trailer,
                              size_t g, const Comparator* cmp,
                              const Slice& target, size_t from,
                              const std::string& path_for_errors,
                              MetaIndexEntry* out, size_t* pos,
                              MetaGroupCursor* cursor) {
  MetaGroupCursor local;
  if (cursor == nullptr) cursor = &local;
  Status s = StartGroup(group, trailer, g, path_for_errors, cursor);
  if (!s.ok()) return s;
  return DecodeGroupRecords(cursor, trailer, g, cmp, target, from,
                            trailer.EntriesIn(g), path_for_errors, out, pos);
}

Status StartCheckedMetaGroup(const Slice& group, const MetaTrailer& trailer,
                             size_t g, size_t until,
                             const std::string& path_for_errors,
                             MetaIndexEntry* out, MetaGroupCursor* cursor) {
  Status s = StartGroup(group, trailer, g, path_for_errors, cursor);
  if (!s.ok()) return s;
  return ContinueCheckedMetaGroup(trailer, g, until, path_for_errors, out,
                                  cursor);
}

Status ContinueCheckedMetaGroup(const MetaTrailer& trailer, size_t g,
                                size_t until,
                                const std::string& path_for_errors,
                                MetaIndexEntry* out, MetaGroupCursor* cursor) {
  size_t stop;
  return DecodeGroupRecords(cursor, trailer, g, nullptr, Slice(), 0, until,
                            path_for_errors, out, &stop);
}

Status DecodeMetaGroups(const Slice& groups, const MetaTrailer& trailer,
                        const std::string& path_for_errors, MetaIndex* result) {
  *result = MetaIndex();
  const uint64_t end = trailer.groups.empty() ? trailer.groups_offset
                                              : trailer.groups.back().offset +
                                                    trailer.groups.back().size;
  if (groups.size() != end - trailer.groups_offset) {
    return Status::Corruption(path_for_errors, "meta file groups truncated");
  }
  MetaIndex index;
  index.entries.resize(trailer.num_entries);
  for (size_t g = 0; g < trailer.groups.size(); g++) {
    const MetaGroup& m = trailer.groups[g];
    Status s = DecodeMetaGroup(
        Slice(groups.data() + (m.offset - trailer.groups_offset), m.size),
        trailer, g, path_for_errors, &index.entries[g * kMetaGroupEntries]);
    if (!s.ok()) return s;
  }
  uint64_t kv_entries = 0;
  for (const MetaIndexEntry& e : index.entries) {
    if (HasKvFile(e.storage)) kv_entries++;
  }
  if (kv_entries != trailer.kv_entries) {
    return Status::Corruption(
        path_for_errors, std::to_string(kv_entries) +
                             " entries with a KV file, the trailer counts " +
                             std::to_string(trailer.kv_entries));
  }
  if (!index.entries.empty() &&
      trailer.largest != index.entries.back().internal_key) {
    return Status::Corruption(path_for_errors,
                              "key range does not match the entries");
  }
  index.comparator_name = trailer.comparator_name;
  index.filter = trailer.filter;
  index.smallest = trailer.smallest;
  index.largest = trailer.largest;
  *result = std::move(index);
  return Status::OK();
}

}  // namespace leveldb
