// RepairDB: rebuilds a DB from the SST directories, KV files and WALs that
// survive the loss of the manifest, of CURRENT, or of a meta file; moves
// what it cannot use into lost/ and logs every step.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "db/filename.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "table/meta_file.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "tests/failed_repair.h"
#include "tests/faults/kv_file_database.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::ListDir;
using delsm_test::TempDir;

constexpr int kKeys = 3000;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}
std::string Value(int i) { return std::string(300 + i % 700, 'a' + i % 26); }

class RepairTest : public testing::Test {
 protected:
  RepairTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    // Pure mode: every value a KV file, which repair finds even when a meta
    // file is lost (inline values: tests/inline_values_test.cc).
    tuning_.inline_threshold = 0;
    tuning_.l0_compaction_entries = 500;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
  }

  // Fills the DB so it has directories in several levels, deletes every
  // 7th key, and leaves the last writes only in the WAL.
  void Fill() {
    DB* db;
    ASSERT_TRUE(delsm::Open(options_, tuning_, dbname_, &db).ok());
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    for (int i = 0; i < kKeys; i += 7) {
      ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = kKeys; i < kKeys + 100; i++) {  // stays in the WAL
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    delete db;
  }

  // Every surviving key reads back; deleted keys stay deleted when
  // `tombstones_survive`. With `repair_log` (the LOG of a RepairDB), a key
  // that log names as withheld (Repairer::Withheld: a lost group of a meta
  // file above may have deleted or replaced it) may be missing.
  void Check(bool tombstones_survive, const std::string* repair_log = nullptr) {
    DB* db;
    Status s = delsm::Open(options_, tuning_, dbname_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (int i = 0; i < kKeys + 100; i++) {
      std::string v;
      s = db->Get(ReadOptions(), Key(i), &v);
      if (i < kKeys && i % 7 == 0) {
        if (tombstones_survive) EXPECT_TRUE(s.IsNotFound()) << Key(i);
        continue;
      }
      if (s.IsNotFound() && repair_log != nullptr &&
          repair_log->find("withheld " + Key(i) + " @") != std::string::npos) {
        continue;
      }
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i), v);
    }
    delete db;
  }

  // Opens the database and reads keys [0, keys): every key `deleted`
  // names must be NotFound (counted, so a failure says how many came
  // back), every other one reads back its value.
  void CheckNoneBack(int keys, const std::function<bool(int)>& deleted) {
    DB* raw = nullptr;
    Status s = delsm::Open(options_, tuning_, dbname_, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    int back = 0;
    for (int i = 0; i < keys; i++) {
      std::string v;
      s = db->Get(ReadOptions(), Key(i), &v);
      if (deleted(i)) {
        if (!s.IsNotFound()) back++;
        continue;
      }
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i), v) << Key(i);
    }
    EXPECT_EQ(0, back) << "deleted keys brought back by the repair";
  }

  TempDir tmp_;
  const std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
};

TEST_F(RepairTest, LostManifestAndCurrent) {
  Fill();
  for (const std::string& name : ListDir(dbname_)) {
    if (name.rfind("MANIFEST-", 0) == 0 || name == "CURRENT") {
      ASSERT_EQ(0, unlink((dbname_ + "/" + name).c_str()));
    }
  }
  DB* db = nullptr;
  Options no_create = options_;
  no_create.create_if_missing = false;
  ASSERT_FALSE(DB::Open(no_create, dbname_, &db).ok());
  delete db;
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(true);
}

TEST_F(RepairTest, LostMetaFile) {
  Fill();
  // Remove a meta file of one directory that holds values. A directory
  // may hold only META-<n> files (SSTs a compaction wrote into it).
  bool removed = false;
  for (int level = 0; level < 7 && !removed; level++) {
    const std::string ldir = dbname_ + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(ldir)) {
      const std::vector<std::string> names = ListDir(ldir + "/" + d);
      if (names.size() <= 10) continue;
      for (const std::string& name : names) {
        if (name.rfind("META", 0) == 0) {
          ASSERT_EQ(0, unlink((ldir + "/" + d + "/" + name).c_str()));
          removed = true;
          break;
        }
      }
      if (removed) break;
    }
  }
  ASSERT_TRUE(removed);
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Tombstones of the lost meta file are gone, so deleted keys are not
  // checked; every value whose KV file survives is back.
  Check(false);
}

