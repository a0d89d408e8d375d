// The removal of a dead SST directory (one whose every SST a committed
// compaction replaced), or of a retired SST in a directory that lives on,
// cut short, must leave RepairDB what it needs to know those SSTs for
// replaced: their meta files, and a manifest recording them as replaced. Merged
// again, a replaced SST brings back the puts whose tombstones the compaction
// dropped with them.
//
// The database: keys put and flushed to L0, some of them deleted and
// flushed to L0 again; then L0 is compacted into an empty L1, which drops
// the deleted keys' puts and tombstones. Both L0 directories are dead after
// the commit. Their removal is cut short by failing unlinks (what a kill
// -9 at the same point leaves on disk is the same), then RepairDB runs.
//
// The SST directories live in a memory Env's FileSystem wrapped in the
// fault-injecting one: it lists a directory in byte order, so "META" comes
// before the KV files of lowercase keys, on every machine. A removal that
// meets an unlink or an opening failing with ENOENT while the entry is
// there must not take the entry for removed; nor must the undo of a
// compaction abandoned before its commit, which unlinks the meta files it
// added to a directory that lives on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/filename.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/helpers/memenv.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/stat_failing_file_system.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;

constexpr int kKeys = 20;
constexpr int kEvery = 4;  // the deleted keys: every fourth one

bool Deleted(int i) { return i % kEvery == 0; }

// Large enough for a KV file of its own.
std::string Value(int i) {
  return "v" + std::to_string(i) + std::string(3000, 'x');
}

// Small enough to be stored inline, in the meta file.
std::string SmallValue(int i) { return "s" + std::to_string(i); }

const char kDbName[] = "/dead_dir_db";

class DeadDirectoryRemovalTest : public testing::Test {
 protected:
  DeadDirectoryRemovalTest()
      : env_(NewMemEnv(Env::Default())), fs_(FileSystemForEnv(env_.get())) {}

  Options DbOptions() const {
    Options o;
    o.create_if_missing = true;
    o.env = env_.get();
    return o;
  }

  // Opens the database with its SST directories on fs_.
  Status Open(std::unique_ptr<DB>* db) {
    DB* raw = nullptr;
    Status s = OpenWithFileSystem(
        DbOptions(), delsm_test::ManualCompactionOnly(), kDbName, &fs_, &raw);
    db->reset(raw);
    return s;
  }

  // Puts every key, flushes; deletes every kEvery-th, flushes; arms the
  // fault `spec` on unlinks (if spec.nth > 0) and compacts L0 into L1;
  // closes. Returns "" or what failed.
  std::string BuildAndCompact(const FaultSpec& spec) {
    std::unique_ptr<DB> db;
    Status s = Open(&db);
    if (!s.ok()) return "open: " + s.ToString();
    DBImpl* impl = static_cast<DBImpl*>(db.get());
    for (int i = 0; i < kKeys && s.ok(); i++) {
      s = db->Put(WriteOptions(), Key(i), Value(i));
    }
    if (s.ok()) s = impl->TEST_FlushMemTable();
    for (int i = 0; i < kKeys && s.ok(); i += kEvery) {
      s = db->Delete(WriteOptions(), Key(i));
    }
    if (s.ok()) s = impl->TEST_FlushMemTable();
    if (!s.ok()) return "build: " + s.ToString();
    if (spec.nth > 0) fs_.Arm(FsOp::kUnlink, spec);
    s = impl->TEST_CompactRange(0, nullptr, nullptr);
    if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
    if (!s.ok()) return "compaction: " + s.ToString();
    db.reset();  // Close: its last removal pass meets the fault too
    const bool fired = spec.nth == 0 || fs_.Fired();
    fs_.Disarm();
    return fired ? "" : "no unlink failed";
  }

