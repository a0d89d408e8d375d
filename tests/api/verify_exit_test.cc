// What `delsm verify`'s exit status tells a user, on real databases:
// - 0 on every cleanly closed database, in the default mode and with values
//   that stay put, values inline or not, also when an iterator held the
//   version before a compaction until just before the close: a clean
//   close leaves nothing behind;
// - 0 after a kill -9 that left a compaction's retired SSTs (and dead
//   values) behind: those are leftovers the next Open removes, listed as
//   such, and that Open does remove them;
// - 1 on damage (tests/delsm_tool_test.cc, VerifyFindsDamageAndOrphans).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/db_options.h"
#include "tests/sigkill_child.h"
#include "tests/test_support.h"

#ifndef DELSM_TOOL
#error "DELSM_TOOL (path of the delsm binary) must be defined"
#endif

namespace {

using delsm_test::TempDir;
using leveldb::DB;

using delsm_test::RunResult;

RunResult Verify(const std::string& db) {
  return delsm_test::Shell(std::string(DELSM_TOOL) + " verify --json --quiet " +
                           db);
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; ++at) {
    n++;
  }
  return n;
}

leveldb::Options DbOptions() { return delsm_test::NewDbOptions(256 << 10); }

delsm::Tuning SmallTuning(bool stay_put, int inline_threshold) {
  delsm::Tuning t;
  t.values_stay_put = stay_put;
  t.inline_threshold = inline_threshold;
  t.flush_threads = 2;
  t.l0_compaction_entries = 400;
  t.sst_entries = 128;
  t.l1_entries = 1000;
  return t;
}

// 3,000 keys of 3 KB (or ~1 KB, inline when inline_threshold allows), a
// third overwritten and a fifth deleted while an iterator holds the first
// fill's version through a full compaction; the iterator released just
// before `db` is closed by the caller.
void Workload(DB* db, int value_size) {
  for (int i = 0; i < 3000; i++) {
    ASSERT_OK(db->Put({}, delsm_test::IndexKey(i),
                      std::string(value_size, 'a' + i % 26)));
  }
  std::unique_ptr<leveldb::Iterator> pin(db->NewIterator({}));
  pin->SeekToFirst();
  for (int i = 0; i < 3000; i += 3) {
    ASSERT_OK(db->Put({}, delsm_test::IndexKey(i),
                      std::string(value_size, 'A' + i % 26)));
  }
  for (int i = 0; i < 3000; i += 5) {
    ASSERT_OK(db->Delete({}, delsm_test::IndexKey(i)));
  }
  db->CompactRange(nullptr, nullptr);
  ASSERT_OK(static_cast<leveldb::DBImpl*>(db)->TEST_WaitForBackgroundWork());
}

TEST(VerifyExitTest, CleanCloseVerifiesWithoutLeftovers) {
  unsetenv("DELSM_OPTIONS");
  for (bool stay_put : {false, true}) {
    for (int inline_threshold : {0, 2048}) {
      for (int value_size : {1000, 3000}) {
        const std::string what =
            std::string(stay_put ? "stay put" : "default") +
            ", inline_threshold " + std::to_string(inline_threshold) +
            ", values of " + std::to_string(value_size) + " bytes";
        TempDir tmp("delsm_verify_exit");
        ASSERT_FALSE(tmp.path().empty());
        const std::string dbname = tmp.path() + "/db";
        DB* raw = nullptr;
        ASSERT_OK(delsm::Open(DbOptions(),
                              SmallTuning(stay_put, inline_threshold), dbname,
                              &raw));
        std::unique_ptr<DB> db(raw);
        Workload(db.get(), value_size);
        if (HasFatalFailure()) return;
        db.reset();
        const RunResult r = Verify(dbname);
        EXPECT_EQ(0, r.exit_code) << what << ": " << r.out.substr(0, 2000);
        EXPECT_EQ(0u, Count(r.out, "{\"kind\":"))
            << what << ": " << r.out.substr(0, 2000);
      }
    }
  }
}

// Runs only as the child of the test below: a fill, an iterator pinning
// its SSTs, a full compaction, then SIGKILL with the iterator still open,
// so the compaction's retired SSTs are still on disk.
TEST(VerifyExitKillWithIteratorOpen, Child) {
  const char* dbname = std::getenv("VERIFY_EXIT_DB");
  if (dbname == nullptr) GTEST_SKIP() << "helper for VerifyExitTest";
  const bool stay_put = std::getenv("VERIFY_EXIT_STAY_PUT") != nullptr;
  DB* db = nullptr;
  if (!delsm::Open(DbOptions(), SmallTuning(stay_put, 0), dbname, &db).ok()) {
    _exit(2);
  }
  for (int i = 0; i < 2000; i++) {
    if (!db->Put({}, delsm_test::IndexKey(i), std::string(2000, 'v')).ok()) {
      _exit(3);
    }
  }
  if (!static_cast<leveldb::DBImpl*>(db)->TEST_FlushMemTable().ok()) _exit(6);
  // Pins the SSTs the compaction replaces.
  leveldb::Iterator* pin = db->NewIterator({});
  pin->SeekToFirst();
  db->CompactRange(nullptr, nullptr);
  if (!static_cast<leveldb::DBImpl*>(db)->TEST_WaitForBackgroundWork().ok()) {
    _exit(4);
  }
  raise(SIGKILL);
  _exit(5);
}

TEST(VerifyExitTest, CrashLeftoversAreNamedAndExitZero) {
  unsetenv("DELSM_OPTIONS");
  for (bool stay_put : {false, true}) {
    TempDir tmp("delsm_verify_exit");
    ASSERT_FALSE(tmp.path().empty());
    const std::string dbname = tmp.path() + "/db";
    std::vector<std::pair<std::string, std::string>> env = {
        {"VERIFY_EXIT_DB", dbname}};
    if (stay_put) env.push_back({"VERIFY_EXIT_STAY_PUT", "1"});
    ASSERT_EQ("", delsm_test::RunChildThatKillsItself(
                      "VerifyExitKillWithIteratorOpen.Child", env));
    RunResult r = Verify(dbname);
    EXPECT_EQ(0, r.exit_code) << r.out.substr(0, 2000);
    EXPECT_NE(std::string::npos, r.out.find("\"ok\":true"));
    EXPECT_NE(std::string::npos, r.out.find("\"problems\":[]"))
        << r.out.substr(0, 2000);
    EXPECT_GT(Count(r.out, "{\"kind\":\"leftover\""), 0u)
        << "the kill left nothing behind: this tested nothing";
    // The next Open removes them, as verify said.
    DB* raw = nullptr;
    ASSERT_OK(delsm::Open(DbOptions(), SmallTuning(stay_put, 0), dbname, &raw));
    ASSERT_OK(static_cast<leveldb::DBImpl*>(raw)->TEST_WaitForBackgroundWork());
    delete raw;
    r = Verify(dbname);
    EXPECT_EQ(0, r.exit_code) << r.out.substr(0, 2000);
    EXPECT_EQ(0u, Count(r.out, "{\"kind\":")) << r.out.substr(0, 2000);
  }
}

}  // namespace
