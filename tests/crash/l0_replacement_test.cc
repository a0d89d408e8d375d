// In kSyncfs and kDeferred a flush commits its L0 SST before the SST is
// durable and keeps the flushed memtable's WAL instead, so recovery may
// replace an L0 SST by the replay of that WAL. These tests prove that Open
// replaces one only when the replay provably holds every write the SST
// holds, and never because the SST could not be read at that moment:
//
// - an L0 SST whose meta file is damaged, or cannot be opened for a while,
//   and whose writes the replayed WALs do not hold, stays in the manifest
//   and its directory stays on disk: its keys read as Corruption (never as
//   NotFound), and once the damage is repaired every key reads again;
// - an L0 SST directory that is missing while the replay does not hold its
//   writes fails Open with Corruption naming it, and deletes nothing;
// - a retained WAL damaged in the middle does not replace the intact SST
//   its flush wrote: the replay has a gap, so it holds fewer writes;
// - an SST never made durable that a power loss tore (a KV file zero-filled
//   at its full length) is replaced by the replay of its WAL's surviving
//   prefix, whose writes then read their values, not Corruption.
//
// Every mode runs each case: kFsync never replaces an L0 SST, and must give
// the same answers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

constexpr int kKeys = 100;

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%03d", i);
  return buf;
}

std::string Value(int i) {
  return std::to_string(i) + std::string(300, 'a' + i % 26);
}

struct Mode {
  const char* name;
  delsm::Durability durability;
  bool values_stay_put;
  size_t inline_threshold;
};

const Mode kModes[] = {
    {"syncfs", delsm::Durability::kSyncfs, false, 2048},
    {"syncfs_files", delsm::Durability::kSyncfs, false, 0},
    {"deferred", delsm::Durability::kDeferred, false, 2048},
    {"deferred_stay_put", delsm::Durability::kDeferred, true, 0},
    {"fsync", delsm::Durability::kFsync, false, 0},
};

void PrintTo(const Mode& m, std::ostream* os) { *os << m.name; }

// Nothing leaves L0 unless the test says so.
delsm::Tuning TuningFor(const Mode& m) {
  delsm::Tuning t = delsm_test::ManualCompactionOnly();
  t.durability = m.durability;
  t.values_stay_put = m.values_stay_put;
  t.inline_threshold = m.inline_threshold;
  t.deferred_wal_retention_micros = 3600ull * 1000 * 1000;
  return t;
}

off_t FileSize(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return -1;
  return st.st_size;
}

class L0ReplacementTest : public testing::TestWithParam<Mode> {
 protected:
  void SetUp() override { ASSERT_FALSE(tmp_.path().empty()); }

  Status Open() {
    db_.reset();
    Options options;
    options.create_if_missing = true;
    DB* db = nullptr;
    Status s = delsm::Open(options, TuningFor(GetParam()), dbname_, &db);
    db_.reset(db);
    return s;
  }

  // k000..k099 flushed into one L0 SST, then one more write that only the
  // newest WAL holds (so that the next Open replays a WAL), then a close
  // that (kDeferred) keeps the flushed memtable's WAL, as a kill does.
  void Build() {
    ASSERT_OK(Open());
    static_cast<DBImpl*>(db_.get())->TEST_KeepDeferredLogs();
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i)));
    }
    ASSERT_OK(static_cast<DBImpl*>(db_.get())->TEST_FlushMemTable());
    ASSERT_OK(db_->Put(WriteOptions(), "later", "v"));
    db_.reset();
    std::vector<std::string> l0 = delsm_test::ListDir(dbname_ + "/L0");
    ASSERT_EQ(1u, l0.size());
    sst_dir_ = dbname_ + "/L0/" + l0[0];
  }

  // Sets *wal to the retained WAL of the memtable Build flushed (the oldest
  // one: the mode must have kept it) and *size to its size.
  void FindFlushedWal(std::string* wal, off_t* size) {
    std::string oldest;
    for (const std::string& name : delsm_test::ListDir(dbname_)) {
      if (name.size() > 4 && name.substr(name.size() - 4) == ".log") {
        oldest = name;
        break;
      }
    }
    ASSERT_FALSE(oldest.empty());
    *wal = dbname_ + "/" + oldest;
    *size = FileSize(*wal);
    ASSERT_GE(*size, 4 * 1024)
        << oldest << " is not the flushed memtable's WAL";
  }

  // Every key reads its value, or (with `damaged`) Corruption; never
  // NotFound. Returns how many read their value.
  int CheckKeys(bool damaged) {
    int found = 0;
    for (int i = 0; i < kKeys; i++) {
      std::string got;
      Status s = db_->Get(ReadOptions(), Key(i), &got);
      if (s.ok()) {
        EXPECT_EQ(Value(i), got) << Key(i);
        found++;
      } else {
        EXPECT_TRUE(damaged && s.IsCorruption())
            << Key(i) << " (" << GetParam().name << "): " << s.ToString();
      }
    }
    std::string got;
    Status s = db_->Get(ReadOptions(), "later", &got);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return found;
  }

  // Opens and closes the database once with every open of a path that
  // contains `path_contains` failing with `err` (whether or not the Open
  // succeeds: the next Open must see everything). True if an open failed.
  bool OpenOnceWithFailingOpens(int err, const std::string& path_contains) {
    FaultInjectionFileSystem faults(FileSystem::Default());
    FaultSpec spec;
    spec.err = err;
    spec.sticky = true;
    spec.path_contains = path_contains;
    faults.Arm(FsOp::kOpen, spec);
    DB* db = nullptr;
    Status s = OpenWithFileSystem(Options(), TuningFor(GetParam()), dbname_,
                                  &faults, &db);
    delete db;
    return faults.Fired();
  }

  // Keys 0..n-1 each read their value: no Corruption, no NotFound.
  void ExpectFirstKeysRead(int n) {
    for (int i = 0; i < n; i++) {
      std::string got;
      Status s = db_->Get(ReadOptions(), Key(i), &got);
      ASSERT_TRUE(s.ok()) << Key(i) << " (" << GetParam().name
                          << "): " << s.ToString();
      EXPECT_EQ(Value(i), got) << Key(i);
    }
  }

  delsm_test::TempDir tmp_{"delsm_l0_replacement"};
  const std::string dbname_ = tmp_.path() + "/db";
  std::string sst_dir_;
  std::unique_ptr<DB> db_;
};

