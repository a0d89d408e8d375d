// DestroyDB and RepairDB on the directories a user who moves between
// LevelDB and DeLSM can have, each checked against Debian's LevelDB
// (tests/leveldb_oracle, its own process) doing its part for real:
//   * DestroyDB on a LevelDB database DeLSM has not converted (with the
//     staging directory of a conversion cut short) removes what LevelDB's
//     own DestroyDB removes plus DeLSM's directories, and nothing else, so
//     that Open(create_if_missing) then makes a new database there;
//   * a DeLSM database that LevelDB's RepairDB has rewritten (LevelDB's
//     manifest, maybe tables LevelDB made from the WALs, DeLSM's level
//     directories left as they were): DB::Open refuses it with a Status
//     that says so and tells the user to run RepairDB, changing nothing;
//     DeLSM's RepairDB then brings back every key, newest version winning;
//     and, cut short where it puts LevelDB's manifest away and brings
//     DeLSM's back, then run again, brings back no deleted key, nor with
//     a later record of DeLSM's manifest in lost/ damaged; a DeLSM
//     manifest in lost/ whose reads fail (EIO), or a failed read of the
//     manifest or listing of a level directory that decides the
//     directory's kind, fails it, changing nothing;
//   * LevelDB's RepairDB killed once it has made a table of DeLSM's WAL
//     and moved the WAL to lost/, before it moved DeLSM's manifest: DB::Open
//     refuses the directory, and DeLSM's RepairDB brings back the writes
//     only that table holds, as LevelDB's RepairDB run again does.
#include <fcntl.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "testing/read_error_env.h"
#include "tests/db_options.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/syscall_tracer.h"
#include "tests/test_support.h"
#include "tests/tree_snapshot.h"