TEST_F(RepairTest, RepairOfHealthyDbKeepsEverything) {
  Fill();
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(true);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A META whose footer and trailer check but one of whose groups is damaged
// is damage to RepairDB: the directory is not kept as it is (its entries in
// that group would read as Corruption for good), but rebuilt from the
// other groups and its values taken back by their names, and the LOG names
// the group (tests/faults/repair_meta_group_test.cc has the rest).
TEST_F(RepairTest, DamagedGroupOfAMetaFileIsSeenBeforeTheDirectoryIsKept) {
  Fill();
  // Any meta file of format 4 with three groups or more: whether the SSTs
  // a compaction wrote went into a directory of their own (META) or into
  // an existing one (META-<n>) depends on when the background compactions
  // ran, and RepairDB must see the damage either way.
  std::string victim;
  for (int level = 0; level < 7 && victim.empty(); level++) {
    const std::string ldir = dbname_ + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(ldir)) {
      for (const std::string& n : ListDir(ldir + "/" + d)) {
        if (n.rfind("META", 0) != 0) continue;
        const std::string meta = ldir + "/" + d + "/" + n;
        std::string data = ReadAll(meta);
        MetaIndexRange range;
        MetaTrailer trailer;
        if (!DecodeMetaFooter(data, data.size(), meta, &range).ok() ||
            range.version != 4 ||
            !DecodeMetaTrailer(Slice(data.data() + range.offset, range.size),
                               range, meta, &trailer)
                 .ok() ||
            trailer.groups.size() < 3) {
          continue;
        }
        // A byte in the middle of group 1.
        const MetaGroup& g = trailer.groups[1];
        data[g.offset + g.size / 2] ^= 0x10;
        std::ofstream(meta, std::ios::binary | std::ios::trunc) << data;
        victim = meta;
        break;
      }
      if (!victim.empty()) break;
    }
  }
  ASSERT_FALSE(victim.empty());
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::string log = ReadAll(dbname_ + "/LOG");
  EXPECT_NE(log.find(victim + ": group 1"), std::string::npos) << log;
  // The damaged group's tombstones are gone with it; every value is back,
  // but for one a group holding a tombstone may have hidden (the rule
  // withholds it, and the LOG names it, only when that group held
  // something other than KV files).
  Check(false, &log);
}

bool WriteAll(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  return static_cast<bool>(out);
}

// LevelDB's promise: RepairDB never deletes what it could not use; it moves
// it into lost/ and says so in the DB's LOG (created if options.info_log is
// null).
TEST_F(RepairTest, WhatCannotBeUsedGoesToLostAndEveryStepIsLogged) {
  Fill();
  // A WAL whose contents are not records at all.
  const std::string bad_wal(5000, '\x42');
  ASSERT_TRUE(WriteAll(dbname_ + "/009990.log", bad_wal));
  std::vector<std::string> wals;
  for (const std::string& name : ListDir(dbname_)) {
    if (name.size() > 4 && name.substr(name.size() - 4) == ".log") {
      wals.push_back(name);
    }
  }
  ASSERT_GE(wals.size(), 2u);
  std::map<std::string, std::string> wal_bytes;
  for (const std::string& w : wals) wal_bytes[w] = ReadAll(dbname_ + "/" + w);
  // A damaged meta file, and a file no SST names, in a directory of values.
  std::string damaged_dir, damaged_meta;
  for (int level = 0; level < 7 && damaged_dir.empty(); level++) {
    const std::string ldir = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname_ + "/" + ldir)) {
      const std::string path = dbname_ + "/" + ldir + "/" + d;
      const std::vector<std::string> names = ListDir(path);
      if (names.size() <= 10) continue;
      for (const std::string& name : names) {
        if (name.rfind("META", 0) == 0) {
          damaged_dir = ldir + "-" + d;
          damaged_meta = name;
          ASSERT_TRUE(WriteAll(path + "/" + name, "not a meta file"));
          ASSERT_TRUE(WriteAll(path + "/stray", "stray bytes"));
          break;
        }
      }
      if (!damaged_dir.empty()) break;
    }
  }
  ASSERT_FALSE(damaged_dir.empty());
  // An "SST directory" that is not a directory: it cannot be loaded.
  ASSERT_TRUE(WriteAll(dbname_ + "/L2/008880.sst", "unreadable"));
  std::vector<std::string> manifests;
  for (const std::string& name : ListDir(dbname_)) {
    if (name.rfind("MANIFEST-", 0) == 0) manifests.push_back(name);
  }

  ASSERT_TRUE(options_.info_log == nullptr);
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();

  const std::string lost = dbname_ + "/lost";
  for (const auto& w : wal_bytes) {
    EXPECT_EQ(ReadAll(lost + "/" + w.first), w.second)
        << "WAL " << w.first << " was not kept in lost/";
  }
  for (const std::string& m : manifests) {
    EXPECT_EQ(access((lost + "/" + m).c_str(), F_OK), 0) << m;
  }
  EXPECT_EQ(ReadAll(lost + "/" + damaged_dir + "/" + damaged_meta),
            "not a meta file");
  EXPECT_EQ(ReadAll(lost + "/" + damaged_dir + "/stray"), "stray bytes");
  EXPECT_EQ(ReadAll(lost + "/L2-008880.sst"), "unreadable");

  const std::string log = ReadAll(dbname_ + "/LOG");
  EXPECT_NE(log.find("RepairDB"), std::string::npos) << log;
  EXPECT_NE(log.find("009990"), std::string::npos) << log;
  EXPECT_NE(log.find("008880.sst"), std::string::npos) << log;
  EXPECT_NE(log.find(damaged_meta), std::string::npos) << log;
  EXPECT_NE(log.find("lost/"), std::string::npos) << log;
  Check(false);
  // A second repair of the repaired DB finds nothing to put away but works.
  s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(false);
}

