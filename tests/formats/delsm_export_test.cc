// `delsm export`, the way back to LevelDB: a DeLSM database with overwrites,
// deletions, binary keys and values, empty values, values over 1 MiB, writes
// only its WAL holds, and enough data for several LevelDB log files is
// exported, and Debian's LevelDB (tests/leveldb_oracle, its own process)
// must read exactly its keys and values, no more, with paranoid checks and
// checksums on. The source must not change. Bad input (no database, an OUT
// that is not empty, is a file, is inside the database, has no parent, a
// database in use) must fail with a clear message, a non-zero exit and
// nothing created or changed. An export killed with SIGKILL at random
// moments leaves no CURRENT (and LevelDB refuses it) or a whole database.
//
// Randomised: the seed is printed; DELSM_EXPORT_SEED=<n> replays its data
// and its kill delays (what an export has done by a given delay depends on
// the machine's load).
//
// Round trip: what LevelDB read back from an export,
// DeLSM opens (converting it) and reads as the original.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

#ifndef DELSM_TOOL
#error "DELSM_TOOL (path of the delsm binary) must be defined"
#endif

namespace {

using Contents = std::map<std::string, std::string>;

struct ToolRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the delsm tool with `args` (already shell-quoted where needed);
// stderr goes through `scratch`.err.
ToolRun RunTool(const std::string& args, const std::string& scratch) {
  ToolRun r;
  const std::string command =
      std::string(DELSM_TOOL) + " " + args + " 2>" + scratch + ".err";
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = delsm_test::ReadWholeFile(scratch + ".err");
  return r;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

// Names which keys differ between the two contents (at most a few).
std::string Differences(const Contents& want, const Contents& got) {
  std::string out;
  int shown = 0;
  for (const auto& kv : want) {
    auto it = got.find(kv.first);
    if (it == got.end() || it->second != kv.second) {
      if (shown++ < 5) {
        out += (it == got.end() ? "missing " : "wrong value for ") +
               delsm_test::OracleHex(kv.first).substr(0, 80) + "\n";
      }
    }
  }
  for (const auto& kv : got) {
    if (want.count(kv.first) == 0 && shown++ < 10) {
      out += "extra " + delsm_test::OracleHex(kv.first).substr(0, 80) + "\n";
    }
  }
  return out;
}

uint64_t JsonNumber(const std::string& json, const std::string& field) {
  const size_t at = json.find("\"" + field + "\":");
  if (at == std::string::npos) return UINT64_MAX;
  return std::strtoull(json.c_str() + at + field.size() + 3, nullptr, 10);
}

class DelsmExportTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    db_ = dir_.path() + "/db";
    seed_ = delsm_test::RandomSeed("delsm export test", "DELSM_EXPORT_SEED");
    rng_.seed(seed_);
  }