namespace {

using Contents = std::map<std::string, std::string>;
using delsm_test::ListDir;

bool IsDir(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> LevelDbTables(const std::string& db) {
  std::vector<std::string> out;
  for (const std::string& n : ListDir(db)) {
    if (EndsWith(n, ".ldb") || (EndsWith(n, ".sst") && !IsDir(db + "/" + n))) {
      out.push_back(n);
    }
  }
  return out;
}

// SST directories under the level directories, as "Ln/NNNNNN.sst".
std::vector<std::string> SstDirs(const std::string& db) {
  std::vector<std::string> out;
  for (int level = 0; level < 7; level++) {
    const std::string l = "L" + std::to_string(level);
    for (const std::string& d : ListDir(db + "/" + l)) {
      out.push_back(l + "/" + d);
    }
  }
  return out;
}

// The paths whose state differs between two TreeSnapshots.
std::vector<std::string> Changed(const std::map<std::string, std::string>& a,
                                 const std::map<std::string, std::string>& b) {
  std::vector<std::string> out;
  for (const auto& e : a) {
    auto it = b.find(e.first);
    if (it == b.end()) {
      out.push_back(e.first + " removed");
    } else if (it->second != e.second) {
      out.push_back(e.first + " changed");
    }
  }
  for (const auto& e : b) {
    if (a.count(e.first) == 0) out.push_back(e.first + " added");
  }
  return out;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// Sizes alternate so that some values are inline and some KV files.
std::string Value(int i, int gen) {
  std::string v = std::to_string(i) + "/" + std::to_string(gen) + ":";
  const size_t size = (i % 3 == 0) ? 40 : 150;
  while (v.size() < size) v.push_back(static_cast<char>('a' + (i + gen) % 26));
  return v;
}

class LevelDbLifecycleTest : public testing::Test {
 protected:
  LevelDbLifecycleTest() : db_(tmp_.path() + "/db") {
    tuning_.inline_threshold = 64;
    tuning_.l0_compaction_entries = 400;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
  }

  leveldb::Status OpenDelsm(bool create, std::unique_ptr<leveldb::DB>* db) {
    leveldb::Options options;
    options.create_if_missing = create;
    options.write_buffer_size = 64 << 10;
    leveldb::DB* raw = nullptr;
    leveldb::Status s = delsm::Open(options, tuning_, db_, &raw);
    db->reset(raw);
    return s;
  }

  static Contents Scan(leveldb::DB* db) {
    Contents c;
    std::unique_ptr<leveldb::Iterator> it(
        db->NewIterator(leveldb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      c[it->key().ToString()] = it->value().ToString();
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return c;
  }

  delsm_test::OracleRun Oracle(const std::vector<std::string>& args,
                               const std::string& input = "") {
    return delsm_test::RunOracle(
        args, input, tmp_.path() + "/oracle" + std::to_string(n_++));
  }

  delsm_test::TempDir tmp_{"delsm_leveldb_lifecycle"};
  const std::string db_;
  delsm::Tuning tuning_;
  int n_ = 0;
};

// What a conversion cut short before its commit leaves: SST directories
// staged in leveldb-conversion/ and its PLAN.
void AddStagedConversion(const std::string& db) {
  const std::string staging = db + "/leveldb-conversion";
  ASSERT_EQ(0, mkdir(staging.c_str(), 0755));
  ASSERT_EQ(0, mkdir((staging + "/000100.sst").c_str(), 0755));
  WriteFile(staging + "/000100.sst/META", "a staged meta file");
  WriteFile(staging + "/000100.sst/key%3A1@00000000000001", "a value");
  WriteFile(staging + "/PLAN", "DeLSM conversion of a LevelDB database, v1\n");
}

// The user's own files beside the database, which no DestroyDB may take.
void AddUserFiles(const std::string& db) {
  WriteFile(db + "/notes.txt", "the user's notes");
  WriteFile(db + "/000123.txt", "numbered, but not a database file");
  ASSERT_EQ(0, mkdir((db + "/mine").c_str(), 0755));
  WriteFile(db + "/mine/000005.ldb", "a file named like a table, elsewhere");
}

// What LevelDB's DestroyDB removes of a copy, plus the staging directory
// of a conversion cut short, and nothing of the user's.
TEST_F(LevelDbLifecycleTest, DestroyDbOnAnUnconvertedLevelDbDatabase) {
  // Tables on disk and a WAL tail only the log holds.
  const delsm_test::OracleRun made =
      Oracle({"create", db_, "--write_buffer_size=65536", "--no_close"},
             "fill 0 3000 100\nflush\nfill 3000 300 100\n");
  ASSERT_TRUE(made.ok) << made.err;
  ASSERT_FALSE(LevelDbTables(db_).empty());
  ASSERT_NO_FATAL_FAILURE(AddStagedConversion(db_));
  ASSERT_NO_FATAL_FAILURE(AddUserFiles(db_));

  // What Debian's LevelDB leaves of a copy.
  const std::string copy = tmp_.path() + "/leveldb-copy";
  ASSERT_EQ("", delsm_test::CopyTree(db_, copy));
  const delsm_test::OracleRun destroyed = Oracle({"destroy", copy});
  ASSERT_TRUE(destroyed.ok) << destroyed.err;
  std::vector<std::string> want = ListDir(copy);
  // LevelDB does not know DeLSM's staging directory; DeLSM removes it.
  auto staging = std::find(want.begin(), want.end(), "leveldb-conversion");
  ASSERT_NE(want.end(), staging) << "LevelDB removed the staging directory";
  want.erase(staging);
  EXPECT_EQ((std::vector<std::string>{"000123.txt", "mine", "notes.txt"}),
            want);

  leveldb::Status s = leveldb::DestroyDB(db_, leveldb::Options());
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(want, ListDir(db_));
  EXPECT_EQ("the user's notes", delsm_test::ReadWholeFile(db_ + "/notes.txt"));
  EXPECT_EQ("a file named like a table, elsewhere",
            delsm_test::ReadWholeFile(db_ + "/mine/000005.ldb"));

  // A new, empty database can be made there.
  {
    std::unique_ptr<leveldb::DB> db;
    s = OpenDelsm(true, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(Scan(db.get()).empty());
    ASSERT_TRUE(db->Put(leveldb::WriteOptions(), "k", "v").ok());
  }
  std::unique_ptr<leveldb::DB> db;
  s = OpenDelsm(false, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((Contents{{"k", "v"}}), Scan(db.get()));
}

// DeLSM's DestroyDB on a LevelDB-repaired DeLSM database and on a DeLSM
// database with the staging directory a crash left: everything of the
// database goes, the user's files stay.
TEST_F(LevelDbLifecycleTest, DestroyDbOnADelsmDatabaseWithLeftovers) {
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDelsm(true, &db).ok());
    for (int i = 0; i < 2000; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)).ok());
    }
  }
  ASSERT_FALSE(SstDirs(db_).empty());
  ASSERT_NO_FATAL_FAILURE(AddStagedConversion(db_));
  ASSERT_NO_FATAL_FAILURE(AddUserFiles(db_));
  leveldb::Status s = leveldb::DestroyDB(db_, leveldb::Options());
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ((std::vector<std::string>{"000123.txt", "mine", "notes.txt"}),
            ListDir(db_));
}

// What the DeLSM database's WALs hold when LevelDB's RepairDB turns them
// into LevelDB tables.
enum WalsAtRepair {
  kNoWalData,        // nothing: every write is in SST directories
  kWalTail,          // writes no SST has, overwriting and deleting older ones
  kFlushedWalsKept,  // kDeferred: WALs outlive their flushes, so the tables
                     // repeat what SST directories hold (exact duplicates)
  kFlushedWalsKeptManySsts,  // the same with SSTs of 100 entries: the
                             // compactions hand out numbers past every WAL's,
                             // so LevelDB's tables take numbers DeLSM's SSTs
                             // and manifests use
};

class LevelDbRepairedTest : public LevelDbLifecycleTest,
                            public testing::WithParamInterface<WalsAtRepair> {};

TEST_P(LevelDbRepairedTest, OpenRefusesAndRepairDbRecoversEveryKey) {
  const bool wal_tail = GetParam() == kWalTail;
  const bool wals_kept =
      GetParam() == kFlushedWalsKept || GetParam() == kFlushedWalsKeptManySsts;
  if (wals_kept) tuning_.durability = delsm::Durability::kDeferred;
  if (GetParam() == kFlushedWalsKeptManySsts) tuning_.sst_entries = 100;
  Contents model;
  {
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDelsm(true, &db).ok());
    if (wals_kept) {
      // A compaction retires the WALs of the flushes before it; this case
      // needs WALs that outlive their flushes' trip out of L0, as a crash
      // before that compaction leaves them.
      static_cast<leveldb::DBImpl*>(db.get())->TEST_KeepDeferredLogs();
    }
    for (int i = 0; i < 3000; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 1)).ok());
      model[Key(i)] = Value(i, 1);
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < 1000; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 2)).ok());
      model[Key(i)] = Value(i, 2);
    }
    for (int i = 2000; i < 2100; i++) {
      ASSERT_TRUE(db->Delete(leveldb::WriteOptions(), Key(i)).ok());
      model.erase(Key(i));
    }
    db->CompactRange(nullptr, nullptr);
  }
  if (wal_tail) {
    // Reopened: these are in the WAL only when the DB is closed.
    std::unique_ptr<leveldb::DB> db;
    ASSERT_TRUE(OpenDelsm(false, &db).ok());
    for (int i = 500; i < 700; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 3)).ok());
      model[Key(i)] = Value(i, 3);
    }
    for (int i = 100; i < 150; i++) {
      ASSERT_TRUE(db->Delete(leveldb::WriteOptions(), Key(i)).ok());
      model.erase(Key(i));
    }
    for (int i = 5000; i < 5100; i++) {
      ASSERT_TRUE(db->Put(leveldb::WriteOptions(), Key(i), Value(i, 3)).ok());
      model[Key(i)] = Value(i, 3);
    }
  }
  ASSERT_FALSE(SstDirs(db_).empty());

  // The user goes back to LevelDB without `delsm export`: LevelDB refuses
  // DeLSM's manifest, and the user runs LevelDB's RepairDB.
  EXPECT_FALSE(Oracle({"dump", db_}).ok);
  const delsm_test::OracleRun repaired = Oracle({"repair", db_});
  ASSERT_TRUE(repaired.ok) << repaired.err;
  EXPECT_EQ(GetParam() != kNoWalData, !LevelDbTables(db_).empty());
  ASSERT_FALSE(SstDirs(db_).empty()) << "LevelDB's repair took L0..L6";
  // LevelDB now reads only what it made of the WALs (all of it when every
  // WAL was kept).
  Contents leveldb_view;
  const delsm_test::OracleRun dump = Oracle({"dump", db_});
  ASSERT_TRUE(dump.ok) << dump.err;
  ASSERT_TRUE(delsm_test::ParseOracleDump(dump.out, &leveldb_view));
  if (!wals_kept) {
    EXPECT_LT(leveldb_view.size(), model.size());
  }

  // DeLSM's Open refuses it, names the situation and the way out, and
  // changes nothing, with or without create_if_missing.
  const auto before = delsm_test::TreeSnapshot(db_);
  for (bool create : {false, true}) {
    std::unique_ptr<leveldb::DB> db;
    const leveldb::Status s = OpenDelsm(create, &db);
    if (create) std::printf("DB::Open: %s\n", s.ToString().c_str());
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("LevelDB's RepairDB"))
        << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("run RepairDB"))
        << s.ToString();
    EXPECT_EQ(std::vector<std::string>(),
              Changed(before, delsm_test::TreeSnapshot(db_)));
  }

  // DeLSM's RepairDB brings every key back.
  leveldb::Options options;
  const std::vector<std::string> dirs_before = SstDirs(db_);
  leveldb::Status s = leveldb::RepairDB(db_, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Each LevelDB table became an L0 SST directory that did not exist
  // before; none may take a number DeLSM's manifest records as replaced
  // (the merge would skip it and lose what it holds).
  {
    std::ifstream log(db_ + "/LOG");
    std::string line;
    while (std::getline(log, line)) {
      if (line.find("replaced by a committed compaction") == std::string::npos)
        continue;
      const size_t at = line.find("/L0/");
      if (at == std::string::npos) continue;
      const std::string dir =
          line.substr(at + 1, line.find('/', at + 4) - at - 1);
      EXPECT_NE(dirs_before.end(),
                std::find(dirs_before.begin(), dirs_before.end(), dir))
          << "a LevelDB table taken in as " << dir
          << " was not merged: " << line;
    }
  }
  EXPECT_TRUE(LevelDbTables(db_).empty());
  for (int pass = 0; pass < 2; pass++) {
    std::unique_ptr<leveldb::DB> db;
    s = OpenDelsm(false, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    const Contents got = Scan(db.get());
    EXPECT_EQ(model.size(), got.size());
    EXPECT_TRUE(model == got);
    for (int i : {0, 120, 600, 999, 1000, 2050, 2999, 5050}) {
      std::string v;
      const leveldb::Status g = db->Get(leveldb::ReadOptions(), Key(i), &v);
      if (model.count(Key(i)) == 0) {
        EXPECT_TRUE(g.IsNotFound()) << Key(i) << ": " << g.ToString();
      } else {
        EXPECT_TRUE(g.ok()) << Key(i) << ": " << g.ToString();
        EXPECT_EQ(model[Key(i)], v) << Key(i);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Wals, LevelDbRepairedTest,
                         testing::Values(kNoWalData, kWalTail, kFlushedWalsKept,
                                         kFlushedWalsKeptManySsts),
                         [](const testing::TestParamInfo<WalsAtRepair>& info) {
                           return info.param == kNoWalData ? "SstsOnly"
                                  : info.param == kWalTail ? "WithWalTail"
                                  : info.param == kFlushedWalsKept
                                      ? "FlushedWalsKept"
                                      : "FlushedWalsKeptManySsts";
                         });

}  // namespace

namespace leveldb {
namespace {

constexpr int kCutKeys = 40;
bool CutDeleted(int i) { return i % 4 == 0; }
std::string CutValue(int i) { return Key(i) + std::string(3000, 'v'); }
// Written after the compaction, left in the WAL: LevelDB's RepairDB makes
// a table of them, which DeLSM's RepairDB takes in.
std::string WalKey(int i) { return "wal" + Key(i); }

// Flushed after the compaction (`late_flush`): its records follow the
// compaction's in the same manifest.
const char kLateKey[] = "late";

// Where a run of LevelDB's RepairDB ends. It makes a table of each WAL
// and moves the WAL to lost/ (ConvertLogFilesToTables), then writes its
// manifest to a temporary file, moves every manifest to lost/, renames its
// own into place and writes CURRENT (WriteDescriptor).
enum class LevelDbRepairEnd {
  kWhole,
  // Killed at the entry of its first rename of a manifest: the WALs are
  // tables and in lost/, DeLSM's CURRENT and manifests are as they were.
  kKilledAtManifestMove,
  // Killed at the entry of its rename of CURRENT: DeLSM's manifests are in
  // lost/, LevelDB's is in place, CURRENT still names DeLSM's.
  kKilledAtCurrent,
};

#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
// Runs Debian's LevelDB RepairDB on `dbname` (the oracle, in a traced
// child) and kills it with SIGKILL where `end` says (not kWhole). False,
// with *why, if the child ended or the tracing failed before that call.
bool KillLevelDbRepair(const std::string& dbname, LevelDbRepairEnd end,
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
    delsm_test::WaitChild(pid);
    return false;
  };
  int status = 0;
  if (!delsm_test::StartTracing(pid, &status, why)) return give_up(*why);
  long deliver = 0;
  for (;;) {
    if (ptrace(PTRACE_SYSCALL, pid, nullptr,
               reinterpret_cast<void*>(deliver)) != 0) {
      return give_up(std::string("PTRACE_SYSCALL: ") + std::strerror(errno));
    }
    deliver = 0;
    status = delsm_test::WaitChild(pid);
    if (status < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
      *why = "LevelDB's RepairDB ended (status " + std::to_string(status) +
             ") before the call it was to be killed at";
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
    if (!delsm_test::IsSyscallEntry(regs)) continue;
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
    if (!delsm_test::PeekString(pid, from, &from_path) ||
        !delsm_test::PeekString(pid, to, &to_path)) {
      return give_up("cannot read the paths of a rename");
    }
    const bool at = end == LevelDbRepairEnd::kKilledAtManifestMove
                        ? from_path.find("/MANIFEST-") != std::string::npos
                        : EndsWith(to_path, "/CURRENT");
    if (!at) continue;
    kill(pid, SIGKILL);
    status = delsm_test::WaitChild(pid);
    if (!WIFSIGNALED(status)) {
      *why = "not killed: status " + std::to_string(status);
      return false;
    }
    return true;
  }
}
#endif

// A compaction committed, then killed before it removed the SSTs it
// replaced; the next Open removed the dead L0 directory (the deletes'
// tombstones) but not the replaced meta file in L1 (the puts), and wrote
// (`wal_keys`) a few keys left in its WAL: only DeLSM's older manifest
// records that SST as replaced. LevelDB's RepairDB then puts that
// manifest in lost/ and makes a table of the WAL, or is killed where `end`
// says. With `late_flush`, kLateKey is flushed after the compaction,
// before the kill.
void MakeRewrittenWithAReplacedSst(
    const std::string& tmp, const std::string& dbname, bool wal_keys = true,
    bool late_flush = false, LevelDbRepairEnd end = LevelDbRepairEnd::kWhole) {
  Options options;
  options.create_if_missing = true;
  const delsm::Tuning tuning = delsm_test::ManualCompactionOnly();
  FaultInjectionFileSystem fs(FileSystem::Default());
  FaultSpec unlinks;
  unlinks.sticky = true;
  {
    DB* raw = nullptr;
    ASSERT_TRUE(OpenWithFileSystem(options, tuning, dbname, &fs, &raw).ok());
    std::unique_ptr<DB> db(raw);
    DBImpl* impl = static_cast<DBImpl*>(raw);
    for (int i = 0; i < kCutKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), CutValue(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
    for (int i = 0; i < kCutKeys; i++) {
      if (CutDeleted(i)) ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    // Nothing the compaction replaced is removed: as a kill after its
    // commit leaves it.
    fs.Arm(FsOp::kUnlink, unlinks);
    ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
    if (late_flush) {
      ASSERT_TRUE(db->Put(WriteOptions(), kLateKey, CutValue(0)).ok());
      ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    }
  }
  unlinks.path_contains = "/L1/";
  fs.Arm(FsOp::kUnlink, unlinks);
  {
    DB* raw = nullptr;
    Status s = OpenWithFileSystem(options, tuning, dbname, &fs, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    for (int i = 0; wal_keys && i < 10; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), WalKey(i), CutValue(i)).ok());
    }
  }
  ASSERT_TRUE(fs.Fired()) << "the Open's sweep of L1 was not cut";
  fs.Disarm();

  if (end != LevelDbRepairEnd::kWhole) {
#if defined(__x86_64__) && defined(LEVELDB_ORACLE)
    std::string why;
    ASSERT_TRUE(KillLevelDbRepair(dbname, end, &why)) << why;
#else
    FAIL() << "needs the LevelDB oracle and x86-64 system call registers";
#endif
  } else {
    const delsm_test::OracleRun repaired =
        delsm_test::RunOracle({"repair", dbname}, "", tmp + "/oracle");
    ASSERT_TRUE(repaired.ok) << repaired.err;
  }
  ASSERT_EQ(wal_keys, !LevelDbTables(dbname).empty())
      << "LevelDB's tables: what it made of the WAL";
}

// Every key as it was written, no deleted key back.
void ExpectCutDbRepaired(const std::string& dbname, bool wal_keys = true) {
  DB* raw = nullptr;
  Options options;
  Status s =
      delsm::Open(options, delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kCutKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    if (CutDeleted(i)) {
      EXPECT_TRUE(s.IsNotFound()) << "deleted key " << Key(i) << " came back";
    } else {
      EXPECT_TRUE(s.ok() && v == CutValue(i)) << Key(i) << ": " << s.ToString();
    }
  }
  for (int i = 0; wal_keys && i < 10; i++) {
    std::string v;
    s = db->Get(ReadOptions(), WalKey(i), &v);
    EXPECT_TRUE(s.ok() && v == CutValue(i))
        << WalKey(i) << " (LevelDB's table of the WAL): " << s.ToString();
  }
}

// RepairDB over an Env whose first rename of a path containing
// `path_contains` fails (EIO) must fail; `not_tried` says what it means if
// no such rename was made.
void ExpectRepairFailsAtRename(const std::string& tmp,
                               const std::string& dbname,
                               const std::string& path_contains,
                               const char* not_tried) {
  FaultInjectionEnv env(Env::Default(), tmp + "/env_shadow");
  FaultSpec rename;
  rename.path_contains = path_contains;
  env.Arm(EnvOp::kRename, rename);
  Options o;
  o.env = &env;
  EXPECT_FALSE(RepairDB(dbname, o).ok());
  ASSERT_TRUE(env.Fired()) << not_tried;
}

// DeLSM's RepairDB, taking in LevelDB's tables, moves the manifest in
// lost/ back; cut short (EIO, or a kill) once it has put LevelDB's
// manifest away, the next RepairDB sees no LevelDB database and must
// still find the record.
TEST(LevelDbRepairedCutTest, TakeInCutShortThenRepairAgainKeepsDeletesDeleted) {
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname);
  if (HasFatalFailure()) return;
  ExpectRepairFailsAtRename(tmp.path(), dbname, "/lost/MANIFEST-",
                            "no DeLSM manifest was moved back from lost/");
  if (HasFatalFailure()) return;
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
}

// DeLSM's RepairDB that fails at its take-in's commit (the first move into
// lost/, EIO) leaves the directory to LevelDB, which can still open it: it
// must also leave DeLSM's manifests where LevelDB's RepairDB put them. Had
// the take-in brought them back from lost/ before its commit, LevelDB's
// next open would delete them as manifests older than its own, and with
// them the only record of the replaced SST: DeLSM's next RepairDB would
// merge it, the deleted keys back.
TEST(LevelDbRepairedCutTest, TakeInFailedAtItsCommitThenLevelDbOpensIt) {
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname);
  if (HasFatalFailure()) return;
  ExpectRepairFailsAtRename(tmp.path(), dbname, "/lost/leveldb-",
                            "the take-in made no move into lost/");
  if (HasFatalFailure()) return;
  const delsm_test::OracleRun opened =
      delsm_test::RunOracle({"dump", dbname}, "", tmp.path() + "/dump");
  ASSERT_TRUE(opened.ok) << "LevelDB's open: " << opened.err;
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
}

// A manifest of DeLSM's that LevelDB's RepairDB put in lost/ holds the
// record of the replaced SST, and a record written after it is damaged (a
// flipped byte in its last record). DeLSM's RepairDB reads what such a
// manifest holds before and after the damage (FindRetiredSsts), so the
// take-in must bring it back from lost/ as it brings back a whole one:
// left there, its record would be read by nobody, and the repair would
// merge the replaced SST, the deleted keys back.
TEST(LevelDbRepairedCutTest, DamagedDelsmManifestInLostStillCounts) {
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, /*wal_keys=*/true,
                                /*late_flush=*/true);
  if (HasFatalFailure()) return;
  // DeLSM's manifests LevelDB's RepairDB moved: the first session's, which
  // records the compaction and then the late flush, and the second Open's
  // (a snapshot, no history). The lowest number is the first session's.
  std::string first;
  for (const std::string& name : delsm_test::ListDir(dbname + "/lost")) {
    if (name.rfind("MANIFEST-", 0) == 0 && (first.empty() || name < first)) {
      first = name;
    }
  }
  ASSERT_FALSE(first.empty()) << "LevelDB's RepairDB put no manifest in lost/";
  const std::string path = dbname + "/lost/" + first;
  std::string bytes = delsm_test::ReadWholeFile(path);
  ASSERT_FALSE(bytes.empty());
  bytes.back() ^= 0x40;  // the last record's payload: its crc fails
  ASSERT_TRUE(delsm_test::WriteWhole(path, bytes));

  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
  DB* raw = nullptr;
  s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(), dbname, &raw);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db(raw);
  std::string v;
  s = db->Get(ReadOptions(), kLateKey, &v);
  EXPECT_TRUE(s.ok() && v == CutValue(0)) << kLateKey << ": " << s.ToString();
}

// RepairDB over an Env that `arm` (given the database's path) makes fail
// must fail with an IOError, after `failures` counted at least one, and
// change nothing in the directory; once the Env works, RepairDB recovers
// everything (ExpectCutDbRepaired). `what` names the failure.
void ExpectFailedRepairChangesNothing(
    bool wal_keys,
    const std::function<void(ReadErrorEnv*, const std::string&)>& arm,
    int (ReadErrorEnv::*failures)() const, const char* what) {
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, wal_keys);
  if (testing::Test::HasFatalFailure()) return;
  const auto before = delsm_test::TreeSnapshot(dbname);
  {
    ReadErrorEnv env(Env::Default());
    arm(&env, dbname);
    Options o;
    o.env = &env;
    const Status s = RepairDB(dbname, o);
    ASSERT_GT((env.*failures)(), 0) << "nothing failed: " << what;
    EXPECT_TRUE(s.IsIOError())
        << "RepairDB after " << what << ": " << s.ToString();
    EXPECT_EQ(std::vector<std::string>(),
              Changed(before, delsm_test::TreeSnapshot(dbname)));
  }
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname, wal_keys);
}

