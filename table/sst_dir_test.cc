#include "table/sst_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/table_cache.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/cache.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "table/key_codec.h"
#include "table/kv_value.h"
#include "table/meta_file.h"
#include "table/sst_dir_builder.h"
#include "testing/fault_injection_file_system.h"
#include "tests/meta_file_v1.h"
#include "tests/test_support.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace leveldb {
namespace {

std::string IKey(const std::string& user, uint64_t seq, ValueType t) {
  return InternalKey(user, seq, t).Encode().ToString();
}

struct GetResult {
  bool found = false;
  std::string key;
  std::string value;
};

void SaveResult(void* arg, const Slice& key, const Slice& value) {
  auto* r = static_cast<GetResult*>(arg);
  r->found = true;
  r->key = key.ToString();
  r->value = value.ToString();
}

class SstDirTest : public testing::Test {
 protected:
  SstDirTest() : icmp_(BytewiseComparator()), bloom_(NewBloomFilterPolicy(10)) {
    root_ = delsm_test::MakeTestDir("delsm_sst_dir_test");
    EXPECT_FALSE(root_.empty());
    options_.comparator = &icmp_;
    options_.filter_policy = bloom_.get();
    options_.fs = FileSystem::Default();
    options_.compression = kNoCompression;
  }
  ~SstDirTest() override {
    if (!root_.empty()) {
      std::string cmd = "rm -rf '" + root_ + "'";
      EXPECT_EQ(system(cmd.c_str()), 0);
    }
  }

  std::string Path(const std::string& name) { return root_ + "/" + name; }

  // Builds a directory from (internal key, value) pairs in order.
  void Build(const std::string& path,
             const std::vector<std::pair<std::string, std::string>>& kvs) {
    SstDirBuilder b(options_, path);
    ASSERT_TRUE(b.Begin().ok());
    for (const auto& kv : kvs) {
      Status s = b.Add(kv.first, kv.second);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    Status s = b.Finish();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Opens `path` with options_, through `fs` if given (e.g. a file system
  // that maps nothing, so meta files are read).
  std::unique_ptr<SstDir> OpenDir(const std::string& path,
                                  FileSystem* fs = nullptr) {
    SstDirOptions options = options_;
    if (fs != nullptr) options.fs = fs;
    std::unique_ptr<SstDir> dir;
    Status s = SstDir::Open(options, path, &dir);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return dir;
  }

  GetResult Get(SstDir* dir, const std::string& user, uint64_t seq,
                Status* status = nullptr, bool verify = false) {
    GetResult r;
    ReadOptions ro;
    ro.verify_checksums = verify;
    Status s = dir->InternalGet(ro, IKey(user, seq, kValueTypeForSeek), &r,
                                &SaveResult);
    if (status != nullptr) {
      *status = s;
    } else {
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    return r;
  }

  std::vector<std::string> ListNames(const std::string& path) {
    std::unique_ptr<Directory> d;
    EXPECT_TRUE(options_.fs->OpenDirectory(path, &d).ok());
    std::vector<std::string> names;
    if (d) EXPECT_TRUE(d->List(&names).ok());
    std::sort(names.begin(), names.end());
    return names;
  }

  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> bloom_;
  SstDirOptions options_;
  std::string root_;
};

TEST_F(SstDirTest, GetFindsNewestVersionAtOrBelowSequence) {
  const std::string path = Path("000001.sst");
  Build(path, {{IKey("a", 5, kTypeValue), "a5"},
               {IKey("b", 9, kTypeValue), "b9"},
               {IKey("b", 6, kTypeDeletion), ""},
               {IKey("b", 3, kTypeValue), "b3"},
               {IKey("c", 2, kTypeValue), "c2"}});
  auto dir = OpenDir(path);
  ASSERT_NE(dir, nullptr);
  EXPECT_EQ(dir->index().entries.size(), 5u);

  GetResult r = Get(dir.get(), "b", 100);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.key, IKey("b", 9, kTypeValue));
  EXPECT_EQ(r.value, "b9");

  r = Get(dir.get(), "b", 8);  // the deletion at 6
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.key, IKey("b", 6, kTypeDeletion));
  EXPECT_EQ(r.value, "");

  r = Get(dir.get(), "b", 5);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.value, "b3");

  EXPECT_FALSE(Get(dir.get(), "b", 2).found);  // older than every version
  EXPECT_FALSE(Get(dir.get(), "a", 4).found);
  EXPECT_FALSE(Get(dir.get(), "bb", 100).found);
  EXPECT_FALSE(Get(dir.get(), "zzz", 100).found);
  EXPECT_EQ(Get(dir.get(), "c", 2).value, "c2");
}

TEST_F(SstDirTest, FourKiBValueFillsOneBlockAndDeletesMakeNoFile) {
  const std::string path = Path("000003.sst");
  const std::string value(4096, 'q');
  Build(path, {{IKey("gone", 2, kTypeDeletion), ""},
               {IKey("page", 1, kTypeValue), value}});
  EXPECT_EQ(ListNames(path),
            (std::vector<std::string>{"META", KvFileName("page", 1)}));
  std::unique_ptr<Directory> d;
  ASSERT_TRUE(options_.fs->OpenDirectory(path, &d).ok());
  KvFileInfo info;
  ASSERT_TRUE(d->Stat(KvFileName("page", 1), &info).ok());
  EXPECT_EQ(info.size, 4096u);
  EXPECT_EQ(info.blocks_512, 8u);
  EXPECT_EQ(info.links, 1u);

  auto dir = OpenDir(path);
  EXPECT_EQ(Get(dir.get(), "page", 10).value, value);
  GetResult r = Get(dir.get(), "gone", 10);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.key, IKey("gone", 2, kTypeDeletion));
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
  EXPECT_EQ(dir->index().entries[1].storage, ValueStorage::kInline);
  EXPECT_EQ(Get(dir.get(), "small", 5).value, std::string(64, 's'));
  GetResult r = Get(dir.get(), "empty", 5);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.value, "");
  EXPECT_EQ(Get(dir.get(), "big", 5).value, std::string(65, 'b'));
}