// Flips one byte of `path` at `offset_from_start`; flipping it twice
// restores the file.
void FlipByte(const std::string& path, off_t offset_from_start) {
  int fd = open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0) << path;
  char c;
  ASSERT_EQ(1, pread(fd, &c, 1, offset_from_start)) << path;
  c ^= 0x40;
  ASSERT_EQ(1, pwrite(fd, &c, 1, offset_from_start)) << path;
  close(fd);
}

// Overwrites `n` bytes of `path` from `offset` with zeros, as a power loss
// leaves a block that was allocated but never written.
void ZeroBytes(const std::string& path, off_t offset, size_t n) {
  int fd = open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0) << path;
  const std::string zeros(n, '\0');
  ASSERT_EQ(static_cast<ssize_t>(n), pwrite(fd, zeros.data(), n, offset))
      << path;
  close(fd);
}

TEST_P(L0ReplacementTest, DamagedMetaFileIsKeptAndReadsAsCorruption) {
  ASSERT_NO_FATAL_FAILURE(Build());
  const std::string meta = sst_dir_ + "/META";
  const off_t middle = FileSize(meta) / 2;
  ASSERT_GT(middle, 0);
  ASSERT_NO_FATAL_FAILURE(FlipByte(meta, middle));

  // In a mode whose flush WAL is still retained, the replay may hold all
  // of the SST's writes and replace it; otherwise the SST must stay.
  Status s = Open();
  ASSERT_TRUE(s.ok()) << s.ToString();
  const int found = CheckKeys(/*damaged=*/true);
  db_.reset();

  // Repaired, every key reads again: nothing was dropped.
  if (FileSize(meta) >= 0) ASSERT_NO_FATAL_FAILURE(FlipByte(meta, middle));
  ASSERT_OK(Open());
  EXPECT_EQ(kKeys, CheckKeys(/*damaged=*/false)) << "found before: " << found;
}

TEST_P(L0ReplacementTest, MissingL0DirectoryFailsOpenUnlessReplayHoldsIt) {
  ASSERT_NO_FATAL_FAILURE(Build());
  const std::string aside = tmp_.path() + "/aside.sst";
  ASSERT_EQ(0, rename(sst_dir_.c_str(), aside.c_str()));

  Status s = Open();
  if (s.ok()) {
    // Only a replay that holds every write of the SST may stand in for it.
    EXPECT_EQ(kKeys, CheckKeys(/*damaged=*/false));
    return;
  }
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(sst_dir_)) << s.ToString();
  db_.reset();
  // Open deleted nothing: with the directory back, everything reads.
  ASSERT_EQ(0, rename(aside.c_str(), sst_dir_.c_str()));
  ASSERT_OK(Open());
  EXPECT_EQ(kKeys, CheckKeys(/*damaged=*/false));
}

// Only kDeferred keeps a flushed memtable's WAL until a kill (Build keeps
// it through the close).
class L0ReplacementDeferredTest : public L0ReplacementTest {};

// The same, in the modes whose values are KV files.
class L0ReplacementKvFilesTest : public L0ReplacementTest {};

TEST_P(L0ReplacementDeferredTest, DamagedRetainedWalDoesNotReplaceIntactSst) {
  ASSERT_NO_FATAL_FAILURE(Build());
  std::string wal;
  off_t size = 0;
  ASSERT_NO_FATAL_FAILURE(FindFlushedWal(&wal, &size));
  ASSERT_NO_FATAL_FAILURE(FlipByte(wal, size / 2));
  ASSERT_OK(Open());
  EXPECT_EQ(kKeys, CheckKeys(/*damaged=*/false));
}