// A DeLSM manifest in lost/ whose reads fail (EIO) is not damage and not
// "no manifest": the numbers it names are unknown (a taken-in table could
// get one it records as replaced, and the next RepairDB would not merge
// it), and left in lost/ its record of the replaced SST would be unknown
// to the repair (the deleted keys would come back). RepairDB fails and
// changes nothing; once the reads work it recovers everything.
enum class LostManifestReads { kEvery, kFirstOnly };

class LevelDbRepairedReadErrorTest
    : public testing::TestWithParam<LostManifestReads> {};

TEST_P(LevelDbRepairedReadErrorTest, FailedManifestReadFailsTheTakeIn) {
  ExpectFailedRepairChangesNothing(
      /*wal_keys=*/true,
      [](ReadErrorEnv* env, const std::string&) {
        env->set_failing_reads(
            "/lost/MANIFEST-", /*good_bytes=*/0,
            /*files=*/GetParam() == LostManifestReads::kFirstOnly ? 1 : 0);
      },
      &ReadErrorEnv::failed_reads, "a failed read of a manifest in lost/");
}

INSTANTIATE_TEST_SUITE_P(
    Reads, LevelDbRepairedReadErrorTest,
    testing::Values(LostManifestReads::kEvery, LostManifestReads::kFirstOnly),
    [](const testing::TestParamInfo<LostManifestReads>& info) {
      return info.param == LostManifestReads::kEvery ? "EveryRead"
                                                     : "FirstFileOnly";
    });

