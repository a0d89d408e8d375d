// META encoding and decoding. See meta_file.h for the layout.
#include "table/meta_file.h"

#include <cassert>
#include <cstdio>
#include <cstring>

#include "table/meta_file_record.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "util/logging.h"

namespace leveldb {

using meta_file_internal::DecodeRecord;
using meta_file_internal::kFormatVersion2;
using meta_file_internal::kFormatVersionGroups;
using meta_file_internal::kFormatVersionHomes;
using meta_file_internal::ReadVarint32;
using meta_file_internal::ReadVarint64;

namespace {

constexpr char kMagic[] = "DLSMMETA";
constexpr char kEndMagic[] = "DLSMEND2";
constexpr char kEndMagicV1[] = "DLSMEND!";
constexpr size_t kMagicLength = 8;
// Format 1's trailer: masked crc32c, then the end magic.
constexpr size_t kTrailerLength = 4 + kMagicLength;
// Smallest possible encoded entry: a 1-byte length prefix and an 8-byte tag,
// the storage byte, two 1-byte varints and the crc.
constexpr size_t kMinEntryLength = 1 + 8 + 1 + 1 + 1 + 4;
// Smallest possible description of a group in the trailer: two 1-byte
// varints and a first key of a 1-byte length prefix and an 8-byte tag.
constexpr size_t kMinGroupLength = 1 + 1 + 1 + 8;

std::string NumberedName(const char* prefix, uint64_t sst_number,
                         uint64_t dir_number) {
  if (sst_number == dir_number) return prefix;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s-%06llu", prefix,
                static_cast<unsigned long long>(sst_number));
  return buf;
}

// Parses "<prefix>" (the directory's own SST) or "<prefix>-<digits>",
// spelled as NumberedName spells it.
bool ParseNumberedName(const std::string& name, const char* prefix,
                       uint64_t dir_number, uint64_t* sst_number) {
  const size_t n = std::strlen(prefix);
  if (name.compare(0, n, prefix) != 0) return false;
  if (name.size() == n) {
    *sst_number = dir_number;
    return true;
  }
  if (name[n] != '-') return false;
  Slice rest(name.data() + n + 1, name.size() - n - 1);
  uint64_t v;
  if (!ConsumeDecimalNumber(&rest, &v) || !rest.empty()) return false;
  // Only the spelling NumberedName gives v: "META-5" or "META-0000005" is
  // not DeLSM's, and whatever removes meta files leaves it alone.
  if (NumberedName(prefix, v, dir_number) != name) return false;
  *sst_number = v;
  return true;
}

}  // namespace

std::string MetaFileName(uint64_t sst_number, uint64_t dir_number) {
  return NumberedName(kMetaFileName, sst_number, dir_number);
}

std::string LongKeysFileName(uint64_t sst_number, uint64_t dir_number) {
  return NumberedName(kLongKeysFileName, sst_number, dir_number);
}

bool ParseMetaFileName(const std::string& name, uint64_t dir_number,
                       uint64_t* sst_number) {
  return ParseNumberedName(name, kMetaFileName, dir_number, sst_number);
}

bool ParseLongKeysFileName(const std::string& name, uint64_t dir_number,
                           uint64_t* sst_number) {
  return ParseNumberedName(name, kLongKeysFileName, dir_number, sst_number);
}

MetaFileEncoder::MetaFileEncoder() {
  file_.append(kMagic, kMagicLength);
  PutFixed32(&file_, kFormatVersionGroups);
}

