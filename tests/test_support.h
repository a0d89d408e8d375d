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
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

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

// The names in directory `path` (without "." and ".."), unsorted; empty if
// it cannot be read.
inline std::vector<std::string> ListDir(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return names;
  while (struct dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  return names;
}

// A directory created by mkdtemp under /tmp; removed with its contents when
// the object goes away. path() is empty if creation failed.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "delsm_test") {
    std::string templ = "/tmp/" + prefix + "_XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~TempDir() {
    if (!path_.empty()) RemoveTree(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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

}  // namespace delsm_test

#endif  // DELSM_TESTS_TEST_SUPPORT_H_