// lost/ itself cannot be read (EIO on its listing; access(2), behind
// FileExists, fails as well and answers false): which of DeLSM's manifests
// LevelDB's RepairDB put there is unknown, and so is the record of the
// replaced SST. RepairDB fails and changes nothing. Taking the failed
// listing for no lost/, it brought no manifest back, the repair merged the
// replaced SST, and the deleted keys came back.
TEST(LevelDbRepairedReadErrorTest, UnreadableLostDirectoryFailsTheTakeIn) {
  ExpectFailedRepairChangesNothing(
      /*wal_keys=*/true,
      [](ReadErrorEnv* env, const std::string& dbname) {
        env->set_failing_lookups(dbname + "/lost");
      },
      &ReadErrorEnv::failed_listings, "a failed listing of lost/");
}

// Which kind of directory RepairDB is given is decided from the manifest
// CURRENT names. A read of it that fails (EIO) once, there, is not a
// damaged manifest: taken for one, a DeLSM database LevelDB's RepairDB
// rewrote (here without WAL data, so no LevelDB table tells it either)
// would be repaired as a damaged DeLSM database, which does not bring
// DeLSM's manifests back from lost/, and the SST their records say a
// compaction replaced would be merged (the deleted keys back).
TEST(LevelDbRepairedDetectionTest, FailedManifestReadFailsRepairDb) {
  ExpectFailedRepairChangesNothing(
      /*wal_keys=*/false,
      [](ReadErrorEnv* env, const std::string& dbname) {
        env->set_failing_reads(dbname + "/MANIFEST-", /*good_bytes=*/0,
                               /*files=*/1);
      },
      &ReadErrorEnv::failed_reads, "a failed read of LevelDB's manifest");
}

