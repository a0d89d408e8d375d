// Converting a LevelDB database is crash safe: a
// process that opens a database Debian's LevelDB made (so DB::Open converts
// it) is killed with SIGKILL at a chosen system call, many times, each time
// on a fresh copy of that database. After each kill exactly one of two
// things holds, judged by CURRENT:
//  - CURRENT is still LevelDB's: every file LevelDB wrote is byte for byte
//    as it was, and Debian's LevelDB (tests/leveldb_oracle, its own
//    process) reads every key and value; or
//  - CURRENT names DeLSM's manifest: LevelDB refuses the directory (it does
//    not see a part of it).
// Either way DeLSM then opens it (restarting or finishing the conversion)
// and reads every key and value, and no LevelDB table or staging directory
// is left.
//
// Kills land at system calls, not after delays, so where a kill lands does
// not depend on the machine's load: the parent traces the child (ptrace)
// and kills it while it is stopped at the entry or the exit of a system
// call, so the child runs no instruction after that stop. One traced run
// that is not killed lists the calls that change the disk; then
//  - SigkillLeavesLevelDbOrDelsmNeverAMix kills at the exit of every call
//    that changes a name (rename, unlink, rmdir, mkdir, link) from the
//    commit to the removal of the staging directory, which is where an
//    Open must finish what a killed one began, and at LDBCONV_CRASH_KILLS
//    (default 12) calls drawn by a seed from all the disk-changing calls
//    of the conversion (printed; LDBCONV_CRASH_SEED replays it);
//  - KilledAtTheCommitPoint kills at the rename(2) that installs DeLSM's
//    CURRENT, once on entry (the rename never happens: everything is
//    staged, LevelDB's database untouched) and once on exit (it happened:
//    committed, nothing moved yet).
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/syscall_tracer.h"
#include "tests/test_support.h"

