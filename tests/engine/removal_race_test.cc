// Removal passes race the other background threads: the removal thread
// (delsm::Tuning::removal_thread) runs the pass after each automatic
// compaction while the compaction thread goes on, flush threads run their
// own, and CompactRange runs one after each of its compactions. Each test
// holds one thread at a chosen file-system call (HeldCallFileSystem) while
// the others do what it races with. What users rely on:
//  * no acknowledged write is lost: what a pass unlinks of a retired SST
//    it decides by the live SSTs of the SST's directory when it takes the
//    SST, and no SST built into that directory meanwhile may come to name
//    any of it;
//  * CompactRange returns once what its compactions made obsolete is gone,
//    as LevelDB's does, even when a pass already running took part of it;
//  * a close returns only once the removal thread's pass has ended (a
//    DestroyDB or a copy may follow at once), and its own last pass leaves
//    nothing for the next open's sweeps;
//  * a commit that fails while a pass reads its listings makes the pass
//    remove nothing: the directory the failed compaction wrote may be
//    named by the manifest the next Open reads.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_plan.h"
#include "tests/db_options.h"
#include "tests/held_call_file_system.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::DBImpl;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

std::string Value(const std::string& key) { return "value of " + key; }

// "a000" ... "a199": the keys of the SST that is retired and moved away.
std::string AKey(int i) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "a%03d", i);
  return buf;
}
// "c000" ... "c049": the keys of the SST whose directory moves down.
std::string CKey(int i) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "c%03d", i);
  return buf;
}

// Runs `call` on a thread of its own from construction: a call the test
// expects to block on a held file-system call.
class BackgroundCall {
 public:
  explicit BackgroundCall(std::function<void()> call)
      : thread_([this, call] {
          call();
          std::lock_guard<std::mutex> l(mu_);
          returned_ = true;
          cv_.notify_all();
        }) {}
  ~BackgroundCall() {
    if (thread_.joinable()) thread_.join();
  }
  // True if the call returned within `timeout` (it goes on either way).
  bool ReturnedWithin(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    return cv_.wait_for(l, timeout, [&] { return returned_; });
  }
  // Waits for the call to return; what it wrote may then be read.
  void Join() { thread_.join(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool returned_ = false;  // guarded by mu_
  std::thread thread_;     // last: it runs once the members above exist
};

class RemovalRaceTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    dbname_ = dir_.path() + "/db";
  }
  // A test that failed with a call held must not hang in the close.
  void TearDown() override {
    fs_.ReleaseAll();
    db_.reset();
  }

  Status Open(const delsm::Tuning& tuning, leveldb::Env* env = nullptr) {
    DB* raw = nullptr;
    leveldb::Options options = delsm_test::NewDbOptions(4 << 20);
    if (env != nullptr) options.env = env;
    Status s =
        leveldb::OpenWithFileSystem(options, tuning, dbname_, &fs_, &raw);
    db_.reset(raw);
    return s;
  }
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }

  void Put(const std::string& key) {
    ASSERT_TRUE(db_->Put(WriteOptions(), key, Value(key)).ok()) << key;
    model_[key] = Value(key);
  }
  void Compact(int level, const char* begin = nullptr) {
    leveldb::Slice b(begin == nullptr ? "" : begin);
    Status s = impl()->TEST_CompactRange(level, begin == nullptr ? nullptr : &b,
                                         nullptr);
    ASSERT_TRUE(s.ok()) << "level " << level << ": " << s.ToString();
  }
  void Flush() {
    Status s = impl()->TEST_FlushMemTable();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  int FilesAt(int level) {
    std::string v;
    EXPECT_TRUE(db_->GetProperty(
        "leveldb.num-files-at-level" + std::to_string(level), &v));
    return std::stoi(v);
  }
  // Waits (polling: a held removal pass keeps TEST_WaitForBackgroundWork
  // waiting) until levels 1, 2 and 3 hold these many SSTs.
  bool WaitForShape(int l1, int l2, int l3) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (std::chrono::steady_clock::now() < deadline) {
      if (FilesAt(1) == l1 && FilesAt(2) == l2 && FilesAt(3) == l3) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  // Writes k000..k099 twice with `tuning`: the older versions end at L2,
  // the newer at L1 (one SST). Leaves the database closed.
  void WriteTheSameKeysAtL1AndL2(const delsm::Tuning& tuning) {
    ASSERT_TRUE(Open(tuning).ok());
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 100; i++) {
        const std::string key = delsm_test::IndexKey(i);
        const std::string value = Value(key) + std::to_string(round);
        ASSERT_TRUE(db_->Put(WriteOptions(), key, value).ok());
        model_[key] = value;
      }
      ASSERT_NO_FATAL_FAILURE(Flush());
      Compact(0);
      if (round == 0) Compact(1);
    }
    ASSERT_EQ(1, FilesAt(1));
    db_.reset();
  }
  // Once background work has settled, nothing is orphaned and every write
  // in model_ reads back.
  void ExpectSettledAndWhole() {
    Status s = impl()->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));
    for (const auto& kv : model_) {
      std::string v;
      ASSERT_TRUE(db_->Get(ReadOptions(), kv.first, &v).ok()) << kv.first;
      ASSERT_EQ(kv.second, v);
    }
  }

  delsm_test::TempDir dir_{"delsm_removal_race"};
  std::string dbname_;
  delsm_test::HeldCallFileSystem fs_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

