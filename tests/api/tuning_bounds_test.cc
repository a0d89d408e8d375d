// Every delsm::Tuning field has a documented range (include/delsm/delsm.h);
// Open refuses a value outside it with InvalidArgument naming the field,
// and creates nothing, whichever way the tuning arrives: delsm::Open, the
// DELSM_OPTIONS environment variable, or the C API. Values at the ends of
// each range open a working database. A read-ahead pool whose threads
// cannot be started is an error Status from Open, not an exception that
// ends the process.
#include <sys/resource.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "delsm/c.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "tests/test_support.h"
#include "util/thread_pool.h"

namespace {

using delsm_test::ListDir;
using delsm_test::TempDir;

// One field's contract: DELSM_OPTIONS texts that must open a database, and
// texts that must be refused with InvalidArgument naming `field`.
struct Bounds {
  const char* field;
  std::vector<std::string> in_range;
  std::vector<std::string> out_of_range;
};

// Kept by hand, independently of db/tuning.cc: this is the documented
// contract the implementation must meet.
const std::vector<Bounds>& Table() {
  static const std::vector<Bounds>* table = new std::vector<Bounds>{
      {"durability",
       {"durability=syncfs", "durability=fsync", "durability=deferred"},
       {}},  // names only; a cast-in value is checked below
      {"deferred_wal_retention_micros",
       {"deferred_wal_retention_micros=0",
        "deferred_wal_retention_micros=31536000000000"},
       {"deferred_wal_retention_micros=31536000000001",
        "deferred_wal_retention_micros=18446744073709551615"}},
      {"inline_threshold",
       {"inline_threshold=0", "inline_threshold=1048576"},
       {"inline_threshold=1048577", "inline_threshold=18446744073709551615"}},
      {"compress_inline_from",
       {"compress_inline_from=0", "compress_inline_from=1048576"},
       {"compress_inline_from=1048577",
        "compress_inline_from=18446744073709551615"}},
      {"read_ahead_files",
       {"read_ahead_files=0", "read_ahead_files=1024"},
       {"read_ahead_files=-1", "read_ahead_files=1025",
        "read_ahead_files=2147483647"}},
      {"read_ahead_bytes",
       {"read_ahead_bytes=0", "read_ahead_bytes=1073741824"},
       {"read_ahead_bytes=1073741825",
        "read_ahead_bytes=18446744073709551615"}},
      {"read_ahead_threads",
       {"read_ahead_threads=1", "read_ahead_threads=64"},
       {"read_ahead_threads=0", "read_ahead_threads=-1",
        "read_ahead_threads=65", "read_ahead_threads=30000",
        "read_ahead_threads=2147483647"}},
      {"l0_compaction_entries",
       {"l0_compaction_entries=1", "l0_compaction_entries=100000000000000"},
       {"l0_compaction_entries=0", "l0_compaction_entries=100000000000001",
        "l0_compaction_entries=18446744073709551615"}},
      {"l0_compaction_dirs",
       {"l0_compaction_dirs=1",
        "l0_compaction_dirs=1000000000;l0_slowdown_dirs=1000000000;l0_stop_"
        "dirs=1000000000"},
       {"l0_compaction_dirs=0", "l0_compaction_dirs=-5",
        "l0_compaction_dirs=1000000001;l0_slowdown_dirs=1000000001;l0_stop_"
        "dirs=1000000001"}},
      {"l0_slowdown_dirs",
       {"l0_compaction_dirs=7;l0_slowdown_dirs=7",
        "l0_slowdown_dirs=1000000000;l0_stop_dirs=1000000000"},
       {"l0_compaction_dirs=7;l0_slowdown_dirs=6",
        "l0_slowdown_dirs=1000000001;l0_stop_dirs=1000000001"}},
      {"l0_stop_dirs",
       {"l0_slowdown_dirs=30;l0_stop_dirs=30", "l0_stop_dirs=1000000000"},
       {"l0_slowdown_dirs=30;l0_stop_dirs=29", "l0_stop_dirs=1000000001",
        "l0_stop_dirs=2147483647"}},
      {"sst_entries",
       {"sst_entries=1", "sst_entries=16777216"},
       {"sst_entries=0", "sst_entries=16777217"}},
      {"max_dir_entries",
       {"max_dir_entries=1", "max_dir_entries=16777216"},
       {"max_dir_entries=0", "max_dir_entries=16777217"}},
      {"l1_entries",
       {"l1_entries=1", "l1_entries=100000000000000"},
       {"l1_entries=0", "l1_entries=100000000000001",
        "l1_entries=18446744073709551615"}},
      {"l1_meta_bytes",
       {"l1_meta_bytes=1", "l1_meta_bytes=100000000000000"},
       {"l1_meta_bytes=0", "l1_meta_bytes=100000000000001",
        "l1_meta_bytes=18446744073709551615"}},
      {"kv_file_entries_per_entry",
       {"kv_file_entries_per_entry=1", "kv_file_entries_per_entry=1000"},
       {"kv_file_entries_per_entry=0", "kv_file_entries_per_entry=1001"}},
      {"table_cache_bytes",
       {"table_cache_bytes=1", "table_cache_bytes=281474976710656"},
       {"table_cache_bytes=0", "table_cache_bytes=281474976710657"}},
      {"filter_cache_bytes",
       {"filter_cache_bytes=0", "filter_cache_bytes=281474976710656"},
       {"filter_cache_bytes=-1", "filter_cache_bytes=281474976710657"}},
      {"flush_threads",
       {"flush_threads=1", "flush_threads=4"},
       {"flush_threads=0", "flush_threads=5", "flush_threads=-1"}},
      {"values_stay_put", {"values_stay_put=0", "values_stay_put=1"}, {}},
      {"removal_thread", {"removal_thread=0", "removal_thread=1"}, {}},
  };
  return *table;
}

// The message must name the field, and a text naming a neighbouring field
// too (l0_compaction_dirs in l0_slowdown_dirs' row) must blame the right
// one: "tuning field <name>" is how the error names it.
bool NamesField(const leveldb::Status& s, const std::string& field) {
  return s.ToString().find("tuning field " + field + ":") !=
             std::string::npos ||
         s.ToString().find("tuning field " + field + " ") != std::string::npos;
}

class TuningBoundsTest : public testing::Test {
 protected:
  TuningBoundsTest() : tmp_("delsm_tuning") {}

