// Meta-file contents for the meta-file tests (table/meta_file_test.cc,
// table/meta_file_groups_test.cc, table/meta_file_salvage_test.cc): a
// sample of every kind of entry, longer ones spanning several groups of
// format 4, comparisons of two contents and of two entries, and the bytes
// format 4 must be (spelled out from the layout, and the incremental
// encoder's).
#ifndef DELSM_TESTS_META_FILE_SAMPLES_H_
#define DELSM_TESTS_META_FILE_SAMPLES_H_

#include <algorithm>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "table/meta_file.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace meta_file_samples {

inline std::string IKey(const std::string& user, uint64_t seq, uint8_t type) {
  std::string k = user;
  PutFixed64(&k, (seq << 8) | type);
  return k;
}

inline MetaFileContents Sample() {
  MetaFileContents c;
  c.comparator_name = "leveldb.BytewiseComparator";
  MetaEntry a;
  a.internal_key = IKey("apple", 9, 1);
  a.storage = ValueStorage::kFile;
  a.value_size = a.stored_size = 4096;
  a.stored_crc = 0x12345678;
  MetaEntry b;
  b.internal_key = IKey("banana", 7, 0);
  b.storage = ValueStorage::kNone;
  MetaEntry c2;
  c2.internal_key = IKey(std::string("c\0\xff", 3), 5, 1);
  c2.storage = ValueStorage::kInline;
  c2.inline_value = "tiny";
  c2.value_size = c2.stored_size = 4;
  c2.stored_crc = crc32c::Mask(crc32c::Value("tiny", 4));
  MetaEntry d;
  d.internal_key = IKey("durian", 3, 1);
  d.storage = ValueStorage::kFileSnappy;
  d.value_size = 100000;
  d.stored_size = 300;
  d.stored_crc = 7;
  MetaEntry e;
  e.internal_key = IKey("elder", 2, 1);
  e.storage = ValueStorage::kInlineSnappy;
  e.inline_value = "zz";
  e.value_size = 40;
  e.stored_size = 2;
  e.stored_crc = crc32c::Mask(crc32c::Value("zz", 2));
  c.entries = {a, b, c2, d, e};
  c.filter = std::string("\x01\x02\x03\x04\x05\x06", 6);
  c.smallest = a.internal_key;
  c.largest = e.internal_key;
  return c;
}

// Every field of two entries is the same.
inline void ExpectSameEntry(const MetaEntry& a, const MetaEntry& b) {
  EXPECT_EQ(a.internal_key, b.internal_key);
  EXPECT_EQ(a.storage, b.storage);
  EXPECT_EQ(a.value_size, b.value_size);
  EXPECT_EQ(a.stored_size, b.stored_size);
  EXPECT_EQ(a.stored_crc, b.stored_crc);
  EXPECT_EQ(a.inline_value, b.inline_value);
  EXPECT_EQ(a.home, b.home);
}

inline void ExpectSame(const MetaFileContents& x, const MetaFileContents& y) {
  EXPECT_EQ(x.comparator_name, y.comparator_name);
  ASSERT_EQ(x.entries.size(), y.entries.size());
  for (size_t i = 0; i < x.entries.size(); i++) {
    ExpectSameEntry(x.entries[i], y.entries[i]);
  }
  EXPECT_EQ(x.filter, y.filter);
  EXPECT_EQ(x.smallest, y.smallest);
  EXPECT_EQ(x.largest, y.largest);
}

// Sample() and `n` more entries of every kind in turn (so several groups of
// format 4), keys in order.
inline MetaFileContents Longer(size_t n) {
  MetaFileContents c = Sample();
  c.entries.pop_back();  // "elder" sorts after the keys added below
  for (size_t i = 0; i < n; i++) {
    MetaEntry e;
    char key[16];
    std::snprintf(key, sizeof(key), "d%06zu", i);
    e.internal_key = IKey(key, 100 + i, i % 5 == 0 ? 0 : 1);
    switch (i % 5) {
      case 0:
        e.storage = ValueStorage::kNone;
        break;
      case 1:
      case 3:
        e.storage =
            i % 10 == 1 ? ValueStorage::kInline : ValueStorage::kInlineSnappy;
        e.inline_value = std::string(i % 7, static_cast<char>('a' + i % 26));
        e.stored_size = e.inline_value.size();
        e.value_size =
            e.storage == ValueStorage::kInline ? e.stored_size : 3 * i + 1;
        e.stored_crc = crc32c::Mask(
            crc32c::Value(e.inline_value.data(), e.inline_value.size()));
        break;
      case 2:
        e.storage = ValueStorage::kFile;
        e.value_size = e.stored_size = 5000 + i;
        e.stored_crc = static_cast<uint32_t>(i);
        break;
      case 4:
        e.storage = i % 10 == 4 ? ValueStorage::kHomeFile
                                : ValueStorage::kHomeFileSnappy;
        e.stored_size = 9000 + i;
        e.value_size =
            e.storage == ValueStorage::kHomeFile ? e.stored_size : 20000 + i;
        e.stored_crc = static_cast<uint32_t>(7 * i);
        e.home = 1 + i;
        break;
    }
    c.entries.push_back(e);
  }
  c.entries.push_back(Sample().entries.back());
  std::sort(c.entries.begin(), c.entries.end(),
            [](const MetaEntry& a, const MetaEntry& b) {
              return Slice(a.internal_key).compare(b.internal_key) < 0;
            });
  c.smallest = c.entries.front().internal_key;
  c.largest = c.entries.back().internal_key;
  return c;
}

