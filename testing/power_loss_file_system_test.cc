// The power-loss model of PowerLossFileSystem, rule by rule: what survives
// a simulated power failure after each kind of change, with and without
// the fsync or syncfs that makes it durable.
#include "testing/power_loss_file_system.h"

#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

class PowerLossFileSystemTest : public testing::Test {
 protected:
  PowerLossFileSystemTest()
      : root_(tmp_.path() + "/root"),
        fs_(FileSystem::Default(), tmp_.path() + "/shadow") {
    EXPECT_EQ(0, mkdir(root_.c_str(), 0755));
  }

  std::unique_ptr<Directory> Open(const std::string& path) {
    std::unique_ptr<Directory> d;
    Status s = fs_.OpenDirectory(path, &d);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return d;
  }

  // Contents of root_/rel, or "<none>" if it does not exist.
  std::string Read(const std::string& rel) {
    std::unique_ptr<Directory> d;
    const size_t slash = rel.find_last_of('/');
    const std::string dir =
        slash == std::string::npos ? root_ : root_ + "/" + rel.substr(0, slash);
    const std::string name =
        slash == std::string::npos ? rel : rel.substr(slash + 1);
    if (!FileSystem::Default()->OpenDirectory(dir, &d).ok()) return "<none>";
    std::string contents;
    if (!d->ReadFile(name, &contents).ok()) return "<none>";
    return contents;
  }

  void PowerLoss() {
    Status s = fs_.SimulatePowerLoss();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(delsm_test::ListDir(tmp_.path() + "/shadow").empty());
  }

  delsm_test::TempDir tmp_;
  const std::string root_;
  PowerLossFileSystem fs_;
};

TEST_F(PowerLossFileSystemTest, UnsyncedCreateIsLost) {
  auto d = Open(root_);
  ASSERT_TRUE(d->WriteFile("a", "data", /*sync=*/true).ok());
  EXPECT_EQ("data", Read("a"));
  EXPECT_GT(fs_.PendingChanges(), 0u);
  d.reset();
  PowerLoss();
  EXPECT_EQ("<none>", Read("a"));  // the entry was never fsynced
}

TEST_F(PowerLossFileSystemTest, SyncedFileAndDirectorySurvive) {
  auto d = Open(root_);
  ASSERT_TRUE(d->WriteFile("a", "data", /*sync=*/true).ok());
  ASSERT_TRUE(d->Sync().ok());
  EXPECT_EQ(0u, fs_.PendingChanges());
  d.reset();
  PowerLoss();
  EXPECT_EQ("data", Read("a"));
}

TEST_F(PowerLossFileSystemTest, UnsyncedDataIsLostEvenIfTheEntrySurvives) {
  auto d = Open(root_);
  ASSERT_TRUE(d->WriteFile("a", "data", /*sync=*/false).ok());
  ASSERT_TRUE(d->Sync().ok());
  // A second link made durable does not save the data either.
  ASSERT_TRUE(fs_.CreateDir(root_ + "/sub", false).ok());
  ASSERT_TRUE(d->Sync().ok());
  auto sub = Open(root_ + "/sub");
  ASSERT_TRUE(sub->LinkFrom(d.get(), "a").ok());
  ASSERT_TRUE(sub->Sync().ok());
  d.reset();
  sub.reset();
  PowerLoss();
  EXPECT_EQ("", Read("a"));
  EXPECT_EQ("", Read("sub/a"));
}

TEST_F(PowerLossFileSystemTest, SyncfsMakesEverythingDurableAndTellsThePeer) {
  int hook_calls = 0;
  fs_.SetSyncfsHook([&hook_calls] { hook_calls++; });
  ASSERT_TRUE(fs_.CreateDir(root_ + "/sub", false).ok());
  auto sub = Open(root_ + "/sub");
  ASSERT_TRUE(sub->WriteFile("a", "data", /*sync=*/false).ok());
  ASSERT_TRUE(sub->SyncFileSystem().ok());
  EXPECT_EQ(1, hook_calls);
  // After the syncfs: a new unsynced file is still lost.
  ASSERT_TRUE(sub->WriteFile("b", "more", /*sync=*/true).ok());
  sub.reset();
  PowerLoss();
  EXPECT_EQ("data", Read("sub/a"));
  EXPECT_EQ("<none>", Read("sub/b"));
}

