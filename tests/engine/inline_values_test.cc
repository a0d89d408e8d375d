// Small values: values of at most
// Tuning::inline_threshold bytes live in the meta file, on a real file
// system. They must come back unchanged through flush, merging compaction
// (which rewrites them, while larger values keep their KV file's inode),
// snapshots, RepairDB and reopen; a damaged meta file must give a clear
// Corruption, never a wrong value; and a point read of an inline value must
// read that value, not the whole meta file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/counting_file_system.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

constexpr size_t kThreshold = 256;

// A value of `size` bytes determined by (key, version): incompressible
// bytes, or a repetitive text when `compressible` (snappy shrinks it, so
// it is stored as kInlineSnappy / kFileSnappy).
std::string MakeValue(const std::string& key, int version, size_t size,
                      bool compressible = false) {
  std::string v;
  v.reserve(size);
  uint64_t x = std::hash<std::string>()(key) * 31 + version + 1;
  while (v.size() < size) {
    if (compressible) {
      v.append(key + "/" + std::to_string(version) + ";");
    } else {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      v.push_back(static_cast<char>(x));
    }
  }
  v.resize(size);
  return v;
}

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// The sizes the tests cycle through: empty, small, at and just past the
// threshold, and KV-file sized.
const size_t kSizes[] = {
    0, 1, 100, kThreshold - 1, kThreshold, kThreshold + 1, 1000, 4096};

// Names of the KV files (their user-key part) under every level directory.
std::multimap<std::string, ino_t> KvFiles(const std::string& dbname) {
  std::multimap<std::string, ino_t> out;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = dbname + "/L" + std::to_string(level);
    for (const std::string& sst : delsm_test::ListDir(ldir)) {
      for (const std::string& name : delsm_test::ListDir(ldir + "/" + sst)) {
        const size_t at = name.rfind('@');
        if (at == std::string::npos) continue;
        struct stat st;
        if (lstat((ldir + "/" + sst + "/" + name).c_str(), &st) != 0) continue;
        out.emplace(name.substr(0, at), st.st_ino);
      }
    }
  }
  return out;
}

// Every meta file under the level directories.
std::vector<std::string> MetaFiles(const std::string& dbname) {
  std::vector<std::string> out;
  for (int level = 0; level < 7; level++) {
    const std::string ldir = dbname + "/L" + std::to_string(level);
    for (const std::string& sst : delsm_test::ListDir(ldir)) {
      for (const std::string& name : delsm_test::ListDir(ldir + "/" + sst)) {
        if (name.compare(0, 4, "META") == 0) {
          out.push_back(ldir + "/" + sst + "/" + name);
        }
      }
    }
  }
  return out;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

class InlineValuesTest : public testing::Test {
 protected:
  InlineValuesTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.compression = leveldb::kNoCompression;
    tuning_.inline_threshold = kThreshold;
  }
  ~InlineValuesTest() override { Close(); }

  void Open() {
    Close();
    DB* db = nullptr;
    Status s = delsm::Open(options_, tuning_, dbname_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }
  void Close() { db_.reset(); }
  leveldb::DBImpl* impl() { return static_cast<leveldb::DBImpl*>(db_.get()); }
  void Flush() { ASSERT_TRUE(impl()->TEST_FlushMemTable().ok()); }
  void CompactAll() {
    db_->CompactRange(nullptr, nullptr);
    ASSERT_TRUE(impl()->TEST_WaitForBackgroundWork().ok());
  }
  void Put(const std::string& k, const std::string& v) {
    ASSERT_TRUE(db_->Put(WriteOptions(), k, v).ok());
    model_[k] = v;
  }
  void Delete(const std::string& k) {
    ASSERT_TRUE(db_->Delete(WriteOptions(), k).ok());
    model_.erase(k);
  }
  // Every key of `model` reads back by Get and the scan yields exactly it.
  void Check(const std::map<std::string, std::string>& model,
             const leveldb::Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    ro.verify_checksums = true;
    for (const auto& kv : model) {
      std::string v;
      Status s = db_->Get(ro, kv.first, &v);
      ASSERT_TRUE(s.ok()) << kv.first << ": " << s.ToString();
      ASSERT_EQ(v, kv.second) << kv.first;
    }
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ro));
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_TRUE(m != model.end()) << "extra key " << it->key().ToString();
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_EQ(it->value().ToString(), m->second) << m->first;
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_TRUE(m == model.end()) << "missing key " << m->first;
    // Backwards too (the inline read-ahead runs the other way).
    auto r = model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_TRUE(r != model.rend());
      ASSERT_EQ(it->key().ToString(), r->first);
      ASSERT_EQ(it->value().ToString(), r->second) << r->first;
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    ASSERT_TRUE(r == model.rend());
  }
  // Keys whose live value is larger than the threshold: exactly these have
  // KV files once the DB is compacted into one level.
  std::multiset<std::string> KeysNeedingFiles() const {
    std::multiset<std::string> out;
    for (const auto& kv : model_) {
      if (kv.second.size() > kThreshold) out.insert(kv.first);
    }
    return out;
  }
  std::multiset<std::string> KeysWithFiles() const {
    std::multiset<std::string> out;
    for (const auto& f : KvFiles(dbname_)) out.insert(f.first);
    return out;
  }

  delsm_test::TempDir tmp_;
  const std::string dbname_;
  leveldb::Options options_;
  delsm::Tuning tuning_;
  // A file system a test opens db_ on: declared before db_, so that it
  // outlives the close (which still removes files through it).
  delsm_test::CountingFileSystem counting_fs_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> model_;
};

