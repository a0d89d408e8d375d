// Durability sweep: one call fails, then both a reopen and a power failure
// must keep every write the database promised.
//
// A deterministic workload (overwrites and deletes over a small key space,
// some sync=true writes, explicit flushes, a full CompactRange, a close with
// a WAL to replay and a reopen) runs on the fault stack
// (tests/durability_harness.h) with one fault armed: a kind of call, which
// call of that kind (by default its first and last call in a clean run;
// DELSM_SWEEP_POINTS=n spreads n points, "all" runs every call), and what
// the failing call still does (nothing; a short write; data written but
// fsync failed; the file closed anyway). For every point:
//  * the fault fires (the workload is deterministic up to the fault, but
//    for how many removal passes the background threads run: a point is
//    tried up to three times);
//  * unless the call only cleans up (unlink, rmdir, readdir, remove), the
//    error reaches the caller: a write, flush, open or
//    TEST_WaitForBackgroundWork returns it;
//  * after a failed WAL append, sync or close, that write and every later
//    one fail (LevelDB's WriteSyncError and LogCloseError);
//  * a copy of the disk as the faulty run left it reopens with every
//    acknowledged write (a process restart loses nothing acknowledged);
//  * the disk itself is then put into the state a power failure would have
//    left (nothing unsynced survives) and reopens with every write the
//    durability mode promised: sync=true writes; in kSyncfs and kFsync also
//    everything acknowledged before a flush or an open that succeeded.
// Every durability mode is swept, the Env side (WAL, manifest, CURRENT) and
// the SST-directory side separately.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
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

constexpr int kKeySpace = 80;
constexpr int kOpsPerPhase = 120;
constexpr int kFlushEvery = 40;
// Points per fault in the default run: the first and the last matching
// call. DELSM_SWEEP_POINTS=n spreads n points over the calls; "all" runs
// every call (minutes per mode).
constexpr int kDefaultPointsPerFault = 2;

// The call numbers to fail among `calls` matching calls.
std::set<uint64_t> PointsToRun(uint64_t calls) {
  std::set<uint64_t> nths;
  const char* env = std::getenv("DELSM_SWEEP_POINTS");
  uint64_t n = kDefaultPointsPerFault;
  if (env != nullptr && std::string(env) == "all") {
    n = calls;
  } else if (env != nullptr && *env != '\0') {
    n = std::max<uint64_t>(1, std::strtoull(env, nullptr, 10));
  }
  if (n >= calls) n = calls;
  for (uint64_t p = 0; p < n; p++) {
    nths.insert(n == 1 ? 1 : 1 + (calls - 1) * p / (n - 1));
  }
  return nths;
}

std::string KeyName(int k) { return delsm_test::NumberedKey(k, 4); }

std::vector<std::string> AllKeys() {
  return delsm_test::NumberedKeys(kKeySpace, 4);
}

// Only the workload's explicit flushes switch memtables, so every run
// makes the same calls in the same order up to its fault.
Options DbOptions() { return delsm_test::NewDbOptions(8 << 20); }

delsm::Tuning DbTuning(Durability mode) {
  delsm::Tuning t = delsm_test::SmallLevels(100, 24, 100);
  t.durability = mode;
  return t;
}

// One fault to sweep: on which side, which kind of call (an EnvOp or FsOp),
// what the failing call still does, and which paths it is limited to.
struct Fault {
  const char* name;
  bool env_side;
  int op;
  FaultEffect effect;
  const char* path_contains;
  bool cleanup_only;  // failing it may legitimately go unreported
  bool wal_write;     // a WAL write: it and all later writes must fail
};

FaultSpec SpecFor(const Fault& f, uint64_t nth) {
  FaultSpec spec;
  spec.nth = nth;
  spec.err = EIO;
  spec.effect = f.effect;
  spec.path_contains = f.path_contains;
  return spec;
}

void Arm(FaultStack* stack, const Fault& f, uint64_t nth) {
  if (f.env_side) {
    stack->env.Arm(static_cast<EnvOp>(f.op), SpecFor(f, nth));
  } else {
    stack->fault_fs.Arm(static_cast<FsOp>(f.op), SpecFor(f, nth));
  }
}

