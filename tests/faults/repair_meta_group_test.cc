// RepairDB on a database one of whose meta files (format 4) has one damaged
// part: a group of entries, or the trailer. LevelDB's RepairDB, given a
// table with one damaged block, keeps every record of the other blocks and
// loses that block's. So does DeLSM's here: every entry of every intact
// group comes back (inline values and tombstones, which live nowhere but
// in the meta file), only the damaged group's are lost, and with the
// trailer damaged nothing is. Where LevelDB then lets a deeper, older
// version answer for a key whose newer version or deletion marker was in
// the lost block, DeLSM withholds that older version (db/repairer.h,
// Repairer::Withheld, says the rule) and keeps it in lost/.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "table/meta_file.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/leveldb_table_layout.h"
#include "tests/test_support.h"
#include "util/coding.h"

namespace leveldb {
namespace {
using delsm_test::FlipByte;
using delsm_test::LevelDbBlockUserKeys;
using delsm_test::LevelDbDataBlocks;
using delsm_test::ListDir;
using delsm_test::ReadWholeFile;
using delsm_test::TempDir;

constexpr int kKeys = 240;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}
std::string OldValue(int i) { return "old-" + Key(i) + std::string(60, 'o'); }
std::string NewValue(int i) { return "new-" + Key(i) + std::string(60, 'n'); }

// What the second round did to key i: deleted it (a tombstone in the
// flushed SST; rewritten instead when `rewrites_only`), wrote a new value
// (an entry in it), or left it alone (its old value, below, is the only
// one).
enum class Fate { kDeleted, kRewritten, kUntouched };
Fate FateOf(int i, bool rewrites_only = false) {
  switch (i % 3) {
    case 0:
      return rewrites_only ? Fate::kRewritten : Fate::kDeleted;
    case 1:
      return Fate::kRewritten;
    default:
      return Fate::kUntouched;
  }
}

// The part damaged: a group, the trailer, or one inline value (of a
// rewritten key in the middle group, whose records stay intact).
enum class Damage {
  kFirstGroup,
  kMiddleGroup,
  kLastGroup,
  kTrailer,
  kInlineValue
};

struct Case {
  Damage damage;
  bool inline_values;          // else every value is a KV file
  bool rewrites_only = false;  // no key deleted (FateOf)
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << "damage " << static_cast<int>(c.damage)
      << (c.inline_values ? ", inline" : ", KV files")
      << (c.rewrites_only ? ", rewrites only" : "");
}

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  static const char* const kDamage[] = {"FirstGroup", "MiddleGroup",
                                        "LastGroup", "Trailer", "InlineValue"};
  return std::string(kDamage[static_cast<int>(info.param.damage)]) +
         (info.param.inline_values ? "Inline" : "KvFiles") +
         (info.param.rewrites_only ? "RewritesOnly" : "");
}