TEST_F(PowerLossFileSystemTest, UnlinkIsUndoneUntilTheDirectoryIsSynced) {
  auto d = Open(root_);
  ASSERT_TRUE(d->WriteFile("a", "keep", true).ok());
  ASSERT_TRUE(d->WriteFile("b", "gone", true).ok());
  ASSERT_TRUE(d->Sync().ok());
  ASSERT_TRUE(d->Unlink("a").ok());
  ASSERT_TRUE(d->Unlink("b").ok());
  EXPECT_EQ("<none>", Read("a"));
  ASSERT_TRUE(d->Sync().ok());  // both unlinks durable now
  d = Open(root_);
  ASSERT_TRUE(d->WriteFile("a", "keep", true).ok());
  ASSERT_TRUE(d->Sync().ok());
  ASSERT_TRUE(d->Unlink("a").ok());  // not durable
  EXPECT_TRUE(d->Unlink("missing").IsNotFound());
  d.reset();
  PowerLoss();
  EXPECT_EQ("keep", Read("a"));
  EXPECT_EQ("<none>", Read("b"));
}

TEST_F(PowerLossFileSystemTest, DirectoryChangesNeedTheParentSynced) {
  ASSERT_TRUE(fs_.CreateDir(root_ + "/x", false).ok());
  ASSERT_TRUE(fs_.CreateDir(root_ + "/y", false).ok());
  ASSERT_TRUE(fs_.CreateDir(root_ + "/x", true).ok());  // exists: no change
  auto parent = Open(root_);
  ASSERT_TRUE(parent->Sync().ok());  // x and y durable
  auto x = Open(root_ + "/x");
  ASSERT_TRUE(x->WriteFile("f", "in x", true).ok());
  ASSERT_TRUE(x->Sync().ok());
  ASSERT_TRUE(fs_.RemoveDir(root_ + "/y").ok());
  ASSERT_TRUE(fs_.CreateDir(root_ + "/z", false).ok());
  x.reset();
  parent.reset();
  PowerLoss();
  EXPECT_TRUE(fs_.Exists(root_ + "/y"));   // rmdir undone
  EXPECT_FALSE(fs_.Exists(root_ + "/z"));  // mkdir undone
  EXPECT_EQ("in x", Read("x/f"));
}

TEST_F(PowerLossFileSystemTest, RenameNeedsBothParentsSynced) {
  ASSERT_TRUE(fs_.CreateDir(root_ + "/L0", false).ok());
  ASSERT_TRUE(fs_.CreateDir(root_ + "/L1", false).ok());
  ASSERT_TRUE(fs_.CreateDir(root_ + "/L0/5", false).ok());
  auto five = Open(root_ + "/L0/5");
  ASSERT_TRUE(five->WriteFile("f", "v", true).ok());
  ASSERT_TRUE(five->SyncFileSystem().ok());
  ASSERT_TRUE(fs_.Rename(root_ + "/L0/5", root_ + "/L1/5").ok());
  // Written through the directory opened before the rename: recorded at
  // its new place, so rolled back there.
  ASSERT_TRUE(five->WriteFile("g", "w", true).ok());
  EXPECT_EQ("w", Read("L1/5/g"));
  auto l1 = Open(root_ + "/L1");
  ASSERT_TRUE(l1->Sync().ok());  // only one side of the rename
  five.reset();
  l1.reset();
  PowerLoss();
  EXPECT_EQ("v", Read("L0/5/f"));
  EXPECT_EQ("<none>", Read("L0/5/g"));
  EXPECT_FALSE(fs_.Exists(root_ + "/L1/5"));

  ASSERT_TRUE(fs_.Rename(root_ + "/L0/5", root_ + "/L1/5").ok());
  auto l0 = Open(root_ + "/L0");
  l1 = Open(root_ + "/L1");
  ASSERT_TRUE(l0->Sync().ok());
  ASSERT_TRUE(l1->Sync().ok());
  l0.reset();
  l1.reset();
  PowerLoss();
  EXPECT_EQ("v", Read("L1/5/f"));
  EXPECT_FALSE(fs_.Exists(root_ + "/L0/5"));
}

TEST_F(PowerLossFileSystemTest, PeerDirectorySyncCounts) {
  ASSERT_TRUE(fs_.CreateDir(root_ + "/L0", false).ok());
  std::string synced;
  fs_.SetDirectorySyncHook([&synced](const std::string& d) { synced = d; });
  fs_.MarkDirectorySynced(root_);  // e.g. the Env synced the DB directory
  auto l0 = Open(root_ + "/L0");
  ASSERT_TRUE(l0->Sync().ok());
  EXPECT_EQ(root_ + "/L0", synced);
  l0.reset();
  PowerLoss();
  EXPECT_TRUE(fs_.Exists(root_ + "/L0"));
}

