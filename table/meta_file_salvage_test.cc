// SalvageMetaFile (table/meta_file_salvage.h): what a damaged format-4 meta
// file still proves. With its trailer, every group but a damaged one is
// taken, entry for entry as written; without it, the groups are found by
// their own checksums when they account for the whole file, and nothing is
// taken when they do not.
#include "table/meta_file_salvage.h"

#include <cstdio>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "gtest/gtest.h"
#include "table/meta_file.h"
#include "tests/meta_file_samples.h"
#include "util/crc32c.h"

namespace leveldb {
namespace {

// n entries in groups of 16: tombstones, inline values of varied lengths
// and KV files in turn.
MetaFileContents Contents(size_t n) {
  MetaFileContents c;
  c.comparator_name = BytewiseComparator()->Name();
  for (size_t i = 0; i < n; i++) {
    char key[16];
    std::snprintf(key, sizeof(key), "k%05zu", i);
    MetaEntry e;
    AppendInternalKey(
        &e.internal_key,
        ParsedInternalKey(key, 1000 - i,
                          i % 3 == 0 ? kTypeDeletion : kTypeValue));
    if (i % 3 == 1) {
      e.storage = ValueStorage::kInline;
      e.inline_value = std::string(5 + i % 11, static_cast<char>('a' + i % 26));
      e.value_size = e.stored_size = e.inline_value.size();
      e.stored_crc = crc32c::Mask(
          crc32c::Value(e.inline_value.data(), e.inline_value.size()));
    } else if (i % 3 == 2) {
      e.storage = ValueStorage::kFile;
      e.value_size = e.stored_size = 4000 + i;
      e.stored_crc = static_cast<uint32_t>(i);
    }
    c.entries.push_back(e);
  }
  c.filter = std::string("\x06policy", 7) + "filter bits";
  c.smallest = c.entries.front().internal_key;
  c.largest = c.entries.back().internal_key;
  return c;
}

void ReadTrailer(const std::string& data, MetaIndexRange* range,
                 MetaTrailer* trailer) {
  ASSERT_TRUE(DecodeMetaFooter(data, data.size(), "META", range).ok());
  ASSERT_TRUE(DecodeMetaTrailer(Slice(data.data() + range->offset, range->size),
                                *range, "META", trailer)
                  .ok());
}

class MetaFileSalvageTest : public testing::Test {
 protected:
  MetaFileSalvageTest()
      : icmp_(BytewiseComparator()),
        contents_(Contents(50)),  // groups of 16, 16, 16 and 2
        data_(EncodeMetaFile(contents_)) {
    ReadTrailer(data_, &range_, &trailer_);
  }

  // Every entry of contents_ but those of `lost` groups, in order.
  void ExpectAllBut(const MetaFileSalvage& s, const std::vector<size_t>& lost) {
    std::vector<MetaEntry> want;
    for (size_t i = 0; i < contents_.entries.size(); i++) {
      bool in_lost = false;
      for (size_t g : lost) in_lost |= i / kMetaGroupEntries == g;
      if (!in_lost) want.push_back(contents_.entries[i]);
    }
    ASSERT_EQ(want.size(), s.entries.size());
    for (size_t i = 0; i < want.size(); i++)
      meta_file_samples::ExpectSameEntry(want[i], s.entries[i]);
  }

  std::string UserKey(size_t i) const {
    return ExtractUserKey(contents_.entries[i].internal_key).ToString();
  }