// Inline values of a POSIX meta file are read from its mapping: the open
// SST holds one descriptor (its directory's), point reads and iterators
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
  EXPECT_EQ(dir->index().entries[0].storage, ValueStorage::kInlineSnappy);
  EXPECT_EQ(dir->index().entries[1].storage, ValueStorage::kInline);
  EXPECT_EQ(dir->OpenDescriptors(), 1);  // the meta file is mapped

  auto check_all = [&]() {
    for (const auto& kv : kvs) {
      const std::string user = ExtractUserKey(kv.first).ToString();
      GetResult r = Get(dir.get(), user, 20);
      EXPECT_TRUE(r.found) << user;
      EXPECT_EQ(r.value, kv.second) << user;
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
    i = kvs.size();
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      i--;
      EXPECT_EQ(it->value().ToString(), kvs[i].second) << i;
    }
    EXPECT_EQ(i, 0u);
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

// Reads every entry of `dir` as point reads and as scans both ways, and
// compares them with `kvs` (internal key, value; deletions read as found
// with an empty value).
void ExpectReads(SstDir* dir,
                 const std::vector<std::pair<std::string, std::string>>& kvs) {
  ASSERT_EQ(dir->index().entries.size(), kvs.size());
  for (size_t i = 0; i < kvs.size(); i++) {
    EXPECT_EQ(dir->index().entries[i].internal_key, Slice(kvs[i].first)) << i;
    GetResult r;
    ASSERT_TRUE(
        dir->InternalGet(ReadOptions(), kvs[i].first, &r, &SaveResult).ok());
    EXPECT_TRUE(r.found) << i;
    EXPECT_EQ(r.key, kvs[i].first) << i;
    EXPECT_EQ(r.value, kvs[i].second) << i;
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
    const MetaIndex& a = mapped->index();
    const MetaIndex& b = unmapped->index();
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
          dir->index().entries[i].storage,
          compressed ? ValueStorage::kInlineSnappy : ValueStorage::kInline)
          << sizes[i];
    }
    ExpectReads(dir.get(), kvs);
  }
}

