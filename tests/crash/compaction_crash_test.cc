// Crash safety of compaction: a writer with tiny memtables and
// compaction thresholds (so flushes and link/unlink compactions are always
// in flight) is killed with SIGKILL at random moments, many times over one
// database. After each kill the database opens, every acknowledged put is
// there with its value, every acknowledged delete stays deleted, and once
// background work is done no SST directory is left on disk that the live
// version does not list, and no KV file keeps a second link.
//
// The writer is this test binary re-executed (SpawnSelf). Batch n puts keys
// 4n..4n+3 and deletes key 2n+1, which belongs to an older batch (so the
// delete usually meets a put that compactions have already moved down).
// Writes apply in order, so the recovered database must be exactly batches
// 0..M for some M >= the last acknowledged batch: key i exists iff
// i/4 <= M and (i is even or i > 2M+1).
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "tests/db_options.h"
#include "tests/orphan_check.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;

constexpr int kKeysPerBatch = 4;
constexpr int kCycles = 15;

std::string Key(uint64_t index) { return delsm_test::IndexKey(index); }

// 100 bytes to 4 KiB, a function of the index.
std::string Value(uint64_t index) {
  uint64_t h = index * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  size_t len = 100 + h % 600;
  if (h % 7 == 0) len = 4096;
  std::string v = Key(index) + "=";
  while (v.size() < len) v.push_back(static_cast<char>('a' + (h++ % 26)));
  v.resize(len);
  return v;
}

bool ShouldExist(uint64_t index, int64_t max_batch) {
  if (max_batch < 0) return false;
  const uint64_t m = static_cast<uint64_t>(max_batch);
  if (index / kKeysPerBatch > m) return false;
  return index % 2 == 0 || index > 2 * m + 1;
}

Options DbOptions() { return delsm_test::NewDbOptions(32 << 10); }

delsm::Tuning DbTuning() {
  delsm::Tuning t = delsm_test::SmallLevels(64, 32, 128);
  t.l0_slowdown_dirs = 4;
  t.l0_stop_dirs = 8;
  return t;
}

// The writer process. Runs only when started by the test below.
TEST(CompactionCrashWriter, Child) {
  delsm_test::WriterChildArgs args;
  if (!delsm_test::WriterChildArgsFromEnv("COMPCRASH", &args)) {
    GTEST_SKIP() << "helper for CompactionCrashTest";
  }
  DB* db = nullptr;
  delsm_test::ExitUnlessOpened(
      delsm::Open(DbOptions(), DbTuning(), args.db, &db));
  delsm_test::WriteBatchesUntilKilled(
      db, args, leveldb::WriteOptions(),
      [](uint64_t batch_no, leveldb::WriteBatch* batch) {
        for (int j = 0; j < kKeysPerBatch; j++) {
          uint64_t index = batch_no * kKeysPerBatch + j;
          batch->Put(Key(index), Value(index));
        }
        batch->Delete(Key(2 * batch_no + 1));
      });
}

class CompactionCrashTest : public testing::Test {
 protected:
  CompactionCrashTest() : dir_("compcrash") { dbname_ = dir_.path() + "/db"; }

