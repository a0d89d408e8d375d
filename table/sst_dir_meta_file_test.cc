// How an SST reads its meta file and the inline values in it: from a
// mapping or, where the file system maps nothing, from buffers of its own;
// compressed or stored as written; the older format; damage under the
// mapping; and what the builder writes, byte for byte.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/filename.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "table/key_codec.h"
#include "table/kv_value.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"
#include "testing/fault_injection_file_system.h"
#include "tests/meta_file_v1.h"
#include "tests/meta_file_v2.h"
#include "tests/sst_dir_fixture.h"
#include "tests/test_support.h"
#include "util/crc32c.h"

namespace leveldb {
namespace {

using sst_dir_fixture::GetResult;
using sst_dir_fixture::IKey;
using sst_dir_fixture::SaveResult;
using sst_dir_fixture::SstDirTest;

// Reads every entry of `dir` as point reads (through its groups, if the
// whole index is not loaded yet), then as scans both ways, and compares
// them with `kvs` (internal key, value; deletions read as found with an
// empty value).
void ExpectReads(SstDir* dir,
                 const std::vector<std::pair<std::string, std::string>>& kvs) {
  for (size_t i = 0; i < kvs.size(); i++) {
    GetResult r;
    ASSERT_TRUE(
        dir->InternalGet(ReadOptions(), kvs[i].first, &r, &SaveResult).ok());
    EXPECT_TRUE(r.found) << i;
    EXPECT_EQ(r.key, kvs[i].first) << i;
    EXPECT_EQ(r.value, kvs[i].second) << i;
  }
  ASSERT_TRUE(dir->LoadIndex().ok());
  ASSERT_EQ(dir->index().entries.size(), kvs.size());
  for (size_t i = 0; i < kvs.size(); i++) {
    EXPECT_EQ(dir->index().entries[i].internal_key, Slice(kvs[i].first)) << i;
  }
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
    ASSERT_LT(i, kvs.size());
    EXPECT_EQ(it->key().ToString(), kvs[i].first);
    EXPECT_EQ(it->value().ToString(), kvs[i].second) << i;
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(i, kvs.size());
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    ASSERT_GT(i, 0u);
    i--;
    EXPECT_EQ(it->key().ToString(), kvs[i].first);
    EXPECT_EQ(it->value().ToString(), kvs[i].second) << i;
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(i, 0u);
}

TEST_F(SstDirTest, InlineValuesMakeNoFile) {
  options_.inline_threshold = 64;
  const std::string path = Path("000004.sst");
  Build(path, {{IKey("big", 1, kTypeValue), std::string(65, 'b')},
               {IKey("empty", 1, kTypeValue), ""},
               {IKey("small", 1, kTypeValue), std::string(64, 's')}});
  EXPECT_EQ(ListNames(path),
            (std::vector<std::string>{"META", KvFileName("big", 1)}));
  auto dir = OpenDir(path);
  EXPECT_EQ(IndexOf(dir.get()).entries[1].storage, ValueStorage::kInline);
  EXPECT_EQ(Get(dir.get(), "small", 5).value, std::string(64, 's'));
  GetResult r = Get(dir.get(), "empty", 5);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.value, "");
  EXPECT_EQ(Get(dir.get(), "big", 5).value, std::string(65, 'b'));
}

// Inline values of a POSIX meta file are read from its mapping: the open
// SST, which has no KV file, holds no descriptor, point reads and iterators
// return every value, compressed or not, also after the directory's files
// were unlinked (a retired SST still read by an older version), and an
// inline value whose bytes change on disk under the mapping is Corruption,
// never a value.
TEST_F(SstDirTest, MappedMetaFileServesInlineValuesAndChecksThem) {
  options_.inline_threshold = 1024;
  options_.compression = kSnappyCompression;
  const std::string path = Path("000005.sst");
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 200; i++) {
    char user[16];
    std::snprintf(user, sizeof(user), "key%04d", i);
    // Even keys: compressible (stored snappy); odd keys: not.
    std::string value;
    for (int j = 0; j < 100 + i; j++) {
      value.push_back(i % 2 == 0 ? static_cast<char>('a' + j % 3)
                                 : static_cast<char>((i * 131 + j * 17) % 251));
    }
    kvs.emplace_back(IKey(user, 10, kTypeValue), value);
  }
  Build(path, kvs);
  auto dir = OpenDir(path);
  ASSERT_NE(dir, nullptr);
  EXPECT_EQ(IndexOf(dir.get()).entries[0].storage, ValueStorage::kInlineSnappy);
  EXPECT_EQ(IndexOf(dir.get()).entries[1].storage, ValueStorage::kInline);
  // The meta file is mapped, and no entry has a KV file.
  EXPECT_EQ(dir->OpenDescriptors(), 0);

