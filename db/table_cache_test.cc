// Which SSTs the table cache keeps open under its two bounds: an SST
// without a KV file holds no descriptor, so the descriptor bound does not
// close it (only the memory bound does), while an SST with a KV file is
// still bounded by descriptors. Opens are counted through a fault-injecting
// file system (every directory or meta file opened is one kOpen call) over
// a memory file system, whose meta files read in memory as mapped ones do.
#include "db/table_cache.h"

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/filename.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "table/meta_file.h"
#include "table/sst_dir_builder.h"
#include "testing/fault_injection_file_system.h"

namespace leveldb {
namespace {

constexpr int kSsts = 100;
constexpr int kEntries = 40;
constexpr size_t kInlineThreshold = 512;

std::string UserKey(int sst, int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%04d-%03d", sst, i);
  return buf;
}

// Entry i of SST `sst`: a tombstone every seventh entry, else a value, of
// kInlineThreshold + 100 bytes for entry 5 when `with_kv_file` (so the SST
// has one KV file), else of 200 bytes (inline).
std::string ValueOf(int sst, int i, bool with_kv_file) {
  const size_t size = with_kv_file && i == 5 ? kInlineThreshold + 100 : 200;
  std::string v(size, static_cast<char>('a' + (sst + i) % 26));
  v.replace(0, UserKey(sst, i).size(), UserKey(sst, i));
  return v;
}
bool IsTombstone(int i) { return i % 7 == 3; }

struct GetResult {
  bool found = false;
  std::string value;
};

void SaveValue(void* arg, const Slice& key, const Slice& value) {
  auto* r = static_cast<GetResult*>(arg);
  ParsedInternalKey k;
  r->found = ParseInternalKey(key, &k) && k.type == kTypeValue;
  r->value = value.ToString();
}

class TableCacheTest : public testing::Test {
 protected:
  TableCacheTest()
      : mem_(NewMemFileSystem()),
        fs_(mem_.get()),
        icmp_(BytewiseComparator()),
        filter_(NewBloomFilterPolicy(10)) {
    options_.comparator = &icmp_;
    options_.filter_policy = filter_.get();
    options_.fs = &fs_;
    options_.compression = kNoCompression;
    options_.inline_threshold = kInlineThreshold;
    EXPECT_TRUE(fs_.CreateDir(dbname_, false).ok());
    EXPECT_TRUE(fs_.CreateDir(LevelDirName(dbname_, 1), false).ok());
  }

  // Builds SSTs 1 .. kSsts at level 1, each of kEntries entries.
  void BuildSsts(bool with_kv_file) {
    for (int sst = 1; sst <= kSsts; sst++) {
      SstDirBuilder b(options_, SstDirName(dbname_, 1, sst));
      ASSERT_TRUE(b.Begin().ok());
      for (int i = 0; i < kEntries; i++) {
        const bool tombstone = IsTombstone(i);
        const std::string ikey =
            InternalKey(UserKey(sst, i), 5,
                        tombstone ? kTypeDeletion : kTypeValue)
                .Encode()
                .ToString();
        Status s =
            b.Add(ikey, tombstone ? Slice() : ValueOf(sst, i, with_kv_file));
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      ASSERT_TRUE(b.Finish().ok());
    }
  }

  // Reads entry i of every SST through `cache` and checks it; returns the
  // file system's opens (of directories and meta files) it made.
  uint64_t ReadEvery(TableCache* cache, int i, bool with_kv_file) {
    const uint64_t before = fs_.Count(FsOp::kOpen);
    for (int sst = 1; sst <= kSsts; sst++) {
      GetResult r;
      const std::string ikey =
          InternalKey(UserKey(sst, i), 10, kValueTypeForSeek)
              .Encode()
              .ToString();
      Status s = cache->Get(ReadOptions(), 1, sst, sst, ikey, &r, &SaveValue);
      EXPECT_TRUE(s.ok()) << sst << ": " << s.ToString();
      EXPECT_EQ(r.found, !IsTombstone(i)) << sst;
      if (!IsTombstone(i)) {
        EXPECT_EQ(r.value, ValueOf(sst, i, with_kv_file)) << sst;
      }
    }
    return fs_.Count(FsOp::kOpen) - before;
  }

  // What one SST without a KV file holds once read by key, measured with
  // every SST open in a cache that bounds neither descriptors nor memory.
  size_t MemoryPerSstReadByKey() {
    TableCache probe(dbname_, options_, 4 * kSsts, 64 << 20);
    ReadEvery(&probe, 1, false);
    return probe.MemoryUsage() / kSsts;
  }

  // Iterates over every SST through `cache`, checking each entry; returns
  // the opens it made.
  uint64_t IterateEvery(TableCache* cache, bool with_kv_file) {
    const uint64_t before = fs_.Count(FsOp::kOpen);
    for (int sst = 1; sst <= kSsts; sst++) {
      std::unique_ptr<Iterator> it(
          cache->NewIterator(ReadOptions(), 1, sst, sst));
      int i = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
        ParsedInternalKey k;
        EXPECT_TRUE(ParseInternalKey(it->key(), &k));
        EXPECT_EQ(k.user_key.ToString(), UserKey(sst, i));
        if (!IsTombstone(i)) {
          EXPECT_EQ(it->value().ToString(), ValueOf(sst, i, with_kv_file));
        }
      }
      EXPECT_TRUE(it->status().ok()) << it->status().ToString();
      EXPECT_EQ(i, kEntries) << sst;
    }
    return fs_.Count(FsOp::kOpen) - before;
  }