  // "" if every deleted key reads NotFound and every other its value.
  std::string Check() {
    Options o = DbOptions();
    o.create_if_missing = false;
    std::unique_ptr<DB> db;
    Status s = Open(&db);
    if (!s.ok()) return "open: " + s.ToString();
    for (int i = 0; i < kKeys; i++) {
      std::string v;
      s = db->Get(ReadOptions(), Key(i), &v);
      if (Deleted(i)) {
        if (!s.IsNotFound()) {
          return "deleted key " + Key(i) + " came back" +
                 (s.ok() ? "" : ": " + s.ToString());
        }
      } else if (!s.ok() || v != Value(i)) {
        return Key(i) + ": " + (s.ok() ? "wrong value" : s.ToString());
      }
    }
    return "";
  }

  Status Repair() { return RepairDBWithFileSystem(kDbName, DbOptions(), &fs_); }

  // L1's only SST is the target of a compaction that replaces it by a new
  // SST in the same directory without the deleted keys' puts; the removal
  // of the retired one unlinks those puts' KV files, then META. For each
  // of those unlinks in turn, on a fresh database: `fault` (its nth set to
  // that unlink, its path to L1) meets the removal, then RepairDB must
  // give exactly the writes. Every unlink must have been reached.
  void CutRetiredSstRemovalThenRepair(FaultSpec fault,
                                      const std::string& what) {
    int cuts = 0;
    fault.path_contains = std::string(kDbName) + "/L1/";
    for (uint64_t nth = 1; nth < 100; nth++) {
      SCOPED_TRACE(what + std::to_string(nth));
      ASSERT_TRUE(DestroyDB(kDbName, DbOptions()).ok());
      {
        std::unique_ptr<DB> db;
        Status s = Open(&db);
        ASSERT_TRUE(s.ok()) << s.ToString();
        DBImpl* impl = static_cast<DBImpl*>(db.get());
        for (int i = 0; i < kKeys && s.ok(); i++) {
          s = db->Put(WriteOptions(), Key(i), Value(i));
        }
        if (s.ok()) s = impl->TEST_FlushMemTable();
        if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
        for (int i = 0; i < kKeys && s.ok(); i += kEvery) {
          s = db->Delete(WriteOptions(), Key(i));
        }
        if (s.ok()) s = impl->TEST_FlushMemTable();
        // The flush's removal pass ended: only the compaction's meets the
        // fault.
        if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
        ASSERT_TRUE(s.ok()) << s.ToString();
        fault.nth = nth;
        fs_.Arm(FsOp::kUnlink, fault);
        s = impl->TEST_CompactRange(0, nullptr, nullptr);
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
      const bool cut = fs_.Fired();
      fs_.Disarm();
      if (!cut) break;  // the removal made fewer unlinks
      cuts++;
      Status s = Repair();
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_EQ("", Check()) << "after RepairDB";
    }
    // The deleted keys' KV files, then META.
    EXPECT_LE(kKeys / kEvery + 1, cuts);
  }

  // A compaction into a directory that lives on, abandoned after it wrote
  // its new meta file, whose undo meets an unlink of that file failing
  // with ENOENT though it is there. The database: every key put (inline
  // values) and compacted into L1; every kEvery-th deleted and flushed;
  // the compaction of L0 into L1's SST, into its directory, cut (EMFILE:
  // a manual compaction reports it, no background error) once its
  // META-<n> is written: by the write of that file, which reaches it whole
  // (`at_sync` false), or by the sync of the directory after it; the cut
  // arms the failing unlinks of any META-<n>. Then key 1 is deleted and the
  // compaction run again (it drops that put with its tombstone), and the
  // database closed, opened and closed again: an Open after a clean Close
  // sweeps nothing and removes the manifest written before. Then the
  // manifest that Open wrote is damaged (read whole, it lets RepairDB
  // leave the meta file out as one no commit added), and RepairDB must
  // give exactly the writes. Returns "" or what failed.
  std::string AbandonedOutputThenRepair(bool at_sync) {
    {
      std::unique_ptr<DB> db;
      Status s = Open(&db);
      if (!s.ok()) return "open: " + s.ToString();
      DBImpl* impl = static_cast<DBImpl*>(db.get());
      for (int i = 0; i < kKeys && s.ok(); i++) {
        s = db->Put(WriteOptions(), Key(i), SmallValue(i));
      }
      if (s.ok()) s = impl->TEST_FlushMemTable();
      if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
      for (int i = 0; i < kKeys && s.ok(); i += kEvery) {
        s = db->Delete(WriteOptions(), Key(i));
      }
      if (s.ok()) s = impl->TEST_FlushMemTable();
      if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
      if (!s.ok()) return "build: " + s.ToString();
      std::vector<std::string> l1;
      s = fs_.ListDirectory(std::string(kDbName) + "/L1", &l1);
      if (!s.ok() || l1.size() != 1) return "L1 does not hold one directory";
      FaultSpec cut;
      uint32_t kinds;
      if (at_sync) {
        kinds = FaultInjectionFileSystem::Bit(FsOp::kFsync) |
                FaultInjectionFileSystem::Bit(FsOp::kSyncfs);
        cut.path_is = std::string(kDbName) + "/L1/" + l1[0];
      } else {
        kinds = FaultInjectionFileSystem::Bit(FsOp::kWrite);
        cut.path_contains = "/META-";
        cut.effect = FaultEffect::kDone;
      }
      bool cut_met = false;
      cut.err = EMFILE;
      cut.before_failing = [this, &cut_met] {
        cut_met = true;
        FaultSpec undo;
        undo.err = ENOENT;
        undo.sticky = true;
        undo.path_contains = "/META-";
        fs_.Arm(FsOp::kUnlink, undo);
      };
      fs_.ArmKinds(kinds, cut);
      s = impl->TEST_CompactRange(0, nullptr, nullptr);
      const bool undo_met = fs_.Fired();
      fs_.Disarm();
      if (!cut_met) return "the compaction was not cut";
      if (s.ok()) return "the cut compaction succeeded";
      if (!undo_met) return "the undo unlinked no meta file";
      s = db->Delete(WriteOptions(), Key(1));
      if (s.ok()) s = impl->TEST_FlushMemTable();
      if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
      if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
      if (!s.ok()) return "compaction: " + s.ToString();
    }
    {
      std::unique_ptr<DB> db;
      Status s = Open(&db);
      if (!s.ok()) return "reopen: " + s.ToString();
    }
    std::string current;
    Status s = ReadFileToString(env_.get(), CurrentFileName(kDbName), &current);
    if (!s.ok() || current.empty()) return "CURRENT: " + s.ToString();
    current.pop_back();  // its newline
    const std::string manifest = std::string(kDbName) + "/" + current;
    std::string bytes;
    s = ReadFileToString(env_.get(), manifest, &bytes);
    if (!s.ok() || bytes.empty()) return "manifest: " + s.ToString();
    bytes[bytes.size() / 2] ^= 0x40;  // its record's checksum no longer holds
    s = WriteStringToFile(env_.get(), bytes, manifest);
    if (!s.ok()) return "manifest: " + s.ToString();
    s = Repair();
    if (!s.ok()) return "repair: " + s.ToString();
    std::unique_ptr<DB> db;
    s = Open(&db);
    if (!s.ok()) return "open after repair: " + s.ToString();
    for (int i = 0; i < kKeys; i++) {
      std::string v;
      s = db->Get(ReadOptions(), Key(i), &v);
      if (Deleted(i) || i == 1) {
        if (!s.IsNotFound()) {
          return "deleted key " + Key(i) + " came back" +
                 (s.ok() ? "" : ": " + s.ToString());
        }
      } else if (!s.ok() || v != SmallValue(i)) {
        return Key(i) + ": " + (s.ok() ? "wrong value" : s.ToString());
      }
    }
    return "";
  }

  std::unique_ptr<Env> env_;
  FaultInjectionFileSystem fs_;
};

// Every KV file unlink fails (EIO; a kill -9 after the first unlink in the
// directory leaves the same): what the removal unlinked before the failure
// is gone. The meta files must be the last to go, or RepairDB takes the
// replaced SST's dropped puts back by their names.
TEST_F(DeadDirectoryRemovalTest, RepairAfterRemovalCutShort) {
  FaultSpec kv_files;
  kv_files.sticky = true;
  kv_files.path_contains = "/key";
  ASSERT_EQ("", BuildAndCompact(kv_files));
  Status s = Repair();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Check()) << "after RepairDB";
}