void MetaFileEncoder::Add(const Slice& internal_key, const ValueRecord& entry,
                          const Slice& inline_stored) {
  const bool opens_group = num_entries_ % kMetaGroupEntries == 0;
  if (opens_group) {
    group_offset_ = entries_.size();
    group_value_offset_ = file_.size() - kMetaValuesOffset;
  }
  if (StoredInline(entry.storage)) {
    file_.append(inline_stored.data(), inline_stored.size());
  }
  if (HasKvFile(entry.storage)) kv_entries_++;
  // The record is encoded on the stack and appended at once: an entry of
  // a small value is mostly this record, and seven appends of its fields
  // cost more than the rest of its encoding (callgrind, a 128 B load).
  // A record too long for the buffer (a long key) is appended in pieces.
  constexpr size_t kMaxFields = 1 + 10 + 10 + 4 + 10;
  char buf[256];
  char* p = EncodeVarint32(buf, static_cast<uint32_t>(internal_key.size()));
  const size_t key_offset = entries_.size() + (p - buf);
  if (internal_key.size() <= sizeof(buf) - 5 - kMaxFields) {
    std::memcpy(p, internal_key.data(), internal_key.size());
    p += internal_key.size();
  } else {
    entries_.append(buf, p - buf);
    entries_.append(internal_key.data(), internal_key.size());
    p = buf;
  }
  *p++ = static_cast<char>(entry.storage);
  p = EncodeVarint64(p, entry.value_size);
  p = EncodeVarint64(p, entry.stored_size);
  EncodeFixed32(p, entry.stored_crc);
  p += 4;
  if (StoredInHome(entry.storage)) p = EncodeVarint64(p, entry.home);
  entries_.append(buf, p - buf);
  last_key_offset_ = key_offset;
  last_key_size_ = internal_key.size();
  if (opens_group) {
    group_key_offset_ = key_offset;
    group_key_size_ = internal_key.size();
  }
  num_entries_++;
  if (num_entries_ % kMetaGroupEntries == 0) CloseGroup();
}

void MetaFileEncoder::CloseGroup() {
  const uint32_t crc = crc32c::Value(entries_.data() + group_offset_,
                                     entries_.size() - group_offset_);
  PutFixed32(&entries_, crc32c::Mask(crc));
  PutVarint64(&groups_, entries_.size() - group_offset_);
  PutVarint64(&groups_, group_value_offset_);
  PutLengthPrefixedSlice(
      &groups_, Slice(entries_.data() + group_key_offset_, group_key_size_));
}

void MetaFileEncoder::Finish(const Slice& comparator_name, const Slice& filter,
                             const Slice& smallest, const Slice& largest,
                             std::string* out) {
  if (num_entries_ % kMetaGroupEntries != 0) CloseGroup();  // the last one
  std::string& f = file_;
  const uint64_t values_size = f.size() - kMetaValuesOffset;
  // One allocation for the whole file: the groups, the trailer's parts (at
  // most 10 bytes of length prefix or varint each) and the footer.
  f.reserve(f.size() + entries_.size() + comparator_name.size() + 10 + 10 + 10 +
            10 + groups_.size() + filter.size() + 10 + smallest.size() + 10 +
            largest.size() + 10 + kMetaTailLength);
  f.append(entries_);
  const uint64_t trailer_offset = f.size();
  PutLengthPrefixedSlice(&f, comparator_name);
  PutVarint64(&f, num_entries_);
  PutVarint64(&f, kv_entries_);
  PutVarint64(&f, values_size);
  f.append(groups_);
  PutLengthPrefixedSlice(&f, filter);
  PutLengthPrefixedSlice(&f, smallest);
  PutLengthPrefixedSlice(&f, largest);
  const uint32_t crc =
      crc32c::Value(f.data() + trailer_offset, f.size() - trailer_offset);
  PutFixed64(&f, trailer_offset);
  PutFixed32(&f, crc32c::Mask(crc));
  PutFixed32(&f, kFormatVersionGroups);
  f.append(kEndMagic, kMagicLength);
  out->swap(f);
  std::string().swap(f);
  std::string().swap(entries_);
  std::string().swap(groups_);
}

MetaEntry CopyOfEntry(const MetaIndexEntry& entry) {
  MetaEntry copy;
  static_cast<ValueRecord&>(copy) = entry;
  copy.internal_key = entry.internal_key.ToString();
  return copy;
}

std::string EncodeMetaFile(const MetaFileContents& contents) {
  MetaFileEncoder encoder;
  for (const MetaEntry& e : contents.entries) {
    encoder.Add(e.internal_key, e, e.inline_value);
  }
  std::string out;
  encoder.Finish(contents.comparator_name, contents.filter, contents.smallest,
                 contents.largest, &out);
  return out;
}

