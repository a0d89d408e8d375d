// Persistent resource failure: a disk that stays full (ENOSPC), a file
// system turned read-only (EROFS), permission lost (EACCES), on the WAL, the
// manifest, or the SST directories, from some call on during a workload of
// puts, overwrites, deletes and batches with background flushes and
// compactions. Every durability mode.
//
// The fault is sticky (testing/fault_plan.h): every matching call from the
// nth on fails, until the test clears it. Reads are never failed: a full or
// read-only file system still reads. What a user relies on, checked:
//  * the failure reaches the caller: a write, a flush or a manual
//    compaction returns an IOError naming the cause (strerror of the
//    errno), and once a caller has seen it every later write fails too;
//  * after a WAL write failed, no write is acknowledged (it could not be
//    made durable);
//  * while the fault persists, Get and a scan return every acknowledged
//    write (and no failed delete hides a value, no stale version shows);
//    CompactRange returns; Close works; an Open on the still-faulty disk
//    fails with the cause or keeps everything and acknowledges only what it
//    can keep;
//  * with the fault cleared, a copy of the disk (a process restart) reopens
//    with every acknowledged write, no failed write half-applied, nothing
//    orphaned, and accepts writes again;
//  * a simulated power loss instead keeps what the mode promised (sync=true
//    writes; in kSyncfs and kFsync also everything before a flush that
//    succeeded).
// Seeded: the seed is printed, DELSM_TEST_SEED replays it.
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/write_batch.h"
#include "tests/db_options.h"
#include "tests/durability_harness.h"
#include "tests/test_support.h"
#include "util/random.h"

namespace leveldb {
namespace {

using delsm::Durability;
using delsm_test::FaultStack;
using delsm_test::Model;
using delsm_test::ModeName;
using delsm_test::TempDir;

constexpr int kKeySpace = 120;
constexpr int kCleanOps = 200;    // before the fault is armed
constexpr int kFaultyOps = 2000;  // at most, after arming

// Where the resource fails.
// kSst fails every change to the SST directories; kSstKv only those to KV
// files (their names hold '@'), kSstMeta only those to meta files, kSstLinks
// only the links (and, but for ENOSPC, unlinks) of compaction's dentry
// moves.
enum class Target { kWal, kManifest, kSst, kSstKv, kSstMeta, kSstLinks };

const char* TargetName(Target t) {
  switch (t) {
    case Target::kWal:
      return "wal";
    case Target::kManifest:
      return "manifest";
    case Target::kSst:
      return "sst";
    case Target::kSstKv:
      return "sstkv";
    case Target::kSstMeta:
      return "sstmeta";
    case Target::kSstLinks:
      return "sstlinks";
  }
  return "?";
}

const char* ErrName(int err) {
  switch (err) {
    case ENOSPC:
      return "ENOSPC";
    case EROFS:
      return "EROFS";
    case EACCES:
      return "EACCES";
  }
  return "?";
}

struct Case {
  Durability mode;
  Target target;
  int err;
};

std::string CaseName(const Case& c) {
  return std::string(ModeName(c.mode)) + "_" + TargetName(c.target) + "_" +
         ErrName(c.err);
}

std::string KeyName(int k) { return delsm_test::NumberedKey(k, 4); }

std::vector<std::string> AllKeys() {
  std::vector<std::string> keys = delsm_test::NumberedKeys(kKeySpace, 4);
  keys.push_back("again");
  return keys;
}

// Small memtables: flushes and compactions run in the background while
// the workload writes.
Options DbOptions() { return delsm_test::NewDbOptions(24 << 10); }

delsm::Tuning DbTuning(Durability mode) {
  delsm::Tuning t = delsm_test::SmallLevels(60, 24, 100);
  t.durability = mode;
  return t;
}

// Arms the persistent fault of `c` from the `nth` matching call on. A full
// disk still lets files be removed, and a write that meets it may leave
// part of its data (`partial`: every failing write leaves its first half);
// a read-only or forbidden one does neither.
void ArmFault(FaultStack* stack, const Case& c, uint64_t nth, bool partial) {
  FaultSpec spec;
  spec.nth = nth;
  spec.err = c.err;
  spec.sticky = true;
  if (c.err == ENOSPC && partial) spec.effect = FaultEffect::kPartial;
  const bool removals = c.err != ENOSPC;
  auto env_bit = [](EnvOp op) { return FaultPlan<EnvOp>::Bit(op); };
  auto fs_bit = [](FsOp op) { return FaultPlan<FsOp>::Bit(op); };
  if (c.target == Target::kWal || c.target == Target::kManifest) {
    // Opens are counted too (creating a WAL or manifest), but the workload
    // reads neither while the fault is armed.
    uint32_t kinds = env_bit(EnvOp::kOpen) | env_bit(EnvOp::kAppend) |
                     env_bit(EnvOp::kFlush) | env_bit(EnvOp::kSync) |
                     env_bit(EnvOp::kClose) | env_bit(EnvOp::kRename);
    if (removals) kinds |= env_bit(EnvOp::kRemove);
    spec.path_contains = c.target == Target::kWal ? ".log" : "MANIFEST";
    stack->env.ArmKinds(kinds, spec);
    return;
  }
  // The SST side: every call that changes the file system (KV file and
  // meta file writes and their fsyncs, syncfs, links, directory creation
  // and renames); never a read (kOpen also counts reads).
  uint32_t kinds = 0;
  if (c.target == Target::kSstLinks) {
    kinds = fs_bit(FsOp::kLink);
  } else {
    kinds = fs_bit(FsOp::kWrite) | fs_bit(FsOp::kFsync) |
            fs_bit(FsOp::kSyncfs) | fs_bit(FsOp::kLink) | fs_bit(FsOp::kMkdir) |
            fs_bit(FsOp::kRename);
  }
  if (removals) kinds |= fs_bit(FsOp::kUnlink) | fs_bit(FsOp::kRmdir);
  if (c.target == Target::kSstMeta) spec.path_contains = "META";
  if (c.target == Target::kSstKv) spec.path_contains = "@";
  stack->fault_fs.ArmKinds(kinds, spec);
}

FaultPlanCore* Plan(FaultStack* stack, const Case& c) {
  if (c.target == Target::kWal || c.target == Target::kManifest) {
    return &stack->env;
  }
  return &stack->fault_fs;
}

// The nth matching call the fault starts at: spread over what a workload
// makes (manifest calls are few, WAL appends many).
uint64_t PickNth(const Case& c, Random* rnd) {
  switch (c.target) {
    case Target::kWal:
      return 1 + rnd->Uniform(300);
    case Target::kManifest:
      return 1 + rnd->Uniform(6);
    case Target::kSstMeta:
      return 1 + rnd->Uniform(10);
    default:
      return 1 + rnd->Uniform(60);
  }
}

// The workload and its bookkeeping: `acked_` promises every acknowledged
// write (a restart keeps them all), `promised_` what survives a power
// failure in the mode.
class Workload {
 public:
  Workload(Durability mode, uint64_t seed) : mode_(mode), rnd_(seed) {}

