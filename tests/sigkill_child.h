// The child side of the kill -9 tests: a test binary re-executed by
// SpawnSelf (test_support.h) that writes until its parent kills it, or that
// kills itself at the moment a test wants to cut. The parent side of the
// writer protocol is RunWriterUntilKilled (test_support.h).
//
// POSIX and the public LevelDB headers only, like test_support.h.
#ifndef DELSM_TESTS_SIGKILL_CHILD_H_
#define DELSM_TESTS_SIGKILL_CHILD_H_

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "leveldb/db.h"
#include "leveldb/status.h"
#include "leveldb/write_batch.h"
#include "tests/test_support.h"

namespace delsm_test {

// What a writer child started by RunWriterUntilKilled finds in its
// environment: <prefix>_DB, the database; <prefix>_FD, the write end of the
// pipe its acknowledgements go to; <prefix>_START, the number of its first
// batch.
struct WriterChildArgs {
  std::string db;
  int fd = -1;
  uint64_t start = 0;
};

// Reads the writer child's variables; false if one is missing (the test
// binary runs on its own, not as a child).
inline bool WriterChildArgsFromEnv(const std::string& prefix,
                                   WriterChildArgs* args) {
  const char* db = std::getenv((prefix + "_DB").c_str());
  const char* fd = std::getenv((prefix + "_FD").c_str());
  const char* start = std::getenv((prefix + "_START").c_str());
  if (db == nullptr || fd == nullptr || start == nullptr) return false;
  args->db = db;
  args->fd = std::atoi(fd);
  args->start = std::strtoull(start, nullptr, 10);
  return true;
}

// Tells the parent that batch `batch_no` was acknowledged; ends the process
// (status 3) if the pipe cannot take it.
inline void AckBatchOrExit(int fd, uint64_t batch_no) {
  if (write(fd, &batch_no, sizeof(batch_no)) != sizeof(batch_no)) _exit(3);
}

// Ends a writer child (status 2) unless `s`, the status of opening its
// database, is OK.
inline void ExitUnlessOpened(const leveldb::Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "writer: open failed: %s\n", s.ToString().c_str());
    _exit(2);
  }
}

// A writer child's loop: for each batch number from args.start on, fills a
// batch with fill(batch_no, &batch), writes it to `db` with `wo` and
// acknowledges it (AckBatchOrExit). Ends the process (status 2) if a write
// fails; otherwise runs until the parent kills it.
template <typename Fill>
[[noreturn]] void WriteBatchesUntilKilled(leveldb::DB* db,
                                          const WriterChildArgs& args,
                                          const leveldb::WriteOptions& wo,
                                          Fill fill) {
  for (uint64_t batch_no = args.start;; batch_no++) {
    leveldb::WriteBatch batch;
    fill(batch_no, &batch);
    const leveldb::Status s = db->Write(wo, &batch);
    if (!s.ok()) {
      std::fprintf(stderr, "writer: write failed: %s\n", s.ToString().c_str());
      _exit(2);
    }
    AckBatchOrExit(args.fd, batch_no);
  }
}

// Runs this binary's test `gtest_filter` in a child process with `env` and
// waits for it. The child must end by SIGKILL (a test body that raises it at
// the moment to cut); any other end (a failed step's _exit, a crash) is an
// error. Returns "" or what went wrong.
inline std::string RunChildThatKillsItself(
    const std::string& gtest_filter,
    const std::vector<std::pair<std::string, std::string>>& env) {
  const pid_t pid = SpawnSelf(gtest_filter, env);
  if (pid <= 0) return "fork failed";
  const int status = WaitChild(pid);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    return gtest_filter + ": child status " + std::to_string(status) +
           ", not SIGKILL";
  }
  return "";
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_SIGKILL_CHILD_H_
