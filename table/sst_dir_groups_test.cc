// An SST whose meta file is in groups (format 4): lookups through the
// groups before the whole index is loaded, the index loaded once for
// whoever needs every entry (under concurrent readers), damage found by
// whoever reads the damaged region, older formats still read, and the
// table cache's charge following what the SST holds.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "db/filename.h"
#include "db/table_cache.h"
#include "gtest/gtest.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"
#include "testing/fault_injection_file_system.h"
#include "tests/meta_file_v2.h"
#include "tests/sst_dir_fixture.h"

namespace leveldb {
namespace {

using sst_dir_fixture::GetResult;
using sst_dir_fixture::IKey;
using sst_dir_fixture::SaveResult;
using sst_dir_fixture::SstDirTest;

using sst_dir_fixture::KVs;
using sst_dir_fixture::User;

// `users` user keys, each with `versions` versions (sequence numbers
// 100 + versions - 1 down to 100, newest first as they sort), of every
// kind in turn: an inline value, a deletion, a value in a KV file (over
// the fixture's inline threshold of 64 set by the tests; without
// `kv_files`, an inline value of 40 bytes or so instead), an empty value.
KVs Entries(int users, int versions, bool kv_files = true) {
  KVs kvs;
  for (int u = 0; u < users; u++) {
    for (int v = versions - 1; v >= 0; v--) {
      const uint64_t seq = 100 + v;
      const int kind = (u * versions + v) % 4;
      if (kind == 1) {
        kvs.emplace_back(IKey(User(u), seq, kTypeDeletion), "");
      } else {
        std::string value;
        if (kind == 0) value = "inline-" + std::to_string(u * 1000 + v);
        if (kind == 2) {
          value = std::string((kv_files ? 100 : 40) + v,
                              static_cast<char>('a' + u % 26));
        }
        kvs.emplace_back(IKey(User(u), seq, kTypeValue), value);
      }
    }
  }
  return kvs;
}

// The answer a lookup of `user` as of `seq` should give from `kvs`: the
// newest version at or below seq, if any.
bool Expected(const KVs& kvs, const std::string& user, uint64_t seq,
              std::pair<std::string, std::string>* want) {
  for (const auto& kv : kvs) {
    ParsedInternalKey k;
    EXPECT_TRUE(ParseInternalKey(kv.first, &k));
    if (k.user_key == Slice(user) && k.sequence <= seq) {
      *want = kv;
      return true;
    }
  }
  return false;
}

class SstDirGroupsTest : public SstDirTest {
 protected:
  SstDirGroupsTest() { options_.inline_threshold = 64; }

  // Looks every user key of `kvs` (and the keys between and around them)
  // up as of every sequence number around its versions, and compares.
  void ExpectLookups(SstDir* dir, const KVs& kvs, int users, int versions) {
    for (int u = -1; u <= users; u++) {
      for (const std::string& user :
           {User(u < 0 ? 0 : u), User(u < 0 ? 0 : u) + "+", std::string("a"),
            std::string("z")}) {
        for (uint64_t seq = 98; seq <= 101 + versions; seq++) {
          Status s;
          GetResult r = Get(dir, user, seq, &s);
          ASSERT_TRUE(s.ok()) << user << "@" << seq << ": " << s.ToString();
          std::pair<std::string, std::string> want;
          const bool found = Expected(kvs, user, seq, &want);
          ASSERT_EQ(r.found, found) << user << "@" << seq;
          if (found) {
            EXPECT_EQ(r.key, want.first) << user << "@" << seq;
            EXPECT_EQ(r.value, want.second) << user << "@" << seq;
          }
        }
      }
    }
  }

  // Flips one byte of `path`'s META at `offset` (from the end if negative).
  void FlipMetaByte(const std::string& path, int64_t offset) {
    const std::string meta = path + "/META";
    std::string data;
    ASSERT_TRUE(ReadFileToString(meta, &data));
    const size_t at = offset < 0 ? data.size() + offset : offset;
    ASSERT_LT(at, data.size());
    data[at] ^= 0x40;
    int fd = open(meta.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(pwrite(fd, data.data() + at, 1, at), 1);
    ASSERT_EQ(close(fd), 0);
  }

  static bool ReadFileToString(const std::string& path, std::string* out) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    char buf[4096];
    size_t n;
    out->clear();
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out->append(buf, n);
    std::fclose(f);
    return true;
  }