// An SST whose inline values are all empty has an empty value section, so
// an unmapped meta file keeps no descriptor for values: its empty values
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
  EXPECT_EQ(unmapped->OpenDescriptors(), 1);  // no value section to read
  ExpectReads(unmapped.get(), kvs);
  std::string buffer;
  uint64_t buffer_offset = 0;
  size_t inline_values = 0;
  for (size_t i = 0; i < kvs.size(); i++) {
    if (!StoredInline(unmapped->index().entries[i].storage)) continue;
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
// place, with no descriptor kept.
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
    EXPECT_EQ(dir->OpenDescriptors(), 1);
    EXPECT_TRUE(dir->InlineInMemory(ValueStorage::kInline));
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
  ASSERT_EQ(dir->index().entries[1].storage, ValueStorage::kInline);
  EXPECT_EQ(Get(dir.get(), "b", 5).value, std::string(100, 'b'));
  // The same inode, written in place: a mapping sees it, as a read would.
  const std::string meta = path + "/META";
  int fd = open(meta.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "x", 1, dir->index().entries[1].inline_offset + 7), 1);
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

TEST_F(SstDirTest, ZeroThresholdPutsEvenEmptyValuesInFiles) {
  const std::string path = Path("000005.sst");
  Build(path, {{IKey("e", 1, kTypeValue), ""}});
  EXPECT_EQ(ListNames(path),
            (std::vector<std::string>{"META", KvFileName("e", 1)}));
  auto dir = OpenDir(path);
  GetResult r = Get(dir.get(), "e", 1);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.value, "");
}