  // Opens the database and checks its contents (see the file comment) and
  // that no orphan directory or link is left. Returns M, -1 if empty, -2 on
  // failure.
  int64_t Verify(int64_t last_acked) {
    DB* dbptr = nullptr;
    Status s = delsm::Open(DbOptions(), DbTuning(), dbname_, &dbptr);
    EXPECT_TRUE(s.ok()) << "reopen after kill: " << s.ToString();
    if (!s.ok()) return -2;
    std::unique_ptr<DB> db(dbptr);

    int64_t max_batch = -1;
    std::set<uint64_t> present;
    const std::string scan = delsm_test::ScanIndexKeys(
        db.get(), kKeysPerBatch, Value, &max_batch, &present);
    if (!scan.empty()) {
      ADD_FAILURE() << scan;
      return -2;
    }
    EXPECT_GE(max_batch, last_acked) << "acknowledged batches are missing";
    const uint64_t limit =
        max_batch < 0 ? 0 : (static_cast<uint64_t>(max_batch) + 1) * 4;
    for (uint64_t i = 0; i < limit; i++) {
      const bool expected = ShouldExist(i, max_batch);
      if (expected != (present.count(i) > 0)) {
        ADD_FAILURE() << Key(i) << (expected ? " missing" : " reappeared")
                      << " (M=" << max_batch << ")";
        return -2;
      }
    }
    // Point reads of the newest keys and a sample of the rest.
    for (uint64_t i = 0; i < limit; i++) {
      if (i + 200 < limit && i % 23 != 0) continue;
      std::string value;
      s = db->Get(ReadOptions(), Key(i), &value);
      if (ShouldExist(i, max_batch)) {
        EXPECT_TRUE(s.ok() && value == Value(i)) << Key(i) << s.ToString();
      } else {
        EXPECT_TRUE(s.IsNotFound()) << Key(i) << ": " << s.ToString();
      }
      if (HasFailure()) return -2;
    }

    // Orphans. The checks above ran while the compactions that opening
    // started were in flight; like LevelDB, the engine removes directories
    // a reader kept alive only at the next compaction or open. So reopen
    // (which collects whatever the killed writer and that session left),
    // let background work finish with nothing reading, and close (which
    // waits for the background threads, including removals they do after a
    // compaction with the mutex released). Then every SST directory on disk
    // must be one the live version lists, at its level, and every KV file
    // must have a single link.
    db.reset();
    s = delsm::Open(DbOptions(), DbTuning(), dbname_, &dbptr);
    EXPECT_TRUE(s.ok()) << "second reopen: " << s.ToString();
    if (!s.ok()) return -2;
    db.reset(dbptr);
    s = static_cast<leveldb::DBImpl*>(db.get())->TEST_WaitForBackgroundWork();
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::string sstables;
    EXPECT_TRUE(db->GetProperty("leveldb.sstables", &sstables));
    db.reset();
    for (const std::string& finding :
         delsm_test::OrphanSstEntries(dbname_, sstables)) {
      ADD_FAILURE() << finding << "\n" << sstables;
    }
    if (HasFailure()) {
      // The engine's info log tells which removals it tried.
      std::string log_text;
      leveldb::ReadFileToString(leveldb::Env::Default(), dbname_ + "/LOG",
                                &log_text);
      std::fprintf(stderr, "--- LOG ---\n%s\n", log_text.c_str());
      return -2;
    }
    return max_batch;
  }

  delsm_test::TempDir dir_;
  std::string dbname_;
};

TEST_F(CompactionCrashTest, AcknowledgedWritesAndDeletesSurviveSigkill) {
  ASSERT_FALSE(dir_.path().empty());
  const uint64_t seed = delsm_test::RandomSeed("compaction crash test");
  std::mt19937 rng(static_cast<uint32_t>(seed));
  RecordProperty("seed", std::to_string(seed));

  int64_t last_batch = -1;
  for (int cycle = 0; cycle < kCycles; cycle++) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    const int target_acks = 50 + rng() % 600;
    const int extra_delay_ms = (rng() % 3 == 0) ? rng() % 40 : 0;
    delsm_test::KilledWriter writer;
    const std::string error = delsm_test::RunWriterUntilKilled(
        "CompactionCrashWriter.Child",
        {{"COMPCRASH_DB", dbname_},
         {"COMPCRASH_START", std::to_string(last_batch + 1)}},
        "COMPCRASH_FD", last_batch, target_acks, extra_delay_ms, &writer);
    ASSERT_TRUE(error.empty()) << error;
    const int64_t last_acked = writer.last_acked;

    int64_t recovered = Verify(last_acked);
    ASSERT_FALSE(HasFailure());
    ASSERT_GE(recovered, last_acked);
    last_batch = recovered;
  }
  // Compactions must have run, not just flushes.
  DB* dbptr = nullptr;
  ASSERT_TRUE(delsm::Open(DbOptions(), DbTuning(), dbname_, &dbptr).ok());
  std::unique_ptr<DB> db(dbptr);
  int deepest = 0;
  for (int level = 1; level < 7; level++) {
    std::string v;
    ASSERT_TRUE(db->GetProperty(
        "leveldb.num-files-at-level" + std::to_string(level), &v));
    if (std::atoi(v.c_str()) > 0) deepest = level;
  }
  EXPECT_GE(deepest, 2) << "the workload never reached L2";
}

}  // namespace
