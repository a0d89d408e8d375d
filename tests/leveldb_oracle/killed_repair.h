// Debian's LevelDB RepairDB killed partway, as a crash or a power cut ends
// it: the oracle (oracle.h) runs `repair` in a traced child, which is
// killed with SIGKILL at the entry of a chosen rename. LevelDB's RepairDB
// makes a table of each WAL and moves the WAL to lost/, writes its manifest
// as 000001.dbtmp, moves every manifest to lost/, renames its own into
// place and writes CURRENT: its renames are where its steps meet the disk.
// Only for the tests CMake gives LEVELDB_ORACLE, on x86-64 Linux
// (syscall_tracer.h).
#ifndef DELSM_TESTS_LEVELDB_ORACLE_KILLED_REPAIR_H_
#define DELSM_TESTS_LEVELDB_ORACLE_KILLED_REPAIR_H_

#if defined(__x86_64__) && defined(LEVELDB_ORACLE)

#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "tests/syscall_tracer.h"
#include "tests/test_support.h"

namespace delsm_test {

// Runs Debian's LevelDB RepairDB on `dbname` and kills it at the entry of
// its first rename (rename, renameat or renameat2) for which `at(from, to)`
// is true, before the call takes effect. True once it is dead by that
// SIGKILL; false, with *why, if it ended before such a rename or the
// tracing failed.
inline bool KillLevelDbRepairAtRename(
    const std::string& dbname,
    const std::function<bool(const std::string& from, const std::string& to)>&
        at,
    std::string* why) {
  const pid_t pid = fork();
  if (pid < 0) {
    *why = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) _exit(126);
    // Debian's LevelDB, never DeLSM's drop-in (oracle.h).
    unsetenv("LD_LIBRARY_PATH");
    unsetenv("LD_PRELOAD");
    if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(125);
    if (raise(SIGSTOP) != 0) _exit(124);
    execl(LEVELDB_ORACLE, LEVELDB_ORACLE, "repair", dbname.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  auto give_up = [pid, why](const std::string& what) {
    *why = what;
    kill(pid, SIGKILL);
    WaitChild(pid);
    return false;
  };
  int status = 0;
  if (!StartTracing(pid, &status, why)) return give_up(*why);
  long deliver = 0;
  for (;;) {
    if (ptrace(PTRACE_SYSCALL, pid, nullptr,
               reinterpret_cast<void*>(deliver)) != 0) {
      return give_up(std::string("PTRACE_SYSCALL: ") + std::strerror(errno));
    }
    deliver = 0;
    status = WaitChild(pid);
    if (status < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
      *why = "LevelDB's RepairDB ended (status " + std::to_string(status) +
             ") before the rename it was to be killed at";
      return false;
    }
    // The SIGTRAP of the execve is the tracer's, not the child's.
    if (WSTOPSIG(status) == SIGTRAP) continue;
    if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
      deliver = WSTOPSIG(status);
      continue;
    }
    user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid, nullptr, &regs) != 0) {
      return give_up(std::string("PTRACE_GETREGS: ") + std::strerror(errno));
    }
    if (!IsSyscallEntry(regs)) continue;
    unsigned long long from, to;
    if (regs.orig_rax == SYS_rename) {
      from = regs.rdi;
      to = regs.rsi;
    } else if (regs.orig_rax == SYS_renameat ||
               regs.orig_rax == SYS_renameat2) {
      from = regs.rsi;
      to = regs.r10;
    } else {
      continue;
    }
    std::string from_path, to_path;
    if (!PeekString(pid, from, &from_path) || !PeekString(pid, to, &to_path)) {
      return give_up("cannot read the paths of a rename");
    }
    if (!at(from_path, to_path)) continue;
    kill(pid, SIGKILL);
    status = WaitChild(pid);
    if (!WIFSIGNALED(status)) {
      *why = "not killed: status " + std::to_string(status);
      return false;
    }
    return true;
  }
}

// Runs Debian's LevelDB RepairDB on `dbname` and kills it at the entry of
// its first rename of a manifest (WriteDescriptor's moves of every manifest
// to lost/, after it made tables of the WALs, moved them to lost/ and wrote
// its own manifest as 000001.dbtmp). False, with *why, if it ended or the
// tracing failed before that call.
inline bool KillLevelDbRepairAtFirstManifestMove(const std::string& dbname,
                                                 std::string* why) {
  return KillLevelDbRepairAtRename(
      dbname,
      [](const std::string& from, const std::string&) {
        return from.find("/MANIFEST-") != std::string::npos;
      },
      why);
}

}  // namespace delsm_test

#endif  // defined(__x86_64__) && defined(LEVELDB_ORACLE)

#endif  // DELSM_TESTS_LEVELDB_ORACLE_KILLED_REPAIR_H_
