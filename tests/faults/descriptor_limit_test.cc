// File descriptors: however many SSTs the DB caches, the descriptors it
// holds stay within what the process may open, and running out of them for
// a moment fails the call that met it, never the DB.
//
// The limit test runs in a child process (this binary again) whose
// RLIMIT_NOFILE is 32, and writes enough random keys with small SSTs for
// hundreds of them to be cached; every Get and a later Put must succeed.
// Randomised: prints its seed; DELSM_TEST_SEED replays one.
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::TempDir;

constexpr int kKeys = 20000;
constexpr rlim_t kFileLimit = 32;

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%010llu",
                static_cast<unsigned long long>(i));
  return buf;
}
std::string Value(uint64_t i) {
  std::string v(100, 'a' + static_cast<char>(i % 26));
  std::snprintf(&v[0], v.size(), "%llu", static_cast<unsigned long long>(i));
  return v;
}

Options DbOptions() { return delsm_test::NewDbOptions(256 << 10); }
// Small SSTs, so that a few thousand keys make hundreds of them.
delsm::Tuning SmallSsts() {
  delsm::Tuning t;
  t.l0_compaction_entries = 1000;
  t.sst_entries = 50;
  t.l1_entries = 2000;
  return t;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(name, &v)) << name;
  return std::strtoull(v.c_str(), nullptr, 10);
}

// The child: runs under RLIMIT_NOFILE = kFileLimit.
TEST(DescriptorLimitChild, Child) {
  const char* db_env = std::getenv("FDLIMIT_DB");
  const char* seed_env = std::getenv("FDLIMIT_SEED");
  if (db_env == nullptr || seed_env == nullptr) {
    GTEST_SKIP() << "helper for DescriptorLimit";
  }
  struct rlimit rl;
  ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
  rl.rlim_cur = kFileLimit;
  ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));

  std::vector<uint64_t> keys(kKeys);
  for (int i = 0; i < kKeys; i++) keys[i] = i;
  std::mt19937_64 rng(std::strtoull(seed_env, nullptr, 10));
  std::shuffle(keys.begin(), keys.end(), rng);

  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), SmallSsts(), db_env, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (uint64_t k : keys) {
    s = db->Put(WriteOptions(), Key(k), Value(k));
    ASSERT_TRUE(s.ok()) << "put " << Key(k) << ": " << s.ToString();
  }
  s = static_cast<DBImpl*>(db)->TEST_FlushMemTable();
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  uint64_t ssts = 0;
  for (int level = 0; level < 7; level++) {
    ssts += Property(db, "leveldb.num-files-at-level" + std::to_string(level));
  }
  std::fprintf(stderr, "%llu SSTs under RLIMIT_NOFILE %d\n",
               static_cast<unsigned long long>(ssts),
               static_cast<int>(kFileLimit));
  EXPECT_GT(ssts, 2 * kFileLimit);  // far more SSTs than descriptors

  // Read everything twice, the second time with every SST cached.
  for (int round = 0; round < 2; round++) {
    int failed = 0;
    std::string first_error;
    for (uint64_t k : keys) {
      std::string v;
      s = db->Get(ReadOptions(), Key(k), &v);
      if (!s.ok() || v != Value(k)) {
        if (failed++ == 0) first_error = Key(k) + ": " + s.ToString();
      }
    }
    EXPECT_EQ(0, failed) << "round " << round << ", first: " << first_error;
  }
  Iterator* it = db->NewIterator(ReadOptions());
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->value() !=
        Value(std::strtoull(it->key().ToString().c_str() + 3, nullptr, 10))) {
      break;
    }
    seen++;
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(kKeys, seen);
  delete it;
  // And the DB still takes writes.
  s = db->Put(WriteOptions(), "after", "reads");
  EXPECT_TRUE(s.ok()) << s.ToString();
  s = static_cast<DBImpl*>(db)->TEST_FlushMemTable();
  EXPECT_TRUE(s.ok()) << s.ToString();
  delete db;
}

TEST(DescriptorLimit, ManySstsUnderASmallFileLimit) {
  TempDir tmp;
  const uint64_t seed = delsm_test::RandomSeed("descriptor limit test");
  const pid_t pid = delsm_test::SpawnSelf(
      "DescriptorLimitChild.Child", {{"FDLIMIT_DB", tmp.path() + "/db"},
                                     {"FDLIMIT_SEED", std::to_string(seed)}});
  ASSERT_GT(pid, 0);
  const int status = delsm_test::WaitChild(pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child status " << status;
  EXPECT_EQ(0, WEXITSTATUS(status)) << "the child's failures are above";
}

// Opens a DB on a fault-injecting file system, with some keys flushed.
class DescriptorExhaustion : public testing::Test {
 protected:
  void SetUp() override {
    // Pure mode: the reads below open KV files (100-byte values would
    // otherwise be inline in the meta file, read through its descriptor).
    delsm::Tuning tuning;
    tuning.inline_threshold = 0;
    ASSERT_TRUE(
        OpenWithFileSystem(DbOptions(), tuning, tmp_.path() + "/db", &fs_, &db_)
            .ok());
    for (int i = 0; i < 100; i++) {
      ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    ASSERT_TRUE(impl()->TEST_FlushMemTable().ok());
  }
  void TearDown() override { delete db_; }
  DBImpl* impl() { return static_cast<DBImpl*>(db_); }

  TempDir tmp_;
  FaultInjectionFileSystem fs_{FileSystem::Default()};
  DB* db_ = nullptr;
};

TEST_F(DescriptorExhaustion, FailsOneRead) {
  fs_.FailNth(FsOp::kOpen, 1, EMFILE);
  std::string v;
  Status s = db_->Get(ReadOptions(), Key(7), &v);
  EXPECT_TRUE(fs_.Fired());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("out of file descriptors"))
      << s.ToString();
  s = db_->Get(ReadOptions(), Key(7), &v);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Value(7), v);
  EXPECT_TRUE(db_->Put(WriteOptions(), "k", "v").ok());
}

TEST_F(DescriptorExhaustion, FlushRetriesInsteadOfStoppingWrites) {
  for (int i = 100; i < 200; i++) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i)).ok());
  }
  // The flush's first open (its new SST directory) runs out of descriptors.
  fs_.FailNth(FsOp::kOpen, 1, EMFILE);
  Status s = impl()->TEST_FlushMemTable();
  EXPECT_TRUE(fs_.Fired());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(2u, Property(db_, "delsm.flushes"));
  for (int i = 200; i < 300; i++) {
    s = db_->Put(WriteOptions(), Key(i), Value(i));
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  ASSERT_TRUE(impl()->TEST_FlushMemTable().ok());
  for (int i = 0; i < 300; i++) {
    std::string v;
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << Key(i);
    EXPECT_EQ(Value(i), v);
  }
}

}  // namespace
}  // namespace leveldb