// A power loss that tears the retained WAL's unsynced tail and leaves a
// KV file of the (not durable) SST zero-filled at its full length: the
// SST's meta file reads and names only files that are listed, so it stays
// beside the replay of the WAL's surviving prefix. A write in that prefix
// (synced, as far as the promise goes) must read its value from the
// replay, not Corruption from the torn copy the SST holds.
TEST_P(L0ReplacementKvFilesTest, TornKvFileOfKeptSstDoesNotHideReplayedWrite) {
  ASSERT_NO_FATAL_FAILURE(Build());
  std::string wal;
  off_t size = 0;
  ASSERT_NO_FATAL_FAILURE(FindFlushedWal(&wal, &size));
  // The tail is lost: the records of the last keys are gone, those of the
  // first half (k005 among them) survive.
  ASSERT_EQ(0, truncate(wal.c_str(), size / 2));
  // k005's KV file, in the SST directory or in its home.
  std::string kv;
  std::vector<std::string> places = {sst_dir_};
  for (const std::string& home : delsm_test::ListDir(dbname_ + "/values")) {
    places.push_back(dbname_ + "/values/" + home);
  }
  for (const std::string& dir : places) {
    for (const std::string& name : delsm_test::ListDir(dir)) {
      if (name.compare(0, 5, Key(5) + "@") == 0) kv = dir + "/" + name;
    }
  }
  ASSERT_FALSE(kv.empty()) << "no KV file of " << Key(5);
  const off_t kv_size = FileSize(kv);
  ASSERT_GT(kv_size, 0);
  ASSERT_NO_FATAL_FAILURE(ZeroBytes(kv, 0, static_cast<size_t>(kv_size)));

  ASSERT_OK(Open());
  ASSERT_NO_FATAL_FAILURE(ExpectFirstKeysRead(10));
}

TEST_P(L0ReplacementTest, MetaFileThatCannotBeOpenedAtOpenIsNotDropped) {
  ASSERT_NO_FATAL_FAILURE(Build());
  // Every open of a meta file fails as if the process were out of
  // descriptors, for the whole of one Open.
  OpenOnceWithFailingOpens(EMFILE, "/META");
  ASSERT_OK(Open());
  EXPECT_EQ(kKeys, CheckKeys(/*damaged=*/false));
}

// The WAL lost its tail, as in TornKvFileOfKeptSstDoesNotHideReplayedWrite,
// but the SST is whole and its KV files cannot be read for the length of
// one Open (EIO): that is no evidence of a tear, so the SST stays, and
// once the reads work again every key it holds reads its value, the ones
// the shortened WAL no longer holds among them.
TEST_P(L0ReplacementKvFilesTest, KvFileReadErrorAtOpenDoesNotDropSst) {
  ASSERT_NO_FATAL_FAILURE(Build());
  std::string wal;
  off_t size = 0;
  ASSERT_NO_FATAL_FAILURE(FindFlushedWal(&wal, &size));
  ASSERT_EQ(0, truncate(wal.c_str(), size / 2));
  // Every KV file (its name holds its sequence after '@') fails to open
  // with EIO for the whole of one Open.
  ASSERT_TRUE(OpenOnceWithFailingOpens(EIO, "@")) << "no KV file was read";
  ASSERT_OK(Open());
  EXPECT_EQ(kKeys, CheckKeys(/*damaged=*/false));
}

// Values inline in the meta file: a power loss tears the WAL's unsynced
// tail and zero-fills the start of the (not durable) SST's value section,
// leaving its index and footer whole. As with a torn KV file, a write in
// the WAL's surviving prefix must read its value from the replay, not
// Corruption from the torn copy the SST holds.
TEST_P(L0ReplacementDeferredTest, TornInlineValueOfKeptSstDoesNotHideReplay) {
  if (GetParam().inline_threshold == 0) GTEST_SKIP() << "no inline values";
  ASSERT_NO_FATAL_FAILURE(Build());
  std::string wal;
  off_t size = 0;
  ASSERT_NO_FATAL_FAILURE(FindFlushedWal(&wal, &size));
  ASSERT_EQ(0, truncate(wal.c_str(), size / 2));
  const std::string meta = sst_dir_ + "/META";
  ASSERT_GT(FileSize(meta), 4096);
  // The first bytes of the value section (after the 12-byte head), which
  // hold k000's value.
  ASSERT_NO_FATAL_FAILURE(ZeroBytes(meta, 12, 64));

  ASSERT_OK(Open());
  ASSERT_NO_FATAL_FAILURE(ExpectFirstKeysRead(10));
}

std::string ModeName(const testing::TestParamInfo<Mode>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Modes, L0ReplacementTest, testing::ValuesIn(kModes),
                         ModeName);
INSTANTIATE_TEST_SUITE_P(Modes, L0ReplacementDeferredTest,
                         testing::Values(kModes[2], kModes[3]), ModeName);
INSTANTIATE_TEST_SUITE_P(Modes, L0ReplacementKvFilesTest,
                         testing::Values(Mode{"deferred_files",
                                              delsm::Durability::kDeferred,
                                              false, 0},
                                         kModes[3]),
                         ModeName);

}  // namespace
}  // namespace leveldb