// An SST X shares its directory D with an SST Y; X is compacted to the
// next level (its KV files are linked into a new directory E), and the
// removal pass after that compaction takes X: Y is the only other SST of
// D and shares no key with X, so the pass will unlink every KV file X
// names from D. Before it does, D moves down two levels (trivial moves of
// Y), below E, and a compaction of E's level into Y links X's KV files
// back into D for its new SST, under the names still in D. Then the pass
// unlinks them: an acknowledged write the new SST names is gone.
TEST_F(RemovalRaceTest, RetiredSstEntriesRelinkedByAMovedDirectory) {
  // Phase 1, manual compactions only: X and Y in one L1 directory, and
  // the compaction pointers that make the automatic compactions of phase
  // 2 pick X first at L1 and Y before E at L2.
  delsm::Tuning setup;
  setup.inline_threshold = 0;  // every value a KV file
  setup.sst_entries = 201;     // X: a000..a199 and a0995
  setup.kv_file_entries_per_entry = 1;
  ASSERT_TRUE(Open(setup).ok());
  // "b" at L4: the L2 compaction pointer at "b" (Y, not E, is picked at
  // L2), and nothing at L3 for the final compaction to route a-keys to.
  Put("b");
  ASSERT_NO_FATAL_FAILURE(Flush());
  for (int level = 0; level < 4; level++) Compact(level);
  // "0" at L2: the L1 compaction pointer before X.
  Put("0");
  ASSERT_NO_FATAL_FAILURE(Flush());
  Compact(0);
  Compact(1);
  for (int i = 0; i < 200; i++) Put(AKey(i));
  ASSERT_NO_FATAL_FAILURE(Flush());
  Compact(0);  // T = a000..a199, alone in a new L1 directory D
  Put("a0995");
  for (int i = 0; i < 50; i++) Put(CKey(i));
  ASSERT_NO_FATAL_FAILURE(Flush());
  Compact(0);  // T replaced in D by X = a000..a199 and Y = c000..c049
  ASSERT_EQ(2, FilesAt(1));
  const std::map<int, std::set<std::string>> listed =
      delsm_test::ListedSsts([&] {
        std::string v;
        EXPECT_TRUE(db_->GetProperty("leveldb.sstables", &v));
        return v;
      }());
  ASSERT_EQ(2u, listed.at(1).size());
  const std::string x = *listed.at(1).begin();
  const std::string d = x.substr(0, x.find('/'));
  ASSERT_EQ(d, listed.at(1).rbegin()->substr(0, d.size()))
      << "X and Y are not in one directory";
  db_.reset();

  // Phase 2: L1 holds 25 entries, L2 250. The automatic compactions: X to
  // a new L2 directory E; Y (D) moved to L2, then to L3.
  delsm::Tuning tuning = setup;
  tuning.l1_entries = 25;
  tuning.sst_entries = 10000;
  tuning.removal_thread = true;
  // The removal thread's pass after X's compaction is held as it looks
  // for D, X's directory, after taking X.
  const int hold = fs_.Hold("delsm-remove", "/" + d);
  ASSERT_TRUE(Open(tuning).ok());
  ASSERT_TRUE(fs_.WaitUntilHeld(hold)) << "no removal pass took X";
  ASSERT_TRUE(WaitForShape(0, 2, 1))
      << "L1-L3: " << FilesAt(1) << " " << FilesAt(2) << " " << FilesAt(3);
  // W, a key inside Y's range, at L2; then one compaction of L2 from
  // "a000" (E and W) into L3, whose only SST there is Y's (in D unless D
  // was not moved).
  Put("c0245");
  ASSERT_NO_FATAL_FAILURE(Flush());
  Compact(0);
  Compact(1);
  Compact(2, "a000");
  fs_.Release(hold);
  Status s = impl()->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();

  int bad = 0;
  for (const auto& kv : model_) {
    std::string v;
    s = db_->Get(ReadOptions(), kv.first, &v);
    if (!s.ok() || v != kv.second) {
      if (++bad <= 3) {
        ADD_FAILURE() << kv.first << ": " << s.ToString() << " " << v;
      }
    }
  }
  EXPECT_EQ(0, bad) << "acknowledged writes lost";
  EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));
}

