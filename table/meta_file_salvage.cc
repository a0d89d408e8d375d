// The salvage of a damaged format-4 meta file (table/meta_file_salvage.h).
#include "table/meta_file_salvage.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

bool FindMetaGroupAt(const Slice& bytes, std::vector<MetaIndexEntry>* out,
                     uint64_t* size) {
  out->clear();
  // The group as a trailer would describe one that runs to the end of
  // `bytes` and holds a full group's entries, some with KV files, its
  // inline values anywhere: each record is then checked as
  // DecodeMetaGroup checks it, but for what only the trailer knows.
  MetaTrailer trailer;
  trailer.num_entries = kMetaGroupEntries;
  trailer.kv_entries = 1;
  trailer.groups.resize(1);
  trailer.groups[0].size = bytes.size();
  trailer.groups[0].value_end = UINT64_MAX;
  static const std::string kNoName;
  std::vector<MetaIndexEntry> entries(kMetaGroupEntries);
  MetaGroupCursor cursor;
  uint32_t crc = 0;
  for (size_t n = 1; n <= kMetaGroupEntries; n++) {
    const char* const record = cursor.next;
    Status s = n == 1 ? StartCheckedMetaGroup(bytes, trailer, 0, n, kNoName,
                                              entries.data(), &cursor)
                      : ContinueCheckedMetaGroup(trailer, 0, n, kNoName,
                                                 entries.data(), &cursor);
    if (!s.ok()) return false;
    const char* const start = n == 1 ? bytes.data() : record;
    crc = crc32c::Extend(crc, start, static_cast<size_t>(cursor.next - start));
    // cursor.limit leaves the 4 bytes of a crc after every record.
    if (crc32c::Unmask(DecodeFixed32(cursor.next)) == crc) {
      entries.resize(n);
      for (MetaIndexEntry& e : entries) e.inline_offset = 0;
      *out = std::move(entries);
      *size = static_cast<uint64_t>(cursor.next - bytes.data()) + 4;
      return true;
    }
  }
  return false;
}