TEST_F(PowerLossFileSystemTest, NothingReachesTheDiskWithThePowerOff) {
  auto d = Open(root_);
  ASSERT_TRUE(d->WriteFile("a", "x", true).ok());
  ASSERT_TRUE(d->Sync().ok());
  fs_.CutPower();
  EXPECT_TRUE(fs_.PowerIsOff());
  EXPECT_TRUE(d->WriteFile("b", "x", true).IsIOError());
  EXPECT_TRUE(d->Unlink("a").IsIOError());
  EXPECT_TRUE(d->Sync().IsIOError());
  EXPECT_TRUE(d->SyncFileSystem().IsIOError());
  EXPECT_TRUE(fs_.CreateDir(root_ + "/n", false).IsIOError());
  EXPECT_FALSE(fs_.Exists(root_ + "/b"));
  std::string v;
  EXPECT_TRUE(d->ReadFile("a", &v).ok());  // reads still work
  d.reset();
  PowerLoss();
  EXPECT_FALSE(fs_.PowerIsOff());
  EXPECT_EQ("x", Read("a"));
}

// kRandom with a forced fate: an unsynced file whose entry survives comes
// back zero-filled at its full size, or cut in half, or complete.
TEST_F(PowerLossFileSystemTest, UnsyncedDataCanSurviveZeroFilledOrTorn) {
  const std::string data = "0123456789abcdef";
  const PowerLossOutcome::DataFate fates[] = {
      PowerLossOutcome::kLost, PowerLossOutcome::kZeroFilled,
      PowerLossOutcome::kHalfWritten, PowerLossOutcome::kComplete};
  const std::string expected[] = {"", std::string(data.size(), '\0'),
                                  data.substr(0, data.size() / 2), data};
  for (int i = 0; i < 4; i++) {
    auto d = Open(root_);
    const std::string name = "f" + std::to_string(i);
    ASSERT_TRUE(d->WriteFile(name, data, /*sync=*/false).ok());
    d.reset();
    PowerLossOutcome outcome;
    outcome.mode = PowerLossOutcome::kRandom;
    outcome.seed = 7;
    outcome.data_fate = fates[i];
    outcome.keep_entries = true;
    ASSERT_TRUE(fs_.SimulatePowerLoss(outcome).ok());
    EXPECT_EQ(expected[i], Read(name)) << "fate " << i;
  }
}

// kRandom keeps each unsynced entry change independently: over a few
// seeds, a file created after another survives while the earlier is lost.
TEST_F(PowerLossFileSystemTest, ALaterUnsyncedChangeCanSurviveAnEarlierOne) {
  bool later_only = false, both = false, neither = false;
  for (uint32_t seed = 0; seed < 64; seed++) {
    auto d = Open(root_);
    const std::string a = "a" + std::to_string(seed);
    const std::string b = "b" + std::to_string(seed);
    ASSERT_TRUE(d->WriteFile(a, "x", /*sync=*/true).ok());
    ASSERT_TRUE(d->WriteFile(b, "y", /*sync=*/true).ok());
    d.reset();
    PowerLossOutcome outcome;
    outcome.mode = PowerLossOutcome::kRandom;
    outcome.seed = seed;
    ASSERT_TRUE(fs_.SimulatePowerLoss(outcome).ok());
    const bool has_a = Read(a) == "x", has_b = Read(b) == "y";
    later_only |= has_b && !has_a;
    both |= has_a && has_b;
    neither |= !has_a && !has_b;
  }
  EXPECT_TRUE(later_only);
  EXPECT_TRUE(both);
  EXPECT_TRUE(neither);
}

TEST_F(PowerLossFileSystemTest, PowerGoesAtTheNthCallCountedAcrossPeers) {
  PowerLossFileSystem peer(FileSystem::Default(), tmp_.path() + "/shadow2");
  fs_.ShareCallCounter(&peer);
  fs_.SetPowerCutHook([&peer] { peer.CutPower(); });
  auto d = Open(root_);
  std::unique_ptr<Directory> p;
  ASSERT_TRUE(peer.OpenDirectory(root_, &p).ok());
  const uint64_t before = fs_.DiskCalls();
  fs_.CutPowerAtCall(3);
  ASSERT_TRUE(d->WriteFile("a", "x", true).ok());  // call 1
  ASSERT_TRUE(p->WriteFile("b", "x", true).ok());  // call 2, on the peer
  EXPECT_FALSE(fs_.PowerIsOff());
  EXPECT_TRUE(d->WriteFile("c", "x", true).IsIOError());  // call 3: the cut
  EXPECT_TRUE(fs_.PowerIsOff());
  EXPECT_TRUE(peer.PowerIsOff());  // the hook cut the peer too
  EXPECT_TRUE(p->WriteFile("d", "x", true).IsIOError());
  EXPECT_EQ(before + 3, fs_.DiskCalls());
  EXPECT_EQ("x", Read("a"));
  EXPECT_EQ("x", Read("b"));
  EXPECT_EQ("<none>", Read("c"));
  d.reset();
  p.reset();
  PowerLoss();
  ASSERT_TRUE(peer.SimulatePowerLoss().ok());
}

}  // namespace
}  // namespace leveldb
