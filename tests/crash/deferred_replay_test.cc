// Durability::kDeferred keeps a flushed memtable's WAL for a while and
// replays it at the next open, even when what the flush wrote was compacted
// out of L0 meanwhile. The replay must not bring back, at L0, writes that a
// deeper level already holds: such a copy has the same KV file name (user
// key and sequence) as the deeper one, and once the deeper SST has been
// compacted further while a reader still holds it, its name lingers in a
// directory the L0 copy is later linked into. The crash soak found exactly
// that: the L0 -> L1 compaction failed with EEXIST, which stopped writes.
//
// A compaction's sync retires the kDeferred WALs of the flushes before it,
// but kSyncfs keeps a WAL until its durability round, which a compaction
// may beat; the test keeps the WALs past compactions and the close
// (TEST_KeepDeferredLogs, as a SIGKILL leaves them) to build that state
// deterministically, on a real file system with manual compactions of one
// level at a time, and checks that writes and compactions go on, every key
// reads back its last value, and the database holds no orphan afterwards.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%03d", i);
  return buf;
}

std::string Value(int i, const std::string& version) {
  return version + "-" + std::to_string(i) + std::string(200, 'a' + i % 26);
}

// Deferred mode with WALs kept for an hour; no automatic compaction, so the
// test decides what moves where.
delsm::Tuning DeferredTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.durability = delsm::Durability::kDeferred;
  t.deferred_wal_retention_micros = 3600ull * 1000 * 1000;
  t.inline_threshold = 0;
  t.l1_entries = 1 << 30;
  t.sst_entries = 50;
  return t;
}

// KV file names found both at L0 and in a deeper level of database
// `dbname` (directory listings only: <db>/L<n>/<number>.sst/<name>).
std::vector<std::string> NamesAtL0AndBelow(const std::string& dbname) {
  std::set<std::string> l0;
  std::vector<std::string> both;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = dbname + "/L" + std::to_string(level);
    for (const std::string& sst : delsm_test::ListDir(ldir)) {
      for (const std::string& name : delsm_test::ListDir(ldir + "/" + sst)) {
        if (name.find('@') == std::string::npos) continue;  // META etc.
        if (level == 0) {
          l0.insert(name);
        } else if (l0.count(name) > 0) {
          both.push_back("L" + std::to_string(level) + "/" + sst + "/" + name);
        }
      }
    }
  }
  return both;
}

class DeferredReplayTest : public testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(tmp_.path().empty()); }

  void Open() {
    Options options;
    options.create_if_missing = true;
    DB* db = nullptr;
    ASSERT_TRUE(delsm::Open(options, DeferredTuning(), dbname_, &db).ok());
    db_.reset(db);
    impl()->TEST_KeepDeferredLogs();
  }
  DBImpl* impl() { return static_cast<DBImpl*>(db_.get()); }

  void Put(int i, const std::string& version) {
    ASSERT_TRUE(db_->Put(WriteOptions(), Key(i), Value(i, version)).ok());
    model_[i] = version;
  }

  // Every key of the model reads back its last value, by Get and by a scan.
  void CheckContents() {
    for (const auto& kv : model_) {
      std::string got;
      Status s = db_->Get(ReadOptions(), Key(kv.first), &got);
      ASSERT_TRUE(s.ok()) << Key(kv.first) << ": " << s.ToString();
      EXPECT_EQ(Value(kv.first, kv.second), got) << Key(kv.first);
    }
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    auto want = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++want) {
      ASSERT_NE(model_.end(), want) << "extra key " << it->key().ToString();
      EXPECT_EQ(Key(want->first), it->key().ToString());
      EXPECT_EQ(Value(want->first, want->second), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(model_.end(), want);
  }

  delsm_test::TempDir tmp_{"delsm_deferred_replay"};
  const std::string dbname_ = tmp_.path() + "/db";
  std::unique_ptr<DB> db_;
  std::map<int, std::string> model_;
};

TEST_F(DeferredReplayTest, ReplayedWritesAlreadyCompactedDoNotCollideLater) {
  ASSERT_NO_FATAL_FAILURE(Open());
  // k000..k049 to L1: one SST in a new directory D.
  for (int i = 0; i < 50; i++) ASSERT_NO_FATAL_FAILURE(Put(i, "a"));
  ASSERT_TRUE(impl()->TEST_FlushMemTable().ok());
  ASSERT_TRUE(impl()->TEST_CompactRange(0, nullptr, nullptr).ok());
  // k040..k099 merged into D: 100 entries, cut into two SSTs of D,
  // S1 = k000..k049 and S2 = k050..k099.
  for (int i = 40; i < 100; i++) ASSERT_NO_FATAL_FAILURE(Put(i, "b"));
  ASSERT_TRUE(impl()->TEST_FlushMemTable().ok());
  ASSERT_TRUE(impl()->TEST_CompactRange(0, nullptr, nullptr).ok());
  ASSERT_NO_FATAL_FAILURE(CheckContents());

  // Both flushes' WALs are still retained: the reopen replays them, but
  // what L1 holds already must not come back at L0.
  db_.reset();
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(CheckContents());
  const std::vector<std::string> twice = NamesAtL0AndBelow(dbname_);
  EXPECT_TRUE(twice.empty()) << twice.size() << " KV file names at L0 and "
                             << "below, e.g. " << twice[0];

  // A reader holds the current version while S2 goes down to L2: S2 is
  // retired, but its KV files stay in D for the reader.
  std::unique_ptr<Iterator> reader(db_->NewIterator(ReadOptions()));
  const std::string lo = Key(50), hi = Key(99);
  const Slice lo_slice(lo), hi_slice(hi);
  ASSERT_TRUE(impl()->TEST_CompactRange(1, &lo_slice, &hi_slice).ok());

  // Whatever L0 holds goes to L1, into D (S1 is the only target left).
  Status s = impl()->TEST_CompactRange(0, nullptr, nullptr);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < 100; i += 3) ASSERT_NO_FATAL_FAILURE(Put(i, "c"));
  ASSERT_NO_FATAL_FAILURE(CheckContents());

  // The reader still sees what it was opened on.
  int seen = 0;
  for (reader->SeekToFirst(); reader->Valid(); reader->Next()) seen++;
  EXPECT_TRUE(reader->status().ok()) << reader->status().ToString();
  EXPECT_EQ(100, seen);
  reader.reset();

  ASSERT_TRUE(impl()->TEST_FlushMemTable().ok());
  db_->CompactRange(nullptr, nullptr);
  ASSERT_TRUE(impl()->TEST_WaitForBackgroundWork().ok());
  ASSERT_NO_FATAL_FAILURE(CheckContents());
  EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));

  db_.reset();
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(CheckContents());
  ASSERT_TRUE(impl()->TEST_WaitForBackgroundWork().ok());
  EXPECT_EQ("", delsm_test::FindOrphans(db_.get(), dbname_));
}

}  // namespace
}  // namespace leveldb