  Model& acked() { return acked_; }
  Model& promised() { return promised_; }

  // One put, delete or 2-3 key batch; returns its status.
  Status OneWrite(DB* db) {
    WriteOptions wo;
    wo.sync = rnd_.OneIn(8);
    const uint64_t index = acked_.NextIndex();
    promised_.NextIndex();
    const int kind = rnd_.Uniform(10);
    const int n = kind == 0 ? 2 + rnd_.Uniform(2) : 1;
    WriteBatch batch;
    std::vector<std::pair<std::string, std::string>> writes;  // "" deletes
    for (int j = 0; j < n; j++) {
      std::string key = KeyName(rnd_.Uniform(kKeySpace));
      bool dup = false;
      for (const auto& w : writes) dup |= w.first == key;
      if (dup) continue;
      std::string value;
      if (kind >= 8 || (n > 1 && rnd_.OneIn(3))) {
        batch.Delete(key);
      } else {
        // Every third value above the inline threshold: KV files and
        // inline values both meet the fault.
        value = "v" + std::to_string(index) + ":" +
                std::string((index % 3 == 0 ? 2200 : 80) + rnd_.Uniform(200),
                            'a' + index % 26);
        batch.Put(key, value);
      }
      writes.emplace_back(std::move(key), std::move(value));
    }
    const Status s = db->Write(wo, &batch);
    acked_.AddBatch(index, writes, s.ok(), !s.ok());
    promised_.AddBatch(index, writes, s.ok() && wo.sync, !s.ok());
    return s;
  }

  // A flush that succeeded made everything before it durable (but in
  // kDeferred).
  void FlushSucceeded() {
    acked_.PromiseAll();
    if (mode_ != Durability::kDeferred) promised_.PromiseAll();
  }

  Random* rnd() { return &rnd_; }

