// Grouped durability (Durability::kSyncfs): a flush commits its L0 SST
// before the SST is durable and keeps its memtable's WAL until a later
// syncfs covers the SST. These tests hold that syncfs back (it fails, so it
// never completes) while flushes commit, then cut the power: an engine that
// let a WAL go at the flush's commit, before the syncfs, loses the writes the
// rolled-back SST held. Every write acknowledged with sync=true must be
// there after the reopen, and the reopen must not trip over the torn or
// missing SST.
#include <sys/stat.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "testing/power_loss_file_system.h"
#include "tests/db_options.h"
#include "tests/durability_harness.h"
#include "tests/held_call_file_system.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;

std::string KeyName(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%05d", i);
  return buf;
}

// Odd keys' values are above the default inline_threshold (2048): the
// grouped syncfs must make both KV files and meta files durable.
std::string ValueFor(int i) {
  return "value-" + std::to_string(i) +
         std::string(i % 2 == 1 ? 2200 : 900, 'a' + i % 26);
}

// No compaction: its own syncfs would make the flushes durable.
delsm::Tuning SmallTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.durability = delsm::Durability::kSyncfs;
  return t;
}

// A compaction after every flush. Written in key order, each flush's SST
// overlaps nothing below and moves down by a rename (a trivial move).
delsm::Tuning MoveEveryFlushTuning() {
  delsm::Tuning t = SmallTuning();
  t.l0_compaction_dirs = 1;
  return t;
}

uint64_t Renames(DB* db) {
  std::string v;
  if (!db->GetProperty("delsm.renames", &v)) return 0;
  return std::strtoull(v.c_str(), nullptr, 10);
}

uint64_t StatsField(DB* db, const std::string& field) {
  std::string stats;
  if (!db->GetProperty("delsm.stats", &stats)) return 0;
  const std::string key = field + ": ";
  const size_t at = stats.find(key);
  if (at == std::string::npos) return 0;
  return std::strtoull(stats.c_str() + at + key.size(), nullptr, 10);
}

// The WALs (*.log) in directory `dir`.
std::vector<std::string> WalsIn(const std::string& dir) {
  std::vector<std::string> wals;
  for (const std::string& name : delsm_test::ListDir(dir)) {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0) {
      wals.push_back(name);
    }
  }
  return wals;
}

class GroupedDurabilityTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    dbname_ = tmp_.path() + "/db";
    // The DB directory predates the test, as in power_loss_test.
    ASSERT_EQ(0, mkdir(dbname_.c_str(), 0755));
  }

  // Opens the DB on a file system and Env whose unsynced changes a power
  // cut undoes (power_, env_), every syncfs failing (faults_): no flush
  // is made durable by a syncfs.
  void OpenWithEverySyncfsFailing(DB** db,
                                  const delsm::Tuning& tuning = SmallTuning()) {
    power_.reset(new PowerLossFileSystem(FileSystem::Default(),
                                         tmp_.path() + "/fs_shadow"));
    env_.reset(
        new FaultInjectionEnv(Env::Default(), tmp_.path() + "/env_shadow"));
    PowerLossFileSystem* power = power_.get();
    FaultInjectionEnv* env = env_.get();
    power->SetSyncfsHook([env] { env->MarkAllDurable(); });
    power->SetDirectorySyncHook(
        [env](const std::string& dir) { env->MarkDirectorySynced(dir); });
    env->SetDirectorySyncHook(
        [power](const std::string& dir) { power->MarkDirectorySynced(dir); });
    faults_.reset(new FaultInjectionFileSystem(power));
    FaultSpec spec;
    spec.sticky = true;
    faults_->Arm(FsOp::kSyncfs, spec);
    Options options = TestOptions();
    options.env = env;
    Status s = OpenWithFileSystem(options, tuning, dbname_, faults_.get(), db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    open_db_.reset(*db);
  }

  // Cuts the power under `db` (opened by OpenWithEverySyncfsFailing), which
  // it deletes, and reopens the DB on the real file system. *pending: the
  // changes the power loss undid.
  void CutPowerAndReopen(DB* db, std::unique_ptr<DB>* reopened,
                         uint64_t* pending) {
    env_->CutPower();
    power_->CutPower();
    open_db_.release();
    delete db;
    *pending = power_->PendingChanges();
    ASSERT_TRUE(env_->SimulatePowerLoss().ok());
    ASSERT_TRUE(power_->SimulatePowerLoss().ok());
    DB* raw = nullptr;
    Status s = delsm::Open(TestOptions(), SmallTuning(), dbname_, &raw);
    ASSERT_TRUE(s.ok()) << "reopen after power loss: " << s.ToString();
    reopened->reset(raw);
  }

  // 900-byte values: inline (below inline_threshold), none in a KV file.
  static std::string InlineValue(int i) {
    return std::string(900, 'a' + i % 26);
  }
  // Puts keys 0 to n-1 with inline values, sync=false.
  static void PutInlineValues(DB* db, int n) {
    for (int i = 0; i < n; i++) {
      Status s = db->Put(WriteOptions(), KeyName(i), InlineValue(i));
      ASSERT_TRUE(s.ok()) << "write " << i << ": " << s.ToString();
    }
  }
  // After a reopen: every key PutInlineValues wrote is there, and once the
  // Open's background work is done nothing is orphaned.
  void CheckInlineValues(DB* db, int n) {
    for (int i = 0; i < n; i++) {
      std::string v;
      Status s = db->Get(ReadOptions(), KeyName(i), &v);
      ASSERT_TRUE(s.ok()) << "lost " << KeyName(i) << ": " << s.ToString();
      ASSERT_EQ(InlineValue(i), v) << KeyName(i);
    }
    ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
    EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
  }

  static Options TestOptions() {
    Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 32 << 10;
    return options;
  }

  TempDir tmp_{"delsm_grouped"};
  std::string dbname_;
  std::unique_ptr<PowerLossFileSystem> power_;
  std::unique_ptr<FaultInjectionEnv> env_;
  std::unique_ptr<FaultInjectionFileSystem> faults_;  // over power_
  // The DB OpenWithEverySyncfsFailing opened, until CutPowerAndReopen takes
  // it: a test that ends early deletes it here, before the file systems and
  // the Env under it (declared above, so destroyed after it).
  std::unique_ptr<DB> open_db_;
};

TEST_F(GroupedDurabilityTest,
       PowerLossBeforeTheGroupedSyncfsLosesNoSyncedWrite) {
  DB* db = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenWithEverySyncfsFailing(&db));

  // Write with sync=true until the failed syncfs stops writes (it is a
  // background error, as a failed sync is in LevelDB) or 400 writes.
  WriteOptions sync;
  sync.sync = true;
  int acked = 0;
  for (int i = 0; i < 400; i++) {
    Status s = db->Put(sync, KeyName(i), ValueFor(i));
    if (!s.ok()) break;
    acked++;
  }
  // Let the flush of what is queued commit (or fail) before the cut. The
  // durability round may record its error while a flush's commit is still
  // writing the manifest; the wait also covers that commit.
  static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
  const uint64_t flushes = StatsField(db, "flushes");
  // The test means something only if an SST was committed undurable.
  ASSERT_GE(flushes, 1u) << "no flush committed before the syncfs failed";
  ASSERT_TRUE(faults_->Fired());

  std::unique_ptr<DB> reopened;
  uint64_t pending = 0;
  ASSERT_NO_FATAL_FAILURE(CutPowerAndReopen(db, &reopened, &pending));
  ASSERT_GT(pending, 0u) << "nothing for the power loss to undo";
  for (int i = 0; i < acked; i++) {
    std::string v;
    Status s = reopened->Get(ReadOptions(), KeyName(i), &v);
    ASSERT_TRUE(s.ok()) << "lost " << KeyName(i) << " (" << acked
                        << " acknowledged, " << flushes
                        << " flushes committed): " << s.ToString();
    ASSERT_EQ(ValueFor(i), v) << KeyName(i);
  }
  ASSERT_TRUE(
      static_cast<DBImpl*>(reopened.get())->TEST_WaitForBackgroundWork().ok());
  EXPECT_EQ("", delsm_test::FindOrphans(reopened.get(), dbname_));
  std::printf("%d synced writes, %llu flushes committed before the cut\n",
              acked, static_cast<unsigned long long>(flushes));
}