namespace {

using delsm_test::ReadWholeFile;

using Contents = std::map<std::string, std::string>;

bool IsDir(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Copies the regular files of `from` (not its subdirectories, which
// LevelDB neither writes nor reads) into the new directory `to`.
bool CopyFiles(const std::string& from, const std::string& to) {
  if (mkdir(to.c_str(), 0755) != 0) return false;
  for (const std::string& name : delsm_test::ListDir(from)) {
    if (name == "LOCK" || IsDir(from + "/" + name)) continue;
    // Through a string: streaming an empty file's rdbuf() sets failbit.
    std::ifstream in(from + "/" + name, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) return false;
    std::ofstream out(to + "/" + name, std::ios::binary);
    out << bytes.str();
    out.close();
    if (out.fail()) return false;
  }
  return true;
}

// The files LevelDB wrote: name -> contents. LOG and LOCK are left out
// (DeLSM's Open rotates the LOG before it decides anything).
Contents LevelDbFiles(const std::string& dir) {
  Contents files;
  for (const std::string& name : delsm_test::ListDir(dir)) {
    if (name == "LOG" || name == "LOG.old" || name == "LOCK") continue;
    if (IsDir(dir + "/" + name)) continue;
    files[name] = ReadWholeFile(dir + "/" + name);
  }
  return files;
}

// The child: opens the database (converting it) and leaves.
TEST(LevelDbConversionChild, Child) {
  const char* db_env = std::getenv("LDBCONV_CHILD_DB");
  if (db_env == nullptr) GTEST_SKIP() << "helper for LevelDbConversionCrash";
  if (std::getenv("LDBCONV_CHILD_TRACED") != nullptr) {
    // Hand this process to the parent's ptrace before anything happens.
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) {
      std::perror("child: PTRACE_TRACEME");
      _exit(4);
    }
    if (raise(SIGSTOP) != 0) _exit(5);
  }
  leveldb::DB* db = nullptr;
  leveldb::Status s = leveldb::DB::Open(leveldb::Options(), db_env, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "child: %s\n", s.ToString().c_str());
    _exit(3);
  }
  delete db;
  _exit(0);
}

// How a system call, seen at its entry, changes the disk.
enum class CallKind {
  kNone,   // it does not
  kWrite,  // it writes or resizes an open file
  kName,   // it creates, renames, links or removes a name
};

#if defined(__x86_64__)
// Classifies the system call whose entry `regs` shows and sets *path to
// the address of the name it changes (a rename's or link's target), or 0.
CallKind Classify(const user_regs_struct& regs, unsigned long long* path) {
  *path = 0;
  switch (regs.orig_rax) {
    case SYS_rename:
    case SYS_link:
      *path = regs.rsi;
      return CallKind::kName;
    case SYS_renameat:
    case SYS_renameat2:
    case SYS_linkat:
      *path = regs.r10;
      return CallKind::kName;
    case SYS_unlink:
    case SYS_rmdir:
    case SYS_mkdir:
    case SYS_creat:
      *path = regs.rdi;
      return CallKind::kName;
    case SYS_unlinkat:
    case SYS_mkdirat:
      *path = regs.rsi;
      return CallKind::kName;
    case SYS_open:
      *path = regs.rdi;
      return (regs.rsi & O_CREAT) != 0 ? CallKind::kName : CallKind::kNone;
    case SYS_openat:
      *path = regs.rsi;
      return (regs.rdx & O_CREAT) != 0 ? CallKind::kName : CallKind::kNone;
    case SYS_write:
    case SYS_pwrite64:
    case SYS_writev:
    case SYS_pwritev:
    case SYS_pwritev2:
    case SYS_ftruncate:
    case SYS_fallocate:
      return CallKind::kWrite;
    default:
      return CallKind::kNone;
  }
}

bool IsRename(const user_regs_struct& regs) {
  return regs.orig_rax == SYS_rename || regs.orig_rax == SYS_renameat ||
         regs.orig_rax == SYS_renameat2;
}
#endif

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One system call of the child that changes the disk.
struct Call {
  CallKind kind = CallKind::kNone;
  std::string path;     // the name it changes (kName; "DB/..." inside the
                        // database), else empty
  bool commit = false;  // the rename that installs DeLSM's CURRENT
};

// Where TraceChild kills the child.
struct KillAt {
  enum When {
    kNever,        // let it finish
    kCommitEntry,  // entering the rename onto CURRENT (not done)
    kCommitExit,   // leaving it (done)
    kCallExit,     // leaving disk-changing call number `call` (from 0)
  } when = kNever;
  size_t call = 0;
};

class LevelDbConversionCrash : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    pristine_ = tmp_.path() + "/pristine";
  }

  // What DeLSM reads from `db` (opening it converts or finishes).
  Contents ReadWithDelsm(const std::string& db, leveldb::Status* status) {
    Contents contents;
    leveldb::DB* raw = nullptr;
    *status = leveldb::DB::Open(leveldb::Options(), db, &raw);
    if (!status->ok()) return contents;
    leveldb::Iterator* it = raw->NewIterator(leveldb::ReadOptions());
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      contents[it->key().ToString()] = it->value().ToString();
    }
    if (!it->status().ok()) *status = it->status();
    delete it;
    delete raw;
    return contents;
  }

  // What LevelDB reads from a copy of `db`'s files; false if it refuses.
  bool ReadWithLevelDb(const std::string& db, Contents* contents) {
    const std::string copy = tmp_.path() + "/ldbcopy" + std::to_string(n_++);
    EXPECT_TRUE(CopyFiles(db, copy));
    delsm_test::OracleRun run = delsm_test::RunOracle(
        {"dump", copy, "--paranoid_checks", "--verify_checksums"}, "",
        tmp_.path() + "/dump");
    delsm_test::RemoveTree(copy);
    if (!run.ok) return false;
    EXPECT_TRUE(delsm_test::ParseOracleDump(run.out, contents)) << run.out;
    return true;
  }

  // Runs the child on `db` under ptrace, appending each system call it
  // makes that changes the disk to *calls, and kills it as `at` says; the
  // child runs no instruction after the stop it is killed at. Returns
  // false, with a failure recorded, if tracing failed or the child did not
  // reach that stop (or, for kNever, did not succeed).
  bool TraceChild(const std::string& db, const KillAt& at,
                  std::vector<Call>* calls) {
#if !defined(__x86_64__)
    (void)db;
    (void)at;
    (void)calls;
    ADD_FAILURE() << "reads x86-64 system call registers";
    return false;
#else
    const pid_t pid = delsm_test::SpawnSelf(
        "LevelDbConversionChild.Child",
        {{"LDBCONV_CHILD_DB", db}, {"LDBCONV_CHILD_TRACED", "1"}});
    if (pid <= 0) {
      ADD_FAILURE() << "fork failed";
      return false;
    }
    auto give_up = [pid](const std::string& why) {
      ADD_FAILURE() << why << ": " << std::strerror(errno);
      kill(pid, SIGKILL);
      delsm_test::WaitChild(pid);
      return false;
    };
    std::string why;
    int status = 0;
    if (!delsm_test::StartTracing(pid, &status, &why)) {
      ADD_FAILURE() << why;
      kill(pid, SIGKILL);
      delsm_test::WaitChild(pid);
      return false;
    }
    bool in_call = false;  // between the entry and exit of a counted call
    bool committed = false;
    for (;;) {
      user_regs_struct regs;
      const delsm_test::TraceStop stop =
          delsm_test::NextSyscallStop(pid, &regs, &status);
      if (stop == delsm_test::TraceStop::kError) {
        return give_up("tracing the child");
      }
      if (stop == delsm_test::TraceStop::kEnded) {
        if (at.when == KillAt::kNever) {
          EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
              << "child failed: status " << status;
          return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }
        ADD_FAILURE() << "the child ended (status " << status
                      << ") before the stop it was to be killed at";
        return false;
      }
      if (delsm_test::IsSyscallEntry(regs)) {
        unsigned long long path_addr;
        Call call;
        call.kind = Classify(regs, &path_addr);
        in_call = call.kind != CallKind::kNone;
        if (!in_call) continue;
        if (path_addr != 0) delsm_test::PeekString(pid, path_addr, &call.path);
        if (call.path == db ||
            call.path.compare(0, db.size() + 1, db + "/") == 0) {
          call.path.replace(0, db.size(), "DB");  // the same in every copy
        }
        call.commit =
            !committed && IsRename(regs) && EndsWith(call.path, "/CURRENT");
        committed = committed || call.commit;
        calls->push_back(call);
        if (call.commit && at.when == KillAt::kCommitEntry) break;
      } else if (in_call) {
        in_call = false;
        if (calls->back().commit && at.when == KillAt::kCommitExit) {
          EXPECT_EQ(0, static_cast<long long>(regs.rax))
              << "the rename onto CURRENT failed";
          break;
        }
        if (at.when == KillAt::kCallExit && calls->size() == at.call + 1) {
          break;
        }
      }
    }
    EXPECT_EQ(0, kill(pid, SIGKILL));
    status = delsm_test::WaitChild(pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "status " << status;
    return true;
#endif
  }

  // Makes pristine_ with Debian's LevelDB: tables on several levels,
  // overwrites, deletions and a WAL tail that only the log holds (the
  // oracle leaves without closing). Sets model_ to what LevelDB reads,
  // leveldb_files_ to its files and leveldb_current_ to its CURRENT.
  void MakePristine() {
    std::string commands = "fill 0 6000 100\nflush\nfill 4000 1000 150\n";
    for (unsigned i = 0; i < 6000; i += 97) {
      commands += "delete " +
                  delsm_test::OracleHex(delsm_test::OracleFillKey(i)) + "\n";
    }
    commands += "flush\nfill 6000 200 60\n";
    delsm_test::OracleRun run = delsm_test::RunOracle(
        {"create", pristine_, "--write_buffer_size=262144",
         "--max_file_size=131072", "--no_close"},
        commands, tmp_.path() + "/create");
    ASSERT_TRUE(run.ok) << run.err;
    ASSERT_TRUE(ReadWithLevelDb(pristine_, &model_));
    ASSERT_GT(model_.size(), 6000u);
    leveldb_files_ = LevelDbFiles(pristine_);
    leveldb_current_ = leveldb_files_.at("CURRENT");
  }

  // Every file LevelDB wrote is in `db` as it was (CURRENT too unless
  // `but_current`).
  void ExpectLevelDbFilesAsTheyWere(const std::string& db, bool but_current) {
    const Contents now = LevelDbFiles(db);
    for (const auto& f : leveldb_files_) {
      if (but_current && f.first == "CURRENT") continue;
      auto it = now.find(f.first);
      if (it == now.end()) {
        ADD_FAILURE() << f.first << " removed";
      } else if (it->second != f.second) {
        ADD_FAILURE() << f.first << " changed";
      }
    }
  }

  // After DeLSM's open: no LevelDB table, no staging directory.
  void ExpectConverted(const std::string& db) {
    for (const std::string& name : delsm_test::ListDir(db)) {
      EXPECT_EQ(std::string::npos, name.find(".ldb")) << db << "/" << name;
      EXPECT_NE("leveldb-conversion", name) << db << "; its LOG:\n"
                                            << ReadWholeFile(db + "/LOG");
    }
  }

  delsm_test::TempDir tmp_;
  std::string pristine_;
  Contents model_;
  Contents leveldb_files_;
  std::string leveldb_current_;
  int n_ = 0;
};

