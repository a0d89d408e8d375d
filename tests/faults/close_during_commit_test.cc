// A compaction whose manifest write fails while the DB is closing. The
// failed sync leaves the record in the manifest (the data reached the
// file; only its durability is unknown), so the next Open may find the
// compaction committed: its outputs must still be there. The close must
// treat the failure as any other failed manifest write (the edit may or
// may not have committed) and delete nothing that edit names, however
// the error reached it.
//
// The test holds the compaction's failing manifest sync until the close
// has begun (the flush thread has ended, which it does only once the close
// has told the background threads to stop), then lets it fail.
//
// The same in a child process killed with SIGKILL (at the held sync, or
// once the close has returned), with acknowledged puts and deletes that
// only the WAL holds. The failed sync is the background error before
// ApplyEdit returns, so the close removes nothing and writes no clean-close
// marker; the record the kill leaves in the manifest makes the compaction
// committed at the reopen, which must find its outputs and replay the WAL
// over them: every acknowledged write reads back, no deleted key returns,
// nothing is left over (the orphan check, `delsm verify`).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_env.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

#ifndef DELSM_TOOL
#error "DELSM_TOOL (path of the delsm binary) must be defined"
#endif

namespace leveldb {
namespace {

using delsm_test::TempDir;

constexpr int kKeysPerFlush = 200;
constexpr auto kPatience = std::chrono::seconds(60);

std::string Value(int i, int round) {
  return std::string(100 + i % 50, static_cast<char>('a' + (i + round) % 26));
}

// A FaultInjectionEnv that also tells when a thread it started has ended.
// The count lives in a state each started thread shares: a DB's Close
// returns once its threads have signalled it, which can be before they
// return, so a thread may still be counting itself as the Env goes.
class ThreadEndEnv : public FaultInjectionEnv {
 public:
  using FaultInjectionEnv::FaultInjectionEnv;

  void StartThread(void (*function)(void* arg), void* arg) override {
    auto* run = new Run{ends_, function, arg};
    target()->StartThread(&ThreadEndEnv::Trampoline, run);
  }

  // Waits until some thread it started has ended; false after kPatience.
  bool WaitForAThreadToEnd() {
    std::unique_lock<std::mutex> l(ends_->mu);
    return ends_->cv.wait_for(l, kPatience,
                              [this] { return ends_->ended > 0; });
  }

 private:
  struct Ends {
    std::mutex mu;
    std::condition_variable cv;
    int ended = 0;  // guarded by mu
  };
  struct Run {
    std::shared_ptr<Ends> ends;
    void (*function)(void*);
    void* arg;
  };

  static void Trampoline(void* p) {
    std::unique_ptr<Run> run(static_cast<Run*>(p));
    run->function(run->arg);
    std::lock_guard<std::mutex> l(run->ends->mu);
    run->ends->ended++;
    run->ends->cv.notify_all();
  }

