// Acceptance test of issue 2, item 6 (binary drop-in): dropin_client, built
// against the system's LevelDB headers and linked with Debian's
// libleveldb.so.1d, prints the same results when the loader is pointed at
// DeLSM's libleveldb.so.1d through LD_LIBRARY_PATH. tests/extra.cmake builds
// the client and passes its path and the drop-in library's folder in.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.h"

#if !defined(DROPIN_CLIENT) || !defined(DROPIN_LIBRARY_DIR)
// tests/extra.cmake did not configure the client (no Debian libleveldb.so.1d
// at configure time); the test below then fails saying so.
#define DROPIN_CLIENT ""
#define DROPIN_LIBRARY_DIR ""
#endif

namespace {

// The canonical form of `path` as the loader reports it in /proc/self/maps.
std::string RealPath(const std::string& path) {
  char* r = realpath(path.c_str(), nullptr);
  if (r == nullptr) return path;
  std::string out = r;
  free(r);
  return out;
}

struct ClientRun {
  int status = -1;
  std::string output;             // every line but the LIB ones
  std::vector<std::string> libs;  // the libleveldb files mapped
};

// Runs the client on a fresh scratch directory, with `env_prefix` (shell
// assignments) in front of the command. stderr is merged into the output.
ClientRun RunClient(const std::string& env_prefix) {
  ClientRun run;
  delsm_test::TempDir scratch("dropin");
  if (scratch.path().empty()) return run;
  std::string cmd = env_prefix + " '" + std::string(DROPIN_CLIENT) + "' '" +
                    scratch.path() + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return run;
  std::string all;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) all.append(buf, n);
  run.status = pclose(p);
  std::istringstream lines(all);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("LIB ", 0) == 0) {
      run.libs.push_back(line.substr(4));
    } else {
      run.output += line + "\n";
    }
  }
  return run;
}

TEST(DropinTest, SameResultsOnDebianLevelDbAndOnDelsm) {
  ASSERT_STRNE("", DROPIN_CLIENT)
      << "dropin_client was not configured: is libleveldb-dev installed?";
  const std::string lib_dir = RealPath(DROPIN_LIBRARY_DIR);
  // The client must not pick up a drop-in library from the environment.
  ClientRun debian = RunClient("env -u LD_LIBRARY_PATH -u LD_PRELOAD");
  ASSERT_TRUE(WIFEXITED(debian.status) && WEXITSTATUS(debian.status) == 0)
      << "client failed on Debian's LevelDB:\n"
      << debian.output;
  ASSERT_EQ(1u, debian.libs.size()) << debian.output;
  EXPECT_EQ(std::string::npos, debian.libs[0].find(lib_dir)) << debian.libs[0];
  ASSERT_NE(std::string::npos, debian.output.find("== end"));

  // LD_BIND_NOW resolves every symbol at load time, so a symbol the
  // library uses but nobody defines fails here, not in a user's program.
  ClientRun delsm = RunClient(
      std::string("env -u LD_PRELOAD LD_BIND_NOW=1 LD_LIBRARY_PATH='") +
      DROPIN_LIBRARY_DIR + "'");
  EXPECT_TRUE(WIFEXITED(delsm.status) && WEXITSTATUS(delsm.status) == 0)
      << "client failed on DeLSM (status " << delsm.status << "):\n"
      << delsm.output;
  // It really ran on the build's library, and only on it.
  ASSERT_EQ(1u, delsm.libs.size()) << delsm.output;
  EXPECT_EQ(0u, delsm.libs[0].find(lib_dir + "/"))
      << "loaded " << delsm.libs[0];

  // Line by line, so a difference is easy to read.
  std::istringstream a(debian.output), b(delsm.output);
  std::string la, lb;
  int line = 0;
  while (true) {
    bool more_a = static_cast<bool>(std::getline(a, la));
    bool more_b = static_cast<bool>(std::getline(b, lb));
    line++;
    if (!more_a && !more_b) break;
    EXPECT_EQ(more_a ? la : "<end of output>", more_b ? lb : "<end of output>")
        << "line " << line << " (left: Debian's LevelDB, right: DeLSM)";
    if (!more_a || !more_b) break;
  }
  EXPECT_EQ(debian.output, delsm.output);
}

}  // namespace
