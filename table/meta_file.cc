// META encoding and decoding. See meta_file.h for the layout.
#include "table/meta_file.h"

#include <cstdio>
#include <cstring>

#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {

namespace {

constexpr char kMagic[] = "DLSMMETA";
constexpr char kEndMagic[] = "DLSMEND!";
constexpr size_t kMagicLength = 8;
constexpr uint32_t kFormatVersion = 1;
// Trailer: masked crc32c, then the end magic.
constexpr size_t kTrailerLength = 4 + kMagicLength;
// Smallest possible encoded entry: a 1-byte length prefix and an 8-byte tag,
// the storage byte, two 1-byte varints and the crc.
constexpr size_t kMinEntryLength = 1 + 8 + 1 + 1 + 1 + 4;

bool IsValidStorage(uint8_t b) {
  return b <= static_cast<uint8_t>(ValueStorage::kInlineSnappy);
}

bool IsInline(ValueStorage s) {
  return s == ValueStorage::kInline || s == ValueStorage::kInlineSnappy;
}

// Parses "<prefix>" (the directory's own SST) or "<prefix>-<digits>".
bool ParseNumberedName(const std::string& name, const char* prefix,
                       uint64_t dir_number, uint64_t* sst_number) {
  const size_t n = std::strlen(prefix);
  if (name.compare(0, n, prefix) != 0) return false;
  if (name.size() == n) {
    *sst_number = dir_number;
    return true;
  }
  if (name[n] != '-' || name.size() == n + 1 || name.size() > n + 1 + 19) {
    return false;
  }
  uint64_t v = 0;
  for (size_t i = n + 1; i < name.size(); i++) {
    if (name[i] < '0' || name[i] > '9') return false;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  *sst_number = v;
  return true;
}

std::string NumberedName(const char* prefix, uint64_t sst_number,
                         uint64_t dir_number) {
  if (sst_number == dir_number) return prefix;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%s-%06llu", prefix,
                static_cast<unsigned long long>(sst_number));
  return buf;
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

std::string EncodeMetaFile(const MetaFileContents& contents) {
  std::string out;
  out.append(kMagic, kMagicLength);
  PutFixed32(&out, kFormatVersion);
  PutLengthPrefixedSlice(&out, contents.comparator_name);
  PutVarint64(&out, contents.entries.size());
  for (const MetaEntry& e : contents.entries) {
    PutLengthPrefixedSlice(&out, e.internal_key);
    out.push_back(static_cast<char>(e.storage));
    PutVarint64(&out, e.value_size);
    PutVarint64(&out, e.stored_size);
    PutFixed32(&out, e.stored_crc);
    if (IsInline(e.storage)) out.append(e.inline_value);
  }
  PutLengthPrefixedSlice(&out, contents.filter);
  PutLengthPrefixedSlice(&out, contents.smallest);
  PutLengthPrefixedSlice(&out, contents.largest);
  PutFixed32(&out, crc32c::Mask(crc32c::Value(out.data(), out.size())));
  out.append(kEndMagic, kMagicLength);
  return out;
}

Status DecodeMetaFile(const Slice& data, const std::string& path_for_errors,
                      MetaFileContents* contents) {
  *contents = MetaFileContents();
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
  if (Slice(trailer + 4, kMagicLength) != Slice(kEndMagic, kMagicLength)) {
    return corrupt("bad meta file end marker (truncated?)");
  }
  const size_t body_size = data.size() - kTrailerLength;
  const uint32_t expected = crc32c::Unmask(DecodeFixed32(trailer));
  if (crc32c::Value(data.data(), body_size) != expected) {
    return corrupt("meta file checksum mismatch");
  }

  Slice in(data.data() + kMagicLength, body_size - kMagicLength);
  uint32_t version;
  if (!GetFixed32(&in, &version)) return corrupt("truncated version");
  if (version != kFormatVersion) {
    return corrupt("unsupported meta file version " + std::to_string(version));
  }
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
  MetaFileContents result;
  result.comparator_name = name.ToString();
  result.entries.resize(count);
  for (uint64_t i = 0; i < count; i++) {
    MetaEntry& e = result.entries[i];
    const std::string where = "entry " + std::to_string(i) + ": ";
    Slice key;
    if (!GetLengthPrefixedSlice(&in, &key)) {
      return corrupt(where + "bad internal key");
    }
    if (key.size() < 8) return corrupt(where + "internal key too short");
    e.internal_key = key.ToString();
    if (in.empty()) return corrupt(where + "truncated");
    const uint8_t storage = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    if (!IsValidStorage(storage)) {
      return corrupt(where + "bad value storage kind " +
                     std::to_string(storage));
    }
    e.storage = static_cast<ValueStorage>(storage);
    if (!GetVarint64(&in, &e.value_size) || !GetVarint64(&in, &e.stored_size) ||
        !GetFixed32(&in, &e.stored_crc)) {
      return corrupt(where + "truncated");
    }
    if (e.storage == ValueStorage::kNone &&
        (e.value_size != 0 || e.stored_size != 0)) {
      return corrupt(where + "tombstone with a value");
    }
    if ((e.storage == ValueStorage::kFile ||
         e.storage == ValueStorage::kInline) &&
        e.value_size != e.stored_size) {
      return corrupt(where + "stored size differs from value size");
    }
    if (IsInline(e.storage)) {
      if (e.stored_size > in.size()) {
        return corrupt(where + "inline value runs past the end");
      }
      e.inline_value.assign(in.data(), e.stored_size);
      in.remove_prefix(e.stored_size);
    }
  }
  Slice filter, smallest, largest;
  if (!GetLengthPrefixedSlice(&in, &filter)) return corrupt("bad filter");
  if (!GetLengthPrefixedSlice(&in, &smallest) ||
      !GetLengthPrefixedSlice(&in, &largest)) {
    return corrupt("bad key range");
  }
  if (!in.empty()) {
    return corrupt(std::to_string(in.size()) + " unexpected trailing bytes");
  }
  if (count > 0 && (smallest != result.entries.front().internal_key ||
                    largest != result.entries.back().internal_key)) {
    return corrupt("key range does not match the entries");
  }
  if (count == 0 && (!smallest.empty() || !largest.empty())) {
    return corrupt("key range given for an empty directory");
  }
  result.filter = filter.ToString();
  result.smallest = smallest.ToString();
  result.largest = largest.ToString();
  *contents = std::move(result);
  return Status::OK();
}

}  // namespace leveldb
