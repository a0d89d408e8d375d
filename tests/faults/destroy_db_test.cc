// DestroyDB meeting an error it cannot classify: it fails, and the database
// it could not judge whole is left as it was, openable with every key. A
// DestroyDB that returned OK after removing only part of a database (its
// SST directories, say, but not the manifest naming them) would leave
// behind a database whose Open fails, where the caller was told there is
// none; one that failed after removing part of it (CURRENT, say, but not
// the SST directories) would leave the same, and lose every key of a
// database it should have left alone. And a removal that fails partway
// (EIO on an unlink) leaves what the contract says: a database still whole
// if CURRENT could not go, else none, and a second DestroyDB finishes.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "testing/read_error_env.h"
#include "tests/faults/kv_file_database.h"
#include "tests/stat_failing_file_system.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using delsm_test::ExpectKvFileDatabase;
using delsm_test::ListDir;
using delsm_test::MakeKvFileDatabase;
using delsm_test::TempDir;
using delsm_test::TreeSnapshot;

// The SST directories of the database at `dbname`, as "Ln/nnnnnn.sst".
std::vector<std::string> SstDirs(const std::string& dbname) {
  std::vector<std::string> dirs;
  for (int level = 0; level < 7; level++) {
    const std::string l = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname + "/" + l)) {
      dirs.push_back(l + "/" + d);
    }
  }
  return dirs;
}

class DestroyDbListingTest : public testing::TestWithParam<bool> {};

// The DB directory cannot be listed (EIO) while its level directories
// can: DestroyDB cannot tell which files are the database's, fails naming
// the directory, and removes nothing (no SST directory, no home).
TEST_P(DestroyDbListingTest, UnlistableDbDirectoryFailsAndRemovesNothing) {
  TempDir tmp("delsm_destroy");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  delsm::Tuning tuning;
  tuning.values_stay_put = GetParam();
  tuning.inline_threshold = 0;  // every value a KV file
  ASSERT_NO_FATAL_FAILURE(MakeKvFileDatabase(dbname, tuning));
  const std::vector<std::string> sst_dirs = SstDirs(dbname);
  ASSERT_FALSE(sst_dirs.empty());
  const std::vector<std::string> top = ListDir(dbname);
  const std::vector<std::string> homes =
      GetParam() ? ListDir(dbname + "/values") : std::vector<std::string>();
  if (GetParam()) ASSERT_FALSE(homes.empty());

  leveldb::ReadErrorEnv env(leveldb::Env::Default());
  env.set_failing_listings(dbname);
  leveldb::Options options;
  options.env = &env;
  const leveldb::Status s = leveldb::DestroyDB(dbname, options);
  ASSERT_GT(env.failed_listings(), 0) << "the DB directory was not listed";
  EXPECT_TRUE(s.IsIOError()) << s.ToString();

  EXPECT_EQ(top, ListDir(dbname));
  EXPECT_EQ(sst_dirs, SstDirs(dbname));
  if (GetParam()) EXPECT_EQ(homes, ListDir(dbname + "/values"));
  ExpectKvFileDatabase(dbname, tuning);
}

INSTANTIATE_TEST_SUITE_P(Modes, DestroyDbListingTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

// A closed database in a fresh directory (with values that stay put or
// not) for DestroyDB to meet something it cannot classify.
class DestroyDbPlanTest : public testing::TestWithParam<bool> {
 protected:
  DestroyDbPlanTest() : tmp_("delsm_destroy"), dbname_(tmp_.path() + "/db") {
    tuning_.values_stay_put = GetParam();
    tuning_.inline_threshold = 0;  // every value a KV file
  }

  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    ASSERT_NO_FATAL_FAILURE(MakeKvFileDatabase(dbname_, tuning_));
    ASSERT_FALSE(SstDirs(dbname_).empty());
    if (GetParam()) ASSERT_FALSE(ListDir(dbname_ + "/values").empty());
  }

  // Moves the directory `rel` (relative to the database directory) out to
  // <tmp>/outside and puts a symbolic link to it in its place.
  void ReplaceByLink(const std::string& rel) {
    ASSERT_EQ(0, std::rename((dbname_ + "/" + rel).c_str(), outside().c_str()));
    ASSERT_EQ(0, symlink(outside().c_str(), (dbname_ + "/" + rel).c_str()));
  }
  // Undoes ReplaceByLink.
  void RestoreFromLink(const std::string& rel) {
    ASSERT_EQ(0, unlink((dbname_ + "/" + rel).c_str()));
    ASSERT_EQ(0, std::rename(outside().c_str(), (dbname_ + "/" + rel).c_str()));
  }
  std::string outside() const { return tmp_.path() + "/outside"; }

  TempDir tmp_;
  const std::string dbname_;
  delsm::Tuning tuning_;
};