  auto check_all = [&]() {
    ExpectReads(dir.get(), kvs);
    std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
    it->Seek(kvs[77].first);
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value().ToString(), kvs[77].second);
  };
  check_all();

  // A value slice from the iterator stays valid while the iterator stays
  // at its entry, though later reads happen meanwhile.
  {
    std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
    it->Seek(kvs[3].first);
    ASSERT_TRUE(it->Valid());
    const Slice v = it->value();
    EXPECT_EQ(Get(dir.get(), "key0004", 20).value, kvs[4].second);
    EXPECT_EQ(v.ToString(), kvs[3].second);
  }

  // Unlinked: the mapping keeps the bytes.
  for (const std::string& name : ListNames(path)) {
    ASSERT_EQ(unlink((path + "/" + name).c_str()), 0) << name;
  }
  check_all();
}

// Where the file system does not map the meta file, the SST reads its
// index into a buffer of its own, which the decoded keys point into (a
// meta file small enough to be read whole, and one read as footer, then
// index), and its inline values through a descriptor kept for them: every
// entry reads as from the mapping.
TEST_F(SstDirTest, UnmappedMetaFileReadsAsTheMappedOne) {
  options_.inline_threshold = 1024;
  options_.compression = kSnappyCompression;
  for (int n : {60, 1500}) {
    SCOPED_TRACE(n);
    const std::string path = Path(n < 1000 ? "000011.sst" : "000012.sst");
    std::vector<std::pair<std::string, std::string>> kvs;
    for (int i = 0; i < n; i++) {
      char user[16];
      std::snprintf(user, sizeof(user), "key%05d", i);
      std::string value;
      if (i % 7 == 3) {
        kvs.emplace_back(IKey(user, 10, kTypeDeletion), value);
        continue;
      }
      // Compressible and not, inline and (i % 11 == 5) in a KV file.
      const int size = i % 11 == 5 ? 1500 : 60 + i % 90;
      for (int j = 0; j < size; j++) {
        value.push_back(i % 2 == 0
                            ? static_cast<char>('a' + j % 3)
                            : static_cast<char>((i * 131 + j * 17) % 251));
      }
      kvs.emplace_back(IKey(user, 10, kTypeValue), value);
    }
    Build(path, kvs);
    std::unique_ptr<Directory> d;
    ASSERT_TRUE(options_.fs->OpenDirectory(path, &d).ok());
    std::string meta;
    ASSERT_TRUE(d->ReadFile("META", &meta).ok());
    // One read whole, one not (kReadWholeMetaBelow is 64 KiB).
    EXPECT_EQ(meta.size() > (64 << 10), n > 1000) << meta.size();

    auto mapped = OpenDir(path);
    ASSERT_NE(mapped, nullptr);
    EXPECT_EQ(mapped->OpenDescriptors(), 1);
    EXPECT_TRUE(mapped->InlineInMemory(ValueStorage::kInline));

    FaultInjectionFileSystem unmapping(FileSystem::Default());
    std::unique_ptr<SstDir> unmapped = OpenDir(path, &unmapping);
    ASSERT_NE(unmapped, nullptr);
    EXPECT_EQ(unmapped->OpenDescriptors(), 2);  // the meta file, for values
    EXPECT_FALSE(unmapped->InlineInMemory(ValueStorage::kInline));
    const MetaIndex& a = IndexOf(mapped.get());
    const MetaIndex& b = IndexOf(unmapped.get());
    ASSERT_EQ(a.entries.size(), b.entries.size());
    for (size_t i = 0; i < a.entries.size(); i++) {
      EXPECT_EQ(a.entries[i].internal_key, b.entries[i].internal_key) << i;
      EXPECT_EQ(a.entries[i].storage, b.entries[i].storage) << i;
      EXPECT_EQ(a.entries[i].stored_crc, b.entries[i].stored_crc) << i;
      EXPECT_EQ(a.entries[i].inline_offset, b.entries[i].inline_offset) << i;
    }
    EXPECT_EQ(a.filter, b.filter);
    EXPECT_EQ(a.smallest, b.smallest);
    EXPECT_EQ(a.largest, b.largest);
    EXPECT_GT(b.filter.size(), 0u);
    mapped.reset();
    ExpectReads(unmapped.get(), kvs);
  }
}