  std::string RandomBytes(size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng_() & 0xff);
    return s;
  }

  leveldb::Status OpenDb(std::unique_ptr<leveldb::DB>* db) {
    leveldb::Options options;
    options.create_if_missing = true;
    options.write_buffer_size = 256 * 1024;  // several flushes and levels
    delsm::Tuning tuning;
    tuning.inline_threshold = 64;  // values both inline and in KV files
    leveldb::DB* raw = nullptr;
    leveldb::Status s = delsm::Open(options, tuning, db_, &raw);
    db->reset(raw);
    return s;
  }

  void Put(leveldb::DB* db, const std::string& k, const std::string& v) {
    ASSERT_TRUE(db->Put({}, k, v).ok());
    model_[k] = v;
  }
  void Delete(leveldb::DB* db, const std::string& k) {
    ASSERT_TRUE(db->Delete({}, k).ok());
    model_.erase(k);
  }
  // A key of the model picked at random (the model holds others than the
  // large values'), never one of the values over 1 MiB: those stay, so
  // that every seed exports them and spans many logs (a seed that
  // overwrote or deleted them left 2 MB in 4 logs).
  std::string SomeKey() {
    for (;;) {
      auto it = model_.begin();
      std::advance(it, rng_() % model_.size());
      if (it->first.compare(0, 6, "large-") != 0) return it->first;
    }
  }

  // The database the export tests start from; closed when this returns.
  void MakeDatabase() {
    {
      std::unique_ptr<leveldb::DB> db;
      ASSERT_TRUE(OpenDb(&db).ok());
      char key[32];
      for (int i = 0; i < 6000; i++) {
        std::snprintf(key, sizeof(key), "key%06d", i);
        // Sizes 0..300: empty, inline and KV-file values, random bytes.
        Put(db.get(), key, RandomBytes(rng_() % 301));
      }
      // Binary keys: NUL and 0xff bytes, '/' and random bytes.
      Put(db.get(), std::string("\0", 1), "nul key");
      Put(db.get(), std::string("a\0b\xff/", 5), std::string("\0\xff", 2));
      Put(db.get(), std::string(3, '\xff'), "");
      for (int i = 0; i < 300; i++) {
        Put(db.get(), RandomBytes(1 + rng_() % 40), RandomBytes(rng_() % 200));
      }
      // Values over 1 MiB, incompressible.
      Put(db.get(), "large-1", RandomBytes(1536 * 1024));
      Put(db.get(), "large-2", RandomBytes(2300 * 1024));
      db->CompactRange(nullptr, nullptr);
      for (int i = 0; i < 1000; i++) {
        Put(db.get(), SomeKey(), RandomBytes(rng_() % 301));
      }
      for (int i = 0; i < 800; i++) Delete(db.get(), SomeKey());
      Put(db.get(), "empty-value", "");
      Put(db.get(), "deleted-then-put", "first");
      Delete(db.get(), "deleted-then-put");
      Put(db.get(), "deleted-then-put", "second");
      Put(db.get(), "put-then-deleted", "gone");
      Delete(db.get(), "put-then-deleted");
    }
    // Reopened: these writes are only in the WAL when the DB is closed.
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDb(&db).ok());
    Put(db.get(), "large-1", RandomBytes(1100 * 1024));
    Put(db.get(), "wal-only", "in the log");
    for (int i = 0; i < 50; i++) Delete(db.get(), SomeKey());
    for (int i = 0; i < 50; i++) Put(db.get(), SomeKey(), "overwritten");
    Put(db.get(), "large-wal", RandomBytes(1100 * 1024));
    Put(db.get(), "empty-value", "");
  }

  // What Debian's LevelDB reads from `path`, with paranoid checks (a
  // damaged log record fails the open instead of being skipped) and
  // checksums verified.
  void LevelDbContents(const std::string& path, Contents* contents) {
    const delsm_test::OracleRun run = delsm_test::RunOracle(
        {"dump", path, "--paranoid_checks", "--verify_checksums"}, "",
        dir_.path() + "/oracle");
    ASSERT_TRUE(run.ok) << run.err;
    ASSERT_TRUE(delsm_test::ParseOracleDump(run.out, contents));
  }

  delsm_test::TempDir dir_{"delsm_export"};
  std::string db_;
  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  Contents model_;
};

