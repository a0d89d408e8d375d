// Parallel flush (delsm::Tuning::flush_threads): several immutable memtables
// are built into L0 SST directories at once, and committed in queue order.
// L0 is ordered by SST number (the higher number holds the newer writes), so
// a flush committed out of order, or a retried flush whose new number sorts
// after a newer memtable's, serves an overwritten value. These tests
// overwrite and delete the same keys in every memtable, with compaction off
// so that every flush stays a separate L0 SST, and check the newest version
// of every key by Get and by scan, before and after reopening.
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/held_call_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::TempDir;

constexpr int kKeysPerRound = 32;

// Round r writes keys of its own and overwrites (or deletes) those of round
// r-1, which no later round touches: two versions of a key in two nearby
// memtables, so that flushes committed out of order leave a wrong value
// that no later write hides.
std::string KeyName(int round, int k) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "r%05d-k%03d", round, k);
  return buf;
}

// Every value a KV file of its own (inline_threshold 0), ~1 KiB: a flush
// is slow against the writer, so memtables queue up for the workers.
std::string ValueFor(int round, int k, int version) {
  return "v" + std::to_string(version) + "-r" + std::to_string(round) + "-k" +
         std::to_string(k) + std::string(1000, 'a' + (round + k) % 26);
}

// No compaction: every flush stays its own L0 SST, ordered by number.
delsm::Tuning ParallelTuning(int flush_threads) {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.flush_threads = flush_threads;
  t.inline_threshold = 0;
  return t;
}

Options SmallMemtables() {
  Options o;
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;  // LevelDB's smallest: ~60 values each
  return o;
}

uint64_t Property(DB* db, const std::string& name) {
  std::string v;
  if (!db->GetProperty(name, &v)) return 0;
  return std::strtoull(v.c_str(), nullptr, 10);
}

using Model = std::map<std::string, std::string>;

Status WriteRounds(DB* db, int first_round, int rounds, Model* model) {
  for (int r = first_round; r < first_round + rounds; r++) {
    for (int k = 0; k < kKeysPerRound; k++) {
      const std::string key = KeyName(r, k);
      Status s = db->Put(WriteOptions(), key, ValueFor(r, k, 1));
      if (!s.ok()) return s;
      (*model)[key] = ValueFor(r, k, 1);
      if (r == 0) continue;
      const std::string older = KeyName(r - 1, k);
      if (k % 5 == 0) {
        s = db->Delete(WriteOptions(), older);
        model->erase(older);
      } else {
        s = db->Put(WriteOptions(), older, ValueFor(r - 1, k, 2));
        (*model)[older] = ValueFor(r - 1, k, 2);
      }
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

// Every key written so far (rounds [0, rounds)) reads as `model` says, by
// Get and by a scan.
void ExpectHolds(DB* db, int rounds, const Model& model,
                 const std::string& when) {
  int wrong = 0;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < kKeysPerRound; k++) {
      const std::string key = KeyName(r, k);
      std::string v;
      Status s = db->Get(ReadOptions(), key, &v);
      auto it = model.find(key);
      const std::string want =
          it == model.end() ? "(deleted)" : it->second.substr(0, 16);
      const std::string got = s.ok()           ? v.substr(0, 16)
                              : s.IsNotFound() ? "(deleted)"
                                               : s.ToString();
      if (want != got && wrong++ < 5) {
        ADD_FAILURE() << when << ": " << key << " holds " << got
                      << ", expected " << want;
      }
    }
  }
  EXPECT_EQ(0, wrong) << when;
  Model scanned;
  std::unique_ptr<Iterator> iter(db->NewIterator(ReadOptions()));
  for (iter->SeekToFirst(); iter->Valid(); iter->Next()) {
    scanned[iter->key().ToString()] = iter->value().ToString();
  }
  ASSERT_TRUE(iter->status().ok()) << iter->status().ToString();
  EXPECT_TRUE(scanned == model) << when << ": the scan differs";
}

constexpr int kRounds = 60;

TEST(ParallelFlushTest, NewestVersionWinsAcrossConcurrentFlushes) {
  TempDir tmp("delsm_parallel_flush");
  const std::string dbname = tmp.path() + "/db";
  Model model;
  DB* db = nullptr;
  ASSERT_TRUE(
      delsm::Open(SmallMemtables(), ParallelTuning(4), dbname, &db).ok());
  ASSERT_TRUE(WriteRounds(db, 0, kRounds, &model).ok());
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  // About 4,000 writes of ~1 KiB: dozens of memtables, flushed by four
  // workers; at least two built at once, or this tested nothing.
  EXPECT_GE(Property(db, "delsm.max-parallel-flushes"), 2u);
  EXPECT_GE(Property(db, "delsm.flushes"), 20u);
  ExpectHolds(db, kRounds, model, "after the flushes");
  delete db;

  for (int threads : {4, 1}) {
    ASSERT_TRUE(
        delsm::Open(SmallMemtables(), ParallelTuning(threads), dbname, &db)
            .ok());
    ExpectHolds(db, kRounds, model,
                "reopened, flush_threads=" + std::to_string(threads));
    delete db;
  }
}

TEST(ParallelFlushTest, RetriedFlushKeepsTheOrder) {
  // Flushes that run out of file descriptors are retried; a retried flush
  // takes a new SST number, so every later flush already built or being
  // built must be built again after it. Descriptor exhaustion is injected
  // at random file creates while four workers flush.
  TempDir tmp("delsm_parallel_flush_retry");
  const std::string dbname = tmp.path() + "/db";
  const uint64_t seed = delsm_test::RandomSeed("ParallelFlushTest.Retried");
  std::mt19937 rng(seed);
  FaultInjectionFileSystem fs(FileSystem::Default());
  Model model;
  DB* db = nullptr;
  ASSERT_TRUE(
      OpenWithFileSystem(SmallMemtables(), ParallelTuning(4), dbname, &fs, &db)
          .ok());
  int injected = 0;
  for (int batch = 0; batch < kRounds; batch++) {
    if (batch < kRounds - 10 && (injected == 0 || fs.Fired())) {
      if (fs.Fired()) injected++;
      FaultSpec spec;
      spec.nth = 1 + rng() % 100;
      spec.err = EMFILE;
      fs.Arm(FsOp::kOpen, spec);
    } else if (batch >= kRounds - 10) {
      fs.Disarm();
    }
    // Writes never read a KV file, so only flushes meet the fault.
    Status s = WriteRounds(db, batch, 1, &model);
    ASSERT_TRUE(s.ok()) << s.ToString() << ", seed " << seed;
  }
  fs.Disarm();
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok())
      << "seed " << seed;
  EXPECT_GE(injected, 5) << "seed " << seed;
  ExpectHolds(db, kRounds, model,
              "after retried flushes, seed " + std::to_string(seed));
  delete db;
  ASSERT_TRUE(
      delsm::Open(SmallMemtables(), ParallelTuning(4), dbname, &db).ok());
  ExpectHolds(db, kRounds, model, "reopened, seed " + std::to_string(seed));
  delete db;
}

