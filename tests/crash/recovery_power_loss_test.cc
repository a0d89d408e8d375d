// Power loss during recovery, and what a power loss may leave of files that
// were never synced.
//
// RecoveryCutByPowerLoss: a random workload (puts, overwrites, deletes,
// batches, 1 in 8 with sync=true, explicit flushes) runs on the power-loss
// wrappers until the power is cut at a random disk call; the power loss
// leaves each unsynced file lost, zero-filled, half written or complete and
// keeps each unsynced directory change independently, so a later change
// may survive an earlier one (PowerLossOutcome::kRandom, seeded). A copy of
// that disk is recovered once, uncut, to learn what recovery makes of it
// and how many disk calls it needs. Then the disk itself is recovered
// several times, each time with the power cut at a random one of those
// calls (in the WAL replay, deferred mode's L0 rebuild, the manifest
// rewrite, the removal of obsolete files or the background work Open
// starts) and another random power loss after it. A last, uncut recovery
// must show exactly what the uncut one did: recovery destroys nothing
// before its replacement is durable. And that state must keep every write
// the mode promised (sync=true; in kSyncfs and kFsync every write a
// finished flush covered), bring back no deleted key, keep batches whole,
// show no value never written (a torn or zero-filled file served as a
// value) and leave no orphan.
//
// DeferredWalExpiry: kDeferred deletes a flushed memtable's WAL after the
// retention time without syncing what the flush wrote, so a power loss
// after that may lose those writes (the documented promise). The test
// reaches the expiry (the WALs are gone), cuts the power, and checks that a
// read gives the value written, an error, or (only where recovery replayed
// a WAL and so dropped the L0 SSTs it could not read) NotFound, never the
// zeros or half a value a damaged KV or meta file holds; writes and a
// delete synced after the expiry survive. Most rounds force one kind of
// damage on every unsynced file (PowerLossOutcome::fate_by_path).
//
// Seed printed; DELSM_TEST_SEED replays a run.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/write_batch.h"
#include "tests/db_options.h"
#include "tests/durability_harness.h"
#include "tests/test_support.h"
#include "tests/write_model.h"
#include "util/random.h"