TEST_F(DelsmExportTest, LevelDbReadsEveryKeyAndValueAndNothingElse) {
  MakeDatabase();
  const auto before = delsm_test::TreeSnapshot(db_);
  const std::string out = dir_.path() + "/exported";
  // Small batches and logs, so the export spans many WAL files.
  const ToolRun r = RunTool("export " + db_ + " " + out +
                                " --json --batch-bytes 64K --log-bytes 256K",
                            dir_.path() + "/export");
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_EQ(before, delsm_test::TreeSnapshot(db_))
      << "export changed the source database";
  EXPECT_EQ(model_.size(), JsonNumber(r.out, "entries")) << r.out;
  EXPECT_EQ(model_.size(), JsonNumber(r.out, "last_sequence")) << r.out;
  const uint64_t logs = JsonNumber(r.out, "log_files");
  EXPECT_GE(logs, 5u) << r.out;
  EXPECT_GT(JsonNumber(r.out, "batches"), logs) << r.out;

  // Before LevelDB opens it: CURRENT, one manifest, the logs; nothing else.
  std::vector<std::string> names = delsm_test::ListDir(out);
  std::sort(names.begin(), names.end());
  std::vector<std::string> want = {"CURRENT", "MANIFEST-000001"};
  char name[32];
  for (uint64_t i = 0; i < logs; i++) {
    std::snprintf(name, sizeof(name), "%06llu.log",
                  static_cast<unsigned long long>(i + 2));
    want.push_back(name);
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(want, names);
  EXPECT_EQ("MANIFEST-000001\n", delsm_test::ReadWholeFile(out + "/CURRENT"));

  Contents leveldb;
  LevelDbContents(out, &leveldb);
  EXPECT_EQ(model_.size(), leveldb.size());
  EXPECT_TRUE(model_ == leveldb) << Differences(model_, leveldb);
  EXPECT_EQ(1100u * 1024, leveldb["large-wal"].size());
  EXPECT_EQ("", leveldb["empty-value"]);
  // LevelDB opens it again, now from the tables it wrote itself.
  Contents again;
  LevelDbContents(out, &again);
  EXPECT_TRUE(model_ == again) << Differences(model_, again);
}

// DeLSM -> export -> Debian's LevelDB reads every key
// -> DeLSM opens the LevelDB database (converting it in place) -> equal.
// Twice: once after LevelDB has opened the export (its tables, its own
// manifest) and once straight from the export (WALs only).
TEST_F(DelsmExportTest, RoundTripThroughLevelDbAndBackIsEqual) {
  MakeDatabase();
  for (const bool leveldb_first : {true, false}) {
    const std::string out =
        dir_.path() + (leveldb_first ? "/via-leveldb" : "/direct");
    const ToolRun r =
        RunTool("export --quiet " + db_ + " " + out, dir_.path() + "/export");
    ASSERT_EQ(0, r.exit_code) << r.err;
    if (leveldb_first) {
      Contents leveldb;
      LevelDbContents(out, &leveldb);
      ASSERT_TRUE(model_ == leveldb) << Differences(model_, leveldb);
      // LevelDB has replaced the WALs by its own tables.
      bool has_table = false;
      for (const std::string& name : delsm_test::ListDir(out)) {
        has_table |=
            name.size() > 4 && name.compare(name.size() - 4, 4, ".ldb") == 0;
      }
      ASSERT_TRUE(has_table) << "LevelDB wrote no table";
    }
    for (int open = 0; open < 2; open++) {  // converting, then converted
      leveldb::DB* raw = nullptr;
      const leveldb::Status s =
          leveldb::DB::Open(leveldb::Options(), out, &raw);
      ASSERT_TRUE(s.ok()) << out << ": " << s.ToString();
      std::unique_ptr<leveldb::DB> db(raw);
      Contents back;
      std::unique_ptr<leveldb::Iterator> it(
          db->NewIterator(leveldb::ReadOptions()));
      for (it->SeekToFirst(); it->Valid(); it->Next()) {
        back[it->key().ToString()] = it->value().ToString();
      }
      ASSERT_TRUE(it->status().ok()) << it->status().ToString();
      EXPECT_EQ(model_.size(), back.size()) << out << " open " << open;
      EXPECT_TRUE(model_ == back) << out << " open " << open << "\n"
                                  << Differences(model_, back);
      for (const auto& kv : model_) {  // and by Get, key by key
        std::string value;
        ASSERT_TRUE(db->Get({}, kv.first, &value).ok());
        ASSERT_EQ(kv.second, value);
      }
    }
    // And `delsm verify` finds the converted database sound.
    const ToolRun verify =
        RunTool("verify --quiet " + out, dir_.path() + "/verify");
    EXPECT_EQ(0, verify.exit_code) << verify.out << verify.err;
  }
}

uint64_t NowMicros() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return static_cast<uint64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
}