// A memtable of inline values starts beside another build only while a
// writer is stopped for the queue: a second build would otherwise take a
// core from the writers (on two cores, the writer, two builds and the
// compaction compete for them). While the first flush is held in the file
// system, the queue fills to its limit with a single build; the write that
// finds it full stops, and then the idle workers start. Then every memtable
// is flushed, newest values intact.
TEST(ParallelFlushTest, InlineMemtableStartsBesideABuildOnlyForAStoppedWriter) {
  TempDir tmp("delsm_parallel_flush_inline");
  const std::string dbname = tmp.path() + "/db";
  delsm_test::HeldCallFileSystem fs;
  delsm::Tuning tuning = delsm_test::ManualCompactionOnly();
  tuning.flush_threads = 4;
  DB* db = nullptr;
  ASSERT_TRUE(
      OpenWithFileSystem(SmallMemtables(), tuning, dbname, &fs, &db).ok());
  // The first flush opens L0's or its SST's directory to make it durable
  // (an SST of inline values is durable when its flush ends).
  const int hold = fs.Hold("delsm-flush", "/L0");
  Model model;
  const std::string inline_value(100, 'i');
  int written = 0;
  // Writes until `queued` memtables wait for a flush (the writer would stop
  // at four).
  auto write_until = [&](uint64_t queued) {
    while (Property(db, "delsm.immutable-memtables") < queued) {
      ASSERT_LT(written, 100000) << "no memtable was queued";
      const std::string key = KeyName(written / kKeysPerRound, written);
      ASSERT_TRUE(db->Put(WriteOptions(), key, inline_value).ok());
      model[key] = inline_value;
      written++;
    }
  };
  write_until(1);
  ASSERT_TRUE(fs.WaitUntilHeld(hold)) << "no flush opened a directory";
  // The queue fills to its limit; three idle workers are told of each
  // memtable, and none starts while the writer still runs.
  write_until(config::kMaxImmutableMemtables);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(1u, Property(db, "delsm.max-parallel-flushes"));
  EXPECT_EQ(0u, Property(db, "delsm.flushes"));
  // A writer fills the active memtable and stops for the full queue: more
  // builds start beside the held one.
  std::map<std::string, std::string> late;
  std::thread writer([&] {
    for (int i = 0; Property(db, "delsm.max-parallel-flushes") < 2; i++) {
      if (i >= 100000) break;
      const std::string key = KeyName(1000000 + i / kKeysPerRound, i);
      if (!db->Put(WriteOptions(), key, inline_value).ok()) break;
      late[key] = inline_value;
    }
  });
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (Property(db, "delsm.max-parallel-flushes") < 2 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(Property(db, "delsm.max-parallel-flushes"), 2u);
  fs.Release(hold);
  writer.join();
  model.insert(late.begin(), late.end());
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_FlushMemTable().ok());
  EXPECT_GE(Property(db, "delsm.flushes"), 4u);
  for (const auto& kv : model) {
    std::string value;
    ASSERT_TRUE(db->Get(ReadOptions(), kv.first, &value).ok()) << kv.first;
    EXPECT_EQ(kv.second, value) << kv.first;
  }
  delete db;
}

TEST(ParallelFlushTest, OutOfRangeIsRefused) {
  TempDir tmp("delsm_parallel_flush_range");
  for (int threads : {0, 5}) {
    DB* db = nullptr;
    Status s = delsm::Open(SmallMemtables(), ParallelTuning(threads),
                           tmp.path() + "/db", &db);
    EXPECT_TRUE(s.IsInvalidArgument()) << threads << ": " << s.ToString();
    EXPECT_EQ(nullptr, db);
  }
}

}  // namespace
}  // namespace leveldb
