// Power-loss tests: a random workload (puts, deletes, batches, some with
// sync=true, explicit flushes) runs with the SST directories on a
// PowerLossFileSystem and the WAL and manifest on a FaultInjectionEnv. The
// power is cut on both at a random call that would change or sync the disk
// (counted across both wrappers, so the cut lands at the same point of the
// engine's work in every replay of a seed): during the workload's last
// writes or during the flush or compaction they left running. From then on
// every such call fails, while the database keeps running. The DB object is
// then deleted -- whatever it still tries to write fails -- and both wrappers
// roll the disk back to what had been made durable. This is exactly the
// disk a power failure at the cut would have left (in its most pessimistic
// form), so the checks need no assumption about what the destructor does.
//
// The database is reopened on the real file system and checked against a
// model of every acknowledged write:
//  * a write acknowledged with sync=true is there, or a later write of the
//    same key is;
//  * in kSyncfs and kFsync, so is every write acknowledged before an
//    explicit flush returned OK (the flush made it durable);
//  * in kDeferred the promise is the weaker documented one: only writes
//    the WAL still holds survive, so the sync=true writes (the run is far
//    shorter than the WAL retention time);
//  * a key a promised delete removed does not come back unless a later
//    write re-created it; every value read is one that was written to that
//    key; a batch is all or nothing;
//  * nothing is orphaned: no SST directory the version does not list, no
//    link its meta file does not name.
// Each test keeps one database through several crash cycles, so recovery
// after a crash is itself crashed into.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/write_batch.h"
#include "testing/fault_injection_env.h"
#include "testing/power_loss_file_system.h"
#include "tests/db_options.h"
#include "tests/durability_harness.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"
#include "tests/write_model.h"
#include "util/random.h"