// An SST without KV files (every value inline) is made durable by its
// flush itself: its meta file fsynced as written, then its directories, so
// its WAL goes at the commit without a syncfs (which would also write back
// every WAL, only for them to be deleted). With every syncfs failing, such
// flushes still commit, their WALs go, and after a power cut every write
// they hold is there, though none was acknowledged with sync=true. A flush
// that relied on the failing syncfs would stop writes with its error, or
// keep every WAL.
TEST_F(GroupedDurabilityTest, InlineFlushIsDurableWithoutTheGroupedSyncfs) {
  DB* db = nullptr;
  ASSERT_NO_FATAL_FAILURE(OpenWithEverySyncfsFailing(&db));
  const int kWrites = 400;
  ASSERT_NO_FATAL_FAILURE(PutInlineValues(db, kWrites));
  DBImpl* impl = static_cast<DBImpl*>(db);
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  ASSERT_TRUE(impl->TEST_WaitForBackgroundWork().ok());
  EXPECT_GE(StatsField(db, "flushes"), 5u);
  EXPECT_FALSE(faults_->Fired()) << "a flush of inline values ran a syncfs";
  EXPECT_EQ(1u, WalsIn(dbname_).size()) << "the flushed memtables' WALs stay";

  std::unique_ptr<DB> reopened;
  uint64_t pending = 0;
  ASSERT_NO_FATAL_FAILURE(CutPowerAndReopen(db, &reopened, &pending));
  ASSERT_NO_FATAL_FAILURE(CheckInlineValues(reopened.get(), kWrites));
}

// A trivial move of an SST its flush made durable (every value inline)
// needs no syncfs: the SST is on the disk, and a power loss that undoes the
// rename but keeps the manifest record leaves the directory under L0,
// where recovery finds it. With every syncfs failing, such moves commit
// and after a power cut every write is there. A move that synced the file
// system, as before, would fail and stop writes.
TEST_F(GroupedDurabilityTest, TrivialMoveOfAnInlineSstRunsNoSyncfs) {
  DB* db = nullptr;
  ASSERT_NO_FATAL_FAILURE(
      OpenWithEverySyncfsFailing(&db, MoveEveryFlushTuning()));
  const int kWrites = 400;
  ASSERT_NO_FATAL_FAILURE(PutInlineValues(db, kWrites));
  DBImpl* impl = static_cast<DBImpl*>(db);
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  Status s = impl->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(Renames(db), 3u) << "the test needs trivial moves";
  EXPECT_FALSE(faults_->Fired()) << "a trivial move of a durable SST synced";

  std::unique_ptr<DB> reopened;
  uint64_t pending = 0;
  ASSERT_NO_FATAL_FAILURE(CutPowerAndReopen(db, &reopened, &pending));
  EXPECT_GT(pending, 0u) << "nothing for the power loss to undo";
  ASSERT_NO_FATAL_FAILURE(CheckInlineValues(reopened.get(), kWrites));
}

// A compaction whose outputs name no KV file (every value inline) makes
// them durable as a flush does: each meta file fsynced as written, then
// the directories, and no syncfs, which would also write back the WAL the
// writer is appending to. Keys written out of order make every flush
// overlap L1, so each compaction merges rather than moves. With every
// syncfs failing, the compactions still commit, and after a power cut
// every write is there. A compaction that synced the file system would
// fail and stop writes; one that skipped the fsyncs would leave L1 naming
// meta files the power loss took.
TEST_F(GroupedDurabilityTest, CompactionOfInlineSstsRunsNoSyncfs) {
  DB* db = nullptr;
  ASSERT_NO_FATAL_FAILURE(
      OpenWithEverySyncfsFailing(&db, MoveEveryFlushTuning()));
  const int kWrites = 400;
  for (int n = 0; n < kWrites; n++) {
    const int i = (n * 37) % kWrites;  // every key once, out of order
    Status s = db->Put(WriteOptions(), KeyName(i), InlineValue(i));
    ASSERT_TRUE(s.ok()) << "write " << n << ": " << s.ToString();
  }
  DBImpl* impl = static_cast<DBImpl*>(db);
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  Status s = impl->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::string compactions;
  ASSERT_TRUE(db->GetProperty("delsm.compactions", &compactions));
  EXPECT_GE(std::strtoull(compactions.c_str(), nullptr, 10), 3u)
      << "the test needs merging compactions";
  EXPECT_FALSE(faults_->Fired()) << "a compaction of inline SSTs synced";

  std::unique_ptr<DB> reopened;
  uint64_t pending = 0;
  ASSERT_NO_FATAL_FAILURE(CutPowerAndReopen(db, &reopened, &pending));
  EXPECT_GT(pending, 0u) << "nothing for the power loss to undo";
  ASSERT_NO_FATAL_FAILURE(CheckInlineValues(reopened.get(), kWrites));
}