TEST_F(InlineValuesTest, FlushKeepsSmallValuesInTheMetaFile) {
  Open();
  for (int i = 0; i < 400; i++) {
    const size_t size = kSizes[i % (sizeof(kSizes) / sizeof(kSizes[0]))];
    Put(Key(i), MakeValue(Key(i), 0, size, i % 3 == 0));
  }
  Flush();
  Check(model_);
  // Only values over the threshold got a KV file.
  EXPECT_EQ(KeysWithFiles(), KeysNeedingFiles());
  // The small incompressible values are in a meta file, byte for byte.
  std::string metas;
  for (const std::string& m : MetaFiles(dbname_)) metas += ReadWhole(m);
  for (const auto& kv : model_) {
    if (kv.second.size() >= 16 && kv.second.size() <= kThreshold &&
        std::stoi(kv.first.substr(3)) % 3 != 0) {
      EXPECT_NE(metas.find(kv.second), std::string::npos) << kv.first;
    }
  }
  Open();  // reopen: read from disk only
  Check(model_);
}

TEST_F(InlineValuesTest, CompactionRewritesInlineValuesAndLinksKvFiles) {
  Open();
  for (int i = 0; i < 600; i++) {
    const size_t size = kSizes[i % (sizeof(kSizes) / sizeof(kSizes[0]))];
    Put(Key(i), MakeValue(Key(i), 0, size, i % 5 == 0));
  }
  Flush();
  // The KV files' inodes before any compaction.
  const auto before = KvFiles(dbname_);
  // An overlapping second SST: overwrite a third (across the threshold both
  // ways), delete a tenth, so the compaction merges rather than moves.
  for (int i = 0; i < 600; i += 3) {
    Put(Key(i), MakeValue(Key(i), 1, kSizes[(i / 3) % 8], i % 2 == 0));
  }
  for (int i = 1; i < 600; i += 10) Delete(Key(i));
  Flush();
  const std::map<std::string, std::string> first = model_;
  CompactAll();
  Check(model_);
  EXPECT_EQ(KeysWithFiles(), KeysNeedingFiles());
  // A KV file surviving the compaction is the same inode (linked, not
  // copied).
  const auto after = KvFiles(dbname_);
  int kept = 0;
  for (const auto& f : after) {
    const auto it = before.find(f.first);
    if (it == before.end()) continue;
    // Only keys not overwritten since the first flush keep their file.
    if (std::stoi(f.first.substr(3)) % 3 == 0) continue;
    EXPECT_EQ(f.second, it->second) << f.first;
    kept++;
  }
  EXPECT_GT(kept, 50);
  // A second round: everything rewritten once more, then reopened.
  for (int i = 0; i < 600; i += 2) {
    Put(Key(i), MakeValue(Key(i), 2, kSizes[(i / 2) % 8]));
  }
  Flush();
  CompactAll();
  Check(model_);
  EXPECT_EQ(KeysWithFiles(), KeysNeedingFiles());
  Open();
  Check(model_);
}

