#include "db/version_set.h"

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/compaction.h"
#include "db/filename.h"
#include "db/log_writer.h"
#include "db/version_edit.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "port/port.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

// ---------------------------------------------------------------------------
// FindFile and SomeFileOverlapsRange on hand-built directory lists.

class FindFileTest : public testing::Test {
 protected:
  FindFileTest() : icmp_(BytewiseComparator()) {}
  ~FindFileTest() override {
    for (FileMetaData* f : files_) delete f;
  }

  void Add(const char* smallest, const char* largest,
           SequenceNumber smallest_seq = 100,
           SequenceNumber largest_seq = 100) {
    FileMetaData* f = new FileMetaData;
    f->number = files_.size() + 1;
    f->smallest = InternalKey(smallest, smallest_seq, kTypeValue);
    f->largest = InternalKey(largest, largest_seq, kTypeValue);
    files_.push_back(f);
  }

  int Find(const char* key) {
    InternalKey target(key, 100, kTypeValue);
    return FindFile(icmp_, files_, target.Encode());
  }

  bool Overlaps(const char* smallest, const char* largest) {
    Slice s(smallest != nullptr ? smallest : "");
    Slice l(largest != nullptr ? largest : "");
    return SomeFileOverlapsRange(icmp_, disjoint_, files_,
                                 smallest != nullptr ? &s : nullptr,
                                 largest != nullptr ? &l : nullptr);
  }

  InternalKeyComparator icmp_;
  std::vector<FileMetaData*> files_;
  bool disjoint_ = true;
};

TEST_F(FindFileTest, Empty) {
  EXPECT_EQ(0, Find("foo"));
  EXPECT_FALSE(Overlaps("a", "z"));
  EXPECT_FALSE(Overlaps(nullptr, "z"));
  EXPECT_FALSE(Overlaps("a", nullptr));
  EXPECT_FALSE(Overlaps(nullptr, nullptr));
}

TEST_F(FindFileTest, Single) {
  Add("p", "q");
  EXPECT_EQ(0, Find("a"));
  EXPECT_EQ(0, Find("p"));
  EXPECT_EQ(0, Find("p1"));
  EXPECT_EQ(0, Find("q"));
  EXPECT_EQ(1, Find("q1"));
  EXPECT_EQ(1, Find("z"));

  EXPECT_FALSE(Overlaps("a", "b"));
  EXPECT_FALSE(Overlaps("z1", "z2"));
  EXPECT_TRUE(Overlaps("a", "p"));
  EXPECT_TRUE(Overlaps("a", "q"));
  EXPECT_TRUE(Overlaps("p", "p1"));
  EXPECT_TRUE(Overlaps("q", "q"));
  EXPECT_TRUE(Overlaps("p1", "p2"));
  EXPECT_FALSE(Overlaps("q1", "z"));

  EXPECT_FALSE(Overlaps(nullptr, "j"));
  EXPECT_TRUE(Overlaps(nullptr, "p"));
  EXPECT_TRUE(Overlaps("q", nullptr));
  EXPECT_FALSE(Overlaps("qq", nullptr));
  EXPECT_TRUE(Overlaps(nullptr, nullptr));
}

TEST_F(FindFileTest, Multiple) {
  Add("150", "200");
  Add("200", "250", 100, 95);  // "200"@100 < "200"@95 in internal order
  Add("300", "350");
  Add("400", "450");
  EXPECT_EQ(0, Find("100"));
  EXPECT_EQ(0, Find("150"));
  EXPECT_EQ(0, Find("151"));
  EXPECT_EQ(0, Find("199"));
  EXPECT_EQ(0, Find("200"));  // "200"@100 is the first directory's largest
  EXPECT_EQ(1, Find("201"));
  EXPECT_EQ(1, Find("249"));
  EXPECT_EQ(1, Find("250"));
  EXPECT_EQ(2, Find("251"));
  EXPECT_EQ(2, Find("299"));
  EXPECT_EQ(2, Find("350"));
  EXPECT_EQ(3, Find("351"));
  EXPECT_EQ(3, Find("450"));
  EXPECT_EQ(4, Find("451"));

  EXPECT_FALSE(Overlaps("100", "149"));
  EXPECT_FALSE(Overlaps("251", "299"));
  EXPECT_FALSE(Overlaps("451", "500"));
  EXPECT_FALSE(Overlaps("351", "399"));
  EXPECT_TRUE(Overlaps("100", "150"));
  EXPECT_TRUE(Overlaps("100", "200"));
  EXPECT_TRUE(Overlaps("100", "300"));
  EXPECT_TRUE(Overlaps("251", "300"));
  EXPECT_TRUE(Overlaps("450", "500"));
  EXPECT_TRUE(Overlaps("375", "400"));
}