namespace {

// Copies `e` into *out with its inline value (at e.inline_offset in
// `data`) when it is inline; false if that value fails its crc.
bool TakeEntry(const Slice& data, const MetaIndexEntry& e, MetaEntry* out) {
  *out = CopyOfEntry(e);
  if (!StoredInline(e.storage)) return true;
  if (e.inline_offset > data.size() ||
      e.stored_size > data.size() - e.inline_offset) {
    return false;
  }
  out->inline_value.assign(data.data() + e.inline_offset, e.stored_size);
  return crc32c::Mask(crc32c::Value(out->inline_value.data(),
                                    out->inline_value.size())) == e.stored_crc;
}

// The groups of `data` by the trailer `trailer`.
Status SalvageByTrailer(const Slice& data, const MetaTrailer& trailer,
                        const std::string& path_for_errors,
                        MetaFileSalvage* result) {
  std::vector<MetaIndexEntry> group(kMetaGroupEntries);
  for (size_t g = 0; g < trailer.groups.size(); g++) {
    const MetaGroup& m = trailer.groups[g];
    // DecodeMetaTrailer checked that the groups tile the file before the
    // trailer.
    Status s = DecodeMetaGroup(Slice(data.data() + m.offset, m.size), trailer,
                               g, path_for_errors, group.data());
    if (!s.ok()) {
      const Slice next = g + 1 < trailer.groups.size()
                             ? trailer.groups[g + 1].first_key
                             : trailer.largest;
      if (next.size() < 8) {
        return Status::Corruption(path_for_errors, "bad largest key");
      }
      MetaFileSalvage::LostGroup lost;
      lost.group = g;
      lost.entries = trailer.EntriesIn(g);
      lost.smallest_user_key = ExtractUserKey(m.first_key).ToString();
      lost.largest_user_key = ExtractUserKey(next).ToString();
      lost.first_key = m.first_key.ToString();
      lost.limit_key = next.ToString();
      lost.limit_included = g + 1 == trailer.groups.size();
      lost.why = s;
      result->lost_groups.push_back(std::move(lost));
      continue;
    }
    for (uint64_t i = 0; i < trailer.EntriesIn(g); i++) {
      MetaEntry e;
      if (TakeEntry(data, group[i], &e)) {
        result->entries.push_back(std::move(e));
      } else {
        result->damaged_value_keys.push_back(
            ExtractUserKey(group[i].internal_key).ToString());
      }
    }
  }
  result->trailer_read = true;
  result->filter = trailer.filter.ToString();
  return Status::OK();
}

// The groups of `data`, whose trailer starts at `trailer_offset`, found by
// their own checksums (see SalvageMetaFile): the chain starting at `start`,
// or false.
bool ChainAt(const Slice& data, uint64_t start, uint64_t trailer_offset,
             const Comparator* icmp, std::vector<MetaIndexEntry>* entries) {
  entries->clear();
  std::vector<MetaIndexEntry> group;
  uint64_t inline_bytes = 0;
  uint64_t pos = start;
  while (pos < trailer_offset) {
    uint64_t size;
    if (!FindMetaGroupAt(Slice(data.data() + pos, trailer_offset - pos), &group,
                         &size)) {
      return false;
    }
    pos += size;
    // Only the last group may be short.
    if (group.size() < kMetaGroupEntries && pos != trailer_offset) {
      return false;
    }
    for (const MetaIndexEntry& e : group) {
      if (!entries->empty() &&
          icmp->Compare(entries->back().internal_key, e.internal_key) >= 0) {
        return false;
      }
      if (StoredInline(e.storage)) inline_bytes += e.stored_size;
      entries->push_back(e);
    }
    if (inline_bytes > start - kMetaValuesOffset) return false;
  }
  return !entries->empty() && kMetaValuesOffset + inline_bytes == start;
}

// The groups of `data` without a trailer.
Status SalvageByChain(const Slice& data, uint64_t trailer_offset,
                      const Comparator* icmp,
                      const std::string& path_for_errors,
                      MetaFileSalvage* result) {
  std::vector<MetaIndexEntry> entries;
  for (uint64_t start = kMetaValuesOffset; start < trailer_offset; start++) {
    if (!ChainAt(data, start, trailer_offset, icmp, &entries)) continue;
    // The inline values follow each other in entry order from the value
    // section's start.
    uint64_t offset = kMetaValuesOffset;
    for (MetaIndexEntry& e : entries) {
      if (StoredInline(e.storage)) {
        e.inline_offset = offset;
        offset += e.stored_size;
      }
      MetaEntry taken;
      if (TakeEntry(data, e, &taken)) {
        result->entries.push_back(std::move(taken));
      } else {
        result->damaged_value_keys.push_back(
            ExtractUserKey(e.internal_key).ToString());
      }
    }
    return Status::OK();
  }
  return Status::Corruption(path_for_errors,
                            "no chain of groups from the inline values to the "
                            "trailer");
}

}  // namespace

Status SalvageMetaFile(const Slice& data, const Comparator* icmp,
                       const std::string& path_for_errors,
                       MetaFileSalvage* result) {
  *result = MetaFileSalvage();
  MetaIndexRange range;
  Status s = DecodeMetaFooter(data, data.size(), path_for_errors, &range);
  if (!s.ok()) return s;
  if (range.version != 4) {
    return Status::Corruption(
        path_for_errors,
        "format " + std::to_string(range.version) + ": no groups to salvage");
  }
  MetaTrailer trailer;
  s = DecodeMetaTrailer(Slice(data.data() + range.offset, range.size), range,
                        path_for_errors, &trailer);
  if (s.ok()) return SalvageByTrailer(data, trailer, path_for_errors, result);
  return SalvageByChain(data, range.offset, icmp, path_for_errors, result);
}

}  // namespace leveldb
