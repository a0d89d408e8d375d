#include "table/sst_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
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
#include "tests/sst_dir_fixture.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using sst_dir_fixture::GetResult;
using sst_dir_fixture::IKey;
using sst_dir_fixture::SaveResult;
using sst_dir_fixture::SstDirTest;

TEST_F(SstDirTest, GetFindsNewestVersionAtOrBelowSequence) {
  const std::string path = Path("000001.sst");
  Build(path, {{IKey("a", 5, kTypeValue), "a5"},
               {IKey("b", 9, kTypeValue), "b9"},
               {IKey("b", 6, kTypeDeletion), ""},
               {IKey("b", 3, kTypeValue), "b3"},
               {IKey("c", 2, kTypeValue), "c2"}});
  auto dir = OpenDir(path);
  ASSERT_NE(dir, nullptr);
  EXPECT_EQ(IndexOf(dir.get()).entries.size(), 5u);

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

// The key windows that speed up lookups are built only after an SST's first
// lookups, by whichever thread gets there first, while others look up
// through the plain search: every lookup, before, during and after the
// build, from any thread, finds what a search of the whole index finds.
TEST_F(SstDirTest, LookupsAgreeBeforeDuringAndAfterTheKeyWindowsAreBuilt) {
  const std::string path = Path("000001.sst");
  constexpr int kKeys = 300;
  std::vector<std::pair<std::string, std::string>> kvs;
  auto user_key = [](int i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "user-%06d", i * 2);  // odd: absent
    return std::string(buf);
  };
  for (int i = 0; i < kKeys; i++) {
    kvs.push_back({IKey(user_key(i), 20, kTypeValue), "new" + user_key(i)});
    kvs.push_back({IKey(user_key(i), 10, kTypeValue), "old" + user_key(i)});
  }
  Build(path, kvs);
  auto dir = OpenDir(path);
  ASSERT_NE(dir, nullptr);
  std::vector<std::thread> readers;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; t++) {
    readers.emplace_back([&, t] {
      for (int n = 0; n < kKeys; n++) {
        const int i = (n * 7 + t * 61) % kKeys;
        GetResult now = Get(dir.get(), user_key(i), 30);
        GetResult then = Get(dir.get(), user_key(i), 15);
        std::string absent = user_key(i);
        absent.back()++;
        if (!now.found || now.value != "new" + user_key(i) || !then.found ||
            then.value != "old" + user_key(i) ||
            Get(dir.get(), absent, 30).found ||
            Get(dir.get(), user_key(i), 5).found) {
          mismatches++;
        }
      }
    });
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(mismatches.load(), 0);
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
  EXPECT_EQ(IndexOf(dir.get()).entries[0].storage, ValueStorage::kFileSnappy);
  EXPECT_LT(IndexOf(dir.get()).entries[0].stored_size, 10000u / 8);
  EXPECT_EQ(IndexOf(dir.get()).entries[1].storage, ValueStorage::kFile);
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
  EXPECT_EQ(IndexOf(dir.get()).entries[0].storage, ValueStorage::kFile);
  EXPECT_EQ(IndexOf(dir.get()).entries[0].stored_size, 4096u);
  EXPECT_EQ(IndexOf(dir.get()).entries[1].storage, ValueStorage::kFile);
  EXPECT_EQ(IndexOf(dir.get()).entries[2].storage, ValueStorage::kFileSnappy);
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
    const auto& entries = IndexOf(src.get()).entries;
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
  // A damaged META (its trailer, which Open reads: the byte before the
  // 24-byte footer).
  const std::string meta = path + "/META";
  struct stat st;
  ASSERT_EQ(stat(meta.c_str(), &st), 0);
  int fd = open(meta.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, "X", 1, st.st_size - 25), 1);
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