  const std::shared_ptr<Ends> ends_ = std::make_shared<Ends>();
};

// The compaction's manifest sync, failed with EIO once the DB's Close has
// stopped a background thread: Arm() makes the nth manifest sync wait,
// before it fails, until a thread the Env started has ended (the flush
// thread, which Close stops first); WaitUntilReached() waits until a sync
// got there. `then` runs in the syncing thread after that wait.
class HeldManifestSync {
 public:
  void Arm(ThreadEndEnv* env, int nth, std::function<void()> then = {}) {
    FaultSpec spec;
    spec.nth = nth;
    spec.err = EIO;
    spec.path_contains = "MANIFEST";
    spec.before_failing = [this, env, then] {
      {
        std::lock_guard<std::mutex> l(mu_);
        reached_ = true;
      }
      cv_.notify_all();
      close_seen_ = env->WaitForAThreadToEnd();
      if (then) then();
    };
    env->Arm(EnvOp::kSync, spec);
  }
  // False if no sync reached the fault within kPatience.
  bool WaitUntilReached() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, kPatience, [this] { return reached_; });
  }
  // True once the held sync saw the close stop a thread.
  bool close_seen() const { return close_seen_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool reached_ = false;  // guarded by mu_
  std::atomic<bool> close_seen_{false};
};

// One flush thread, no durability thread, and L0 compacted at two
// directories. In kFsync each flush's record is synced as it commits, so
// the manifest syncs after the first flush are the second flush's and then
// the compaction's; in kDeferred a flush's record is not synced, so the
// first is the compaction's.
delsm::Tuning CommitTuning(
    delsm::Durability durability = delsm::Durability::kFsync) {
  delsm::Tuning t = delsm_test::SmallLevels(1 << 20, 64, 1 << 20);
  t.durability = durability;
  t.flush_threads = 1;
  return t;
}

// The compaction's manifest sync counted from the second flush on.
uint64_t CompactionSyncAfterSecondFlush(delsm::Durability durability) {
  return durability == delsm::Durability::kFsync ? 2 : 1;
}

void WriteRound(DB* db, int round) {
  for (int i = 0; i < kKeysPerFlush; i++) {
    ASSERT_TRUE(
        db->Put(WriteOptions(), delsm_test::Key(i), Value(i, round)).ok());
  }
}

TEST(CloseDuringCommitTest, CompactionCommitFailingAsTheDbClosesKeepsOutputs) {
  TempDir tmp("delsm_close_commit");
  const std::string dbname = tmp.path() + "/db";
  ThreadEndEnv env(Env::Default(), tmp.path() + "/shadow");
  Options options = delsm_test::NewDbOptions(4 << 20);
  options.env = &env;

  DB* db = nullptr;
  ASSERT_TRUE(delsm::Open(options, CommitTuning(), dbname, &db).ok());
  DBImpl* impl = static_cast<DBImpl*>(db);
  WriteRound(db, 0);
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  ASSERT_TRUE(impl->TEST_WaitForBackgroundWork().ok());

  // The second MANIFEST sync from here is the compaction's (the first is
  // the second flush's). It waits for the close, then fails, leaving its
  // record in the file.
  HeldManifestSync sync;
  sync.Arm(&env, 2);

  WriteRound(db, 1);
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  const bool held = sync.WaitUntilReached();
  delete db;  // while the compaction's manifest sync is held
  ASSERT_TRUE(held) << "no compaction's manifest sync after the second flush";
  ASSERT_TRUE(sync.close_seen()) << "the close did not stop the flush thread";
  ASSERT_TRUE(env.Fired());

  // On the healthy Env: whatever the manifest says, it is all there.
  options.env = Env::Default();
  Status s = delsm::Open(options, CommitTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> holder(db);
  // The failed sync was the compaction's, and its record is in the manifest
  // the reopen read: L0's two SSTs are gone, the outputs are in L1.
  std::string l0, l1;
  ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level0", &l0));
  ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level1", &l1));
  EXPECT_EQ("0", l0);
  EXPECT_NE("0", l1);
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
  for (int i = 0; i < kKeysPerFlush; i++) {
    std::string value;
    s = db->Get(ReadOptions(), delsm_test::Key(i), &value);
    ASSERT_TRUE(s.ok()) << delsm_test::Key(i) << ": " << s.ToString();
    EXPECT_EQ(Value(i, 1), value) << delsm_test::Key(i);
  }
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname));
}

// ---------------------------------------------------------------------------
// The same, then kill -9.

// The kill's workload, round by round: round 0 puts every key; round 1
// deletes every 5th and puts the rest (the compaction of the two rounds'
// flushes drops those keys' values and tombstones); round 2, written while
// the compaction's sync is held and never flushed, puts every 3rd key and
// deletes those i % 7 == 1. Value(i, round) for a put, "" for a delete.
std::string KillWrite(int i, int round) {
  if (round == 1 && i % 5 == 0) return "";
  if (round == 2) {
    if (i % 7 == 1) return "";
    if (i % 3 != 0) return "-";  // not written
  }
  return Value(i, round);
}