TEST_F(SstDirTest, SnappyOnlyWhenItSaves) {
  options_.compression = kSnappyCompression;
  const std::string path = Path("000006.sst");
  std::string random_ish;
  uint64_t x = 88172645463325252ull;  // xorshift64: incompressible bytes
  for (int i = 0; i < 4096; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    random_ish.push_back(static_cast<char>(x >> 32));
  }
  Build(path, {{IKey("a", 1, kTypeValue), std::string(10000, 'a')},
               {IKey("r", 1, kTypeValue), random_ish}});
  auto dir = OpenDir(path);
  EXPECT_EQ(dir->index().entries[0].storage, ValueStorage::kFileSnappy);
  EXPECT_LT(dir->index().entries[0].stored_size, 10000u / 8);
  EXPECT_EQ(dir->index().entries[1].storage, ValueStorage::kFile);
  EXPECT_EQ(Get(dir.get(), "a", 1).value, std::string(10000, 'a'));
  EXPECT_EQ(Get(dir.get(), "r", 1).value, random_ish);
  Status s;
  EXPECT_EQ(Get(dir.get(), "a", 1, &s, /*verify=*/true).value,
            std::string(10000, 'a'));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

// A value of at most one block takes one block either way: it is stored
// as written, however well it would compress.
TEST_F(SstDirTest, OneBlockValuesAreNeverCompressed) {
  options_.compression = kSnappyCompression;
  const std::string path = Path("000008.sst");
  Build(path, {{IKey("a", 1, kTypeValue), std::string(4096, 'a')},
               {IKey("b", 1, kTypeValue), std::string(100, 'b')},
               {IKey("c", 1, kTypeValue), std::string(4097, 'c')}});
  auto dir = OpenDir(path);
  EXPECT_EQ(dir->index().entries[0].storage, ValueStorage::kFile);
  EXPECT_EQ(dir->index().entries[0].stored_size, 4096u);
  EXPECT_EQ(dir->index().entries[1].storage, ValueStorage::kFile);
  EXPECT_EQ(dir->index().entries[2].storage, ValueStorage::kFileSnappy);
  EXPECT_EQ(Get(dir.get(), "a", 1).value, std::string(4096, 'a'));
  EXPECT_EQ(Get(dir.get(), "c", 1).value, std::string(4097, 'c'));
}

TEST_F(SstDirTest, IteratorOrderAndLazyValues) {
  const std::string path = Path("000007.sst");
  std::vector<std::pair<std::string, std::string>> kvs;
  for (int i = 0; i < 50; i++) {
    char k[16];
    snprintf(k, sizeof(k), "key%03d", i);
    kvs.push_back({IKey(k, 100 - i, kTypeValue), std::string(i, 'v')});
  }
  Build(path, kvs);
  auto dir = OpenDir(path);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  size_t i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
    ASSERT_LT(i, kvs.size());
    EXPECT_EQ(it->key().ToString(), kvs[i].first);
    EXPECT_EQ(it->value().ToString(), kvs[i].second);
  }
  EXPECT_EQ(i, kvs.size());
  EXPECT_TRUE(it->status().ok());

  i = kvs.size();
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    --i;
    EXPECT_EQ(it->key().ToString(), kvs[i].first);
  }
  EXPECT_EQ(i, 0u);

  it->Seek(IKey("key010", kMaxSequenceNumber, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), kvs[10].first);
  EXPECT_EQ(it->value().ToString(), kvs[10].second);
  it->Seek(IKey("key0105", kMaxSequenceNumber, kValueTypeForSeek));
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key().ToString(), kvs[11].first);
  it->Seek(IKey("zzz", kMaxSequenceNumber, kValueTypeForSeek));
  EXPECT_FALSE(it->Valid());

  // Approximate sizes are bytes on disk: every non-empty KV file takes one
  // 4 KiB block (key000's empty value none), and the meta file's one block
  // is spread evenly over the 50 entries.
  EXPECT_EQ(dir->ApproximateBytesBefore(
                IKey("key010", kMaxSequenceNumber, kValueTypeForSeek)),
            9u * 4096 + 4096 * 10 / 50);
  EXPECT_EQ(dir->ApproximateBytesBefore(IKey("", 0, kTypeValue)), 0u);
  EXPECT_EQ(dir->ApproximateBytesBefore(IKey("zzz", 0, kTypeValue)),
            49u * 4096 + 4096);
}

TEST_F(SstDirTest, EmptyDirectory) {
  const std::string path = Path("000008.sst");
  Build(path, {});
  auto dir = OpenDir(path);
  EXPECT_FALSE(Get(dir.get(), "a", 1).found);
  std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  EXPECT_FALSE(it->Valid());
}

