#include "db/version_edit.h"

#include <string>

#include "gtest/gtest.h"
#include "util/coding.h"

namespace leveldb {
namespace {

FileMetaData MakeDir(uint64_t number, uint64_t entries, uint64_t value_bytes,
                     const std::string& smallest, SequenceNumber s_seq,
                     const std::string& largest, SequenceNumber l_seq) {
  FileMetaData f;
  f.number = number;
  f.entries = entries;
  f.value_bytes = value_bytes;
  f.disk_bytes = value_bytes + 8192;
  f.smallest = InternalKey(smallest, s_seq, kTypeValue);
  f.largest = InternalKey(largest, l_seq, kTypeDeletion);
  return f;
}

VersionEdit FullEdit() {
  VersionEdit edit;
  edit.SetComparatorName("leveldb.BytewiseComparator");
  edit.SetLogNumber(7);
  edit.SetPrevLogNumber(6);
  edit.SetNextFile(1234567890123ull);
  edit.SetLastSequence(kMaxSequenceNumber);
  edit.SetCompactPointer(3, InternalKey("pointer", 99, kTypeValue));
  edit.RemoveFile(2, 17);
  edit.RemoveFile(0, 4);
  // Keys with bytes a manifest must carry verbatim: NUL, '/', 0xFF, empty.
  FileMetaData flushed = MakeDir(21, 10000, 4096ull * 10000,
                                 std::string("\0a", 2), 5, "z/\xff", 9);
  flushed.has_sequence_range = true;
  flushed.smallest_sequence = 3;
  flushed.largest_sequence = 10002;
  flushed.wal_number = 20;
  flushed.meta_bytes = 345678;
  edit.AddFile(0, flushed);
  FileMetaData in_other_dir = MakeDir(1ull << 40, 1, 0, "", 1, "", 1);
  in_other_dir.dir = 33;  // an SST a compaction added to directory 33
  in_other_dir.dir_entries = 2;
  edit.AddFile(6, in_other_dir);
  return edit;
}

// A manifest written before SSTs recorded their bytes on disk (tag 7008)
// still reads; the SST's disk_bytes is 0 (not recorded).
TEST(VersionEditTest, AddedSstWithoutDiskBytesDecodes) {
  std::string record;
  PutVarint32(&record, 7000);  // format marker, version 1
  PutVarint32(&record, 1);
  PutVarint32(&record, 7008);  // added SST: level, number, dir, dir entries,
  PutVarint32(&record, 2);     // entries, value bytes, smallest, largest
  for (uint64_t v : {9u, 9u, 3u, 2u, 400u}) PutVarint64(&record, v);
  PutLengthPrefixedSlice(&record, InternalKey("a", 1, kTypeValue).Encode());
  PutLengthPrefixedSlice(&record, InternalKey("b", 2, kTypeValue).Encode());
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(record);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(1u, parsed.new_files().size());
  EXPECT_EQ(400u, parsed.new_files()[0].second.value_bytes);
  EXPECT_EQ(0u, parsed.new_files()[0].second.disk_bytes);
}

// A manifest written before SSTs recorded their meta bytes (tag 7010) still
// reads; meta_bytes is 0 (not recorded), and everything else is kept.
TEST(VersionEditTest, AddedSstWithoutMetaBytesDecodes) {
  std::string record;
  PutVarint32(&record, 7000);  // format marker, version 1
  PutVarint32(&record, 1);
  PutVarint32(&record, 7010);  // level, number, dir, dir entries, entries,
  PutVarint32(&record, 1);     // value bytes, smallest, largest, disk bytes,
  for (uint64_t v : {9u, 9u, 3u, 2u, 400u}) PutVarint64(&record, v);
  PutLengthPrefixedSlice(&record, InternalKey("a", 1, kTypeValue).Encode());
  PutLengthPrefixedSlice(&record, InternalKey("b", 2, kTypeValue).Encode());
  for (uint64_t v : {8192u, 1u, 2u, 5u})
    PutVarint64(&record, v);  // sequences, WAL
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(record);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(1u, parsed.new_files().size());
  const FileMetaData& f = parsed.new_files()[0].second;
  EXPECT_EQ(8192u, f.disk_bytes);
  EXPECT_TRUE(f.has_sequence_range);
  EXPECT_EQ(5u, f.wal_number);
  EXPECT_EQ(0u, f.meta_bytes);
}

// A sequence range whose smallest is above its largest cannot be evidence
// of anything: the record is malformed.
TEST(VersionEditTest, InvertedSequenceRangeIsRejected) {
  VersionEdit edit;
  FileMetaData f = MakeDir(9, 1, 0, "a", 1, "b", 2);
  f.has_sequence_range = true;
  f.smallest_sequence = 7;
  f.largest_sequence = 7;
  edit.AddFile(0, f);
  std::string record;
  edit.EncodeTo(&record);
  // The range and the WAL number (0) are the record's last three varints,
  // each one byte here.
  ASSERT_EQ(7, record[record.size() - 2]);
  record[record.size() - 3] = 8;
  VersionEdit parsed;
  EXPECT_TRUE(parsed.DecodeFrom(record).IsCorruption());
}

TEST(VersionEditTest, EncodeDecodeRoundTripKeepsEveryField) {
  VersionEdit edit = FullEdit();
  std::string encoded;
  edit.EncodeTo(&encoded);

  VersionEdit parsed;
  ASSERT_TRUE(parsed.DecodeFrom(encoded).ok());
  std::string reencoded;
  parsed.EncodeTo(&reencoded);
  EXPECT_EQ(encoded, reencoded);
  EXPECT_EQ(edit.DebugString(), parsed.DebugString());

  ASSERT_EQ(2u, parsed.new_files().size());
  EXPECT_EQ(0, parsed.new_files()[0].first);
  const FileMetaData& f = parsed.new_files()[0].second;
  EXPECT_EQ(21u, f.number);
  EXPECT_EQ(21u, f.dir);  // unset: the SST owns the directory of its number
  EXPECT_EQ(10000u, f.entries);
  EXPECT_EQ(4096ull * 10000, f.value_bytes);
  EXPECT_EQ(4096ull * 10000 + 8192, f.disk_bytes);
  EXPECT_EQ(std::string("\0a", 2), f.smallest.user_key().ToString());
  EXPECT_EQ("z/\xff", f.largest.user_key().ToString());
  EXPECT_TRUE(f.has_sequence_range);
  EXPECT_EQ(3u, f.smallest_sequence);
  EXPECT_EQ(10002u, f.largest_sequence);
  EXPECT_EQ(20u, f.wal_number);
  EXPECT_EQ(345678u, f.meta_bytes);
  EXPECT_FALSE(parsed.new_files()[1].second.has_sequence_range);
  EXPECT_EQ(6, parsed.new_files()[1].first);
  EXPECT_EQ(1ull << 40, parsed.new_files()[1].second.number);
  EXPECT_EQ(33u, parsed.new_files()[1].second.dir);
  EXPECT_EQ(2u, parsed.new_files()[1].second.dir_entries);
  EXPECT_EQ("", parsed.new_files()[1].second.smallest.user_key().ToString());

  ASSERT_EQ(2u, parsed.deleted_files().size());
  EXPECT_EQ(1u, parsed.deleted_files().count(std::make_pair(2, 17ull)));
  EXPECT_EQ(1u, parsed.deleted_files().count(std::make_pair(0, 4ull)));
  ASSERT_EQ(1u, parsed.compact_pointers().size());
  EXPECT_EQ(3, parsed.compact_pointers()[0].first);
  EXPECT_EQ("pointer",
            parsed.compact_pointers()[0].second.user_key().ToString());
}

// A record without DeLSM's format marker (LevelDB's manifest, or a
// pre-release DeLSM's, whose tags started at 1) is refused, not misread.
TEST(VersionEditTest, RecordWithoutFormatMarkerIsRejected) {
  std::string encoded;
  PutVarint32(&encoded, 8);  // a pre-release "added directory" record
  PutVarint32(&encoded, 2);  // level
  PutVarint64(&encoded, 77);
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(encoded);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("format marker"))
      << s.ToString();
  EXPECT_FALSE(VersionEdit::HasFormatMarker(encoded));
}

// A record of a newer format version is NotSupported, not Corruption: the
// data is fine, this build is too old for it.
TEST(VersionEditTest, NewerFormatVersionIsNotSupported) {
  VersionEdit edit;
  std::string encoded;
  edit.EncodeTo(&encoded);
  ASSERT_TRUE(VersionEdit::HasFormatMarker(encoded));
  ASSERT_EQ(3u, encoded.size());  // marker tag (2 bytes), version (1 byte)
  encoded[2] = 99;
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(encoded);
  EXPECT_TRUE(s.IsNotSupportedError()) << s.ToString();
}

TEST(VersionEditTest, EmptyEditRoundTrips) {
  VersionEdit edit;
  std::string encoded;
  edit.EncodeTo(&encoded);
  EXPECT_TRUE(VersionEdit::HasFormatMarker(encoded));
  EXPECT_EQ(3u, encoded.size());  // the marker and nothing else
  VersionEdit parsed;
  parsed.SetLogNumber(3);  // DecodeFrom must clear earlier state
  ASSERT_TRUE(parsed.DecodeFrom(encoded).ok());
  std::string reencoded;
  parsed.EncodeTo(&reencoded);
  EXPECT_EQ(encoded, reencoded);
}

TEST(VersionEditTest, NumberBoundIsPastEveryNumberTheEditNames) {
  VersionEdit edit;
  EXPECT_EQ(0u, edit.NumberBound());
  edit.SetNextFile(10);
  EXPECT_EQ(10u, edit.NumberBound());
  edit.RemoveFile(2, 30);
  EXPECT_EQ(31u, edit.NumberBound());
  FileMetaData in_other_dir;
  in_other_dir.number = 40;
  in_other_dir.dir = 50;
  edit.AddFile(1, in_other_dir);
  EXPECT_EQ(51u, edit.NumberBound());
  FileMetaData own_dir;
  own_dir.number = 60;
  edit.AddFile(0, own_dir);
  EXPECT_EQ(61u, edit.NumberBound());
  // A next file number above every SST named is the bound.
  edit.SetNextFile(70);
  EXPECT_EQ(70u, edit.NumberBound());
}

TEST(VersionEditTest, EveryTruncationIsRejected) {
  std::string encoded;
  FullEdit().EncodeTo(&encoded);
  // Any proper prefix that ends inside a field is corrupt. (A prefix that
  // ends exactly between fields is a valid shorter edit.)
  int rejected = 0;
  for (size_t len = 0; len < encoded.size(); len++) {
    VersionEdit parsed;
    Status s = parsed.DecodeFrom(Slice(encoded.data(), len));
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      rejected++;
    }
  }
  EXPECT_GT(rejected, static_cast<int>(encoded.size()) / 2);
  // The last field is the added SST at level 6: cutting one byte off
  // names it.
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(Slice(encoded.data(), encoded.size() - 1));
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(std::string::npos, s.ToString().find("added SST")) << s.ToString();
}

