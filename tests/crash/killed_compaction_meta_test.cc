// A compaction killed (SIGKILL) after writing its new meta file META-<n>
// into an existing SST directory of the output level, before its commit,
// leaves META-<n>, a meta file no manifest records. The next Open's sweep
// removes it; when that sweep cannot (here: the directory does not list
// once), it stays while the database runs on. Later deletes, compacted
// into that directory, drop their tombstones at the base level; RepairDB
// must still not merge the stale META-<n> as live data, or it brings back
// the deleted keys. The same holds for a whole SST directory such a
// compaction wrote at a level holding nothing it could merge into, whose
// removal keeps failing while the database runs on.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/filename.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "table/meta_file.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;

constexpr int kKeys = 10;
constexpr int kDeleted = 5;  // keys 0 .. kDeleted-1 are deleted at the end
constexpr char kDbVar[] = "DELSM_KILLED_COMPACTION_DB";
// Set: the child writes kUnflushed keys before it compacts, so the next
// Open replays them into a new L0 SST.
constexpr char kUnflushedVar[] = "DELSM_KILLED_COMPACTION_UNFLUSHED";
constexpr int kUnflushed = 3;
std::string UnflushedKey(int i) { return "unflushed" + std::to_string(i); }
constexpr int kChildFinished = 4;
// Set: every value is inline (see the child).
constexpr char kInlineVar[] = "DELSM_KILLED_COMPACTION_INLINE";

// Small: inline values, held in the meta files themselves.
std::string OldValue(int i) { return "old" + std::to_string(i); }
std::string NewValue(int i) { return "new" + std::to_string(i); }

Options DbOptions() {
  Options o;
  o.create_if_missing = true;
  return o;
}

Status OpenOn(const std::string& dbname, FileSystem* fs,
              std::unique_ptr<DB>* db) {
  DB* raw = nullptr;
  Status s = OpenWithFileSystem(DbOptions(), delsm_test::ManualCompactionOnly(),
                                dbname, fs, &raw);
  db->reset(raw);
  return s;
}

// The meta files in `dir` other than its own META.
std::vector<std::string> AddedMetaFiles(const std::string& dir) {
  std::vector<std::string> metas;
  for (const std::string& name : delsm_test::ListDir(dir)) {
    if (name.rfind("META-", 0) == 0) metas.push_back(name);
  }
  return metas;
}

// The child: opens the database and compacts L0 into L1, killing itself
// when the compaction makes its outputs durable (after META-<n> is
// written, before the commit): at its syncfs when its outputs link KV
// files, else (every value inline, kInlineVar set) at the sync of its
// output directory, which follows the fsync of META-<n> as written, the
// first fsync under L1.
TEST(KilledCompactionMetaTest, Child) {
  const char* dbname = std::getenv(kDbVar);
  if (dbname == nullptr) return;
  const bool inline_values = std::getenv(kInlineVar) != nullptr;
  FaultInjectionFileSystem fs(FileSystem::Default());
  std::unique_ptr<DB> db;
  if (!OpenOn(dbname, &fs, &db).ok()) _exit(2);
  if (std::getenv(kUnflushedVar) != nullptr) {
    for (int i = 0; i < kUnflushed; i++) {
      if (!db->Put(WriteOptions(), UnflushedKey(i), "v").ok()) _exit(3);
    }
  }
  FaultSpec kill;
  kill.before_failing = [] { raise(SIGKILL); };
  if (inline_values) {
    kill.nth = 2;
    kill.path_contains = "/L1/";
    fs.Arm(FsOp::kFsync, kill);
  } else {
    fs.Arm(FsOp::kSyncfs, kill);
  }
  static_cast<DBImpl*>(db.get())->TEST_CompactRange(0, nullptr, nullptr);
  _exit(kChildFinished);
}

