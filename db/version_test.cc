// Version's read paths (Get, AddIterators) and VersionSet's size estimate
// over real SST directories built on the POSIX file system.
#include "db/version.h"

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "db/filename.h"
#include "db/log_writer.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "port/port.h"
#include "table/merging_iterator.h"
#include "table/sst_dir_builder.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

struct Entry {
  std::string key;
  SequenceNumber seq;
  ValueType type;
  std::string value;
};

class VersionReadTest : public testing::Test {
 protected:
  VersionReadTest()
      : icmp_(BytewiseComparator()), filter_(NewBloomFilterPolicy(10)) {
    dbname_ = delsm_test::MakeTestDir("delsm_version_test");
    EXPECT_FALSE(dbname_.empty());
    options_.env = Env::Default();
    options_.comparator = BytewiseComparator();
    sst_options_.comparator = &icmp_;
    sst_options_.filter_policy = filter_.get();
    sst_options_.fs = FileSystem::Default();
    sst_options_.compression = kNoCompression;
    table_cache_.reset(new TableCache(dbname_, sst_options_, 100, 64 << 20));

    // The first manifest of a new database.
    VersionEdit edit;
    edit.SetComparatorName(BytewiseComparator()->Name());
    edit.SetLogNumber(0);
    edit.SetNextFile(2);
    edit.SetLastSequence(0);
    WritableFile* file = nullptr;
    EXPECT_TRUE(
        options_.env->NewWritableFile(DescriptorFileName(dbname_, 1), &file)
            .ok());
    if (file != nullptr) {
      log::Writer writer(file);
      std::string record;
      edit.EncodeTo(&record);
      EXPECT_TRUE(writer.AddRecord(record).ok());
      EXPECT_TRUE(file->Close().ok());
      delete file;
    }
    EXPECT_TRUE(SetCurrentFile(options_.env, dbname_, 1).ok());
    vset_.reset(new VersionSet(dbname_, &options_, tuning_, table_cache_.get(),
                               &icmp_));
    bool save_manifest;
    EXPECT_TRUE(vset_->Recover(&save_manifest).ok());
  }

  ~VersionReadTest() override {
    vset_.reset();
    table_cache_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dbname_, ec);
  }

  // Builds SST directory `number` at `level` from `entries` (in internal-key
  // order) and adds it to *edit.
  void BuildDir(VersionEdit* edit, int level, uint64_t number,
                const std::vector<Entry>& entries) {
    ASSERT_TRUE(
        sst_options_.fs->CreateDir(LevelDirName(dbname_, level), true).ok());
    SstDirBuilder builder(sst_options_, SstDirName(dbname_, level, number));
    ASSERT_TRUE(builder.Begin().ok());
    for (const Entry& e : entries) {
      InternalKey ikey(e.key, e.seq, e.type);
      ASSERT_TRUE(builder.Add(ikey.Encode(), e.value).ok());
    }
    ASSERT_TRUE(builder.Finish().ok());
    FileMetaData f;
    f.number = number;
    f.entries = builder.NumEntries();
    f.value_bytes = builder.ValueBytes();
    f.disk_bytes = builder.DiskBytes();
    f.smallest.DecodeFrom(builder.smallest());
    f.largest.DecodeFrom(builder.largest());
    vset_->MarkFileNumberUsed(number);
    edit->AddFile(level, f);
  }

  // Two overlapping L0 directories over one L1 directory:
  //   L0 #11 (newer): a@5=A5, b@6=deleted
  //   L0 #10 (older): a@1=A1, b@2=B2, c@3=C3
  //   L1 #5:          c@0=C0, d@0=D0
  void BuildStandardTree() {
    VersionEdit edit;
    BuildDir(&edit, 0, 10,
             {{"a", 1, kTypeValue, "A1"},
              {"b", 2, kTypeValue, "B2"},
              {"c", 3, kTypeValue, "C3"}});
    BuildDir(&edit, 0, 11,
             {{"a", 5, kTypeValue, "A5"}, {"b", 6, kTypeDeletion, ""}});
    BuildDir(&edit, 1, 5,
             {{"c", 0, kTypeValue, "C0"}, {"d", 0, kTypeValue, "D0"}});
    vset_->SetLastSequence(6);
    mu_.Lock();
    Status s = vset_->LogAndApply(&edit, &mu_);
    mu_.Unlock();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  Status Get(const std::string& key, SequenceNumber seq, std::string* value,
             Version::GetStats* stats) {
    LookupKey lkey(key, seq);
    return vset_->current()->Get(ReadOptions(), lkey, value, stats);
  }

  std::string GetValue(const std::string& key, SequenceNumber seq) {
    std::string value;
    Version::GetStats stats;
    Status s = Get(key, seq, &value, &stats);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return s.ToString();
    return value;
  }

  std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> filter_;
  SstDirOptions sst_options_;
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<VersionSet> vset_;
  port::Mutex mu_;
};

