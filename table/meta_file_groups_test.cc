// Meta-file format 4 (table/meta_file.h): entries in groups of 16 under
// their own checksums and a trailer that describes them. Both encoders write
// the documented bytes for every count of entries around a group's size,
// each group decodes on its own, and damage to a group, or a trailer that
// checks but misdescribes its groups or miscounts their KV files, is
// Corruption where it is read.
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "table/meta_file.h"
#include "tests/meta_file_samples.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace {

using meta_file_samples::DocumentedLayout;
using meta_file_samples::Exactly;
using meta_file_samples::ExpectSame;
using meta_file_samples::IKey;
using meta_file_samples::Incremental;

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

// A reader that checked a group whole seeks in it later by decoding only
// up to the answer: for every target (each entry's key, keys between and
// around them) and start, the same place and the same entries as a search
// of the whole group.
TEST(MetaFileTest, SeekInCheckedGroupFindsWhatTheWholeGroupHolds) {
  const InternalKeyComparator icmp(BytewiseComparator());
  for (size_t n : {1, 15, 16, 17, 33}) {
    SCOPED_TRACE(n);
    const MetaFileContents c = Exactly(n);
    const std::string data = EncodeMetaFile(c);
    MetaIndexRange range;
    MetaTrailer trailer;
    ReadTrailer(data, &range, &trailer);
    std::vector<std::string> targets = {IKey("", 0, 0),
                                        IKey("\xff\xff\xff\xff", 0, 0)};
    for (const MetaEntry& e : c.entries) {
      const std::string user = ExtractUserKey(e.internal_key).ToString();
      targets.push_back(e.internal_key);
      targets.push_back(IKey(user, kMaxSequenceNumber, kValueTypeForSeek));
      targets.push_back(IKey(user, 0, 0));
      targets.push_back(IKey(user + '\0', kMaxSequenceNumber, 1));
    }
    for (size_t g = 0; g < trailer.groups.size(); g++) {
      const MetaGroup& m = trailer.groups[g];
      const Slice bytes(data.data() + m.offset, m.size);
      MetaIndexEntry whole[kMetaGroupEntries];
      ASSERT_TRUE(DecodeMetaGroup(bytes, trailer, g, "META", whole).ok());
      const size_t count = trailer.EntriesIn(g);
      for (size_t from : {0, 1}) {
        for (const std::string& target : targets) {
          size_t want = from;
          while (want < count &&
                 icmp.Compare(whole[want].internal_key, target) < 0) {
            want++;
          }
          MetaIndexEntry got[kMetaGroupEntries];
          size_t pos = 99;
          Status s = SeekInCheckedMetaGroup(bytes, trailer, g, &icmp, target,
                                            from, "META", got, &pos);
          ASSERT_TRUE(s.ok()) << s.ToString();
          ASSERT_EQ(pos, want) << g << " from " << from;
          for (size_t i = 0; i < count && i <= pos; i++) {
            EXPECT_EQ(got[i].internal_key, whole[i].internal_key);
            EXPECT_EQ(got[i].storage, whole[i].storage);
            EXPECT_EQ(got[i].stored_size, whole[i].stored_size);
            EXPECT_EQ(got[i].inline_offset, whole[i].inline_offset);
          }
        }
      }
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

}  // namespace
}  // namespace leveldb