// Inline values shorter than compress_inline_from are stored as they are,
// however compressible; from that size on they are compressed when that
// saves bytes; 0 compresses every inline value. All read back the same.
TEST_F(SstDirTest, InlineValuesShorterThanCompressInlineFromAreNotCompressed) {
  options_.inline_threshold = 2048;
  options_.compression = kSnappyCompression;
  const size_t sizes[] = {100, 511, 512, 1500};
  for (size_t from : {size_t{0}, size_t{512}}) {
    SCOPED_TRACE(from);
    options_.compress_inline_from = from;
    const std::string path = Path(from == 0 ? "000030.sst" : "000031.sst");
    std::vector<std::pair<std::string, std::string>> kvs;
    for (size_t i = 0; i < 4; i++) {
      const std::string user = "key" + std::to_string(i);
      std::string value;
      for (size_t j = 0; j < sizes[i]; j++) value.push_back('a' + j % 3);
      kvs.emplace_back(IKey(user, 10, kTypeValue), value);
    }
    Build(path, kvs);
    auto dir = OpenDir(path);
    ASSERT_NE(dir, nullptr);
    for (size_t i = 0; i < 4; i++) {
      const bool compressed = from == 0 || sizes[i] >= from;
      EXPECT_EQ(
          IndexOf(dir.get()).entries[i].storage,
          compressed ? ValueStorage::kInlineSnappy : ValueStorage::kInline)
          << sizes[i];
    }
    ExpectReads(dir.get(), kvs);
  }
}

// An SST whose inline values are all empty has an empty value section, so
// an unmapped meta file keeps no descriptor for values (and, without a KV
// file, the SST keeps none for its directory either): its empty values
// (and its tombstones) still read, by a Get, by scans both ways and by a
// compaction's reads of stored bytes, none of which reads the file.
TEST_F(SstDirTest, UnmappedMetaFileWithOnlyEmptyValuesReads) {
  options_.inline_threshold = 1024;
  const std::string path = Path("000013.sst");
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 50; i++) {
    char user[16];
    std::snprintf(user, sizeof(user), "key%05d", i);
    kvs.emplace_back(IKey(user, 10, i % 5 == 2 ? kTypeDeletion : kTypeValue),
                     std::string());
  }
  Build(path, kvs);
  FaultInjectionFileSystem unmapping(FileSystem::Default());
  std::unique_ptr<SstDir> unmapped = OpenDir(path, &unmapping);
  ASSERT_NE(unmapped, nullptr);
  EXPECT_EQ(unmapped->OpenDescriptors(), 0);  // no value section to read
  ExpectReads(unmapped.get(), kvs);
  std::string buffer;
  uint64_t buffer_offset = 0;
  size_t inline_values = 0;
  for (size_t i = 0; i < kvs.size(); i++) {
    if (!StoredInline(IndexOf(unmapped.get()).entries[i].storage)) continue;
    inline_values++;
    Slice stored("not empty");
    Status s = unmapped->ReadInlineStored(i, 1, 1 << 20, &buffer,
                                          &buffer_offset, &stored);
    ASSERT_TRUE(s.ok()) << i << ": " << s.ToString();
    EXPECT_TRUE(stored.empty()) << i;
  }
  EXPECT_EQ(inline_values, 40u);
}

