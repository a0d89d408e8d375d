// Reads on a real file system:
// a scan with read-ahead sees exactly its snapshot while writes, overwrites
// and compactions run; ReadOptions::fill_cache=false, and scans, leave the
// value cache unchanged; the value cache never returns a stale value after
// an overwrite (across flush, compaction, reopen, and DBs sharing one
// cache); and the
// per-level space properties agree with what stat says.
//
// Randomised tests print their seed; DELSM_SEED=<n> replays one.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/counting_file_system.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;
using Model = std::map<std::string, std::string>;

// $DELSM_TEST_SEED (or the older $DELSM_SEED) replays a run.
uint64_t Seed() {
  return delsm_test::RandomSeed("value cache test", "DELSM_SEED");
}

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// `size` bytes determined by (key, version), so a stale or misplaced value
// never equals the expected one.
std::string MakeValue(const std::string& key, uint64_t version, size_t size) {
  std::string v = key + "#" + std::to_string(version) + "#";
  uint64_t x = std::hash<std::string>()(v) | 1;
  while (v.size() < size) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v.push_back(static_cast<char>('a' + x % 26));
  }
  v.resize(size);
  return v;
}

DB* OpenDb(const leveldb::Options& options, const delsm::Tuning& tuning,
           const std::string& name, leveldb::FileSystem* fs = nullptr) {
  DB* db = nullptr;
  Status s = fs != nullptr
                 ? leveldb::OpenWithFileSystem(options, tuning, name, fs, &db)
                 : delsm::Open(options, tuning, name, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

leveldb::DBImpl* Impl(DB* db) { return static_cast<leveldb::DBImpl*>(db); }

// A scan of `db` at `snapshot` (forward from the first key, or from a
// Seek to `from`, or backward) must yield exactly `model`'s part.
void ExpectScan(DB* db, const leveldb::Snapshot* snapshot, const Model& model,
                int mode, const std::string& from) {
  ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ro));
  if (mode == 2) {
    auto m = model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++m) {
      ASSERT_TRUE(m != model.rend()) << "extra " << it->key().ToString();
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_TRUE(it->value() == m->second) << m->first;
    }
    ASSERT_TRUE(m == model.rend()) << "missing " << m->first;
  } else {
    auto m = mode == 1 ? model.lower_bound(from) : model.begin();
    if (mode == 1) {
      it->Seek(from);
    } else {
      it->SeekToFirst();
    }
    for (; it->Valid(); it->Next(), ++m) {
      ASSERT_TRUE(m != model.end()) << "extra " << it->key().ToString();
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_TRUE(it->value() == m->second) << m->first;
    }
    ASSERT_TRUE(m == model.end()) << "missing " << m->first;
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
}