// CompactRange returns once what its compactions made obsolete is gone,
// as LevelDB's does, even when a removal pass that was already running
// (here the removal thread's, after an automatic compaction) took some of
// it: the pass of CompactRange's own compaction finds those entries taken
// and leaves them to that pass.
TEST_F(RemovalRaceTest, CompactRangeReturnsOnceItsObsoleteFilesAreGone) {
  // Two L1 directories, A = k000..k099 and B = k100..k189.
  delsm::Tuning setup;
  setup.inline_threshold = 0;
  setup.kv_file_entries_per_entry = 1;
  ASSERT_TRUE(Open(setup).ok());
  for (int i = 0; i < 100; i++) Put(delsm_test::IndexKey(i));
  ASSERT_NO_FATAL_FAILURE(Flush());
  Compact(0);
  for (int i = 100; i < 190; i++) Put(delsm_test::IndexKey(i));
  ASSERT_NO_FATAL_FAILURE(Flush());
  Compact(0);
  ASSERT_EQ(2, FilesAt(1));
  db_.reset();

  // L1 holds 100 entries: at Open, the compaction thread moves A to L2,
  // and the removal thread's pass after it is held at its listing of L6,
  // before it takes anything.
  delsm::Tuning tuning = setup;
  tuning.l1_entries = 100;
  tuning.removal_thread = true;
  const int removal_listing = fs_.Hold("delsm-remove", "/L6");
  ASSERT_TRUE(Open(tuning).ok());
  ASSERT_TRUE(fs_.WaitUntilHeld(removal_listing));
  ASSERT_TRUE(WaitForShape(1, 1, 0));

  // CompactRange compacts B into L2; the pass after it is held at its
  // listing of L6 too, while the removal thread's pass goes on: it takes
  // B's directory, now dead (it listed L1 before), and is held again as
  // it goes to remove it.
  const int compaction_listing = fs_.Hold("delsm-compact", "/L6");
  const int removal_of_b = fs_.Hold("delsm-remove", ".sst");
  std::string orphans_at_return;
  BackgroundCall compact_range([&] {
    db_->CompactRange(nullptr, nullptr);
    orphans_at_return = delsm_test::FindOrphans(db_.get(), dbname_);
  });
  const bool compaction_held = fs_.WaitUntilHeld(compaction_listing);
  fs_.Release(removal_listing);
  const bool removal_held = compaction_held && fs_.WaitUntilHeld(removal_of_b);
  fs_.Release(compaction_listing);
  // CompactRange must not return while B's directory is still being
  // removed: give it a second to (wrongly) do so, then let the removal go
  // on.
  compact_range.ReturnedWithin(std::chrono::seconds(1));
  fs_.ReleaseAll();
  compact_range.Join();
  ASSERT_TRUE(compaction_held) << "CompactRange's compaction ran no pass";
  ASSERT_TRUE(removal_held) << "the removal thread's pass removed nothing";
  EXPECT_EQ("", orphans_at_return) << "left when CompactRange returned";

  ExpectSettledAndWhole();
}