// An SST of inline values owns no entry of its directory but its meta
// file. Retired by a compaction that writes its replacements into the same
// directory, it leaves nothing behind once removed: the meta files on disk
// are exactly the live SSTs', and every key still reads.
TEST_F(InlineValuesTest, RetiredInlineSstsLeaveOnlyTheLiveMetaFiles) {
  tuning_.sst_entries = 64;
  Open();
  for (int round = 0; round < 4; round++) {
    for (int i = round; i < 800; i += 1 + round) {
      Put(Key(i), MakeValue(Key(i), round, 1 + (i * 7 + round) % kThreshold));
    }
    for (int i = 5 + round; i < 800; i += 37) Delete(Key(i));
    Flush();
    CompactAll();
    Check(model_);
    uint64_t live = 0;
    for (int level = 0; level < 7; level++) {
      std::string files;
      ASSERT_TRUE(db_->GetProperty(
          "leveldb.num-files-at-level" + std::to_string(level), &files));
      live += std::stoull(files);
    }
    EXPECT_EQ(live, MetaFiles(dbname_).size()) << "round " << round;
    EXPECT_TRUE(KvFiles(dbname_).empty());
  }
  Open();
  Check(model_);
}

TEST_F(InlineValuesTest, SnapshotsSeeOldInlineValuesAcrossCompaction) {
  Open();
  for (int i = 0; i < 300; i++) Put(Key(i), MakeValue(Key(i), 0, 50 + i % 200));
  Flush();
  const leveldb::Snapshot* snap = db_->GetSnapshot();
  const std::map<std::string, std::string> old_model = model_;
  for (int i = 0; i < 300; i += 2) {
    Put(Key(i), MakeValue(Key(i), 1, i % 4 == 0 ? 600 : 30));
  }
  for (int i = 1; i < 300; i += 4) Delete(Key(i));
  Flush();
  CompactAll();
  Check(old_model, snap);
  Check(model_);
  db_->ReleaseSnapshot(snap);
  CompactAll();
  Check(model_);
}

// An iterator reads inline values from the mapped meta files of the
// version it pins: overwrites, deletes and compactions made while it is
// half way (which retire the SSTs it reads, and remove them once it is
// gone) change nothing it yields, and a value slice it returned stays
// intact until it moves. Compressed and uncompressed values alike.
TEST_F(InlineValuesTest, ScanKeepsItsVersionAcrossWritesAndCompactions) {
  for (bool compress : {false, true}) {
    SCOPED_TRACE(compress ? "snappy" : "uncompressed");
    Close();
    ASSERT_TRUE(leveldb::DestroyDB(dbname_, options_).ok());
    model_.clear();
    options_.compression =
        compress ? leveldb::kSnappyCompression : leveldb::kNoCompression;
    Open();
    for (int i = 0; i < 400; i++) {
      Put(Key(i), MakeValue(Key(i), 0, 40 + i % 200));
    }
    Flush();
    CompactAll();
    for (int i = 0; i < 400; i += 3) Put(Key(i), MakeValue(Key(i), 1, 90));
    Flush();  // the scan merges an L0 SST and the level below
    const std::map<std::string, std::string> seen_model = model_;

    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ReadOptions()));
    auto m = seen_model.begin();
    it->SeekToFirst();
    for (int n = 0; n < 150; n++, ++m) {
      ASSERT_TRUE(it->Valid());
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_EQ(it->value().ToString(), m->second);
      if (n < 149) it->Next();
    }
    --m;
    const leveldb::Slice held = it->value();

    // Everything changes underneath: overwrites, deletes, compactions.
    for (int i = 0; i < 400; i += 2) Put(Key(i), MakeValue(Key(i), 2, 70));
    for (int i = 1; i < 400; i += 4) Delete(Key(i));
    Flush();
    CompactAll();
    for (int i = 0; i < 400; i += 5) Put(Key(i), MakeValue(Key(i), 3, 120));
    Flush();
    CompactAll();

    EXPECT_EQ(held.ToString(), m->second);
    for (it->Next(), ++m; it->Valid(); it->Next(), ++m) {
      ASSERT_TRUE(m != seen_model.end()) << it->key().ToString();
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_EQ(it->value().ToString(), m->second) << m->first;
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_TRUE(m == seen_model.end());
    // Backwards over the same version.
    auto r = seen_model.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_TRUE(r != seen_model.rend());
      ASSERT_EQ(it->value().ToString(), r->second) << r->first;
    }
    EXPECT_TRUE(r == seen_model.rend());
    it.reset();
    CompactAll();
    Check(model_);
  }
}