namespace leveldb {
namespace {

using delsm::Durability;
using delsm_test::FaultStack;
using delsm_test::Model;
using delsm_test::ModeName;
using delsm_test::TempDir;

constexpr int kKeySpace = 200;
constexpr int kRounds = 4;
constexpr int kCutRecoveries = 5;

std::string KeyName(uint32_t k) { return delsm_test::NumberedKey(k, 5); }

std::vector<std::string> AllKeys() {
  return delsm_test::NumberedKeys(kKeySpace, 5);
}

// A value unique to the write that stores it, never all zeros.
std::string ValueFor(uint64_t index, Random* rnd) {
  std::string v = "v" + std::to_string(index) + ":";
  v.append(100 + rnd->Uniform(900), static_cast<char>('a' + index % 26));
  return v;
}

Options DbOptions() {
  return delsm_test::NewDbOptions(24 << 10);  // several memtables and WALs
}

delsm::Tuning DbTuning(Durability mode) {
  delsm::Tuning t;
  t.durability = mode;
  t.inline_threshold = 0;  // every value a KV file: KV files get damaged
  t.l0_compaction_entries = 150;
  t.l0_compaction_dirs = 3;
  t.sst_entries = 40;
  t.l1_entries = 200;
  return t;
}

// Recovers `dbname` on a fresh wrapper stack under `root` with the power
// cut at disk call `cut_at` (0: never), lets the background work Open
// starts run into the cut or finish, and rolls the disk back with
// `outcome`. Sets *open_calls to the disk calls Open made (before it
// returned) and returns all it and the background work made.
uint64_t RecoverOnStack(const std::string& root, const std::string& dbname,
                        Durability mode, uint64_t cut_at,
                        const PowerLossOutcome& outcome, bool* open_ok,
                        uint64_t* open_calls) {
  EXPECT_EQ(0, mkdir(root.c_str(), 0755)) << root;
  FaultStack stack(root);
  stack.power_fs.ShareCallCounter(&stack.env);
  stack.power_fs.SetPowerCutHook([&stack] { stack.env.CutPower(); });
  stack.env.SetPowerCutHook([&stack] { stack.power_fs.CutPower(); });
  stack.power_fs.CutPowerAtCall(cut_at);
  DB* db = nullptr;
  Status s = stack.Open(DbOptions(), DbTuning(mode), dbname, &db);
  *open_ok = s.ok();
  *open_calls = stack.power_fs.DiskCalls();
  if (s.ok()) {
    static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();  // may fail
    delete db;
  } else if (cut_at == 0) {
    ADD_FAILURE() << "uncut recovery failed: " << s.ToString();
  }
  const uint64_t calls = stack.power_fs.DiskCalls();
  s = stack.PowerLoss(outcome);
  EXPECT_TRUE(s.ok()) << "power-loss model: " << s.ToString();
  EXPECT_TRUE(delsm_test::ListDir(root + "/fs_shadow").empty());
  EXPECT_TRUE(delsm_test::ListDir(root + "/env_shadow").empty());
  delsm_test::RemoveTree(root);
  return calls;
}

// The first difference between two database contents, or "".
std::string Diff(const std::map<std::string, std::string>& want,
                 const std::map<std::string, std::string>& got) {
  for (const auto& kv : want) {
    auto it = got.find(kv.first);
    if (it == got.end()) return kv.first + " is gone";
    if (it->second != kv.second) return kv.first + " changed its value";
  }
  for (const auto& kv : got) {
    if (want.count(kv.first) == 0) return kv.first + " appeared";
  }
  return "";
}

class RecoveryPowerLossTest : public testing::TestWithParam<Durability> {};

TEST_P(RecoveryPowerLossTest, RecoveryCutByPowerLoss) {
  const Durability mode = GetParam();
  const uint64_t seed = delsm_test::RandomSeed(
      std::string("recovery power loss (") + ModeName(mode) + ")");
  Random rnd(static_cast<uint32_t>(seed));
  int cuts_in_open = 0, cuts_after_open = 0;
  uint64_t max_calls = 0;
  for (int round = 0; round < kRounds; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    TempDir tmp("delsm_recovery_power");
    ASSERT_FALSE(tmp.path().empty());
    const std::string dbname = tmp.path() + "/db";
    ASSERT_EQ(0, mkdir(dbname.c_str(), 0755));
    Model model;

    // 1. A workload cut by a power loss at a random disk call.
    ASSERT_EQ(0, mkdir((tmp.path() + "/w").c_str(), 0755));
    {
      FaultStack stack(tmp.path() + "/w");
      stack.power_fs.ShareCallCounter(&stack.env);
      stack.power_fs.SetPowerCutHook([&stack] { stack.env.CutPower(); });
      stack.env.SetPowerCutHook([&stack] { stack.power_fs.CutPower(); });
      DB* db = nullptr;
      Status s = stack.Open(DbOptions(), DbTuning(mode), dbname, &db);
      ASSERT_TRUE(s.ok()) << s.ToString();
      const int ops = 300 + rnd.Uniform(300);
      const int arm_at = ops - static_cast<int>(rnd.Uniform(30));
      for (int i = 0; i < ops && !stack.power_fs.PowerIsOff(); i++) {
        if (i == arm_at) stack.power_fs.CutPowerAtCall(1 + rnd.Uniform(80));
        WriteOptions wo;
        wo.sync = rnd.OneIn(8);
        const uint64_t index = model.NextIndex();
        const int kind = rnd.Uniform(25);
        if (kind == 0) {
          s = static_cast<DBImpl*>(db)->TEST_FlushMemTable();
          if (s.ok() && mode != Durability::kDeferred) model.PromiseAll();
          continue;
        }
        if (kind <= 4) {
          WriteBatch batch;
          std::map<std::string, std::string> writes;  // "" deletes
          std::vector<std::string> keys;
          for (int j = 2 + rnd.Uniform(4); j > 0; j--) {
            const std::string key = KeyName(rnd.Uniform(kKeySpace));
            if (writes.count(key) != 0) continue;
            keys.push_back(key);
            if (rnd.OneIn(3)) {
              batch.Delete(key);
              writes[key] = "";
            } else {
              writes[key] = ValueFor(index, &rnd);
              batch.Put(key, writes[key]);
            }
          }
          s = db->Write(wo, &batch);
          for (const auto& kv : writes) {
            model.Add(kv.first, index, kv.second.empty(), kv.second,
                      s.ok() && wo.sync, !s.ok());
          }
          model.AddBatch(index, keys);
          continue;
        }
        const std::string key = KeyName(rnd.Uniform(kKeySpace));
        if (kind <= 9) {
          s = db->Delete(wo, key);
          model.Add(key, index, true, "", s.ok() && wo.sync, !s.ok());
        } else {
          const std::string v = ValueFor(index, &rnd);
          s = db->Put(wo, key, v);
          model.Add(key, index, false, v, s.ok() && wo.sync, !s.ok());
        }
      }
      if (!stack.power_fs.PowerIsOff()) {
        if (arm_at >= ops) stack.power_fs.CutPowerAtCall(1 + rnd.Uniform(80));
        static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();  // may fail
      }
      delete db;
      PowerLossOutcome outcome;
      outcome.mode = PowerLossOutcome::kRandom;
      outcome.seed = rnd.Next();
      s = stack.PowerLoss(outcome);
      ASSERT_TRUE(s.ok()) << "power-loss model: " << s.ToString();
    }
    delsm_test::RemoveTree(tmp.path() + "/w");

    // 2. What an uncut recovery makes of this disk (on a copy), and how
    // many disk calls it takes.
    const std::string copy = tmp.path() + "/copy";
    ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));
    bool open_ok = false;
    uint64_t open_calls = 0;
    const uint64_t calls =
        RecoverOnStack(tmp.path() + "/r", copy, mode, 0, PowerLossOutcome(),
                       &open_ok, &open_calls);
    ASSERT_TRUE(open_ok);
    max_calls = std::max(max_calls, open_calls);
    std::map<std::string, std::string> reference;
    const std::string error = delsm_test::VerifyDb(
        DbOptions(), DbTuning(mode), copy, model, AllKeys(), &reference);
    ASSERT_EQ("", error) << "after the workload's power loss ("
                         << ModeName(mode) << ")";
    delsm_test::RemoveTree(copy);