uint64_t Matches(const FaultStack& stack, const Fault& f) {
  return f.env_side ? stack.env.Matches() : stack.fault_fs.Matches();
}
uint64_t Failures(const FaultStack& stack, const Fault& f) {
  return f.env_side ? stack.env.Failures() : stack.fault_fs.Failures();
}
std::string FirstFailure(const FaultStack& stack, const Fault& f) {
  return f.env_side ? stack.env.FirstFailure() : stack.fault_fs.FirstFailure();
}

#define ENV_FAULT(name, op, effect, path, cleanup, wal)                 \
  Fault {                                                               \
    name, true, static_cast<int>(EnvOp::op), FaultEffect::effect, path, \
        cleanup, wal                                                    \
  }
#define FS_FAULT(name, op, effect, cleanup)                                    \
  Fault {                                                                      \
    name, false, static_cast<int>(FsOp::op), FaultEffect::effect, "", cleanup, \
        false                                                                  \
  }

const std::vector<Fault>& EnvFaults() {
  static const std::vector<Fault> faults = {
      ENV_FAULT("wal append EIO", kAppend, kNothing, ".log", false, true),
      ENV_FAULT("wal append short write", kAppend, kPartial, ".log", false,
                true),
      ENV_FAULT("wal sync EIO", kSync, kNothing, ".log", false, true),
      ENV_FAULT("wal written, sync failed", kSync, kDone, ".log", false, true),
      ENV_FAULT("wal close EIO", kClose, kNothing, ".log", false, true),
      ENV_FAULT("wal closed, close failed", kClose, kDone, ".log", false, true),
      ENV_FAULT("manifest append short write", kAppend, kPartial, "MANIFEST",
                false, false),
      ENV_FAULT("manifest written, sync failed", kSync, kDone, "MANIFEST",
                false, false),
      // Every manifest record is synced before it is acted on: a failed
      // close (at shutdown or after a manifest switch) risks nothing.
      ENV_FAULT("manifest close EIO", kClose, kNothing, "MANIFEST", true,
                false),
      ENV_FAULT("open EIO", kOpen, kNothing, "", false, false),
      ENV_FAULT("flush EIO", kFlush, kNothing, "", false, false),
      ENV_FAULT("any sync, written but failed", kSync, kDone, "", false, false),
      ENV_FAULT("CURRENT rename EIO", kRename, kNothing, "dbtmp", false, false),
      // Renaming the info log LOG to LOG.old may fail unreported.
      ENV_FAULT("any rename EIO", kRename, kNothing, "", true, false),
      ENV_FAULT("remove EIO", kRemove, kNothing, "", true, false),
  };
  return faults;
}

const std::vector<Fault>& FsFaults() {
  static const std::vector<Fault> faults = {
      // Opens also serve removal and the open's sweep, which leave what
      // they cannot open for the next attempt: unreported by design.
      FS_FAULT("open EIO", kOpen, kNothing, true),
      FS_FAULT("write EIO", kWrite, kNothing, false),
      FS_FAULT("short write", kWrite, kPartial, false),
      FS_FAULT("written, write reported EIO", kWrite, kDone, false),
      FS_FAULT("fsync EIO", kFsync, kNothing, false),
      FS_FAULT("written, fsync failed", kFsync, kDone, false),
      FS_FAULT("syncfs EIO", kSyncfs, kNothing, false),
      FS_FAULT("link EIO", kLink, kNothing, false),
      FS_FAULT("unlink EIO", kUnlink, kNothing, true),
      FS_FAULT("rename EIO", kRename, kNothing, false),
      FS_FAULT("mkdir EIO", kMkdir, kNothing, false),
      FS_FAULT("rmdir EIO", kRmdir, kNothing, true),
      FS_FAULT("readdir EIO", kReaddir, kNothing, true),
  };
  return faults;
}