 private:
  const Durability mode_;
  Random rnd_;
  Model acked_, promised_;
};

// Reads every key by Get and by a scan on `db`; returns "" or what is wrong
// against `model`.
std::string CheckReads(DB* db, const Model& model) {
  std::map<std::string, std::string> found;
  Status s = delsm_test::ReadAll(db, &found);
  if (!s.ok()) return "scan: " + s.ToString();
  for (const std::string& key : AllKeys()) {
    std::string v;
    s = db->Get(ReadOptions(), key, &v);
    auto it = found.find(key);
    if (it == found.end() ? !s.IsNotFound() : (!s.ok() || v != it->second)) {
      return "Get " + key + " (" + s.ToString() + ") disagrees with the scan";
    }
  }
  return model.Check(found);
}

bool NamesCause(const Status& s, int err) {
  return s.IsIOError() &&
         s.ToString().find(std::strerror(err)) != std::string::npos;
}

class ResourceFailureTest : public testing::TestWithParam<Case> {
 protected:
  static uint64_t seed_;
  static void SetUpTestSuite() {
    seed_ = delsm_test::RandomSeed("resource_failure_test");
  }

  void Run() {
    const Case c = GetParam();
    const std::string name = CaseName(c);
    // Each case its own stream, the same for the same seed.
    uint64_t case_seed = seed_;
    for (char ch : name) case_seed = case_seed * 131 + ch;
    SCOPED_TRACE(name + " (seed " + std::to_string(seed_) + ")");

    TempDir tmp("delsm_resfail");
    ASSERT_FALSE(tmp.path().empty());
    const std::string dbname = tmp.path() + "/db";
    ASSERT_EQ(0, mkdir(dbname.c_str(), 0755));
    Workload w(c.mode, case_seed & 0xffffffffu);
    {
      FaultStack stack(tmp.path());
      FaultPlanCore* plan = Plan(&stack, c);
      DB* db = nullptr;
      Status s = stack.Open(DbOptions(), DbTuning(c.mode), dbname, &db);
      ASSERT_TRUE(s.ok()) << s.ToString();
      std::unique_ptr<DB> holder(db);
      DBImpl* impl = static_cast<DBImpl*>(db);
      for (int i = 0; i < kCleanOps; i++) {
        s = w.OneWrite(db);
        ASSERT_TRUE(s.ok()) << "before the fault: " << s.ToString();
      }
      const uint64_t nth = PickNth(c, w.rnd());
      const bool partial = c.err == ENOSPC && w.rnd()->OneIn(2);
      ArmFault(&stack, c, nth, partial);
      std::printf("%s: fault from matching call #%llu%s\n", name.c_str(),
                  static_cast<unsigned long long>(nth),
                  partial ? ", failing writes leave half their data" : "");

      // Writes until a caller sees the failure; flushes and manual
      // compactions now and then, as a user's would.
      Status seen;
      for (int i = 0; i < kFaultyOps && seen.ok(); i++) {
        const bool fired_before = plan->Fired();
        s = w.OneWrite(db);
        if (!s.ok()) {
          seen = s;
          break;
        }
        if (c.target == Target::kWal && fired_before) {
          FAIL() << "write acknowledged after the WAL failed ("
                 << plan->FirstFailure() << ")";
        }
        const int r = w.rnd()->Uniform(100);
        if (r < 2) {
          s = impl->TEST_FlushMemTable();
          if (s.ok()) w.FlushSucceeded();
          seen = s;
        } else if (r < 3) {
          seen = impl->TEST_CompactRange(0, nullptr, nullptr);
          if (seen.ok()) seen = impl->TEST_CompactRange(1, nullptr, nullptr);
        }
      }
      if (seen.ok()) {
        // The workload outran the fault's calls: force the work that meets
        // it.
        seen = impl->TEST_FlushMemTable();
        if (seen.ok()) seen = impl->TEST_CompactRange(0, nullptr, nullptr);
        if (seen.ok()) seen = impl->TEST_WaitForBackgroundWork();
      }
      ASSERT_TRUE(plan->Fired()) << "the fault never fired";
      ASSERT_FALSE(seen.ok()) << "no caller saw " << plan->FirstFailure();
      EXPECT_TRUE(NamesCause(seen, c.err))
          << "the error does not name the cause: " << seen.ToString();
      std::printf("%s: injected %s; caller got %s\n", name.c_str(),
                  plan->FirstFailure().c_str(), seen.ToString().c_str());

      // The engine stopped: every later write fails, with the cause.
      for (int i = 0; i < 5; i++) {
        s = w.OneWrite(db);
        EXPECT_FALSE(s.ok()) << "write acknowledged after the failure";
        if (!s.ok()) {
          EXPECT_TRUE(NamesCause(s, c.err)) << s.ToString();
        }
      }
      s = impl->TEST_FlushMemTable();
      EXPECT_FALSE(s.ok()) << "flush succeeded under a persistent fault";
      // A compaction needs the SST directories and the manifest, not the
      // WAL: with only the WAL failing it may still succeed (as LevelDB's).
      s = impl->TEST_CompactRange(0, nullptr, nullptr);
      if (c.target != Target::kWal) {
        EXPECT_FALSE(s.ok()) << "manual compaction succeeded after the failure";
      }
      if (!s.ok()) {
        EXPECT_TRUE(NamesCause(s, c.err)) << "compaction: " << s.ToString();
      }
      db->CompactRange(nullptr, nullptr);  // returns (LevelDB: void)

      // Reads still see every acknowledged write.
      std::string e = CheckReads(db, w.acked());
      EXPECT_EQ("", e) << "reads while the fault persists";
      holder.reset();  // Close under the fault

      // Open while the fault persists: fails naming the cause, or keeps
      // everything (and what it acknowledges is then kept too).
      db = nullptr;
      s = stack.Open(DbOptions(), DbTuning(c.mode), dbname, &db);
      std::printf("%s: open under the fault: %s\n", name.c_str(),
                  s.ToString().c_str());
      if (s.ok()) {
        holder.reset(db);
        e = CheckReads(db, w.acked());
        EXPECT_EQ("", e) << "reads after an open under the fault";
        for (int i = 0; i < 3; i++) w.OneWrite(db);
        impl = static_cast<DBImpl*>(db);
        s = impl->TEST_FlushMemTable();
        if (s.ok()) w.FlushSucceeded();
        holder.reset();
      } else {
        EXPECT_TRUE(NamesCause(s, c.err))
            << "open under the fault: " << s.ToString();
      }
      if (HasFailure()) return;

      // The fault cleared and the process restarted: a copy of the disk.
      plan->Disarm();
      const std::string copy = tmp.path() + "/copy";
      e = delsm_test::CopyTree(dbname, copy);
      ASSERT_EQ("", e);
      std::map<std::string, std::string> contents;
      e = delsm_test::VerifyDb(DbOptions(), DbTuning(c.mode), copy, w.acked(),
                               AllKeys(), &contents);
      ASSERT_EQ("", e) << "after a restart";
      // ... and it accepts writes again.
      {
        Model again;
        again.Rebase(contents);
        DB* db2 = nullptr;
        s = delsm::Open(DbOptions(), DbTuning(c.mode), copy, &db2);
        ASSERT_TRUE(s.ok()) << s.ToString();
        std::unique_ptr<DB> h2(db2);
        for (int i = 0; i < 50; i++) {
          const uint64_t index = again.NextIndex();
          const std::string key = i == 49 ? "again" : KeyName(i);
          const std::string value =
              "again" + std::to_string(i) + std::string(i % 2 ? 2500 : 10, 'z');
          s = db2->Put(WriteOptions(), key, value);
          ASSERT_TRUE(s.ok()) << "write after recovery: " << s.ToString();
          again.Add(key, index, false, value, true);
        }
        s = static_cast<DBImpl*>(db2)->TEST_FlushMemTable();
        ASSERT_TRUE(s.ok()) << "flush after recovery: " << s.ToString();
        h2.reset();
        e = delsm_test::VerifyDb(DbOptions(), DbTuning(c.mode), copy, again,
                                 AllKeys());
        ASSERT_EQ("", e) << "writes after recovery";
      }

      // A power failure instead of a restart.
      s = stack.PowerLoss();
      ASSERT_TRUE(s.ok()) << "power-loss model: " << s.ToString();
    }
    std::string e = delsm_test::VerifyDb(DbOptions(), DbTuning(c.mode), dbname,
                                         w.promised(), AllKeys());
    ASSERT_EQ("", e) << "after a power failure";
  }
};

uint64_t ResourceFailureTest::seed_ = 0;

TEST_P(ResourceFailureTest, FailureReportedNothingAcknowledgedLost) { Run(); }

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (Durability mode :
       {Durability::kSyncfs, Durability::kFsync, Durability::kDeferred}) {
    for (Target t : {Target::kWal, Target::kManifest, Target::kSst,
                     Target::kSstKv, Target::kSstMeta, Target::kSstLinks}) {
      for (int err : {ENOSPC, EROFS, EACCES}) cases.push_back({mode, t, err});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(All, ResourceFailureTest,
                         testing::ValuesIn(AllCases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return CaseName(info.param);
                         });

}  // namespace
}  // namespace leveldb