// Detects the format of a rewritten database whose level directories fail
// as `arm` makes them fail: the failure must be an IOError, never a
// verdict.
void ExpectFailedLevelDirectoryIsAnError(
    const std::function<void(ReadErrorEnv*, const std::string&)>& arm) {
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, /*wal_keys=*/false);
  if (testing::Test::HasFatalFailure()) return;
  ReadErrorEnv env(Env::Default());
  arm(&env, dbname + "/L");
  DatabaseFormat format;
  std::string evidence;
  const Status s = DetectDatabaseFormat(&env, dbname, &format, &evidence);
  ASSERT_GT(env.failed_listings(), 0) << "no level directory listing failed";
  EXPECT_TRUE(s.IsIOError())
      << s.ToString() << "; judged " << static_cast<int>(format) << " ("
      << evidence << ")";
}

// The same for a level directory that cannot be listed: DeLSM's SSTs are
// unknown, and the directory is not judged LevelDB's for want of them.
TEST(LevelDbRepairedDetectionTest, FailedLevelDirectoryListingIsAnError) {
  ExpectFailedLevelDirectoryIsAnError(
      [](ReadErrorEnv* env, const std::string& prefix) {
        env->set_failing_listings(prefix);
      });
}

// The same when access(2), behind FileExists, fails on those directories
// too and answers false (an inode that cannot be read fails both): the
// failed listing is still no proof that the directory is not there, and
// the directory is not judged LevelDB's.
TEST(LevelDbRepairedDetectionTest, FailedLevelDirectoryLookupIsAnError) {
  ExpectFailedLevelDirectoryIsAnError(
      [](ReadErrorEnv* env, const std::string& prefix) {
        env->set_failing_lookups(prefix);
      });
}