class RepairMetaGroupTest : public testing::TestWithParam<Case> {
 protected:
  RepairMetaGroupTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.compression = kNoCompression;
    tuning_.inline_threshold = GetParam().inline_values ? 2048 : 0;
    // The flushed SST stays in L0, above the compacted old values.
    tuning_.l0_compaction_entries = 1000000;
    tuning_.l0_compaction_dirs = 8;
  }

  Fate Of(int i) const { return FateOf(i, GetParam().rewrites_only); }

  // Every key gets its old value, compacted below L0; then every third
  // key is deleted and every third rewritten, and that is flushed into
  // one L0 SST: its meta file holds the new values (inline, or naming KV
  // files) and the tombstones, in groups of 16.
  void Fill() {
    DB* db;
    ASSERT_OK(delsm::Open(options_, tuning_, dbname_, &db));
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), OldValue(i)));
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < kKeys; i++) {
      if (Of(i) == Fate::kDeleted) {
        ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      } else if (Of(i) == Fate::kRewritten) {
        ASSERT_OK(db->Put(WriteOptions(), Key(i), NewValue(i)));
      }
    }
    ASSERT_OK(reinterpret_cast<DBImpl*>(db)->TEST_FlushMemTable());
    delete db;
  }

  // Finds the flushed SST's meta file in L0, records which keys each of
  // its groups holds, and damages the part the case names.
  void Damage() {
    for (const std::string& d : ListDir(dbname_ + "/L0")) {
      for (const std::string& n : ListDir(dbname_ + "/L0/" + d)) {
        if (n.rfind("META", 0) == 0) {
          ASSERT_TRUE(victim_.empty()) << "more than one SST in L0";
          victim_ = dbname_ + "/L0/" + d + "/" + n;
        }
      }
    }
    ASSERT_FALSE(victim_.empty());
    const std::string data = ReadWholeFile(victim_);
    MetaIndexRange range;
    ASSERT_OK(DecodeMetaFooter(data, data.size(), victim_, &range));
    ASSERT_EQ(4u, range.version);
    MetaTrailer trailer;
    ASSERT_OK(DecodeMetaTrailer(Slice(data.data() + range.offset, range.size),
                                range, victim_, &trailer));
    ASSERT_GE(trailer.groups.size(), 3u);
    MetaFileContents contents;
    ASSERT_OK(DecodeMetaFile(data, victim_, &contents));
    size_t tombstones = 0, inline_values = 0;
    for (size_t i = 0; i < contents.entries.size(); i++) {
      const MetaEntry& e = contents.entries[i];
      group_of_[ExtractUserKey(e.internal_key).ToString()] =
          static_cast<int>(i / kMetaGroupEntries);
      if (e.storage == ValueStorage::kNone) tombstones++;
      if (StoredInline(e.storage)) inline_values++;
    }
    ASSERT_EQ(static_cast<size_t>(kKeys * 2 / 3), contents.entries.size());
    ASSERT_EQ(0u, contents.entries.size() % kMetaGroupEntries);
    ASSERT_EQ(GetParam().rewrites_only, tombstones == 0);
    if (GetParam().inline_values) {
      ASSERT_EQ(contents.entries.size(), tombstones + inline_values);
    } else {
      ASSERT_EQ(0u, inline_values);
    }
    uint64_t offset;
    switch (GetParam().damage) {
      case Damage::kFirstGroup:
        damaged_group_ = 0;
        break;
      case Damage::kMiddleGroup:
        damaged_group_ = static_cast<int>(trailer.groups.size() / 2);
        break;
      case Damage::kLastGroup:
        damaged_group_ = static_cast<int>(trailer.groups.size() - 1);
        break;
      case Damage::kTrailer:
        damaged_group_ = -1;
        break;
      case Damage::kInlineValue:
        damaged_group_ = -1;
        break;
    }
    if (GetParam().damage == Damage::kInlineValue) {
      // The middle group's first rewritten key: its value's bytes.
      const size_t g = trailer.groups.size() / 2;
      const MetaGroup& m = trailer.groups[g];
      MetaIndexEntry entries[kMetaGroupEntries];
      ASSERT_OK(DecodeMetaGroup(Slice(data.data() + m.offset, m.size), trailer,
                                g, victim_, entries));
      for (size_t i = 0; i < trailer.EntriesIn(g); i++) {
        if (StoredInline(entries[i].storage) && entries[i].stored_size > 0) {
          damaged_key_ = ExtractUserKey(entries[i].internal_key).ToString();
          offset = entries[i].inline_offset + entries[i].stored_size / 2;
          break;
        }
      }
      ASSERT_FALSE(damaged_key_.empty());
    } else if (damaged_group_ >= 0) {
      const MetaGroup& g = trailer.groups[damaged_group_];
      offset = g.offset + g.size / 2;
    } else {
      offset = range.offset + range.size / 2;  // in the filter
    }
    ASSERT_TRUE(FlipByte(victim_, offset));
    damaged_bytes_ = ReadWholeFile(victim_);
    // The damage is there: a reader that needs every entry fails (a value
    // is checked when read).
    if (GetParam().damage != Damage::kInlineValue) {
      ASSERT_FALSE(DecodeMetaFile(damaged_bytes_, victim_, &contents).ok());
    }
  }

  // Whether key i's entry was damaged: in the damaged group, or the
  // damaged inline value's.
  bool InDamagedGroup(int i) const {
    if (Key(i) == damaged_key_) return true;
    auto it = group_of_.find(Key(i));
    return it != group_of_.end() && it->second == damaged_group_;
  }

  TempDir tmp_;
  const std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
  std::string victim_;
  std::string damaged_bytes_;
  std::map<std::string, int> group_of_;  // user key -> group in the victim
  int damaged_group_ = -1;               // -1: the trailer or a value
  std::string damaged_key_;  // the user key whose inline value is damaged
};

TEST_P(RepairMetaGroupTest, IntactGroupsAreTakenBackAndOldValuesStayHidden) {
  Fill();
  Damage();
  ASSERT_OK(RepairDB(dbname_, options_));
  // Before an Open renames it LOG.old.
  const std::string log = ReadWholeFile(dbname_ + "/LOG");

  DB* db;
  Options reopen = options_;
  reopen.create_if_missing = false;
  ASSERT_OK(delsm::Open(reopen, tuning_, dbname_, &db));
  std::set<int> missing;
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    ASSERT_TRUE(s.ok() || s.IsNotFound()) << Key(i) << ": " << s.ToString();
    // Never the old value of a key the SST deleted or rewrote, whichever
    // part of it was damaged.
    if (Of(i) != Fate::kUntouched && s.ok()) {
      EXPECT_NE(OldValue(i), v) << Key(i) << " came back from below";
    }
    if (InDamagedGroup(i)) {
      // Its entry is lost: a tombstone leaves the key deleted; a new
      // value in a KV file is taken back by its name; an inline one is
      // lost, and the old value below stays hidden.
      if (Of(i) == Fate::kRewritten && !GetParam().inline_values) {
        EXPECT_TRUE(s.ok() && v == NewValue(i)) << Key(i) << ": " << v;
      } else {
        EXPECT_TRUE(s.IsNotFound()) << Key(i) << ": " << v;
      }
      continue;
    }
    switch (Of(i)) {
      case Fate::kDeleted:
        EXPECT_TRUE(s.IsNotFound()) << Key(i) << " deleted, reads " << v;
        break;
      case Fate::kRewritten:
        EXPECT_TRUE(s.ok() && v == NewValue(i)) << Key(i) << ": " << v;
        break;
      case Fate::kUntouched:
        // Not in the SST; one in the damaged group's key range may be
        // withheld if the SST's filter cannot rule it out (then the LOG
        // names it), never served another value.
        if (s.IsNotFound()) {
          missing.insert(i);
        } else {
          EXPECT_EQ(OldValue(i), v) << Key(i);
        }
        break;
    }
  }
  delete db;

  for (int i : missing) {
    EXPECT_NE(log.find("withheld " + Key(i)), std::string::npos)
        << Key(i) << " is missing and the LOG does not say why\n"
        << log;
  }
  // Of the untouched keys, only a few (the filter's false positives in
  // the damaged group's range) may be withheld.
  EXPECT_LE(missing.size(), 2u);
  if (damaged_group_ >= 0) {
    EXPECT_NE(log.find(victim_ + ": group " + std::to_string(damaged_group_) +
                       " lost (16 entries"),
              std::string::npos)
        << log;
    // Every group holds 16 entries: the count of what is lost and of what
    // is taken back, as LevelDB's RepairDB counts a table's records.
    const size_t entries = group_of_.size();
    EXPECT_NE(log.find(victim_ + ": " + std::to_string(entries - 16) +
                       " entries taken back from its intact groups, 16 lost"),
              std::string::npos)
        << log;
    // A lost group of KV files only (their files taken back by their
    // names) held no tombstone: nothing below it is withheld.
    if (GetParam().rewrites_only && !GetParam().inline_values) {
      EXPECT_TRUE(missing.empty());
      EXPECT_NE(log.find(", 0 older versions withheld"), std::string::npos)
          << log;
    }
  } else if (!damaged_key_.empty()) {
    EXPECT_NE(log.find(victim_.substr(0, victim_.rfind('/')) +
                       ": the inline value of user key " + damaged_key_ +
                       " damaged; its entry lost"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("withheld " + damaged_key_), std::string::npos) << log;
  } else {
    EXPECT_TRUE(missing.empty());
    EXPECT_NE(log.find(victim_ + ": every entry taken back from its groups"),
              std::string::npos)
        << log;
  }

  // The damaged meta file is kept in lost/ as it was, not deleted.
  const std::string lost_meta =
      dbname_ + "/lost/L0-" +
      victim_.substr(dbname_.size() + 4,
                     victim_.rfind('/') - (dbname_.size() + 4)) +
      victim_.substr(victim_.rfind('/'));
  EXPECT_EQ(damaged_bytes_, ReadWholeFile(lost_meta)) << lost_meta;

  // So is every old value withheld: in a KV file, or inline in a meta
  // file, set aside whole.
  if ((damaged_group_ >= 0 || !damaged_key_.empty()) &&
      !(GetParam().rewrites_only && !GetParam().inline_values)) {
    std::set<std::string> held;
    std::vector<std::string> stack = {dbname_ + "/lost"};
    while (!stack.empty()) {
      const std::string dir = stack.back();
      stack.pop_back();
      for (const std::string& n : ListDir(dir)) {
        const std::string path = dir + "/" + n;
        const std::vector<std::string> below = ListDir(path);
        if (!below.empty()) {
          stack.push_back(path);
        } else if (n.rfind("META", 0) == 0) {
          MetaFileContents c;
          if (!DecodeMetaFile(ReadWholeFile(path), path, &c).ok()) continue;
          for (const MetaEntry& e : c.entries) {
            if (StoredInline(e.storage)) held.insert(e.inline_value);
          }
        } else {
          held.insert(ReadWholeFile(path));
        }
      }
    }
    for (int i = 0; i < kKeys; i++) {
      if (!InDamagedGroup(i) && missing.count(i) == 0) continue;
      EXPECT_EQ(1u, held.count(OldValue(i)))
          << "the old value of " << Key(i) << " is not in lost/";
    }
  }
}

// The reads of every key of `dbname`: the value, or "" for NotFound.
std::map<std::string, std::string> ReadAll(const Options& options,
                                           const delsm::Tuning& tuning,
                                           const std::string& dbname) {
  std::map<std::string, std::string> reads;
  DB* db;
  Options reopen = options;
  reopen.create_if_missing = false;
  Status s = delsm::Open(reopen, tuning, dbname, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return reads;
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    EXPECT_TRUE(s.ok() || s.IsNotFound()) << Key(i) << ": " << s.ToString();
    reads[Key(i)] = s.ok() ? v : "";
  }
  delete db;
  return reads;
}

// A second RepairDB keeps what the first kept, and takes nothing back
// from lost/: every key reads as it did.
TEST_P(RepairMetaGroupTest, SecondRepairReadsAsTheFirstLeft) {
  Fill();
  Damage();
  ASSERT_OK(RepairDB(dbname_, options_));
  const std::map<std::string, std::string> first =
      ReadAll(options_, tuning_, dbname_);
  ASSERT_OK(RepairDB(dbname_, options_));
  const std::map<std::string, std::string> second =
      ReadAll(options_, tuning_, dbname_);
  for (int i = 0; i < kKeys; i++) {
    EXPECT_EQ(first.at(Key(i)), second.at(Key(i))) << Key(i);
    if (Of(i) != Fate::kUntouched) {
      EXPECT_NE(OldValue(i), second.at(Key(i))) << Key(i) << " came back";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Parts, RepairMetaGroupTest,
    testing::Values(
        Case{Damage::kFirstGroup, true}, Case{Damage::kMiddleGroup, true},
        Case{Damage::kLastGroup, true}, Case{Damage::kTrailer, true},
        Case{Damage::kInlineValue, true}, Case{Damage::kFirstGroup, false},
        Case{Damage::kMiddleGroup, false}, Case{Damage::kLastGroup, false},
        Case{Damage::kTrailer, false}, Case{Damage::kMiddleGroup, false, true}),
    CaseName);

// The pair tests' keys: Key(0) .. Key(kPairKeys - 1), Key(kGone) deleted.
constexpr int kPairKeys = 64;
constexpr int kGone = 5;  // in the first group

// After the pair tests' RepairDB: Key(kGone) stays deleted and every other
// key reads its new value (each a KV file, taken back by its name).
void ExpectOnlyKGoneDeleted(const std::string& dbname, const Options& options,
                            const delsm::Tuning& tuning) {
  DB* db;
  Options reopen = options;
  reopen.create_if_missing = false;
  ASSERT_OK(delsm::Open(reopen, tuning, dbname, &db));
  std::string v;
  Status s = db->Get(ReadOptions(), Key(kGone), &v);
  EXPECT_TRUE(s.IsNotFound()) << Key(kGone) << " deleted, reads " << v;
  for (int i = 0; i < kPairKeys; i++) {
    if (i == kGone) continue;
    s = db->Get(ReadOptions(), Key(i), &v);
    EXPECT_TRUE(s.ok() && v == NewValue(i)) << Key(i) << ": " << v;
  }
  delete db;
}

// Two adjacent groups of a meta file lost, the first of them holding one
// tombstone among values in KV files. Its range reaches the second's first
// key, whose KV file no intact entry names either: counting the KV files
// of the directory in that range must not take the tombstone for one more
// value in a KV file, or the old value below the deleted key is served.
TEST(RepairMetaGroupPairTest, AdjacentLostGroupsKeepADeletedKeyDeleted) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options;
  options.create_if_missing = true;
  options.compression = kNoCompression;
  delsm::Tuning tuning;
  tuning.inline_threshold = 0;  // every value a KV file
  tuning.l0_compaction_entries = 1000000;
  tuning.l0_compaction_dirs = 8;
  {
    DB* db;
    ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
    for (int i = 0; i < kPairKeys; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), OldValue(i)));
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < kPairKeys; i++) {
      if (i == kGone) {
        ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      } else {
        ASSERT_OK(db->Put(WriteOptions(), Key(i), NewValue(i)));
      }
    }
    ASSERT_OK(reinterpret_cast<DBImpl*>(db)->TEST_FlushMemTable());
    delete db;
  }
  std::string victim;
  for (const std::string& d : ListDir(dbname + "/L0")) {
    for (const std::string& n : ListDir(dbname + "/L0/" + d)) {
      if (n.rfind("META", 0) == 0) victim = dbname + "/L0/" + d + "/" + n;
    }
  }
  ASSERT_FALSE(victim.empty());
  const std::string data = ReadWholeFile(victim);
  MetaIndexRange range;
  ASSERT_OK(DecodeMetaFooter(data, data.size(), victim, &range));
  ASSERT_EQ(4u, range.version);
  MetaTrailer trailer;
  ASSERT_OK(DecodeMetaTrailer(Slice(data.data() + range.offset, range.size),
                              range, victim, &trailer));
  ASSERT_GE(trailer.groups.size(), 3u);
  for (int g = 0; g < 2; g++) {
    const MetaGroup& m = trailer.groups[g];
    ASSERT_TRUE(FlipByte(victim, m.offset + m.size / 2));
  }
  ASSERT_OK(RepairDB(dbname, options));

  ASSERT_NO_FATAL_FAILURE(ExpectOnlyKGoneDeleted(dbname, options, tuning));
}

// A lost group of an L1 SST whose directory still holds the KV files of
// the SST it replaced (the compaction committed; their unlinks failed, as
// a crash before them leaves them): one tombstone among values in KV
// files, the deleted key's oldest value in L2. The replaced SST's files in
// the group's range are not the lost entries' values; counted as such
// they would stand in for the tombstone, and the L2 value would be served.
TEST(RepairMetaGroupPairTest, ReplacedSstFilesDoNotStandInForATombstone) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/db";
  Options options;
  options.create_if_missing = true;
  options.compression = kNoCompression;
  delsm::Tuning tuning = delsm_test::ManualCompactionOnly();
  tuning.inline_threshold = 0;  // every value a KV file
  tuning.l1_entries = 1 << 30;
  const auto mid = [](int i) { return "mid-" + Key(i) + std::string(60, 'm'); };
  {
    DB* db;
    ASSERT_OK(delsm::Open(options, tuning, dbname, &db));
    DBImpl* impl = reinterpret_cast<DBImpl*>(db);
    for (int i = 0; i < kPairKeys; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), OldValue(i)));
    }
    ASSERT_OK(impl->TEST_FlushMemTable());
    ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));
    ASSERT_OK(impl->TEST_CompactRange(1, nullptr, nullptr));  // to L2
    for (int i = 0; i < kPairKeys; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), mid(i)));
    }
    ASSERT_OK(impl->TEST_FlushMemTable());
    ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));  // to L1
    delete db;
  }
  ASSERT_EQ(1u, ListDir(dbname + "/L1").size());
  ASSERT_EQ(1u, ListDir(dbname + "/L2").size());
  const std::string l1 = dbname + "/L1/" + ListDir(dbname + "/L1")[0];
  {
    FaultInjectionFileSystem fs(FileSystem::Default());
    DB* db;
    Options reopen = options;
    reopen.create_if_missing = false;
    ASSERT_OK(OpenWithFileSystem(reopen, tuning, dbname, &fs, &db));
    DBImpl* impl = reinterpret_cast<DBImpl*>(db);
    for (int i = 0; i < kPairKeys; i++) {
      if (i == kGone) {
        ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      } else {
        ASSERT_OK(db->Put(WriteOptions(), Key(i), NewValue(i)));
      }
    }
    ASSERT_OK(impl->TEST_FlushMemTable());
    FaultSpec spec;
    spec.sticky = true;
    spec.path_contains = l1;
    fs.ArmKinds(FaultInjectionFileSystem::Bit(FsOp::kUnlink), spec);
    ASSERT_OK(impl->TEST_CompactRange(0, nullptr, nullptr));  // into L1
    delete db;
    ASSERT_TRUE(fs.Fired()) << "nothing of the replaced SST was left";
  }
  std::string victim;
  for (const std::string& n : ListDir(l1)) {
    if (n.rfind("META-", 0) == 0) {
      ASSERT_TRUE(victim.empty()) << "more than one META-<n> in " << l1;
      victim = l1 + "/" + n;
    }
  }
  ASSERT_FALSE(victim.empty()) << "the compaction wrote no META-<n>";
  const std::string data = ReadWholeFile(victim);
  MetaIndexRange range;
  ASSERT_OK(DecodeMetaFooter(data, data.size(), victim, &range));
  ASSERT_EQ(4u, range.version);
  MetaTrailer trailer;
  ASSERT_OK(DecodeMetaTrailer(Slice(data.data() + range.offset, range.size),
                              range, victim, &trailer));
  ASSERT_GE(trailer.groups.size(), 2u);
  const MetaGroup& m = trailer.groups[0];
  ASSERT_TRUE(FlipByte(victim, m.offset + m.size / 2));
  ASSERT_OK(RepairDB(dbname, options));

  ASSERT_NO_FATAL_FAILURE(ExpectOnlyKGoneDeleted(dbname, options, tuning));
}