// An SST with KV files is durable only once the grouped syncfs covers it.
// Held before that syncfs (the durability thread stopped at its opening
// of L0), the SST must not move below L0 undurable, where no retained WAL
// replaces it: its trivial move syncs the file system itself first. The
// power is cut once a move has committed; every write acknowledged with
// sync=true must be there and the reopen must succeed. A move that did not
// sync would leave L1 naming a directory the power loss took ("missing SST
// directory") or KV files it tore.
TEST_F(GroupedDurabilityTest, TrivialMoveOfAnSstNotYetDurableSyncsFirst) {
  delsm_test::FaultStack stack(tmp_.path());
  delsm_test::HeldCallFileSystem held(&stack.fault_fs);
  const int durability_round = held.Hold("delsm-sync", "/L0");
  Options options = TestOptions();
  options.env = &stack.env;
  DB* db = nullptr;
  Status s =
      OpenWithFileSystem(options, MoveEveryFlushTuning(), dbname_, &held, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // A test that ends early lets the held call go and deletes the DB before
  // the file systems under it.
  struct Closer {
    delsm_test::HeldCallFileSystem* held;
    DB* db;
    ~Closer() {
      if (db == nullptr) return;
      held->ReleaseAll();
      delete db;
    }
  } closer{&held, db};
  WriteOptions sync;
  sync.sync = true;
  int acked = 0;
  // 2,200-byte values: KV files (above inline_threshold). Stop once a move
  // committed.
  for (int i = 0; i < 2000 && Renames(db) == 0; i++) {
    s = db->Put(sync, KeyName(i), std::string(2200, 'a' + i % 26));
    ASSERT_TRUE(s.ok()) << "write " << i << ": " << s.ToString();
    acked++;
  }
  for (int i = 0; i < 600 && Renames(db) == 0; i++) {
    stack.env.SleepForMicroseconds(100 * 1000);
  }
  ASSERT_GE(Renames(db), 1u) << "no trivial move in " << acked << " writes";
  // The move may come before the durability thread reaches its syncfs
  // (under load it often does): the SST was not durable either way, since
  // the held round can never complete. Wait until the round is held, so
  // that the grouped syncfs is known to be what did not run.
  ASSERT_TRUE(held.WaitUntilHeld(durability_round))
      << "the grouped syncfs was not held: the test proves nothing";

  stack.env.CutPower();
  stack.power_fs.CutPower();
  held.ReleaseAll();
  closer.db = nullptr;
  delete db;
  ASSERT_TRUE(stack.PowerLoss().ok());
  DB* raw = nullptr;
  s = delsm::Open(TestOptions(), SmallTuning(), dbname_, &raw);
  ASSERT_TRUE(s.ok()) << "reopen after power loss: " << s.ToString();
  std::unique_ptr<DB> reopened(raw);
  for (int i = 0; i < acked; i++) {
    std::string v;
    s = reopened->Get(ReadOptions(), KeyName(i), &v);
    ASSERT_TRUE(s.ok()) << "lost " << KeyName(i) << " of " << acked << ": "
                        << s.ToString();
    ASSERT_EQ(std::string(2200, 'a' + i % 26), v) << KeyName(i);
  }
}

// Once the grouped syncfs has run, the WALs of the flushes it covered are
// deleted: retention is bounded by the syncfs, not kept forever.
TEST_F(GroupedDurabilityTest, WalsGoOnceTheirFlushesAreDurable) {
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 32 << 10;
  DB* db = nullptr;
  Status s = delsm::Open(options, SmallTuning(), dbname_, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> holder(db);
  for (int i = 0; i < 400; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), KeyName(i), ValueFor(i)).ok());
  }
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
  EXPECT_GE(StatsField(db, "flushes"), 5u);
  EXPECT_GE(StatsField(db, "durability-syncs"), 1u);
  const std::vector<std::string> wals = WalsIn(dbname_);
  std::string names;
  for (const std::string& name : wals) names += " " + name;
  // On failure: which WALs stayed, and what the engine deleted and when.
  std::string deletions;
  std::ifstream log(dbname_ + "/LOG");
  std::string line;
  while (std::getline(log, line)) {
    if (line.find("Delete") != std::string::npos) deletions += "\n" + line;
  }
  std::string stats;
  db->GetProperty("delsm.stats", &stats);
  EXPECT_EQ(1u, wals.size())
      << "only the live WAL should remain; found" << names << deletions << "\n"
      << stats;
}