// LevelDB's RepairDB killed (a crash, a power cut) on its way through a
// DeLSM database: at its first move of a manifest to lost/ (DeLSM's CURRENT
// and manifests as they were, beside a LevelDB table holding the only copy
// in the directory of what the WAL held), or at its rename of CURRENT
// (DeLSM's manifests in lost/, CURRENT naming one). DB::Open must refuse
// the directory, changing nothing: it would read DeLSM's manifest without
// the WAL's writes (and hand their sequence numbers out again), or fail on
// the missing manifest. DeLSM's RepairDB must bring every write back, the
// table's too, as LevelDB's RepairDB run again does, and no key the
// compaction deleted: the record of the SST it replaced is in the manifest
// LevelDB's repair moved to lost/ or was about to.
class LevelDbRepairKilledTest
    : public testing::TestWithParam<std::tuple<LevelDbRepairEnd, bool>> {};

TEST_P(LevelDbRepairKilledTest, OpenRefusesAndRepairDbRecoversEveryWrite) {
  const LevelDbRepairEnd end = std::get<0>(GetParam());
  const bool wal_keys = std::get<1>(GetParam());
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, wal_keys,
                                /*late_flush=*/false, end);
  if (HasFatalFailure()) return;

  // The oracle: LevelDB's RepairDB, run again (on a copy), makes its
  // database of what it left, the WAL's writes included.
  {
    const std::string copy = tmp.path() + "/leveldb-copy";
    ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));
    const delsm_test::OracleRun again =
        delsm_test::RunOracle({"repair", copy}, "", tmp.path() + "/again");
    ASSERT_TRUE(again.ok) << again.err;
    const delsm_test::OracleRun dump =
        delsm_test::RunOracle({"dump", copy}, "", tmp.path() + "/dump");
    ASSERT_TRUE(dump.ok) << dump.err;
    Contents leveldb_view;
    ASSERT_TRUE(delsm_test::ParseOracleDump(dump.out, &leveldb_view));
    for (int i = 0; wal_keys && i < 10; i++) {
      EXPECT_EQ(CutValue(i), leveldb_view[WalKey(i)]) << WalKey(i);
    }
  }

  // DB::Open refuses it and changes nothing (on a copy: the repair below is
  // judged alone). Killed before it moved anything, without a table of a
  // WAL, LevelDB's RepairDB left DeLSM's database as it was: Open reads it.
  {
    const std::string copy = tmp.path() + "/open-copy";
    ASSERT_EQ("", delsm_test::CopyTree(dbname, copy));
    if (end == LevelDbRepairEnd::kKilledAtManifestMove && !wal_keys) {
      ExpectCutDbRepaired(copy, wal_keys);
    }
    const auto before = delsm_test::TreeSnapshot(copy);
    for (bool create : {false, true}) {
      if (end == LevelDbRepairEnd::kKilledAtManifestMove && !wal_keys) break;
      Options o;
      o.create_if_missing = create;
      DB* raw = nullptr;
      const Status s =
          delsm::Open(o, delsm_test::ManualCompactionOnly(), copy, &raw);
      delete raw;
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(std::string::npos, s.ToString().find("run RepairDB"))
          << s.ToString();
      EXPECT_EQ(std::vector<std::string>(),
                Changed(before, delsm_test::TreeSnapshot(copy)));
    }
  }

  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(LevelDbTables(dbname).empty());
  ExpectCutDbRepaired(dbname, wal_keys);
}