// What a run of the workload reported.
struct RunResult {
  std::string first_error;      // the first non-OK status a caller got
  bool write_failed = false;    // a write returned an error
  bool later_write_ok = false;  // ... and a later write succeeded
  // The fault fired inside an Open that succeeded.
  bool fired_in_good_open = false;
  // Every failure of the fault came from closing the DB. Close (the DB's
  // destructor) reports nothing, as LevelDB's; what it fails to do (the
  // syncfs and the clean-close marker) leaves the next Open to sweep, and
  // the recovered disk is still checked after a restart and a power loss.
  bool fired_only_in_close = false;
};

// The workload. `acked` gets every acknowledged write as promised (a
// restart keeps them all); `promised` only what survives a power failure
// in `mode`. Stops at the first error a caller sees, after trying two more
// writes.
class Workload {
 public:
  Workload(Durability mode, Model* acked, Model* promised)
      : mode_(mode), acked_(acked), promised_(promised), rnd_(1234) {}

  // `failures` tells how many calls the armed fault has failed so far.
  RunResult Run(FaultStack* stack, const std::string& dbname,
                const std::function<uint64_t()>& failures) {
    RunResult r;
    uint64_t in_close = 0;  // failures while closing
    for (int phase = 0; phase < 3 && r.first_error.empty(); phase++) {
      DB* db = nullptr;
      const uint64_t failures_before = failures();
      Status s = stack->Open(DbOptions(), DbTuning(mode_), dbname, &db);
      if (!Note(s, "open", &r)) break;
      if (failures() > failures_before) r.fired_in_good_open = true;
      // Recovery flushed what the WAL held (and synced it, outside
      // kDeferred).
      if (phase > 0) PromiseAll();
      std::unique_ptr<DB> holder(db);
      // What the open started finishes before the writes, so that the
      // flushes below never race with it and every run makes the same calls.
      if (!Note(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork(),
                "background after open", &r)) {
        break;
      }
      Phase(db, phase, &r);
      const uint64_t before_close = failures();
      holder.reset();
      in_close += failures() - before_close;
    }
    r.fired_only_in_close = in_close > 0 && in_close == failures();
    return r;
  }

 private:
  void PromiseAll() {
    acked_->PromiseAll();
    if (mode_ != Durability::kDeferred) promised_->PromiseAll();
  }

  bool Note(const Status& s, const char* what, RunResult* r) {
    if (s.ok()) return true;
    if (r->first_error.empty()) {
      r->first_error = std::string(what) + ": " + s.ToString();
    }
    return false;
  }

  // One write (a put, a delete or a two-key batch); false if it failed.
  bool OneWrite(DB* db, bool sync) {
    WriteOptions wo;
    wo.sync = sync;
    const uint64_t index = acked_->NextIndex();
    promised_->NextIndex();
    const int kind = rnd_.Uniform(10);
    WriteBatch batch;
    std::vector<std::pair<std::string, std::string>> writes;  // "" deletes
    const int n = kind == 0 ? 2 : 1;
    for (int j = 0; j < n; j++) {
      std::string key = KeyName(rnd_.Uniform(kKeySpace));
      if (j == 1 && key == writes[0].first) break;
      std::string value;
      if (kind >= 8) {
        batch.Delete(key);
      } else {
        // Every fourth value above the default inline_threshold (2048):
        // KV files and inline values both meet the faults.
        value = "v" + std::to_string(index) + ":" +
                std::string((index % 4 == 0 ? 2100 : 100) + rnd_.Uniform(300),
                            'a' + index % 26);
        batch.Put(key, value);
      }
      writes.emplace_back(std::move(key), std::move(value));
    }
    const Status s = db->Write(wo, &batch);
    acked_->AddBatch(index, writes, s.ok(), !s.ok());
    promised_->AddBatch(index, writes, s.ok() && sync, !s.ok());
    return s.ok();
  }