namespace {

// Decodes the index proper (comparator name through key range) of a format
// 1 to 3 file from `in`, which must be consumed exactly, into *result,
// pointing into `in`. In format 1 each inline value follows its entry, and
// its inline_offset is its distance from `file_start` (the file's first
// byte); in formats 2 and 3 inline entries get the offset of their bytes in
// the value section, which starts at kMetaValuesOffset and is `values_size`
// bytes long.
Status DecodeIndexBody(Slice in, uint32_t version, uint64_t values_size,
                       const char* file_start,
                       const std::string& path_for_errors, MetaIndex* result) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(path_for_errors, what);
  };
  auto corrupt_entry = [&](uint64_t i, const std::string& what) {
    return corrupt("entry " + std::to_string(i) + ": " + what);
  };
  Slice name;
  if (!GetLengthPrefixedSlice(&in, &name)) {
    return corrupt("bad comparator name");
  }
  uint64_t count;
  if (!GetVarint64(&in, &count)) return corrupt("bad entry count");
  // Bound the count by what the bytes could hold before allocating for it.
  if (count > in.size() / kMinEntryLength) {
    return corrupt("entry count " + std::to_string(count) +
                   " exceeds the file's size");
  }
  MetaIndex index;
  index.comparator_name = name;
  index.entries.resize(count);
  const char* p = in.data();
  const char* const limit = p + in.size();
  uint64_t value_offset = kMetaValuesOffset;
  std::string error;
  for (uint64_t i = 0; i < count; i++) {
    MetaIndexEntry& e = index.entries[i];
    if (!DecodeRecord(&p, limit, version, &e, &error)) {
      return corrupt_entry(i, error);
    }
    if (!StoredInline(e.storage)) continue;
    if (version == 1) {
      if (e.stored_size > static_cast<uint64_t>(limit - p)) {
        return corrupt_entry(i, "inline value runs past the end");
      }
      e.inline_offset = static_cast<uint64_t>(p - file_start);
      p += e.stored_size;
    } else {
      if (e.stored_size > kMetaValuesOffset + values_size - value_offset) {
        return corrupt_entry(i, "inline value runs past the value section");
      }
      e.inline_offset = value_offset;
      value_offset += e.stored_size;
    }
  }
  in = Slice(p, static_cast<size_t>(limit - p));
  if (version != 1 && value_offset != kMetaValuesOffset + values_size) {
    return corrupt("inline values do not fill the value section");
  }
  if (!GetLengthPrefixedSlice(&in, &index.filter)) return corrupt("bad filter");
  if (!GetLengthPrefixedSlice(&in, &index.smallest) ||
      !GetLengthPrefixedSlice(&in, &index.largest)) {
    return corrupt("bad key range");
  }
  if (!in.empty()) {
    return corrupt(std::to_string(in.size()) + " unexpected trailing bytes");
  }
  if (count > 0 && (index.smallest != index.entries.front().internal_key ||
                    index.largest != index.entries.back().internal_key)) {
    return corrupt("key range does not match the entries");
  }
  if (count == 0 && (!index.smallest.empty() || !index.largest.empty())) {
    return corrupt("key range given for an empty directory");
  }
  *result = std::move(index);
  return Status::OK();
}

// Format 1: magic, version, body, masked crc of all before it, "DLSMEND!".
Status DecodeVersion1(const Slice& data, const std::string& path_for_errors,
                      MetaIndex* result) {
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(path_for_errors, what);
  };
  if (data.size() < kMagicLength + 4 + kTrailerLength) {
    return corrupt("meta file too short (" + std::to_string(data.size()) +
                   " bytes)");
  }
  if (Slice(data.data(), kMagicLength) != Slice(kMagic, kMagicLength)) {
    return corrupt("bad meta file magic");
  }
  const char* trailer = data.data() + data.size() - kTrailerLength;
  const size_t body_size = data.size() - kTrailerLength;
  if (crc32c::Value(data.data(), body_size) !=
      crc32c::Unmask(DecodeFixed32(trailer))) {
    return corrupt("meta file checksum mismatch");
  }
  if (DecodeFixed32(data.data() + kMagicLength) != 1) {
    return corrupt("unsupported meta file version " +
                   std::to_string(DecodeFixed32(data.data() + kMagicLength)));
  }
  const size_t head = kMagicLength + 4;
  return DecodeIndexBody(Slice(data.data() + head, body_size - head), 1, 0,
                         data.data(), path_for_errors, result);
}

}  // namespace