TEST_F(SstDirTest, AddLinkedSharesInodes) {
  options_.inline_threshold = 8;
  const std::string src_path = Path("000010.sst");
  Build(src_path, {{IKey("a", 3, kTypeValue), "value-of-a"},
                   {IKey("b", 4, kTypeDeletion), ""},
                   {IKey("c", 5, kTypeValue), "tiny"},
                   {IKey("d", 6, kTypeValue), "value-of-d"}});
  auto src = OpenDir(src_path);
  const std::string dst_path = Path("000011.sst");
  {
    SstDirBuilder b(options_, dst_path);
    ASSERT_TRUE(b.Begin().ok());
    std::string buffer;
    uint64_t offset = 0;
    const auto& entries = src->index().entries;
    for (size_t i = 0; i < entries.size(); i++) {
      Slice stored;
      if (StoredInline(entries[i].storage)) {
        ASSERT_TRUE(
            src->ReadInlineStored(i, 1, 0, &buffer, &offset, &stored).ok());
      }
      Status s = b.AddLinked(entries[i].internal_key, entries[i],
                             src->directory(), stored);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    ASSERT_TRUE(b.Finish().ok());
    EXPECT_EQ(b.links_made(), 2u);
    EXPECT_EQ(b.files_created(), 0u);
    EXPECT_EQ(b.NumEntries(), 4u);
  }
  auto dst = OpenDir(dst_path);
  for (const char* k : {"a", "d"}) {
    const uint64_t seq = k[0] == 'a' ? 3 : 6;
    KvFileInfo in_src, in_dst;
    ASSERT_TRUE(src->directory()->Stat(KvFileName(k, seq), &in_src).ok());
    ASSERT_TRUE(dst->directory()->Stat(KvFileName(k, seq), &in_dst).ok());
    EXPECT_EQ(in_src.inode, in_dst.inode);
    EXPECT_EQ(in_dst.links, 2u);
  }
  EXPECT_EQ(Get(dst.get(), "a", 10).value, "value-of-a");
  EXPECT_EQ(Get(dst.get(), "c", 10).value, "tiny");
  EXPECT_TRUE(Get(dst.get(), "b", 10).found);
  EXPECT_EQ(Get(dst.get(), "d", 10).value, "value-of-d");
}

TEST_F(SstDirTest, AbandonLeavesNothing) {
  options_.inline_threshold = 4;
  const std::string long_key(400, 'z');
  const std::string path = Path("000012.sst");
  {
    SstDirBuilder b(options_, path);
    ASSERT_TRUE(b.Begin().ok());
    ASSERT_TRUE(b.Add(IKey("a", 1, kTypeValue), "value").ok());
    ASSERT_TRUE(b.Add(IKey("b", 1, kTypeValue), "v").ok());
    ASSERT_TRUE(b.Add(IKey(long_key, 1, kTypeValue), "long value").ok());
    ASSERT_TRUE(b.Finish().ok());
    EXPECT_TRUE(options_.fs->Exists(path + "/LONGKEYS"));
    b.Abandon();
  }
  EXPECT_FALSE(options_.fs->Exists(path));
  // The destructor of an unfinished builder abandons too.
  {
    SstDirBuilder b(options_, path);
    ASSERT_TRUE(b.Begin().ok());
    ASSERT_TRUE(b.Add(IKey("a", 1, kTypeValue), "value").ok());
  }
  EXPECT_FALSE(options_.fs->Exists(path));
}

TEST_F(SstDirTest, BeginRefusesAnExistingDirectoryAndLeavesIt) {
  const std::string path = Path("000013.sst");
  Build(path, {{IKey("a", 1, kTypeValue), "keep"}});
  {
    SstDirBuilder b(options_, path);
    EXPECT_FALSE(b.Begin().ok());
  }
  auto dir = OpenDir(path);
  EXPECT_EQ(Get(dir.get(), "a", 1).value, "keep");
}

TEST_F(SstDirTest, OutOfOrderAddIsRejected) {
  SstDirBuilder b(options_, Path("000014.sst"));
  ASSERT_TRUE(b.Begin().ok());
  ASSERT_TRUE(b.Add(IKey("b", 1, kTypeValue), "x").ok());
  EXPECT_TRUE(b.Add(IKey("a", 1, kTypeValue), "x").IsInvalidArgument());
  EXPECT_TRUE(b.Add(IKey("b", 1, kTypeValue), "x").IsInvalidArgument());
  EXPECT_TRUE(b.Add(IKey("b", 2, kTypeValue), "x").IsInvalidArgument());
  EXPECT_TRUE(b.Add("short", "x").IsInvalidArgument());
  EXPECT_TRUE(b.Add(IKey("b", 0, kTypeValue), "x").ok());
}

TEST_F(SstDirTest, AwkwardKeysStayInsideTheDirectory) {
  std::vector<std::string> users = {"",     std::string(1, '\0'),
                                    "..",   ".",
                                    "../x", "/",
                                    "/etc", std::string(300, 'k'),
                                    "\xff", std::string(65536, '\x01')};
  std::sort(users.begin(), users.end());
  std::vector<std::pair<std::string, std::string>> kvs;
  for (size_t i = 0; i < users.size(); i++) {
    kvs.push_back({IKey(users[i], 1, kTypeValue), "v" + std::to_string(i)});
  }
  const std::string path = Path("000015.sst");
  Build(path, kvs);
  // Only the level directory's own child exists in root_.
  std::unique_ptr<Directory> root;
  ASSERT_TRUE(options_.fs->OpenDirectory(root_, &root).ok());
  std::vector<std::string> top;
  ASSERT_TRUE(root->List(&top).ok());
  EXPECT_EQ(top, std::vector<std::string>{"000015.sst"});
  // One KV file per key, plus META and LONGKEYS (two hashed keys).
  EXPECT_EQ(ListNames(path).size(), users.size() + 2);
  auto dir = OpenDir(path);
  for (size_t i = 0; i < users.size(); i++) {
    GetResult r = Get(dir.get(), users[i], 5);
    ASSERT_TRUE(r.found) << i;
    EXPECT_EQ(r.value, "v" + std::to_string(i));
  }
}

TEST_F(SstDirTest, FlippedKvByteIsCorruptionWithVerifyChecksums) {
  const std::string path = Path("000016.sst");
  Build(path, {{IKey("k", 7, kTypeValue), std::string(100, 'x')}});
  const std::string file = path + "/" + KvFileName("k", 7);
  int fd = open(file.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "y", 1, 50), 1);
  ASSERT_EQ(close(fd), 0);
  auto dir = OpenDir(path);
  Status s;
  GetResult r = Get(dir.get(), "k", 7, &s, /*verify=*/true);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(file), std::string::npos) << s.ToString();
  EXPECT_FALSE(r.found);

  // The iterator reports it as a non-OK status and stops.
  ReadOptions ro;
  ro.verify_checksums = true;
  std::unique_ptr<Iterator> it(dir->NewIterator(ro));
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  it->value();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsCorruption());
}

