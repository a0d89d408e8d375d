// Binary drop-in: dropin_client, built
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

#if !defined(DROPIN_CLIENT) || !defined(DROPIN_LIBRARY_DIR) || \
    !defined(OPTIONS_CLIENT)
// tests/extra.cmake did not configure the clients (no Debian
// libleveldb.so.1d at configure time); the tests below then fail saying so.
#define DROPIN_CLIENT ""
#define OPTIONS_CLIENT ""
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

// Runs a shell command line and collects its output.
ClientRun RunCommand(const std::string& cmd) {
  ClientRun run;
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

// Runs the client on a fresh scratch directory, removed afterwards.
ClientRun RunClient(const std::string& env_prefix) {
  delsm_test::TempDir scratch("dropin");
  if (scratch.path().empty()) return ClientRun();
  return RunCommand(env_prefix + " '" + std::string(DROPIN_CLIENT) + "' '" +
                    scratch.path() + "' 2>&1");
}

// The whole of a small text file, or "" if it cannot be read.
std::string ReadText(const std::string& path) {
  std::string all;
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return all;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) all.append(buf, n);
  std::fclose(f);
  return all;
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

// DELSM_OPTIONS reaches a program that knows only LevelDB's API
// and was built against Debian's LevelDB: on the drop-in its database runs
// with the chosen durability and the LOG says so; an invalid value fails
// the open with InvalidArgument.
TEST(DropinTest, DelsmOptionsReachesProgramsBuiltForLevelDb) {
  ASSERT_STRNE("", OPTIONS_CLIENT)
      << "options_client was not configured: is libleveldb-dev installed?";
  const std::string on_delsm =
      std::string("env -u LD_PRELOAD LD_LIBRARY_PATH='") + DROPIN_LIBRARY_DIR +
      "' ";
  delsm_test::TempDir scratch("dropin_options");
  ASSERT_FALSE(scratch.path().empty());
  const std::string db = scratch.path() + "/db";
  const std::string client =
      std::string(" '") + OPTIONS_CLIENT + "' '" + db + "' 2>&1";

  ClientRun run = RunCommand(
      on_delsm + "DELSM_OPTIONS='durability=fsync; inline_threshold=64'" +
      client);
  ASSERT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0)
      << run.output;
  const std::string log = ReadText(db + "/LOG");
  EXPECT_NE(std::string::npos, log.find("DeLSM tuning: durability=fsync;"))
      << log;
  EXPECT_NE(std::string::npos, log.find(";inline_threshold=64;")) << log;
  EXPECT_NE(
      std::string::npos,
      log.find("(DELSM_OPTIONS=\"durability=fsync; inline_threshold=64\")"))
      << log;

  // Without the variable the next open runs with the defaults again.
  run = RunCommand(on_delsm + "env -u DELSM_OPTIONS" + client);
  ASSERT_TRUE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0)
      << run.output;
  EXPECT_NE(std::string::npos,
            ReadText(db + "/LOG").find("DeLSM tuning: durability=syncfs;"));

  run = RunCommand(on_delsm + "DELSM_OPTIONS='durability=often'" + client);
  EXPECT_FALSE(WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0)
      << run.output;
  EXPECT_NE(std::string::npos, run.output.find("open: InvalidArgument"))
      << run.output;
  EXPECT_NE(std::string::npos, run.output.find("DELSM_OPTIONS")) << run.output;
}

}  // namespace