TEST_F(InlineValuesTest, RepairKeepsInlineValues) {
  Open();
  for (int i = 0; i < 500; i++) {
    const size_t size = kSizes[i % (sizeof(kSizes) / sizeof(kSizes[0]))];
    Put(Key(i), MakeValue(Key(i), 0, size, i % 2 == 0));
  }
  Flush();
  for (int i = 0; i < 500; i += 7) Put(Key(i), MakeValue(Key(i), 1, 77));
  Flush();
  CompactAll();
  for (int i = 3; i < 500; i += 11) Put(Key(i), MakeValue(Key(i), 2, 99));
  Flush();
  Close();
  // Lose the manifest: RepairDB must rebuild it from the SST directories.
  for (const std::string& name : delsm_test::ListDir(dbname_)) {
    if (name.compare(0, 8, "MANIFEST") == 0 || name == "CURRENT") {
      ASSERT_EQ(0, unlink((dbname_ + "/" + name).c_str())) << name;
    }
  }
  Status s = leveldb::RepairDB(dbname_, options_);
  ASSERT_TRUE(s.ok()) << s.ToString();
  Open();
  Check(model_);
}

// Flips one byte of the first meta file holding `needle`, at the needle.
// Returns that file's path, or an empty string.
std::string CorruptMetaAt(const std::string& dbname, const std::string& needle,
                          size_t delta = 0) {
  for (const std::string& m : MetaFiles(dbname)) {
    std::string data = ReadWhole(m);
    const size_t at = data.find(needle);
    if (at == std::string::npos) continue;
    data[at + delta] ^= 0x40;
    // Meta files are read-only to the engine, not to the test.
    std::ofstream out(m, std::ios::binary | std::ios::trunc);
    out.write(data.data(), data.size());
    return out.good() ? m : std::string();
  }
  return std::string();
}

TEST_F(InlineValuesTest, DamagedInlineValueIsCorruptionNotAWrongValue) {
  Open();
  for (int i = 0; i < 200; i++) Put(Key(i), MakeValue(Key(i), 0, 200));
  Flush();
  Close();
  const std::string victim = Key(77);
  ASSERT_FALSE(CorruptMetaAt(dbname_, model_[victim], 100).empty());
  Open();
  std::string v;
  Status s = db_->Get(ReadOptions(), victim, &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("META"), std::string::npos) << s.ToString();
  // The other values are intact and readable.
  for (int i = 0; i < 200; i++) {
    if (Key(i) == victim) continue;
    ASSERT_TRUE(db_->Get(ReadOptions(), Key(i), &v).ok()) << Key(i);
    ASSERT_EQ(v, model_[Key(i)]);
  }
  // A scan stops at the damaged value with the error (no wrong value).
  std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ReadOptions()));
  int seen = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string value = it->value().ToString();
    if (!it->Valid()) break;
    ASSERT_EQ(value, model_[it->key().ToString()]);
    seen++;
  }
  EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
  EXPECT_EQ(seen, 77);
}

