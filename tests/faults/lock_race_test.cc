// An Open that races DestroyDB of another process for the LOCK file: the
// Open has opened the old LOCK file, DestroyDB then removes the database,
// LOCK included, and only after that does the Open lock the file it holds,
// which the directory no longer names. Two processes must never both hold
// one database open: the Open that locked a file no longer at the LOCK's
// path must not go on as if it held the database, or the next Open makes a
// new LOCK, locks it, and opens the same database beside it.
//
// The race is made deterministic with a real second process and no timing:
// the parent traces the child (ptrace) and stops it at the entry of the
// fcntl(F_SETLK) that locks the LOCK file; DestroyDB runs while it is
// stopped there; the child is then let go, and the parent opens the
// database itself.
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "tests/syscall_tracer.h"
#include "tests/test_support.h"

namespace {

// The child: waits to be traced, then opens the database named by
// LOCK_RACE_DB (create_if_missing), writes one byte to the pipe
// LOCK_RACE_FD names once it is open ('y') or could not be ('n'), and
// holds it open until killed.
TEST(LockRaceOpener, Child) {
  const char* db = std::getenv("LOCK_RACE_DB");
  const char* fd = std::getenv("LOCK_RACE_FD");
  if (db == nullptr || fd == nullptr) GTEST_SKIP() << "helper for LockRace";
  if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(4);
  if (raise(SIGSTOP) != 0) _exit(5);
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* dbptr = nullptr;
  const leveldb::Status s = delsm::Open(options, delsm::Tuning(), db, &dbptr);
  const char ready = s.ok() ? 'y' : 'n';
  if (write(std::atoi(fd), &ready, 1) != 1) _exit(2);
  if (!s.ok()) _exit(1);
  for (;;) pause();
}

#if defined(__x86_64__)
// The path the descriptor `fd` of process `pid` is open on ("" if unknown).
std::string FdPath(pid_t pid, unsigned long long fd) {
  const std::string link =
      "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  char buf[4096];
  const ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);
  return n < 0 ? std::string() : std::string(buf, n);
}

// Resumes the traced `pid` until it stops at the entry of an
// fcntl(F_SETLK) on a file whose path ends in "/LOCK". False if it ended
// first or tracing failed (a failure recorded).
bool RunToLockCall(pid_t pid) {
  for (;;) {
    user_regs_struct regs;
    int status = 0;
    const delsm_test::TraceStop stop =
        delsm_test::NextSyscallStop(pid, &regs, &status);
    if (stop == delsm_test::TraceStop::kError) {
      ADD_FAILURE() << "tracing the child: " << std::strerror(errno);
      return false;
    }
    if (stop == delsm_test::TraceStop::kEnded) {
      ADD_FAILURE() << "the child ended before it locked: status " << status;
      return false;
    }
    if (!delsm_test::IsSyscallEntry(regs)) continue;
    if (regs.orig_rax != SYS_fcntl || regs.rsi != F_SETLK) continue;
    const std::string path = FdPath(pid, regs.rdi);
    if (path.size() >= 5 && path.compare(path.size() - 5, 5, "/LOCK") == 0) {
      return true;
    }
  }
}
#endif

TEST(LockRaceTest, OpenLockingTheLockDestroyDbRemovedIsNotASecondWriter) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "reads x86-64 system call registers";
#else
  delsm_test::TempDir tmp("delsm_lock_race");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  {
    leveldb::Options options;
    options.create_if_missing = true;
    leveldb::DB* db = nullptr;
    ASSERT_OK(delsm::Open(options, delsm::Tuning(), dbname, &db));
    std::unique_ptr<leveldb::DB> guard(db);
    ASSERT_OK(db->Put(leveldb::WriteOptions(), "k", "v"));
  }
  // A file of the user's: DestroyDB leaves it, and so the directory.
  std::ofstream(dbname + "/notes.txt") << "the user's";

  int fds[2];
  ASSERT_EQ(0, pipe(fds));
  const pid_t pid = delsm_test::SpawnSelf(
      "LockRaceOpener.Child",
      {{"LOCK_RACE_DB", dbname}, {"LOCK_RACE_FD", std::to_string(fds[1])}});
  close(fds[1]);
  ASSERT_GT(pid, 0);
  std::string why;
  int status = 0;
  const bool traced = delsm_test::StartTracing(pid, &status, &why);
  if (!traced && WIFEXITED(status) && WEXITSTATUS(status) == 4) {
    // The child's _exit(4): PTRACE_TRACEME refused.
    close(fds[0]);
    GTEST_SKIP() << "this machine does not let a process be traced";
  }
  if (!traced || !RunToLockCall(pid)) {
    kill(pid, SIGKILL);
    delsm_test::WaitChild(pid);
    close(fds[0]);
    FAIL() << "the child did not reach the lock of its LOCK file: " << why;
  }

  // The child has the LOCK file open and has not locked it yet.
  const leveldb::Status destroyed =
      leveldb::DestroyDB(dbname, leveldb::Options());
  // Let it go: it takes its lock on the file it opened.
  EXPECT_EQ(0, ptrace(PTRACE_DETACH, pid, nullptr, nullptr));
  char ready = 0;
  if (read(fds[0], &ready, 1) != 1) ready = 0;
  close(fds[0]);

  leveldb::Options create;
  create.create_if_missing = true;
  leveldb::DB* raw = nullptr;
  const leveldb::Status opened =
      delsm::Open(create, delsm::Tuning(), dbname, &raw);
  delete raw;
  kill(pid, SIGKILL);
  delsm_test::WaitChild(pid);

  EXPECT_TRUE(destroyed.ok()) << destroyed.ToString();
  ASSERT_NE(0, ready) << "the other process did not report its Open";
  EXPECT_FALSE(ready == 'y' && opened.ok())
      << "the database was open in two processes at once";
  EXPECT_TRUE(ready == 'y' || opened.ok())
      << "neither process could open the database: " << opened.ToString();
#endif
}

}  // namespace