namespace leveldb {
namespace {

using delsm::Durability;
using delsm_test::Model;
using delsm_test::ModeName;
using delsm_test::ReadAll;
using delsm_test::TempDir;

constexpr int kKeySpace = 300;
constexpr int kCyclesPerRun = 3;

std::string KeyName(uint32_t k) { return delsm_test::NumberedKey(k, 5); }

// A value unique to the write that stores it.
std::string ValueFor(uint64_t index, Random* rnd) {
  std::string v = "v" + std::to_string(index) + ":";
  // Every fourth value above the default inline_threshold (2048), so
  // power losses hit both KV files and values inline in meta files.
  v.append((index % 4 == 0 ? 2100 : 60) + rnd->Uniform(500),
           static_cast<char>('a' + index % 26));
  return v;
}

Options DbOptions() { return delsm_test::NewDbOptions(32 << 10); }

delsm::Tuning DbTuning(Durability mode) {
  delsm::Tuning t = delsm_test::SmallLevels(200, 48, 300);
  t.durability = mode;
  return t;
}

// Writes per crash cycle are drawn from [20, 20 + this). kFsync pays an
// fsync per KV file, so its cycles are kept shorter to bound the test's
// time.
int MaxOpsPerCycle(Durability mode) {
  return mode == Durability::kFsync ? 300 : 900;
}

struct RunStats {
  int cycles = 0;
  int cycles_rolled_back = 0;  // cycles whose power loss undid something
  int cut_in_background = 0;   // cycles cut in the background work
  uint64_t acked = 0, synced = 0, flushes = 0;
};

class PowerLossTest : public testing::TestWithParam<Durability> {
 protected:
  // One crash cycle on `dbname`: open on the wrappers, write until a random
  // point, cut the power, delete the DB, roll back, reopen on the real file
  // system and check. `what` names the cycle in failure messages.
  void Cycle(const std::string& root, const std::string& dbname, Random* rnd,
             Model* model, RunStats* stats, const std::string& what) {
    const Durability mode = GetParam();
    PowerLossFileSystem fs(FileSystem::Default(), root + "/fs_shadow");
    FaultInjectionEnv env(Env::Default(), root + "/env_shadow");
    // A syncfs covers the WAL and manifest too; an fsync of a directory
    // covers whatever either wrapper changed in it.
    fs.SetSyncfsHook([&env] { env.MarkAllDurable(); });
    fs.SetDirectorySyncHook(
        [&env](const std::string& dir) { env.MarkDirectorySynced(dir); });
    env.SetDirectorySyncHook(
        [&fs](const std::string& dir) { fs.MarkDirectorySynced(dir); });

    Options options = DbOptions();
    options.env = &env;
    DB* db = nullptr;
    Status s = OpenWithFileSystem(options, DbTuning(mode), dbname, &fs, &db);
    ASSERT_TRUE(s.ok()) << what << ": open: " << s.ToString();

    fs.ShareCallCounter(&env);
    fs.SetPowerCutHook([&env] { env.CutPower(); });
    env.SetPowerCutHook([&fs] { fs.CutPower(); });

    const int ops = 20 + rnd->Uniform(MaxOpsPerCycle(mode));
    // The cut: armed some writes before the workload's end, it lands on
    // the nth disk call after that (maybe in the background work).
    const int arm_at = ops - static_cast<int>(rnd->Uniform(20));
    const uint64_t cut_call = 1 + rnd->Uniform(120);
    bool cut_during_work = false;
    for (int i = 0; i < ops && !fs.PowerIsOff(); i++) {
      if (i == arm_at) fs.CutPowerAtCall(cut_call);
      WriteOptions wo;
      wo.sync = rnd->OneIn(8);
      const uint64_t index = model->NextIndex();
      const int kind = rnd->Uniform(20);
      if (kind == 0) {
        s = static_cast<DBImpl*>(db)->TEST_FlushMemTable();
        if (!s.ok() && fs.PowerIsOff()) break;  // the cut came
        ASSERT_TRUE(s.ok()) << what << ": flush: " << s.ToString();
        stats->flushes++;
        // kSyncfs and kFsync promise what a flush wrote; kDeferred keeps
        // the WAL instead, which was never synced.
        if (mode != Durability::kDeferred) model->PromiseAll();
        continue;
      }
      if (kind <= 4) {
        WriteBatch batch;
        std::vector<std::string> keys;
        std::map<std::string, std::string> writes;  // key -> value; "" deletes
        const int n = 2 + rnd->Uniform(5);
        for (int j = 0; j < n; j++) {
          const std::string key = KeyName(rnd->Uniform(kKeySpace));
          if (writes.count(key)) continue;  // one write per key per batch
          keys.push_back(key);
          if (rnd->OneIn(4)) {
            batch.Delete(key);
            writes[key] = "";
          } else {
            writes[key] = ValueFor(index, rnd);
            batch.Put(key, writes[key]);
          }
        }
        s = db->Write(wo, &batch);
        for (const auto& kv : writes) {
          model->Add(kv.first, index, kv.second.empty(), kv.second,
                     s.ok() && wo.sync, !s.ok());
        }
        model->AddBatch(index, keys);
      } else {
        const std::string key = KeyName(rnd->Uniform(kKeySpace));
        if (kind <= 7) {
          s = db->Delete(wo, key);
          model->Add(key, index, true, "", s.ok() && wo.sync, !s.ok());
        } else {
          const std::string v = ValueFor(index, rnd);
          s = db->Put(wo, key, v);
          model->Add(key, index, false, v, s.ok() && wo.sync, !s.ok());
        }
      }
      if (!s.ok() && fs.PowerIsOff()) break;  // the cut came
      ASSERT_TRUE(s.ok()) << what << ": write: " << s.ToString();
      stats->acked++;
      if (wo.sync) stats->synced++;
    }

    // If the cut has not come yet, the background work the writes left
    // (a flush, compactions) runs into it, or ends; then the power goes.
    if (!fs.PowerIsOff()) {
      if (arm_at >= ops) fs.CutPowerAtCall(cut_call);
      static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();  // may fail
      cut_during_work = fs.PowerIsOff();
    }
    if (cut_during_work) stats->cut_in_background++;
    fs.CutPower();
    env.CutPower();
    // Writes after the cut must fail; they may still not be applied.
    for (int i = rnd->Uniform(3); i > 0; i--) {
      const uint64_t index = model->NextIndex();
      const std::string key = KeyName(rnd->Uniform(kKeySpace));
      const std::string v = ValueFor(index, rnd);
      s = db->Put(WriteOptions(), key, v);
      model->Add(key, index, false, v, false);
      EXPECT_FALSE(s.ok()) << what << ": a write succeeded with the power off";
    }
    delete db;
    if (fs.PendingChanges() + env.PendingChanges() > 0) {
      stats->cycles_rolled_back++;
    }
    s = env.SimulatePowerLoss();
    ASSERT_TRUE(s.ok()) << what << ": env rollback: " << s.ToString();
    s = fs.SimulatePowerLoss();
    ASSERT_TRUE(s.ok()) << what << ": fs rollback: " << s.ToString();
    ASSERT_TRUE(delsm_test::ListDir(root + "/fs_shadow").empty());
    ASSERT_TRUE(delsm_test::ListDir(root + "/env_shadow").empty());

    // Reopen on the real file system and check.
    db = nullptr;
    s = delsm::Open(DbOptions(), DbTuning(mode), dbname, &db);
    ASSERT_TRUE(s.ok()) << what
                        << ": reopen after power loss: " << s.ToString();
    std::unique_ptr<DB> holder(db);
    // Let the compactions the reopen starts finish first: inputs a reader
    // pins while their compaction commits are only collected by the next
    // background job, which would leave them behind for the orphan check.
    s = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
    std::map<std::string, std::string> contents;
    s = ReadAll(db, &contents);
    ASSERT_TRUE(s.ok()) << what << ": scan: " << s.ToString();
    for (int k = 0; k < kKeySpace; k++) {
      std::string v;
      const std::string key = KeyName(k);
      s = db->Get(ReadOptions(), key, &v);
      auto it = contents.find(key);
      if (it == contents.end()) {
        ASSERT_TRUE(s.IsNotFound()) << what << ": Get " << key << " "
                                    << s.ToString() << " but the scan has none";
      } else {
        ASSERT_TRUE(s.ok()) << what << ": Get " << key << " " << s.ToString();
        ASSERT_EQ(it->second, v) << what << ": Get and scan differ at " << key;
      }
    }
    const std::string violations = model->Check(contents);
    EXPECT_EQ("", violations) << what << " (" << ModeName(mode) << ")";
    s = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << what << ": " << s.ToString();
    EXPECT_EQ("", delsm_test::FindOrphans(db, dbname)) << what;
    model->Rebase(contents);
    stats->cycles++;
  }
};

TEST_P(PowerLossTest, RandomWorkloadCrashesAtRandomPoints) {
  const Durability mode = GetParam();
  const int runs = 8;
  const uint64_t seed = delsm_test::RandomSeed(
      std::string("power loss test (") + ModeName(mode) + ")");
  RunStats stats;
  for (int run = 0; run < runs; run++) {
    TempDir tmp("delsm_power");
    ASSERT_FALSE(tmp.path().empty());
    const std::string dbname = tmp.path() + "/db";
    // The DB directory itself predates the test (making a new DB's parent
    // entry durable is the application's business, as with LevelDB); all
    // of the DB's own files are created under the wrappers.
    ASSERT_EQ(0, mkdir(dbname.c_str(), 0755));
    Random rnd(static_cast<uint32_t>(seed) + 1000 * static_cast<int>(mode) +
               run);
    Model model;
    for (int c = 0; c < kCyclesPerRun; c++) {
      const std::string what = std::string(ModeName(mode)) + " run " +
                               std::to_string(run) + " cycle " +
                               std::to_string(c);
      Cycle(tmp.path(), dbname, &rnd, &model, &stats, what);
      if (HasFatalFailure() || HasFailure() || IsSkipped()) return;
    }
  }
  std::printf(
      "power loss (%s): %d crash cycles (%d rolled back un-durable "
      "changes, %d cut in background work), %llu acknowledged writes (%llu "
      "with sync), %llu explicit flushes\n",
      ModeName(mode), stats.cycles, stats.cycles_rolled_back,
      stats.cut_in_background, static_cast<unsigned long long>(stats.acked),
      static_cast<unsigned long long>(stats.synced),
      static_cast<unsigned long long>(stats.flushes));
  // The checks above mean something only if crashes did lose state.
  EXPECT_GT(stats.cycles_rolled_back, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, PowerLossTest,
                         testing::Values(Durability::kSyncfs,
                                         Durability::kFsync,
                                         Durability::kDeferred),
                         [](const testing::TestParamInfo<Durability>& info) {
                           return std::string(ModeName(info.param));
                         });

}  // namespace
}  // namespace leveldb
