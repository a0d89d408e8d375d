// Stepping a traced child from one system call to the next, for the tests
// that stop or kill a real process at an exact call (x86-64 Linux: the
// registers are read as that ABI lays them out). The child makes itself
// traceable (PTRACE_TRACEME, then raise(SIGSTOP)); the parent calls
// StartTracing once, then NextSyscallStop for each stop.
#ifndef DELSM_TESTS_SYSCALL_TRACER_H_
#define DELSM_TESTS_SYSCALL_TRACER_H_

#if defined(__x86_64__)

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <string>

#include "tests/test_support.h"

namespace delsm_test {

// Waits for the child's own SIGSTOP and sets the tracing options: system-call
// stops told apart from signals, and the child killed if the tracer ends.
// False (and *why) if it did not stop so (*status: how it stopped or ended)
// or the options were refused.
inline bool StartTracing(pid_t pid, int* status, std::string* why) {
  *status = WaitChild(pid);
  if (*status < 0 || !WIFSTOPPED(*status) || WSTOPSIG(*status) != SIGSTOP) {
    *why = "the child did not stop to be traced: status " +
           std::to_string(*status);
    return false;
  }
  const long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL;
  if (ptrace(PTRACE_SETOPTIONS, pid, nullptr,
             reinterpret_cast<void*>(options)) != 0) {
    *why = "PTRACE_SETOPTIONS failed: errno " + std::to_string(errno);
    return false;
  }
  return true;
}

enum class TraceStop {
  kSyscall,  // at a system call's entry or exit; the registers are read
  kEnded,    // the child exited or was killed; the status says how
  kError,    // a ptrace or wait call failed (errno says why)
};

// Resumes `pid` until its next system-call stop, passing on to it every
// other signal it stops for. Sets *status to the last wait status, and
// *regs at kSyscall.
inline TraceStop NextSyscallStop(pid_t pid, user_regs_struct* regs,
                                 int* status) {
  long deliver = 0;
  for (;;) {
    if (ptrace(PTRACE_SYSCALL, pid, nullptr,
               reinterpret_cast<void*>(deliver)) != 0) {
      return TraceStop::kError;
    }
    deliver = 0;
    *status = WaitChild(pid);
    if (*status < 0) return TraceStop::kError;
    if (WIFEXITED(*status) || WIFSIGNALED(*status)) return TraceStop::kEnded;
    if (WSTOPSIG(*status) != (SIGTRAP | 0x80)) {
      deliver = WSTOPSIG(*status);
      continue;
    }
    if (ptrace(PTRACE_GETREGS, pid, nullptr, regs) != 0) {
      return TraceStop::kError;
    }
    return TraceStop::kSyscall;
  }
}

// Whether a stop's registers are a call's entry: x86-64 Linux shows the
// entry with rax = -ENOSYS (the exit with the call's result).
inline bool IsSyscallEntry(const user_regs_struct& regs) {
  return static_cast<long long>(regs.rax) == -ENOSYS;
}

// The NUL-terminated string at `addr` in the stopped tracee `pid`, at most
// 4 KiB; false if it cannot be read.
inline bool PeekString(pid_t pid, unsigned long long addr, std::string* out) {
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

}  // namespace delsm_test

#endif  // defined(__x86_64__)

#endif  // DELSM_TESTS_SYSCALL_TRACER_H_
