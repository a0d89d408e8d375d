#include "testing/fault_injection_file_system.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

class FaultInjectionTest : public testing::Test {
 protected:
  FaultInjectionTest()
      : fs_(FileSystem::Default()),
        icmp_(BytewiseComparator()),
        bloom_(NewBloomFilterPolicy(10)) {
    root_ = delsm_test::MakeTestDir("delsm_fault_test");
    EXPECT_FALSE(root_.empty());
    options_.comparator = &icmp_;
    options_.filter_policy = bloom_.get();
    options_.fs = &fs_;
    options_.compression = kNoCompression;
    options_.sync_files = true;
  }
  ~FaultInjectionTest() override {
    if (!root_.empty()) {
      std::string cmd = "rm -rf '" + root_ + "'";
      EXPECT_EQ(system(cmd.c_str()), 0);
    }
  }

  // Builds src (written) and then dst (linked from src).
  Status BuildBoth(const std::string& src_path, const std::string& dst_path) {
    SstDirBuilder src(options_, src_path);
    Status s = src.Begin();
    for (int i = 0; s.ok() && i < 5; i++) {
      std::string key = InternalKey("k" + std::to_string(i), 10 + i,
                                    i == 2 ? kTypeDeletion : kTypeValue)
                            .Encode()
                            .ToString();
      s = src.Add(key, "value" + std::to_string(i));
    }
    if (s.ok()) s = src.Finish();
    if (!s.ok()) return s;  // src's destructor abandons it
    std::unique_ptr<SstDir> opened;
    s = SstDir::OpenWhole(options_, src_path, kMetaFileName, &opened);
    if (!s.ok()) {
      src.Abandon();
      return s;
    }
    SstDirBuilder dst(options_, dst_path);
    s = dst.Begin();
    for (const MetaIndexEntry& e : opened->index().entries) {
      if (!s.ok()) break;
      s = dst.AddLinked(e.internal_key, e, opened->directory());
    }
    if (s.ok()) s = dst.Finish();
    if (s.ok()) s = dst.directory()->SyncFileSystem();
    if (!s.ok()) {
      // A finished builder is only removed on request.
      dst.Abandon();
      src.Abandon();
    }
    return s;
  }

  FaultInjectionFileSystem fs_;
  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> bloom_;
  SstDirOptions options_;
  std::string root_;
};

TEST_F(FaultInjectionTest, CountsCallsByKind) {
  ASSERT_TRUE(BuildBoth(root_ + "/a", root_ + "/b").ok());
  EXPECT_EQ(fs_.Count(FsOp::kMkdir), 2u);
  EXPECT_EQ(fs_.Count(FsOp::kWrite), 4u + 2u);  // 4 KV files, 2 META
  EXPECT_EQ(fs_.Count(FsOp::kLink), 4u);
  EXPECT_EQ(fs_.Count(FsOp::kSyncfs), 1u);
  EXPECT_EQ(fs_.Count(FsOp::kUnlink), 0u);
  EXPECT_GE(fs_.Count(FsOp::kOpen), 2u + 6u + 1u);
  fs_.ResetCounts();
  EXPECT_EQ(fs_.Count(FsOp::kWrite), 0u);
}

TEST_F(FaultInjectionTest, FailsExactlyTheNthCall) {
  std::unique_ptr<Directory> dir;
  ASSERT_TRUE(fs_.OpenDirectory(root_, &dir).ok());
  fs_.FailNth(FsOp::kWrite, 2, ENOSPC);
  EXPECT_TRUE(dir->WriteFile("one", "1", false).ok());
  EXPECT_FALSE(fs_.Fired());
  Status s = dir->WriteFile("two", "2", false);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find(root_ + "/two"), std::string::npos);
  EXPECT_NE(s.ToString().find(strerror(ENOSPC)), std::string::npos);
  EXPECT_TRUE(fs_.Fired());
  EXPECT_FALSE(fs_.Exists(root_ + "/two"));  // a failed write leaves nothing
  EXPECT_TRUE(dir->WriteFile("three", "3", false).ok());
  fs_.FailNth(FsOp::kUnlink, 1, ENOENT);
  EXPECT_TRUE(dir->Unlink("one").IsNotFound());
  EXPECT_TRUE(dir->Unlink("one").ok());
}

// A fault on one exact path fails the listing of that directory only: not
// the listing of a directory below it, whose path contains its own, and
// not the lookup, which still finds it.
TEST_F(FaultInjectionTest, PathIsFailsOneDirectoryOnly) {
  const std::string outer = root_ + "/outer";
  const std::string inner = outer + "/inner";
  ASSERT_TRUE(fs_.CreateDir(outer, false).ok());
  ASSERT_TRUE(fs_.CreateDir(inner, false).ok());
  FaultSpec spec;
  spec.err = ENOENT;
  spec.sticky = true;
  spec.path_is = outer;
  fs_.Arm(FsOp::kReaddir, spec);
  std::vector<std::string> names;
  EXPECT_TRUE(fs_.ListDirectory(inner, &names).ok());
  EXPECT_FALSE(fs_.Fired());
  Status s = fs_.ListDirectory(outer, &names);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find(outer), std::string::npos) << s.ToString();
  EXPECT_TRUE(fs_.ListDirectory(outer, &names).IsNotFound());
  EXPECT_EQ(fs_.Failures(), 2u);
  EXPECT_EQ(fs_.Matches(), 2u);
  bool exists = false;
  ASSERT_TRUE(fs_.Probe(outer, &exists).ok());
  EXPECT_TRUE(exists);
  fs_.Disarm();
  ASSERT_TRUE(fs_.ListDirectory(outer, &names).ok());
  EXPECT_EQ(names, std::vector<std::string>({"inner"}));
}

// Every single failure during a build either leaves both directories
// complete and readable or leaves nothing behind.
TEST_F(FaultInjectionTest, BuilderSweepLeavesNothingOnFailure) {
  ASSERT_TRUE(BuildBoth(root_ + "/count_a", root_ + "/count_b").ok());
  uint64_t counts[kNumFsOps];
  for (int op = 0; op < kNumFsOps; op++) {
    counts[op] = fs_.Count(static_cast<FsOp>(op));
  }
  int run = 0;
  for (int op = 0; op < kNumFsOps; op++) {
    for (uint64_t n = 1; n <= counts[op]; n++) {
      const std::string a = root_ + "/a" + std::to_string(run);
      const std::string b = root_ + "/b" + std::to_string(run);
      run++;
      fs_.FailNth(static_cast<FsOp>(op), n, EIO);
      Status s = BuildBoth(a, b);
      fs_.Disarm();
      SCOPED_TRACE(std::string(FsOpName(static_cast<FsOp>(op))) + " #" +
                   std::to_string(n));
      if (s.ok()) {
        std::unique_ptr<SstDir> dir;
        EXPECT_TRUE(SstDir::Open(options_, b, &dir).ok());
      } else {
        EXPECT_NE(s.ToString().find(strerror(EIO)), std::string::npos)
            << s.ToString();
        EXPECT_FALSE(fs_.Exists(a)) << s.ToString();
        EXPECT_FALSE(fs_.Exists(b)) << s.ToString();
      }
    }
  }
  EXPECT_GT(run, 10);
}

}  // namespace
}  // namespace leveldb
