// Converting a LevelDB database is crash safe (issue 14, acceptance 2): a
// process that opens a database Debian's LevelDB made (so DB::Open converts
// it) is killed with SIGKILL after a random delay, many times, each time on
// a fresh copy of that database. After each kill exactly one of two things
// holds, judged by CURRENT:
//  - CURRENT is still LevelDB's: every file LevelDB wrote is byte for byte
//    as it was, and Debian's LevelDB (tests/leveldb_oracle, its own
//    process) reads every key and value; or
//  - CURRENT names DeLSM's manifest: LevelDB refuses the directory (it does
//    not see a part of it).
// Either way DeLSM then opens it (restarting or finishing the conversion)
// and reads every key and value, and no LevelDB table or staging directory
// is left.
//
// The kill delays are drawn from the seed over one uninterrupted
// conversion's duration (child start included). The seed is printed;
// LDBCONV_CRASH_SEED replays one, LDBCONV_CRASH_KILLS sets the number of
// kills (default 12).
//
// Random delays rarely land right at the commit point, so
// KilledAtTheCommitPoint also kills the child exactly there, with no help
// from the library: the parent traces the child's system calls (ptrace) and
// kills it while it is stopped at the rename(2) that installs DeLSM's
// CURRENT, once on entry (the rename never happens: everything is staged,
// LevelDB's database untouched) and once on exit (it happened: committed,
// nothing moved yet).
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
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
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"

namespace {

using Contents = std::map<std::string, std::string>;

uint64_t NowMicros() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return static_cast<uint64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
}

