// A removal pass (after a flush or a compaction commits) lists the level
// directories to find dead SST directories. A listing can wait a long time
// in the kernel: an rmdir holds its parent directory while it drops the
// removed directory's cached entries, tens of milliseconds for one that
// held thousands of KV files. Writers must not wait for it: the pass reads
// its listings without the DB's mutex, so a Put completes while a listing
// is held up, and what the pass then removes is still only what is dead.
//
// The tests hold the listing of L6 (a level directory no SST uses here, so
// only a removal pass lists it) by the pass after a flush:
//  * until a Put made meanwhile has returned, then let the listing fail: a
//    pass whose listing fails removes nothing under it, and the database
//    stays whole;
//  * until another flush's pass has removed the WALs the held pass listed:
//    the held pass finds them gone and removes none of them again (every
//    dead file is removed once, whichever passes overlap).
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;

constexpr auto kPatience = std::chrono::seconds(30);

std::string Key(int i) { return delsm_test::IndexKey(i); }
std::string Value(int i) { return std::string(200 + i % 100, 'a' + i % 26); }

// One event a thread waits for, with a time limit.
class Event {
 public:
  void Set() {
    std::lock_guard<std::mutex> l(mu_);
    set_ = true;
    cv_.notify_all();
  }
  // True if Set() came within kPatience.
  bool Wait() {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, kPatience, [this] { return set_; });
  }
  bool IsSet() {
    std::lock_guard<std::mutex> l(mu_);
    return set_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool set_ = false;  // guarded by mu_
};

// A fault on the first listing of a path under L6: it runs `hold`, then
// fails that listing with EIO.
FaultSpec HoldListingOfL6(std::function<void()> hold) {
  FaultSpec spec;
  spec.nth = 1;
  spec.err = EIO;
  spec.path_contains = "/L6";
  spec.before_failing = std::move(hold);
  return spec;
}

TEST(SlowListingTest, PutCompletesWhileARemovalListingIsHeld) {
  TempDir dir("slow-listing");
  const std::string dbname = dir.path() + "/db";
  FaultInjectionFileSystem fs(FileSystem::Default());
  // A memtable the test's writes never fill: the one flush is the test's.
  Options options = delsm_test::NewDbOptions(4 << 20);
  DB* raw = nullptr;
  ASSERT_TRUE(
      OpenWithFileSystem(options, delsm::Tuning(), dbname, &fs, &raw).ok());
  std::unique_ptr<DB> db(raw);
  constexpr int kKeys = 100;
  for (int k = 0; k < kKeys; k++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(k), Value(k)).ok());
  }

  Event listing_held;
  Event put_done;
  std::atomic<bool> put_done_while_held{false};
  fs.Arm(FsOp::kReaddir, HoldListingOfL6([&] {
           listing_held.Set();
           put_done_while_held = put_done.Wait();
         }));

  // The flush commits and starts a removal pass in the flush thread; the
  // flush call returns only once that pass has let go of the listing.
  std::thread flusher([&] {
    Status s = static_cast<DBImpl*>(db.get())->TEST_FlushMemTable();
    EXPECT_TRUE(s.ok()) << s.ToString();
  });
  if (!listing_held.Wait()) {
    flusher.join();
    FAIL() << "no removal pass listed L6";
  }
  const int i = kKeys;
  Status s = db->Put(WriteOptions(), Key(i), Value(i));
  EXPECT_TRUE(s.ok()) << s.ToString();
  put_done.Set();
  flusher.join();
  EXPECT_TRUE(put_done_while_held)
      << "the Put waited for the removal pass's held listing";
  EXPECT_TRUE(fs.Fired());
  fs.Disarm();

  // Everything written reads back, now and after a reopen.
  for (int k = 0; k <= i; k++) {
    std::string value;
    ASSERT_TRUE(db->Get(ReadOptions(), Key(k), &value).ok()) << k;
    ASSERT_EQ(Value(k), value) << k;
  }
  db.reset();
  ASSERT_TRUE(
      OpenWithFileSystem(options, delsm::Tuning(), dbname, &fs, &raw).ok());
  db.reset(raw);
  for (int k = 0; k <= i; k++) {
    std::string value;
    ASSERT_TRUE(db->Get(ReadOptions(), Key(k), &value).ok()) << k;
    ASSERT_EQ(Value(k), value) << k;
  }
}

TEST(SlowListingTest, OverlappingPassesRemoveEachDeadWalOnce) {
  TempDir dir("slow-listing");
  const std::string dbname = dir.path() + "/db";
  FaultInjectionEnv env(Env::Default(), dir.path() + "/env_shadow");
  FaultInjectionFileSystem fs(FileSystem::Default());
  Options options = delsm_test::NewDbOptions(4 << 20);
  options.env = &env;
  // Two flush workers: one flush's pass is held while another flush
  // commits in the second worker. kFsync: a flush's commit frees its WAL.
  delsm::Tuning tuning;
  tuning.durability = delsm::Durability::kFsync;
  tuning.flush_threads = 2;
  DB* raw = nullptr;
  ASSERT_TRUE(OpenWithFileSystem(options, tuning, dbname, &fs, &raw).ok());
  std::unique_ptr<DB> db(raw);
  DBImpl* impl = static_cast<DBImpl*>(db.get());
  ASSERT_TRUE(impl->TEST_WaitForBackgroundWork().ok());
  int next = 0;
  for (; next < 50; next++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(next), Value(next)).ok());
  }

  // Counts the removals of WALs from here on (never fails one).
  FaultSpec count;
  count.nth = std::numeric_limits<uint64_t>::max();
  count.path_contains = ".log";
  env.Arm(EnvOp::kRemove, count);

  Event listing_held;
  Event second_flush_done;
  fs.Arm(FsOp::kReaddir, HoldListingOfL6([&] {
           listing_held.Set();
           second_flush_done.Wait();
         }));

  // The first flush frees the WAL the open made (W1) and switches to W2;
  // its pass lists the DB directory (W1, W2) and is held at L6.
  std::thread flusher([&] {
    Status s = impl->TEST_FlushMemTable();
    EXPECT_TRUE(s.ok()) << s.ToString();
  });
  if (!listing_held.Wait()) {
    flusher.join();
    FAIL() << "no removal pass listed L6";
  }
  // The second flush, in the other worker, frees W2 too; its pass removes
  // W1 and W2 while the first pass still holds a listing naming both.
  for (int end = next + 50; next < end; next++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(next), Value(next)).ok());
  }
  Status s = impl->TEST_FlushMemTable();
  EXPECT_TRUE(s.ok()) << s.ToString();
  second_flush_done.Set();
  flusher.join();
  ASSERT_TRUE(fs.Fired());
  fs.Disarm();
  s = impl->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();

  // W1 and W2 are gone, each removed by one call.
  std::vector<std::string> children;
  ASSERT_TRUE(env.GetChildren(dbname, &children).ok());
  int wals = 0;
  for (const std::string& c : children) {
    if (c.size() > 4 && c.compare(c.size() - 4, 4, ".log") == 0) wals++;
  }
  EXPECT_EQ(1, wals) << "only the current WAL is left";
  EXPECT_EQ(2u, env.Matches()) << "WAL removals";
  env.Disarm();

  for (int k = 0; k < next; k++) {
    std::string value;
    ASSERT_TRUE(db->Get(ReadOptions(), Key(k), &value).ok()) << k;
    ASSERT_EQ(Value(k), value) << k;
  }
}

}  // namespace
}  // namespace leveldb