  void Phase(DB* db, int phase, RunResult* r) {
    DBImpl* impl = static_cast<DBImpl*>(db);
    const int ops = phase == 1 ? kFlushEvery / 2 : kOpsPerPhase;
    for (int i = 1; i <= ops; i++) {
      const bool sync = rnd_.OneIn(6);
      if (!OneWrite(db, sync)) {
        Note(Status::IOError("a write failed"), "write", r);
        r->write_failed = true;
        // Two more writes: after a failed WAL write they must fail too.
        for (int j = 0; j < 2; j++) r->later_write_ok |= OneWrite(db, false);
        return;
      }
      if (phase != 1 && i % kFlushEvery == 0) {
        if (!Note(impl->TEST_FlushMemTable(), "flush", r)) return;
        PromiseAll();
        if (!Note(impl->TEST_WaitForBackgroundWork(), "background", r)) {
          return;
        }
      }
    }
    if (phase == 0) {
      db->CompactRange(nullptr, nullptr);
      if (!Note(impl->TEST_WaitForBackgroundWork(), "compact range", r)) {
        return;
      }
      // CompactRange returns nothing (LevelDB's API): a caller sees that it
      // failed (e.g. its memtable switch could not create a WAL) only by
      // what it left in L0.
      std::string l0;
      if (!db->GetProperty("leveldb.num-files-at-level0", &l0) || l0 != "0") {
        Note(Status::IOError("CompactRange left L0 SSTs: " + l0), "compact", r);
        return;
      }
    }
    // Close with nothing running, so that every run makes the same calls.
    Note(impl->TEST_WaitForBackgroundWork(), "background", r);
    // Phase 1 closes with its writes in the WAL only: phase 2's open
    // replays them.
  }

  const Durability mode_;
  Model* const acked_;
  Model* const promised_;
  Random rnd_;
};

// RunPoint's result for a point the run made too few matching calls to reach.
constexpr char kNotReached[] = "not reached";

class DurabilitySweepTest : public testing::TestWithParam<Durability> {
 protected:
  // Runs one fault point; returns "" or what went wrong. `nth` == max:
  // the clean run, which reports the number of matching calls in *calls.
  // `verify` false: a clean run that only counts calls skips the checks of
  // the recovered disk (the first clean run of a sweep makes them).
  std::string RunPoint(const Fault& f, uint64_t nth, uint64_t* calls,
                       bool verify = true) {
    std::string injected;
    std::string e = RunPointInner(f, nth, calls, verify, &injected);
    if (!e.empty() && !injected.empty()) e += " [injected: " + injected + "]";
    return e;
  }

  std::string RunPointInner(const Fault& f, uint64_t nth, uint64_t* calls,
                            bool verify, std::string* injected) {
    const Durability mode = GetParam();
    TempDir tmp("delsm_dsweep");
    if (tmp.path().empty()) return "mkdtemp failed";
    const std::string dbname = tmp.path() + "/db";
    if (mkdir(dbname.c_str(), 0755) != 0) return "mkdir failed";
    Model acked, promised;
    RunResult r;
    {
      FaultStack stack(tmp.path());
      Arm(&stack, f, nth);
      Workload workload(mode, &acked, &promised);
      r = workload.Run(&stack, dbname,
                       [&stack, &f] { return Failures(stack, f); });
      if (calls != nullptr) *calls = Matches(stack, f);
      *injected = FirstFailure(stack, f);
      if (!r.first_error.empty()) *injected += "; caller got " + r.first_error;
      const bool clean = nth == std::numeric_limits<uint64_t>::max();
      if (clean && !r.first_error.empty()) {
        return "clean run failed: " + r.first_error;
      }
      if (!clean && Failures(stack, f) == 0) {
        // This run made fewer such calls than the clean run counted (how
        // many varies with how the background threads interleave: removal
        // passes, durability rounds): the point is not reached, which is
        // not the harness missing a call it was armed for.
        if (Matches(stack, f) < nth) return kNotReached;
        return "the fault never fired";
      }
      // Recovery that cannot flush a replayed WAL for an I/O error on the
      // SST side keeps it as a memtable with its WAL, opens, and retries
      // the flush later (inode exhaustion): not an error for the caller.
      const bool absorbed = !f.env_side && r.fired_in_good_open;
      if (!clean && !f.cleanup_only && !absorbed && !r.fired_only_in_close &&
          r.first_error.empty()) {
        return "the fault was not reported to any caller";
      }
      if (f.wal_write && r.write_failed && r.later_write_ok) {
        return "a write after a failed WAL write succeeded";
      }
      if (!verify) return "";
      // A process restart: a copy of the disk as the run left it.
      const std::string copy = tmp.path() + "/copy";
      std::string e = delsm_test::CopyTree(dbname, copy);
      if (!e.empty()) return e;
      e = delsm_test::VerifyDb(DbOptions(), DbTuning(mode), copy, acked,
                               AllKeys());
      if (!e.empty()) return "after a restart: " + e;
      // A power failure instead.
      Status s = stack.PowerLoss();
      if (!s.ok()) return "power-loss model: " + s.ToString();
    }
    std::string e = delsm_test::VerifyDb(DbOptions(), DbTuning(mode), dbname,
                                         promised, AllKeys());
    if (!e.empty()) return "after a power failure: " + e;
    return "";
  }

