// FaultInjectionEnv: failing the Nth call of a kind, and the power-loss
// model for WAL/manifest-style files rule by rule.
#include "testing/fault_injection_env.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "leveldb/env.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

class FaultInjectionEnvTest : public testing::Test {
 protected:
  FaultInjectionEnvTest()
      : dir_(tmp_.path() + "/db"),
        env_(Env::Default(), tmp_.path() + "/shadow") {
    EXPECT_EQ(0, mkdir(dir_.c_str(), 0755));
  }

  // Creates dir_/name holding `data`, appended then synced `sync_after`
  // bytes in (all of it if npos), then the rest appended and closed.
  void Write(const std::string& name, const std::string& data,
             size_t sync_after = std::string::npos) {
    WritableFile* f = nullptr;
    ASSERT_TRUE(env_.NewWritableFile(dir_ + "/" + name, &f).ok());
    const size_t cut = std::min(sync_after, data.size());
    ASSERT_TRUE(f->Append(Slice(data.data(), cut)).ok());
    if (sync_after != std::string::npos) {
      ASSERT_TRUE(f->Sync().ok());
    }
    ASSERT_TRUE(f->Append(Slice(data.data() + cut, data.size() - cut)).ok());
    ASSERT_TRUE(f->Close().ok());
    delete f;
  }

  // Creates dir_/name holding `data`, all of it synced.
  void WriteSynced(const std::string& name, const std::string& data) {
    Write(name, data, data.size());
  }

  std::string Read(const std::string& name) {
    std::string contents;
    Status s = ReadFileToString(Env::Default(), dir_ + "/" + name, &contents);
    return s.ok() ? contents : "<none>";
  }

  void PowerLoss() {
    Status s = env_.SimulatePowerLoss();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(delsm_test::ListDir(tmp_.path() + "/shadow").empty());
  }

  delsm_test::TempDir tmp_;
  const std::string dir_;
  FaultInjectionEnv env_;
};

TEST_F(FaultInjectionEnvTest, FailsTheNthCallOfAKindOnce) {
  WritableFile* f = nullptr;
  ASSERT_TRUE(env_.NewWritableFile(dir_ + "/log", &f).ok());
  env_.FailNth(EnvOp::kAppend, 2, ENOSPC);
  EXPECT_TRUE(f->Append("one").ok());
  Status s = f->Append("two");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(std::string::npos, s.ToString().find(std::strerror(ENOSPC)))
      << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(dir_ + "/log"));
  EXPECT_TRUE(env_.Fired());
  EXPECT_TRUE(f->Append("three").ok());
  EXPECT_TRUE(f->Close().ok());
  delete f;
  EXPECT_EQ("onethree", Read("log"));  // the failed call wrote nothing
  EXPECT_EQ(3u, env_.Count(EnvOp::kAppend));
  EXPECT_EQ(1u, env_.Count(EnvOp::kOpen));

  env_.FailNth(EnvOp::kRemove, 1, EIO);
  EXPECT_TRUE(env_.RemoveFile(dir_ + "/log").IsIOError());
  EXPECT_EQ("onethree", Read("log"));
  env_.FailNth(EnvOp::kOpen, 1, ENOENT);
  SequentialFile* r = nullptr;
  EXPECT_TRUE(env_.NewSequentialFile(dir_ + "/log", &r).IsNotFound());
  EXPECT_EQ(nullptr, r);
  env_.Disarm();
  env_.ResetCounts();
  EXPECT_EQ(0u, env_.Count(EnvOp::kAppend));
}

TEST_F(FaultInjectionEnvTest, HookRunsInTheFailingCallBeforeItFails) {
  WritableFile* f = nullptr;
  ASSERT_TRUE(env_.NewWritableFile(dir_ + "/MANIFEST-000002", &f).ok());
  WritableFile* other = nullptr;
  ASSERT_TRUE(env_.NewWritableFile(dir_ + "/000003.log", &other).ok());
  int hook_runs = 0;
  const std::thread::id caller = std::this_thread::get_id();
  FaultSpec spec;
  spec.nth = 2;
  spec.path_contains = "MANIFEST";
  spec.before_failing = [&] {
    hook_runs++;
    EXPECT_EQ(std::this_thread::get_id(), caller);  // in the failing call
  };
  env_.Arm(EnvOp::kSync, spec);
  EXPECT_TRUE(other->Sync().ok());  // not a match: neither counted nor held
  EXPECT_TRUE(f->Sync().ok());
  EXPECT_EQ(0, hook_runs);
  EXPECT_TRUE(f->Sync().IsIOError());
  EXPECT_EQ(1, hook_runs);
  EXPECT_TRUE(f->Sync().ok());
  EXPECT_EQ(1, hook_runs);
  delete f;
  delete other;
}