TEST(VersionEditTest, UnknownTagIsRejected) {
  std::string encoded;
  FullEdit().EncodeTo(&encoded);
  encoded.push_back(static_cast<char>(100));  // no such field
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(encoded);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(std::string::npos, s.ToString().find("tag")) << s.ToString();
}

TEST(VersionEditTest, LevelOutOfRangeIsRejected) {
  VersionEdit edit;
  edit.RemoveFile(config::kNumLevels, 5);  // not a level a DB can have
  std::string encoded;
  edit.EncodeTo(&encoded);
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(encoded);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(std::string::npos, s.ToString().find("removed directory"))
      << s.ToString();
}

TEST(VersionEditTest, KeyTooShortToBeInternalIsRejected) {
  VersionEdit edit;
  edit.SetCompactPointer(1, InternalKey("k", 1, kTypeValue));
  std::string encoded;
  edit.EncodeTo(&encoded);
  // Shorten the length-prefixed key to 7 bytes: less than a tag.
  // Layout: marker(3) tag(2) level(1) len(1) key(9).
  ASSERT_EQ(16u, encoded.size());
  encoded[6] = 7;
  encoded.resize(14);
  VersionEdit parsed;
  Status s = parsed.DecodeFrom(encoded);
  ASSERT_TRUE(s.IsCorruption());
  EXPECT_NE(std::string::npos, s.ToString().find("compaction pointer"))
      << s.ToString();
}

}  // namespace
}  // namespace leveldb
