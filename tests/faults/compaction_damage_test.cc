// Compactions over a damaged meta file (LevelDB's counterparts are
// CompactionInputError, CompactionInputErrorParanoid and UnrelatedKeys in its
// corruption_test).
//
// A compaction unlinks every KV file that no output meta file names, so an
// engine that misread (or skipped) a damaged input would destroy the values
// of keys the damage never touched. Each test builds a DB with several SSTs
// below L0, closes it, damages one SST's meta file (the "victim") in one
// way, reopens with or without paranoid_checks, writes across the whole key
// space and forces compactions over the victim (the writes' own, then
// CompactRange). What a user relies on:
//   * the damage is reported: Get of a key only the victim holds, a full
//     scan and the background error (which stops writes) say Corruption
//     naming the meta file, with or without paranoid_checks (README,
//     "Limits and promises");
//   * every acknowledged write outside the damage reads back, before and
//     after a reopen; so does every undamaged entry of the victim;
//   * nothing the engine could not read is destroyed: the damaged meta file
//     and every KV file it named are still there, and RepairDB gets every
//     value back from them.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/sst_dir_removal.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/iterator.h"
#include "table/meta_file.h"
#include "tests/file_bytes.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::FlipByte;
using delsm_test::ListDir;
using delsm_test::ReadWhole;
using delsm_test::TempDir;

constexpr int kKeys = 1500;    // written first, compacted below L0
constexpr int kNewKeys = 400;  // written after the damage, past kKeys
constexpr int kLevels = 7;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// Distinct per key and generation, 200..299 bytes: with an inline threshold
// of 250 about half the values are inline, half KV files.
std::string Value(int i, int gen) {
  std::string v(200 + (i * 7 + gen) % 100, static_cast<char>('a' + i % 26));
  std::snprintf(&v[0], v.size(), "%06d/%d", i, gen);
  v[8] = '.';
  return v;
}

int KeyIndex(const Slice& user_key) {
  return std::stoi(user_key.ToString().substr(3));
}

enum class Damage {
  kTruncated,    // the file cut to two thirds
  kIndexByte,    // a byte inside the index (format 4: its trailer)
  kGroupByte,    // a byte inside one group of entries (format 4)
  kFilterByte,   // a byte of the Bloom filter
  kFooterCrc,    // a byte of the footer's index checksum
  kInlineValue,  // a byte of one inline value (the index stays readable)
};

const char* DamageName(Damage d) {
  switch (d) {
    case Damage::kTruncated:
      return "Truncated";
    case Damage::kIndexByte:
      return "IndexByte";
    case Damage::kGroupByte:
      return "GroupByte";
    case Damage::kFilterByte:
      return "FilterByte";
    case Damage::kFooterCrc:
      return "FooterCrc";
    case Damage::kInlineValue:
      return "InlineValue";
  }
  return "?";
}

struct Param {
  Damage damage;
  bool paranoid;
};