// The compaction's own removal fails whole (every unlink), so both dead
// directories are left intact with the manifest recording them replaced;
// then an Open writes a new manifest (a snapshot, without that record) and
// its removal of the dead directory holding the puts fails. The previous
// manifest must stay while that directory does.
TEST_F(DeadDirectoryRemovalTest,
       OpenKeepsThePreviousManifestWhileADeadDirStays) {
  FaultSpec every_unlink;
  every_unlink.sticky = true;
  ASSERT_EQ("", BuildAndCompact(every_unlink));
  {
    FaultSpec kv_files;
    kv_files.sticky = true;
    kv_files.path_contains = "/key";
    fs_.Arm(FsOp::kUnlink, kv_files);
    std::unique_ptr<DB> db;
    Status s = Open(&db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(
        static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork().ok());
    db.reset();
    ASSERT_TRUE(fs_.Fired()) << "the Open's removal of the dead directory "
                                "was not cut";
    fs_.Disarm();
  }
  Status s = Repair();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Check()) << "after RepairDB";
}

// As above, but what the Open's removal pass meets is a dead directory
// (the one holding the puts) whose lookup fails (lstat: EIO): whether it
// is there cannot be told, so it may still be, and the previous manifest
// must stay. Then the manifest the Open wrote is damaged, and the user
// runs RepairDB: with the current manifest not read whole, only the
// previous one records the puts' SST as replaced. Taking the failed lookup
// for a removal, the pass removed that manifest, and RepairDB merged the
// puts again, bringing the deleted keys back.
TEST_F(DeadDirectoryRemovalTest,
       OpenKeepsThePreviousManifestWhileADeadDirCannotBeLookedUp) {
  FaultSpec every_unlink;
  every_unlink.sticky = true;
  ASSERT_EQ("", BuildAndCompact(every_unlink));
  std::vector<std::string> dead;
  ASSERT_TRUE(fs_.ListDirectory(std::string(kDbName) + "/L0", &dead).ok());
  std::sort(dead.begin(), dead.end());
  ASSERT_EQ(2u, dead.size());
  // The first flush's: the puts, each a KV file.
  const std::string puts = std::string(kDbName) + "/L0/" + dead[0];
  std::vector<std::string> entries;
  ASSERT_TRUE(fs_.ListDirectory(puts, &entries).ok());
  ASSERT_LT(static_cast<size_t>(kKeys), entries.size());
  {
    delsm_test::StatFailingFileSystem lookups(&fs_);
    lookups.FailExistsUnder(puts);
    DB* raw = nullptr;
    Status s =
        OpenWithFileSystem(DbOptions(), delsm_test::ManualCompactionOnly(),
                           kDbName, &lookups, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    ASSERT_TRUE(
        static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork().ok());
    db.reset();
    ASSERT_LT(0, lookups.Failed()) << "the dead directory was not looked up";
  }
  std::string current;
  ASSERT_TRUE(
      ReadFileToString(env_.get(), CurrentFileName(kDbName), &current).ok());
  ASSERT_FALSE(current.empty());
  current.pop_back();  // its newline
  const std::string manifest = std::string(kDbName) + "/" + current;
  std::string bytes;
  ASSERT_TRUE(ReadFileToString(env_.get(), manifest, &bytes).ok());
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x40;  // its record's checksum no longer holds
  ASSERT_TRUE(WriteStringToFile(env_.get(), bytes, manifest).ok());
  Status s = Repair();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Check()) << "after RepairDB";
}