TEST_F(InlineValuesTest, DamagedIndexOrTruncatedMetaIsCorruption) {
  for (int damage = 0; damage < 2; damage++) {
    SCOPED_TRACE(damage == 0 ? "index byte flipped" : "truncated");
    Close();
    delsm_test::RemoveTree(dbname_);
    model_.clear();
    Open();
    for (int i = 0; i < 100; i++) Put(Key(i), MakeValue(Key(i), 0, 100));
    Flush();
    Close();
    std::vector<std::string> metas = MetaFiles(dbname_);
    ASSERT_EQ(metas.size(), 1u);
    if (damage == 0) {
      // A key in the index (keys are stored whole there): in the fourth
      // group of 16 entries, not a group's first key (which the trailer
      // holds too).
      ASSERT_FALSE(CorruptMetaAt(dbname_, Key(50)).empty());
    } else {
      struct stat st;
      ASSERT_EQ(0, stat(metas[0].c_str(), &st));
      ASSERT_EQ(0, truncate(metas[0].c_str(), st.st_size - 5));
    }
    // Open may refuse, or reads must fail: never a wrong or missing value.
    DB* db = nullptr;
    Status s = delsm::Open(options_, tuning_, dbname_, &db);
    if (!s.ok()) {
      EXPECT_TRUE(s.IsCorruption()) << s.ToString();
      continue;
    }
    db_.reset(db);
    std::string v;
    // A read whose key is in the damaged part fails.
    s = db_->Get(ReadOptions(), Key(50), &v);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("META"), std::string::npos) << s.ToString();
    // A scan returns the entries before the damaged part, each right, and
    // then stops with its Corruption: the SST (no KV file) is read a group
    // of 16 entries at a time, so a flipped byte in the fourth group shows
    // after keys 0 to 47, none of that group's nor of any after it; a
    // truncated meta file fails the SST's open, before any entry.
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ReadOptions()));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
      ASSERT_LT(n, 100);
      EXPECT_EQ(it->key().ToString(), Key(n));
      EXPECT_EQ(it->value().ToString(), model_[Key(n)]);
    }
    EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
    EXPECT_EQ(n, damage == 0 ? 48 : 0);
  }
}