// A format-1 meta file (values interleaved with the entries, still read)
// is held in memory whole, mapped or read: its inline values are read in
// place, with no descriptor kept (nor the directory's: no entry has a KV
// file).
TEST_F(SstDirTest, Version1MetaFileIsReadInMemory) {
  const std::string path = Path("000020.sst");
  MetaFileContents c;
  c.comparator_name = BytewiseComparator()->Name();
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 40; i++) {
    char user[16];
    std::snprintf(user, sizeof(user), "key%03d", i);
    MetaEntry e;
    std::string value;
    if (i % 5 == 4) {
      e.internal_key = IKey(user, 3, kTypeDeletion);
      e.storage = ValueStorage::kNone;
    } else {
      e.internal_key = IKey(user, 3, kTypeValue);
      value.assign(static_cast<size_t>(i * 3), static_cast<char>('a' + i % 26));
      e.storage = ValueStorage::kInline;
      e.inline_value = value;
      e.value_size = e.stored_size = value.size();
    }
    e.stored_crc =
        crc32c::Mask(crc32c::Value(e.inline_value.data(), e.stored_size));
    kvs.emplace_back(e.internal_key, value);
    c.entries.push_back(e);
  }
  c.smallest = c.entries.front().internal_key;
  c.largest = c.entries.back().internal_key;
  std::unique_ptr<Directory> d;
  ASSERT_TRUE(options_.fs->CreateDir(path, false).ok());
  ASSERT_TRUE(options_.fs->OpenDirectory(path, &d).ok());
  ASSERT_TRUE(
      d->WriteFile("META", delsm_test::EncodeMetaFileVersion1(c), false).ok());

  FaultInjectionFileSystem unmapping(FileSystem::Default());
  for (FileSystem* fs :
       {FileSystem::Default(), static_cast<FileSystem*>(&unmapping)}) {
    std::unique_ptr<SstDir> dir = OpenDir(path, fs);
    ASSERT_NE(dir, nullptr);
    EXPECT_EQ(dir->OpenDescriptors(), 0);
    EXPECT_EQ(dir->directory(), nullptr);
    EXPECT_TRUE(dir->InlineInMemory(ValueStorage::kInline));
    ExpectReads(dir.get(), kvs);
  }
}