// As above, but the dead directory holding the puts is there for every
// lookup while every opening of it fails with ENOENT (a directory entry
// that stats but does not open). The removal cannot tell that it is gone
// (a lookup a moment ago found it), so the previous manifest must stay:
// taken for "gone since the lookup", the directory counted as removed,
// and the pass removed that manifest, the only record that its SST was
// replaced, while the directory stayed.
TEST_F(DeadDirectoryRemovalTest,
       OpenKeepsThePreviousManifestWhileADeadDirDoesNotOpen) {
  FaultSpec every_unlink;
  every_unlink.sticky = true;
  ASSERT_EQ("", BuildAndCompact(every_unlink));
  std::vector<std::string> dead;
  ASSERT_TRUE(fs_.ListDirectory(std::string(kDbName) + "/L0", &dead).ok());
  std::sort(dead.begin(), dead.end());
  ASSERT_EQ(2u, dead.size());
  const std::string puts = std::string(kDbName) + "/L0/" + dead[0];
  {
    FaultSpec opening;
    opening.err = ENOENT;
    opening.sticky = true;
    opening.path_contains = puts;
    fs_.Arm(FsOp::kOpen, opening);
    std::unique_ptr<DB> db;
    Status s = Open(&db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(
        static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork().ok());
    db.reset();
    ASSERT_TRUE(fs_.Fired()) << "the dead directory was not opened";
    fs_.Disarm();
  }
  bool exists = false;
  ASSERT_TRUE(fs_.Probe(puts, &exists).ok());
  ASSERT_TRUE(exists);
  std::string current;
  ASSERT_TRUE(
      ReadFileToString(env_.get(), CurrentFileName(kDbName), &current).ok());
  ASSERT_FALSE(current.empty());
  current.pop_back();  // its newline
  const std::string manifest = std::string(kDbName) + "/" + current;
  std::string bytes;
  ASSERT_TRUE(ReadFileToString(env_.get(), manifest, &bytes).ok());
  ASSERT_FALSE(bytes.empty());
  bytes[bytes.size() / 2] ^= 0x40;  // its record's checksum no longer holds
  ASSERT_TRUE(WriteStringToFile(env_.get(), bytes, manifest).ok());
  Status s = Repair();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Check()) << "after RepairDB";
}