// The sequence above; `unflushed`: the child leaves WAL data, so the Open
// after the kill writes an L0 SST, which takes the number of the stale
// META-<n> (that number was never committed, and the Open could not see
// it): RepairDB must tell the two apart by their directories.
void KillCompactDeleteRepair(bool unflushed) {
  delsm_test::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  // L1: one SST directory holding the old values; L0: the new ones.
  {
    std::unique_ptr<DB> db;
    ASSERT_TRUE(OpenOn(dbname, FileSystem::Default(), &db).ok());
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), OldValue(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    ASSERT_TRUE(impl->TEST_CompactRange(0, nullptr, nullptr).ok());
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), NewValue(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
  }
  const std::vector<std::string> l1 = delsm_test::ListDir(dbname + "/L1");
  ASSERT_EQ(1u, l1.size());
  const std::string target = dbname + "/L1/" + l1[0];

  // The compaction of L0 into the target is killed before its commit.
  std::vector<std::pair<std::string, std::string>> env = {{kDbVar, dbname},
                                                          {kInlineVar, "1"}};
  if (unflushed) env.push_back({kUnflushedVar, "1"});
  const pid_t pid =
      delsm_test::SpawnSelf("KilledCompactionMetaTest.Child", env);
  ASSERT_GT(pid, 0);
  const int status = delsm_test::WaitChild(pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child was not killed in the compaction (status " << status << ")";
  const std::vector<std::string> stale = AddedMetaFiles(target);
  ASSERT_EQ(1u, stale.size()) << "the killed compaction left no META-<n>";

  // The next Open cannot list the target once (its sweep); the keys are
  // deleted and compacted into the target, which drops the tombstones.
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec listing;
    listing.path_contains = target;
    fs.Arm(FsOp::kReaddir, listing);
    std::unique_ptr<DB> db;
    Status s = OpenOn(dbname, &fs, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(fs.Fired()) << "the Open's sweep of the target was not cut";
    fs.Disarm();
    if (unflushed) {
      uint64_t stale_number = 0;
      ASSERT_TRUE(ParseMetaFileName(stale[0], 0, &stale_number));
      struct stat st;
      ASSERT_EQ(0,
                stat((SstDirName(dbname, 0, stale_number) + "/" + kMetaFileName)
                         .c_str(),
                     &st))
          << "the replayed WAL's SST did not take the number of " << stale[0];
    }
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    for (int i = 0; i < kDeleted; i++) {
      ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    // Only the SSTs holding the deleted keys: the replayed one stays live.
    const std::string first = Key(0), last = Key(kDeleted - 1);
    const Slice begin(first), end(last);
    s = impl->TEST_CompactRange(0, &begin, &end);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = impl->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  Status s = RepairDB(dbname, DbOptions());
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> db;
  s = OpenOn(dbname, FileSystem::Default(), &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    if (i < kDeleted) {
      EXPECT_TRUE(s.IsNotFound())
          << "deleted key " << Key(i) << " came back as " << v;
    } else {
      EXPECT_TRUE(s.ok() && v == NewValue(i))
          << Key(i) << ": " << s.ToString() << " " << v;
    }
  }
  for (int i = 0; unflushed && i < kUnflushed; i++) {
    std::string v;
    s = db->Get(ReadOptions(), UnflushedKey(i), &v);
    EXPECT_TRUE(s.ok() && v == "v") << UnflushedKey(i) << ": " << s.ToString();
  }
}

// Values held in KV files: above the default inline threshold.
std::string LargeValue(int i) { return OldValue(i) + std::string(3000, 'x'); }

// Flips a byte in the middle of group 0 of the format-4 meta file `path`:
// its footer and trailer still check, the group does not.
void DamageGroup0(const std::string& path) {
  std::string data;
  ASSERT_TRUE(ReadFileToString(Env::Default(), path, &data).ok());
  MetaIndexRange range;
  MetaTrailer trailer;
  ASSERT_TRUE(DecodeMetaFooter(data, data.size(), path, &range).ok());
  ASSERT_EQ(4u, range.version);
  ASSERT_TRUE(DecodeMetaTrailer(Slice(data.data() + range.offset, range.size),
                                range, path, &trailer)
                  .ok());
  ASSERT_FALSE(trailer.groups.empty());
  const MetaGroup& g = trailer.groups[0];
  data[g.offset + g.size / 2] ^= 0x10;
  ASSERT_TRUE(WriteStringToFile(Env::Default(), data, path).ok());
}

// A compaction of L0 into an empty L1 writes its output as a new SST
// directory, L1/<n>.sst/META (with links to the KV files of its inputs when
// `kv_files`); killed before its commit, it leaves that directory, which no
// manifest records. Every removal of it fails (it does not open) while the
// database runs on past its number: the keys it holds are deleted and
// compacted into L1, which drops the tombstones and unlinks the deleted
// values' KV files from L0. RepairDB must not merge the stale directory,
// nor (its META damaged when `damaged_meta`) take its KV files back by
// their names.
void StaleOutputDirectoryRepair(bool kv_files, bool damaged_meta) {
  delsm_test::TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  auto value = [kv_files](int i) {
    return kv_files ? LargeValue(i) : OldValue(i);
  };
  // L0 only: one SST holding the values.
  {
    std::unique_ptr<DB> db;
    ASSERT_TRUE(OpenOn(dbname, FileSystem::Default(), &db).ok());
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), value(i)).ok());
    }
    ASSERT_TRUE(static_cast<DBImpl*>(db.get())->TEST_FlushMemTable().ok());
  }
  ASSERT_TRUE(delsm_test::ListDir(dbname + "/L1").empty());

  std::vector<std::pair<std::string, std::string>> env = {{kDbVar, dbname}};
  if (!kv_files) env.push_back({kInlineVar, "1"});
  const pid_t pid =
      delsm_test::SpawnSelf("KilledCompactionMetaTest.Child", env);
  ASSERT_GT(pid, 0);
  const int status = delsm_test::WaitChild(pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "the child was not killed in the compaction (status " << status << ")";
  const std::vector<std::string> l1 = delsm_test::ListDir(dbname + "/L1");
  ASSERT_EQ(1u, l1.size()) << "the killed compaction left no directory";
  const std::string stale = dbname + "/L1/" + l1[0];
  ASSERT_EQ(kv_files ? size_t{kKeys + 1} : size_t{1},
            delsm_test::ListDir(stale).size());

  // Every Open of the stale directory fails from here on, so no removal
  // pass (the Open's, those after the flush and the compaction, the
  // close's) removes it.
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    FaultSpec never_opens;
    never_opens.path_contains = stale;
    never_opens.sticky = true;
    never_opens.err = EACCES;
    fs.Arm(FsOp::kOpen, never_opens);
    std::unique_ptr<DB> db;
    Status s = OpenOn(dbname, &fs, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    for (int i = 0; i < kDeleted; i++) {
      ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
    }
    ASSERT_TRUE(impl->TEST_FlushMemTable().ok());
    s = impl->TEST_CompactRange(0, nullptr, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = impl->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (int i = 0; i < kDeleted; i++) {
      std::string v;
      ASSERT_TRUE(db->Get(ReadOptions(), Key(i), &v).IsNotFound());
    }
    db.reset();
    ASSERT_TRUE(fs.Fired()) << "no removal of the stale directory was tried";
  }
  ASSERT_EQ(kv_files ? size_t{kKeys + 1} : size_t{1},
            delsm_test::ListDir(stale).size())
      << "the stale directory changed";
  if (damaged_meta) DamageGroup0(stale + "/" + kMetaFileName);

  Status s = RepairDB(dbname, DbOptions());
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Set aside, not deleted: RepairDB deletes nothing it could not use.
  EXPECT_EQ(kv_files ? size_t{kKeys + 1} : size_t{1},
            delsm_test::ListDir(dbname + "/lost/L1-" + l1[0]).size());
  std::unique_ptr<DB> db;
  s = OpenOn(dbname, FileSystem::Default(), &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    if (i < kDeleted) {
      EXPECT_TRUE(s.IsNotFound())
          << "deleted key " << Key(i) << " came back as " << v.substr(0, 8);
    } else {
      EXPECT_TRUE(s.ok() && v == value(i))
          << Key(i) << ": " << s.ToString() << " " << v.substr(0, 8);
    }
  }
}

TEST(KilledCompactionMetaTest, RepairDoesNotMergeAStaleOutputDirectory) {
  StaleOutputDirectoryRepair(/*kv_files=*/false, /*damaged_meta=*/false);
}

TEST(KilledCompactionMetaTest,
     RepairDoesNotMergeAStaleOutputDirectoryOfKvFiles) {
  StaleOutputDirectoryRepair(/*kv_files=*/true, /*damaged_meta=*/false);
}

TEST(KilledCompactionMetaTest,
     RepairDoesNotTakeBackTheKvFilesOfAStaleOutputDirectoryWithADamagedMeta) {
  StaleOutputDirectoryRepair(/*kv_files=*/true, /*damaged_meta=*/true);
}

TEST(KilledCompactionMetaTest, RepairDoesNotMergeAStaleMetaFile) {
  KillCompactDeleteRepair(/*unflushed=*/false);
}

TEST(KilledCompactionMetaTest,
     RepairDoesNotMergeAStaleMetaFileWhoseNumberAnSstTookSince) {
  KillCompactDeleteRepair(/*unflushed=*/true);
}

}  // namespace
}  // namespace leveldb