// What DeLSM's rule departs from. The same database in Debian's LevelDB:
// old values compacted, then deletes and rewrites in a table above them;
// one data block of that table damaged (a byte flipped); LevelDB's
// RepairDB with paranoid_checks (without them it reads blocks unchecked,
// and the damaged byte is taken as data). It keeps every record of the
// other blocks and loses the damaged block's; then the older version
// below answers for each of that block's keys: a deleted key is back, a
// rewritten one reads its old value. DeLSM keeps the intact groups the
// same way (RepairMetaGroupTest above) but never serves those old values.
TEST(LevelDbRepairOfADamagedBlockTest, LosesTheBlockAndOlderVersionsAnswer) {
  TempDir tmp;
  const std::string dbname = tmp.path() + "/leveldb";
  const std::vector<std::string> flags = {"--compression=none",
                                          "--block_size=1024"};
  std::string commands = "fill 0 " + std::to_string(kKeys) + " 60\nflush\n";
  for (int i = 0; i < kKeys; i++) {
    const std::string key = delsm_test::OracleFillKey(i);
    if (FateOf(i) == Fate::kDeleted) {
      commands += "delete " + delsm_test::OracleHex(key) + "\n";
    } else if (FateOf(i) == Fate::kRewritten) {
      commands += "put " + delsm_test::OracleHex(key) + " " +
                  delsm_test::OracleHex(NewValue(i)) + "\n";
    }
  }
  commands += "reopen\n";  // the WAL becomes a table in L0
  std::vector<std::string> args = {"create", dbname};
  args.insert(args.end(), flags.begin(), flags.end());
  delsm_test::OracleRun run =
      delsm_test::RunOracle(args, commands, tmp.path() + "/create");
  ASSERT_TRUE(run.ok) << run.err;

  // The newest table holds the deletes and rewrites.
  std::string newest;
  for (const std::string& n : ListDir(dbname)) {
    if (n.size() > 4 && n.substr(n.size() - 4) == ".ldb" && n > newest) {
      newest = n;
    }
  }
  ASSERT_FALSE(newest.empty());
  const std::string table = dbname + "/" + newest;
  const std::string data = ReadWholeFile(table);
  const auto blocks = LevelDbDataBlocks(data);
  ASSERT_GE(blocks.size(), 3u);
  const auto& middle = blocks[blocks.size() / 2];
  std::set<std::string> damaged;
  for (const std::string& k :
       LevelDbBlockUserKeys(Slice(data.data() + middle.first, middle.second))) {
    damaged.insert(k);
  }
  ASSERT_FALSE(damaged.empty());
  ASSERT_TRUE(FlipByte(table, middle.first + middle.second / 2));

  args = {"repair", dbname, "--paranoid_checks"};
  args.insert(args.end(), flags.begin(), flags.end());
  run = delsm_test::RunOracle(args, "", tmp.path() + "/repair");
  ASSERT_TRUE(run.ok) << run.err;
  args = {"dump", dbname};
  args.insert(args.end(), flags.begin(), flags.end());
  run = delsm_test::RunOracle(args, "", tmp.path() + "/dump");
  ASSERT_TRUE(run.ok) << run.err;
  std::map<std::string, std::string> contents;
  ASSERT_TRUE(delsm_test::ParseOracleDump(run.out, &contents));

  int back = 0;
  for (int i = 0; i < kKeys; i++) {
    const std::string key = delsm_test::OracleFillKey(i);
    const std::string old_value = delsm_test::OracleFillValue(i, 60);
    auto it = contents.find(key);
    if (damaged.count(key) > 0 && FateOf(i) != Fate::kUntouched) {
      // The lost record's key reads its older version.
      ASSERT_TRUE(it != contents.end()) << key;
      EXPECT_EQ(old_value, it->second) << key;
      back++;
      continue;
    }
    switch (FateOf(i)) {
      case Fate::kDeleted:
        EXPECT_TRUE(it == contents.end()) << key << " deleted, is back";
        break;
      case Fate::kRewritten:
        ASSERT_TRUE(it != contents.end()) << key;
        EXPECT_EQ(NewValue(i), it->second) << key;
        break;
      case Fate::kUntouched:
        ASSERT_TRUE(it != contents.end()) << key;
        EXPECT_EQ(old_value, it->second) << key;
        break;
    }
  }
  EXPECT_GT(back, 0);
}

}  // namespace
}  // namespace leveldb