TEST_F(SstDirTest, MissingOrTruncatedKvFileIsCorruption) {
  const std::string path = Path("000017.sst");
  Build(path, {{IKey("k", 7, kTypeValue), std::string(100, 'x')},
               {IKey("m", 7, kTypeValue), std::string(100, 'x')}});
  ASSERT_EQ(unlink((path + "/" + KvFileName("k", 7)).c_str()), 0);
  ASSERT_EQ(truncate((path + "/" + KvFileName("m", 7)).c_str(), 99), 0);
  auto dir = OpenDir(path);
  Status s;
  Get(dir.get(), "k", 7, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  Get(dir.get(), "m", 7, &s);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

TEST_F(SstDirTest, OpenErrors) {
  std::unique_ptr<SstDir> dir;
  EXPECT_TRUE(SstDir::Open(options_, Path("nope.sst"), &dir).IsNotFound());
  const std::string path = Path("000018.sst");
  Build(path, {{IKey("k", 7, kTypeValue), "v"}});
  // A damaged META.
  const std::string meta = path + "/META";
  int fd = open(meta.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "X", 1, 20), 1);
  ASSERT_EQ(close(fd), 0);
  Status s = SstDir::Open(options_, path, &dir);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(meta), std::string::npos);
  ASSERT_EQ(unlink(meta.c_str()), 0);
  EXPECT_TRUE(SstDir::Open(options_, path, &dir).IsNotFound());
}