// As above, but the Open's removal pass cannot list L0 (EIO): it does not
// know the dead directories are there and has not removed them. The
// previous manifest, the only record that their SSTs were replaced, must
// stay as it does when their removal fails: here the Close's pass then
// removes the directory holding the tombstones and fails on the one
// holding the puts, and RepairDB must not merge those puts again.
TEST_F(DeadDirectoryRemovalTest,
       OpenKeepsThePreviousManifestWhenALevelDoesNotList) {
  FaultSpec every_unlink;
  every_unlink.sticky = true;
  ASSERT_EQ("", BuildAndCompact(every_unlink));
  std::unique_ptr<DB> db;
  // The first listing of L0 is recovery's (it must succeed for the Open to
  // go on), the second the removal pass's.
  FaultSpec level0_listing;
  level0_listing.nth = 2;
  level0_listing.path_contains = std::string(kDbName) + "/L0";
  fs_.Arm(FsOp::kReaddir, level0_listing);
  Status s = Open(&db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(
      static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork().ok());
  ASSERT_TRUE(fs_.Fired()) << "the Open's listing of L0 did not fail";
  FaultSpec kv_files;
  kv_files.sticky = true;
  kv_files.path_contains = "/key";
  fs_.Arm(FsOp::kUnlink, kv_files);
  db.reset();
  ASSERT_TRUE(fs_.Fired()) << "the Close's removal of the dead directory "
                              "was not cut";
  fs_.Disarm();
  s = Repair();
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ("", Check()) << "after RepairDB";
}

// The same for a retired SST in a directory that lives on: L1's only SST
// (its directory's META) is the target of the compaction, replaced by a
// new SST in the same directory without the deleted keys' puts. Its
// removal unlinks those puts' KV files, then META; cut short at each of
// its unlinks in turn (EIO from there on; a kill -9 there leaves the
// same), META must still name the KV files left, or RepairDB takes them
// back by their names.
TEST_F(DeadDirectoryRemovalTest, RepairAfterRetiredSstRemovalCutShort) {
  FaultSpec from_nth;  // EIO from the nth unlink on
  from_nth.sticky = true;
  CutRetiredSstRemovalThenRepair(from_nth, "cut at unlink ");
}

// The same retired SST, its removal meeting one unlink that fails with
// ENOENT though the file is there (the unlink changed nothing), at each of
// its unlinks in turn. Taken for "removed already", the removal went on
// and unlinked META after it, leaving a dropped put's KV file that no meta
// file names, which RepairDB takes back by its name.
TEST_F(DeadDirectoryRemovalTest, RetiredSstRemovalTakesNoFailedUnlinkForDone) {
  FaultSpec at_nth;  // ENOENT at the nth unlink alone
  at_nth.err = ENOENT;
  CutRetiredSstRemovalThenRepair(at_nth, "ENOENT at unlink ");
}

// The same retired SST, its META failing to open with ENOENT though it is
// there, at each opening in turn from the compaction on. Its removal must
// not take that for the mark of an earlier attempt that finished (META
// goes last): taken so, the SST left the queue with its META and the
// dropped puts' KV files still in the directory, the Close wrote its
// marker, the next Open (not sweeping) removed the manifest recording the
// SST as replaced, and RepairDB merged it.
TEST_F(DeadDirectoryRemovalTest, RetiredSstWhoseMetaDoesNotOpenIsNotRemoved) {
  int cuts = 0;
  for (uint64_t nth = 1; nth < 10; nth++) {
    SCOPED_TRACE("ENOENT at opening " + std::to_string(nth));
    ASSERT_TRUE(DestroyDB(kDbName, DbOptions()).ok());
    {
      std::unique_ptr<DB> db;
      Status s = Open(&db);
      ASSERT_TRUE(s.ok()) << s.ToString();
      DBImpl* impl = static_cast<DBImpl*>(db.get());
      for (int i = 0; i < kKeys && s.ok(); i++) {
        s = db->Put(WriteOptions(), Key(i), Value(i));
      }
      if (s.ok()) s = impl->TEST_FlushMemTable();
      if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
      for (int i = 0; i < kKeys && s.ok(); i += kEvery) {
        s = db->Delete(WriteOptions(), Key(i));
      }
      if (s.ok()) s = impl->TEST_FlushMemTable();
      if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
      ASSERT_TRUE(s.ok()) << s.ToString();
      std::vector<std::string> l1;
      ASSERT_TRUE(fs_.ListDirectory(std::string(kDbName) + "/L1", &l1).ok());
      ASSERT_EQ(1u, l1.size());
      FaultSpec opening;
      opening.err = ENOENT;
      opening.nth = nth;
      opening.path_is = std::string(kDbName) + "/L1/" + l1[0] + "/META";
      fs_.Arm(FsOp::kOpen, opening);
      // It may meet the compaction's own reading of its input instead.
      impl->TEST_CompactRange(0, nullptr, nullptr);
    }
    const bool cut = fs_.Fired();
    fs_.Disarm();
    if (!cut) break;  // fewer openings
    cuts++;
    {
      // An Open and a Close after a clean one: no sweep, and the manifest
      // written before is removed.
      std::unique_ptr<DB> db;
      Status s = Open(&db);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    Status s = Repair();
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ("", Check()) << "after RepairDB";
  }
  EXPECT_LE(1, cuts);
}

// The compaction's SST builder undoes its own output (SstDirBuilder::
// Abandon): the meta file's write failed.
TEST_F(DeadDirectoryRemovalTest,
       AbandonedMetaFileWriteTakesNoFailedUnlinkForDone) {
  EXPECT_EQ("", AbandonedOutputThenRepair(/*at_sync=*/false));
}

// The compaction undoes its finished outputs (DentryCompaction::Abandon):
// the sync of their directory failed.
TEST_F(DeadDirectoryRemovalTest, AbandonedOutputTakesNoFailedUnlinkForDone) {
  EXPECT_EQ("", AbandonedOutputThenRepair(/*at_sync=*/true));
}

}  // namespace
}  // namespace leveldb