  const InternalKeyComparator icmp_;
  const MetaFileContents contents_;
  const std::string data_;
  MetaIndexRange range_;
  MetaTrailer trailer_;
};

TEST_F(MetaFileSalvageTest, WholeFileGivesEveryEntry) {
  MetaFileSalvage s;
  ASSERT_TRUE(SalvageMetaFile(data_, &icmp_, "META", &s).ok());
  EXPECT_TRUE(s.trailer_read);
  EXPECT_TRUE(s.lost_groups.empty());
  EXPECT_EQ(contents_.filter, s.filter);
  ExpectAllBut(s, {});
}

TEST_F(MetaFileSalvageTest, DamagedGroupLosesItsEntriesOnly) {
  for (size_t g = 0; g < trailer_.groups.size(); g++) {
    SCOPED_TRACE(g);
    std::string damaged = data_;
    damaged[trailer_.groups[g].offset + trailer_.groups[g].size / 2] ^= 0x01;
    MetaFileSalvage s;
    Status st = SalvageMetaFile(damaged, &icmp_, "META", &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_TRUE(s.trailer_read);
    ExpectAllBut(s, {g});
    ASSERT_EQ(1u, s.lost_groups.size());
    const MetaFileSalvage::LostGroup& lost = s.lost_groups[0];
    EXPECT_EQ(g, lost.group);
    EXPECT_EQ(trailer_.EntriesIn(g), lost.entries);
    EXPECT_TRUE(lost.why.IsCorruption());
    // From its first key to the next group's (the last key for the last).
    EXPECT_EQ(UserKey(g * kMetaGroupEntries), lost.smallest_user_key);
    const size_t next = std::min<size_t>((g + 1) * kMetaGroupEntries,
                                         contents_.entries.size() - 1);
    EXPECT_EQ(UserKey(next), lost.largest_user_key);
  }
}

TEST_F(MetaFileSalvageTest, DamagedInlineValueLosesItsEntryOnly) {
  std::string damaged = data_;
  damaged[kMetaValuesOffset] ^= 0x01;  // entry 1's value, the first inline
  MetaFileSalvage s;
  ASSERT_TRUE(SalvageMetaFile(damaged, &icmp_, "META", &s).ok());
  EXPECT_EQ(1u, s.damaged_value_keys.size());
  EXPECT_EQ(contents_.entries.size() - 1, s.entries.size());
  meta_file_samples::ExpectSameEntry(contents_.entries[0], s.entries[0]);
  meta_file_samples::ExpectSameEntry(contents_.entries[2], s.entries[1]);
}

TEST_F(MetaFileSalvageTest, DamagedTrailerGroupsFoundByTheirChecksums) {
  for (uint64_t at : {range_.offset, range_.offset + range_.size / 2,
                      range_.offset + range_.size - 1}) {
    SCOPED_TRACE(at);
    std::string damaged = data_;
    damaged[at] ^= 0x40;
    MetaFileSalvage s;
    Status st = SalvageMetaFile(damaged, &icmp_, "META", &s);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_FALSE(s.trailer_read);
    EXPECT_TRUE(s.filter.empty());
    EXPECT_TRUE(s.lost_groups.empty());
    ExpectAllBut(s, {});
  }
}

TEST_F(MetaFileSalvageTest, DamagedTrailerAndGroupProveNothing) {
  // The chain of groups stops short of the trailer: nothing shows where
  // the groups start, nor what the damaged one held.
  for (size_t g = 0; g < trailer_.groups.size(); g++) {
    SCOPED_TRACE(g);
    std::string damaged = data_;
    damaged[range_.offset + range_.size / 2] ^= 0x40;
    damaged[trailer_.groups[g].offset + trailer_.groups[g].size / 2] ^= 0x01;
    MetaFileSalvage s;
    EXPECT_TRUE(SalvageMetaFile(damaged, &icmp_, "META", &s).IsCorruption());
    EXPECT_TRUE(s.entries.empty());
  }
}

TEST_F(MetaFileSalvageTest, DamagedFooterProvesNothing) {
  std::string damaged = data_;
  damaged[damaged.size() - 1] ^= 0x01;  // the end marker
  MetaFileSalvage s;
  EXPECT_TRUE(SalvageMetaFile(damaged, &icmp_, "META", &s).IsCorruption());
}

TEST(FindMetaGroupAtTest, FindsEachGroupWhereItStartsOnly) {
  const MetaFileContents c = Contents(40);  // groups of 16, 16 and 8
  const std::string data = EncodeMetaFile(c);
  MetaIndexRange range;
  MetaTrailer trailer;
  ReadTrailer(data, &range, &trailer);
  std::vector<MetaIndexEntry> found;
  uint64_t size;
  for (size_t g = 0; g < trailer.groups.size(); g++) {
    const MetaGroup& m = trailer.groups[g];
    const Slice rest(data.data() + m.offset, range.offset - m.offset);
    ASSERT_TRUE(FindMetaGroupAt(rest, &found, &size));
    EXPECT_EQ(m.size, size);
    ASSERT_EQ(trailer.EntriesIn(g), found.size());
    EXPECT_EQ(m.first_key, found[0].internal_key);
    // One byte in, there is no group.
    EXPECT_FALSE(FindMetaGroupAt(Slice(rest.data() + 1, rest.size() - 1),
                                 &found, &size));
  }
}

}  // namespace
}  // namespace leveldb