// An SST directory replaced by a link to a directory outside the database:
// DestroyDB finds the link while it plans, fails naming it and removes
// nothing, neither the database's files nor what the link points at.
TEST_P(DestroyDbPlanTest, LinkedSstDirectoryFailsAndRemovesNothing) {
  const std::vector<std::string> sst_dirs = SstDirs(dbname_);
  // The last the plan meets, so that DestroyDB would have removed
  // everything else by then had it removed as it went.
  const std::string rel = sst_dirs.back();
  ASSERT_NO_FATAL_FAILURE(ReplaceByLink(rel));
  const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);
  const std::map<std::string, std::string> outside_before =
      TreeSnapshot(outside());
  ASSERT_LT(1u, outside_before.size()) << "the SST directory was empty";

  leveldb::Options options;
  const leveldb::Status s = leveldb::DestroyDB(dbname_, options);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos,
            s.ToString().find(rel + ": a symbolic link, not followed"))
      << s.ToString();
  EXPECT_TRUE(TreeSnapshot(outside()) == outside_before)
      << "DestroyDB changed the directory outside the database";
  EXPECT_TRUE(TreeSnapshot(dbname_) == db_before)
      << "the failed DestroyDB changed the database directory";

  ASSERT_NO_FATAL_FAILURE(RestoreFromLink(rel));
  ExpectKvFileDatabase(dbname_, tuning_);
}

// The same for a level directory, and for a home, replaced by a link.
TEST_P(DestroyDbPlanTest, LinkedLevelDirectoryOrHomeFailsAndRemovesNothing) {
  std::vector<std::string> rels = {SstDirs(dbname_).back()};
  rels[0].resize(rels[0].find('/'));  // its level directory
  if (GetParam()) rels.push_back("values/" + ListDir(dbname_ + "/values")[0]);
  for (const std::string& rel : rels) {
    SCOPED_TRACE(rel);
    ASSERT_NO_FATAL_FAILURE(ReplaceByLink(rel));
    const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);
    const std::map<std::string, std::string> outside_before =
        TreeSnapshot(outside());

    const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
    EXPECT_TRUE(s.IsIOError()) << s.ToString();
    EXPECT_NE(std::string::npos,
              s.ToString().find(rel + ": a symbolic link, not followed"))
        << s.ToString();
    EXPECT_TRUE(TreeSnapshot(outside()) == outside_before);
    EXPECT_TRUE(TreeSnapshot(dbname_) == db_before);

    ASSERT_NO_FATAL_FAILURE(RestoreFromLink(rel));
    ExpectKvFileDatabase(dbname_, tuning_);
  }
}

// A level directory that cannot be listed (EIO injected beneath DestroyDB)
// while the database directory can: nothing is removed.
TEST_P(DestroyDbPlanTest, UnlistableLevelDirectoryFailsAndRemovesNothing) {
  // The deepest level directory holding SST directories: the plan lists
  // it after every other level directory.
  std::string level_dir = SstDirs(dbname_).back();
  level_dir.resize(level_dir.find('/'));
  const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);

  leveldb::FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  leveldb::FaultSpec fault;
  fault.sticky = true;
  fault.path_contains = dbname_ + "/" + level_dir;
  fs.Arm(leveldb::FsOp::kReaddir, fault);
  const leveldb::Status s =
      leveldb::DestroyDBWithFileSystem(dbname_, leveldb::Options(), &fs);
  ASSERT_TRUE(fs.Fired()) << level_dir << " was not listed";
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(level_dir)) << s.ToString();
  EXPECT_TRUE(TreeSnapshot(dbname_) == db_before)
      << "the failed DestroyDB changed the database directory";
  ExpectKvFileDatabase(dbname_, tuning_);
}

