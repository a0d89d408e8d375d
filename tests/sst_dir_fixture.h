// The fixture of the SST-directory tests (table/sst_dir_test.cc,
// table/sst_dir_meta_file_test.cc, table/sst_dir_groups_test.cc,
// table/sst_dir_group_iterator_test.cc): a scratch directory, SstDirOptions
// with a 10-bit Bloom filter and no compression, numbered user keys, and
// helpers that build an SST from (internal key, value) pairs, open it
// (alone, or in a table cache), read one key as of a sequence number and
// list the directory's names.
#ifndef DELSM_TESTS_SST_DIR_FIXTURE_H_
#define DELSM_TESTS_SST_DIR_FIXTURE_H_

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "db/filename.h"
#include "db/table_cache.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"
#include "tests/test_support.h"

namespace leveldb {
namespace sst_dir_fixture {

inline std::string IKey(const std::string& user, uint64_t seq, ValueType t) {
  return InternalKey(user, seq, t).Encode().ToString();
}

struct GetResult {
  bool found = false;
  std::string key;
  std::string value;
};

using KVs = std::vector<std::pair<std::string, std::string>>;

// The user key numbered i: "key" and five digits, in order by i.
inline std::string User(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%05d", i);
  return buf;
}

inline void SaveResult(void* arg, const Slice& key, const Slice& value) {
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

  // A database at root_ whose level 1 holds `kvs` as SST 5, and a table
  // cache over it (room for many SSTs) that a lookup of User(3), which
  // must find it, has opened that SST in.
  std::unique_ptr<TableCache> CacheAfterLookup(const KVs& kvs) {
    EXPECT_TRUE(options_.fs->CreateDir(LevelDirName(root_, 1), true).ok());
    Build(SstDirName(root_, 1, 5), kvs);
    std::unique_ptr<TableCache> cache(
        new TableCache(root_, options_, 1000, 64 << 20));
    GetResult r;
    EXPECT_TRUE(cache
                    ->Get(ReadOptions(), 1, 5, 5,
                          IKey(User(3), 200, kValueTypeForSeek), &r,
                          &SaveResult)
                    .ok());
    EXPECT_TRUE(r.found);
    return cache;
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

  // The whole index of `dir` (SstDir::LoadIndex, which must succeed).
  const MetaIndex& IndexOf(const SstDir* dir) {
    Status s = dir->LoadIndex();
    EXPECT_TRUE(s.ok()) << s.ToString();
    static const MetaIndex* const kNone = new MetaIndex();
    return s.ok() ? dir->index() : *kNone;
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

}  // namespace sst_dir_fixture
}  // namespace leveldb

#endif  // DELSM_TESTS_SST_DIR_FIXTURE_H_