// An SST without a KV file (inline values, empty values and tombstones)
// keeps no descriptor once open, whatever format its meta file has: it
// answers every Get and iteration from its mapped meta file, also after its
// directory was renamed (a trivial move) and its names unlinked. One KV
// file among its entries keeps the directory's descriptor, through which
// the value is read after a rename.
TEST_F(SstDirTest, SstWithoutKvFilesHoldsNoDescriptor) {
  options_.inline_threshold = 512;
  options_.compression = kSnappyCompression;
  // kv_every: one entry in this many has a value past the threshold (0:
  // none).
  auto entries = [](int kv_every) {
    std::vector<std::pair<std::string, std::string>> kvs;
    for (int i = 0; i < 100; i++) {
      char user[16];
      std::snprintf(user, sizeof(user), "key%04d", i);
      if (i % 9 == 4) {
        kvs.emplace_back(IKey(user, 7, kTypeDeletion), std::string());
        continue;
      }
      const size_t size =
          kv_every != 0 && i % kv_every == 1 ? 600 : (i % 13 == 0 ? 0 : 200);
      std::string value;
      for (size_t j = 0; j < size; j++) {
        value.push_back(static_cast<char>('a' + (i * 7 + j) % 26));
      }
      kvs.emplace_back(IKey(user, 7, kTypeValue), value);
    }
    return kvs;
  };
  int n = 40;
  for (int kv_every : {0, 50}) {
    SCOPED_TRACE(kv_every);
    const auto kvs = entries(kv_every);
    const std::string path = Path("0000" + std::to_string(n++) + ".sst");
    Build(path, kvs);
    std::unique_ptr<SstDir> dir = OpenDir(path);
    ASSERT_NE(dir, nullptr);
    EXPECT_EQ(dir->OpenDescriptors(), kv_every == 0 ? 0 : 1);
    EXPECT_EQ(dir->directory() == nullptr, kv_every == 0);
    EXPECT_EQ(dir->path(), path);
    // A trivial move renames the directory under its open reader.
    const std::string moved = Path("moved" + std::to_string(n) + ".sst");
    ASSERT_EQ(rename(path.c_str(), moved.c_str()), 0);
    ExpectReads(dir.get(), kvs);
    EXPECT_EQ(dir->OpenDescriptors(), kv_every == 0 ? 0 : 1);
    if (kv_every == 0) {
      // Retired and unlinked: the mapping still holds every value.
      for (const std::string& name : ListNames(moved)) {
        ASSERT_EQ(unlink((moved + "/" + name).c_str()), 0) << name;
      }
      ASSERT_EQ(rmdir(moved.c_str()), 0);
      ExpectReads(dir.get(), kvs);
    }
  }
  // Format 2 (decoded whole at open) tells the same from its entries.
  for (bool kv_file : {false, true}) {
    SCOPED_TRACE(kv_file);
    MetaFileContents c;
    c.comparator_name = BytewiseComparator()->Name();
    std::vector<std::pair<std::string, std::string>> kvs;
    for (int i = 0; i < 20; i++) {
      char user[16];
      std::snprintf(user, sizeof(user), "key%03d", i);
      MetaEntry e;
      const std::string value(static_cast<size_t>(i), 'v');
      e.internal_key = IKey(user, 3, kTypeValue);
      e.storage =
          kv_file && i == 7 ? ValueStorage::kFile : ValueStorage::kInline;
      if (e.storage == ValueStorage::kInline) e.inline_value = value;
      e.value_size = e.stored_size = value.size();
      e.stored_crc = crc32c::Mask(crc32c::Value(value.data(), value.size()));
      kvs.emplace_back(e.internal_key, value);
      c.entries.push_back(e);
    }
    c.smallest = c.entries.front().internal_key;
    c.largest = c.entries.back().internal_key;
    const std::string path = Path(kv_file ? "000050.sst" : "000051.sst");
    std::unique_ptr<Directory> d;
    ASSERT_TRUE(options_.fs->CreateDir(path, false).ok());
    ASSERT_TRUE(options_.fs->OpenDirectory(path, &d).ok());
    ASSERT_TRUE(
        d->WriteFile("META", delsm_test::EncodeMetaFileVersion2(c), false)
            .ok());
    if (kv_file) {
      ASSERT_TRUE(
          d->WriteFile(KvFileName("key007", 3), kvs[7].second, false).ok());
    }
    std::unique_ptr<SstDir> dir = OpenDir(path);
    ASSERT_NE(dir, nullptr);
    EXPECT_EQ(dir->OpenDescriptors(), kv_file ? 1 : 0);
    ExpectReads(dir.get(), kvs);
  }
}

