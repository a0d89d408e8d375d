// A removal pass (after a flush or a compaction commits) lists the level
// directories to find dead SST directories. A listing can wait a long time
// in the kernel: an rmdir holds its parent directory while it drops the
// removed directory's cached entries, tens of milliseconds for one that
// held thousands of KV files. Writers must not wait for it: the pass reads
// its listings without the DB's mutex, so a Put completes while a listing
// is held up, and what the pass then removes is still only what is dead.
//
// The test holds the listing of L6 (a level directory no SST uses here, so
// only a removal pass lists it) by the pass after a flush until a Put made
// meanwhile has returned, then lets the listing fail: a pass whose listing
// fails removes nothing under it, and the database stays whole.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
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
  FaultSpec spec;
  spec.nth = 1;
  spec.err = EIO;
  spec.path_contains = "/L6";
  spec.before_failing = [&] {
    listing_held.Set();
    put_done_while_held = put_done.Wait();
  };
  fs.Arm(FsOp::kReaddir, spec);

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

}  // namespace
}  // namespace leveldb
