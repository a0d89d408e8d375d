// Running leveldb_oracle (real LevelDB in its own process) from a test.
// The test target must be listed in DELSM_ORACLE_TESTS (tests/extra.cmake),
// which defines LEVELDB_ORACLE as the helper's path. Only POSIX and the
// standard library are used, so any test binary can include this.
#ifndef DELSM_TESTS_LEVELDB_ORACLE_ORACLE_H_
#define DELSM_TESTS_LEVELDB_ORACLE_ORACLE_H_

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace delsm_test {

// Result of one run of the oracle.
struct OracleRun {
  bool ok = false;  // exited with status 0
  std::string out;  // its stdout
  std::string err;  // its stderr, or what failed in starting it
};

// Runs `LEVELDB_ORACLE args...` with `input` on stdin. Its stdin, stdout
// and stderr pass through files `scratch_prefix`.in/.out/.err, which are
// left behind for inspection (put them in the test's own directory).
inline OracleRun RunOracle(const std::vector<std::string>& args,
                           const std::string& input,
                           const std::string& scratch_prefix) {
  OracleRun run;
#ifndef LEVELDB_ORACLE
  run.err = "LEVELDB_ORACLE not defined (Debian's libleveldb.so.1d missing?)";
  return run;
#else
  const std::string in_path = scratch_prefix + ".in";
  const std::string out_path = scratch_prefix + ".out";
  const std::string err_path = scratch_prefix + ".err";
  {
    std::ofstream in(in_path, std::ios::binary | std::ios::trunc);
    in << input;
    if (!in.good()) {
      run.err = "cannot write " + in_path;
      return run;
    }
  }
  std::vector<std::string> argv_strings = {LEVELDB_ORACLE};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    run.err = std::string("fork: ") + std::strerror(errno);
    return run;
  }
  if (pid == 0) {
    const int in = open(in_path.c_str(), O_RDONLY);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
        dup2(err, 2) < 0) {
      _exit(126);
    }
    // The oracle must load Debian's LevelDB, never DeLSM's drop-in.
    unsetenv("LD_LIBRARY_PATH");
    unsetenv("LD_PRELOAD");
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      run.err = std::string("waitpid: ") + std::strerror(errno);
      return run;
    }
  }
  std::ifstream out(out_path, std::ios::binary);
  std::ifstream err(err_path, std::ios::binary);
  std::stringstream out_text, err_text;
  out_text << out.rdbuf();
  err_text << err.rdbuf();
  run.out = out_text.str();
  run.err = err_text.str();
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!run.ok) run.err += " (status " + std::to_string(status) + ")";
  return run;
#endif
}

// Hex as the oracle reads and prints it ("-" for the empty string).
inline std::string OracleHex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out.empty() ? "-" : out;
}

inline bool OracleUnhex(const std::string& hex, std::string* out) {
  out->clear();
  if (hex == "-") return true;
  if (hex.size() % 2 != 0) return false;
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned v;
    if (std::sscanf(hex.substr(i, 2).c_str(), "%2x", &v) != 1) return false;
    out->push_back(static_cast<char>(v));
  }
  return true;
}

// Parses `leveldb_oracle dump` output into *contents. False if it is not
// well formed or its count line disagrees with the entries.
inline bool ParseOracleDump(const std::string& text,
                            std::map<std::string, std::string>* contents) {
  contents->clear();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string a, b;
    fields >> a >> b;
    if (a == "count") return std::to_string(contents->size()) == b;
    std::string key, value;
    if (!OracleUnhex(a, &key) || !OracleUnhex(b, &value)) return false;
    (*contents)[key] = value;
  }
  return false;  // no count line: the dump did not finish
}

// The value `fill` gives key i (see leveldb_oracle.cc).
inline std::string OracleFillValue(unsigned i, size_t size) {
  std::string v = "v" + std::to_string(i) + ":";
  for (size_t j = 0; v.size() < size; j++) {
    v.push_back(static_cast<char>('a' + (i + j) % 26));
  }
  v.resize(size);
  return v;
}

inline std::string OracleFillKey(unsigned i) {
  char key[32];
  std::snprintf(key, sizeof(key), "key%010u", i);
  return key;
}

// The oracle's input for a database whose first `flushed` of `keys` filled
// keys are in a table and the rest only in its WAL.
inline std::string OracleTableAndWalCommands(int flushed, int keys,
                                             int value_size) {
  const std::string size = " " + std::to_string(value_size) + "\n";
  return "fill 0 " + std::to_string(flushed) + size + "flush\nfill " +
         std::to_string(flushed) + " " + std::to_string(keys - flushed) + size;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_LEVELDB_ORACLE_ORACLE_H_