TEST_F(FindFileTest, OverlappingLevelZero) {
  disjoint_ = false;
  Add("150", "600");
  Add("400", "500");
  EXPECT_FALSE(Overlaps("100", "149"));
  EXPECT_FALSE(Overlaps("601", "700"));
  EXPECT_TRUE(Overlaps("100", "150"));
  EXPECT_TRUE(Overlaps("450", "700"));
  EXPECT_TRUE(Overlaps("600", "700"));
  EXPECT_TRUE(Overlaps("200", "300"));  // inside the first only
  EXPECT_FALSE(Overlaps(nullptr, "149"));
  EXPECT_TRUE(Overlaps("599", nullptr));
}

// ---------------------------------------------------------------------------
// VersionSet over a real manifest in a fresh directory.

// A comparator with another name, to open a DB with the wrong one.
class OtherComparator : public Comparator {
 public:
  const char* Name() const override { return "test.OtherComparator"; }
  int Compare(const Slice& a, const Slice& b) const override {
    return BytewiseComparator()->Compare(a, b);
  }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

// An Env whose manifest files fail Sync while *fail_sync is set.
class FailingSyncEnv : public EnvWrapper {
 public:
  explicit FailingSyncEnv(bool* fail_sync)
      : EnvWrapper(Env::Default()), fail_sync_(fail_sync) {}

  Status NewWritableFile(const std::string& name,
                         WritableFile** result) override {
    Status s = target()->NewWritableFile(name, result);
    if (s.ok() && name.find("MANIFEST") != std::string::npos) {
      *result = new File(*result, fail_sync_);
    }
    return s;
  }

 private:
  class File : public WritableFile {
   public:
    File(WritableFile* base, bool* fail_sync)
        : base_(base), fail_sync_(fail_sync) {}
    Status Append(const Slice& data) override { return base_->Append(data); }
    Status Close() override { return base_->Close(); }
    Status Flush() override { return base_->Flush(); }
    Status Sync() override {
      if (*fail_sync_) return Status::IOError("injected manifest sync failure");
      return base_->Sync();
    }

   private:
    std::unique_ptr<WritableFile> base_;
    bool* const fail_sync_;
  };

  bool* const fail_sync_;
};

class VersionSetTest : public testing::Test {
 protected:
  VersionSetTest() : icmp_(BytewiseComparator()) {
    dbname_ = delsm_test::MakeTestDir("delsm_version_set_test");
    EXPECT_FALSE(dbname_.empty());
    options_.env = Env::Default();
    options_.comparator = BytewiseComparator();
    tuning_.l0_compaction_entries = 100;
    tuning_.l0_compaction_dirs = 4;
    tuning_.l1_entries = 1000;
    tuning_.sst_entries = 50;
  }

  ~VersionSetTest() override {
    std::error_code ec;
    std::filesystem::remove_all(dbname_, ec);
  }

