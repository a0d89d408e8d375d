// DentryCompaction on its own, through its hooks: what it keeps and drops,
// that values move by hard link (same inode, no byte copied), where entries
// go when the output level has targets, where outputs are cut, and that a
// failed compaction leaves the directories as they were.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/dentry_compaction.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "table/home_dirs.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

// The smallest snapshot when no reader holds one: the last sequence used
// (every write in these tests is below it).
constexpr SequenceNumber kLastSequence = 1000;

struct Write {
  std::string user_key;
  SequenceNumber sequence;
  ValueType type;
  std::string value;
};

Write Put(const std::string& k, SequenceNumber s, const std::string& v) {
  return {k, s, kTypeValue, v};
}
Write Del(const std::string& k, SequenceNumber s) {
  return {k, s, kTypeDeletion, ""};
}

// What a reader of the outputs sees, in internal-key order.
struct Seen {
  std::string user_key;
  SequenceNumber sequence;
  ValueType type;
  std::string value;
  bool operator==(const Seen& o) const {
    return user_key == o.user_key && sequence == o.sequence && type == o.type &&
           value == o.value;
  }
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << s.user_key << "@" << s.sequence
            << (s.type == kTypeDeletion ? " del" : " = " + s.value);
}

class DentryCompactionUnitTest : public testing::Test {
 protected:
  DentryCompactionUnitTest()
      : icmp_(BytewiseComparator()), bloom_(NewBloomFilterPolicy(10)) {
    root_ = delsm_test::MakeTestDir("delsm_dentry_compaction_test");
    EXPECT_FALSE(root_.empty());
    options_.comparator = &icmp_;
    options_.filter_policy = bloom_.get();
    options_.fs = FileSystem::Default();
    options_.compression = kNoCompression;
    homes_.reset(new HomeDirs(options_.fs, root_ + "/values"));
    options_.homes = homes_.get();
    EXPECT_TRUE(options_.fs->CreateDir(root_ + "/values", false).ok());
  }
  ~DentryCompactionUnitTest() override {
    inputs_.clear();
    if (!root_.empty()) {
      std::string cmd = "rm -rf '" + root_ + "'";
      EXPECT_EQ(system(cmd.c_str()), 0);
    }
  }

  std::string DirPath(uint64_t number) {
    return root_ + "/" + std::to_string(number);
  }