// A level directory whose lstat fails (EIO) while DestroyDB looks for
// DeLSM's directories: whether it is there cannot be told, so neither can
// what the plan must remove. Nothing is removed. Taken for absent, it was
// left out of the plan: DestroyDB removed CURRENT, the manifest and the
// WALs, returned OK, and left the level directory with its SST
// directories (and values), a database reported destroyed that was not.
TEST_P(DestroyDbPlanTest, UnstatableLevelDirectoryFailsAndRemovesNothing) {
  std::string level_dir = SstDirs(dbname_).back();
  level_dir.resize(level_dir.find('/'));
  const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);

  delsm_test::StatFailingFileSystem fs;
  fs.FailExistsUnder(dbname_ + "/" + level_dir);
  const leveldb::Status s =
      leveldb::DestroyDBWithFileSystem(dbname_, leveldb::Options(), &fs);
  ASSERT_LT(0, fs.Failed()) << level_dir << " was not looked for";
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(level_dir)) << s.ToString();
  EXPECT_TRUE(TreeSnapshot(dbname_) == db_before)
      << "the failed DestroyDB changed the database directory";
  ExpectKvFileDatabase(dbname_, tuning_);
}

// CURRENT cannot be removed: it is the first thing DestroyDB removes, so
// the database is left whole.
TEST_P(DestroyDbPlanTest, FailedRemovalOfCurrentLeavesTheDatabaseWhole) {
  const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);
  leveldb::FaultInjectionEnv env(leveldb::Env::Default(),
                                 tmp_.path() + "/shadow");
  leveldb::FaultSpec fault;
  fault.path_contains = dbname_ + "/CURRENT";
  env.Arm(leveldb::EnvOp::kRemove, fault);
  leveldb::Options options;
  options.env = &env;
  const leveldb::Status s = leveldb::DestroyDB(dbname_, options);
  ASSERT_TRUE(env.Fired());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(TreeSnapshot(dbname_) == db_before)
      << "DestroyDB removed something besides failing on CURRENT";
  ExpectKvFileDatabase(dbname_, tuning_);
}