// A close waits for a removal pass the removal thread is running: nothing
// of the database's is touched once the close has returned (a DestroyDB or
// a copy may follow at once), and the close's own last pass leaves nothing
// behind, so it writes the clean-close marker.
TEST_F(RemovalRaceTest, CloseWaitsForTheRemovalThreadsPass) {
  delsm::Tuning setup;
  setup.inline_threshold = 0;
  setup.kv_file_entries_per_entry = 1;
  ASSERT_NO_FATAL_FAILURE(WriteTheSameKeysAtL1AndL2(setup));

  // L1 holds 50 entries: at Open, L1 is compacted into L2's directory, and
  // the removal thread's pass after it is held as it goes to remove what
  // that compaction replaced.
  delsm::Tuning tuning = setup;
  tuning.l1_entries = 50;
  tuning.removal_thread = true;
  const int removal = fs_.Hold("delsm-remove", ".sst");
  ASSERT_TRUE(Open(tuning).ok());
  ASSERT_TRUE(fs_.WaitUntilHeld(removal)) << "no removal pass removed";

  BackgroundCall closer([&] { db_.reset(); });
  const bool closed_while_held = closer.ReturnedWithin(std::chrono::seconds(1));
  fs_.Release(removal);
  closer.Join();
  EXPECT_FALSE(closed_while_held)
      << "the close returned while the removal thread was in a pass";
  EXPECT_TRUE(leveldb::Env::Default()->FileExists(dbname_ + "/CLOSED"))
      << "no clean-close marker";

  ASSERT_TRUE(Open(tuning).ok());
  ExpectSettledAndWhole();
}

// A compaction's commit that fails while a removal pass reads its listings
// (without the mutex) makes the pass remove nothing: the failed record may
// be in the manifest, and the directory the compaction wrote, which the
// pass may have listed and which no version in memory holds, is then the
// next Open's. Every acknowledged write reads back after that Open.
TEST_F(RemovalRaceTest, CommitFailingDuringAPassLeavesItsOutputs) {
  delsm::Tuning setup;
  setup.inline_threshold = 0;
  setup.kv_file_entries_per_entry = 1;
  ASSERT_NO_FATAL_FAILURE(WriteTheSameKeysAtL1AndL2(setup));

  // At Open, L1 is compacted into L2; the removal thread's pass after it
  // is held at its listing of L0, the first level it lists.
  leveldb::FaultInjectionEnv env(leveldb::Env::Default(),
                                 dir_.path() + "/env_shadow");
  delsm::Tuning tuning = setup;
  tuning.l1_entries = 50;
  tuning.removal_thread = true;
  const int listing = fs_.Hold("delsm-remove", "/L0");
  ASSERT_TRUE(Open(tuning, &env).ok());
  ASSERT_TRUE(fs_.WaitUntilHeld(listing));
  ASSERT_TRUE(WaitForShape(0, 1, 0));

  // L2 compacted into a new L3 directory, whose commit fails after its
  // record reached the manifest (the sync fails).
  leveldb::FaultSpec fail_sync;
  fail_sync.path_contains = "MANIFEST";
  fail_sync.effect = leveldb::FaultEffect::kDone;
  env.Arm(leveldb::EnvOp::kSync, fail_sync);
  Status s = impl()->TEST_CompactRange(2, nullptr, nullptr);
  EXPECT_FALSE(s.ok()) << "the commit did not fail";
  EXPECT_TRUE(env.Fired());
  env.Disarm();
  // The pass now lists L1 to L6, the new L3 directory among them.
  fs_.Release(listing);
  db_.reset();

  s = Open(tuning);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = impl()->TEST_WaitForBackgroundWork();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(1, FilesAt(3)) << "the failed commit's record was not read";
  for (const auto& kv : model_) {
    std::string v;
    s = db_->Get(ReadOptions(), kv.first, &v);
    ASSERT_TRUE(s.ok()) << kv.first << ": " << s.ToString();
    ASSERT_EQ(kv.second, v);
  }
  EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));
}

}  // namespace