bool IsDir(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
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

#if defined(__x86_64__)
// The target path's address of the rename(2), renameat(2) or renameat2(2)
// whose entry `regs` shows; 0 for any other system call.
unsigned long long RenameTarget(const user_regs_struct& regs) {
  switch (regs.orig_rax) {
    case SYS_rename:
      return regs.rsi;
    case SYS_renameat:
    case SYS_renameat2:
      return regs.r10;
    default:
      return 0;
  }
}
#endif

// The NUL-terminated string at `addr` in the stopped tracee `pid`, at most
// 4 KiB; false if it cannot be read.
bool PeekString(pid_t pid, unsigned long long addr, std::string* out) {
  out->clear();
  while (out->size() < 4096) {
    errno = 0;
    const long word =
        ptrace(PTRACE_PEEKDATA, pid,
               reinterpret_cast<void*>(addr + out->size()), nullptr);
    if (errno != 0) return false;
    const char* bytes = reinterpret_cast<const char*>(&word);
    for (size_t i = 0; i < sizeof(word); i++) {
      if (bytes[i] == '\0') return true;
      out->push_back(bytes[i]);
    }
  }
  return false;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Where RunChildKilledAtCommit stops the child.
enum class CommitKill {
  kEnteringRename,  // the rename onto CURRENT is not done
  kLeavingRename,   // it is done
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

  // Runs the child on `db`; kills it after `delay_us` unless
  // delay_us < 0. Returns true if it was killed, false if it finished.
  bool RunChild(const std::string& db, int64_t delay_us) {
    const pid_t pid = delsm_test::SpawnSelf("LevelDbConversionChild.Child",
                                            {{"LDBCONV_CHILD_DB", db}});
    EXPECT_GT(pid, 0);
    if (pid <= 0) return false;
    if (delay_us >= 0) {
      usleep(static_cast<useconds_t>(delay_us));
      EXPECT_EQ(0, kill(pid, SIGKILL));  // a zombie if done: no effect
    }
    const int status = delsm_test::WaitChild(pid);
    if (WIFSIGNALED(status)) {
      EXPECT_EQ(SIGKILL, WTERMSIG(status));
      return true;
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child failed: status " << status;
    return false;
  }

  // Runs the child on `db` under ptrace and kills it while it is stopped
  // in the rename(2) that installs CURRENT (the conversion's commit point),
  // as `when` says; the child runs no instruction after that stop. Returns
  // false, with a failure recorded, if tracing failed or the child ended
  // without such a rename.
  bool RunChildKilledAtCommit(const std::string& db, CommitKill when) {
#if !defined(__x86_64__)
    (void)db;
    (void)when;
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
    int status = delsm_test::WaitChild(pid);  // the child's own SIGSTOP
    if (status < 0) return give_up("waitpid");
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP) {
      ADD_FAILURE() << "the child did not stop to be traced: status " << status;
      if (WIFSTOPPED(status)) return give_up("stopped otherwise");
      return false;
    }
    const long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SETOPTIONS, pid, nullptr,
               reinterpret_cast<void*>(options)) != 0) {
      return give_up("PTRACE_SETOPTIONS");
    }
    long deliver = 0;  // a signal the child got, passed on when resuming
    bool in_commit_rename = false;
    for (;;) {
      if (ptrace(PTRACE_SYSCALL, pid, nullptr,
                 reinterpret_cast<void*>(deliver)) != 0) {
        return give_up("PTRACE_SYSCALL");
      }
      deliver = 0;
      status = delsm_test::WaitChild(pid);
      if (status < 0) return give_up("waitpid");
      if (WIFEXITED(status) || WIFSIGNALED(status)) {
        ADD_FAILURE() << "the child ended (status " << status
                      << ") without renaming onto CURRENT";
        return false;
      }
      if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
        deliver = WSTOPSIG(status);
        continue;
      }
      user_regs_struct regs;
      if (ptrace(PTRACE_GETREGS, pid, nullptr, &regs) != 0) {
        return give_up("PTRACE_GETREGS");
      }
      // x86-64 Linux shows a system call's entry with rax = -ENOSYS.
      const bool entry = static_cast<long long>(regs.rax) == -ENOSYS;
      if (entry) {
        const unsigned long long target = RenameTarget(regs);
        std::string path;
        in_commit_rename = target != 0 && PeekString(pid, target, &path) &&
                           EndsWith(path, "/CURRENT");
        if (in_commit_rename && when == CommitKill::kEnteringRename) break;
      } else if (in_commit_rename) {
        EXPECT_EQ(0, static_cast<long long>(regs.rax))
            << "the rename onto CURRENT failed";
        break;
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
      EXPECT_NE("leveldb-conversion", name) << db;
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
  const unsigned seed = static_cast<unsigned>(delsm_test::RandomSeed(
      "LevelDB conversion crash test", "LDBCONV_CRASH_SEED"));
  int kills = 12;
  if (const char* e = std::getenv("LDBCONV_CRASH_KILLS")) kills = std::atoi(e);
  std::printf(
      "LevelDB conversion crash test: seed %u, %d kills\n", seed, kills);
  RecordProperty("seed", std::to_string(seed));
  std::mt19937 rng(seed);

  ASSERT_NO_FATAL_FAILURE(MakePristine());
  const Contents& model = model_;
  const std::string& leveldb_current = leveldb_current_;

  // One uninterrupted conversion sets the span the kill delays come from.
  const std::string whole = tmp_.path() + "/whole";
  ASSERT_TRUE(CopyFiles(pristine_, whole));
  const uint64_t start = NowMicros();
  ASSERT_FALSE(RunChild(whole, -1));
  const uint64_t span = NowMicros() - start;
  leveldb::Status s;
  EXPECT_EQ(model, ReadWithDelsm(whole, &s));
  ASSERT_TRUE(s.ok()) << s.ToString();
  delsm_test::RemoveTree(whole);
  std::printf("one conversion (child start included): %llu us\n",
              static_cast<unsigned long long>(span));

  int untouched = 0, committed_unfinished = 0, complete = 0;
  for (int i = 0; i < kills && !HasFailure(); i++) {
    SCOPED_TRACE("kill " + std::to_string(i) + ", seed " +
                 std::to_string(seed));
    const std::string db = tmp_.path() + "/db" + std::to_string(i);
    ASSERT_TRUE(CopyFiles(pristine_, db));
    const int64_t delay = static_cast<int64_t>(rng() % (span + span / 10 + 1));
    const bool killed = RunChild(db, delay);
    const bool leveldb_side = ReadWholeFile(db + "/CURRENT") == leveldb_current;
    const bool staging = IsDir(db + "/leveldb-conversion");
    Contents leveldb_view;
    const bool leveldb_reads = ReadWithLevelDb(db, &leveldb_view);
    const char* state;
    if (leveldb_side) {
      // Before the commit point: LevelDB's files are as they were.
      state = "LevelDB's, untouched";
      untouched++;
      ASSERT_TRUE(killed) << "a finished conversion left LevelDB's CURRENT";
      ExpectLevelDbFilesAsTheyWere(db, false);
      ASSERT_TRUE(leveldb_reads) << "LevelDB cannot read the untouched DB";
      EXPECT_TRUE(model == leveldb_view) << "LevelDB reads something else";
    } else {
      // After it: DeLSM's database; LevelDB sees none of it.
      state = staging ? "DeLSM's, committed, unfinished" : "DeLSM's, complete";
      (staging ? committed_unfinished : complete)++;
      EXPECT_FALSE(leveldb_reads) << "LevelDB read a converted database";
    }
    EXPECT_EQ(model, ReadWithDelsm(db, &s));
    EXPECT_TRUE(s.ok()) << s.ToString();
    ExpectConverted(db);
    std::printf("kill %d after %lld us: %s%s\n", i,
                static_cast<long long>(delay), state,
                killed ? "" : " (the child had finished)");
    delsm_test::RemoveTree(db);
  }
  std::printf(
      "%d kills: %d left LevelDB's database untouched, %d a committed "
      "conversion to finish, %d a complete DeLSM database\n",
      kills, untouched, committed_unfinished, complete);
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
  for (CommitKill when :
       {CommitKill::kEnteringRename, CommitKill::kLeavingRename}) {
    const bool done = when == CommitKill::kLeavingRename;
    SCOPED_TRACE(done ? "killed leaving the rename onto CURRENT"
                      : "killed entering the rename onto CURRENT");
    const std::string db = tmp_.path() + (done ? "/left" : "/entered");
    ASSERT_TRUE(CopyFiles(pristine_, db));
    ASSERT_TRUE(RunChildKilledAtCommit(db, when));
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