// An unlink inside an SST directory fails (EIO) after CURRENT went: the
// call fails, the directory holds no database Open recognises, and a
// second DestroyDB removes the rest.
TEST_P(DestroyDbPlanTest, FailedUnlinkFailsAndASecondDestroyFinishes) {
  leveldb::FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  fs.FailNth(leveldb::FsOp::kUnlink, 1, EIO);
  leveldb::Status s =
      leveldb::DestroyDBWithFileSystem(dbname_, leveldb::Options(), &fs);
  ASSERT_TRUE(fs.Fired());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  struct stat st;
  EXPECT_NE(0, lstat((dbname_ + "/CURRENT").c_str(), &st));
  EXPECT_FALSE(SstDirs(dbname_).empty()) << "the failed unlink removed all";
  leveldb::DB* db = nullptr;
  s = delsm::Open(leveldb::Options(), tuning_, dbname_, &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  delete db;

  s = leveldb::DestroyDBWithFileSystem(dbname_, leveldb::Options(), &fs);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_NE(0, lstat(dbname_.c_str(), &st)) << "the database stayed";
}

// Child side of OpenInAnotherProcessFailsAndRemovesNothing and
// OpenRacingTheLockRemovalIsNotASecondWriter: opens the database named by
// the environment (creating it if DESTROY_HOLDER_CREATE is set), writes
// one byte to the pipe named there once it is open ('y') or could not be
// ('n'), and holds it open until killed.
TEST(DestroyDbLockHolder, Child) {
  const char* db = std::getenv("DESTROY_HOLDER_DB");
  const char* fd = std::getenv("DESTROY_HOLDER_FD");
  if (db == nullptr || fd == nullptr) GTEST_SKIP() << "helper for another test";
  delsm::Tuning tuning;
  tuning.values_stay_put = std::getenv("DESTROY_HOLDER_STAY_PUT") != nullptr;
  tuning.inline_threshold = 0;
  leveldb::Options options;
  options.create_if_missing = std::getenv("DESTROY_HOLDER_CREATE") != nullptr;
  leveldb::DB* dbptr = nullptr;
  const leveldb::Status s = delsm::Open(options, tuning, db, &dbptr);
  const char ready = s.ok() ? 'y' : 'n';
  if (write(std::atoi(fd), &ready, 1) != 1) _exit(2);
  if (!s.ok()) _exit(1);
  for (;;) pause();
}

// The database is open in another process (which holds its LOCK):
// DestroyDB fails and removes nothing; once that process is gone, the
// database opens with every key.
TEST_P(DestroyDbPlanTest, OpenInAnotherProcessFailsAndRemovesNothing) {
  int fds[2];
  ASSERT_EQ(0, pipe(fds));
  std::vector<std::pair<std::string, std::string>> env = {
      {"DESTROY_HOLDER_DB", dbname_},
      {"DESTROY_HOLDER_FD", std::to_string(fds[1])}};
  if (GetParam()) env.push_back({"DESTROY_HOLDER_STAY_PUT", "1"});
  const pid_t pid = delsm_test::SpawnSelf("DestroyDbLockHolder.Child", env);
  close(fds[1]);
  ASSERT_GT(pid, 0);
  char ready = 0;
  const ssize_t n = read(fds[0], &ready, 1);
  close(fds[0]);
  if (n != 1 || ready != 'y') {
    kill(pid, SIGKILL);
    delsm_test::WaitChild(pid);
    FAIL() << "the other process did not open the database";
  }
  const std::vector<std::string> sst_dirs = SstDirs(dbname_);

  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  kill(pid, SIGKILL);
  delsm_test::WaitChild(pid);
  EXPECT_FALSE(s.ok()) << "DestroyDB of a database open elsewhere succeeded";
  struct stat st;
  EXPECT_EQ(0, lstat((dbname_ + "/CURRENT").c_str(), &st));
  EXPECT_EQ(sst_dirs, SstDirs(dbname_));
  ExpectKvFileDatabase(dbname_, tuning_);
}

// Passes every call to the default Env; runs `hook` first in the
// RemoveFile of a path ending in "/LOCK".
class LockRemovalHookEnv : public leveldb::EnvWrapper {
 public:
  explicit LockRemovalHookEnv(std::function<void()> hook)
      : EnvWrapper(leveldb::Env::Default()), hook_(std::move(hook)) {}
  leveldb::Status RemoveFile(const std::string& f) override {
    if (f.size() >= 5 && f.compare(f.size() - 5, 5, "/LOCK") == 0) {
      calls_++;
      hook_();
    }
    return target()->RemoveFile(f);
  }
  int calls() const { return calls_; }

 private:
  const std::function<void()> hook_;
  int calls_ = 0;
};

// Another process opens the database (create_if_missing) just as
// DestroyDB removes its LOCK file. Two processes must never both hold the
// database open. DestroyDB released the lock before it unlinked the file:
// an Open in between took the lock on that file, the unlink then left it
// holding a lock on a file no longer there, and the next Open made a new
// LOCK, locked it and opened the same database beside it (here this
// process's). The LOCK file now goes while DestroyDB still holds it.
TEST_P(DestroyDbPlanTest, OpenRacingTheLockRemovalIsNotASecondWriter) {
  pid_t holder = -1;
  char ready = 0;
  LockRemovalHookEnv env([&] {
    int fds[2];
    if (pipe(fds) != 0) return;
    std::vector<std::pair<std::string, std::string>> vars = {
        {"DESTROY_HOLDER_DB", dbname_},
        {"DESTROY_HOLDER_FD", std::to_string(fds[1])},
        {"DESTROY_HOLDER_CREATE", "1"}};
    if (GetParam()) vars.push_back({"DESTROY_HOLDER_STAY_PUT", "1"});
    holder = delsm_test::SpawnSelf("DestroyDbLockHolder.Child", vars);
    close(fds[1]);
    if (holder > 0 && read(fds[0], &ready, 1) != 1) ready = 0;
    close(fds[0]);
  });
  leveldb::Options options;
  options.env = &env;
  const leveldb::Status destroyed = leveldb::DestroyDB(dbname_, options);
  ASSERT_EQ(1, env.calls()) << "DestroyDB removed no LOCK file";
  ASSERT_GT(holder, 0);
  ASSERT_NE(0, ready) << "the other process did not report its Open";

  leveldb::Options create;
  create.create_if_missing = true;
  leveldb::DB* raw = nullptr;
  const leveldb::Status opened = delsm::Open(create, tuning_, dbname_, &raw);
  delete raw;
  kill(holder, SIGKILL);
  delsm_test::WaitChild(holder);
  EXPECT_FALSE(ready == 'y' && opened.ok())
      << "the database was open in two processes at once (DestroyDB: "
      << destroyed.ToString() << ")";
}

// Links in the database directory at the names of its files (LOG, a
// MANIFEST, CURRENT) to files outside it: DestroyDB unlinks the links and
// leaves the files they point at, and what else is outside, as they were.
TEST_P(DestroyDbPlanTest, LinkedDatabaseFilesAreUnlinkedNotFollowed) {
  const std::string out_dir = tmp_.path() + "/outside_files";
  ASSERT_EQ(0, mkdir(out_dir.c_str(), 0755));
  std::vector<std::string> names = {"LOG", "CURRENT"};
  for (const std::string& child : ListDir(dbname_)) {
    if (child.rfind("MANIFEST-", 0) == 0) names.push_back(child);
  }
  ASSERT_LT(2u, names.size()) << "no manifest";
  for (const std::string& name : names) {
    const std::string target = out_dir + "/" + name;
    ASSERT_EQ(0, std::rename((dbname_ + "/" + name).c_str(), target.c_str()));
    ASSERT_EQ(0, symlink(target.c_str(), (dbname_ + "/" + name).c_str()));
  }
  const std::map<std::string, std::string> outside_before =
      TreeSnapshot(out_dir);

  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  EXPECT_TRUE(s.ok()) << s.ToString();
  struct stat st;
  EXPECT_NE(0, lstat(dbname_.c_str(), &st)) << "the database stayed";
  EXPECT_TRUE(TreeSnapshot(out_dir) == outside_before)
      << "DestroyDB changed files outside the database";
}

// A LOCK that is a link to a path outside the database where nothing is:
// taking the lock would create the file the link points at. DestroyDB
// refuses the link instead, naming it, before it removes anything; nothing
// is made outside, and once the link is gone the database opens whole.
TEST_P(DestroyDbPlanTest, DanglingLockLinkMakesNothingOutside) {
  const std::string out_dir = tmp_.path() + "/outside_files";
  ASSERT_EQ(0, mkdir(out_dir.c_str(), 0755));
  ASSERT_EQ(0, unlink((dbname_ + "/LOCK").c_str()));
  ASSERT_EQ(0,
            symlink((out_dir + "/LOCK").c_str(), (dbname_ + "/LOCK").c_str()));
  const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);

  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(std::string::npos,
            s.ToString().find(dbname_ + "/LOCK: a symbolic link, not followed"))
      << s.ToString();
  EXPECT_TRUE(ListDir(out_dir).empty())
      << "DestroyDB made a file outside the database through the LOCK link";
  EXPECT_TRUE(TreeSnapshot(dbname_) == db_before)
      << "the failed DestroyDB changed the database directory";

  ASSERT_EQ(0, unlink((dbname_ + "/LOCK").c_str()));
  ExpectKvFileDatabase(dbname_, tuning_);
}