TEST(ReadAheadTest, ScanSeesExactlyItsSnapshotWhileWritesAndCompactionsRun) {
  const uint64_t seed = Seed();
  delsm_test::TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  leveldb::Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 256 << 10;  // many flushes
  delsm::Tuning tuning;
  tuning.inline_threshold = 256;
  tuning.read_ahead_files = 8;
  tuning.read_ahead_bytes = 64 << 10;
  tuning.read_ahead_threads = 3;
  tuning.l0_compaction_dirs = 2;
  tuning.sst_entries = 256;  // many SSTs, so scans cross many of them
  delsm_test::CountingFileSystem fs;
  std::unique_ptr<DB> db(OpenDb(options, tuning, dbname, &fs));
  ASSERT_TRUE(db != nullptr);

  constexpr int kKeys = 3000;
  const size_t kSizes[] = {0, 40, 200, 256, 257, 900, 3000};
  std::mutex mu;  // orders writes against taking a snapshot and its model
  Model model;
  uint64_t version = 0;
  auto write = [&](std::mt19937_64* rng) {
    const std::string key = Key(static_cast<int>((*rng)() % kKeys));
    std::lock_guard<std::mutex> l(mu);
    version++;
    if ((*rng)() % 8 == 0) {
      ASSERT_TRUE(db->Delete(WriteOptions(), key).ok());
      model.erase(key);
    } else {
      const std::string v = MakeValue(key, version, kSizes[(*rng)() % 7]);
      ASSERT_TRUE(db->Put(WriteOptions(), key, v).ok());
      model[key] = v;
    }
  };
  // A base spread over the levels before the race starts.
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 3 * kKeys; i++) write(&rng);
  ASSERT_TRUE(Impl(db.get())->TEST_FlushMemTable().ok());
  db->CompactRange(nullptr, nullptr);

  std::atomic<bool> stop{false};
  std::thread writer([&, s = seed + 1] {
    std::mt19937_64 r(s);
    for (int i = 0; i < 20000 && !stop; i++) write(&r);
  });
  std::thread compactor([&, s = seed + 2] {
    std::mt19937_64 r(s);
    for (int i = 0; i < 6 && !stop; i++) {
      const std::string a = Key(static_cast<int>(r() % kKeys));
      const std::string b = Key(static_cast<int>(r() % kKeys));
      const leveldb::Slice lo(a < b ? a : b), hi(a < b ? b : a);
      db->CompactRange(i % 2 == 0 ? nullptr : &lo, i % 2 == 0 ? nullptr : &hi);
    }
  });
  const std::thread::id me = std::this_thread::get_id();
  const uint64_t pool_reads_before = fs.FileReadsNotOn(me);
  for (int round = 0; round < 24 && !testing::Test::HasFatalFailure();
       round++) {
    const leveldb::Snapshot* snap;
    Model expected;
    {
      std::lock_guard<std::mutex> l(mu);
      snap = db->GetSnapshot();
      expected = model;
    }
    const int mode = static_cast<int>(rng() % 3);
    SCOPED_TRACE("round " + std::to_string(round) + " mode " +
                 std::to_string(mode));
    ExpectScan(db.get(), snap, expected, mode,
               Key(static_cast<int>(rng() % kKeys)));
    db->ReleaseSnapshot(snap);
  }
  stop = true;
  writer.join();
  compactor.join();
  // The scans' KV files were (partly) read by the read-ahead pool.
  EXPECT_GT(fs.FileReadsNotOn(me), pool_reads_before);
  // And once quiet, the latest state.
  ASSERT_TRUE(Impl(db.get())->TEST_WaitForBackgroundWork().ok());
  ExpectScan(db.get(), nullptr, model, 0, "");
}

// The value cache's charge, read through the DB's property.
uint64_t CacheProperty(DB* db) {
  std::string v;
  EXPECT_TRUE(db->GetProperty("delsm.value-cache-memory", &v));
  return std::strtoull(v.c_str(), nullptr, 10);
}

// Opens `dbname` with `options` plus `cache` as its value cache and values
// of up to 128 bytes inline, puts 600 keys into it and `model` (the even
// ones with 100-byte values, inline; the odd ones with 2000-byte values, in
// KV files) and flushes them into an L0 SST.
void OpenHalfInline(leveldb::Options options, leveldb::Cache* cache,
                    const std::string& dbname, std::unique_ptr<DB>* db,
                    Model* model) {
  options.create_if_missing = true;
  options.block_cache = cache;
  delsm::Tuning tuning;
  tuning.inline_threshold = 128;
  db->reset(OpenDb(options, tuning, dbname));
  ASSERT_TRUE(*db != nullptr);
  for (int i = 0; i < 600; i++) {
    (*model)[Key(i)] = MakeValue(Key(i), 0, i % 2 == 0 ? 100 : 2000);
    ASSERT_TRUE((*db)->Put(WriteOptions(), Key(i), (*model)[Key(i)]).ok());
  }
  ASSERT_TRUE(Impl(db->get())->TEST_FlushMemTable().ok());
}

TEST(ValueCacheTest, FillCacheFalseLeavesTheCacheUnchanged) {
  delsm_test::TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  std::unique_ptr<leveldb::Cache> cache(leveldb::NewLRUCache(64 << 20));
  std::unique_ptr<DB> db;
  Model model;
  ASSERT_NO_FATAL_FAILURE(
      OpenHalfInline(leveldb::Options(), cache.get(), dbname, &db, &model));
  const size_t before = cache->TotalCharge();
  EXPECT_EQ(CacheProperty(db.get()), before);

  ReadOptions no_fill;
  no_fill.fill_cache = false;
  for (const auto& kv : model) {
    std::string v;
    ASSERT_TRUE(db->Get(no_fill, kv.first, &v).ok());
    ASSERT_EQ(v, kv.second);
  }
  {
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator(no_fill));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
      ASSERT_EQ(it->value().ToString(), model[it->key().ToString()]);
    }
    ASSERT_EQ(n, model.size());
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      ASSERT_EQ(it->value().ToString(), model[it->key().ToString()]);
    }
  }
  EXPECT_EQ(cache->TotalCharge(), before);
  EXPECT_EQ(CacheProperty(db.get()), before);

  // With fill_cache (the default) a KV file's value is cached, charged by
  // at least its bytes. An inline value is read from the mapped meta file
  // and never cached: a lookup would cost more than the read.
  std::string v;
  ASSERT_TRUE(db->Get(ReadOptions(), Key(0), &v).ok());
  EXPECT_EQ(cache->TotalCharge(), before);
  ASSERT_TRUE(db->Get(ReadOptions(), Key(1), &v).ok());
  EXPECT_GE(cache->TotalCharge() - before, 2000u);
  EXPECT_EQ(CacheProperty(db.get()), cache->TotalCharge());
}

// A scan reads KV files from the file system and inline values from the
// meta file, never through the value cache: it neither evicts what point
// reads cached nor pays a lookup and an insert per value. Only the first
// value read at a position of each SST (not yet a scan) may go through it.
TEST(ValueCacheTest, ScanLeavesTheCacheUnchanged) {
  delsm_test::TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  std::unique_ptr<leveldb::Cache> cache(leveldb::NewLRUCache(64 << 20));
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  std::unique_ptr<DB> db;
  Model model;
  ASSERT_NO_FATAL_FAILURE(
      OpenHalfInline(options, cache.get(), dbname, &db, &model));
  std::string v;
  ASSERT_TRUE(db->Get(ReadOptions(), Key(1), &v).ok());  // a point read
  const size_t before = cache->TotalCharge();
  ASSERT_GE(before, 2000u);
  {
    std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ReadOptions()));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
      ASSERT_EQ(it->value().ToString(), model[it->key().ToString()]);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(n, model.size());
    n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev(), n++) {
      ASSERT_EQ(it->value().ToString(), model[it->key().ToString()]);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_EQ(n, model.size());
  }
  // At most the two values the scans started at (one of each direction);
  // 300 values of 2000 bytes were read from KV files.
  EXPECT_LE(cache->TotalCharge() - before, 2 * 2200u);
  // What the point read cached is still there.
  ASSERT_TRUE(db->Get(ReadOptions(), Key(1), &v).ok());
  EXPECT_EQ(v, model[Key(1)]);
  EXPECT_LE(cache->TotalCharge() - before, 2 * 2200u);
}

TEST(ValueCacheTest, DefaultCacheHoldsAtMostEightMiB) {
  delsm_test::TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  leveldb::Options options;
  options.create_if_missing = true;
  options.compression = leveldb::kNoCompression;
  std::unique_ptr<DB> db(OpenDb(options, delsm::Tuning(), dbname));
  ASSERT_TRUE(db != nullptr);
  for (int i = 0; i < 3000; i++) {
    ASSERT_TRUE(
        db->Put(WriteOptions(), Key(i), MakeValue(Key(i), 0, 4000)).ok());
  }
  ASSERT_TRUE(Impl(db.get())->TEST_FlushMemTable().ok());
  EXPECT_EQ(CacheProperty(db.get()), 0u);
  std::string v;
  for (int i = 0; i < 3000; i++)
    ASSERT_TRUE(db->Get(ReadOptions(), Key(i), &v).ok());
  const uint64_t charge = CacheProperty(db.get());
  EXPECT_GT(charge, 4u << 20);  // about 12 MB was read: the cache filled
  EXPECT_LE(charge, 8u << 20);  // and stayed within LevelDB's default
}

TEST(ValueCacheTest, NeverReturnsAStaleValueAfterAnOverwrite) {
  const uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  delsm_test::TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  // One cache shared by the DB across reopens and by a second DB that
  // writes the same keys in the same order (the same sequence numbers).
  std::unique_ptr<leveldb::Cache> cache(leveldb::NewLRUCache(32 << 20));
  leveldb::Options options;
  options.create_if_missing = true;
  options.block_cache = cache.get();
  delsm::Tuning tuning;
  tuning.inline_threshold = 256;
  std::unique_ptr<DB> db(OpenDb(options, tuning, dbname));
  std::unique_ptr<DB> twin(OpenDb(options, tuning, tmp.path() + "/twin"));
  ASSERT_TRUE(db != nullptr && twin != nullptr);
  constexpr int kKeys = 200;
  const size_t kSizes[] = {10, 256, 257, 3000};
  Model model, twin_model;
  uint64_t version = 0;
  auto check_all = [&]() {
    for (int i = 0; i < kKeys; i++) {
      std::string v;
      Status s = db->Get(ReadOptions(), Key(i), &v);
      auto m = model.find(Key(i));
      if (m == model.end()) {
        ASSERT_TRUE(s.IsNotFound()) << Key(i) << " " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << Key(i) << " " << s.ToString();
        ASSERT_EQ(v, m->second) << Key(i);
      }
      s = twin->Get(ReadOptions(), Key(i), &v);
      m = twin_model.find(Key(i));
      if (m != twin_model.end()) {
        ASSERT_TRUE(s.ok()) << s.ToString();
        ASSERT_EQ(v, m->second) << "twin " << Key(i);
      }
    }
    ExpectScan(db.get(), nullptr, model, 0, "");
  };
  for (int round = 0; round < 40 && !testing::Test::HasFatalFailure();
       round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Overwrite (same size or another), delete, re-create some keys; the
    // twin writes the same keys with other values.
    for (int j = 0; j < 60; j++) {
      const std::string key = Key(static_cast<int>(rng() % kKeys));
      version++;
      if (rng() % 6 == 0) {
        ASSERT_TRUE(db->Delete(WriteOptions(), key).ok());
        model.erase(key);
      } else {
        const size_t size = kSizes[rng() % 4];
        model[key] = MakeValue(key, version, size);
        ASSERT_TRUE(db->Put(WriteOptions(), key, model[key]).ok());
      }
      twin_model[key] = MakeValue("twin" + key, version, 300);
      ASSERT_TRUE(twin->Put(WriteOptions(), key, twin_model[key]).ok());
    }
    check_all();  // memtable over cached SST values
    switch (rng() % 4) {
      case 0:
        ASSERT_TRUE(Impl(db.get())->TEST_FlushMemTable().ok());
        ASSERT_TRUE(Impl(twin.get())->TEST_FlushMemTable().ok());
        break;
      case 1:
        db->CompactRange(nullptr, nullptr);
        twin->CompactRange(nullptr, nullptr);
        break;
      case 2:
        db.reset();
        db.reset(OpenDb(options, tuning, dbname));
        ASSERT_TRUE(db != nullptr);
        break;
      default:
        break;
    }
    check_all();
  }
  std::fprintf(stderr, "cache charge at the end: %zu\n", cache->TotalCharge());
}

// What stat says the tree below `dir` (not `dir` itself) holds: allocated
// bytes and inodes, each inode counted once.
void StatTree(const std::string& dir, std::set<ino_t>* seen, uint64_t* bytes,
              uint64_t* inodes) {
  for (const std::string& name : delsm_test::ListDir(dir)) {
    const std::string path = dir + "/" + name;
    struct stat st;
    ASSERT_EQ(0, lstat(path.c_str(), &st)) << path;
    if (seen->insert(st.st_ino).second) {
      *bytes += static_cast<uint64_t>(st.st_blocks) * 512;
      *inodes += 1;
    }
    if (S_ISDIR(st.st_mode)) StatTree(path, seen, bytes, inodes);
  }
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return std::strtoull(v.c_str(), nullptr, 10);
}

TEST(SpacePropertiesTest, AllocatedBytesAndInodesPerLevelMatchStat) {
  std::vector<uint64_t> totals;  // inodes of all levels, per threshold
  for (size_t threshold : {size_t{0}, size_t{512}}) {
    SCOPED_TRACE("inline_threshold " + std::to_string(threshold));
    delsm_test::TempDir tmp;
    const std::string dbname = tmp.path() + "/db";
    leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 512 << 10;
    delsm::Tuning tuning;
    tuning.inline_threshold = threshold;
    tuning.sst_entries = 500;
    std::unique_ptr<DB> db(OpenDb(options, tuning, dbname));
    ASSERT_TRUE(db != nullptr);
    for (int i = 0; i < 6000; i++) {
      const int k = (i * 7919) % 4000;
      ASSERT_TRUE(db->Put(WriteOptions(), Key(k),
                          MakeValue(Key(k), i, i % 3 == 0 ? 2000 : 300))
                      .ok());
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < 1500; i++) {
      ASSERT_TRUE(
          db->Put(WriteOptions(), Key(i), MakeValue(Key(i), 9, 400)).ok());
    }
    ASSERT_TRUE(Impl(db.get())->TEST_FlushMemTable().ok());
    ASSERT_TRUE(Impl(db.get())->TEST_WaitForBackgroundWork().ok());
    uint64_t total_inodes = 0;
    int nonempty = 0;
    for (int level = 0; level < 7; level++) {
      SCOPED_TRACE("level " + std::to_string(level));
      std::set<ino_t> seen;
      uint64_t bytes = 0, inodes = 0;
      StatTree(dbname + "/L" + std::to_string(level), &seen, &bytes, &inodes);
      const std::string n = std::to_string(level);
      EXPECT_EQ(Property(db.get(), "delsm.allocated-bytes-at-level" + n),
                bytes);
      EXPECT_EQ(Property(db.get(), "delsm.inodes-at-level" + n), inodes);
      total_inodes += inodes;
      if (inodes > 0) nonempty++;
    }
    EXPECT_GE(nonempty, 2);
    totals.push_back(total_inodes);
    std::string v;
    EXPECT_FALSE(db->GetProperty("delsm.inodes-at-level7", &v));
    EXPECT_FALSE(db->GetProperty("delsm.allocated-bytes-at-level", &v));
  }
  // Inline values need no inodes of their own: pure mode holds one per
  // value (about 5500), threshold 512 only the 2000-byte values' (a third).
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_GT(totals[0], 5000u);
  EXPECT_LT(totals[1] * 3, totals[0]);
}

TEST(SpacePropertiesTest, MemoryPropertiesCountTheCaches) {
  delsm_test::TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  leveldb::Options options;
  options.create_if_missing = true;
  delsm::Tuning tuning;
  tuning.inline_threshold = 256;
  std::unique_ptr<DB> db(OpenDb(options, tuning, dbname));
  ASSERT_TRUE(db != nullptr);
  for (int i = 0; i < 2000; i++) {
    ASSERT_TRUE(
        db->Put(WriteOptions(), Key(i), MakeValue(Key(i), 0, 1000)).ok());
  }
  ASSERT_TRUE(Impl(db.get())->TEST_FlushMemTable().ok());
  db.reset();
  db.reset(OpenDb(options, tuning, dbname));
  ASSERT_TRUE(db != nullptr);
  std::string v;
  for (int i = 0; i < 2000; i += 10) {
    ASSERT_TRUE(db->Get(ReadOptions(), Key(i), &v).ok());
  }
  const uint64_t tables = Property(db.get(), "delsm.table-cache-memory");
  const uint64_t values = Property(db.get(), "delsm.value-cache-memory");
  // The open SST, read by lookups only, holds its meta file's trailer: the
  // first key of each group of 16 entries, 17 bytes at least each; not its
  // whole index.
  EXPECT_GT(tables, 2000u / 16 * 17);
  EXPECT_LT(tables, 2000u * 17);
  EXPECT_GE(values, 200u * 1000);
  EXPECT_GE(Property(db.get(), "leveldb.approximate-memory-usage"),
            tables + values);
  // A scan loads the whole index, 2000 keys of 17 bytes at least, and the
  // table cache counts it.
  std::unique_ptr<leveldb::Iterator> it(db->NewIterator(ReadOptions()));
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
  EXPECT_EQ(seen, 2000);
  EXPECT_GT(Property(db.get(), "delsm.table-cache-memory"), 2000u * 17);
}

}  // namespace
