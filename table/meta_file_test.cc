#include "table/meta_file.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/meta_file_samples.h"
#include "tests/meta_file_v1.h"
#include "tests/meta_file_v2.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace {

using meta_file_samples::DocumentedLayout;
using meta_file_samples::ExpectSame;
using meta_file_samples::IKey;
using meta_file_samples::Incremental;
using meta_file_samples::Longer;
using meta_file_samples::Sample;

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