// What the database holds after the three rounds: every write was
// acknowledged, and a process crash loses none in either mode.
std::map<std::string, std::string> KillModel() {
  std::map<std::string, std::string> model;
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < kKeysPerFlush; i++) {
      const std::string w = KillWrite(i, round);
      if (w == "-") continue;
      if (w.empty()) {
        model.erase(delsm_test::Key(i));
      } else {
        model[delsm_test::Key(i)] = w;
      }
    }
  }
  return model;
}

// Writes round `round`; false if a write fails.
bool WriteKillRound(DB* db, int round) {
  for (int i = 0; i < kKeysPerFlush; i++) {
    const std::string w = KillWrite(i, round);
    if (w == "-") continue;
    const Status s = w.empty() ? db->Delete(WriteOptions(), delsm_test::Key(i))
                               : db->Put(WriteOptions(), delsm_test::Key(i), w);
    if (!s.ok()) return false;
  }
  return true;
}

// Runs only as the child of CloseDuringCommitKillTest. Rounds 0 and 1 are
// flushed, so L0's two directories are compacted; that compaction's
// manifest sync is held until the close has begun, round 2 written
// meanwhile. With CLOSE_COMMIT_KILL=at-sync the process is killed there,
// before the sync fails; otherwise the sync fails, the close returns and
// the process is killed. Before the kill the child writes what it found
// wrong ("" if nothing) to CLOSE_COMMIT_REPORT.
TEST(CloseDuringCommitKill, Child) {
  const char* dbname = std::getenv("CLOSE_COMMIT_DB");
  const char* shadow = std::getenv("CLOSE_COMMIT_SHADOW");
  const char* report = std::getenv("CLOSE_COMMIT_REPORT");
  const char* mode = std::getenv("CLOSE_COMMIT_DURABILITY");
  const char* kill_at = std::getenv("CLOSE_COMMIT_KILL");
  if (dbname == nullptr || shadow == nullptr || report == nullptr ||
      mode == nullptr || kill_at == nullptr) {
    GTEST_SKIP() << "helper for CloseDuringCommitKillTest";
  }
  const delsm::Durability durability = std::string(mode) == "fsync"
                                           ? delsm::Durability::kFsync
                                           : delsm::Durability::kDeferred;
  const bool kill_at_sync = std::string(kill_at) == "at-sync";
  auto report_and_kill = [report](const std::string& problems) {
    if (!(std::ofstream(report) << problems << "\n")) _exit(3);
    raise(SIGKILL);
    _exit(4);
  };
  ThreadEndEnv env(Env::Default(), shadow);
  Options options = delsm_test::NewDbOptions(4 << 20);
  options.env = &env;
  DB* db = nullptr;
  if (!delsm::Open(options, CommitTuning(durability), dbname, &db).ok()) {
    _exit(2);
  }
  DBImpl* impl = static_cast<DBImpl*>(db);
  if (!WriteKillRound(db, 0) || !impl->TEST_FlushMemTable().ok() ||
      !impl->TEST_WaitForBackgroundWork().ok()) {
    _exit(5);
  }

  HeldManifestSync sync;
  sync.Arm(&env, CompactionSyncAfterSecondFlush(durability), [&] {
    if (kill_at_sync) {
      report_and_kill(sync.close_seen() ? ""
                                        : "the close did not stop the flush");
    }
  });

  if (!WriteKillRound(db, 1) || !impl->TEST_FlushMemTable().ok()) _exit(6);
  if (!sync.WaitUntilReached()) {
    report_and_kill("no manifest sync of a compaction after the flush");
  }
  // Acknowledged while the compaction's commit is held; only the WAL holds
  // them.
  if (!WriteKillRound(db, 2)) _exit(7);
  delete db;
  std::string problems;
  if (!sync.close_seen()) problems += "the close did not stop the flush; ";
  if (!env.Fired()) problems += "the compaction's sync did not fail; ";
  report_and_kill(problems);
}