Status DecodeMetaFooter(const Slice& tail, uint64_t file_size,
                        const std::string& path_for_errors,
                        MetaIndexRange* range) {
  *range = MetaIndexRange();
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(path_for_errors, what);
  };
  if (file_size < kMagicLength + 4 + kTrailerLength ||
      tail.size() < kTrailerLength) {
    return corrupt("meta file too short (" + std::to_string(file_size) +
                   " bytes)");
  }
  const Slice end(tail.data() + tail.size() - kMagicLength, kMagicLength);
  if (end == Slice(kEndMagicV1, kMagicLength)) {
    range->version = 1;
    range->offset = 0;
    range->size = file_size;
    return Status::OK();
  }
  if (end != Slice(kEndMagic, kMagicLength)) {
    return corrupt("bad meta file end marker (truncated?)");
  }
  if (file_size < kMetaValuesOffset + kMetaTailLength ||
      tail.size() < kMetaTailLength) {
    return corrupt("meta file too short (" + std::to_string(file_size) +
                   " bytes)");
  }
  const char* footer = tail.data() + tail.size() - kMetaTailLength;
  const uint64_t offset = DecodeFixed64(footer);
  const uint32_t version = DecodeFixed32(footer + 12);
  if (version != kFormatVersion2 && version != kFormatVersionHomes &&
      version != kFormatVersionGroups) {
    return corrupt("unsupported meta file version " + std::to_string(version));
  }
  if (offset < kMetaValuesOffset || offset > file_size - kMetaTailLength) {
    return corrupt("index offset " + std::to_string(offset) +
                   " outside the file");
  }
  range->version = version;
  range->offset = offset;
  range->size = file_size - kMetaTailLength - offset;
  range->index_crc = crc32c::Unmask(DecodeFixed32(footer + 8));
  return Status::OK();
}

Status DecodeMetaIndex(const Slice& index, const MetaIndexRange& range,
                       const std::string& path_for_errors, MetaIndex* result) {
  *result = MetaIndex();
  if (index.size() != range.size) {
    return Status::Corruption(path_for_errors, "meta file index truncated");
  }
  if (range.version == 1) {
    return DecodeVersion1(index, path_for_errors, result);
  }
  if (range.version == kFormatVersionGroups) {
    return Status::InvalidArgument(path_for_errors,
                                   "format 4 has a trailer, not an index");
  }
  if (crc32c::Value(index.data(), index.size()) != range.index_crc) {
    return Status::Corruption(path_for_errors, "meta file checksum mismatch");
  }
  return DecodeIndexBody(index, range.version, range.offset - kMetaValuesOffset,
                         nullptr, path_for_errors, result);
}

Status DecodeMetaTrailer(const Slice& trailer, const MetaIndexRange& range,
                         const std::string& path_for_errors,
                         MetaTrailer* result) {
  *result = MetaTrailer();
  auto corrupt = [&](const std::string& what) {
    return Status::Corruption(path_for_errors, what);
  };
  if (range.version != kFormatVersionGroups) {
    return Status::InvalidArgument(path_for_errors,
                                   "only format 4 has a trailer");
  }
  if (trailer.size() != range.size) {
    return corrupt("meta file trailer truncated");
  }
  if (crc32c::Value(trailer.data(), trailer.size()) != range.index_crc) {
    return corrupt("meta file trailer checksum mismatch");
  }
  Slice in = trailer;
  MetaTrailer t;
  uint64_t values_size;
  if (!GetLengthPrefixedSlice(&in, &t.comparator_name)) {
    return corrupt("bad comparator name");
  }
  if (!GetVarint64(&in, &t.num_entries) || !GetVarint64(&in, &t.kv_entries) ||
      !GetVarint64(&in, &values_size)) {
    return corrupt("bad entry count or value section size");
  }
  if (t.kv_entries > t.num_entries) {
    return corrupt("more entries with a KV file than entries");
  }
  if (values_size > range.offset - kMetaValuesOffset) {
    return corrupt("value section runs past the trailer");
  }
  t.groups_offset = kMetaValuesOffset + values_size;
  const uint64_t num_groups = t.num_entries / kMetaGroupEntries +
                              (t.num_entries % kMetaGroupEntries != 0 ? 1 : 0);
  // Bound the count by what the bytes could hold before allocating for it.
  if (num_groups > in.size() / kMinGroupLength) {
    return corrupt("entry count " + std::to_string(t.num_entries) +
                   " exceeds the trailer's size");
  }
  t.groups.resize(num_groups);
  uint64_t offset = t.groups_offset;
  // The groups' descriptions are most of what an open decodes: read with
  // the short-varint fast path, in place.
  const char* p = in.data();
  const char* const limit = p + in.size();
  for (uint64_t g = 0; g < num_groups; g++) {
    MetaGroup& group = t.groups[g];
    uint64_t value_offset;
    uint32_t key_size;
    if (!ReadVarint64(&p, limit, &group.size) ||
        !ReadVarint64(&p, limit, &value_offset) ||
        !ReadVarint32(&p, limit, &key_size) ||
        key_size > static_cast<uint64_t>(limit - p)) {
      return corrupt("group " + std::to_string(g) + ": truncated");
    }
    group.first_key = Slice(p, key_size);
    p += key_size;
    if (group.size < 4 + t.EntriesIn(g) * kMinEntryLength ||
        group.size > range.offset - offset) {
      return corrupt("group " + std::to_string(g) + ": bad size");
    }
    if (value_offset > values_size ||
        (g > 0 &&
         kMetaValuesOffset + value_offset < t.groups[g - 1].value_offset)) {
      return corrupt("group " + std::to_string(g) + ": bad value offset");
    }
    if (group.first_key.size() < 8) {
      return corrupt("group " + std::to_string(g) + ": bad first key");
    }
    group.offset = offset;
    group.value_offset = kMetaValuesOffset + value_offset;
    if (g > 0) t.groups[g - 1].value_end = group.value_offset;
    offset += group.size;
  }
  in = Slice(p, static_cast<size_t>(limit - p));
  if (num_groups > 0) t.groups.back().value_end = t.groups_offset;
  if (num_groups == 0 && values_size != 0) {
    return corrupt("value section given for an empty directory");
  }
  if (offset != range.offset) {
    return corrupt("groups do not end at the trailer");
  }
  if (!GetLengthPrefixedSlice(&in, &t.filter)) return corrupt("bad filter");
  if (!GetLengthPrefixedSlice(&in, &t.smallest) ||
      !GetLengthPrefixedSlice(&in, &t.largest)) {
    return corrupt("bad key range");
  }
  if (!in.empty()) {
    return corrupt(std::to_string(in.size()) +
                   " unexpected trailing bytes in the trailer");
  }
  if (num_groups > 0 && t.smallest != t.groups[0].first_key) {
    return corrupt("key range does not match the entries");
  }
  if (num_groups == 0 && (!t.smallest.empty() || !t.largest.empty())) {
    return corrupt("key range given for an empty directory");
  }
  *result = std::move(t);
  return Status::OK();
}