TEST_F(LevelDbConversionCrash, SigkillLeavesLevelDbOrDelsmNeverAMix) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "reads x86-64 system call registers";
#endif
  const unsigned seed = static_cast<unsigned>(delsm_test::RandomSeed(
      "LevelDB conversion crash test", "LDBCONV_CRASH_SEED"));
  int random_kills = 12;
  if (const char* e = std::getenv("LDBCONV_CRASH_KILLS")) {
    random_kills = std::atoi(e);
  }
  RecordProperty("seed", std::to_string(seed));
  std::mt19937 rng(seed);

  ASSERT_NO_FATAL_FAILURE(MakePristine());
  const Contents& model = model_;
  const std::string& leveldb_current = leveldb_current_;

  // One uninterrupted conversion lists the calls that change the disk.
  const std::string whole = tmp_.path() + "/whole";
  ASSERT_TRUE(CopyFiles(pristine_, whole));
  std::vector<Call> calls;
  ASSERT_TRUE(TraceChild(whole, KillAt(), &calls));
  leveldb::Status s;
  EXPECT_EQ(model, ReadWithDelsm(whole, &s));
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectConverted(whole);
  delsm_test::RemoveTree(whole);

  // From the commit to the removal of the staging directory, every call
  // that changes a name; then calls drawn by the seed from all those of the
  // conversion (the rest of the Open is DeLSM's recovery, which other
  // suites kill). The staging directory's removal is the last call after
  // the commit that names it: the finishing step names it first with a
  // mkdir that fails (its check that the directory is not a link), and
  // stopping there would leave every move and removal of the finishing
  // step unkilled.
  size_t commit = calls.size(), staging_removed = calls.size();
  for (size_t i = 0; i < calls.size(); i++) {
    if (calls[i].commit) commit = i;
    if (commit < i && calls[i].kind == CallKind::kName &&
        calls[i].path == "DB/leveldb-conversion") {
      staging_removed = i;
    }
  }
  ASSERT_LT(commit, calls.size()) << "no rename onto CURRENT";
  ASSERT_LT(staging_removed, calls.size())
      << "the staging directory was not removed after the commit";
  std::vector<size_t> victims;
  for (size_t i = commit; i <= staging_removed; i++) {
    if (calls[i].kind == CallKind::kName) victims.push_back(i);
  }
  const size_t swept = victims.size();
  for (int i = 0; i < random_kills; i++) {
    victims.push_back(rng() % (staging_removed + 1));
  }
  std::printf(
      "LevelDB conversion crash test: seed %u; the Open makes %zu "
      "disk-changing calls, the commit is #%zu, the staging directory goes "
      "at #%zu; %zu kills from the commit on, %d at random\n",
      seed, calls.size(), commit, staging_removed, swept, random_kills);

  int untouched = 0, committed_unfinished = 0, complete = 0;
  for (size_t k = 0; k < victims.size() && !HasFailure(); k++) {
    const size_t victim = victims[k];
    SCOPED_TRACE("kill " + std::to_string(k) + " at call #" +
                 std::to_string(victim) + " (" + calls[victim].path +
                 "), seed " + std::to_string(seed));
    const std::string db = tmp_.path() + "/db" + std::to_string(k);
    ASSERT_TRUE(CopyFiles(pristine_, db));
    std::vector<Call> made;
    KillAt at;
    at.when = KillAt::kCallExit;
    at.call = victim;
    ASSERT_TRUE(TraceChild(db, at, &made));
    if (k < swept) {
      // The conversion is the same every run: the same call was killed.
      ASSERT_EQ(victim + 1, made.size());
      EXPECT_EQ(calls[victim].path, made.back().path);
    }
    const bool leveldb_side = ReadWholeFile(db + "/CURRENT") == leveldb_current;
    const bool staging = IsDir(db + "/leveldb-conversion");
    Contents leveldb_view;
    const bool leveldb_reads = ReadWithLevelDb(db, &leveldb_view);
    const char* state;
    if (leveldb_side) {
      // Before the commit point: LevelDB's files are as they were.
      state = "LevelDB's, untouched";
      untouched++;
      EXPECT_LT(victim, commit) << "killed after the commit, CURRENT LevelDB's";
      ExpectLevelDbFilesAsTheyWere(db, false);
      ASSERT_TRUE(leveldb_reads) << "LevelDB cannot read the untouched DB";
      EXPECT_TRUE(model == leveldb_view) << "LevelDB reads something else";
    } else {
      // After it: DeLSM's database; LevelDB sees none of it.
      state = staging ? "DeLSM's, committed, unfinished" : "DeLSM's, complete";
      (staging ? committed_unfinished : complete)++;
      EXPECT_GE(victim, commit) << "CURRENT switched before the commit";
      EXPECT_FALSE(leveldb_reads) << "LevelDB read a converted database";
    }
    EXPECT_EQ(model, ReadWithDelsm(db, &s));
    EXPECT_TRUE(s.ok()) << s.ToString();
    ExpectConverted(db);
    std::printf("kill %zu at call #%zu (%s): %s\n", k, victim,
                calls[victim].path.c_str(), state);
    delsm_test::RemoveTree(db);
  }
  std::printf(
      "%zu kills: %d left LevelDB's database untouched, %d a committed "
      "conversion to finish, %d a complete DeLSM database\n",
      victims.size(), untouched, committed_unfinished, complete);
}