TEST_F(SstDirTest, InlineByteChangedUnderTheMappingIsCorruption) {
  options_.inline_threshold = 1024;
  const std::string path = Path("000006.sst");
  Build(path, {{IKey("a", 1, kTypeValue), std::string(100, 'a')},
               {IKey("b", 1, kTypeValue), std::string(100, 'b')}});
  auto dir = OpenDir(path);
  ASSERT_NE(dir, nullptr);
  ASSERT_EQ(IndexOf(dir.get()).entries[1].storage, ValueStorage::kInline);
  EXPECT_EQ(Get(dir.get(), "b", 5).value, std::string(100, 'b'));
  // The same inode, written in place: a mapping sees it, as a read would.
  const std::string meta = path + "/META";
  int fd = open(meta.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "x", 1, IndexOf(dir.get()).entries[1].inline_offset + 7),
            1);
  ASSERT_EQ(close(fd), 0);
  Status s;
  GetResult r = Get(dir.get(), "b", 5, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(meta), std::string::npos) << s.ToString();
  EXPECT_FALSE(r.found);
  EXPECT_EQ(Get(dir.get(), "a", 5).value, std::string(100, 'a'));

  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  it->Seek(IKey("b", 5, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  it->value();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
}

// What the builder writes to META, read back raw: every entry in order with
// its kind, sizes and checksum, inline values as stored, the key range, and
// a filter over each distinct user key once (as the policy builds it).
TEST_F(SstDirTest, MetaFileHoldsEveryEntryAndAFilterOverDistinctUserKeys) {
  options_.inline_threshold = 64;
  options_.compression = kSnappyCompression;
  const std::string path = Path("000009.sst");
  const std::string long_user(300, 'k');  // needs a hashed KV file name
  std::vector<std::pair<std::string, std::string>> kvs = {
      {IKey("a", 9, kTypeValue), std::string(60, 'x')},  // inline, snappy
      {IKey("a", 7, kTypeDeletion), ""},
      {IKey("a", 5, kTypeValue), "short"},                 // inline, as is
      {IKey("b", 4, kTypeValue), std::string(9000, 'b')},  // KV file, snappy
      {IKey(long_user, 3, kTypeValue), std::string(65, 'l')},  // KV file
      {IKey("m", 30, kTypeValue), ""}};                        // inline, empty
  // Older versions of "m" (deletions), enough that a filter holding each
  // of them would be larger than one holding "m" once.
  for (int seq = 29; seq >= 20; seq--) {
    kvs.push_back({IKey("m", seq, kTypeDeletion), ""});
  }
  SstDirBuilder b(options_, path);
  ASSERT_TRUE(b.Begin().ok());
  for (const auto& kv : kvs) ASSERT_TRUE(b.Add(kv.first, kv.second).ok());
  ASSERT_TRUE(b.Finish().ok());
  EXPECT_EQ(b.NumEntries(), kvs.size());
  EXPECT_EQ(b.smallest(), kvs.front().first);
  EXPECT_EQ(b.largest(), kvs.back().first);
  EXPECT_EQ(b.ValueBytes(), 60u + 5 + 9000 + 65);

  std::unique_ptr<Directory> d;
  ASSERT_TRUE(options_.fs->OpenDirectory(path, &d).ok());
  std::string raw;
  ASSERT_TRUE(d->ReadFile("META", &raw).ok());
  MetaFileContents c;
  Status s = DecodeMetaFile(raw, "META", &c);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.comparator_name, std::string(BytewiseComparator()->Name()));
  ASSERT_EQ(c.entries.size(), kvs.size());
  const ValueStorage kinds[] = {
      ValueStorage::kInlineSnappy, ValueStorage::kNone, ValueStorage::kInline,
      ValueStorage::kFileSnappy,   ValueStorage::kFile, ValueStorage::kInline};
  for (size_t i = 0; i < kvs.size(); i++) {
    const MetaEntry& e = c.entries[i];
    SCOPED_TRACE(i);
    EXPECT_EQ(e.internal_key, kvs[i].first);
    EXPECT_EQ(e.storage, i < 6 ? kinds[i] : ValueStorage::kNone);
    EXPECT_EQ(e.value_size, kvs[i].second.size());
    if (StoredInline(e.storage)) {
      std::string value;
      ASSERT_TRUE(DecodeKvValue(e.inline_value,
                                e.storage == ValueStorage::kInlineSnappy,
                                e.value_size, "META", &value)
                      .ok());
      EXPECT_EQ(value, kvs[i].second);
    }
  }
  EXPECT_LT(c.entries[0].stored_size, 60u);
  EXPECT_EQ(c.smallest, kvs.front().first);
  EXPECT_EQ(c.largest, kvs.back().first);
  std::string want_filter;
  PutLengthPrefixedSlice(&want_filter, bloom_->Name());
  const std::vector<Slice> users = {"a", "b", long_user, "m"};
  std::string bits;
  bloom_->CreateFilter(users.data(), static_cast<int>(users.size()), &bits);
  want_filter.append(bits);
  EXPECT_EQ(c.filter, want_filter);
  // Re-encoding what was read gives the same file: nothing else is in it.
  EXPECT_EQ(EncodeMetaFile(c), raw);
}

}  // namespace
}  // namespace leveldb