  void ExpectDamageIsCorruptionWhereverItIsRead(bool kv_files);

  // For an SST without a KV file of 40 entries whose group 1 (entries 16
  // to 31) is damaged: forward, its iterator returns entries 0 to 15, then
  // is invalid with group 1's Corruption, which a later seek does not
  // clear; backward, entries 39 to 32, then the same; a seek into group 1
  // fails at once.
  static void ExpectGroupIteratorStopsAtGroup1(SstDir* dir, const KVs& kvs) {
    auto corrupt_at_group_1 = [](Iterator* it) {
      EXPECT_FALSE(it->Valid());
      EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
      EXPECT_NE(it->status().ToString().find("group 1"), std::string::npos)
          << it->status().ToString();
    };
    {
      std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
      it->SeekToFirst();
      for (size_t i = 0; i < 16; i++) {
        ASSERT_TRUE(it->Valid()) << i << ": " << it->status().ToString();
        EXPECT_EQ(it->key().ToString(), kvs[i].first);
        EXPECT_EQ(it->value().ToString(), kvs[i].second);
        it->Next();
      }
      corrupt_at_group_1(it.get());
      it->Seek(kvs[0].first);
      corrupt_at_group_1(it.get());
    }
    {
      std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
      it->SeekToLast();
      for (size_t i = 39; i >= 32; i--) {
        ASSERT_TRUE(it->Valid()) << i << ": " << it->status().ToString();
        EXPECT_EQ(it->key().ToString(), kvs[i].first);
        EXPECT_EQ(it->value().ToString(), kvs[i].second);
        it->Prev();
      }
      corrupt_at_group_1(it.get());
    }
    for (size_t i : {size_t{16}, size_t{20}, size_t{31}}) {
      std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
      it->Seek(kvs[i].first);
      corrupt_at_group_1(it.get());
    }
  }

