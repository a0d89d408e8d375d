// Helpers shared by the API-level test suites in tests/: a fresh temporary
// directory that is removed afterwards, and running this very test binary
// again as a separate process (fork + exec) to play a second client.
//
// Everything here uses only POSIX and the public LevelDB headers, so the
// suites can be built against Debian's LevelDB as well as DeLSM.
#ifndef DELSM_TESTS_TEST_SUPPORT_H_
#define DELSM_TESTS_TEST_SUPPORT_H_

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"

// Fails the test (fatally) with the status's message unless `expr`, a
// leveldb::Status, is OK. Needs gtest and leveldb/status.h where used.
#define ASSERT_OK(expr)                    \
  do {                                     \
    leveldb::Status _s = (expr);           \
    ASSERT_TRUE(_s.ok()) << _s.ToString(); \
  } while (0)

namespace delsm_test {

// Removes `path` and everything below it without following symbolic links.
// Returns false (and keeps going) if anything could not be removed.
inline bool RemoveTree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  if (!S_ISDIR(st.st_mode)) return unlink(path.c_str()) == 0;
  bool ok = true;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return false;
  std::vector<std::string> names;
  while (struct dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  for (const std::string& name : names) {
    ok = RemoveTree(path + "/" + name) && ok;
  }
  return rmdir(path.c_str()) == 0 && ok;
}

// What a shell command printed on stdout, and its exit status (-1 if it
// could not run or did not exit).
struct RunResult {
  int exit_code = -1;
  std::string out;
};

// Runs `command` under sh, capturing stdout (stderr passes through).
inline RunResult Shell(const std::string& command) {
  RunResult r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The i-th key of a test's key space, "key000042": fixed width, so that
// keys sort as their numbers do.
inline std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// The names in directory `path` (without "." and ".."), sorted bytewise so
// that a test picking "the first" file picks the same one on every file
// system and every run (readdir order is the file system's hash order);
// empty if it cannot be read.
inline std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (struct dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

// Whether `s` ends with `suffix`.
inline bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The LevelDB tables in database directory `db`: its .ldb files, and its
// .sst files that are files (a DeLSM SST of that name is a directory).
inline std::vector<std::string> LevelDbTableFiles(const std::string& db) {
  std::vector<std::string> tables;
  for (const std::string& name : ListDir(db)) {
    struct stat st;
    const bool is_dir =
        lstat((db + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    if (EndsWith(name, ".ldb") || (EndsWith(name, ".sst") && !is_dir)) {
      tables.push_back(name);
    }
  }
  return tables;
}

// Every file in every home (values/<home>/, values that stay put) of the
// DeLSM database `dbname`, as "home/name".
inline std::set<std::string> HomeFiles(const std::string& dbname) {
  std::set<std::string> files;
  for (const std::string& home : ListDir(dbname + "/values")) {
    for (const std::string& name : ListDir(dbname + "/values/" + home)) {
      files.insert(home + "/" + name);
    }
  }
  return files;
}

// The directory every test makes its databases under: $DELSM_TEST_DIR if
// set (the file system under test, e.g. a mount made by
// scripts/test_on_fs.sh), else $TMPDIR if set, else /tmp.
inline std::string TestRoot() {
  for (const char* var : {"DELSM_TEST_DIR", "TMPDIR"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && *v != '\0') return v;
  }
  return "/tmp";
}

// A fresh directory under TestRoot() made by mkdtemp from `prefix`; empty
// if it could not be made.
inline std::string MakeTestDir(const std::string& prefix) {
  std::string templ = TestRoot() + "/" + prefix + "_XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  return mkdtemp(buf.data()) != nullptr ? std::string(buf.data())
                                        : std::string();
}

// A MakeTestDir directory, removed with its contents when the object goes
// away. path() is empty if creation failed.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "delsm_test")
      : path_(MakeTestDir(prefix)) {}
  ~TempDir() {
    if (!path_.empty()) RemoveTree(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The seed of a randomised test that draws a fresh one per run: the first
// of the environment variables $DELSM_TEST_SEED and `legacy_env` (if not
// null) that is set, else one from std::random_device. Printed to stdout
// and stderr with how to replay it, so every failure's log carries it.
inline uint64_t RandomSeed(const std::string& what,
                           const char* legacy_env = nullptr) {
  uint64_t seed = 0;
  bool given = false;
  for (const char* var : {"DELSM_TEST_SEED", legacy_env}) {
    if (var == nullptr) continue;
    const char* env = std::getenv(var);
    if (env != nullptr && *env != '\0') {
      seed = std::strtoull(env, nullptr, 0);
      given = true;
      break;
    }
  }
  if (!given) {
    std::random_device rd;
    seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    seed &= 0xffffffffu;  // short enough to retype
  }
  std::printf("%s: seed %" PRIu64 " (replay with DELSM_TEST_SEED=%" PRIu64
              ")\n",
              what.c_str(), seed, seed);
  std::fflush(stdout);
  std::fprintf(stderr, "%s: seed %" PRIu64 " (DELSM_TEST_SEED=%" PRIu64 ")\n",
               what.c_str(), seed, seed);
  return seed;
}

// Copies the tree at `from` to `to` (which must not exist) with cp -a, so
// hard links among the copied files stay hard links. Returns "" or what
// failed.
inline std::string CopyTree(const std::string& from, const std::string& to) {
  const std::string cmd = "cp -a '" + from + "' '" + to + "'";
  const int rc = std::system(cmd.c_str());
  if (rc != 0) return cmd + ": status " + std::to_string(rc);
  return "";
}

// Starts this test binary again in a child process, running only the test
// `gtest_filter`, with the given extra environment variables. The child
// inherits every file descriptor not marked close-on-exec. Returns the
// child's pid, or -1 if fork failed.
//
// Exec (rather than plain fork) matters: a forked child would inherit the
// parent's in-memory state of the library (its table of locked files, its
// record of a running background thread that the child does not have).
inline pid_t SpawnSelf(
    const std::string& gtest_filter,
    const std::vector<std::pair<std::string, std::string>>& env) {
  std::string filter_arg = "--gtest_filter=" + gtest_filter;
  pid_t pid = fork();
  if (pid != 0) return pid;
  for (const auto& kv : env) setenv(kv.first.c_str(), kv.second.c_str(), 1);
  char* argv[] = {const_cast<char*>("self"),
                  const_cast<char*>(filter_arg.c_str()), nullptr};
  execv("/proc/self/exe", argv);
  _exit(127);
}

// Waits for `pid`; returns its raw wait status, or -1 on failure.
inline int WaitChild(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// What became of a writer child run by RunWriterUntilKilled.
struct KilledWriter {
  int64_t last_acked = -1;  // index of the newest acknowledged batch
  int acks = 0;             // acknowledgements received this run
};

// The crash tests' writer protocol. Starts this binary's test
// `gtest_filter` with `env` plus `fd_var` naming the write end of a pipe;
// the child writes the index of each acknowledged batch there as a uint64_t,
// counting up from `last_acked_before` + 1. After `kill_after_acks`
// acknowledgements (and `extra_delay_ms` more) the child gets SIGKILL; the
// pipe is drained and the child reaped. Returns an empty string on success,
// else what went wrong (acknowledgements out of order, the child ending on
// its own, a failed system call).
inline std::string RunWriterUntilKilled(
    const std::string& gtest_filter,
    std::vector<std::pair<std::string, std::string>> env,
    const std::string& fd_var, int64_t last_acked_before, int kill_after_acks,
    int extra_delay_ms, KilledWriter* result) {
  result->last_acked = last_acked_before;
  result->acks = 0;
  int fds[2];
  if (pipe(fds) != 0) return std::string("pipe: ") + std::strerror(errno);
  if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    return std::string("fcntl: ") + std::strerror(errno);
  }
  env.push_back({fd_var, std::to_string(fds[1])});
  const pid_t pid = SpawnSelf(gtest_filter, env);
  close(fds[1]);
  if (pid <= 0) {
    close(fds[0]);
    return "fork failed";
  }

  std::string error;
  bool killed = false;
  uint64_t buf[512];
  size_t pending = 0;  // bytes of a partial record in buf
  for (;;) {
    if (!killed && result->acks >= kill_after_acks) {
      if (extra_delay_ms > 0) poll(nullptr, 0, extra_delay_ms);
      if (kill(pid, SIGKILL) != 0) {
        error = std::string("kill: ") + std::strerror(errno);
        break;
      }
      killed = true;
    }
    ssize_t n = read(fds[0], reinterpret_cast<char*>(buf) + pending,
                     sizeof(buf) - pending);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = std::string("read: ") + std::strerror(errno);
      break;
    }
    if (n == 0) break;  // writer gone
    pending += n;
    const size_t records = pending / sizeof(uint64_t);
    for (size_t r = 0; r < records && error.empty(); r++) {
      if (buf[r] != static_cast<uint64_t>(result->last_acked + 1)) {
        error = "acknowledgements out of order";
      }
      result->last_acked = buf[r];
      result->acks++;
    }
    if (!error.empty()) break;
    pending -= records * sizeof(uint64_t);
    std::memmove(buf, reinterpret_cast<char*>(buf) + records * 8, pending);
  }
  close(fds[0]);
  if (!killed) kill(pid, SIGKILL);  // after an error: never leave it running
  const int status = WaitChild(pid);
  if (error.empty() &&
      !(killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    error = "writer ended on its own (status " + std::to_string(status) +
            ") after " + std::to_string(result->acks) + " acknowledged batches";
  }
  return error;
}

// The crash tests' keys: 'k' and a 12-digit index, so that a scan can tell
// which writes survived.
inline std::string IndexKey(uint64_t index) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%012" PRIu64, index);
  return buf;
}

// Inverse of IndexKey; false for any other key.
inline bool ParseIndexKey(const std::string& key, uint64_t* index) {
  if (key.size() != 13 || key[0] != 'k') return false;
  *index = 0;
  for (size_t i = 1; i < key.size(); i++) {
    if (key[i] < '0' || key[i] > '9') return false;
    *index = *index * 10 + (key[i] - '0');
  }
  return true;
}

// Scans `db`, whose keys must all be IndexKeys, each holding value(index)
// (`value` maps an index to its value): sets *max_batch to the largest
// index / keys_per_batch (-1 if the database is empty) and adds every index
// found to *present. Returns "" or the first thing wrong: a key that is not
// an IndexKey, a wrong value, an iteration error.
template <typename ValueOf>
std::string ScanIndexKeys(leveldb::DB* db, uint64_t keys_per_batch,
                          ValueOf value, int64_t* max_batch,
                          std::set<uint64_t>* present) {
  *max_batch = -1;
  std::unique_ptr<leveldb::Iterator> it(
      db->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    uint64_t index;
    const std::string key = it->key().ToString();
    if (!ParseIndexKey(key, &index)) {
      return "unexpected key of " + std::to_string(key.size()) + " bytes";
    }
    if (it->value().ToString() != value(index)) {
      return "wrong value under " + key;
    }
    *max_batch = std::max<int64_t>(*max_batch, index / keys_per_batch);
    present->insert(index);
  }
  if (!it->status().ok()) return "iteration: " + it->status().ToString();
  return "";
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_TEST_SUPPORT_H_