// A crash between a compaction's manifest commit and the
// removal of the SSTs it replaced leaves their meta and KV files on disk.
// Repair must not merge them back: the keys the compaction dropped with
// their tombstones would return.
TEST_F(RepairTest, ReplacedSstsLeftByACrashDoNotBringBackDeletedKeys) {
  DB* db;
  ASSERT_TRUE(delsm::Open(options_, tuning_, dbname_, &db).ok());
  for (int i = 0; i < kKeys; i++) {
    ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
  }
  db->CompactRange(nullptr, nullptr);
  delete db;
  // Keep every SST file as it is now (hard links: same inodes).
  const std::string snap = tmp_.path() + "/snap";
  ASSERT_EQ(0, mkdir(snap.c_str(), 0755));
  std::vector<std::pair<std::string, std::vector<std::string>>> dirs;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname_ + "/" + ldir)) {
      const std::string rel = ldir + "/" + d;
      ASSERT_EQ(0, mkdir((snap + "/" + ldir + "-" + d).c_str(), 0755));
      dirs.push_back({rel, ListDir(dbname_ + "/" + rel)});
      for (const std::string& name : dirs.back().second) {
        ASSERT_EQ(0, link((dbname_ + "/" + rel + "/" + name).c_str(),
                          (snap + "/" + ldir + "-" + d + "/" + name).c_str()));
      }
    }
  }
  // Delete every 7th key; the compaction drops the values and tombstones
  // together at the base level and replaces the SSTs that held them.
  ASSERT_TRUE(delsm::Open(options_, tuning_, dbname_, &db).ok());
  for (int i = 0; i < kKeys; i += 7) {
    ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
  }
  db->CompactRange(nullptr, nullptr);
  delete db;
  // As if the removal of the replaced SSTs never happened: every file comes
  // back, and so does a directory removed with its last SST (one a trivial
  // move renamed to another level is not restored at its old place). Which
  // directories the compactions emptied depends on their timing, so a
  // removed directory must come back too for the count below to hold.
  int restored = 0;
  for (const auto& dir : dirs) {
    const std::string path = dbname_ + "/" + dir.first;
    if (access(path.c_str(), F_OK) != 0) {
      const std::string name = dir.first.substr(dir.first.find('/') + 1);
      bool renamed = false;
      for (int level = 0; level < 7; level++) {
        const std::string moved =
            dbname_ + "/L" + std::to_string(level) + "/" + name;
        if (access(moved.c_str(), F_OK) == 0) renamed = true;
      }
      if (renamed) continue;
      ASSERT_EQ(0, mkdir(path.c_str(), 0755)) << path;
    }
    std::string flat = dir.first;
    flat[flat.find('/')] = '-';
    for (const std::string& name : dir.second) {
      if (access((path + "/" + name).c_str(), F_OK) == 0) continue;
      ASSERT_EQ(0, link((snap + "/" + flat + "/" + name).c_str(),
                        (path + "/" + name).c_str()))
          << path << "/" << name;
      restored++;
    }
  }
  // The deleted keys' KV files and the replaced meta files.
  ASSERT_GE(restored, kKeys / 7);

  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  CheckNoneBack(kKeys, [](int i) { return i % 7 == 0; });
  // What was not merged is kept in lost/, not deleted.
  EXPECT_FALSE(ListDir(dbname_ + "/lost").empty());
}

