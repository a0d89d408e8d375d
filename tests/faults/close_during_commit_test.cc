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
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_env.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

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

// One flush thread, no durability thread (kFsync: each flush's record is
// synced as it commits), and L0 compacted at two directories, so the
// manifest syncs after the first flush are the second flush's and then the
// compaction's.
delsm::Tuning CommitTuning() {
  delsm::Tuning t = delsm_test::SmallLevels(1 << 20, 64, 1 << 20);
  t.durability = delsm::Durability::kFsync;
  t.flush_threads = 1;
  return t;
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
  std::mutex mu;
  std::condition_variable cv;
  bool reached = false;
  std::atomic<bool> close_seen{false};
  FaultSpec spec;
  spec.nth = 2;
  spec.err = EIO;
  spec.path_contains = "MANIFEST";
  spec.before_failing = [&] {
    {
      std::lock_guard<std::mutex> l(mu);
      reached = true;
    }
    cv.notify_all();
    close_seen = env.WaitForAThreadToEnd();
  };
  env.Arm(EnvOp::kSync, spec);

  WriteRound(db, 1);
  ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  bool held;
  {
    std::unique_lock<std::mutex> l(mu);
    held = cv.wait_for(l, kPatience, [&] { return reached; });
  }
  delete db;  // while the compaction's manifest sync is held
  ASSERT_TRUE(held) << "no compaction's manifest sync after the second flush";
  ASSERT_TRUE(close_seen) << "the close did not stop the flush thread";
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

}  // namespace
}  // namespace leveldb