  // What a new DB's first manifest holds: MANIFEST-000001, named by CURRENT.
  void CreateManifest(const Comparator* ucmp) {
    VersionEdit edit;
    edit.SetComparatorName(ucmp->Name());
    edit.SetLogNumber(0);
    edit.SetNextFile(2);
    edit.SetLastSequence(0);
    WritableFile* file;
    const std::string name = DescriptorFileName(dbname_, 1);
    ASSERT_TRUE(options_.env->NewWritableFile(name, &file).ok());
    {
      log::Writer writer(file);
      std::string record;
      edit.EncodeTo(&record);
      ASSERT_TRUE(writer.AddRecord(record).ok());
    }
    ASSERT_TRUE(file->Sync().ok());
    ASSERT_TRUE(file->Close().ok());
    delete file;
    ASSERT_TRUE(SetCurrentFile(options_.env, dbname_, 1).ok());
  }

  std::unique_ptr<VersionSet> NewVersionSet(const InternalKeyComparator* icmp) {
    return std::unique_ptr<VersionSet>(
        new VersionSet(dbname_, &options_, tuning_, nullptr, icmp));
  }

  // A fresh database's VersionSet, recovered from its first manifest.
  std::unique_ptr<VersionSet> Open() {
    CreateManifest(BytewiseComparator());
    std::unique_ptr<VersionSet> vset = NewVersionSet(&icmp_);
    bool save_manifest = false;
    Status s = vset->Recover(&save_manifest);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return vset;
  }

  std::unique_ptr<VersionSet> Reopen() {
    std::unique_ptr<VersionSet> vset = NewVersionSet(&icmp_);
    bool save_manifest = false;
    Status s = vset->Recover(&save_manifest);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return vset;
  }

  static FileMetaData Dir(uint64_t number, uint64_t entries,
                          const std::string& smallest,
                          const std::string& largest) {
    FileMetaData f;
    f.number = number;
    f.entries = entries;
    f.value_bytes = entries * 100;
    f.smallest = InternalKey(smallest, 10, kTypeValue);
    f.largest = InternalKey(largest, 10, kTypeValue);
    return f;
  }

  Status Apply(VersionSet* vset, VersionEdit* edit) {
    for (const auto& added : edit->new_files()) {
      vset->MarkFileNumberUsed(added.second.number);
    }
    mu_.Lock();
    Status s = vset->LogAndApply(edit, &mu_);
    mu_.Unlock();
    return s;
  }

  static std::vector<uint64_t> Numbers(const std::vector<FileMetaData*>& v) {
    std::vector<uint64_t> numbers;
    for (const FileMetaData* f : v) numbers.push_back(f->number);
    return numbers;
  }