// A RepairDB that fails at its commit (EIO renaming CURRENT; killed just
// before it, it leaves the same) leaves the manifest it wrote, which
// CURRENT never named, beside the old one: that manifest records every old
// SST as replaced by the repair's outputs. The Open after it reads the old
// manifest and removes the repair's outputs as directories no live version
// holds. A RepairDB after that must not take the uncommitted manifest's
// record for a commit: it would merge none of the old SSTs, the only copy
// of the data now, and commit an empty database.
TEST_F(RepairTest, FailedAtItsCommitThenOpenThenRepairKeepsEveryKey) {
  Fill();
  ASSERT_NO_FATAL_FAILURE(delsm_test::FailRepairAtRename(
      dbname_, tmp_.path() + "/shadow", "/CURRENT",
      "the repair renamed no CURRENT"));
  Check(/*tombstones_survive=*/true);
  if (HasFatalFailure()) return;
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(/*tombstones_survive=*/true);
}

// The same, with a second Open after the first: its manifest is numbered
// past the failed repair's (the first Open marked that number used), so
// the repair's is no longer numbered past the one CURRENT names, and the
// second Open's removal of it as an older manifest fails (EIO; a removal
// that fails leaves the file for a later Open). The RepairDB after it must
// still not take the uncommitted manifest's record of the old SSTs as
// replaced for a commit: the first Open's manifest, numbered below it,
// hands out numbers past it and lists those SSTs live, and the manifest
// CURRENT names lists them live too.
TEST_F(RepairTest, FailedAtItsCommitThenTwoOpensThenRepairKeepsEveryKey) {
  Fill();
  ASSERT_NO_FATAL_FAILURE(delsm_test::FailRepairAtRename(
      dbname_, tmp_.path() + "/shadow", "/CURRENT",
      "the repair renamed no CURRENT"));
  // The failed repair's manifest: the one numbered highest.
  std::string uncommitted;
  uint64_t uncommitted_number = 0;
  for (const std::string& name : ListDir(dbname_)) {
    uint64_t number;
    FileType type;
    if (ParseFileName(name, &number, &type) && type == kDescriptorFile &&
        number >= uncommitted_number) {
      uncommitted = name;
      uncommitted_number = number;
    }
  }
  ASSERT_FALSE(uncommitted.empty());
  Check(/*tombstones_survive=*/true);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(Env::Default()->FileExists(dbname_ + "/" + uncommitted))
      << "the first Open removed the failed repair's manifest";
  {
    FaultInjectionEnv env(Env::Default(), tmp_.path() + "/shadow2");
    FaultSpec remove;
    remove.path_contains = "/" + uncommitted;
    remove.sticky = true;
    env.Arm(EnvOp::kRemove, remove);
    Options o = options_;
    o.env = &env;
    DB* db = nullptr;
    Status s = delsm::Open(o, tuning_, dbname_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    delete db;
  }
  ASSERT_TRUE(Env::Default()->FileExists(dbname_ + "/" + uncommitted));
  std::string current;
  ASSERT_TRUE(
      ReadFileToString(Env::Default(), CurrentFileName(dbname_), &current)
          .ok());
  uint64_t current_number = 0;
  FileType type;
  current.pop_back();
  ASSERT_TRUE(ParseFileName(current, &current_number, &type));
  ASSERT_GT(current_number, uncommitted_number)
      << "the second Open's manifest is not numbered past " << uncommitted;
  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Check(/*tombstones_survive=*/true);
}

// The SST directories of the database, as "L<level>/<name>".
std::set<std::string> SstDirsOf(const std::string& dbname) {
  std::set<std::string> dirs;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname + "/" + ldir)) {
      dirs.insert(ldir + "/" + d);
    }
  }
  return dirs;
}

// A RepairDB failed at its commit, then an Open whose removal of one of the
// repair's outputs (a directory no live version holds) keeps failing (EIO,
// as a damaged directory gives): the database runs on, deletes keys and
// compacts every SST the repair had merged away, dropping the tombstones
// at the base level; a second Open, its removal failing again, numbers its
// manifest past the repair's. Every manifest stays (an older one goes only
// once every dead directory has). No manifest lists live an SST the failed
// repair's records as replaced, but the first Open's, numbered below it,
// hands out numbers past it: it was written from a state before the
// repair, which therefore never took effect. Read as committed, its record
// of its outputs would have RepairDB merge the one left on disk, a copy of
// the data from before the deletes.
TEST_F(RepairTest, FailedAtItsCommitThenOpensCompactingEverythingThenRepair) {
  Fill();
  const std::set<std::string> before = SstDirsOf(dbname_);
  ASSERT_NO_FATAL_FAILURE(delsm_test::FailRepairAtRename(
      dbname_, tmp_.path() + "/shadow", "/CURRENT",
      "the repair renamed no CURRENT"));
  // One of the repair's outputs (below L0: its L0 directories are its
  // intermediate ones).
  std::string output;
  for (const std::string& d : SstDirsOf(dbname_)) {
    if (before.count(d) == 0 && d.rfind("L0/", 0) != 0) output = d;
  }
  ASSERT_FALSE(output.empty()) << "the failed repair left no output";
  FaultInjectionFileSystem fs(FileSystem::Default());
  FaultSpec unlink;
  unlink.sticky = true;
  unlink.path_contains = "/" + output + "/";
  fs.Arm(FsOp::kUnlink, unlink);
  auto deleted_in_open = [](int i) { return i % 5 == 1; };
  {
    DB* raw = nullptr;
    Status s = OpenWithFileSystem(options_, tuning_, dbname_, &fs, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kKeys; i++) {
      if (deleted_in_open(i)) {
        ASSERT_TRUE(db->Delete(WriteOptions(), Key(i)).ok());
      }
    }
    db->CompactRange(nullptr, nullptr);
  }
  {
    DB* raw = nullptr;
    Status s = OpenWithFileSystem(options_, tuning_, dbname_, &fs, &raw);
    ASSERT_TRUE(s.ok()) << s.ToString();
    delete raw;
  }
  ASSERT_TRUE(fs.Fired()) << "no removal of " << output << " was made";
  ASSERT_TRUE(Env::Default()->FileExists(dbname_ + "/" + output + "/META"));
  fs.Disarm();

  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  CheckNoneBack(kKeys + 100, [&](int i) {
    return i < kKeys && (i % 7 == 0 || deleted_in_open(i));
  });
}

// A KV file one meta file names, linked under the same name into another
// SST directory that no meta file there names (what a compaction killed
// before its commit leaves), is one inode with two names. Damaged in place,
// the named entry's checksum reports it; the unnamed link, taken back by
// its name, has no checksum of its own and must not be served as the value.
TEST_F(RepairTest, UnnamedLinkOfADamagedNamedKvFileIsNotServed) {
  // Uncompressed: zeros are no valid Snappy data, so a compressed file
  // zero-filled would be refused by its name's compression flag alone.
  options_.compression = kNoCompression;
  // Directories of several SSTs (a compaction's outputs share one).
  tuning_.sst_entries = 24;
  tuning_.max_dir_entries = 60;
  DB* db;
  ASSERT_TRUE(delsm::Open(options_, tuning_, dbname_, &db).ok());
  // Written twice: the second compaction writes its SSTs into the
  // directories of those it replaces (META-<n> files).
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < kKeys; i++) {
      ASSERT_TRUE(db->Put(WriteOptions(), Key(i), Value(i)).ok());
    }
    db->CompactRange(nullptr, nullptr);
  }
  delete db;
  // Directories by number. The link goes into the newest one holding
  // several SSTs (META-<n> files: repair rebuilds it from its meta files
  // and its listing), so that its copy, were it taken back, is the one the
  // merge keeps of the two.
  std::map<std::string, std::string> dirs;  // name -> path
  std::string target;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = dbname_ + "/L" + std::to_string(level);
    for (const std::string& d : ListDir(ldir)) dirs[d] = ldir + "/" + d;
  }
  for (const auto& d : dirs) {
    for (const std::string& n : ListDir(d.second)) {
      if (n.rfind("META-", 0) == 0) target = d.second;
    }
  }
  ASSERT_FALSE(target.empty());
  const std::string source = dirs.begin()->second;
  ASSERT_NE(source, target);
  std::string name;
  for (const std::string& n : ListDir(source)) {
    if (n.rfind("key", 0) == 0) name = n;
  }
  ASSERT_FALSE(name.empty());
  ASSERT_EQ(0,
            link((source + "/" + name).c_str(), (target + "/" + name).c_str()));
  struct stat st;
  ASSERT_EQ(0, stat((source + "/" + name).c_str(), &st));
  {
    std::ofstream out(source + "/" + name, std::ios::binary | std::ios::in);
    ASSERT_TRUE(out.good());
    out << std::string(st.st_size, '\0');
  }

  Status s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_TRUE(delsm::Open(options_, tuning_, dbname_, &db).ok());
  const int damaged = std::stoi(name.substr(3, 6));
  std::string v;
  s = db->Get(ReadOptions(), Key(damaged), &v);
  EXPECT_TRUE(!s.ok() || v == Value(damaged))
      << Key(damaged) << " reads a value never written: " << v.size()
      << " bytes, "
      << (v.find_first_not_of('\0') == std::string::npos ? "all zero"
                                                         : "not all zero");
  for (int i = 0; i < kKeys; i++) {
    if (i == damaged) continue;
    s = db->Get(ReadOptions(), Key(i), &v);
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    ASSERT_EQ(Value(i), v) << Key(i);
  }
  delete db;
}