  void Sweep(const std::vector<Fault>& faults, const char* side) {
    int points = 0, reported = 0, not_reached = 0;
    std::string summary;
    // Matching calls of a clean run, per kind of call and path filter
    // (faults that differ only in their effect share one).
    std::map<std::pair<int, std::string>, uint64_t> clean_calls;
    for (const Fault& f : faults) {
      const auto clean_key = std::make_pair(f.op, std::string(f.path_contains));
      auto counted = clean_calls.find(clean_key);
      if (counted == clean_calls.end()) {
        uint64_t calls = 0;
        std::string e = RunPoint(f, std::numeric_limits<uint64_t>::max(),
                                 &calls, clean_calls.empty());
        ASSERT_EQ("", e) << side << " " << f.name << ": clean run";
        counted = clean_calls.emplace(clean_key, calls).first;
      }
      const uint64_t calls = counted->second;
      summary +=
          std::string(" [") + f.name + ": " + std::to_string(calls) + " calls]";
      if (calls == 0) continue;
      const std::set<uint64_t> nths = PointsToRun(calls);
      const char* only = std::getenv("DELSM_SWEEP_POINT");
      for (uint64_t n : nths) {
        const std::string id = std::string(ModeName(GetParam())) + "/" + side +
                               "/" + f.name + "/" + std::to_string(n);
        if (only != nullptr && id != only) continue;
        std::string e = RunPoint(f, n, nullptr);
        // Each dead file is removed by one call, whichever removal passes
        // overlap, but how many passes run (each lists the level
        // directories) can depend on how the background threads
        // interleave: a durability round that ends while a flush commits
        // leaves one pass where there are otherwise two. A point a run did
        // not reach is run again; one reached in none of three runs is
        // counted, not failed. A run that reaches a point must fire it.
        for (int retry = 0; retry < 2 && e == kNotReached; retry++) {
          e = RunPoint(f, n, nullptr);
        }
        if (e == kNotReached) {  // in none of three runs
          not_reached++;
          continue;
        }
        EXPECT_EQ("", e) << id << " (call #" << n << " of " << calls
                         << "; rerun alone with DELSM_SWEEP_POINT='" << id
                         << "')";
        points++;
        if (e.empty()) reported++;
      }
    }
    std::printf(
        "durability sweep (%s, %s): %d fault points, %d passed, %d not "
        "reached in three runs;%s\n",
        ModeName(GetParam()), side, points, reported, not_reached,
        summary.c_str());
    // Only the last few points of a kind may go unreached.
    EXPECT_LE(not_reached, points / 4 + 1);
  }
};

TEST_P(DurabilitySweepTest, EnvFaults) { Sweep(EnvFaults(), "env"); }
TEST_P(DurabilitySweepTest, FileSystemFaults) { Sweep(FsFaults(), "fs"); }

INSTANTIATE_TEST_SUITE_P(Modes, DurabilitySweepTest,
                         testing::Values(Durability::kSyncfs,
                                         Durability::kFsync,
                                         Durability::kDeferred),
                         [](const testing::TestParamInfo<Durability>& info) {
                           return std::string(ModeName(info.param));
                         });

}  // namespace
}  // namespace leveldb
