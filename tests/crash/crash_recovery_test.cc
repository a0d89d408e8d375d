// Crash recovery: a process writing with sync=false is
// killed with SIGKILL at a random moment during writes and flushes; on
// reopen every write it had acknowledged is there with the right value and
// the database is consistent. Repeated many times on one database.
//
// Why sync=false is enough here: a process kill (unlike a power failure)
// leaves what the process wrote with write(2) in the OS page cache, so an
// acknowledged write must survive it. That is LevelDB's promise.
//
// The writer is this test binary re-executed (see SpawnSelf), so that it
// starts with a clean copy of the library. It writes batches numbered n =
// start, start+1, ...; batch n puts keys 8n..8n+7 (value a function of the
// key's index) and deletes key 8(n-1)+3. After each Write returns it sends n
// to the parent through a pipe. Because writes are applied in order, the
// recovered database must hold exactly batches 0..M for some M >= the last
// acknowledged batch.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "tests/db_options.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;

constexpr int kKeysPerBatch = 8;
constexpr int kDeletedSlot = 3;  // batch n deletes key slot 3 of batch n-1
constexpr int kCycles = 25;
constexpr size_t kWriteBuffer = 64 << 10;

std::string Key(uint64_t index) { return delsm_test::IndexKey(index); }

// Mostly small values, sometimes a few KiB, rarely 40 KB, so that memtables
// fill at irregular moments.
std::string Value(uint64_t index) {
  uint64_t h = index * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  size_t len = 20 + h % 300;
  if (h % 13 == 0) len = 4096;
  if (h % 211 == 0) len = 40000;
  std::string v = Key(index) + ":";
  while (v.size() < len) v.push_back(static_cast<char>('A' + (h++ % 53)));
  v.resize(len);
  return v;
}

Options DbOptions() { return delsm_test::NewDbOptions(kWriteBuffer); }

// The writer process. Runs only when started by the test below.
TEST(CrashWriter, Child) {
  delsm_test::WriterChildArgs args;
  if (!delsm_test::WriterChildArgsFromEnv("CRASHTEST", &args)) {
    GTEST_SKIP() << "helper for CrashRecoveryTest";
  }
  DB* db = nullptr;
  delsm_test::ExitUnlessOpened(DB::Open(DbOptions(), args.db, &db));
  leveldb::WriteOptions wo;
  wo.sync = false;
  delsm_test::WriteBatchesUntilKilled(
      db, args, wo, [](uint64_t batch_no, leveldb::WriteBatch* batch) {
        for (int j = 0; j < kKeysPerBatch; j++) {
          uint64_t index = batch_no * kKeysPerBatch + j;
          batch->Put(Key(index), Value(index));
        }
        if (batch_no > 0) {
          batch->Delete(Key((batch_no - 1) * kKeysPerBatch + kDeletedSlot));
        }
      });
}

class CrashRecoveryTest : public testing::Test {
 protected:
  CrashRecoveryTest() : dir_("crashtest") { dbname_ = dir_.path() + "/db"; }

  // Opens the database, checks that it holds exactly batches 0..M with
  // M >= last_acked (-1: nothing acknowledged yet), and returns M (-1 if
  // the database is empty).
  int64_t VerifyAndGetLastBatch(int64_t last_acked) {
    DB* dbptr = nullptr;
    Status s = DB::Open(DbOptions(), dbname_, &dbptr);
    EXPECT_TRUE(s.ok()) << "reopen after kill: " << s.ToString();
    if (!s.ok()) return -2;
    std::unique_ptr<DB> db(dbptr);

    // Pass 1: every key well-formed with the right value; find M.
    int64_t max_batch = -1;
    std::set<uint64_t> present;
    const std::string scan = delsm_test::ScanIndexKeys(
        db.get(), kKeysPerBatch, Value, &max_batch, &present);
    if (!scan.empty()) {
      ADD_FAILURE() << scan;
      return -2;
    }
    const uint64_t count = present.size();
    EXPECT_GE(max_batch, last_acked) << "acknowledged batches are missing";

    // Pass 2: batches 0..M are all there, each deleted key is gone, and
    // nothing else is (a hole would mean a later write survived an
    // earlier one).
    uint64_t expected =
        max_batch < 0 ? 0
                      : static_cast<uint64_t>(max_batch) * (kKeysPerBatch - 1) +
                            kKeysPerBatch;
    EXPECT_EQ(expected, count) << "holes or extra keys; M=" << max_batch;
    for (int64_t b = 0; b <= max_batch; b++) {
      for (int j = 0; j < kKeysPerBatch; j++) {
        uint64_t index = b * kKeysPerBatch + j;
        bool should_exist = !(j == kDeletedSlot && b < max_batch);
        // Get of every key of the newest batches and a sample of the rest.
        if (b + 20 < max_batch && index % 17 != 0) continue;
        std::string value;
        s = db->Get(ReadOptions(), Key(index), &value);
        if (should_exist) {
          EXPECT_TRUE(s.ok()) << Key(index) << ": " << s.ToString();
          EXPECT_TRUE(value == Value(index)) << Key(index);
        } else {
          EXPECT_TRUE(s.IsNotFound()) << Key(index) << ": " << s.ToString();
        }
        if (HasFailure()) return -2;
      }
    }
    return max_batch;
  }

  delsm_test::TempDir dir_;
  std::string dbname_;
};

TEST_F(CrashRecoveryTest, AcknowledgedWritesSurviveSigkill) {
  ASSERT_FALSE(dir_.path().empty());
  const uint64_t seed = delsm_test::RandomSeed("crash test");
  std::mt19937 rng(static_cast<uint32_t>(seed));
  RecordProperty("seed", std::to_string(seed));

  int64_t last_batch = -1;  // newest batch in the database
  int kills_after_flush_sized_writes = 0;
  for (int cycle = 0; cycle < kCycles; cycle++) {
    SCOPED_TRACE("cycle " + std::to_string(cycle));
    // Kill after a random number of acknowledged batches (plus, sometimes,
    // a random few milliseconds), which lands at arbitrary points of the
    // writer's WAL appends, memtable switches and background flushes.
    const int target_acks = 1 + rng() % 700;
    const int extra_delay_ms = (rng() % 3 == 0) ? rng() % 30 : 0;
    delsm_test::KilledWriter writer;
    const std::string error = delsm_test::RunWriterUntilKilled(
        "CrashWriter.Child",
        {{"CRASHTEST_DB", dbname_},
         {"CRASHTEST_START", std::to_string(last_batch + 1)}},
        "CRASHTEST_FD", last_batch, target_acks, extra_delay_ms, &writer);
    ASSERT_TRUE(error.empty()) << error;
    const int acks = writer.acks;
    const int64_t last_acked = writer.last_acked;
    if (static_cast<uint64_t>(acks) * kKeysPerBatch * 300 > kWriteBuffer) {
      kills_after_flush_sized_writes++;
    }

    int64_t recovered = VerifyAndGetLastBatch(last_acked);
    ASSERT_FALSE(HasFailure());
    ASSERT_GE(recovered, last_acked);
    last_batch = recovered;
  }
  // The kills must have happened while memtables were being flushed, not
  // only before the first one filled.
  EXPECT_GE(kills_after_flush_sized_writes, kCycles / 2);
}

}  // namespace