  // Builds the SST directory `number` from writes given in any order, opens
  // it and adds it to inputs_.
  // With a `home`, its values stay put in that home (values_stay_put).
  SstDir* Input(uint64_t number, std::vector<Write> writes, uint64_t home = 0) {
    std::sort(writes.begin(), writes.end(),
              [this](const Write& a, const Write& b) {
                return icmp_.Compare(Key(a), Key(b)) < 0;
              });
    SstDirBuilder b(options_, DirPath(number));
    if (home != 0) b.SetHome(home);
    EXPECT_TRUE(b.Begin().ok());
    for (const Write& w : writes) {
      Status s = b.Add(Key(w), w.value);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    Status s = b.Finish();
    EXPECT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<SstDir> dir;
    s = SstDir::OpenWhole(options_, DirPath(number), kMetaFileName, &dir);
    EXPECT_TRUE(s.ok()) << s.ToString();
    inputs_.push_back(std::move(dir));
    return inputs_.back().get();
  }

  static std::string Key(const Write& w) {
    return InternalKey(w.user_key, w.sequence, w.type).Encode().ToString();
  }

  DentryCompaction::Hooks Hooks(bool base_level = true) {
    DentryCompaction::Hooks h;
    h.new_file_number = [this] { return next_number_++; };
    h.output_path = [this](uint64_t n) { return DirPath(n); };
    h.is_base_level_for_key = [base_level](const Slice&) { return base_level; };
    h.yield = [] { return Status::OK(); };
    return h;
  }

  // Every entry of every output, read back through SstDir.
  std::vector<Seen> ReadOutputs(const DentryCompaction& dc) {
    std::vector<Seen> seen;
    for (const DentryCompaction::Output& out : dc.outputs()) {
      std::unique_ptr<SstDir> dir;
      Status s =
          SstDir::OpenWhole(options_, out.path,
                            MetaFileName(out.meta.number, out.meta.dir), &dir);
      EXPECT_TRUE(s.ok()) << s.ToString();
      if (!s.ok()) continue;
      for (size_t i = 0; i < dir->index().entries.size(); i++) {
        ParsedInternalKey k;
        EXPECT_TRUE(ParseInternalKey(dir->index().entries[i].internal_key, &k));
        std::string value;
        if (k.type == kTypeValue) {
          s = dir->ReadValueUncached(ReadOptions(), i, &value);
          EXPECT_TRUE(s.ok()) << s.ToString();
        }
        seen.push_back({k.user_key.ToString(), k.sequence, k.type, value});
      }
    }
    return seen;
  }

  // name -> inode of every KV file (not META*/LONGKEYS*) in `path`.
  std::map<std::string, ino_t> KvInodes(const std::string& path) {
    std::vector<std::string> names;
    EXPECT_TRUE(options_.fs->ListDirectory(path, &names).ok());
    std::map<std::string, ino_t> inodes;
    for (const std::string& name : names) {
      if (name.compare(0, 4, "META") == 0 ||
          name.compare(0, 8, "LONGKEYS") == 0)
        continue;
      struct stat st;
      EXPECT_EQ(stat((path + "/" + name).c_str(), &st), 0) << name;
      inodes[name] = st.st_ino;
    }
    return inodes;
  }

  std::set<std::string> Names(const std::string& path) {
    std::vector<std::string> names;
    EXPECT_TRUE(options_.fs->ListDirectory(path, &names).ok());
    return std::set<std::string>(names.begin(), names.end());
  }

  std::vector<SstDir*> Inputs() {
    std::vector<SstDir*> v;
    for (auto& d : inputs_) v.push_back(d.get());
    return v;
  }

  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> bloom_;
  std::unique_ptr<HomeDirs> homes_;
  SstDirOptions options_;
  std::string root_;
  std::vector<std::unique_ptr<SstDir>> inputs_;
  uint64_t next_number_ = 100;
};

TEST_F(DentryCompactionUnitTest, KeepsNewestVersionsAndLinksTheirFiles) {
  Input(1, {Put("a", 10, "a10"), Put("b", 11, "b11"), Del("c", 12)});
  Input(2, {Put("a", 3, "a3"), Put("c", 4, "c4"), Put("d", 5, "d5")});
  std::map<std::string, ino_t> before = KvInodes(DirPath(1));
  for (const auto& kv : KvInodes(DirPath(2))) before.insert(kv);

  DentryCompaction dc(options_, 1000, kLastSequence, Hooks());
  ASSERT_TRUE(dc.Run(Inputs()).ok());

  // a@3 is shadowed by a@10; c's tombstone hides c@4 and, at the base
  // level with no snapshot below it, goes too.
  std::vector<Seen> expected = {{"a", 10, kTypeValue, "a10"},
                                {"b", 11, kTypeValue, "b11"},
                                {"d", 5, kTypeValue, "d5"}};
  EXPECT_EQ(ReadOutputs(dc), expected);
  EXPECT_EQ(dc.entries_read(), 6u);
  EXPECT_EQ(dc.entries_dropped(), 3u);
  EXPECT_EQ(dc.links(), 3u);

  // New directories from the hooks; every KV file in them is an inode of
  // an input (a link, not a copy).
  ASSERT_EQ(dc.outputs().size(), 1u);
  const DentryCompaction::Output& out = dc.outputs()[0];
  EXPECT_EQ(out.meta.number, 100u);
  EXPECT_EQ(out.meta.dir, 100u);
  EXPECT_EQ(out.path, DirPath(100));
  std::map<std::string, ino_t> after = KvInodes(out.path);
  EXPECT_EQ(after.size(), 3u);
  for (const auto& kv : after) {
    ASSERT_TRUE(before.count(kv.first)) << kv.first;
    EXPECT_EQ(before[kv.first], kv.second) << kv.first;
  }
  EXPECT_EQ(out.meta.entries, 3u);
}

// Values that stay put: no link, the outputs name the same homes, and the
// dropped entries' files are the dead values; a duplicate naming the kept
// entry's own file is not one.
TEST_F(DentryCompactionUnitTest, HomeEntriesAreNeverLinkedAndDroppedOnesDie) {
  SstDir* first = Input(1, {Put("a", 10, "a10"), Put("b", 11, "b11")}, 7);
  Input(2, {Put("a", 3, "a3"), Put("d", 5, "d5")}, 8);
  // Directory 3 names the same files as directory 1 (as a replaced SST
  // that repair cannot tell from a live one would).
  {
    SstDirBuilder b(options_, DirPath(3));
    ASSERT_TRUE(b.Begin().ok());
    for (const MetaIndexEntry& e : first->index().entries) {
      ASSERT_TRUE(b.AddLinked(e.internal_key, e, first->directory()).ok());
    }
    ASSERT_TRUE(b.Finish().ok());
    std::unique_ptr<SstDir> dir;
    ASSERT_TRUE(SstDir::Open(options_, DirPath(3), &dir).ok());
    inputs_.push_back(std::move(dir));
  }
  // The same write as b@11 in another home (a WAL replay's copy).
  Input(4, {Put("b", 11, "b11")}, 9);

  DentryCompaction dc(options_, 1000, kLastSequence, Hooks());
  ASSERT_TRUE(dc.Run(Inputs()).ok());
  std::vector<Seen> expected = {{"a", 10, kTypeValue, "a10"},
                                {"b", 11, kTypeValue, "b11"},
                                {"d", 5, kTypeValue, "d5"}};
  EXPECT_EQ(ReadOutputs(dc), expected);
  EXPECT_EQ(0u, dc.links());
  EXPECT_EQ(std::set<std::string>({"META"}), Names(dc.outputs()[0].path));
  std::set<std::pair<uint64_t, std::string>> dead;
  for (const HomeValue& v : dc.dead_values()) dead.insert({v.home, v.name});
  // a@3 (shadowed, home 8) and the replay's b@11 (home 9); not the files
  // of home 7 that directory 3 names again.
  EXPECT_EQ((std::set<std::pair<uint64_t, std::string>>{
                {8, KvFileName("a", 3)}, {9, KvFileName("b", 11)}}),
            dead);
}

TEST_F(DentryCompactionUnitTest, SnapshotsAndDeeperLevelsKeepWhatTheyNeed) {
  Input(1, {Put("a", 10, "a10"), Del("c", 12)});
  Input(2, {Put("a", 3, "a3"), Put("c", 4, "c4")});
  // A snapshot at 5 still reads a@3 and c@4; the tombstone is above it
  // and a deeper level may hold c.
  DentryCompaction dc(options_, 1000, 5, Hooks(/*base_level=*/false));
  ASSERT_TRUE(dc.Run(Inputs()).ok());
  std::vector<Seen> expected = {{"a", 10, kTypeValue, "a10"},
                                {"a", 3, kTypeValue, "a3"},
                                {"c", 12, kTypeDeletion, ""},
                                {"c", 4, kTypeValue, "c4"}};
  EXPECT_EQ(ReadOutputs(dc), expected);
  EXPECT_EQ(dc.entries_dropped(), 0u);
}

// Two L0 SSTs over three SSTs of the level below (which the merge chains
// into one sorted run): the same entries survive as from any merge, in
// internal-key order, with a snapshot between the versions of a key.
TEST_F(DentryCompactionUnitTest, LevelInputsMergeWithOverlappingOnes) {
  Input(1, {Put("a", 30, "a30"), Del("c", 31), Put("e", 32, "e32")});
  Input(2, {Put("b", 20, "b20"), Put("c", 21, "c21"), Put("e", 22, "e22")});
  Input(3, {Put("a", 5, "a5"), Put("b", 6, "b6")});
  Input(4, {Put("c", 7, "c7"), Put("d", 8, "d8")});
  Input(5, {Put("e", 9, "e9"), Put("f", 10, "f10")});
  // A snapshot at 21: b@6 and c@7 are shadowed by versions it sees; a@5,
  // c@21, e@22 and e@9 are what it reads. The tombstone stays (above the
  // snapshot, and a deeper level may hold c).
  DentryCompaction dc(options_, 1000, 21, Hooks(/*base_level=*/false));
  ASSERT_TRUE(dc.Run(Inputs()).ok());
  std::vector<Seen> expected = {
      {"a", 30, kTypeValue, "a30"}, {"a", 5, kTypeValue, "a5"},
      {"b", 20, kTypeValue, "b20"}, {"c", 31, kTypeDeletion, ""},
      {"c", 21, kTypeValue, "c21"}, {"d", 8, kTypeValue, "d8"},
      {"e", 32, kTypeValue, "e32"}, {"e", 22, kTypeValue, "e22"},
      {"e", 9, kTypeValue, "e9"},   {"f", 10, kTypeValue, "f10"}};
  EXPECT_EQ(ReadOutputs(dc), expected);
  EXPECT_EQ(dc.entries_read(), 12u);
  EXPECT_EQ(dc.entries_dropped(), 2u);
}

TEST_F(DentryCompactionUnitTest, TombstoneStaysWhileADeeperLevelMayHoldTheKey) {
  Input(1, {Del("c", 12)});
  DentryCompaction dc(options_, 1000, kLastSequence,
                      Hooks(/*base_level=*/false));
  ASSERT_TRUE(dc.Run(Inputs()).ok());
  std::vector<Seen> expected = {{"c", 12, kTypeDeletion, ""}};
  EXPECT_EQ(ReadOutputs(dc), expected);
}

TEST_F(DentryCompactionUnitTest, OutputsAreCutOnlyBetweenUserKeys) {
  // Three versions of "b" visible to snapshots must stay in one SST even
  // though each SST holds two entries.
  Input(1, {Put("a", 1, "a1"), Put("b", 2, "b2"), Put("b", 3, "b3"),
            Put("b", 4, "b4"), Put("c", 5, "c5"), Put("d", 6, "d6")});
  DentryCompaction dc(options_, 2, 0, Hooks());
  ASSERT_TRUE(dc.Run(Inputs()).ok());
  ASSERT_EQ(ReadOutputs(dc).size(), 6u);
  std::vector<uint64_t> sizes;
  for (const auto& out : dc.outputs()) {
    sizes.push_back(out.meta.entries);
    EXPECT_EQ(out.meta.dir, out.meta.number);
    std::string first = out.meta.smallest.user_key().ToString();
    std::string last = out.meta.largest.user_key().ToString();
    // No user key spans two outputs.
    for (const auto& other : dc.outputs()) {
      if (&other == &out) continue;
      EXPECT_TRUE(other.meta.largest.user_key().ToString() < first ||
                  other.meta.smallest.user_key().ToString() > last);
    }
  }
  // a,b@4 | b@3,b@2 would split "b": the cut waits for "c".
  EXPECT_EQ(sizes, (std::vector<uint64_t>{4, 2}));
}

TEST_F(DentryCompactionUnitTest,
       EntriesGoToTheTargetCoveringThemAndResidentsStay) {
  // Level n input (dir 1) and two targets of level n+1 (dirs 2 and 3).
  Input(1, {Put("a", 20, "a20"), Put("e", 21, "e21"), Put("m", 22, "m22"),
            Put("z", 23, "z23")});
  Input(2, {Put("b", 2, "b2"), Put("f", 3, "f3")});
  Input(3, {Put("k", 4, "k4"), Put("p", 5, "p5")});
  const std::set<std::string> names2 = Names(DirPath(2));
  const std::set<std::string> names3 = Names(DirPath(3));
  const std::map<std::string, ino_t> upper = KvInodes(DirPath(1));

  std::vector<DentryCompaction::Target> targets(2);
  targets[0].dir = 2;
  targets[0].path = DirPath(2);
  targets[0].largest_user_key = "f";
  targets[1].dir = 3;
  targets[1].path = DirPath(3);
  targets[1].largest_user_key = "p";
  DentryCompaction dc(options_, 1000, kLastSequence, Hooks());
  ASSERT_TRUE(dc.Run(Inputs(), {1, 2, 3}, targets).ok());

  // a and e go to target 2 (before and inside its range), m (between the
  // targets) to the next one, z (after the last) to the last.
  ASSERT_EQ(dc.outputs().size(), 2u);
  EXPECT_EQ(dc.outputs()[0].meta.dir, 2u);
  EXPECT_EQ(dc.outputs()[1].meta.dir, 3u);
  // Only the upper level's entries were linked; a target's own stay.
  EXPECT_EQ(dc.links(), 4u);
  std::map<std::string, ino_t> in2 = KvInodes(DirPath(2));
  std::map<std::string, ino_t> in3 = KvInodes(DirPath(3));
  EXPECT_EQ(in2.size(), 4u);
  EXPECT_EQ(in3.size(), 4u);
  for (const auto& kv : upper) {
    const bool low = kv.first < "g";
    const auto& where = low ? in2 : in3;
    ASSERT_TRUE(where.count(kv.first)) << kv.first;
    EXPECT_EQ(where.at(kv.first), kv.second) << kv.first;
  }
  std::vector<Seen> expected = {
      {"a", 20, kTypeValue, "a20"}, {"b", 2, kTypeValue, "b2"},
      {"e", 21, kTypeValue, "e21"}, {"f", 3, kTypeValue, "f3"},
      {"k", 4, kTypeValue, "k4"},   {"m", 22, kTypeValue, "m22"},
      {"p", 5, kTypeValue, "p5"},   {"z", 23, kTypeValue, "z23"}};
  EXPECT_EQ(ReadOutputs(dc), expected);

  // What was added is recorded for undoing, and Abandon() restores both
  // targets' directories exactly.
  EXPECT_FALSE(dc.outputs()[0].added_names.empty());
  dc.Abandon();
  EXPECT_EQ(Names(DirPath(2)), names2);
  EXPECT_EQ(Names(DirPath(3)), names3);
}

TEST_F(DentryCompactionUnitTest, AFailedYieldAbortsAndAbandonRemovesNewDirs) {
  Input(1, {Put("a", 1, "a1"), Put("b", 2, "b2"), Put("c", 3, "c3"),
            Put("d", 4, "d4")});
  const std::set<std::string> root_before = Names(root_);
  DentryCompaction::Hooks hooks = Hooks();
  int calls = 0;
  hooks.yield = [&calls] {
    return ++calls == 4 ? Status::IOError("shutting down") : Status::OK();
  };
  DentryCompaction dc(options_, 1, kLastSequence, hooks);
  Status s = dc.Run(Inputs());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(Names(root_), root_before);  // it had made outputs
  dc.Abandon();
  EXPECT_TRUE(dc.outputs().empty());
  EXPECT_EQ(Names(root_), root_before);
  // The input is untouched.
  EXPECT_EQ(KvInodes(DirPath(1)).size(), 4u);
}

TEST_F(DentryCompactionUnitTest, OneDirectoryNumberPerInputIsRequired) {
  Input(1, {Put("a", 1, "a1")});
  DentryCompaction dc(options_, 1000, kLastSequence, Hooks());
  Status s = dc.Run(Inputs(), {}, {});
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(dc.outputs().empty());
}

}  // namespace
}  // namespace leveldb