// Makes `dir`, a directory of the user's, holding notes.txt.
void MakeUserDirectory(const std::string& dir) {
  ASSERT_EQ(0, mkdir(dir.c_str(), 0755));
  std::FILE* f = std::fopen((dir + "/notes.txt").c_str(), "w");
  ASSERT_NE(nullptr, f);
  std::fputs("the user's", f);
  std::fclose(f);
}

// A directory of the user's at the name of one of the database's files
// (here a temporary file's, n.dbtmp), holding a file: DestroyDB cannot
// remove it as a file. It either fails having removed nothing (the
// database still opens with every key) or leaves it as not the database's
// and removes the rest; either way the user's file inside stays.
TEST_P(DestroyDbPlanTest, DirectoryAtADatabaseFileNameIsNotAHalfRemoval) {
  const std::string foreign = dbname_ + "/999999.dbtmp";
  MakeUserDirectory(foreign);
  if (HasFatalFailure()) return;
  const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
  EXPECT_EQ(std::vector<std::string>{"notes.txt"}, ListDir(foreign));
  if (s.ok()) {
    EXPECT_EQ(std::vector<std::string>{"999999.dbtmp"}, ListDir(dbname_));
  } else {
    struct stat st;
    EXPECT_EQ(0, lstat((dbname_ + "/CURRENT").c_str(), &st))
        << "DestroyDB failed (" << s.ToString()
        << ") after removing CURRENT: the database is gone, and no second "
           "DestroyDB gets past the directory to remove the rest";
    ExpectKvFileDatabase(dbname_, tuning_);
  }
}

