// A manifest write that fails with its record in the file (EIO from the
// sync: the data reached the file, its durability is unknown), while a
// flush is being built. Whether that edit committed is unknown until the
// next Open reads the manifest; nothing the session commits after it may
// say otherwise. Had the flush committed into a new manifest, named by
// CURRENT, that manifest's snapshot would list live the SSTs the failed
// record names as replaced in the manifest before it, and RepairDB, finding
// both, would take the older one for a manifest that never took effect:
// it would no longer know the SSTs the session's earlier compactions
// replaced, and would merge one whose meta file a reader kept on disk.
//
// The session: 100 keys compacted into an L1 SST; an iterator pins that
// version; half the keys deleted, flushed and compacted into the L1 SST's
// own directory (its META replaced, the deletes and the old values
// dropped at the base level; the iterator keeps META on disk); 100 other
// keys flushed to L0; then the compaction of those into L1 fails at its
// manifest sync, held there until the flush of one more key has begun.
// Then RepairDB, or the next Open: no deleted key comes back, every
// acknowledged write reads.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;
using delsm_test::ListDir;
using delsm_test::TempDir;

constexpr auto kPatience = std::chrono::seconds(60);

std::string Value(int i) {
  return "value " + std::to_string(i) + std::string(80, 'v');
}

// Manual compactions only, and every flush synced with its record (no
// durability thread): the first manifest sync after the test arms its
// fault is the compaction's.
delsm::Tuning TestTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.durability = delsm::Durability::kFsync;
  return t;
}

// The nth manifest sync from Arm() on waits in the syncing thread until
// Release(), then fails with EIO having written its data.
class HeldManifestSync {
 public:
  void Arm(FaultInjectionEnv* env) {
    FaultSpec spec;
    spec.nth = 1;
    spec.err = EIO;
    spec.effect = FaultEffect::kDone;
    spec.path_contains = "MANIFEST";
    spec.before_failing = [this] {
      std::unique_lock<std::mutex> l(mu_);
      reached_ = true;
      cv_.notify_all();
      cv_.wait_for(l, kPatience, [this] { return released_; });
    };
    env->Arm(EnvOp::kSync, spec);
  }
  bool WaitUntilReached() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, kPatience, [this] { return reached_; });
  }
  void Release() {
    std::lock_guard<std::mutex> l(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool reached_ = false;   // guarded by mu_
  bool released_ = false;  // guarded by mu_
};

// Waits until `dir` holds more than `count` names; false after kPatience.
bool WaitForMoreNames(const std::string& dir, size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  while (ListDir(dir).size() <= count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Builds the session the file comment describes in `dbname`, through
// `env`. Keys 0-49 are deleted; 50-99, 200-299 and 300 hold Value(i).
void RunSession(const std::string& dbname, FaultInjectionEnv* env) {
  Options options = delsm_test::NewDbOptions(4 << 20);
  options.env = env;
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(options, TestTuning(), dbname, &db));
  std::unique_ptr<DB> holder(db);
  DBImpl* impl = static_cast<DBImpl*>(db);
  for (int i = 0; i < 100; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
  }
  ASSERT_OK(impl->TEST_FlushMemTable());
  ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));

  // Keeps the L1 SST's META on disk once a compaction has replaced it.
  std::unique_ptr<Iterator> pin(db->NewIterator(ReadOptions()));
  for (int i = 0; i < 50; i++) {
    ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
  }
  ASSERT_OK(impl->TEST_FlushMemTable());
  ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));
  for (int i = 200; i < 300; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
  }
  ASSERT_OK(impl->TEST_FlushMemTable());
  ASSERT_OK(impl->TEST_WaitForBackgroundWork());

  HeldManifestSync sync;
  sync.Arm(env);
  Status compacted;
  std::thread compaction(
      [&] { compacted = impl->TEST_CompactRange(0, nullptr, nullptr); });
  const bool reached = sync.WaitUntilReached();
  // One more acknowledged write, and its flush begun (its directory made)
  // while the compaction's record is being synced.
  const std::string l0 = dbname + "/L0";
  const size_t l0_dirs = ListDir(l0).size();
  Status put = db->Put(WriteOptions(), Key(300), Value(300));
  std::thread flush([&] { impl->TEST_FlushMemTable(); });
  const bool flush_began = WaitForMoreNames(l0, l0_dirs);
  sync.Release();
  compaction.join();
  flush.join();
  ASSERT_TRUE(reached) << "the compaction's manifest sync was never reached";
  ASSERT_OK(put);
  ASSERT_TRUE(flush_began) << "the flush made no directory in L0";
  ASSERT_TRUE(env->Fired());
  ASSERT_FALSE(compacted.ok());
  // The flush's commit may still be running when the error is recorded.
  impl->TEST_WaitForBackgroundWork();
  pin.reset();
}

// Keys 0-49 deleted, every other key written with Value(i).
void ExpectSessionWrites(DB* db) {
  for (int i : {0, 1, 17, 49}) {
    std::string value;
    Status s = db->Get(ReadOptions(), Key(i), &value);
    EXPECT_TRUE(s.IsNotFound()) << Key(i) << " deleted, reads " << value;
  }
  int missing = 0;
  for (int i = 50; i <= 300; i++) {
    if (i >= 100 && i < 200) continue;
    std::string value;
    Status s = db->Get(ReadOptions(), Key(i), &value);
    if (!s.ok() || value != Value(i)) missing++;
  }
  EXPECT_EQ(0, missing) << "acknowledged writes not read back";
  int back = 0;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->Seek(Key(0)); it->Valid() && it->key().ToString() < Key(50);
       it->Next()) {
    back++;
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(0, back) << "of the 50 deleted keys, read back by a scan";
}

// RunSession in `tmp`'s database, through a fault-injecting Env that is
// gone when it returns; the database's path in *dbname.
void RunSessionIn(const TempDir& tmp, std::string* dbname) {
  *dbname = tmp.path() + "/db";
  FaultInjectionEnv env(Env::Default(), tmp.path() + "/shadow");
  RunSession(*dbname, &env);
}

TEST(CommitAfterFailedCommitTest, RepairKeepsDeletedKeysDeleted) {
  TempDir tmp("delsm_failed_commit");
  std::string dbname;
  RunSessionIn(tmp, &dbname);
  if (HasFatalFailure()) return;
  Options options;
  ASSERT_OK(RepairDB(dbname, options));
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(options, TestTuning(), dbname, &db));
  std::unique_ptr<DB> holder(db);
  ExpectSessionWrites(db);
}

TEST(CommitAfterFailedCommitTest, OpenKeepsDeletedKeysDeleted) {
  TempDir tmp("delsm_failed_commit");
  std::string dbname;
  RunSessionIn(tmp, &dbname);
  if (HasFatalFailure()) return;
  Options options;
  DB* db = nullptr;
  ASSERT_OK(delsm::Open(options, TestTuning(), dbname, &db));
  std::unique_ptr<DB> holder(db);
  ExpectSessionWrites(db);
}

}  // namespace
}  // namespace leveldb