    // 3. Recoveries of the disk itself, each cut by a power loss.
    // Mostly inside Open, sometimes in the background work it starts.
    for (int c = 0; c < kCutRecoveries; c++) {
      // The first cut of each round falls in Open's first calls, so that
      // some cuts fail Open however the rest of its calls split between
      // recovery and best-effort cleanup (slow builds shift it: under TSan
      // every random cut once landed in the cleanup).
      const uint64_t range = c == 0         ? std::min<uint64_t>(open_calls, 3)
                             : rnd.OneIn(4) ? calls + 2
                                            : open_calls;
      const uint64_t cut_at = 1 + rnd.Uniform(static_cast<int>(range));
      PowerLossOutcome outcome;
      outcome.mode = PowerLossOutcome::kRandom;
      outcome.seed = rnd.Next();
      uint64_t unused;
      RecoverOnStack(tmp.path() + "/c", dbname, mode, cut_at, outcome, &open_ok,
                     &unused);
      // (Open reports a cut in its best-effort cleanup -- obsolete WALs,
      // manifests and unowned directory entries -- as success.)
      (open_ok ? cuts_after_open : cuts_in_open)++;
      if (HasFatalFailure()) return;
    }

    // 4. The last recovery shows what the uncut one did.
    std::map<std::string, std::string> found;
    const std::string after = delsm_test::VerifyDb(
        DbOptions(), DbTuning(mode), dbname, model, AllKeys(), &found);
    ASSERT_EQ("", after) << "after recoveries cut by power loss ("
                         << ModeName(mode) << ")";
    EXPECT_EQ("", Diff(reference, found))
        << "recoveries cut by power loss changed what recovery shows ("
        << ModeName(mode) << ")";
  }
  std::printf(
      "recovery power loss (%s): %d rounds, %d recoveries cut so that Open "
      "failed, %d where it succeeded (cut in its cleanup or in the "
      "background work after it); an uncut Open made up to %llu disk "
      "calls\n",
      ModeName(mode), kRounds, cuts_in_open, cuts_after_open,
      static_cast<unsigned long long>(max_calls));
  EXPECT_GT(cuts_in_open, 0);
}

