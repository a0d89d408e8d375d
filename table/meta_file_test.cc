#include "table/meta_file.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/meta_file_v1.h"
#include "tests/meta_file_v2.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace {

std::string IKey(const std::string& user, uint64_t seq, uint8_t type) {
  std::string k = user;
  PutFixed64(&k, (seq << 8) | type);
  return k;
}

MetaFileContents Sample() {
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

void ExpectSame(const MetaFileContents& x, const MetaFileContents& y) {
  EXPECT_EQ(x.comparator_name, y.comparator_name);
  ASSERT_EQ(x.entries.size(), y.entries.size());
  for (size_t i = 0; i < x.entries.size(); i++) {
    const MetaEntry& a = x.entries[i];
    const MetaEntry& b = y.entries[i];
    EXPECT_EQ(a.internal_key, b.internal_key);
    EXPECT_EQ(a.storage, b.storage);
    EXPECT_EQ(a.value_size, b.value_size);
    EXPECT_EQ(a.stored_size, b.stored_size);
    EXPECT_EQ(a.stored_crc, b.stored_crc);
    EXPECT_EQ(a.inline_value, b.inline_value);
    EXPECT_EQ(a.home, b.home);
  }
  EXPECT_EQ(x.filter, y.filter);
  EXPECT_EQ(x.smallest, y.smallest);
  EXPECT_EQ(x.largest, y.largest);
}

TEST(MetaFileTest, RoundTrip) {
  const MetaFileContents in = Sample();
  // Format 4, and format 2 (still read).
  for (const std::string& data :
       {EncodeMetaFile(in), delsm_test::EncodeMetaFileVersion2(in)}) {
    EXPECT_EQ(data.substr(0, 8), "DLSMMETA");
    EXPECT_EQ(data.substr(data.size() - 8), "DLSMEND2");
    MetaFileContents out;
    Status s = DecodeMetaFile(data, "/db/L0/000001.sst/META", &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectSame(in, out);
  }
}

// The bytes on disk are format version 4 exactly as meta_file.h lays it
// out, so files written before and after a change of the encoder read the
// same. The expected file is spelled out here from the layout.
std::string DocumentedLayout(const MetaFileContents& c) {
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
std::string Incremental(const MetaFileContents& c) {
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

TEST(MetaFileTest, EncodingFollowsTheDocumentedLayout) {
  const MetaFileContents c = Sample();
  const std::string want = DocumentedLayout(c);
  EXPECT_EQ(EncodeMetaFile(c), want);
  // The incremental encoder writes the same bytes.
  EXPECT_EQ(Incremental(c), want);
}

TEST(MetaFileTest, EmptyRoundTrip) {
  MetaFileContents in;
  in.comparator_name = "x";
  MetaFileContents out;
  ASSERT_TRUE(DecodeMetaFile(EncodeMetaFile(in), "p", &out).ok());
  ExpectSame(in, out);
}

// A reader of a format-2 file (still read) decodes its index in place:
// every key, the comparator name, the filter and the key range are slices
// of the index's bytes (nothing copied), and each inline entry says where
// its stored bytes are in the file.
TEST(MetaFileTest, DecodedIndexPointsIntoTheIndexBytes) {
  const MetaFileContents in = Sample();
  const std::string data = delsm_test::EncodeMetaFileVersion2(in);
  MetaFileContents whole;
  ASSERT_TRUE(DecodeMetaFile(data, "META", &whole).ok());
  ExpectSame(in, whole);
  MetaIndexRange range;
  const size_t tail = std::min<size_t>(data.size(), kMetaTailLength);
  ASSERT_TRUE(DecodeMetaFooter(Slice(data.data() + data.size() - tail, tail),
                               data.size(), "META", &range)
                  .ok());
  EXPECT_EQ(range.version, 2u);
  const Slice bytes(data.data() + range.offset, range.size);
  MetaIndex index;
  Status s = DecodeMetaIndex(bytes, range, "META", &index);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto inside = [&](const Slice& x) {
    return x.data() >= bytes.data() &&
           x.data() + x.size() <= bytes.data() + bytes.size();
  };
  EXPECT_EQ(index.comparator_name, Slice(in.comparator_name));
  EXPECT_TRUE(inside(index.comparator_name));
  EXPECT_EQ(index.filter, Slice(in.filter));
  EXPECT_TRUE(inside(index.filter));
  EXPECT_EQ(index.smallest, Slice(in.smallest));
  EXPECT_TRUE(inside(index.smallest));
  EXPECT_EQ(index.largest, Slice(in.largest));
  EXPECT_TRUE(inside(index.largest));
  ASSERT_EQ(index.entries.size(), in.entries.size());
  for (size_t i = 0; i < in.entries.size(); i++) {
    SCOPED_TRACE(i);
    const MetaIndexEntry& e = index.entries[i];
    EXPECT_EQ(e.internal_key, Slice(in.entries[i].internal_key));
    EXPECT_TRUE(inside(e.internal_key));
    EXPECT_EQ(e.storage, in.entries[i].storage);
    EXPECT_EQ(e.value_size, in.entries[i].value_size);
    EXPECT_EQ(e.stored_size, in.entries[i].stored_size);
    EXPECT_EQ(e.stored_crc, in.entries[i].stored_crc);
    if (StoredInline(e.storage)) {
      EXPECT_EQ(data.substr(e.inline_offset, e.stored_size),
                in.entries[i].inline_value);
    }
    // A copy owns its key.
    const MetaEntry copy = CopyOfEntry(e);
    EXPECT_EQ(copy.internal_key, in.entries[i].internal_key);
    EXPECT_EQ(copy.stored_crc, in.entries[i].stored_crc);
  }
  // A damaged index decodes to nothing.
  std::string bad = data;
  bad[range.offset + range.size / 2] ^= 0x01;
  s = DecodeMetaIndex(Slice(bad.data() + range.offset, range.size), range,
                      "META", &index);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_TRUE(index.entries.empty());
}

// Format 1, still read: the whole file decodes to what format 2 holds, and
// its index (the whole file) places each inline value where it lies, after
// its entry.
TEST(MetaFileTest, Version1IsReadWithItsValuesInPlace) {
  const MetaFileContents in = Sample();
  const std::string data = delsm_test::EncodeMetaFileVersion1(in);
  MetaFileContents out;
  Status s = DecodeMetaFile(data, "META", &out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectSame(in, out);

  MetaIndexRange range;
  ASSERT_TRUE(DecodeMetaFooter(data, data.size(), "META", &range).ok());
  EXPECT_EQ(range.version, 1u);
  EXPECT_EQ(range.offset, 0u);
  EXPECT_EQ(range.size, data.size());
  MetaIndex index;
  s = DecodeMetaIndex(data, range, "META", &index);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(index.entries.size(), in.entries.size());
  uint64_t previous_end = 0;
  for (size_t i = 0; i < in.entries.size(); i++) {
    const MetaIndexEntry& e = index.entries[i];
    EXPECT_EQ(e.internal_key, Slice(in.entries[i].internal_key)) << i;
    if (!StoredInline(e.storage)) continue;
    EXPECT_GT(e.inline_offset, previous_end) << i;
    EXPECT_EQ(data.substr(e.inline_offset, e.stored_size),
              in.entries[i].inline_value)
        << i;
    previous_end = e.inline_offset + e.stored_size;
  }

  for (size_t i = 0; i < data.size(); i++) {
    std::string bad = data;
    bad[i] ^= 0x01;
    ASSERT_TRUE(DecodeMetaFile(bad, "META", &out).IsCorruption()) << i;
  }
}

// Sample() and `n` more entries of every kind in turn (so several groups of
// format 4), keys in order.
MetaFileContents Longer(size_t n) {
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

TEST(MetaFileTest, EverySingleByteFlipIsCorruption) {
  const std::string path = "/db/L1/000007.sst/META";
  for (const std::string& good :
       {EncodeMetaFile(Sample()), EncodeMetaFile(Longer(40)),
        delsm_test::EncodeMetaFileVersion2(Sample())}) {
    for (size_t i = 0; i < good.size(); i++) {
      for (int bit : {0x01, 0x80, 0xff}) {
        std::string bad = good;
        bad[i] = static_cast<char>(bad[i] ^ bit);
        MetaFileContents out;
        Status s = DecodeMetaFile(bad, path, &out);
        ASSERT_TRUE(s.IsCorruption()) << "byte " << i << ": " << s.ToString();
        EXPECT_NE(s.ToString().find(path), std::string::npos) << s.ToString();
        EXPECT_TRUE(out.entries.empty());
      }
    }
  }
}

TEST(MetaFileTest, EveryTruncationIsCorruption) {
  for (const std::string& good :
       {EncodeMetaFile(Sample()), EncodeMetaFile(Longer(40)),
        delsm_test::EncodeMetaFileVersion2(Sample())}) {
    for (size_t n = 0; n < good.size(); n++) {
      MetaFileContents out;
      Status s = DecodeMetaFile(Slice(good.data(), n), "META", &out);
      ASSERT_TRUE(s.IsCorruption()) << "length " << n << ": " << s.ToString();
      EXPECT_NE(s.ToString().find("META"), std::string::npos);
    }
  }
}

TEST(MetaFileTest, TrailingBytesAreCorruption) {
  const std::string good = EncodeMetaFile(Sample());
  MetaFileContents out;
  EXPECT_TRUE(DecodeMetaFile(good + "x", "META", &out).IsCorruption());
  EXPECT_TRUE(DecodeMetaFile("x" + good, "META", &out).IsCorruption());
  EXPECT_TRUE(DecodeMetaFile(good + good, "META", &out).IsCorruption());
}

// Sample() plus values that stay put in homes (format 3).
MetaFileContents SampleWithHomes() {
  MetaFileContents c = Sample();
  MetaEntry f;
  f.internal_key = IKey("fig", 1, 1);
  f.storage = ValueStorage::kHomeFile;
  f.value_size = f.stored_size = 5000;
  f.stored_crc = 11;
  f.home = 77;
  MetaEntry g;
  g.internal_key = IKey("grape", 1, 1);
  g.storage = ValueStorage::kHomeFileSnappy;
  g.value_size = 90000;
  g.stored_size = 800;
  g.stored_crc = 12;
  g.home = 1ull << 40;
  c.entries.push_back(f);
  c.entries.push_back(g);
  c.largest = g.internal_key;
  return c;
}

uint32_t HeadVersion(const std::string& data) {
  return DecodeFixed32(data.data() + 8);
}

// Format 4 holds home entries as it holds the rest; a format-3 file (the
// older writer's, with home entries) still reads the same.
TEST(MetaFileTest, HomeEntriesRoundTripInFormats4And3) {
  EXPECT_EQ(4u, HeadVersion(EncodeMetaFile(Sample())));
  EXPECT_EQ(2u, HeadVersion(delsm_test::EncodeMetaFileVersion2(Sample())));
  const MetaFileContents in = SampleWithHomes();
  EXPECT_EQ(4u, HeadVersion(EncodeMetaFile(in)));
  EXPECT_EQ(3u, HeadVersion(delsm_test::EncodeMetaFileVersion2(in)));
  for (const std::string& data :
       {EncodeMetaFile(in), delsm_test::EncodeMetaFileVersion2(in)}) {
    MetaFileContents out;
    Status s = DecodeMetaFile(data, "META", &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectSame(in, out);
    EXPECT_EQ(77u, out.entries[5].home);
    EXPECT_EQ(1ull << 40, out.entries[6].home);
    EXPECT_TRUE(StoredInHome(out.entries[6].storage));
    EXPECT_TRUE(StoredCompressed(out.entries[6].storage));
    EXPECT_FALSE(StoredInFile(out.entries[6].storage));
    // Space is counted with the entry, wherever its file is.
    EXPECT_EQ(8192u, KvFileAllocatedBytes(out.entries[5]));
  }
}

TEST(MetaFileTest, EverySingleByteFlipWithHomesIsCorruption) {
  for (const std::string& good :
       {EncodeMetaFile(SampleWithHomes()),
        delsm_test::EncodeMetaFileVersion2(SampleWithHomes())}) {
    for (size_t i = 0; i < good.size(); i++) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ 0x01);
      MetaFileContents out;
      Status s = DecodeMetaFile(bad, "META", &out);
      ASSERT_TRUE(s.IsCorruption()) << "byte " << i << ": " << s.ToString();
    }
  }
}

TEST(MetaFileTest, HomeKindInFormat2IsCorruption) {
  std::string data = delsm_test::EncodeMetaFileVersion2(SampleWithHomes());
  // Claim format 2 in the head and the footer (neither is under the
  // index's checksum): the home kinds are then unknown.
  std::string two;
  PutFixed32(&two, 2);
  data.replace(8, 4, two);
  data.replace(data.size() - 12, 4, two);
  MetaFileContents out;
  Status s = DecodeMetaFile(data, "META", &out);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("storage kind"))
      << s.ToString();
}

TEST(MetaFileTest, HomeNumberZeroIsCorruption) {
  MetaFileContents in = SampleWithHomes();
  in.entries[5].home = 0;
  for (const std::string& data :
       {EncodeMetaFile(in), delsm_test::EncodeMetaFileVersion2(in)}) {
    MetaFileContents out;
    Status s = DecodeMetaFile(data, "META", &out);
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("home")) << s.ToString();
  }
}

// Exactly n entries of every kind in turn.
MetaFileContents Exactly(size_t n) {
  MetaFileContents c = Longer(n);
  c.entries.resize(n);
  c.smallest = n > 0 ? c.entries.front().internal_key : "";
  c.largest = n > 0 ? c.entries.back().internal_key : "";
  return c;
}

// The footer and trailer of format-4 `data`.
void ReadTrailer(const std::string& data, MetaIndexRange* range,
                 MetaTrailer* trailer) {
  ASSERT_TRUE(DecodeMetaFooter(data, data.size(), "META", range).ok());
  ASSERT_EQ(range->version, 4u);
  Status s = DecodeMetaTrailer(Slice(data.data() + range->offset, range->size),
                               *range, "META", trailer);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// Format-4 `data` with its trailer replaced by `trailer_bytes`: the
// groups as they were, then the new trailer and a footer with its crc.
std::string WithTrailer(const std::string& data, const MetaIndexRange& range,
                        const std::string& trailer_bytes) {
  std::string f = data.substr(0, range.offset) + trailer_bytes;
  PutFixed64(&f, range.offset);
  PutFixed32(&f, crc32c::Mask(crc32c::Value(trailer_bytes.data(),
                                            trailer_bytes.size())));
  PutFixed32(&f, 4);
  f.append("DLSMEND2");
  return f;
}

// Every count of entries around a group's size: both encoders write the
// documented bytes; the trailer describes one group per 16 entries; each
// group decodes on its own to its entries, with each inline value where
// its offset says; the whole file decodes to what was encoded.
TEST(MetaFileTest, GroupsOfEveryLength) {
  for (size_t n : {0, 1, 15, 16, 17, 33, 4096}) {
    SCOPED_TRACE(n);
    const MetaFileContents c = Exactly(n);
    const std::string data = EncodeMetaFile(c);
    ASSERT_EQ(data, DocumentedLayout(c));
    ASSERT_EQ(data, Incremental(c));
    MetaFileContents whole;
    Status s = DecodeMetaFile(data, "META", &whole);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectSame(c, whole);

    MetaIndexRange range;
    MetaTrailer trailer;
    ReadTrailer(data, &range, &trailer);
    EXPECT_EQ(trailer.num_entries, n);
    uint64_t kv_entries = 0;
    for (const MetaEntry& e : c.entries) kv_entries += HasKvFile(e.storage);
    EXPECT_EQ(trailer.kv_entries, kv_entries);
    ASSERT_EQ(trailer.groups.size(), (n + 15) / 16);
    EXPECT_EQ(trailer.comparator_name, Slice(c.comparator_name));
    EXPECT_EQ(trailer.filter, Slice(c.filter));
    EXPECT_EQ(trailer.smallest, Slice(c.smallest));
    EXPECT_EQ(trailer.largest, Slice(c.largest));
    // The trailer is not an index.
    MetaIndex index;
    EXPECT_FALSE(DecodeMetaIndex(Slice(data.data() + range.offset, range.size),
                                 range, "META", &index)
                     .ok());
    for (size_t g = 0; g < trailer.groups.size(); g++) {
      SCOPED_TRACE(g);
      const MetaGroup& m = trailer.groups[g];
      EXPECT_EQ(m.first_key, Slice(c.entries[16 * g].internal_key));
      MetaIndexEntry got[kMetaGroupEntries];
      s = DecodeMetaGroup(Slice(data.data() + m.offset, m.size), trailer, g,
                          "META", got);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ(trailer.EntriesIn(g), std::min<size_t>(16, n - 16 * g));
      for (size_t i = 0; i < trailer.EntriesIn(g); i++) {
        const MetaEntry& want = c.entries[16 * g + i];
        EXPECT_EQ(got[i].internal_key, Slice(want.internal_key));
        EXPECT_EQ(got[i].storage, want.storage);
        EXPECT_EQ(got[i].stored_size, want.stored_size);
        EXPECT_EQ(got[i].value_size, want.value_size);
        EXPECT_EQ(got[i].stored_crc, want.stored_crc);
        EXPECT_EQ(got[i].home, want.home);
        if (StoredInline(want.storage)) {
          EXPECT_EQ(data.substr(got[i].inline_offset, got[i].stored_size),
                    want.inline_value);
        }
      }
    }
    s = DecodeMetaGroups(Slice(data.data() + trailer.groups_offset,
                               range.offset - trailer.groups_offset),
                         trailer, "META", &index);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(index.entries.size(), n);
    for (size_t i = 0; i < n; i++) {
      EXPECT_EQ(index.entries[i].internal_key,
                Slice(c.entries[i].internal_key));
    }
  }
}

// A damaged group is found by whoever decodes it, and only by them: the
// trailer and the other groups still decode, the whole file does not.
TEST(MetaFileTest, DamagedGroupIsCorruptionWhereItIsRead) {
  const std::string good = EncodeMetaFile(Exactly(40));
  MetaIndexRange range;
  MetaTrailer trailer;
  ReadTrailer(good, &range, &trailer);
  ASSERT_EQ(trailer.groups.size(), 3u);
  const MetaGroup& one = trailer.groups[1];
  for (uint64_t at = one.offset; at < one.offset + one.size; at++) {
    std::string bad = good;
    bad[at] ^= 0x20;
    MetaIndexRange bad_range;
    MetaTrailer bad_trailer;
    ReadTrailer(bad, &bad_range, &bad_trailer);
    MetaIndexEntry out[kMetaGroupEntries];
    for (size_t g = 0; g < 3; g++) {
      const MetaGroup& m = bad_trailer.groups[g];
      Status s = DecodeMetaGroup(Slice(bad.data() + m.offset, m.size),
                                 bad_trailer, g, "META", out);
      if (g == 1) {
        ASSERT_TRUE(s.IsCorruption()) << at << ": " << s.ToString();
        EXPECT_NE(s.ToString().find("group 1"), std::string::npos);
      } else {
        ASSERT_TRUE(s.ok()) << at << ": " << s.ToString();
      }
    }
    MetaFileContents whole;
    ASSERT_TRUE(DecodeMetaFile(bad, "META", &whole).IsCorruption()) << at;
  }
  // The trailer's and the footer's bytes are the trailer's to check.
  for (uint64_t at = range.offset; at < good.size(); at++) {
    std::string bad = good;
    bad[at] ^= 0x20;
    MetaIndexRange bad_range;
    Status s = DecodeMetaFooter(bad, bad.size(), "META", &bad_range);
    MetaTrailer bad_trailer;
    if (s.ok() && bad_range.version == 4) {
      s = DecodeMetaTrailer(
          Slice(bad.data() + bad_range.offset, bad_range.size), bad_range,
          "META", &bad_trailer);
    } else if (s.ok()) {
      s = Status::Corruption("another version");  // the version byte
    }
    ASSERT_TRUE(s.IsCorruption()) << at << ": " << s.ToString();
  }
}

// A trailer that checks but does not describe its groups (a first key or a
// value offset not the group's) is Corruption when the group is read.
TEST(MetaFileTest, TrailerThatMisdescribesAGroupIsCorruption) {
  const MetaFileContents c = Exactly(40);
  const std::string good = EncodeMetaFile(c);
  MetaIndexRange range;
  MetaTrailer trailer;
  ReadTrailer(good, &range, &trailer);
  // The file with a trailer, its crc recomputed.
  auto with_trailer = [&](const std::string& trailer_bytes) {
    return WithTrailer(good, range, trailer_bytes);
  };
  const std::string trailer_bytes = good.substr(range.offset, range.size);
  // Group 1's first key, one byte of its user key changed.
  const size_t key_at =
      trailer.groups[1].first_key.data() - (good.data() + range.offset);
  std::string edited = trailer_bytes;
  edited[key_at + 1] ^= 0x01;
  std::string bad = with_trailer(edited);
  MetaTrailer bad_trailer;
  ReadTrailer(bad, &range, &bad_trailer);
  MetaIndexEntry out[kMetaGroupEntries];
  const MetaGroup& m = bad_trailer.groups[1];
  Status s = DecodeMetaGroup(Slice(bad.data() + m.offset, m.size), bad_trailer,
                             1, "META", out);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("first key"), std::string::npos) << s.ToString();

  // Group 2's value offset one byte early: group 1's values then fall
  // short of its share, and group 2's run past it.
  const MetaGroup& two = trailer.groups[2];
  ASSERT_GT(two.value_offset, trailer.groups[1].value_offset);
  std::string groups_part;
  for (size_t g = 0; g < 3; g++) {
    const MetaGroup& x = trailer.groups[g];
    PutVarint64(&groups_part, x.size);
    PutVarint64(&groups_part,
                x.value_offset - kMetaValuesOffset - (g == 2 ? 1 : 0));
    PutLengthPrefixedSlice(&groups_part, x.first_key);
  }
  std::string rebuilt;
  PutLengthPrefixedSlice(&rebuilt, c.comparator_name);
  PutVarint64(&rebuilt, 40);
  PutVarint64(&rebuilt, trailer.kv_entries);
  PutVarint64(&rebuilt, trailer.groups_offset - kMetaValuesOffset);
  rebuilt.append(groups_part);
  PutLengthPrefixedSlice(&rebuilt, c.filter);
  PutLengthPrefixedSlice(&rebuilt, c.smallest);
  PutLengthPrefixedSlice(&rebuilt, c.largest);
  ASSERT_EQ(with_trailer(trailer_bytes), good);  // the rebuild's method
  bad = with_trailer(rebuilt);
  ReadTrailer(bad, &range, &bad_trailer);
  for (size_t g : {1, 2}) {
    const MetaGroup& x = bad_trailer.groups[g];
    s = DecodeMetaGroup(Slice(bad.data() + x.offset, x.size), bad_trailer, g,
                        "META", out);
    ASSERT_TRUE(s.IsCorruption()) << g << ": " << s.ToString();
  }
}

// The trailer's count of entries with a KV file is what a reader relies on
// to hold no directory (0) or to read KV files (more): a count that
// checks but misstates the entries is Corruption where the groups are read,
// a count of none meeting an entry with a KV file as soon as its group is.
TEST(MetaFileTest, TrailerThatMiscountsKvFilesIsCorruption) {
  const MetaFileContents c = Exactly(40);
  const std::string good = EncodeMetaFile(c);
  MetaIndexRange range;
  MetaTrailer trailer;
  ReadTrailer(good, &range, &trailer);
  ASSERT_GT(trailer.kv_entries, 1u);
  ASSERT_LT(trailer.kv_entries, 40u);
  // The groups holding an entry with a KV file.
  std::vector<size_t> with_kv_file;
  for (size_t g = 0; g < trailer.groups.size(); g++) {
    for (size_t i = g * 16; i < c.entries.size() && i < g * 16 + 16; i++) {
      if (HasKvFile(c.entries[i].storage)) {
        with_kv_file.push_back(g);
        break;
      }
    }
  }
  ASSERT_FALSE(with_kv_file.empty());
  // The trailer as the encoder writes it, with `kv_entries` counted.
  auto with_count = [&](uint64_t kv_entries) {
    std::string t;
    PutLengthPrefixedSlice(&t, c.comparator_name);
    PutVarint64(&t, 40);
    PutVarint64(&t, kv_entries);
    PutVarint64(&t, trailer.groups_offset - kMetaValuesOffset);
    for (const MetaGroup& x : trailer.groups) {
      PutVarint64(&t, x.size);
      PutVarint64(&t, x.value_offset - kMetaValuesOffset);
      PutLengthPrefixedSlice(&t, x.first_key);
    }
    PutLengthPrefixedSlice(&t, c.filter);
    PutLengthPrefixedSlice(&t, c.smallest);
    PutLengthPrefixedSlice(&t, c.largest);
    return WithTrailer(good, range, t);
  };
  ASSERT_EQ(with_count(trailer.kv_entries), good);  // the rebuild's method
  MetaFileContents out;
  for (uint64_t count : {uint64_t{0}, trailer.kv_entries - 1,
                         trailer.kv_entries + 1, uint64_t{40}}) {
    SCOPED_TRACE(count);
    const std::string bad = with_count(count);
    Status s = DecodeMetaFile(bad, "META", &out);
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("KV file"), std::string::npos) << s.ToString();
    MetaIndexRange bad_range;
    MetaTrailer bad_trailer;
    ReadTrailer(bad, &bad_range, &bad_trailer);
    EXPECT_EQ(bad_trailer.kv_entries, count);
    if (count == 0) {
      // Each group with such an entry is Corruption on its own.
      MetaIndexEntry entries[kMetaGroupEntries];
      for (size_t g : with_kv_file) {
        const MetaGroup& x = bad_trailer.groups[g];
        s = DecodeMetaGroup(Slice(bad.data() + x.offset, x.size), bad_trailer,
                            g, "META", entries);
        ASSERT_TRUE(s.IsCorruption()) << g << ": " << s.ToString();
      }
    }
  }
  // More than the entries: Corruption when the trailer is read.
  const std::string bad = with_count(41);
  MetaIndexRange bad_range;
  ASSERT_TRUE(DecodeMetaFooter(bad, bad.size(), "META", &bad_range).ok());
  MetaTrailer bad_trailer;
  Status s =
      DecodeMetaTrailer(Slice(bad.data() + bad_range.offset, bad_range.size),
                        bad_range, "META", &bad_trailer);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
}

// An SST with no entry with a KV file (inline values and tombstones) counts
// none, as an empty one does.
TEST(MetaFileTest, TrailerCountsNoKvFilesWhenThereAreNone) {
  MetaFileContents c = Exactly(40);
  std::vector<MetaEntry> kept;
  for (const MetaEntry& e : c.entries) {
    if (!HasKvFile(e.storage)) kept.push_back(e);
  }
  ASSERT_GT(kept.size(), 16u);
  c.entries = kept;
  c.smallest = kept.front().internal_key;
  c.largest = kept.back().internal_key;
  for (const MetaFileContents& contents : {c, Exactly(0)}) {
    const std::string data = EncodeMetaFile(contents);
    MetaIndexRange range;
    MetaTrailer trailer;
    ReadTrailer(data, &range, &trailer);
    EXPECT_EQ(trailer.kv_entries, 0u);
    MetaFileContents out;
    Status s = DecodeMetaFile(data, "META", &out);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ExpectSame(contents, out);
  }
}

TEST(MetaFileTest, ParsesTheNamesMetaFileNameWrites) {
  EXPECT_EQ("META", MetaFileName(5, 5));
  EXPECT_EQ("META-000042", MetaFileName(42, 5));
  EXPECT_EQ("LONGKEYS-000042", LongKeysFileName(42, 5));
  // Round trips below and past six digits, up to the largest number, in a
  // directory of another number and with the directory's number unknown.
  for (uint64_t dir : {uint64_t{3}, uint64_t{0}}) {
    for (uint64_t n : {uint64_t{7}, uint64_t{999999}, uint64_t{1000000},
                       uint64_t{123456789}, uint64_t{18446744073709551615u}}) {
      uint64_t sst = 123;
      ASSERT_TRUE(ParseMetaFileName(MetaFileName(n, dir), dir, &sst))
          << MetaFileName(n, dir);
      EXPECT_EQ(n, sst);
      sst = 123;
      ASSERT_TRUE(ParseLongKeysFileName(LongKeysFileName(n, dir), dir, &sst))
          << LongKeysFileName(n, dir);
      EXPECT_EQ(n, sst);
    }
  }
  uint64_t sst = 123;
  ASSERT_TRUE(ParseMetaFileName("META", 5, &sst));
  EXPECT_EQ(5u, sst);
  ASSERT_TRUE(ParseLongKeysFileName("LONGKEYS", 5, &sst));
  EXPECT_EQ(5u, sst);
}

TEST(MetaFileTest, RejectsMetaFileNamesDeLsmNeverWrites) {
  // Spellings of a number MetaFileName never gives it, and the directory's
  // own SST by number (it owns "META"): not DeLSM's, whatever they spell.
  uint64_t sst = 123;
  for (const char* number : {"5", "42", "00042", "0000042", "01000000",
                             "+00042", " 00042", "000042 ", "000005"}) {
    const std::string meta = std::string("META-") + number;
    const std::string long_keys = std::string("LONGKEYS-") + number;
    EXPECT_FALSE(ParseMetaFileName(meta, 5, &sst)) << meta;
    EXPECT_FALSE(ParseLongKeysFileName(long_keys, 5, &sst)) << long_keys;
    EXPECT_EQ(123u, sst) << number;
  }
  for (const char* bad :
       {"", "MET", "META-", "META-x", "META_000042", "METAX", "META-000042/",
        "LONGKEYS-", "META-18446744073709551616"}) {
    EXPECT_FALSE(ParseMetaFileName(bad, 5, &sst)) << bad;
    EXPECT_FALSE(ParseLongKeysFileName(bad, 5, &sst)) << bad;
  }
  EXPECT_EQ(123u, sst);
}

}  // namespace
}  // namespace leveldb