TEST_F(InlineValuesTest, PointReadOfInlineValueReadsOnlyThatValue) {
  // 2000 inline values of 250 bytes: a meta file of about half a megabyte,
  // most of it the value section.
  Open();
  for (int i = 0; i < 2000; i++) Put(Key(i), MakeValue(Key(i), 0, 250));
  Flush();
  Close();
  const std::vector<std::string> metas = MetaFiles(dbname_);
  ASSERT_EQ(metas.size(), 1u);
  struct stat st;
  ASSERT_EQ(0, stat(metas[0].c_str(), &st));
  const uint64_t meta_size = st.st_size;
  ASSERT_GT(meta_size, 500000u);

  delsm_test::CountingFileSystem& fs = counting_fs_;
  DB* db = nullptr;
  options_.block_cache = nullptr;
  Status s = leveldb::OpenWithFileSystem(options_, tuning_, dbname_, &fs, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  db_.reset(db);
  ReadOptions no_fill;
  no_fill.fill_cache = false;
  // The first read opens the SST: its footer and index, not its values.
  const uint64_t at_open = fs.bytes;
  std::string v;
  ASSERT_TRUE(db_->Get(no_fill, Key(1234), &v).ok());
  ASSERT_EQ(v, model_[Key(1234)]);
  const uint64_t first = fs.bytes - at_open;
  EXPECT_LT(first, meta_size / 4)
      << "the first read read " << first << " bytes of a " << meta_size
      << "-byte meta file";
  // Later reads of the open SST: the value alone.
  for (int i = 0; i < 2000; i += 97) {
    const uint64_t before = fs.bytes;
    const uint64_t reads_before = fs.reads;
    ASSERT_TRUE(db_->Get(no_fill, Key(i), &v).ok());
    ASSERT_EQ(v, model_[Key(i)]);
    EXPECT_EQ(fs.bytes - before, 250u) << Key(i);
    EXPECT_EQ(fs.reads - reads_before, 1u) << Key(i);
  }
  // A cached value costs no read at all.
  ASSERT_TRUE(db_->Get(ReadOptions(), Key(5), &v).ok());
  const uint64_t before = fs.bytes;
  ASSERT_TRUE(db_->Get(ReadOptions(), Key(5), &v).ok());
  EXPECT_EQ(fs.bytes, before);
  ASSERT_EQ(v, model_[Key(5)]);
}

// Values cross the threshold both ways across compactions: SSTs without
// KV files (which hold no directory descriptor, and so stay open past
// max_open_files) merge with overwrites just past the threshold into SSTs
// with KV files, and those back into SSTs without any. Every value reads
// back after each round and after a reopen, and exactly the values past
// the threshold have KV files.
TEST_F(InlineValuesTest, CompactionMovesValuesIntoKvFilesAndBack) {
  tuning_.sst_entries = 16;
  options_.max_open_files = 74;  // the least: 64 descriptors for SSTs
  Open();
  constexpr int kKeys = 1200;  // 75 SSTs once compacted
  for (int i = 0; i < kKeys; i++) {
    Put(Key(i), MakeValue(Key(i), 0, kThreshold - i % 3, i % 4 == 0));
  }
  Flush();
  CompactAll();
  Check(model_);
  EXPECT_TRUE(KvFiles(dbname_).empty());
  for (int i = 0; i < kKeys; i += 2) {
    Put(Key(i), MakeValue(Key(i), 1, kThreshold + 1 + i % 3, i % 4 == 0));
  }
  Flush();
  CompactAll();
  Check(model_);
  EXPECT_FALSE(KeysNeedingFiles().empty());
  EXPECT_EQ(KeysWithFiles(), KeysNeedingFiles());
  for (int i = 0; i < kKeys; i += 2) {
    if (i % 10 == 0) {
      Delete(Key(i));
    } else {
      Put(Key(i), MakeValue(Key(i), 2, kThreshold - i % 2, i % 4 == 0));
    }
  }
  Flush();
  CompactAll();
  Check(model_);
  EXPECT_TRUE(KeysNeedingFiles().empty());
  EXPECT_TRUE(KvFiles(dbname_).empty());
  Open();
  Check(model_);
}

// An SST of inline values and tombstones holds no directory descriptor
// once open. A trivial move renames its directory to the next level while
// an iterator over the older version is reading it: the iterator still
// yields every entry of its version, and the new version reads every key
// at the new level.
TEST_F(InlineValuesTest, TrivialMoveUnderAnOpenIteratorOfInlineSsts) {
  tuning_.l0_compaction_dirs = 4;
  Open();
  // Flushes of disjoint key ranges: no SST overlaps another, so the L0
  // compaction the fourth one starts moves an SST by a rename.
  auto flush_range = [&](int first) {
    for (int i = first; i < first + 200; i++) {
      if (i % 9 == 4) {
        Delete(Key(i));
      } else {
        Put(Key(i), MakeValue(Key(i), 0, i % (kThreshold + 1), i % 2 == 0));
      }
    }
    Flush();
  };
  for (int r = 0; r < 3; r++) flush_range(r * 1000);
  const std::map<std::string, std::string> old_model = model_;
  std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ReadOptions()));
  auto m = old_model.begin();
  it->SeekToFirst();
  for (int n = 0; n < 50; n++, it->Next(), ++m) {
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->key().ToString(), m->first);
  }
  auto renames = [&]() {
    std::string v;
    EXPECT_TRUE(db_->GetProperty("delsm.renames", &v));
    return std::stoull(v);
  };
  const uint64_t renames_before = renames();
  flush_range(3000);
  ASSERT_TRUE(impl()->TEST_WaitForBackgroundWork().ok());
  ASSERT_GT(renames(), renames_before);
  EXPECT_FALSE(delsm_test::ListDir(dbname_ + "/L1").empty());
  for (; it->Valid(); it->Next(), ++m) {
    ASSERT_TRUE(m != old_model.end()) << "extra key " << it->key().ToString();
    ASSERT_EQ(it->key().ToString(), m->first);
    ASSERT_EQ(it->value().ToString(), m->second) << m->first;
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  ASSERT_TRUE(m == old_model.end()) << "missing key " << m->first;
  // Backwards over the whole older version too.
  auto r = old_model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
    ASSERT_TRUE(r != old_model.rend());
    ASSERT_EQ(it->key().ToString(), r->first);
    ASSERT_EQ(it->value().ToString(), r->second) << r->first;
  }
  ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  ASSERT_TRUE(r == old_model.rend());
  it.reset();
  Check(model_);
  Open();
  Check(model_);
}

}  // namespace