TEST_F(FaultInjectionEnvTest, DataIsCutBackToTheLastSync) {
  Write("MANIFEST-000002", "durable+lost", /*sync_after=*/8);
  EXPECT_EQ("durable+lost", Read("MANIFEST-000002"));
  PowerLoss();
  // Its first sync fsynced the directory, so the file itself survives.
  EXPECT_EQ("durable+", Read("MANIFEST-000002"));
}

TEST_F(FaultInjectionEnvTest, NewFileWithoutAnySyncIsLost) {
  env_.set_first_sync_syncs_dir(false);
  Write("000005.log", "synced", /*sync_after=*/6);  // data, but no dir fsync
  Write("000007.log", "never synced");
  PowerLoss();
  EXPECT_EQ("<none>", Read("000005.log"));
  EXPECT_EQ("<none>", Read("000007.log"));
}

TEST_F(FaultInjectionEnvTest, FirstSyncMakesEarlierEntriesInTheDirDurable) {
  std::string synced_dir;
  env_.SetDirectorySyncHook([&](const std::string& d) { synced_dir = d; });
  Write("a.log", "unsynced");
  Write("b.log", "synced", /*sync_after=*/6);
  EXPECT_EQ(dir_, synced_dir);
  PowerLoss();
  EXPECT_EQ("", Read("a.log"));  // entry durable, data not
  EXPECT_EQ("synced", Read("b.log"));
}

TEST_F(FaultInjectionEnvTest, RemoveAndRenameAreUndoneWithoutADirSync) {
  env_.set_rename_syncs_dir(false);
  WriteSynced("old", "old contents");
  WriteSynced("CURRENT", "MANIFEST-1\n");
  WriteSynced("tmp", "MANIFEST-2\n");
  env_.MarkDirectorySynced(dir_);  // all three durable
  ASSERT_TRUE(env_.RenameFile(dir_ + "/tmp", dir_ + "/CURRENT").ok());
  ASSERT_TRUE(env_.RemoveFile(dir_ + "/old").ok());
  EXPECT_EQ("MANIFEST-2\n", Read("CURRENT"));
  EXPECT_EQ("<none>", Read("old"));
  PowerLoss();
  EXPECT_EQ("MANIFEST-1\n", Read("CURRENT"));
  EXPECT_EQ("MANIFEST-2\n", Read("tmp"));
  EXPECT_EQ("old contents", Read("old"));
}

TEST_F(FaultInjectionEnvTest, RenameSyncsTheDirectoryLikeThePosixEnv) {
  WriteSynced("CURRENT", "MANIFEST-1\n");
  WriteSynced("tmp", "MANIFEST-2\n");
  ASSERT_TRUE(env_.RenameFile(dir_ + "/tmp", dir_ + "/CURRENT").ok());
  PowerLoss();
  EXPECT_EQ("MANIFEST-2\n", Read("CURRENT"));
  EXPECT_EQ("<none>", Read("tmp"));
}

TEST_F(FaultInjectionEnvTest, PeerSyncfsCoversFlushedData) {
  env_.set_first_sync_syncs_dir(false);
  WritableFile* f = nullptr;
  ASSERT_TRUE(env_.NewWritableFile(dir_ + "/wal", &f).ok());
  ASSERT_TRUE(f->Append("flushed").ok());
  ASSERT_TRUE(f->Flush().ok());
  env_.MarkAllDurable();
  ASSERT_TRUE(f->Append("+later").ok());
  ASSERT_TRUE(f->Close().ok());
  delete f;
  PowerLoss();
  EXPECT_EQ("flushed", Read("wal"));
}

TEST_F(FaultInjectionEnvTest, ReplacingAFileKeepsTheOldOneUntilDurable) {
  WriteSynced("f", "first");
  env_.MarkDirectorySynced(dir_);
  env_.set_first_sync_syncs_dir(false);
  WriteSynced("f", "second");
  EXPECT_EQ("second", Read("f"));
  PowerLoss();
  EXPECT_EQ("first", Read("f"));
}

TEST_F(FaultInjectionEnvTest, NothingChangesWithThePowerOff) {
  WriteSynced("f", "kept");
  WritableFile* f = nullptr;
  ASSERT_TRUE(env_.NewWritableFile(dir_ + "/g", &f).ok());
  env_.CutPower();
  EXPECT_TRUE(f->Append("x").IsIOError());
  EXPECT_TRUE(f->Sync().IsIOError());
  EXPECT_TRUE(f->Close().ok());
  delete f;
  WritableFile* h = nullptr;
  EXPECT_TRUE(env_.NewWritableFile(dir_ + "/h", &h).IsIOError());
  EXPECT_TRUE(env_.RemoveFile(dir_ + "/f").IsIOError());
  EXPECT_TRUE(env_.RenameFile(dir_ + "/f", dir_ + "/k").IsIOError());
  PowerLoss();
  EXPECT_FALSE(env_.PowerIsOff());
  EXPECT_EQ("kept", Read("f"));
  EXPECT_EQ("<none>", Read("h"));
}

}  // namespace
}  // namespace leveldb