// The same directory, which cannot be opened while DestroyDB plans
// (EMFILE injected beneath it): whether it is a directory, to stay, or a
// file, to go, cannot be told. DestroyDB fails having removed nothing; had
// it taken it for a file, it would have removed CURRENT and then failed
// on it, leaving a database that no longer opens.
TEST_P(DestroyDbPlanTest, UnopenableEntryAtADatabaseFileNameRemovesNothing) {
  const std::string foreign = dbname_ + "/999999.dbtmp";
  MakeUserDirectory(foreign);
  if (HasFatalFailure()) return;
  const std::map<std::string, std::string> db_before = TreeSnapshot(dbname_);
  leveldb::FaultInjectionFileSystem fs(leveldb::FileSystem::Default());
  leveldb::FaultSpec fault;
  fault.err = EMFILE;
  fault.sticky = true;
  fault.path_contains = foreign;
  fs.Arm(leveldb::FsOp::kOpen, fault);
  const leveldb::Status s =
      leveldb::DestroyDBWithFileSystem(dbname_, leveldb::Options(), &fs);
  ASSERT_TRUE(fs.Fired()) << foreign << " was not opened";
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(TreeSnapshot(dbname_) == db_before)
      << "DestroyDB (" << s.ToString() << ") changed the database directory";
  ExpectKvFileDatabase(dbname_, tuning_);
}

// A directory of the user's inside an SST directory (or a home), where
// DeLSM makes only files: the unlinks that remove the directory's entries
// cannot remove it, whatever its name, including one DeLSM gives its own
// files there (a meta file's, META-<n>, or a KV file's, key@sequence).
// Had DestroyDB removed CURRENT before meeting it, the database would be
// gone and every later DestroyDB would fail on it the same way. It fails
// naming the directory, having removed nothing: the database opens with
// every key, and once the user moves the directory away a second
// DestroyDB removes the database.
TEST_P(DestroyDbPlanTest, DirectoryInsideAnSstDirectoryFailsAndRemovesNothing) {
  std::vector<std::string> rels = {SstDirs(dbname_).front(),
                                   SstDirs(dbname_).back()};
  if (GetParam()) rels.push_back("values/" + ListDir(dbname_ + "/values")[0]);
  for (const std::string& rel : rels) {
    for (const char* name : {"mine", "META-999999", "user@00000000000001"}) {
      SCOPED_TRACE(rel + "/" + name);
      const std::string foreign = dbname_ + "/" + rel + "/" + name;
      MakeUserDirectory(foreign);
      if (HasFatalFailure()) return;
      const std::map<std::string, std::string> before = TreeSnapshot(dbname_);
      const leveldb::Status s = leveldb::DestroyDB(dbname_, leveldb::Options());
      EXPECT_TRUE(s.IsIOError()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find(foreign)) << s.ToString();
      EXPECT_TRUE(TreeSnapshot(dbname_) == before)
          << "the failed DestroyDB changed the database directory";
      ASSERT_NO_FATAL_FAILURE(ExpectKvFileDatabase(dbname_, tuning_));
      ASSERT_EQ(0, unlink((foreign + "/notes.txt").c_str()));
      ASSERT_EQ(0, rmdir(foreign.c_str()));
    }
  }
  ASSERT_OK(leveldb::DestroyDB(dbname_, leveldb::Options()));
  struct stat st;
  EXPECT_NE(0, lstat(dbname_.c_str(), &st)) << "DestroyDB left the directory";
}

// A directory of the user's at the name of a conversion's PLAN in the
// staging directory (leveldb-conversion/, which Open leaves alone when it
// holds no plan that reads): DeLSM writes PLAN only as a file, so this is
// not the database's, and stays, as a directory under a database file's
// name does. DestroyDB removes the database and returns OK; had it taken
// the directory for the file, its unlink would have failed after CURRENT
// had gone, on every later call too.
TEST_P(DestroyDbPlanTest, DirectoryAtThePlanNameInTheStagingDirectoryStays) {
  ASSERT_EQ(0, mkdir((dbname_ + "/leveldb-conversion").c_str(), 0755));
  const std::string foreign = dbname_ + "/leveldb-conversion/PLAN";
  MakeUserDirectory(foreign);
  if (HasFatalFailure()) return;
  ASSERT_NO_FATAL_FAILURE(ExpectKvFileDatabase(dbname_, tuning_));
  ASSERT_OK(leveldb::DestroyDB(dbname_, leveldb::Options()));
  EXPECT_EQ(std::vector<std::string>{"notes.txt"}, ListDir(foreign));
  EXPECT_EQ(std::vector<std::string>{"leveldb-conversion"}, ListDir(dbname_));
  EXPECT_EQ(std::vector<std::string>{"PLAN"},
            ListDir(dbname_ + "/leveldb-conversion"));
}

INSTANTIATE_TEST_SUITE_P(Modes, DestroyDbPlanTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace
