// Durability::kDeferred keeps a flushed memtable's WAL for a retention time,
// because the flush's L0 SST is not synced. A compaction syncs the file
// system before its commit, which makes every SST committed before it
// durable; the WALs of those flushes must then go with the compaction's
// commit. Kept, they are replayed at the next Open over what the compaction
// dropped: a put from an older WAL comes back while the newer WAL holding
// its delete is damaged or lost (the tombstone itself is gone, dropped by
// the compaction at its base level).
//
// The test writes puts and deletes in two flushes, compacts both out of L0,
// writes a little more (left in the live WAL), closes (keeping the
// retained WALs a compaction did not retire, as a SIGKILL leaves them: a
// clean close retires them), and then, on a copy per WAL, removes or
// zero-fills each WAL but the live one: every deleted key stays deleted and
// every acknowledged write of the flushes reads its value.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%03d", i);
  return buf;
}

std::string Value(int i) {
  return "v" + std::to_string(i) + std::string(3000, 'a' + i % 26);
}

// kDeferred with WALs kept for an hour; compactions only when asked.
delsm::Tuning DeferredTuning() {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.durability = delsm::Durability::kDeferred;
  t.deferred_wal_retention_micros = 3600ull * 1000 * 1000;
  t.l1_entries = 1 << 30;
  return t;
}

std::unique_ptr<DB> OpenDb(const std::string& dbname, bool create) {
  Options options;
  options.create_if_missing = create;
  DB* db = nullptr;
  Status s = delsm::Open(options, DeferredTuning(), dbname, &db);
  EXPECT_TRUE(s.ok()) << dbname << ": " << s.ToString();
  return std::unique_ptr<DB>(db);
}

std::vector<std::string> Wals(const std::string& dbname) {
  std::vector<std::string> wals;
  for (const std::string& name : delsm_test::ListDir(dbname)) {
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0) {
      wals.push_back(name);
    }
  }
  return wals;  // sorted: the live WAL (the highest number) last
}

// What each key must read as: a value, or "" for NotFound.
using Model = std::map<int, std::string>;

// "" if every key of `model` reads as it says, else the first problems.
std::string Check(DB* db, const Model& model) {
  std::string problems;
  for (const auto& kv : model) {
    std::string got;
    Status s = db->Get(ReadOptions(), Key(kv.first), &got);
    if (kv.second.empty()) {
      if (!s.IsNotFound()) {
        problems += "deleted key " + Key(kv.first) + " came back (" +
                    (s.ok() ? "a value" : s.ToString()) + "); ";
      }
    } else if (!s.ok()) {
      problems +=
          "acknowledged key " + Key(kv.first) + ": " + s.ToString() + "; ";
    } else if (got != kv.second) {
      problems += "key " + Key(kv.first) + " reads another value; ";
    }
  }
  return problems;
}

// On a fresh copy of `dbname` at `copy`, removes or zero-fills WAL `wal`,
// then opens the copy twice (the second time with no damage since) and
// checks `model` each time; returns the copy open for more checks.
std::unique_ptr<DB> DamageCopyAndCheck(const std::string& dbname,
                                       const std::string& copy,
                                       const std::string& wal, bool remove,
                                       const Model& model) {
  const std::string point = (remove ? "removed " : "zero-filled ") + wal + ": ";
  EXPECT_EQ("", delsm_test::CopyTree(dbname, copy));
  const std::string path = copy + "/" + wal;
  if (remove) {
    EXPECT_EQ(0, unlink(path.c_str())) << path;
  } else {
    const int fd = open(path.c_str(), O_WRONLY);
    EXPECT_GE(fd, 0) << path;
    const off_t size = lseek(fd, 0, SEEK_END);
    EXPECT_EQ(0, ftruncate(fd, 0));
    EXPECT_EQ(0, ftruncate(fd, size));
    close(fd);
  }
  std::unique_ptr<DB> db = OpenDb(copy, false);
  if (db == nullptr) return db;
  EXPECT_EQ("", Check(db.get(), model)) << point;
  db.reset();
  db = OpenDb(copy, false);
  if (db == nullptr) return db;
  EXPECT_EQ("", Check(db.get(), model)) << point << "(second open)";
  return db;
}

// Puts keys 0..19 and flushes, then deletes every `delete_every`-th and
// flushes: two L0 SSTs, each from a WAL of its own.
void PutsThenDeletes(DBImpl* db, int delete_every, Model* model) {
  for (int i = 0; i < 20; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
    (*model)[i] = Value(i);
  }
  ASSERT_OK(db->TEST_FlushMemTable());
  for (int i = 0; i < 20; i += delete_every) {
    ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
    (*model)[i] = "";
  }
  ASSERT_OK(db->TEST_FlushMemTable());
}

// Puts keys 0..19, flushes, deletes every `delete_every`-th, flushes,
// compacts both SSTs out of L0, puts one more key (left in the live WAL),
// closes; then checks every damage of every WAL but the live one.
void DamagedWalAfterCompaction(int delete_every) {
  delsm_test::TempDir tmp("delsm_retained_wal");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  Model model;
  {
    std::unique_ptr<DB> db = OpenDb(dbname, true);
    ASSERT_NE(nullptr, db);
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    ASSERT_NO_FATAL_FAILURE(PutsThenDeletes(impl, delete_every, &model));
    // Both SSTs to L1, where the deletes have nothing below them: the
    // tombstones are dropped with the values they delete.
    ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));
    ASSERT_EQ("0", [&] {
      std::string n;
      db->GetProperty("leveldb.num-files-at-level0", &n);
      return n;
    }());
    ASSERT_OK(db->Put(WriteOptions(), Key(100), Value(100)));
    model[100] = Value(100);
    ASSERT_EQ("", Check(db.get(), model));
  }

  const std::vector<std::string> wals = Wals(dbname);
  ASSERT_FALSE(wals.empty());
  int copies = 0;
  for (size_t w = 0; w + 1 < wals.size(); w++) {
    for (const bool remove : {true, false}) {
      const std::string copy = tmp.path() + "/copy" + std::to_string(copies++);
      ASSERT_NE(nullptr,
                DamageCopyAndCheck(dbname, copy, wals[w], remove, model));
    }
  }
}

// Two flushes with no compaction between them leave two retained WALs and
// two committed, intact L0 SSTs: the first holds puts, the second deletes
// of some of them. With the second WAL damaged or lost, Open replays the
// first WAL in full and replaces its SST by the replay's, which gets a
// number above the second SST's; the replay's puts are older than the
// second SST's deletes all the same, and a read must say so.
void DamagedLaterWalWithBothFlushesInLevel0(int delete_every) {
  delsm_test::TempDir tmp("delsm_retained_wal_l0");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  Model model;
  {
    std::unique_ptr<DB> db = OpenDb(dbname, true);
    ASSERT_NE(nullptr, db);
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    impl->TEST_KeepDeferredLogs();  // through the close, as a kill does
    ASSERT_NO_FATAL_FAILURE(PutsThenDeletes(impl, delete_every, &model));
    ASSERT_OK(db->Put(WriteOptions(), Key(100), Value(100)));
    model[100] = Value(100);
    ASSERT_EQ("", Check(db.get(), model));
  }
  const std::vector<std::string> wals = Wals(dbname);
  // The two flushed WALs and the live one.
  ASSERT_EQ(3u, wals.size());
  int copies = 0;
  for (const bool remove : {true, false}) {
    const std::string point =
        (remove ? "removed " : "zero-filled ") + wals[1] + ": ";
    const std::string copy = tmp.path() + "/copy" + std::to_string(copies++);
    std::unique_ptr<DB> db =
        DamageCopyAndCheck(dbname, copy, wals[1], remove, model);
    ASSERT_NE(nullptr, db) << point;
    // A compaction of L0 merges by sequence, whatever the order reads take.
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));
    EXPECT_EQ("", Check(db.get(), model)) << point << "(after compaction)";
  }
}

TEST(RetainedWalTest, DamagedLaterWalDoesNotLetTheEarlierReplayHideDeletes) {
  DamagedLaterWalWithBothFlushesInLevel0(2);
}

TEST(RetainedWalTest, DamagedWalDoesNotBringBackWhatACompactionDropped) {
  DamagedWalAfterCompaction(2);
}

// Every key deleted: the compaction writes no output at all.
TEST(RetainedWalTest, DamagedWalDoesNotUndoACompactionThatDroppedAll) {
  DamagedWalAfterCompaction(1);
}

}  // namespace
}  // namespace leveldb