  std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
  InternalKeyComparator icmp_;
  port::Mutex mu_;
};

TEST_F(VersionSetTest, MissingCurrentIsReported) {
  std::unique_ptr<VersionSet> vset = NewVersionSet(&icmp_);
  bool save_manifest = false;
  Status s = vset->Recover(&save_manifest);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
}

TEST_F(VersionSetTest, LogAndApplyThenRecoverRestoresEverything) {
  std::string before;
  uint64_t next_file;
  {
    std::unique_ptr<VersionSet> vset = Open();
    VersionEdit edit;
    edit.AddFile(0, Dir(10, 30, "c", "k"));
    edit.AddFile(0, Dir(11, 40, "a", "z"));
    edit.AddFile(1, Dir(5, 500, "a", "f"));
    edit.AddFile(1, Dir(6, 600, "g", "m"));
    edit.AddFile(3, Dir(7, 7000, "b", "y"));
    edit.SetLogNumber(9);
    edit.SetCompactPointer(1, InternalKey("f", 10, kTypeValue));
    vset->MarkFileNumberUsed(12);
    vset->SetLastSequence(777);
    ASSERT_TRUE(Apply(vset.get(), &edit).ok());

    // A second edit removes one directory and adds another.
    VersionEdit edit2;
    edit2.RemoveFile(1, 5);
    edit2.AddFile(2, Dir(13, 450, "a", "e"));
    vset->SetLastSequence(800);
    ASSERT_TRUE(Apply(vset.get(), &edit2).ok());

    EXPECT_EQ(2, vset->NumLevelFiles(0));
    EXPECT_EQ(1, vset->NumLevelFiles(1));
    EXPECT_EQ(70u, vset->NumLevelEntries(0));
    EXPECT_EQ(600u, vset->NumLevelEntries(1));
    EXPECT_EQ(60000, vset->NumLevelBytes(1));
    EXPECT_EQ(9u, vset->LogNumber());
    before = vset->current()->DebugString();
    next_file = vset->NewFileNumber();
  }

  std::unique_ptr<VersionSet> vset = Reopen();
  EXPECT_EQ(before, vset->current()->DebugString());
  EXPECT_EQ(9u, vset->LogNumber());
  EXPECT_EQ(800u, vset->LastSequence());
  // Numbers handed out before the restart are never handed out again.
  EXPECT_GE(vset->NewFileNumber(), next_file);
  EXPECT_EQ(std::vector<uint64_t>({6}), Numbers(vset->current()->files(1)));
  EXPECT_EQ(std::vector<uint64_t>({13}), Numbers(vset->current()->files(2)));
  EXPECT_EQ(std::vector<uint64_t>({7}), Numbers(vset->current()->files(3)));

  LiveNumbers live;
  vset->AddLiveFiles(&live);
  live.Seal();
  EXPECT_EQ(std::vector<uint64_t>({6, 7, 10, 11, 13}), live.numbers());

  // A further edit after recovery goes to a new manifest that CURRENT names;
  // a third open sees it.
  VersionEdit edit3;
  edit3.AddFile(4, Dir(vset->NewFileNumber(), 1, "q", "r"));
  ASSERT_TRUE(Apply(vset.get(), &edit3).ok());
  std::string current;
  ASSERT_TRUE(
      ReadFileToString(options_.env, CurrentFileName(dbname_), &current).ok());
  const std::string manifest =
      DescriptorFileName(dbname_, vset->ManifestFileNumber());
  EXPECT_EQ(manifest.substr(dbname_.size() + 1) + "\n", current);
  std::string after = vset->current()->DebugString();
  vset.reset();
  vset = Reopen();
  EXPECT_EQ(after, vset->current()->DebugString());
  EXPECT_EQ(1, vset->NumLevelFiles(4));
}

TEST_F(VersionSetTest, CompactionPointerSurvivesRecovery) {
  tuning_.l1_entries = 100;  // L1 over capacity with the dirs below
  {
    std::unique_ptr<VersionSet> vset = Open();
    VersionEdit edit;
    edit.AddFile(1, Dir(5, 50, "a", "c"));
    edit.AddFile(1, Dir(6, 50, "d", "f"));
    edit.AddFile(1, Dir(7, 50, "g", "i"));
    ASSERT_TRUE(Apply(vset.get(), &edit).ok());
    // Without a pointer the first directory is chosen.
    std::unique_ptr<Compaction> c(vset->PickCompaction());
    ASSERT_NE(nullptr, c);
    EXPECT_EQ(1, c->level());
    EXPECT_EQ(std::vector<uint64_t>({5}), Numbers(c->inputs(0)));
    c->ReleaseInputs();

    VersionEdit pointer;
    pointer.SetCompactPointer(1, InternalKey("f", 10, kTypeValue));
    ASSERT_TRUE(Apply(vset.get(), &pointer).ok());
  }
  std::unique_ptr<VersionSet> vset = Reopen();
  std::unique_ptr<Compaction> c(vset->PickCompaction());
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(std::vector<uint64_t>({7}), Numbers(c->inputs(0)));
  c->ReleaseInputs();
}

TEST_F(VersionSetTest, ComparatorMismatchIsInvalidArgument) {
  CreateManifest(BytewiseComparator());
  OtherComparator other;
  InternalKeyComparator other_icmp(&other);
  std::unique_ptr<VersionSet> vset = NewVersionSet(&other_icmp);
  bool save_manifest = false;
  Status s = vset->Recover(&save_manifest);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(std::string::npos,
            s.ToString().find("leveldb.BytewiseComparator does not match "
                              "existing comparator"))
      << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("test.OtherComparator"))
      << s.ToString();
}