// One KV file lost from an SST directory that holds just its own META and
// KV files (a directory RepairDB otherwise uses as it is), or, with values
// that stay put, from a home, is damage to one value, not to the
// database: RepairDB succeeds, and so does a second RepairDB. It rebuilds
// the SST directory naming the value from its META and its listing, so
// the entry whose file is gone is dropped (its key had no other version,
// and reads NotFound) and every other key reads its value; the LOG names
// the missing file. Used as it was, the directory would give the merge a
// link of the missing file, and RepairDB would fail on it every time.
class RepairLostKvFileTest : public testing::TestWithParam<bool> {};

TEST_P(RepairLostKvFileTest, OneLostKvFileLosesOnlyItsKey) {
  TempDir tmp("delsm_repair");
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  delsm::Tuning tuning;
  tuning.values_stay_put = GetParam();
  tuning.inline_threshold = 0;  // every value a KV file
  ASSERT_NO_FATAL_FAILURE(delsm_test::MakeKvFileDatabase(dbname, tuning));
  // A KV file in a home, or in a directory holding META and KV files and
  // no META-<n>; it goes.
  std::vector<std::string> candidates;
  if (GetParam()) {
    for (const std::string& h : ListDir(dbname + "/values")) {
      candidates.push_back(dbname + "/values/" + h);
    }
  } else {
    for (int level = 0; level < 7; level++) {
      const std::string ldir = dbname + "/L" + std::to_string(level);
      for (const std::string& d : ListDir(ldir)) {
        candidates.push_back(ldir + "/" + d);
      }
    }
  }
  std::string victim_dir, victim;
  for (const std::string& dir : candidates) {
    bool only_meta = true;
    std::string kv;
    for (const std::string& n : ListDir(dir)) {
      if (n.rfind("META-", 0) == 0) only_meta = false;
      if (n.find('@') != std::string::npos) kv = n;
    }
    if (only_meta && !kv.empty()) {
      victim_dir = dir;
      victim = kv;
      break;
    }
  }
  ASSERT_FALSE(victim.empty());
  ASSERT_EQ(0, unlink((victim_dir + "/" + victim).c_str()));
  const std::string lost_key = victim.substr(0, victim.find('@'));

  for (int repair = 0; repair < 2; repair++) {
    SCOPED_TRACE(repair == 0 ? "first RepairDB" : "second RepairDB");
    const Status s = RepairDB(dbname, Options());
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (repair == 0) {
      const std::string log = ReadAll(dbname + "/LOG");
      EXPECT_NE(log.find(victim_dir + "/" + victim), std::string::npos) << log;
    }
    DB* db = nullptr;
    ASSERT_OK(delsm::Open(Options(), tuning, dbname, &db));
    std::unique_ptr<DB> guard(db);
    bool lost_key_seen = false;
    for (int i = 0; i < delsm_test::kKvFileKeys; i++) {
      std::string v;
      const Status r = db->Get(ReadOptions(), delsm_test::Key(i), &v);
      if (delsm_test::Key(i) == lost_key) {
        lost_key_seen = true;
        EXPECT_TRUE(r.IsNotFound()) << lost_key << ": " << r.ToString();
        continue;
      }
      ASSERT_TRUE(r.ok()) << delsm_test::Key(i) << ": " << r.ToString();
      EXPECT_EQ(delsm_test::KvFileValue(i, 0), v) << delsm_test::Key(i);
    }
    EXPECT_TRUE(lost_key_seen) << lost_key;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, RepairLostKvFileTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& info) {
                           return info.param ? "ValuesStayPut" : "Default";
                         });

}  // namespace
}  // namespace leveldb