Status DecodeMetaFile(const Slice& data, const std::string& path_for_errors,
                      MetaFileContents* contents) {
  *contents = MetaFileContents();
  MetaIndexRange range;
  Status s = DecodeMetaFooter(data, data.size(), path_for_errors, &range);
  if (!s.ok()) return s;
  if (range.version != 1 &&
      (Slice(data.data(), kMagicLength) != Slice(kMagic, kMagicLength) ||
       DecodeFixed32(data.data() + kMagicLength) != range.version)) {
    return Status::Corruption(path_for_errors, "bad meta file magic");
  }
  MetaIndex index;
  if (range.version == kFormatVersionGroups) {
    MetaTrailer trailer;
    s = DecodeMetaTrailer(Slice(data.data() + range.offset, range.size), range,
                          path_for_errors, &trailer);
    if (!s.ok()) return s;
    s = DecodeMetaGroups(Slice(data.data() + trailer.groups_offset,
                               range.offset - trailer.groups_offset),
                         trailer, path_for_errors, &index);
  } else {
    s = DecodeMetaIndex(Slice(data.data() + range.offset, range.size), range,
                        path_for_errors, &index);
  }
  if (!s.ok()) return s;
  // The whole file is here: copy what `index` points to, and load the
  // inline values (an inline_offset is an offset in the file in every
  // format), checking each.
  MetaFileContents result;
  result.comparator_name = index.comparator_name.ToString();
  result.entries.resize(index.entries.size());
  for (size_t i = 0; i < index.entries.size(); i++) {
    MetaEntry& e = result.entries[i];
    e = CopyOfEntry(index.entries[i]);
    if (!StoredInline(e.storage)) continue;
    e.inline_value.assign(data.data() + e.inline_offset, e.stored_size);
    if (crc32c::Mask(crc32c::Value(e.inline_value.data(),
                                   e.inline_value.size())) != e.stored_crc) {
      return Status::Corruption(
          path_for_errors,
          "entry " + std::to_string(i) + ": inline value checksum mismatch");
    }
  }
  result.filter = index.filter.ToString();
  result.smallest = index.smallest.ToString();
  result.largest = index.largest.ToString();
  *contents = std::move(result);
  return Status::OK();
}

}  // namespace leveldb