// The take-in after LevelDB's RepairDB killed at its first move of a
// manifest (DeLSM's CURRENT and manifest as they were, a table of the
// WAL beside them) keeps its PLAN, and DB::Open out, until DeLSM's repair
// that follows commits: CURRENT naming a whole DeLSM manifest is no proof
// of that here, since it named DeLSM's own from the start. Repairs that
// fail at their commit (the rename of CURRENT, EIO) leave an Open refused,
// and the next RepairDB recovers every write. Taking the old manifest for
// the repair's, the second RepairDB removed the PLAN, the Open that
// followed read the old manifest and removed the taken-in SSTs as
// directories no manifest names: the WAL's writes gone.
TEST(LevelDbRepairKilledTakeInTest, KeepsItsPlanUntilItsRepairCommits) {
  delsm_test::TempDir tmp("delsm_leveldb_lifecycle");
  const std::string dbname = tmp.path() + "/db";
  MakeRewrittenWithAReplacedSst(tmp.path(), dbname, /*wal_keys=*/true,
                                /*late_flush=*/false,
                                LevelDbRepairEnd::kKilledAtManifestMove);
  if (HasFatalFailure()) return;
  for (int attempt = 0; attempt < 2; attempt++) {
    ExpectRepairFailsAtRename(tmp.path(), dbname, "/CURRENT",
                              "the repair renamed no CURRENT");
    if (HasFatalFailure()) return;
  }
  {
    DB* raw = nullptr;
    const Status s = delsm::Open(Options(), delsm_test::ManualCompactionOnly(),
                                 dbname, &raw);
    delete raw;
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  }
  Status s = RepairDB(dbname, Options());
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectCutDbRepaired(dbname);
}

INSTANTIATE_TEST_SUITE_P(
    Ends, LevelDbRepairKilledTest,
    testing::Combine(testing::Values(LevelDbRepairEnd::kKilledAtManifestMove,
                                     LevelDbRepairEnd::kKilledAtCurrent),
                     testing::Bool()),
    [](const testing::TestParamInfo<std::tuple<LevelDbRepairEnd, bool>>& info) {
      return std::string(std::get<0>(info.param) ==
                                 LevelDbRepairEnd::kKilledAtManifestMove
                             ? "AtManifestMove"
                             : "AtCurrent") +
             (std::get<1>(info.param) ? "WithWalTable" : "WithoutWalData");
    });

}  // namespace
}  // namespace leveldb
