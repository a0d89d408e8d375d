// The iterator over an SST without a KV file whose whole index is not
// loaded (table/sst_dir_group_iterator.cc): it answers every movement as
// the index iterator over the same SST does, mapped or read, never loads
// the whole index (until the SST has served enough seeks), and several of
// it scan one SST at once (run under TSan too). Damage is in
// sst_dir_groups_test.cc.
#include <algorithm>
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
// kind an SST without a KV file holds in turn: a short inline value, a
// deletion, a longer inline value (compressible, under the tests' inline
// threshold of 64), an empty value. With several versions, the versions
// of a key straddle group boundaries.
KVs InlineEntries(int users, int versions) {
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
          value = std::string(40 + v, static_cast<char>('a' + u % 26));
        }
        kvs.emplace_back(IKey(User(u), seq, kTypeValue), value);
      }
    }
  }
  return kvs;
}

// What an iterator shows: whether it is valid, its status, and its entry.
std::string State(Iterator* it) {
  if (!it->Valid()) return "invalid " + it->status().ToString();
  std::string value = it->value().ToString();
  if (!it->Valid()) return "value failed " + it->status().ToString();
  return it->key().ToString() + " = " + value;
}

class SstDirGroupIteratorTest : public SstDirTest {
 protected:
  SstDirGroupIteratorTest() { options_.inline_threshold = 64; }

  // Keys to seek: every key of `kvs`, and around and between each user
  // key's versions, and before and after all of them.
  static std::vector<std::string> Targets(int users, int versions) {
    std::vector<std::string> targets = {IKey("a", 1, kValueTypeForSeek),
                                        IKey("z", 1, kValueTypeForSeek)};
    for (int u = 0; u < users; u++) {
      for (uint64_t seq = 98; seq <= 101 + versions; seq++) {
        targets.push_back(IKey(User(u), seq, kValueTypeForSeek));
        targets.push_back(IKey(User(u), seq, kTypeDeletion));
      }
      targets.push_back(IKey(User(u) + "+", 200, kValueTypeForSeek));
    }
    return targets;
  }

  // Compares the group iterator `a` with the index iterator `b` after
  // each of `moves` (n: Next, p: Prev), while both are valid.
  static void Walk(Iterator* a, Iterator* b, const std::string& moves,
                   const std::string& where) {
    ASSERT_EQ(State(a), State(b)) << where;
    for (char m : moves) {
      if (!a->Valid() || !b->Valid()) return;
      if (m == 'n') {
        a->Next();
        b->Next();
      } else {
        a->Prev();
        b->Prev();
      }
      ASSERT_EQ(State(a), State(b)) << where << " after " << m;
    }
  }

  // Seeks `a` and `b` to every target of Targets(users, versions), and
  // walks both from there: forward, backward and turning around, and by
  // keys only, as a merging iterator moves (no value read: no scan
  // detected, then one).
  static void SeekEverywhere(Iterator* a, Iterator* b, int users,
                             int versions) {
    for (const std::string& target : Targets(users, versions)) {
      ParsedInternalKey k;
      ASSERT_TRUE(ParseInternalKey(target, &k));
      const std::string where = k.DebugString();
      a->Seek(target);
      b->Seek(target);
      Walk(a, b, "nnnpppppnnnn", where);
      a->Seek(target);
      b->Seek(target);
      Walk(a, b, "pppnnnnnppp", where);
      a->Seek(target);
      b->Seek(target);
      for (int step = 0; step < 20 && a->Valid() && b->Valid(); step++) {
        ASSERT_EQ(a->key(), b->key()) << where;
        a->Next();
        b->Next();
      }
      ASSERT_EQ(State(a), State(b)) << where;
    }
  }
};

// Entry counts around the group's size, tombstones, several versions of a
// key across group boundaries, values compressed or not, the meta file
// mapped or read (with read-ahead pieces smaller than a group's values):
// whole scans forward and backward, seeks to every key and between keys
// (in groups checked before, which a seek decodes only up to its target,
// and in groups it checks), and Next/Prev changing direction across group
// boundaries answer as the index iterator does over the same SST; the SST
// never loads its whole index for it (its charge stays the trailer's).
TEST_F(SstDirGroupIteratorTest, AgreesWithTheIndexIterator) {
  for (bool compressed : {false, true}) {
    options_.compression = compressed ? kSnappyCompression : kNoCompression;
    options_.read_ahead_bytes = 100;
    for (auto shape :
         {std::make_pair(1, 1), std::make_pair(15, 1), std::make_pair(16, 1),
          std::make_pair(17, 1), std::make_pair(8, 5), std::make_pair(40, 7),
          std::make_pair(100, 3)}) {
      const int users = shape.first, versions = shape.second;
      const std::string name = std::to_string(users) + "x" +
                               std::to_string(versions) +
                               (compressed ? "z" : "");
      SCOPED_TRACE(name);
      const std::string path = Path(name);
      const KVs kvs = InlineEntries(users, versions);
      Build(path, kvs);
      FaultInjectionFileSystem unmapping(FileSystem::Default());
      for (FileSystem* fs : {static_cast<FileSystem*>(nullptr),
                             static_cast<FileSystem*>(&unmapping)}) {
        SCOPED_TRACE(fs == nullptr ? "mapped" : "read");
        std::unique_ptr<SstDir> groups = OpenDir(path, fs);
        std::unique_ptr<SstDir> whole = OpenDir(path, fs);
        ASSERT_NE(groups, nullptr);
        ASSERT_NE(whole, nullptr);
        ASSERT_TRUE(whole->LoadIndex().ok());
        const size_t opened = groups->ApproximateMemoryUsage();
        ReadOptions ro;
        std::unique_ptr<Iterator> a(groups->NewIterator(ro));
        std::unique_ptr<Iterator> b(whole->NewIterator(ro));

        // Whole scans, forward and backward, against the entries built.
        size_t i = 0;
        for (a->SeekToFirst(); a->Valid(); a->Next(), i++) {
          ASSERT_LT(i, kvs.size());
          EXPECT_EQ(a->key().ToString(), kvs[i].first) << i;
          EXPECT_EQ(a->value().ToString(), kvs[i].second) << i;
        }
        EXPECT_TRUE(a->status().ok()) << a->status().ToString();
        EXPECT_EQ(i, kvs.size());
        i = kvs.size();
        for (a->SeekToLast(); a->Valid(); a->Prev()) {
          ASSERT_GT(i, 0u);
          i--;
          EXPECT_EQ(a->key().ToString(), kvs[i].first) << i;
          EXPECT_EQ(a->value().ToString(), kvs[i].second) << i;
        }
        EXPECT_TRUE(a->status().ok()) << a->status().ToString();
        EXPECT_EQ(i, 0u);

        // From either end and from every seek: forward, backward, and
        // turning around (across a group boundary wherever the start is
        // within a few entries of one).
        a->SeekToFirst();
        b->SeekToFirst();
        Walk(a.get(), b.get(), "nnpppnn", "first");
        a->SeekToLast();
        b->SeekToLast();
        Walk(a.get(), b.get(), "ppnnnpp", "last");
        // Every group is checked whole by now: a seek decodes its group
        // only up to the target, and a Next one entry more.
        SeekEverywhere(a.get(), b.get(), users, versions);
        EXPECT_EQ(groups->ApproximateMemoryUsage(), opened);

        // The same on an SST just opened, whose groups the seeks check
        // whole as they first reach them.
        std::unique_ptr<SstDir> fresh = OpenDir(path, fs);
        ASSERT_NE(fresh, nullptr);
        std::unique_ptr<Iterator> c(fresh->NewIterator(ro));
        SeekEverywhere(c.get(), b.get(), users, versions);
      }
    }
  }
}

// Threads scanning one SST just opened, forward and backward, and seeking,
// while others look keys up: every group is checked by whichever reader
// comes first, and every answer is right (run under TSan too).
TEST_F(SstDirGroupIteratorTest, ConcurrentScans) {
  const int users = 300, versions = 2;
  const KVs kvs = InlineEntries(users, versions);
  const std::string path = Path("concurrent");
  Build(path, kvs);
  FaultInjectionFileSystem unmapping(FileSystem::Default());
  for (int round = 0; round < 6; round++) {
    std::unique_ptr<SstDir> dir =
        OpenDir(path, round % 2 == 0 ? nullptr : &unmapping);
    ASSERT_NE(dir, nullptr);
    const size_t opened = dir->ApproximateMemoryUsage();
    std::atomic<int> ready{0};
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
      threads.emplace_back([&, t] {
        // Made before any thread seeks: every one goes through the groups.
        std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
        ready++;
        while (ready.load() < 4) {
        }
        if (t == 0) {
          size_t i = 0;
          for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
            if (i >= kvs.size() || it->key() != Slice(kvs[i].first) ||
                it->value() != Slice(kvs[i].second)) {
              errors++;
            }
          }
          if (!it->status().ok() || i != kvs.size()) errors++;
        } else if (t == 1) {
          size_t i = kvs.size();
          for (it->SeekToLast(); it->Valid(); it->Prev()) {
            if (i == 0) {
              errors++;
              break;
            }
            i--;
            if (it->key() != Slice(kvs[i].first) ||
                it->value() != Slice(kvs[i].second)) {
              errors++;
            }
          }
          if (!it->status().ok() || i != 0) errors++;
        } else if (t == 2) {
          for (size_t i = 0; i < kvs.size(); i += 7) {
            it->Seek(kvs[i].first);
            if (!it->Valid() || it->key() != Slice(kvs[i].first) ||
                it->value() != Slice(kvs[i].second)) {
              errors++;
            }
          }
        } else {
          for (int u = 0; u < users; u += 5) {
            GetResult r;
            Status s = dir->InternalGet(ReadOptions(),
                                        IKey(User(u), 200, kValueTypeForSeek),
                                        &r, &SaveResult);
            const auto& want = kvs[u * versions];
            if (!s.ok() || !r.found || r.key != want.first ||
                r.value != want.second) {
              errors++;
            }
          }
        }
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(errors.load(), 0) << "round " << round;
    EXPECT_EQ(dir->ApproximateMemoryUsage(), opened);
  }
}

// An SST that serves seeks: once iterators through its groups have made
// IndexAfterGroupSeeks() seeks in it (16, or one per 4 groups of a larger
// SST), the next iterator loads the whole index (the SST's charge grows to
// it) and answers the same; an iterator made before stays one through the
// groups, and answers the same too.
TEST_F(SstDirGroupIteratorTest, SeeksLoadTheWholeIndexAfterEnoughOfThem) {
  for (int users : {100, 1000}) {
    const KVs kvs = InlineEntries(users, 2);
    const std::string path = Path("seeks" + std::to_string(users));
    Build(path, kvs);
    std::unique_ptr<SstDir> dir = OpenDir(path);
    ASSERT_NE(dir, nullptr);
    const uint32_t groups = (kvs.size() + 15) / 16;
    EXPECT_EQ(dir->IndexAfterGroupSeeks(), std::max(16u, groups / 4))
        << groups << " groups";
    const size_t opened = dir->ApproximateMemoryUsage();
    std::unique_ptr<Iterator> early(dir->NewIterator(ReadOptions()));
    for (uint32_t i = 0; i < dir->IndexAfterGroupSeeks(); i++) {
      std::unique_ptr<Iterator> it(dir->NewIterator(ReadOptions()));
      ASSERT_EQ(dir->ApproximateMemoryUsage(), opened) << i;
      const size_t k = (i * 37) % kvs.size();
      it->Seek(kvs[k].first);
      ASSERT_TRUE(it->Valid()) << i << ": " << it->status().ToString();
      EXPECT_EQ(it->key().ToString(), kvs[k].first);
      EXPECT_EQ(it->value().ToString(), kvs[k].second);
    }
    EXPECT_EQ(dir->ApproximateMemoryUsage(), opened);
    std::unique_ptr<Iterator> later(dir->NewIterator(ReadOptions()));
    EXPECT_GT(dir->ApproximateMemoryUsage(),
              opened + kvs.size() * sizeof(MetaIndexEntry) - 1);
    for (Iterator* it : {early.get(), later.get()}) {
      size_t i = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
        ASSERT_LT(i, kvs.size());
        EXPECT_EQ(it->key().ToString(), kvs[i].first) << i;
        EXPECT_EQ(it->value().ToString(), kvs[i].second) << i;
      }
      EXPECT_TRUE(it->status().ok()) << it->status().ToString();
      EXPECT_EQ(i, kvs.size());
    }
  }
}

// The table cache charges an SST without a KV file its trailer after a
// scan as before it: the scan read its groups, not its whole index.
TEST_F(SstDirGroupIteratorTest, TableCacheChargeStaysTheTrailersAfterAScan) {
  const KVs kvs = InlineEntries(500, 2);
  std::unique_ptr<TableCache> owned = CacheAfterLookup(kvs);
  TableCache& cache = *owned;
  const size_t after_lookup = cache.MemoryUsage();
  SstDir* sst = nullptr;
  {
    std::unique_ptr<Iterator> it(
        cache.NewIterator(ReadOptions(), 1, 5, 5, &sst));
    ASSERT_NE(sst, nullptr);
    EXPECT_EQ(cache.MemoryUsage(), after_lookup);
    size_t i = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
      ASSERT_EQ(it->value().ToString(), kvs[i].second);
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(i, kvs.size());
  }
  EXPECT_EQ(cache.MemoryUsage(), after_lookup);
  EXPECT_EQ(sst->ApproximateMemoryUsage(), after_lookup);
}

}  // namespace
}  // namespace leveldb