  // The format-4 trailer of `path`'s META, and the META's bytes.
  void ReadTrailer(const std::string& path, std::string* data,
                   MetaIndexRange* range, MetaTrailer* trailer) {
    ASSERT_TRUE(ReadFileToString(path + "/META", data));
    ASSERT_TRUE(DecodeMetaFooter(*data, data->size(), "META", range).ok());
    ASSERT_EQ(range->version, 4u);
    ASSERT_TRUE(
        DecodeMetaTrailer(Slice(data->data() + range->offset, range->size),
                          *range, "META", trailer)
            .ok());
  }
};

// Entry counts around the group's size, several versions of a key across
// group boundaries: every lookup answers as a whole index would, mapped or
// read, without loading the whole index (the SST keeps holding what it held
// after Open), the first read of a group (which checks it whole) and every
// later one (which decodes it only up to the answer) alike; then the whole
// index loads once and answers the same.
TEST_F(SstDirGroupsTest, LookupsThroughGroupsAnswerAsTheWholeIndex) {
  for (auto shape :
       {std::make_pair(1, 1), std::make_pair(15, 1), std::make_pair(16, 1),
        std::make_pair(17, 1), std::make_pair(8, 5), std::make_pair(40, 7)}) {
    const int users = shape.first, versions = shape.second;
    SCOPED_TRACE(std::to_string(users) + "x" + std::to_string(versions));
    const std::string path =
        Path("g" + std::to_string(users) + "x" + std::to_string(versions));
    const KVs kvs = Entries(users, versions);
    Build(path, kvs);
    FaultInjectionFileSystem unmapping(FileSystem::Default());
    for (FileSystem* fs : {static_cast<FileSystem*>(nullptr),
                           static_cast<FileSystem*>(&unmapping)}) {
      std::unique_ptr<SstDir> dir = OpenDir(path, fs);
      ASSERT_NE(dir, nullptr);
      const size_t opened = dir->ApproximateMemoryUsage();
      ExpectLookups(dir.get(), kvs, users, versions);
      ExpectLookups(dir.get(), kvs, users, versions);
      EXPECT_EQ(dir->ApproximateMemoryUsage(), opened);
      ASSERT_TRUE(dir->LoadIndex().ok());
      ASSERT_EQ(dir->index().entries.size(), kvs.size());
      EXPECT_GT(dir->ApproximateMemoryUsage(),
                opened + kvs.size() * sizeof(MetaIndexEntry) - 1);
      ExpectLookups(dir.get(), kvs, users, versions);
    }
  }
}

// An SST of 4096 entries (a full one) keeps its trailer, not its index,
// after Open: a small fraction of what the whole index then holds.
TEST_F(SstDirGroupsTest, OpenHoldsTheTrailerOnly) {
  const std::string path = Path("big");
  const KVs kvs = Entries(1024, 4);
  Build(path, kvs);
  std::unique_ptr<SstDir> dir = OpenDir(path);
  ASSERT_NE(dir, nullptr);
  const size_t opened = dir->ApproximateMemoryUsage();
  ASSERT_TRUE(dir->LoadIndex().ok());
  const size_t loaded = dir->ApproximateMemoryUsage();
  EXPECT_LT(opened * 8, loaded) << opened << " " << loaded;
  // Loading again changes nothing.
  ASSERT_TRUE(dir->LoadIndex().ok());
  EXPECT_EQ(dir->ApproximateMemoryUsage(), loaded);
}

// A flipped byte in each region of the meta file: the footer and the
// trailer fail Open; a group fails every lookup that reads it (never a
// miss, which would let an older version in another SST answer), loading
// the whole index, and every iterator where it reaches the group, while
// lookups of the other groups still answer. An iterator through the whole
// index (an SST with KV files) fails before its first entry; one through
// the groups (an SST without) returns the entries before the damaged group
// and then fails there, none of that group's or of any beyond it.
TEST_F(SstDirGroupsTest, DamageIsCorruptionWhereverItIsRead) {
  for (bool kv_files : {true, false}) {
    SCOPED_TRACE(kv_files ? "KV files" : "inline only");
    ExpectDamageIsCorruptionWhereverItIsRead(kv_files);
  }
}

void SstDirGroupsTest::ExpectDamageIsCorruptionWhereverItIsRead(bool kv_files) {
  const int users = 20, versions = 2;  // 40 entries: groups of 16, 16, 8
  const KVs kvs = Entries(users, versions, kv_files);
  const std::string prefix = kv_files ? "kv-" : "inline-";
  std::string data;
  MetaIndexRange range;
  MetaTrailer trailer;
  {
    const std::string path = Path(prefix + "layout");
    Build(path, kvs);
    ReadTrailer(path, &data, &range, &trailer);
    ASSERT_EQ(trailer.groups.size(), 3u);
    ASSERT_EQ(trailer.kv_entries > 0, kv_files);
  }
  // The footer, the trailer: Open fails.
  for (int64_t at : {int64_t{-1}, int64_t{-9}, int64_t{-13}, int64_t{-20},
                     int64_t{-25}, static_cast<int64_t>(range.offset),
                     static_cast<int64_t>(range.offset + range.size / 2)}) {
    SCOPED_TRACE(at);
    const std::string path = Path(prefix + "tail" + std::to_string(-at));
    Build(path, kvs);
    FlipMetaByte(path, at);
    std::unique_ptr<SstDir> dir;
    Status s = SstDir::Open(options_, path, &dir);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
  // Each byte of group 1 (entries 16 to 31: users 8 to 15).
  const MetaGroup& one = trailer.groups[1];
  FaultInjectionFileSystem unmapping(FileSystem::Default());
  for (uint64_t at = one.offset; at < one.offset + one.size; at++) {
    SCOPED_TRACE(at);
    const std::string path = Path(prefix + "group" + std::to_string(at));
    Build(path, kvs);
    FlipMetaByte(path, static_cast<int64_t>(at));
    for (FileSystem* fs : {static_cast<FileSystem*>(nullptr),
                           static_cast<FileSystem*>(&unmapping)}) {
      std::unique_ptr<SstDir> dir = OpenDir(path, fs);
      ASSERT_NE(dir, nullptr);  // Open reads no group
      for (int u = 0; u < users; u++) {
        Status s;
        GetResult r = Get(dir.get(), User(u), 200, &s);
        // User 16 too: its lower bound might be group 1's last entry.
        if (u >= 8 && u <= 16) {
          ASSERT_TRUE(s.IsCorruption()) << u << ": " << s.ToString();
          EXPECT_FALSE(r.found) << u;
          EXPECT_NE(s.ToString().find("group 1"), std::string::npos)
              << s.ToString();
        } else {
          ASSERT_TRUE(s.ok()) << u << ": " << s.ToString();
          EXPECT_TRUE(r.found) << u;
        }
      }
      Status s = dir->LoadIndex();
      ASSERT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_TRUE(dir->LoadIndex().IsCorruption());  // the same, again
      if (kv_files) {
        std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
        it->SeekToFirst();
        EXPECT_FALSE(it->Valid());
        EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
      } else {
        ExpectGroupIteratorStopsAtGroup1(dir.get(), kvs);
      }
      // Lookups still go through the groups, and still fail on group 1.
      EXPECT_TRUE(Get(dir.get(), User(9), 200, &s).found == false &&
                  s.IsCorruption());
      Get(dir.get(), User(0), 200, &s);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    // Every whole-file reader sees it.
    std::string bytes;
    ASSERT_TRUE(ReadFileToString(path + "/META", &bytes));
    MetaFileContents contents;
    EXPECT_TRUE(DecodeMetaFile(bytes, "META", &contents).IsCorruption());
    std::unique_ptr<SstDir> whole;
    EXPECT_TRUE(SstDir::OpenWhole(options_, path, kMetaFileName, &whole)
                    .IsCorruption());
    EXPECT_EQ(whole, nullptr);
  }
}

// Meta files of formats 2 and 3, which older builds wrote, open and read:
// lookups, the index, scans.
TEST_F(SstDirGroupsTest, OlderFormatsStillOpenAndRead) {
  const int users = 30, versions = 3;
  const KVs kvs = Entries(users, versions);
  for (bool with_home : {false, true}) {
    SCOPED_TRACE(with_home);
    const std::string path = Path(with_home ? "v3" : "v2");
    Build(path, kvs);
    std::string data;
    ASSERT_TRUE(ReadFileToString(path + "/META", &data));
    MetaFileContents contents;
    ASSERT_TRUE(DecodeMetaFile(data, "META", &contents).ok());
    if (with_home) {
      // An entry of a key no lookup below asks for, in home 7: format 3.
      MetaEntry home;
      home.internal_key = IKey("zzz", 1, kTypeValue);
      home.storage = ValueStorage::kHomeFile;
      home.value_size = home.stored_size = 100;
      home.home = 7;
      contents.entries.push_back(home);
      contents.largest = home.internal_key;
    }
    const std::string old = delsm_test::EncodeMetaFileVersion2(contents);
    ASSERT_EQ(DecodeFixed32(old.data() + 8), with_home ? 3u : 2u);
    ASSERT_EQ(unlink((path + "/META").c_str()), 0);
    FILE* f = std::fopen((path + "/META").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(old.data(), 1, old.size(), f), old.size());
    ASSERT_EQ(std::fclose(f), 0);
    FaultInjectionFileSystem unmapping(FileSystem::Default());
    for (FileSystem* fs : {static_cast<FileSystem*>(nullptr),
                           static_cast<FileSystem*>(&unmapping)}) {
      std::unique_ptr<SstDir> dir = OpenDir(path, fs);
      ASSERT_NE(dir, nullptr);
      ExpectLookups(dir.get(), kvs, users, versions);
      // Formats 2 and 3 are loaded whole by Open.
      const size_t opened = dir->ApproximateMemoryUsage();
      ASSERT_TRUE(dir->LoadIndex().ok());
      EXPECT_EQ(dir->ApproximateMemoryUsage(), opened);
      ASSERT_EQ(dir->index().entries.size(), kvs.size() + (with_home ? 1 : 0));
      std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
      size_t i = 0;
      for (it->SeekToFirst(); it->Valid() && i < kvs.size(); it->Next(), i++) {
        EXPECT_EQ(it->key().ToString(), kvs[i].first);
        EXPECT_EQ(it->value().ToString(), kvs[i].second);
      }
      EXPECT_EQ(i, kvs.size());
      EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    }
  }
}

// Lookups and scans from several threads on an SST just opened: the first
// scan loads the whole index while lookups go through the groups; every
// answer is right, and the index loads once (run under TSan too).
TEST_F(SstDirGroupsTest, ConcurrentLookupsAndScansWhileTheIndexLoads) {
  const int users = 300, versions = 2;
  const KVs kvs = Entries(users, versions);
  const std::string path = Path("concurrent");
  Build(path, kvs);
  FaultInjectionFileSystem unmapping(FileSystem::Default());
  for (int round = 0; round < 6; round++) {
    std::unique_ptr<SstDir> dir =
        OpenDir(path, round % 2 == 0 ? nullptr : &unmapping);
    ASSERT_NE(dir, nullptr);
    std::atomic<int> ready{0};
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
      threads.emplace_back([&, t] {
        ready++;
        while (ready.load() < 4) {
        }
        if (t % 2 == 0) {
          for (int u = t; u < users; u += 3) {
            GetResult r;
            ReadOptions ro;
            Status s = dir->InternalGet(
                ro, IKey(User(u), 200, kValueTypeForSeek), &r, &SaveResult);
            std::pair<std::string, std::string> want;
            Expected(kvs, User(u), 200, &want);
            if (!s.ok() || !r.found || r.key != want.first ||
                r.value != want.second) {
              errors++;
            }
          }
        } else {
          std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
          size_t i = 0;
          for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
            if (i >= kvs.size() || it->key() != Slice(kvs[i].first) ||
                it->value() != Slice(kvs[i].second)) {
              errors++;
            }
          }
          if (!it->status().ok() || i != kvs.size()) errors++;
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(errors.load(), 0) << "round " << round;
    ASSERT_EQ(dir->index().entries.size(), kvs.size());
  }
}

// The table cache charges an SST what it holds: the trailer after a
// lookup opened it, the whole index once a scan loaded it; and an evicted
// SST leaves no charge.
TEST_F(SstDirGroupsTest, TableCacheChargeFollowsTheLoadedIndex) {
  const KVs kvs = Entries(500, 2);
  // Room for many SSTs, so that one stays cached between uses.
  std::unique_ptr<TableCache> owned = CacheAfterLookup(kvs);
  TableCache& cache = *owned;
  GetResult r;
  const size_t after_lookup = cache.MemoryUsage();
  SstDir* sst = nullptr;
  {
    std::unique_ptr<Iterator> it(
        cache.NewIterator(ReadOptions(), 1, 5, 5, &sst));
    ASSERT_NE(sst, nullptr);
    // The older entry, still held by the iterator, and the new one.
    EXPECT_EQ(cache.MemoryUsage(),
              sst->ApproximateMemoryUsage() + after_lookup);
    EXPECT_GT(sst->ApproximateMemoryUsage(), 4 * after_lookup);
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
  }
  // The older entry went with its last handle; the cache charges what the
  // SST holds now.
  EXPECT_EQ(cache.MemoryUsage(), sst->ApproximateMemoryUsage());
  ASSERT_TRUE(cache
                  .Get(ReadOptions(), 1, 5, 5,
                       IKey(User(4), 200, kValueTypeForSeek), &r, &SaveResult)
                  .ok());
  EXPECT_EQ(cache.MemoryUsage(), sst->ApproximateMemoryUsage());
  cache.Evict(5);
  EXPECT_EQ(cache.MemoryUsage(), 0u);
}

}  // namespace
}  // namespace leveldb