// A clean Close in kDeferred and kSyncfs deletes the WALs its flushes kept
// once one syncfs made those flushes durable. A power loss right after the
// Close must then lose no write acknowledged with sync=true and bring back
// no deleted key, whether the newest versions are in the L0 SSTs those
// WALs covered, in the memtable the Close left (its WAL stays), or in L1.
class CloseThenPowerLossTest
    : public GroupedDurabilityTest,
      public testing::WithParamInterface<std::tuple<delsm::Durability, bool>> {
};

TEST_P(CloseThenPowerLossTest, LosesNoSyncedWriteAndRevivesNoDeletedKey) {
  delsm::Tuning tuning = delsm_test::ManualCompactionOnly();
  tuning.durability = std::get<0>(GetParam());
  tuning.values_stay_put = std::get<1>(GetParam());
  tuning.deferred_wal_retention_micros = 3600ull * 1000 * 1000;
  // Only the model decides what survives (no fault is armed).
  delsm_test::FaultStack stack(tmp_.path());

  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = 32 << 10;
  std::map<std::string, std::string> model;
  WriteOptions sync;
  sync.sync = true;
  for (int round = 0; round < 2; round++) {
    DB* db = nullptr;
    Status s = stack.Open(options, tuning, dbname_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    DBImpl* impl = static_cast<DBImpl*>(db);
    // Keys to L1 (compactions sync their outputs).
    for (int i = 0; i < 200; i++) {
      ASSERT_TRUE(db->Put(sync, KeyName(i), ValueFor(i + round)).ok());
      model[KeyName(i)] = ValueFor(i + round);
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    db->CompactRange(nullptr, nullptr);
    // Overwrites and deletes flushed to L0, made durable only by the
    // Close.
    for (int i = 0; i < 200; i += 3) {
      ASSERT_TRUE(db->Delete(sync, KeyName(i)).ok());
      model.erase(KeyName(i));
      ASSERT_TRUE(db->Put(sync, KeyName(i + 1), ValueFor(i + 7)).ok());
      model[KeyName(i + 1)] = ValueFor(i + 7);
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    // More left in the memtable the Close leaves.
    for (int i = 2; i < 200; i += 3) {
      ASSERT_TRUE(db->Delete(sync, KeyName(i)).ok());
      model.erase(KeyName(i));
    }
    ASSERT_TRUE(db->Put(sync, KeyName(0), ValueFor(99)).ok());
    model[KeyName(0)] = ValueFor(99);
    ASSERT_TRUE(impl->TEST_WaitForBackgroundWork().ok());
    delete db;  // clean close
    // The Close retired the WALs of its flushes: only the WAL of the
    // memtable it left stays, so the power loss tests the retirement.
    ASSERT_EQ(1u, WalsIn(dbname_).size()) << "round " << round;
    ASSERT_TRUE(stack.PowerLoss().ok());

    db = nullptr;
    s = stack.Open(options, tuning, dbname_, &db);
    ASSERT_TRUE(s.ok()) << "reopen after power loss: " << s.ToString();
    std::unique_ptr<DB> holder(db);
    for (int i = 0; i < 201; i++) {
      std::string v;
      s = db->Get(ReadOptions(), KeyName(i), &v);
      auto it = model.find(KeyName(i));
      if (it == model.end()) {
        ASSERT_TRUE(s.IsNotFound())
            << "round " << round << ": deleted " << KeyName(i)
            << " came back: " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << "round " << round << ": lost " << KeyName(i)
                            << ": " << s.ToString();
        ASSERT_EQ(it->second, v) << KeyName(i);
      }
    }
    ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
    EXPECT_EQ("", delsm_test::FindOrphans(db, dbname_));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CloseThenPowerLossTest,
    testing::Combine(testing::Values(delsm::Durability::kDeferred,
                                     delsm::Durability::kSyncfs),
                     testing::Bool()));

}  // namespace
}  // namespace leveldb