// Starts `delsm export db out ...` (output discarded); returns its pid.
pid_t StartExport(const std::string& db, const std::string& out) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) _exit(126);
    execl(DELSM_TOOL, DELSM_TOOL, "export", db.c_str(), out.c_str(),
          "--batch-bytes", "64K", "--log-bytes", "256K", "--quiet",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// An export killed with SIGKILL at random moments (the seed picks them,
// spread over one whole export's duration) leaves either no CURRENT, and
// then LevelDB refuses OUT and OUT holds only export's own files, or a
// complete database that LevelDB reads in full. Never a CURRENT naming
// something incomplete.
TEST_F(DelsmExportTest, KilledExportLeavesNoCurrentOrAWholeDatabase) {
  MakeDatabase();
  const auto before = delsm_test::TreeSnapshot(db_);
  // One uninterrupted run sets the span the kill points are drawn from.
  const uint64_t start = NowMicros();
  int status = 0;
  const pid_t whole = StartExport(db_, dir_.path() + "/whole");
  ASSERT_GT(whole, 0);
  ASSERT_EQ(whole, waitpid(whole, &status, 0));
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const uint64_t span = NowMicros() - start;
  int killed = 0, finished = 0;
  for (int i = 0; i < 8; i++) {
    const std::string out = dir_.path() + "/out" + std::to_string(i);
    const uint64_t delay = rng_() % (span + span / 10 + 1);
    const pid_t pid = StartExport(db_, out);
    ASSERT_GT(pid, 0);
    usleep(static_cast<useconds_t>(delay));
    kill(pid, SIGKILL);  // a zombie if it finished: no effect
    ASSERT_EQ(pid, waitpid(pid, &status, 0));
    const bool was_killed = WIFSIGNALED(status);
    if (!was_killed) {
      ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    }
    killed += was_killed;
    if (!Exists(out + "/CURRENT")) {
      // Not a database: only export's files, and LevelDB will not open it.
      ASSERT_TRUE(was_killed) << "a finished export left no CURRENT";
      for (const std::string& name : delsm_test::ListDir(out)) {
        const bool ours =
            name == "MANIFEST-000001" || name == "000001.dbtmp" ||
            (name.size() == 10 && name.compare(6, 4, ".log") == 0);
        EXPECT_TRUE(ours) << name;
      }
      const delsm_test::OracleRun run =
          delsm_test::RunOracle({"dump", out}, "", dir_.path() + "/oracle");
      EXPECT_FALSE(run.ok) << "LevelDB opened an unfinished export " << out;
      EXPECT_FALSE(Exists(out + "/CURRENT"));
      std::printf("kill %d at %llu us: no CURRENT\n", i,
                  static_cast<unsigned long long>(delay));
    } else {
      finished++;
      Contents leveldb;
      LevelDbContents(out, &leveldb);
      EXPECT_TRUE(model_ == leveldb) << out << Differences(model_, leveldb);
      std::printf("kill %d at %llu us: complete\n", i,
                  static_cast<unsigned long long>(delay));
    }
  }
  std::printf("%d of 8 exports killed, %d left a complete database\n", killed,
              finished);
  EXPECT_EQ(before, delsm_test::TreeSnapshot(db_))
      << "an export changed the source database";
}

TEST_F(DelsmExportTest, IntoAnExistingEmptyDirectoryAndOfAnEmptyDatabase) {
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDb(&db).ok());
    ASSERT_TRUE(db->Put({}, "k", "v").ok());
    ASSERT_TRUE(db->Delete({}, "k").ok());
  }
  const std::string out = dir_.path() + "/empty-out";
  ASSERT_EQ(0, mkdir(out.c_str(), 0755));
  const ToolRun r =
      RunTool("export --quiet " + db_ + " " + out, dir_.path() + "/export");
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("exported 0 entries")) << r.out;
  Contents leveldb;
  LevelDbContents(out, &leveldb);
  EXPECT_TRUE(leveldb.empty());
}