TEST_F(VersionReadTest, GetReturnsNewestVisibleVersion) {
  BuildStandardTree();
  EXPECT_EQ("A5", GetValue("a", 100));
  EXPECT_EQ("NOT_FOUND", GetValue("b", 100));  // deletion in the newer dir
  EXPECT_EQ("C3", GetValue("c", 100));         // L0 hides L1
  EXPECT_EQ("D0", GetValue("d", 100));
  EXPECT_EQ("NOT_FOUND", GetValue("e", 100));
  EXPECT_EQ("NOT_FOUND", GetValue("", 100));
  // Older snapshots see older versions.
  EXPECT_EQ("A1", GetValue("a", 4));
  EXPECT_EQ("B2", GetValue("b", 5));
  EXPECT_EQ("C0", GetValue("c", 2));
  EXPECT_EQ("NOT_FOUND", GetValue("a", 0));
}

TEST_F(VersionReadTest, GetReportsFruitlessProbe) {
  BuildStandardTree();
  std::string value;
  Version::GetStats stats;
  // Found in the first directory probed: nothing to charge.
  ASSERT_TRUE(Get("a", 100, &value, &stats).ok());
  EXPECT_EQ(nullptr, stats.seek_file);
  // As of sequence 4, #11 (probed first) has nothing visible for "a".
  ASSERT_TRUE(Get("a", 4, &value, &stats).ok());
  ASSERT_NE(nullptr, stats.seek_file);
  EXPECT_EQ(11u, stats.seek_file->number);
  EXPECT_EQ(0, stats.seek_file_level);
}

TEST_F(VersionReadTest, IteratorsYieldEveryEntryInOrder) {
  BuildStandardTree();
  std::vector<Iterator*> iters;
  vset_->current()->AddIterators(ReadOptions(), &iters);
  EXPECT_EQ(3u, iters.size());  // two L0 dirs, one iterator for L1
  std::unique_ptr<Iterator> merged(
      NewMergingIterator(&icmp_, iters.data(), static_cast<int>(iters.size())));
  std::string seen;
  for (merged->SeekToFirst(); merged->Valid(); merged->Next()) {
    ParsedInternalKey parsed;
    ASSERT_TRUE(ParseInternalKey(merged->key(), &parsed));
    seen += parsed.user_key.ToString() + "@" + std::to_string(parsed.sequence) +
            "=" + merged->value().ToString() + " ";
  }
  ASSERT_TRUE(merged->status().ok()) << merged->status().ToString();
  EXPECT_EQ("a@5=A5 a@1=A1 b@6= b@2=B2 c@3=C3 c@0=C0 d@0=D0 ", seen);

  InternalKey target("c", 1, kValueTypeForSeek);
  merged->Seek(target.Encode());
  ASSERT_TRUE(merged->Valid());
  EXPECT_EQ("C0", merged->value().ToString());
}

TEST_F(VersionReadTest, ApproximateOffsetCountsBytesOnDisk) {
  BuildStandardTree();
  Version* v = vset_->current();
  // Six values of two bytes, each a KV file of one 4 KiB block, and three
  // meta files of one block each; the tombstone has no file.
  InternalKey before("", kMaxSequenceNumber, kValueTypeForSeek);
  InternalKey after("z", kMaxSequenceNumber, kValueTypeForSeek);
  InternalKey middle("c", kMaxSequenceNumber, kValueTypeForSeek);
  EXPECT_EQ(0u, vset_->ApproximateOffsetOf(v, before));
  EXPECT_EQ(9u * 4096, vset_->ApproximateOffsetOf(v, after));
  // Before "c": all of L0 #11 (a@5, the b@6 tombstone, its meta file) and
  // a@1, b@2 of L0 #10 with two thirds of its meta file.
  EXPECT_EQ(2u * 4096 + 2 * 4096 + 4096 * 2 / 3,
            vset_->ApproximateOffsetOf(v, middle));
}

TEST_F(VersionReadTest, MissingDirectoryIsCorruptionNotAbsentKey) {
  BuildStandardTree();
  std::error_code ec;
  std::filesystem::remove_all(SstDirName(dbname_, 1, 5), ec);
  ASSERT_FALSE(ec);
  std::string value;
  Version::GetStats stats;
  Status s = Get("d", 100, &value, &stats);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  // Keys answered above the missing directory are unaffected.
  EXPECT_EQ("A5", GetValue("a", 100));
}

}  // namespace
}  // namespace leveldb