TEST_F(VersionSetTest, DamagedManifestIsCorruptionNamingIt) {
  CreateManifest(BytewiseComparator());
  const std::string name = DescriptorFileName(dbname_, 1);
  std::string contents;
  ASSERT_TRUE(ReadFileToString(options_.env, name, &contents).ok());
  contents[contents.size() - 2] ^= 0x40;  // inside the record's payload
  ASSERT_TRUE(WriteStringToFile(options_.env, contents, name).ok());

  std::unique_ptr<VersionSet> vset = NewVersionSet(&icmp_);
  bool save_manifest = false;
  Status s = vset->Recover(&save_manifest);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("MANIFEST-000001"))
      << s.ToString();
}

TEST_F(VersionSetTest, CurrentNamingMissingManifestIsCorruption) {
  ASSERT_TRUE(SetCurrentFile(options_.env, dbname_, 42).ok());
  std::unique_ptr<VersionSet> vset = NewVersionSet(&icmp_);
  bool save_manifest = false;
  Status s = vset->Recover(&save_manifest);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("MANIFEST-000042"))
      << s.ToString();
}

TEST_F(VersionSetTest, OverlappingDirsAtSortedLevelAreRejected) {
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  edit.AddFile(2, Dir(5, 10, "a", "m"));
  edit.AddFile(2, Dir(6, 10, "k", "z"));
  Status s = Apply(vset.get(), &edit);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_EQ(0, vset->NumLevelFiles(2));  // nothing installed
  // The set stays usable: a valid edit afterwards succeeds and persists.
  VersionEdit good;
  good.AddFile(2, Dir(7, 10, "a", "m"));
  ASSERT_TRUE(Apply(vset.get(), &good).ok());
  vset.reset();
  vset = Reopen();
  EXPECT_EQ(std::vector<uint64_t>({7}), Numbers(vset->current()->files(2)));
}

TEST_F(VersionSetTest, FailedManifestWriteInstallsNothing) {
  bool fail_sync = false;
  FailingSyncEnv env(&fail_sync);
  options_.env = &env;
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit first;
  first.AddFile(1, Dir(5, 10, "a", "c"));
  ASSERT_TRUE(Apply(vset.get(), &first).ok());
  const uint64_t manifest_before = vset->ManifestFileNumber();

  fail_sync = true;
  VersionEdit lost;
  lost.AddFile(1, Dir(6, 10, "d", "f"));
  Status s = Apply(vset.get(), &lost);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(std::vector<uint64_t>({5}), Numbers(vset->current()->files(1)));

  // Whether that edit committed is the next Recover's to read: no later
  // edit is written, to that manifest or to a new one.
  fail_sync = false;
  VersionEdit next;
  next.AddFile(2, Dir(7, 10, "x", "z"));
  s = Apply(vset.get(), &next);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(vset->current()->files(2).empty());
  EXPECT_EQ(manifest_before, vset->ManifestFileNumber());

  // The failed sync's record reached the file: the next Recover applies it.
  vset.reset();
  vset = Reopen();
  EXPECT_EQ(std::vector<uint64_t>({5, 6}), Numbers(vset->current()->files(1)));
  EXPECT_TRUE(vset->current()->files(2).empty());
}

TEST_F(VersionSetTest, NoCompactionBelowThresholds) {
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  edit.AddFile(0, Dir(10, 60, "c", "e"));
  edit.AddFile(1, Dir(5, 900, "a", "z"));
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  EXPECT_FALSE(vset->NeedsCompaction());
  EXPECT_EQ(nullptr, vset->PickCompaction());
}