INSTANTIATE_TEST_SUITE_P(Modes, RecoveryPowerLossTest,
                         testing::Values(Durability::kSyncfs,
                                         Durability::kFsync,
                                         Durability::kDeferred),
                         [](const testing::TestParamInfo<Durability>& info) {
                           return std::string(ModeName(info.param));
                         });

// WAL files (*.log) in `dbname`.
int CountWals(const std::string& dbname) {
  int n = 0;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0) n++;
  }
  return n;
}

TEST(DeferredWalExpiry, LostWritesAreNeverServedAsWrongValues) {
  const uint64_t seed = delsm_test::RandomSeed("deferred WAL expiry");
  Random rnd(static_cast<uint32_t>(seed));
  int served = 0, lost = 0, detected = 0, expired_wals = 0, refused = 0;
  for (int round = 0; round < 8; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    TempDir tmp("delsm_deferred_expiry");
    ASSERT_FALSE(tmp.path().empty());
    const std::string dbname = tmp.path() + "/db";
    ASSERT_EQ(0, mkdir(dbname.c_str(), 0755));
    delsm::Tuning tuning = DbTuning(Durability::kDeferred);
    tuning.deferred_wal_retention_micros = 1;  // expire at once
    tuning.l0_compaction_entries = 1 << 30;    // keep the flushes at L0
    tuning.l0_compaction_dirs = 1 << 20;
    tuning.l0_slowdown_dirs = 1 << 20;
    tuning.l0_stop_dirs = 1 << 20;
    std::map<std::string, std::string> written;  // key -> its only value
    std::map<std::string, std::string> synced;   // written after the expiry
    bool deleted = false;                        // key 0, after the expiry
    ASSERT_EQ(0, mkdir((tmp.path() + "/w").c_str(), 0755));
    {
      FaultStack stack(tmp.path() + "/w");
      DB* db = nullptr;
      Status s = stack.Open(DbOptions(), tuning, dbname, &db);
      ASSERT_TRUE(s.ok()) << s.ToString();
      uint64_t index = 0;
      for (int flush = 0; flush < 4; flush++) {
        for (int i = 0; i < 40; i++) {
          const std::string key = KeyName(flush * 40 + i);
          written[key] = ValueFor(index++, &rnd);
          ASSERT_TRUE(db->Put(WriteOptions(), key, written[key]).ok());
        }
        ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
      }
      // The flush thread deletes an expired WAL on its next turn; a flush
      // of an empty memtable gives it one.
      for (int i = 0; i < 1000 && CountWals(dbname) > 1; i++) {
        ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
        usleep(1000);
      }
      ASSERT_EQ(1, CountWals(dbname)) << "the deferred WALs never expired";
      expired_wals++;
      // Even rounds: writes and a delete synced into the live WAL, promised
      // whatever happens. Odd rounds: none, so recovery replays nothing.
      if (round % 2 == 0) {
        WriteOptions sync;
        sync.sync = true;
        for (int i = 160; i < 180; i++) {
          const std::string key = KeyName(i);
          synced[key] = ValueFor(index++, &rnd);
          ASSERT_TRUE(db->Put(sync, key, synced[key]).ok());
        }
        ASSERT_TRUE(db->Delete(sync, KeyName(0)).ok());
        written.erase(KeyName(0));
        deleted = true;
      }
      // The power fails while the database is open: a clean Close would
      // first make every flushed directory durable, leaving nothing for
      // kDeferred to lose. Deleting the DB afterwards changes no disk state.
      stack.power_fs.CutPower();
      stack.env.CutPower();
      delete db;
      // Rounds 1-5 keep every entry and force one kind of damage: every
      // unsynced file empty; KV files (names hold '@') zero-filled or half
      // written under intact meta files; meta files zero-filled or half
      // written over intact KV files. The others draw every fate.
      PowerLossOutcome outcome;
      outcome.mode = PowerLossOutcome::kRandom;
      outcome.seed = rnd.Next();
      using F = PowerLossOutcome;
      const F::DataFate kv_fates[] = {F::kLost, F::kZeroFilled, F::kHalfWritten,
                                      F::kComplete, F::kComplete};
      const F::DataFate meta_fates[] = {F::kLost, F::kComplete, F::kComplete,
                                        F::kZeroFilled, F::kHalfWritten};
      if (round >= 1 && round <= 5) {
        outcome.keep_entries = true;
        outcome.fate_by_path = {{"@", kv_fates[round - 1]},
                                {"/META", meta_fates[round - 1]}};
      }
      s = stack.PowerLoss(outcome);
      ASSERT_TRUE(s.ok()) << "power-loss model: " << s.ToString();
    }

    DB* db = nullptr;
    Status s = delsm::Open(DbOptions(), tuning, dbname, &db);
    if (!s.ok()) {
      // kDeferred's documented loss, made visible: the power loss took a
      // flushed L0 directory whose WAL had expired. Open names it rather
      // than answering NotFound for its keys. (RepairDB is not run here:
      // it would take back KV files the power loss left torn, whose crc
      // only the lost meta file knew.)
      ASSERT_TRUE(s.IsCorruption() &&
                  s.ToString().find("missing SST directory") !=
                      std::string::npos)
          << "reopen after power loss: " << s.ToString();
      refused++;
      continue;
    }
    std::unique_ptr<DB> holder(db);
    for (int k = 0; k < kKeySpace; k++) {
      const std::string key = KeyName(k);
      std::string v;
      s = db->Get(ReadOptions(), key, &v);
      if (synced.count(key) != 0) {
        ASSERT_TRUE(s.ok()) << key << " (synced): " << s.ToString();
        EXPECT_EQ(synced[key], v) << key << " (synced)";
      } else if (deleted && key == KeyName(0)) {
        EXPECT_TRUE(s.IsNotFound())
            << "synced delete of " << key << " undone: " << s.ToString();
      } else if (written.count(key) == 0) {
        EXPECT_TRUE(s.IsNotFound()) << key << " was never written";
      } else if (s.ok()) {
        EXPECT_EQ(written[key].size(), v.size()) << key << ": a wrong value";
        EXPECT_TRUE(written[key] == v) << key << ": a wrong value";
        served++;
      } else if (s.IsNotFound()) {
        // Recovery keeps every L0 SST whose writes no replayed WAL holds,
        // readable or not, so its keys are found or reported damaged.
        ADD_FAILURE() << key << " silently lost (NotFound)";
        lost++;
      } else {
        detected++;
      }
    }
    // A scan shows only values written, or stops with an error.
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      const std::string key = it->key().ToString();
      const std::string value = it->value().ToString();
      const bool ok = (synced.count(key) != 0 && synced[key] == value) ||
                      (written.count(key) != 0 && written[key] == value);
      ASSERT_TRUE(ok) << "scan: " << key << " shows a value never written";
    }
  }
  std::printf(
      "deferred WAL expiry: %d rounds reached the expiry; %d reopens "
      "named a lost L0 directory; of the keys whose WAL expired, %d read "
      "back, %d reported damaged, %d silently lost\n",
      expired_wals, refused, served, detected, lost);
  // The power losses damaged something, or the checks prove nothing.
  EXPECT_GT(detected, 0);
}

}  // namespace
}  // namespace leveldb
