// Open starts the flush workers, the compaction thread and (kSyncfs) the
// durability thread through Env::StartThread, which returns nothing: the
// POSIX Env's std::thread throws std::system_error when the system will not
// make a thread (EAGAIN under RLIMIT_NPROC or threads-max), and so may an
// Env of the caller's. Whichever thread cannot start, Open must return an
// error naming it (no exception leaves the API, no Open hangs), the
// threads that did start must stop with the failed DB, and a later Open
// must find every acknowledged write. A failed Open whose recovery
// succeeded closes as a Close does and may write the clean-close marker,
// so the later Open may skip its sweeps: what a kill -9 before the failed
// Open left for them must be gone by then (the failed Open swept before it
// started a thread).
//
// The failure is injected by an Env whose StartThread throws exactly what
// std::thread throws for EAGAIN (as root, this test's usual user, the
// kernel does not apply RLIMIT_NPROC).
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "table/key_codec.h"
#include "tests/orphan_check.h"
#include "tests/test_support.h"

namespace {

// Forwards to Env::Default(); the `fail_at`-th StartThread (counting from
// 1; 0: none) throws std::system_error(EAGAIN) instead of starting.
class ThreadLimitEnv : public leveldb::EnvWrapper {
 public:
  ThreadLimitEnv() : EnvWrapper(leveldb::Env::Default()) {}
  void StartThread(void (*function)(void*), void* arg) override {
    if (++calls_ == fail_at_) {
      throw std::system_error(EAGAIN, std::generic_category(),
                              "Resource temporarily unavailable");
    }
    target()->StartThread(function, arg);
  }
  void FailAt(int n) {
    fail_at_ = n;
    calls_ = 0;
  }
  int calls() const { return calls_; }

 private:
  std::atomic<int> calls_{0};
  int fail_at_ = 0;
};

struct Config {
  const char* name;
  delsm::Durability durability;
  int flush_threads;
};

void PrintTo(const Config& c, std::ostream* os) { *os << c.name; }

class ThreadStartTest : public testing::TestWithParam<Config> {};

TEST_P(ThreadStartTest, OpenReportsAThreadThatCannotStart) {
  const Config& config = GetParam();
  delsm_test::TempDir tmp("delsm_thread_start");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  ThreadLimitEnv env;
  leveldb::Options options;
  options.create_if_missing = true;
  options.env = &env;
  delsm::Tuning tuning;
  tuning.durability = config.durability;
  tuning.flush_threads = config.flush_threads;

  // How many threads an Open starts, and some data to find again.
  int threads = 0;
  {
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
    threads = env.calls();
    for (int i = 0; i < 100; i++) {
      ASSERT_OK(db->Put(leveldb::WriteOptions(), delsm_test::Key(i),
                        "value" + std::to_string(i)));
    }
    delete db;
  }
  ASSERT_GE(threads, 2);

  for (int fail_at = 1; fail_at <= threads; fail_at++) {
    SCOPED_TRACE("thread " + std::to_string(fail_at) + " of " +
                 std::to_string(threads) + " cannot start");
    // Writes in the WAL only, so that the failing Open has replayed them.
    {
      env.FailAt(0);
      leveldb::DB* db = nullptr;
      ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
      ASSERT_OK(db->Put(leveldb::WriteOptions(),
                        "fail" + std::to_string(fail_at), "x"));
      delete db;
    }
    // What a kill -9 leaves for the sweeps: no marker, and a link in an SST
    // directory that no SST owns (a compaction's, killed before its
    // commit).
    ASSERT_TRUE(unlink((dbname + "/CLOSED").c_str()) == 0 || errno == ENOENT);
    const std::vector<std::string> level0 = delsm_test::ListDir(dbname + "/L0");
    ASSERT_FALSE(level0.empty());
    const std::string leftover =
        dbname + "/L0/" + level0[0] + "/" + leveldb::KvFileName("leftover", 1);
    std::ofstream(leftover) << "no SST owns it";
    env.FailAt(fail_at);
    leveldb::DB* db = nullptr;
    leveldb::Status s;
    std::string thrown;
    try {
      s = delsm::Open(options, tuning, dbname, &db);
    } catch (const std::exception& e) {
      thrown = e.what();
    }
    ASSERT_EQ("", thrown) << "an exception left DB::Open";
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(nullptr, db);
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("cannot start the"))
        << s.ToString();
    EXPECT_NE(std::string::npos,
              s.ToString().find("Resource temporarily unavailable"))
        << s.ToString();
    delete db;

    // The failed DB released the LOCK and its threads: a normal Open works
    // and finds everything.
    env.FailAt(0);
    ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
    for (int i = 0; i < 100; i++) {
      std::string v;
      ASSERT_OK(db->Get(leveldb::ReadOptions(), delsm_test::Key(i), &v));
      EXPECT_EQ("value" + std::to_string(i), v);
    }
    for (int f = 1; f <= fail_at; f++) {
      std::string v;
      leveldb::Status g =
          db->Get(leveldb::ReadOptions(), "fail" + std::to_string(f), &v);
      EXPECT_TRUE(g.ok()) << "fail" << f << ": " << g.ToString();
    }
    s = static_cast<leveldb::DBImpl*>(db)->TEST_WaitForBackgroundWork();
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ("", delsm_test::FindOrphans(db, dbname));
    EXPECT_NE(0, access(leftover.c_str(), F_OK)) << leftover << " was kept";
    delete db;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ThreadStartTest,
    testing::Values(Config{"syncfs", delsm::Durability::kSyncfs, 1},
                    Config{"deferred_two_flush_workers",
                           delsm::Durability::kDeferred, 2}),
    [](const testing::TestParamInfo<Config>& info) { return info.param.name; });

}  // namespace