  // Opens a fresh database with `tuning`; the path is removed afterwards.
  leveldb::Status OpenWith(const delsm::Tuning& tuning, bool* created) {
    const std::string name = tmp_.path() + "/db" + std::to_string(n_++);
    leveldb::Options options;
    options.create_if_missing = true;
    leveldb::DB* db = nullptr;
    leveldb::Status s = delsm::Open(options, tuning, name, &db);
    if (s.ok()) {
      // A working database: a write and a read.
      leveldb::Status w = db->Put(leveldb::WriteOptions(), "k", "v");
      std::string v;
      if (w.ok()) w = db->Get(leveldb::ReadOptions(), "k", &v);
      if (w.ok() && v != "v") w = leveldb::Status::Corruption("read back", v);
      delete db;
      if (!w.ok()) s = w;
    }
    *created = !ListDir(name).empty();
    delsm_test::RemoveTree(name);
    return s;
  }

  TempDir tmp_;
  int n_ = 0;
};

TEST_F(TuningBoundsTest, EveryFieldHasARow) {
  const std::string all = delsm::TuningToString(delsm::Tuning());
  size_t fields = 0;
  for (size_t pos = 0; pos != std::string::npos; pos = all.find(';', pos + 1)) {
    fields++;
  }
  EXPECT_EQ(Table().size(), fields) << all;
  for (const Bounds& b : Table()) {
    std::string value;
    EXPECT_TRUE(delsm::GetTuningField(delsm::Tuning(), b.field, &value))
        << b.field;
  }
}

TEST_F(TuningBoundsTest, OpenAcceptsTheEndsOfEachRange) {
  for (const Bounds& b : Table()) {
    for (const std::string& spec : b.in_range) {
      SCOPED_TRACE(spec);
      delsm::Tuning t;
      ASSERT_TRUE(delsm::ParseTuning(spec, &t).ok());
      EXPECT_TRUE(delsm::ValidateTuning(t).ok());
      bool created = false;
      leveldb::Status s = OpenWith(t, &created);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }
}

TEST_F(TuningBoundsTest, OpenRefusesEachOutOfRangeValueNamingTheField) {
  for (const Bounds& b : Table()) {
    for (const std::string& spec : b.out_of_range) {
      SCOPED_TRACE(spec);
      delsm::Tuning t;
      leveldb::Status parsed = delsm::ParseTuning(spec, &t);
      if (!parsed.ok()) {
        // Beyond the C++ type itself (a sign on an unsigned field): the
        // text is refused already, naming the field.
        EXPECT_TRUE(parsed.IsInvalidArgument()) << parsed.ToString();
        EXPECT_NE(parsed.ToString().find(b.field), std::string::npos)
            << parsed.ToString();
        continue;
      }
      leveldb::Status v = delsm::ValidateTuning(t);
      EXPECT_TRUE(v.IsInvalidArgument()) << v.ToString();
      EXPECT_TRUE(NamesField(v, b.field)) << v.ToString();
      bool created = true;
      leveldb::Status s = OpenWith(t, &created);
      EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
      EXPECT_TRUE(NamesField(s, b.field)) << s.ToString();
      EXPECT_FALSE(created) << "Open made the database before refusing";
    }
  }
}

TEST_F(TuningBoundsTest, DurabilityOutsideTheEnumIsRefused) {
  delsm::Tuning t;
  t.durability = static_cast<delsm::Durability>(7);
  bool created = true;
  leveldb::Status s = OpenWith(t, &created);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(NamesField(s, "durability")) << s.ToString();
  EXPECT_FALSE(created);
}

// DELSM_OPTIONS reaches plain leveldb::DB::Open: a value out of range there
// is refused the same way.
TEST_F(TuningBoundsTest, DelsmOptionsOutOfRangeIsRefused) {
  setenv("DELSM_OPTIONS", "read_ahead_threads=2147483647", 1);
  const std::string name = tmp_.path() + "/env";
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  leveldb::Status s = leveldb::DB::Open(options, name, &db);
  unsetenv("DELSM_OPTIONS");
  delete db;
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(NamesField(s, "read_ahead_threads")) << s.ToString();
  EXPECT_TRUE(ListDir(name).empty());
}

TEST_F(TuningBoundsTest, CApiOutOfRangeIsRefused) {
  delsm_tuning_t* tuning = delsm_tuning_create();
  char* err = nullptr;
  delsm_tuning_set(tuning, "read_ahead_threads", "30000", &err);
  ASSERT_EQ(err, nullptr);  // a valid int: refused by Open, not by set
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  const std::string name = tmp_.path() + "/capi";
  leveldb_t* db = delsm_open(options, tuning, name.c_str(), &err);
  EXPECT_EQ(db, nullptr);
  ASSERT_NE(err, nullptr);
  EXPECT_NE(std::string(err).find("tuning field read_ahead_threads"),
            std::string::npos)
      << err;
  leveldb_free(err);
  if (db != nullptr) leveldb_close(db);
  leveldb_options_destroy(options);
  delsm_tuning_destroy(tuning);
}

// The address space a process may still map: its current size plus `room`.
bool LimitAddressSpace(size_t room) {
  std::ifstream status("/proc/self/status");
  std::string line;
  size_t vm_kb = 0;
  while (std::getline(status, line)) {
    if (line.compare(0, 7, "VmSize:") == 0) {
      vm_kb = std::strtoull(line.c_str() + 7, nullptr, 10);
    }
  }
  if (vm_kb == 0) return false;
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = vm_kb * 1024 + room;
  return setrlimit(RLIMIT_AS, &rl) == 0;
}

// Run by ThreadStartFailureIsAStatus in a child process whose address space
// leaves room for a few thread stacks only (8 MiB each by default), so the
// pool cannot start all 64 of its threads; exits 0 if both the pool and
// Open reported that as a Status.
TEST(TuningBoundsChild, Child) {
  const char* dir = std::getenv("DELSM_TUNING_CHILD_DIR");
  if (dir == nullptr) return;
  if (!LimitAddressSpace(48 << 20)) std::_Exit(2);
  {
    std::unique_ptr<leveldb::ThreadPool> pool;
    leveldb::Status s = leveldb::ThreadPool::Start(64, &pool);
    std::fprintf(stderr, "ThreadPool::Start(64): %s\n", s.ToString().c_str());
    if (s.ok() || pool != nullptr) std::_Exit(3);
  }
  delsm::Tuning t;
  t.read_ahead_threads = 64;
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  leveldb::Status s = delsm::Open(options, t, std::string(dir) + "/db", &db);
  std::fprintf(stderr, "Open with 64 read-ahead threads: %s\n",
               s.ToString().c_str());
  if (s.ok()) std::_Exit(4);
  std::_Exit(s.IsIOError() ? 0 : 5);
}

TEST_F(TuningBoundsTest, ThreadStartFailureIsAStatus) {
  const pid_t pid = delsm_test::SpawnSelf(
      "TuningBoundsChild.Child", {{"DELSM_TUNING_CHILD_DIR", tmp_.path()}});
  ASSERT_GT(pid, 0);
  const int status = delsm_test::WaitChild(pid);
  ASSERT_TRUE(WIFEXITED(status))
      << "the child died of signal " << WTERMSIG(status)
      << " (an exception escaped?)";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