// (durability, kill point): kill at the held sync ("at-sync"), or once the
// close has returned ("after-close").
class CloseDuringCommitKillTest
    : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CloseDuringCommitKillTest, ReopenKeepsEveryAcknowledgedWrite) {
  TempDir tmp("delsm_close_commit_kill");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  const std::string report = tmp.path() + "/child_findings";
  const std::string mode = std::get<0>(GetParam());
  ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                    "CloseDuringCommitKill.Child",
                    {{"CLOSE_COMMIT_DB", dbname},
                     {"CLOSE_COMMIT_SHADOW", tmp.path() + "/shadow"},
                     {"CLOSE_COMMIT_REPORT", report},
                     {"CLOSE_COMMIT_DURABILITY", mode},
                     {"CLOSE_COMMIT_KILL", std::get<1>(GetParam())}}));
  std::string findings;
  std::getline(std::ifstream(report), findings);
  EXPECT_EQ("", findings) << "in the child, before the kill";
  // The compaction's outputs, made durable before its commit.
  const std::vector<std::string> outputs = delsm_test::ListDir(dbname + "/L1");
  EXPECT_FALSE(outputs.empty()) << "the compaction left no L1 directory";

  const delsm::Tuning tuning =
      CommitTuning(mode == "fsync" ? delsm::Durability::kFsync
                                   : delsm::Durability::kDeferred);
  const Options options = delsm_test::NewDbOptions(4 << 20);
  DB* db = nullptr;
  Status s = delsm::Open(options, tuning, dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> holder(db);
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
  // The record the failed sync left made the compaction committed: L1 is
  // its outputs, all of them.
  std::string sstables;
  ASSERT_TRUE(db->GetProperty("leveldb.sstables", &sstables));
  std::set<std::string> live_l1;
  for (const std::string& dir : outputs) {
    if (sstables.find(" " + dir + "/") != std::string::npos) {
      live_l1.insert(dir);
    }
  }
  EXPECT_EQ(outputs.size(), live_l1.size())
      << "L1 directories before the reopen that it does not use";
  EXPECT_EQ(outputs, delsm_test::ListDir(dbname + "/L1"));

  const std::map<std::string, std::string> model = KillModel();
  int lost = 0, back = 0;
  for (int i = 0; i < kKeysPerFlush; i++) {
    std::string value;
    s = db->Get(ReadOptions(), delsm_test::Key(i), &value);
    auto it = model.find(delsm_test::Key(i));
    if (it == model.end()) {
      if (!s.IsNotFound()) back++;
    } else if (!s.ok() || value != it->second) {
      lost++;
    }
  }
  EXPECT_EQ(0, lost) << "acknowledged writes lost or wrong";
  EXPECT_EQ(0, back) << "deleted keys read back";
  std::map<std::string, std::string> scanned;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    scanned[it->key().ToString()] = it->value().ToString();
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  it.reset();
  EXPECT_TRUE(scanned == model) << "a scan shows " << scanned.size()
                                << " keys, " << model.size() << " expected";
  EXPECT_EQ("", delsm_test::FindOrphans(db, dbname));
  holder.reset();

  const delsm_test::RunResult r = delsm_test::Shell(
      std::string(DELSM_TOOL) + " verify --json --quiet " + dbname);
  EXPECT_EQ(0, r.exit_code) << r.out.substr(0, 2000);
  EXPECT_EQ(std::string::npos, r.out.find("{\"kind\":"))
      << r.out.substr(0, 2000);
}

INSTANTIATE_TEST_SUITE_P(
    KillPoints, CloseDuringCommitKillTest,
    testing::Combine(
        testing::Values(std::string("fsync"), std::string("deferred")),
        testing::Values(std::string("at-sync"), std::string("after-close"))),
    [](const testing::TestParamInfo<std::tuple<std::string, std::string>>&
           info) {
      std::string name =
          std::get<0>(info.param) + "_" + std::get<1>(info.param);
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace leveldb