class CompactionDamageTest : public testing::TestWithParam<Param> {
 protected:
  CompactionDamageTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    options_.compression = kNoCompression;
    options_.paranoid_checks = GetParam().paranoid;
    filter_.reset(NewBloomFilterPolicy(10));
    options_.filter_policy = filter_.get();
    tuning_.inline_threshold = 250;
    tuning_.l0_compaction_entries = 400;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
  }

  Status Open(DB** db) {
    *db = nullptr;
    return delsm::Open(options_, tuning_, dbname_, db);
  }

  // kKeys keys, compacted below L0. Closes the DB.
  void Fill() {
    DB* db;
    Status s = Open(&db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> owner(db);
    for (int i = 0; i < kKeys; i++) {
      s = db->Put(WriteOptions(), Key(i), Value(i, 0));
      ASSERT_TRUE(s.ok()) << s.ToString();
      model_[i] = Value(i, 0);
    }
    db->CompactRange(nullptr, nullptr);
    s = static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Picks the victim: in sorted order of levels, directories and names, the
  // first meta file below L0 with KV files and inline values and with keys
  // of the DB on both sides of its range (so "outside the damage" exists).
  void PickVictim() {
    for (int level = 1; level < kLevels && victim_.empty(); level++) {
      const std::string ldir = dbname_ + "/L" + std::to_string(level);
      for (const std::string& d : ListDir(ldir)) {
        for (const std::string& f : ListDir(ldir + "/" + d)) {
          if (f.rfind("META", 0) != 0 || !victim_.empty()) continue;
          const std::string path = ldir + "/" + d + "/" + f;
          std::string data;
          ASSERT_TRUE(ReadWhole(path, &data)) << path;
          MetaIndex index;  // points into data
          MetaIndexRange range;
          MetaTrailer trailer;
          ASSERT_NO_FATAL_FAILURE(
              DecodeWhole(data, path, &range, &trailer, &index));
          int in_files = 0, inline_entry = -1;
          for (size_t e = 0; e < index.entries.size(); e++) {
            if (StoredInFile(index.entries[e].storage)) in_files++;
            if (StoredInline(index.entries[e].storage) && inline_entry < 0) {
              inline_entry = static_cast<int>(e);
            }
          }
          const int first = KeyIndex(ExtractUserKey(index.smallest));
          const int last = KeyIndex(ExtractUserKey(index.largest));
          if (in_files == 0 || inline_entry < 0 || first == 0 ||
              last >= kKeys - 1 || trailer.groups.size() < 3) {
            continue;
          }
          victim_ = path;
          victim_dir_ = ldir + "/" + d;
          victim_data_ = data;
          victim_range_ = range;
          // Decoded again to point into victim_data_, which stays.
          ASSERT_NO_FATAL_FAILURE(DecodeWhole(
              victim_data_, path, &range, &victim_trailer_, &victim_index_));
          victim_inline_ = inline_entry;
          for (const MetaIndexEntry& e : victim_index_.entries) {
            victim_keys_.insert(KeyIndex(ExtractUserKey(e.internal_key)));
          }
          victim_kv_files_ = KvFileNamesOf(victim_index_);
        }
      }
    }
    ASSERT_FALSE(victim_.empty()) << "no SST below L0 fits";
    ASSERT_GT(victim_keys_.size(), 20u);
    ASSERT_FALSE(victim_kv_files_.empty());
  }

  // Decodes the whole index of the format-4 meta file `data` (of `path`),
  // pointing into `data`.
  static void DecodeWhole(const std::string& data, const std::string& path,
                          MetaIndexRange* range, MetaTrailer* trailer,
                          MetaIndex* index) {
    const size_t tail = std::min(data.size(), kMetaTailLength);
    Status s = DecodeMetaFooter(Slice(data.data() + data.size() - tail, tail),
                                data.size(), path, range);
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_EQ(range->version, 4u);
    s = DecodeMetaTrailer(Slice(data.data() + range->offset, range->size),
                          *range, path, trailer);
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = DecodeMetaGroups(Slice(data.data() + trailer->groups_offset,
                               range->offset - trailer->groups_offset),
                         *trailer, path, index);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Applies the test's damage to the victim; sets damaged_keys_.
  void DamageVictim() {
    const std::string& data = victim_data_;
    uint64_t at = 0;
    switch (GetParam().damage) {
      case Damage::kTruncated:
        ASSERT_EQ(0, truncate(victim_.c_str(), data.size() * 2 / 3));
        break;
      case Damage::kIndexByte:
        // Past the comparator name, in the trailer.
        at = victim_range_.offset + victim_range_.size / 3;
        break;
      case Damage::kGroupByte: {
        // The middle of the second group.
        const MetaGroup& g = victim_trailer_.groups[1];
        at = g.offset + g.size / 2;
        break;
      }
      case Damage::kFilterByte: {
        const Slice filter = victim_index_.filter;
        ASSERT_GT(filter.size(), 8u);
        const size_t pos =
            data.find(filter.data(), victim_range_.offset, filter.size());
        ASSERT_NE(std::string::npos, pos);
        at = pos + filter.size() / 2;
        break;
      }
      case Damage::kFooterCrc:
        at = data.size() - kMetaTailLength + 8;  // after the fixed64 offset
        break;
      case Damage::kInlineValue: {
        const MetaIndexEntry& e = victim_index_.entries[victim_inline_];
        ASSERT_GT(e.stored_size, 10u);
        at = e.inline_offset + e.stored_size / 2;
        break;
      }
    }
    if (GetParam().damage != Damage::kTruncated) {
      ASSERT_TRUE(FlipByte(victim_, at));
    }
    ASSERT_TRUE(ReadWhole(victim_, &damaged_data_));
    if (GetParam().damage == Damage::kInlineValue) {
      damaged_keys_.insert(KeyIndex(
          ExtractUserKey(victim_index_.entries[victim_inline_].internal_key)));
    } else if (GetParam().damage == Damage::kGroupByte) {
      // A lookup reads the group holding its key's first entry at or after
      // the target: the second group's keys, and the key of the third
      // group's first entry (searched for from the second group's end).
      // The other keys still read; a scan or compaction reads every group.
      for (size_t e = kMetaGroupEntries; e <= 2 * kMetaGroupEntries; e++) {
        damaged_keys_.insert(
            KeyIndex(ExtractUserKey(victim_index_.entries[e].internal_key)));
      }
    } else {
      damaged_keys_ = victim_keys_;  // the whole SST is unreadable
    }
  }

  bool Damaged(int i) const { return damaged_keys_.count(i) > 0; }

  // The victim's meta file as "<dir>.sst/META": a trivial move (which
  // reads no meta file) may rename its directory into another level.
  std::string VictimName() const {
    const size_t slash = victim_dir_.rfind('/');
    return victim_.substr(slash + 1);
  }

  // Where the victim's directory is now (empty if nowhere).
  std::string VictimDirNow() const {
    const std::string dir = VictimName().substr(0, VictimName().find('/'));
    for (int level = 0; level < kLevels; level++) {
      const std::string path =
          dbname_ + "/L" + std::to_string(level) + "/" + dir;
      struct stat st;
      if (stat(path.c_str(), &st) == 0) return path;
    }
    return std::string();
  }

  // The status names the victim's meta file.
  void ExpectNamesVictim(const Status& s) {
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(VictimName()))
        << s.ToString();
  }

  // Every key reads back as the model says, except damaged ones, which
  // report Corruption naming the victim (unless a newer write hides them).
  void CheckReads(DB* db) {
    for (const auto& kv : model_) {
      std::string v;
      Status s = db->Get(ReadOptions(), Key(kv.first), &v);
      if (Damaged(kv.first) && !overwritten_.count(kv.first)) {
        ExpectNamesVictim(s);
        continue;
      }
      if (uncertain_.count(kv.first) && s.ok() && v == uncertain_[kv.first]) {
        continue;
      }
      ASSERT_TRUE(s.ok()) << Key(kv.first) << ": " << s.ToString();
      ASSERT_EQ(kv.second, v) << Key(kv.first);
    }
    // A full scan reaches the victim and must not end silently.
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    int seen = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
    ExpectNamesVictim(it->status());
  }

  // Nothing the engine could not read is gone: the damaged meta file, as
  // damaged, and every KV file it names, in its directory.
  void CheckNothingDestroyed() {
    const std::string dir = VictimDirNow();
    ASSERT_FALSE(dir.empty()) << VictimName() << "'s directory was removed";
    const std::string meta = dir + "/" + victim_.substr(victim_dir_.size() + 1);
    std::string now;
    ASSERT_TRUE(ReadWhole(meta, &now)) << meta << " was removed";
    EXPECT_TRUE(now == damaged_data_) << meta << " changed";
    std::set<std::string> present;
    for (const std::string& f : ListDir(dir)) present.insert(f);
    int missing = 0;
    for (const std::string& name : victim_kv_files_) {
      if (!present.count(name)) {
        if (++missing <= 5) ADD_FAILURE() << "unlinked: " << name;
      }
    }
    EXPECT_EQ(0, missing) << "of " << victim_kv_files_.size()
                          << " KV files of the damaged SST";
  }

  TempDir tmp_{"delsm_compaction_damage"};
  const std::string dbname_;
  Options options_;
  std::unique_ptr<const FilterPolicy> filter_;
  delsm::Tuning tuning_;

  std::map<int, std::string> model_;      // acknowledged values
  std::set<int> overwritten_;             // rewritten after the damage
  std::map<int, std::string> uncertain_;  // a failed write may have applied

  std::string victim_, victim_dir_, victim_data_, damaged_data_;
  MetaIndexRange victim_range_;
  MetaTrailer victim_trailer_;  // points into victim_data_
  MetaIndex victim_index_;      // points into victim_data_
  int victim_inline_ = -1;
  std::set<int> victim_keys_, damaged_keys_;
  std::vector<std::string> victim_kv_files_;
};

TEST_P(CompactionDamageTest, ReportedAndNothingLost) {
  Fill();
  PickVictim();
  DamageVictim();
  const std::string meta_rel = victim_.substr(dbname_.size() + 1);
  std::printf("victim %s: keys %d..%d, %s\n", meta_rel.c_str(),
              *victim_keys_.begin(), *victim_keys_.rbegin(),
              DamageName(GetParam().damage));

  DB* db;
  Status s = Open(&db);
  if (!s.ok()) {
    // Refusing to open is a report too, if it names the damage.
    ExpectNamesVictim(s);
  } else {
    std::unique_ptr<DB> owner(db);
    DBImpl* impl = static_cast<DBImpl*>(db);
    // UnrelatedKeys: a key outside the damage is written, read, flushed and
    // read again.
    s = db->Put(WriteOptions(), Key(kKeys), Value(kKeys, 1));
    ASSERT_TRUE(s.ok()) << s.ToString();
    model_[kKeys] = Value(kKeys, 1);
    std::string v;
    ASSERT_TRUE(db->Get(ReadOptions(), Key(kKeys), &v).ok());
    ASSERT_EQ(Value(kKeys, 1), v);
    s = impl->TEST_FlushMemTable();
    ASSERT_TRUE(s.ok()) << s.ToString();
    ASSERT_TRUE(db->Get(ReadOptions(), Key(kKeys), &v).ok());
    ASSERT_EQ(Value(kKeys, 1), v);

    // Writes across the key space, a victim key among them (so compactions
    // take the victim as input), then one more compaction of everything.
    // Writes may start failing once a compaction met the damage. The victim
    // key written is one outside the damage where there is one: a newer
    // version of the damaged key would leave its damaged version shadowed,
    // and a compaction drops a shadowed version without reading its value.
    std::vector<int> writes;
    int victim_written = *victim_keys_.begin();
    for (int k : victim_keys_) {
      if (!Damaged(k)) {
        victim_written = k;
        break;
      }
    }
    for (int i = 0; i < kKeys; i += 5) {
      if (!Damaged(i) && i != victim_written) writes.push_back(i);
    }
    writes.push_back(victim_written);
    for (int i = kKeys + 1; i < kKeys + kNewKeys; i++) writes.push_back(i);
    int failed_at = -1;
    for (int round = 1; round <= 3 && failed_at < 0; round++) {
      for (int i : writes) {
        s = db->Put(WriteOptions(), Key(i), Value(i, round));
        if (!s.ok()) {
          failed_at = i;
          uncertain_[i] = Value(i, round);
          break;
        }
        model_[i] = Value(i, round);
        overwritten_.insert(i);
      }
    }
    db->CompactRange(nullptr, nullptr);
    s = impl->TEST_WaitForBackgroundWork();
    // The compaction met the damage: a background error naming it, and
    // writes stop, with or without paranoid_checks.
    ExpectNamesVictim(s);
    s = db->Put(WriteOptions(), Key(kKeys + kNewKeys), "after the error");
    EXPECT_FALSE(s.ok()) << "a write succeeded after the compaction failed";
    uncertain_[kKeys + kNewKeys] = "after the error";
    CheckReads(db);
  }
  // Reopened, the same reads (the writes' memtable is replayed).
  s = Open(&db);
  if (!s.ok()) {
    ExpectNamesVictim(s);
  } else {
    std::unique_ptr<DB> owner(db);
    CheckReads(db);
  }
  CheckNothingDestroyed();

  // RepairDB salvages every KV file; only what lived inside the damaged
  // bytes (inline values of an unreadable meta file, the damaged inline
  // value) may be gone.
  s = RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  s = Open(&db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> owner(db);
  std::set<int> in_kv_files;
  for (const MetaIndexEntry& e : victim_index_.entries) {
    if (StoredInFile(e.storage)) {
      in_kv_files.insert(KeyIndex(ExtractUserKey(e.internal_key)));
    }
  }
  int lost = 0;
  for (const auto& kv : model_) {
    std::string v;
    s = db->Get(ReadOptions(), Key(kv.first), &v);
    if (uncertain_.count(kv.first) && s.ok() && v == uncertain_[kv.first]) {
      continue;
    }
    const bool may_be_lost =
        !overwritten_.count(kv.first) && victim_keys_.count(kv.first) &&
        !in_kv_files.count(kv.first) &&
        (Damaged(kv.first) || GetParam().damage != Damage::kInlineValue);
    if (may_be_lost && s.IsNotFound()) {
      lost++;
      continue;
    }
    ASSERT_TRUE(s.ok()) << "after RepairDB, " << Key(kv.first) << ": "
                        << s.ToString();
    ASSERT_EQ(kv.second, v) << "after RepairDB, " << Key(kv.first);
  }
  std::printf("after RepairDB: %d inline values of the damaged bytes lost\n",
              lost);
}

std::vector<Param> AllParams() {
  std::vector<Param> params;
  for (Damage d :
       {Damage::kTruncated, Damage::kIndexByte, Damage::kGroupByte,
        Damage::kFilterByte, Damage::kFooterCrc, Damage::kInlineValue}) {
    for (bool paranoid : {false, true}) params.push_back({d, paranoid});
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Damages, CompactionDamageTest,
                         testing::ValuesIn(AllParams()),
                         [](const testing::TestParamInfo<Param>& info) {
                           return std::string(DamageName(info.param.damage)) +
                                  (info.param.paranoid ? "Paranoid" : "");
                         });

}  // namespace
}  // namespace leveldb