TEST_F(SstDirTest, ComparatorMismatchIsRefused) {
  const std::string path = Path("000019.sst");
  Build(path, {{IKey("k", 7, kTypeValue), "v"}});
  class Reverse : public Comparator {
   public:
    int Compare(const Slice& a, const Slice& b) const override {
      return b.compare(a);
    }
    const char* Name() const override { return "test.Reverse"; }
    void FindShortestSeparator(std::string*, const Slice&) const override {}
    void FindShortSuccessor(std::string*) const override {}
  } reverse;
  InternalKeyComparator ricmp(&reverse);
  SstDirOptions o = options_;
  o.comparator = &ricmp;
  std::unique_ptr<SstDir> dir;
  EXPECT_TRUE(SstDir::Open(o, path, &dir).IsInvalidArgument());
}

TEST_F(SstDirTest, TableCacheFindsDirectoriesAcrossLevels) {
  const std::string db = root_;
  for (int level : {0, 1}) {
    ASSERT_TRUE(options_.fs->CreateDir(LevelDirName(db, level), true).ok());
  }
  Build(SstDirName(db, 1, 5), {{IKey("k", 7, kTypeValue), "five"}});
  TableCache cache(db, options_, 10, 64 << 20);
  GetResult r;
  // Asked at level 0 (a stale version after a trivial move): still found.
  Status s = cache.Get(ReadOptions(), 0, 5, 5, IKey("k", 9, kValueTypeForSeek),
                       &r, &SaveResult);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(r.value, "five");
  SstDir* sst = nullptr;
  std::unique_ptr<Iterator> it(cache.NewIterator(ReadOptions(), 1, 5, 5, &sst));
  EXPECT_NE(sst, nullptr);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value().ToString(), "five");
  it.reset();
  // Missing numbers give NotFound and an error iterator.
  EXPECT_TRUE(cache
                  .Get(ReadOptions(), 1, 6, 6, IKey("k", 9, kValueTypeForSeek),
                       &r, &SaveResult)
                  .IsNotFound());
  it.reset(cache.NewIterator(ReadOptions(), 1, 6, 6));
  it->SeekToFirst();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().IsNotFound());
  cache.Evict(5);
  cache.Evict(6);
}

// A second SST in an existing directory: its own meta file, found through
// the cache by SST and directory number, and undone entry by entry.
TEST_F(SstDirTest, SecondSstInExistingDirectory) {
  const std::string db = root_;
  ASSERT_TRUE(options_.fs->CreateDir(LevelDirName(db, 1), true).ok());
  const std::string path = SstDirName(db, 1, 5);
  Build(path, {{IKey("a", 7, kTypeValue), "first"}});
  {
    SstDirBuilder b(options_, path, MetaFileName(9, 5), LongKeysFileName(9, 5));
    ASSERT_TRUE(b.BeginInExisting().ok());
    ASSERT_TRUE(b.Add(IKey("b", 8, kTypeValue), "second").ok());
    ASSERT_TRUE(b.Finish().ok());
    EXPECT_EQ(b.DirEntries(), 2u);  // one KV file and META-000009
  }
  EXPECT_EQ(ListNames(path),
            (std::vector<std::string>{"META", "META-000009", KvFileName("a", 7),
                                      KvFileName("b", 8)}));
  TableCache cache(db, options_, 10, 64 << 20);
  GetResult r;
  ASSERT_TRUE(cache
                  .Get(ReadOptions(), 1, 9, 5, IKey("b", 9, kValueTypeForSeek),
                       &r, &SaveResult)
                  .ok());
  EXPECT_EQ(r.value, "second");
  cache.Evict(9);
  {
    // An abandoned addition takes away only what it added.
    SstDirBuilder b(options_, path, MetaFileName(10, 5),
                    LongKeysFileName(10, 5));
    ASSERT_TRUE(b.BeginInExisting().ok());
    ASSERT_TRUE(b.Add(IKey("c", 9, kTypeValue), "third").ok());
    b.Abandon();
  }
  EXPECT_EQ(ListNames(path).size(), 4u);
  EXPECT_TRUE(options_.fs->Exists(path));
}

}  // namespace
}  // namespace leveldb