// Exactly n entries of every kind in turn.
inline MetaFileContents Exactly(size_t n) {
  MetaFileContents c = Longer(n);
  c.entries.resize(n);
  c.smallest = n > 0 ? c.entries.front().internal_key : "";
  c.largest = n > 0 ? c.entries.back().internal_key : "";
  return c;
}

// The bytes on disk are format version 4 exactly as meta_file.h lays it
// out, so files written before and after a change of the encoder read the
// same. The expected file is spelled out here from the layout.
inline std::string DocumentedLayout(const MetaFileContents& c) {
  std::string want("DLSMMETA", 8);
  PutFixed32(&want, 4);
  for (const MetaEntry& e : c.entries) {
    if (StoredInline(e.storage)) want.append(e.inline_value);
  }
  const uint64_t values_size = want.size() - kMetaValuesOffset;
  std::string groups;  // the trailer's part
  uint64_t value_offset = 0;
  for (size_t first = 0; first < c.entries.size(); first += 16) {
    const size_t start = want.size();
    const uint64_t group_value_offset = value_offset;
    for (size_t i = first; i < c.entries.size() && i < first + 16; i++) {
      const MetaEntry& e = c.entries[i];
      PutLengthPrefixedSlice(&want, e.internal_key);
      want.push_back(static_cast<char>(e.storage));
      PutVarint64(&want, e.value_size);
      PutVarint64(&want, e.stored_size);
      PutFixed32(&want, e.stored_crc);
      if (StoredInHome(e.storage)) PutVarint64(&want, e.home);
      if (StoredInline(e.storage)) value_offset += e.stored_size;
    }
    PutFixed32(&want, crc32c::Mask(crc32c::Value(want.data() + start,
                                                 want.size() - start)));
    PutVarint64(&groups, want.size() - start);
    PutVarint64(&groups, group_value_offset);
    PutLengthPrefixedSlice(&groups, c.entries[first].internal_key);
  }
  uint64_t kv_entries = 0;
  for (const MetaEntry& e : c.entries) {
    if (HasKvFile(e.storage)) kv_entries++;
  }
  const uint64_t trailer_offset = want.size();
  PutLengthPrefixedSlice(&want, c.comparator_name);
  PutVarint64(&want, c.entries.size());
  PutVarint64(&want, kv_entries);
  PutVarint64(&want, values_size);
  want.append(groups);
  PutLengthPrefixedSlice(&want, c.filter);
  PutLengthPrefixedSlice(&want, c.smallest);
  PutLengthPrefixedSlice(&want, c.largest);
  const uint32_t crc = crc32c::Mask(crc32c::Value(
      want.data() + trailer_offset, want.size() - trailer_offset));
  PutFixed64(&want, trailer_offset);
  PutFixed32(&want, crc);
  PutFixed32(&want, 4);
  want.append("DLSMEND2");
  return want;
}

// The incremental encoder's bytes for `c`.
inline std::string Incremental(const MetaFileContents& c) {
  MetaFileEncoder encoder;
  for (const MetaEntry& e : c.entries) {
    encoder.Add(e.internal_key, e, e.inline_value);
    EXPECT_EQ(encoder.last_key(), Slice(e.internal_key));
  }
  EXPECT_EQ(encoder.num_entries(), c.entries.size());
  std::string got;
  encoder.Finish(c.comparator_name, c.filter, c.smallest, c.largest, &got);
  EXPECT_EQ(encoder.num_entries(), c.entries.size());
  return got;
}

}  // namespace meta_file_samples
}  // namespace leveldb

#endif  // DELSM_TESTS_META_FILE_SAMPLES_H_