// Killed exactly at the commit point: on entering the rename onto CURRENT,
// the conversion is fully staged and LevelDB's database untouched (LevelDB
// reads it all); on leaving it, CURRENT is DeLSM's, LevelDB refuses the
// directory and none of LevelDB's tables has been moved yet. Both times
// DeLSM's next Open (starting over, or finishing) reads every key.
TEST_F(LevelDbConversionCrash, KilledAtTheCommitPoint) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "reads x86-64 system call registers";
#endif
  ASSERT_NO_FATAL_FAILURE(MakePristine());
  for (KillAt::When when : {KillAt::kCommitEntry, KillAt::kCommitExit}) {
    const bool done = when == KillAt::kCommitExit;
    SCOPED_TRACE(done ? "killed leaving the rename onto CURRENT"
                      : "killed entering the rename onto CURRENT");
    const std::string db = tmp_.path() + (done ? "/left" : "/entered");
    ASSERT_TRUE(CopyFiles(pristine_, db));
    KillAt at;
    at.when = when;
    std::vector<Call> calls;
    ASSERT_TRUE(TraceChild(db, at, &calls));
    EXPECT_TRUE(IsDir(db + "/leveldb-conversion"));
    EXPECT_EQ(!done, ReadWholeFile(db + "/CURRENT") == leveldb_current_);
    ExpectLevelDbFilesAsTheyWere(db, done);
    Contents leveldb_view;
    const bool leveldb_reads = ReadWithLevelDb(db, &leveldb_view);
    if (done) {
      EXPECT_FALSE(leveldb_reads) << "LevelDB read a converted database";
    } else {
      EXPECT_TRUE(leveldb_reads) << "LevelDB cannot read the untouched DB";
      EXPECT_TRUE(model_ == leveldb_view) << "LevelDB reads something else";
    }
    leveldb::Status s;
    EXPECT_EQ(model_, ReadWithDelsm(db, &s));
    EXPECT_TRUE(s.ok()) << s.ToString();
    ExpectConverted(db);
    delsm_test::RemoveTree(db);
  }
}

}  // namespace