TEST_F(DelsmExportTest, BadInputIsRefusedAndTouchesNothing) {
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDb(&db).ok());
    ASSERT_TRUE(db->Put({}, "k", "v").ok());
  }
  const std::string scratch = dir_.path() + "/run";
  const std::string out = dir_.path() + "/out";

  // No database: nothing is created, neither OUT nor the source.
  ToolRun r = RunTool("export " + dir_.path() + "/no-db " + out, scratch);
  EXPECT_EQ(2, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("no DeLSM database")) << r.err;
  EXPECT_FALSE(Exists(out));
  EXPECT_FALSE(Exists(dir_.path() + "/no-db"));

  const auto db_before = delsm_test::TreeSnapshot(db_);
  struct Case {
    std::string out;
    std::string message;
  };
  // OUT not empty (a file, and a hidden file), OUT a file, OUT inside the
  // database, OUT's parent missing.
  ASSERT_EQ(0, mkdir(out.c_str(), 0755));
  std::ofstream(out + "/keep") << "user data";
  const std::string hidden = dir_.path() + "/hidden";
  ASSERT_EQ(0, mkdir(hidden.c_str(), 0755));
  std::ofstream(hidden + "/.dot") << "x";
  const std::string file = dir_.path() + "/a-file";
  std::ofstream(file) << "not a directory";
  const Case cases[] = {
      {out, "is not empty"},
      {hidden, "is not empty"},
      {file, "not a directory"},
      {db_ + "/exported", "inside the database"},
      {db_, "inside the database"},
      {dir_.path() + "/missing/out", "parent directory does not exist"},
  };
  for (const Case& c : cases) {
    const auto around = delsm_test::TreeSnapshot(dir_.path());
    r = RunTool("export " + db_ + " " + c.out, scratch);
    EXPECT_EQ(2, r.exit_code) << c.out;
    EXPECT_NE(std::string::npos, r.err.find(c.message))
        << c.out << ": " << r.err;
    auto after = delsm_test::TreeSnapshot(dir_.path());
    after.erase("/run.err");
    auto expected = around;
    expected.erase("/run.err");
    EXPECT_EQ(expected, after) << c.out;
  }
  EXPECT_EQ("user data", delsm_test::ReadWholeFile(out + "/keep"));
  EXPECT_EQ(db_before, delsm_test::TreeSnapshot(db_));

  // A database another process (here: this one) has open is refused.
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDb(&db).ok());
    const std::string fresh = dir_.path() + "/fresh";
    r = RunTool("export " + db_ + " " + fresh, scratch);
    EXPECT_EQ(2, r.exit_code);
    EXPECT_FALSE(r.err.empty());
    EXPECT_FALSE(Exists(fresh));
  }
  // A LevelDB database is not exported (nor converted): LevelDB opens it.
  const std::string leveldb_db = dir_.path() + "/leveldb-db";
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", leveldb_db}, "put 6b 76\nflush\nput 6c 77\n",
      dir_.path() + "/oracle");
  ASSERT_TRUE(made.ok) << made.err;
  const auto leveldb_before = delsm_test::TreeSnapshot(leveldb_db);
  r = RunTool("export " + leveldb_db + " " + dir_.path() + "/from-leveldb",
              scratch);
  EXPECT_EQ(2, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("is a LevelDB database")) << r.err;
  EXPECT_EQ(leveldb_before, delsm_test::TreeSnapshot(leveldb_db));
  EXPECT_FALSE(Exists(dir_.path() + "/from-leveldb"));

  EXPECT_EQ(2,
            RunTool("export " + db_ + " " + dir_.path() + "/o --batch-bytes 0",
                    scratch)
                .exit_code);
  EXPECT_FALSE(Exists(dir_.path() + "/o"));
}

// The tool never converts: put and delete, even with --allow-writes, refuse
// a LevelDB database, exit 2 naming it as LevelDB's, and leave every file
// as it was, so Debian's LevelDB still reads exactly what it wrote.
TEST_F(DelsmExportTest, ToolWritesRefuseALevelDbDatabase) {
  const std::string leveldb_db = dir_.path() + "/leveldb-db";
  const delsm_test::OracleRun made = delsm_test::RunOracle(
      {"create", leveldb_db}, "put 6b 76\nflush\nput 6c 77\n",
      dir_.path() + "/oracle");
  ASSERT_TRUE(made.ok) << made.err;
  const auto before = delsm_test::TreeSnapshot(leveldb_db);
  const std::string scratch = dir_.path() + "/run";
  for (const std::string& args :
       {"put " + leveldb_db + " k2 v2 --allow-writes",
        "delete " + leveldb_db + " k --allow-writes",
        "put " + leveldb_db + " 6b 00 --allow-writes --hex"}) {
    const ToolRun r = RunTool(args, scratch);
    EXPECT_EQ(2, r.exit_code) << args;
    EXPECT_NE(std::string::npos, r.err.find("is a LevelDB database"))
        << args << ": " << r.err;
    EXPECT_NE(std::string::npos, r.err.find("does not convert"))
        << args << ": " << r.err;
    EXPECT_TRUE(before == delsm_test::TreeSnapshot(leveldb_db))
        << args << " changed the database";
  }
  Contents leveldb;
  LevelDbContents(leveldb_db, &leveldb);
  EXPECT_EQ((Contents{{"k", "v"}, {"l", "w"}}), leveldb);
}

}  // namespace