TEST_F(VersionSetTest, PicksLevelZeroOverEntryThreshold) {
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  // 120 entries at L0 > l0_compaction_entries (100), only 3 dirs (< 4).
  edit.AddFile(0, Dir(10, 60, "c", "e"));
  edit.AddFile(0, Dir(11, 50, "d", "h"));
  edit.AddFile(0, Dir(12, 10, "x", "y"));  // overlaps neither of the above
  edit.AddFile(1, Dir(5, 10, "a", "b"));
  edit.AddFile(1, Dir(6, 10, "c", "d"));
  edit.AddFile(1, Dir(7, 10, "g", "k"));
  edit.AddFile(1, Dir(8, 10, "m", "p"));
  edit.AddFile(2, Dir(9, 10, "e", "f"));
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  ASSERT_TRUE(vset->NeedsCompaction());

  std::unique_ptr<Compaction> c(vset->PickCompaction());
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(0, c->level());
  std::vector<uint64_t> l0 = Numbers(c->inputs(0));
  std::sort(l0.begin(), l0.end());
  EXPECT_EQ(std::vector<uint64_t>({10, 11}), l0);
  EXPECT_EQ(std::vector<uint64_t>({6, 7}), Numbers(c->inputs(1)));
  EXPECT_FALSE(c->IsTrivialMove());
  EXPECT_EQ(130u, c->InputEntries());

  // L2 holds e..f: keys there are not at their base level; others are.
  EXPECT_TRUE(c->IsBaseLevelForKey("c"));
  EXPECT_FALSE(c->IsBaseLevelForKey("e"));
  EXPECT_FALSE(c->IsBaseLevelForKey("f"));
  EXPECT_TRUE(c->IsBaseLevelForKey("g"));

  VersionEdit deletions;
  c->AddInputDeletions(&deletions);
  EXPECT_EQ(4u, deletions.deleted_files().size());
  EXPECT_EQ(1u, deletions.deleted_files().count(std::make_pair(0, 10ull)));
  EXPECT_EQ(1u, deletions.deleted_files().count(std::make_pair(1, 7ull)));
  c->ReleaseInputs();
}

// A level under its entry capacity is still compacted when its SSTs' meta
// bytes pass its byte capacity: few large inline values (or tombstones over
// them) must not sit at a level that holds more bytes than the one below
// it is meant to. An SST whose manifest did not record its meta bytes
// counts Version::kUnrecordedMetaBytesPerEntry per entry.
TEST_F(VersionSetTest, PicksSortedLevelOverMetaByteCapacity) {
  tuning_.l1_meta_bytes = 40000;  // passed only with the unrecorded SST
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  FileMetaData big = Dir(5, 40, "a", "m");  // 40 of 1000 entries
  big.has_sequence_range = true;            // as every built SST has
  big.smallest_sequence = big.largest_sequence = 10;
  big.meta_bytes = 30000;
  edit.AddFile(1, big);
  edit.AddFile(1, Dir(6, 600, "n", "z"));  // unrecorded: 600 x 32 bytes
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  EXPECT_EQ(30000u + 600 * Version::kUnrecordedMetaBytesPerEntry,
            vset->NumLevelMetaBytes(1));
  ASSERT_TRUE(vset->NeedsCompaction());
  std::unique_ptr<Compaction> c(vset->PickCompaction());
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(1, c->level());
  c->ReleaseInputs();

  // The byte count survives a restart (the manifest records it).
  vset.reset();
  vset = Reopen();
  EXPECT_EQ(30000u + 600 * Version::kUnrecordedMetaBytesPerEntry,
            vset->NumLevelMetaBytes(1));
  EXPECT_TRUE(vset->NeedsCompaction());
}

// An entry whose value is a KV file in its SST's directory counts
// 1/kv_file_entries_per_entry toward its level's entry capacity (its
// moves, not its rewrites, are what a level costs it); inline entries, and
// SSTs whose directory entries were not recorded, count in full. L1 holds
// 1000 entries here.
TEST_F(VersionSetTest, KvFileEntriesCountAShareOfLevelCapacity) {
  struct Case {
    uint64_t entries;
    uint64_t dir_entries;  // KV files + the meta file; 0: not recorded
    uint64_t kv_file_entries_per_entry;
    bool due;
  };
  const Case cases[] = {
      {5000, 5001, 10, false},   // 500 of 1000
      {5000, 5001, 1, true},     // every entry in full
      {12000, 12001, 10, true},  // 1200 of 1000
      {1100, 1, 10, true},       // inline values: 1100
      {1100, 0, 10, true},       // unrecorded: counted in full
      {5000, 101, 10, true},     // 4900 inline + 100 KV files: 4910
  };
  for (const Case& t : cases) {
    tuning_.kv_file_entries_per_entry = t.kv_file_entries_per_entry;
    std::unique_ptr<VersionSet> vset = Open();
    VersionEdit edit;
    FileMetaData f = Dir(5, t.entries, "a", "z");
    f.dir_entries = t.dir_entries;
    edit.AddFile(1, f);
    ASSERT_TRUE(Apply(vset.get(), &edit).ok());
    EXPECT_EQ(t.due, vset->NeedsCompaction())
        << t.entries << " entries, " << t.dir_entries << " directory entries, "
        << t.kv_file_entries_per_entry << " per entry";
  }
}

TEST_F(VersionSetTest, PickKeepsVersionsOfOneUserKeyTogether) {
  tuning_.l1_entries = 10;  // L1 over capacity
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  FileMetaData left = Dir(5, 10, "a", "k");
  left.largest = InternalKey("k", 5, kTypeValue);
  FileMetaData right = Dir(6, 10, "k", "p");
  right.smallest = InternalKey("k", 3, kTypeValue);
  edit.AddFile(1, left);
  edit.AddFile(1, right);
  edit.AddFile(1, Dir(7, 10, "q", "z"));
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  std::unique_ptr<Compaction> c(vset->PickCompaction());
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(1, c->level());
  // #5 alone would move k@5 below k@3; #6 must come along.
  EXPECT_EQ(std::vector<uint64_t>({5, 6}), Numbers(c->inputs(0)));
  EXPECT_FALSE(c->IsTrivialMove());
  c->ReleaseInputs();
}

TEST_F(VersionSetTest, PicksLevelZeroOverDirThreshold) {
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  for (uint64_t i = 0; i < 4; i++) {  // 4 dirs of 1 entry each: dir limit
    std::string k(1, static_cast<char>('a' + 2 * i));
    edit.AddFile(0, Dir(10 + i, 1, k, k));
  }
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  ASSERT_TRUE(vset->NeedsCompaction());
  std::unique_ptr<Compaction> c(vset->PickCompaction());
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(0, c->level());
  // Disjoint L0 dirs, nothing below: the first moves by rename.
  EXPECT_EQ(1, c->num_input_files(0));
  EXPECT_EQ(0, c->num_input_files(1));
  EXPECT_TRUE(c->IsTrivialMove());
  c->ReleaseInputs();
}

// An SST that shares its directory with another SST of its level cannot
// be renamed; if it owns no entry of the directory but its meta file, it
// moves by a second name of that file. Owning KV files there (or its
// directory entries unrecorded), it is compacted.
TEST_F(VersionSetTest, SharedDirectoryMovesByMetaFileOnlyIfMetaIsAllItOwns) {
  for (uint64_t dir_entries : {1, 5, 0}) {
    tuning_.l1_entries = 10;  // L1 over capacity
    std::unique_ptr<VersionSet> vset = Open();
    VersionEdit edit;
    FileMetaData a = Dir(5, 10, "a", "c");
    FileMetaData b = Dir(6, 10, "m", "p");
    a.dir = b.dir = 5;  // #6 is META-000006 of directory 5
    a.dir_entries = b.dir_entries = dir_entries;
    edit.AddFile(1, a);
    edit.AddFile(1, b);
    ASSERT_TRUE(Apply(vset.get(), &edit).ok());
    std::unique_ptr<Compaction> c(vset->PickCompaction());
    ASSERT_NE(nullptr, c);
    EXPECT_EQ(1, c->level());
    EXPECT_EQ(1, c->num_input_files(0));
    EXPECT_EQ(0, c->num_input_files(1));
    EXPECT_FALSE(c->IsTrivialMove()) << dir_entries;
    EXPECT_EQ(dir_entries == 1, c->IsMetaFileMove()) << dir_entries;
    c->ReleaseInputs();
  }
}