  const std::string dbname_ = "/db";
  std::unique_ptr<FileSystem> mem_;
  FaultInjectionFileSystem fs_;
  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> filter_;
  SstDirOptions options_;
};

// Every SST holds no descriptor: a descriptor bound of 10 keeps all 100
// open, so the second read of each (by Get, then by iterators, which load
// the whole index and are charged anew) opens nothing.
TEST_F(TableCacheTest, DescriptorBoundKeepsSstsWithoutKvFilesOpen) {
  BuildSsts(/*with_kv_file=*/false);
  TableCache cache(dbname_, options_, 10, 64 << 20);
  // Each open is the directory's and the meta file's.
  EXPECT_EQ(ReadEvery(&cache, 1, false), 2u * kSsts);
  EXPECT_EQ(ReadEvery(&cache, 2, false), 0u);
  EXPECT_EQ(ReadEvery(&cache, 3, false), 0u);  // a tombstone
  EXPECT_EQ(IterateEvery(&cache, false), 0u);
  EXPECT_EQ(ReadEvery(&cache, 1, false), 0u);
  EXPECT_GT(cache.MemoryUsage(), 0u);
}

// One KV file makes an SST hold its directory's descriptor: with the same
// bound of 10 a second pass over 100 SSTs opens every one again.
TEST_F(TableCacheTest, DescriptorBoundStillClosesSstsWithKvFiles) {
  BuildSsts(/*with_kv_file=*/true);
  TableCache cache(dbname_, options_, 10, 64 << 20);
  EXPECT_EQ(ReadEvery(&cache, 1, true), 2u * kSsts);
  EXPECT_EQ(ReadEvery(&cache, 5, true), 2u * kSsts + kSsts);  // + KV files
  EXPECT_EQ(ReadEvery(&cache, 2, true), 2u * kSsts);
  // Well within the bound (the cache's shards fill unevenly), SSTs stay
  // open.
  TableCache roomy(dbname_, options_, 4 * kSsts, 64 << 20);
  EXPECT_EQ(ReadEvery(&roomy, 1, true), 2u * kSsts);
  EXPECT_EQ(ReadEvery(&roomy, 2, true), 0u);
}

// The memory bound still holds for SSTs without descriptors: with room for
// about ten of them, a second pass over 100 opens every one again, and
// the resident memory stays within the bound.
TEST_F(TableCacheTest, MemoryBoundStillClosesSstsWithoutKvFiles) {
  BuildSsts(/*with_kv_file=*/false);
  const size_t per_sst = MemoryPerSstReadByKey();
  ASSERT_GT(per_sst, 0u);
  TableCache cache(dbname_, options_, 1000, 10 * per_sst);
  EXPECT_EQ(ReadEvery(&cache, 1, false), 2u * kSsts);
  EXPECT_LE(cache.MemoryUsage(), 10 * per_sst);
  EXPECT_EQ(ReadEvery(&cache, 2, false), 2u * kSsts);
  EXPECT_LE(cache.MemoryUsage(), 10 * per_sst);
}

// Readers on several threads at once, Gets and iterators, over SSTs
// without KV files that the memory bound keeps closing (and iterators
// recharge as they load whole indexes): every read finds its value.
TEST_F(TableCacheTest, ConcurrentReadsOfSstsWithoutKvFiles) {
  BuildSsts(/*with_kv_file=*/false);
  const size_t per_sst = MemoryPerSstReadByKey();
  ASSERT_GT(per_sst, 0u);
  TableCache cache(dbname_, options_, 10, 30 * per_sst);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; round++) {
        if (t == 0) {
          IterateEvery(&cache, false);
        } else {
          ReadEvery(&cache, (t + round) % kEntries, false);
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace
}  // namespace leveldb