// Alone in its directory, an SST is renamed, never linked.
TEST_F(VersionSetTest, SstAloneInItsDirectoryIsRenamed) {
  tuning_.l1_entries = 10;
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  FileMetaData a = Dir(5, 10, "a", "c");
  FileMetaData b = Dir(6, 10, "m", "p");
  a.dir_entries = b.dir_entries = 1;
  edit.AddFile(1, a);
  edit.AddFile(1, b);
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  std::unique_ptr<Compaction> c(vset->PickCompaction());
  ASSERT_NE(nullptr, c);
  EXPECT_TRUE(c->IsTrivialMove());
  EXPECT_FALSE(c->IsMetaFileMove());
  c->ReleaseInputs();
}

TEST_F(VersionSetTest, LevelZeroOverlapExpandsTransitively) {
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  edit.AddFile(0, Dir(10, 1, "a", "c"));
  edit.AddFile(0, Dir(11, 1, "b", "f"));
  edit.AddFile(0, Dir(12, 1, "e", "g"));
  edit.AddFile(0, Dir(13, 1, "x", "z"));
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  InternalKey a("a", kMaxSequenceNumber, kValueTypeForSeek);
  InternalKey a_end("a", 0, kTypeDeletion);
  std::vector<FileMetaData*> inputs;
  vset->current()->GetOverlappingInputs(0, &a, &a_end, &inputs);
  std::vector<uint64_t> numbers = Numbers(inputs);
  std::sort(numbers.begin(), numbers.end());
  EXPECT_EQ(std::vector<uint64_t>({10, 11, 12}), numbers);

  // At a sorted level the range is not widened.
  VersionEdit l1;
  l1.AddFile(1, Dir(20, 1, "a", "c"));
  l1.AddFile(1, Dir(21, 1, "d", "f"));
  ASSERT_TRUE(Apply(vset.get(), &l1).ok());
  InternalKey c_key("c", kMaxSequenceNumber, kValueTypeForSeek);
  vset->current()->GetOverlappingInputs(1, &a, &c_key, &inputs);
  EXPECT_EQ(std::vector<uint64_t>({20}), Numbers(inputs));
  vset->current()->GetOverlappingInputs(1, nullptr, nullptr, &inputs);
  EXPECT_EQ(std::vector<uint64_t>({20, 21}), Numbers(inputs));

  Slice lo("d"), hi("e");
  EXPECT_TRUE(vset->current()->OverlapInLevel(1, &lo, &hi));
  Slice lo2("h"), hi2("w");
  EXPECT_FALSE(vset->current()->OverlapInLevel(0, &lo2, &hi2));
  EXPECT_FALSE(vset->current()->OverlapInLevel(1, &lo2, &hi2));
}

TEST_F(VersionSetTest, CompactRangeLimitsSortedLevelInputs) {
  std::unique_ptr<VersionSet> vset = Open();
  VersionEdit edit;
  // sst_entries is 50: a range over L1 is cut after 50 entries.
  edit.AddFile(1, Dir(5, 30, "a", "b"));
  edit.AddFile(1, Dir(6, 30, "c", "d"));
  edit.AddFile(1, Dir(7, 30, "e", "f"));
  edit.AddFile(2, Dir(8, 30, "c", "d"));
  ASSERT_TRUE(Apply(vset.get(), &edit).ok());
  std::unique_ptr<Compaction> c(vset->CompactRange(1, nullptr, nullptr));
  ASSERT_NE(nullptr, c);
  EXPECT_EQ(std::vector<uint64_t>({5, 6}), Numbers(c->inputs(0)));
  EXPECT_EQ(std::vector<uint64_t>({8}), Numbers(c->inputs(1)));
  c->ReleaseInputs();

  InternalKey x("x", kMaxSequenceNumber, kValueTypeForSeek);
  EXPECT_EQ(nullptr, vset->CompactRange(1, &x, nullptr));
}

}  // namespace
}  // namespace leveldb
