// Corruption tests: damage one file of a closed DB (WAL, MANIFEST, CURRENT,
// an SST directory's META, a KV file) and check that the damage is either
// reported as Corruption naming the file or handled the way LevelDB
// documents for the given options, and that RepairDB salvages what is
// intact.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "tests/file_bytes.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::FileSize;
using delsm_test::FlipByte;
using delsm_test::ListDir;
using delsm_test::ReadWhole;
using delsm_test::TempDir;
using delsm_test::WriteWhole;

constexpr int kCompactedKeys = 1200;  // end up below L0
constexpr int kL0Keys = 200;          // one flush to L0
constexpr int kWalKeys = 160;         // only in the WAL
constexpr int kAllKeys = kCompactedKeys + kL0Keys + kWalKeys;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// Values differ per key so that a read of the wrong file shows.
std::string Value(int i) {
  std::string v(200 + i % 100, 'a' + i % 26);
  std::snprintf(&v[0], v.size(), "%06d", i);
  v[6] = '.';
  return v;
}

// A physical record of the log format (WAL and MANIFEST): where its payload
// starts in the file and how long it is.
struct PhysicalRecord {
  uint64_t header_offset;
  uint64_t payload_offset;
  uint32_t length;
};

// Walks the physical records of a log-format file written by the engine
// (32 KiB blocks; 7-byte headers: crc32c, little-endian length, type).
std::vector<PhysicalRecord> LogRecords(const std::string& data) {
  constexpr uint64_t kBlock = 32768, kHeader = 7;
  std::vector<PhysicalRecord> records;
  uint64_t pos = 0;
  while (pos + kHeader <= data.size()) {
    const uint64_t left_in_block = kBlock - pos % kBlock;
    if (left_in_block < kHeader) {
      pos += left_in_block;
      continue;
    }
    const uint32_t length =
        static_cast<uint8_t>(data[pos + 4]) |
        (static_cast<uint32_t>(static_cast<uint8_t>(data[pos + 5])) << 8);
    const int type = static_cast<uint8_t>(data[pos + 6]);
    if (type == 0 && length == 0) {
      pos += left_in_block;
      continue;
    }
    records.push_back({pos, pos + kHeader, length});
    pos += kHeader + length;
  }
  return records;
}

class CorruptionTest : public testing::Test {
 protected:
  CorruptionTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    // Without compression a KV file holds the value bytes as they are, so
    // a flipped byte shows up as a flipped byte of the value.
    options_.compression = kNoCompression;
    // Pure mode: every value a KV file, the files these tests damage
    // (inline values' damage: tests/inline_values_test.cc).
    tuning_.inline_threshold = 0;
    tuning_.l0_compaction_entries = 400;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
  }

  Status Open(const Options& options, DB** db) {
    *db = nullptr;
    return delsm::Open(options, tuning_, dbname_, db);
  }

  // Builds a DB with directories below L0, one L0 directory and the last
  // kWalKeys writes only in the WAL; records in wal_end_ where each WAL-only
  // key's record ends in the WAL. Closes it.
  void Fill() {
    DB* db;
    Status s = Open(options_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> owner(db);
    DBImpl* impl = static_cast<DBImpl*>(db);
    for (int i = 0; i < kCompactedKeys; i++) {
      s = db->Put(WriteOptions(), Key(i), Value(i));
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    db->CompactRange(nullptr, nullptr);
    for (int i = kCompactedKeys; i < kCompactedKeys + kL0Keys; i++) {
      s = db->Put(WriteOptions(), Key(i), Value(i));
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    s = impl->TEST_FlushMemTable();
    ASSERT_TRUE(s.ok()) << s.ToString();
    s = impl->TEST_WaitForBackgroundWork();
    ASSERT_TRUE(s.ok()) << s.ToString();
    wal_ = LiveWal();
    ASSERT_FALSE(wal_.empty());
    for (int i = kCompactedKeys + kL0Keys; i < kAllKeys; i++) {
      s = db->Put(WriteOptions(), Key(i), Value(i));
      ASSERT_TRUE(s.ok()) << s.ToString();
      wal_end_[i] = FileSize(wal_);  // the writer flushes every record
    }
    std::string deeper;
    int below_l0 = 0;
    for (int level = 1; level < 7; level++) {
      ASSERT_TRUE(db->GetProperty(
          "leveldb.num-files-at-level" + std::to_string(level), &deeper));
      below_l0 += std::stoi(deeper);
    }
    ASSERT_GT(below_l0, 0);
    std::string l0;
    ASSERT_TRUE(db->GetProperty("leveldb.num-files-at-level0", &l0));
    ASSERT_GT(std::stoi(l0), 0);
    ASSERT_GT(FileSize(wal_), 32768u) << "the WAL should span two blocks";
  }

  // The newest .log file in the DB directory.
  std::string LiveWal() {
    std::string best;
    for (const std::string& name : ListDir(dbname_)) {
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0 &&
          (best.empty() || name > best)) {
        best = name;
      }
    }
    return best.empty() ? best : dbname_ + "/" + best;
  }

  std::string ManifestPath() {
    std::string current;
    EXPECT_TRUE(ReadWhole(dbname_ + "/CURRENT", &current));
    if (!current.empty() && current.back() == '\n') current.pop_back();
    return dbname_ + "/" + current;
  }

  // An SST directory below L0 with KV files, and one key stored there.
  bool DeepSstDir(std::string* dir, int* key_index) {
    for (int level = 1; level < 7; level++) {
      const std::string ldir = dbname_ + "/L" + std::to_string(level);
      for (const std::string& d : ListDir(ldir)) {
        for (const std::string& f : ListDir(ldir + "/" + d)) {
          if (f.rfind("key", 0) == 0 && f.size() > 9 && f[9] == '@') {
            *dir = ldir + "/" + d;
            *key_index = std::stoi(f.substr(3, 6));
            return true;
          }
        }
      }
    }
    return false;
  }

  // Fill(), then a KV file in an SST directory below L0: sets *dir to the
  // directory, *key_index to its key and *kv_name to its name.
  void FillAndFindDeepKvFile(std::string* dir, int* key_index,
                             std::string* kv_name) {
    Fill();
    ASSERT_TRUE(DeepSstDir(dir, key_index));
    for (const std::string& f : ListDir(*dir)) {
      if (f.rfind(Key(*key_index) + "@", 0) == 0) *kv_name = f;
    }
    ASSERT_FALSE(kv_name->empty());
  }

  // Keys [0, end) of `db` read back with their values.
  static void CheckKeysBelow(DB* db, int end) {
    for (int i = 0; i < end; i++) {
      std::string v;
      Status s = db->Get(ReadOptions(), Key(i), &v);
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i), v) << Key(i);
    }
  }

  // Every key reads back with its value.
  void CheckAll(const Options& options) {
    DB* db;
    Status s = Open(options, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> owner(db);
    CheckKeysBelow(db, kAllKeys);
  }

  void RepairAndCheckAll() {
    Status s = RepairDB(dbname_, options_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    CheckAll(options_);
  }

  TempDir tmp_{"delsm_corruption"};
  const std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
  std::string wal_;
  std::map<int, uint64_t> wal_end_;
};

// A WAL whose last record was cut short is what a crash mid-write leaves:
// LevelDB drops the torn record silently, with or without paranoid_checks.
TEST_F(CorruptionTest, WalTruncatedTail) {
  Fill();
  ASSERT_EQ(0, truncate(wal_.c_str(), FileSize(wal_) - 5));
  for (bool paranoid : {false, true}) {
    SCOPED_TRACE(paranoid ? "paranoid_checks" : "no paranoid_checks");
    Options options = options_;
    options.paranoid_checks = paranoid;
    DB* db;
    Status s = Open(options, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::unique_ptr<DB> owner(db);
    ASSERT_NO_FATAL_FAILURE(CheckKeysBelow(db, kAllKeys - 1));
    std::string v;
    s = db->Get(ReadOptions(), Key(kAllKeys - 1), &v);
    EXPECT_TRUE(s.IsNotFound()) << "torn record replayed: " << s.ToString();
  }
}

// The WAL record holding the middle of the file, and the first WAL-only key
// whose record ends after that record starts.
void DamageWalMiddle(const std::string& wal,
                     const std::map<int, uint64_t>& wal_end,
                     int* first_maybe_lost) {
  std::string data;
  ASSERT_TRUE(ReadWhole(wal, &data));
  const uint64_t middle = data.size() / 2;
  for (const PhysicalRecord& r : LogRecords(data)) {
    if (r.payload_offset + r.length > middle) {
      ASSERT_GT(r.length, 2u);
      ASSERT_TRUE(FlipByte(wal, r.payload_offset + r.length / 2));
      *first_maybe_lost = kAllKeys;
      for (const auto& kv : wal_end) {
        if (kv.second > r.header_offset) {
          *first_maybe_lost = kv.first;
          break;
        }
      }
      ASSERT_LT(*first_maybe_lost, kAllKeys);
      return;
    }
  }
  FAIL() << "no WAL record found past the middle of " << wal;
}

TEST_F(CorruptionTest, WalFlippedByteWithoutParanoidChecks) {
  Fill();
  int first_maybe_lost = 0;
  DamageWalMiddle(wal_, wal_end_, &first_maybe_lost);
  DB* db;
  Status s = Open(options_, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> owner(db);
  int lost = 0;
  for (int i = 0; i < kAllKeys; i++) {
    std::string v;
    s = db->Get(ReadOptions(), Key(i), &v);
    if (i >= first_maybe_lost && s.IsNotFound()) {
      lost++;
      continue;
    }
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    ASSERT_EQ(Value(i), v) << Key(i);
  }
  EXPECT_GT(lost, 0) << "the damaged record cannot have been replayed";
}

TEST_F(CorruptionTest, WalFlippedByteWithParanoidChecks) {
  Fill();
  int first_maybe_lost = 0;
  DamageWalMiddle(wal_, wal_end_, &first_maybe_lost);
  Options options = options_;
  options.paranoid_checks = true;
  DB* db;
  Status s = Open(options, &db);
  delete db;
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  const std::string wal_name = wal_.substr(wal_.rfind('/') + 1);
  EXPECT_NE(std::string::npos, s.ToString().find(wal_name)) << s.ToString();
}

TEST_F(CorruptionTest, ManifestFlippedByte) {
  Fill();
  const std::string manifest = ManifestPath();
  std::string data;
  ASSERT_TRUE(ReadWhole(manifest, &data));
  std::vector<PhysicalRecord> records = LogRecords(data);
  ASSERT_FALSE(records.empty());
  // The largest record: the version snapshot or a compaction's edit.
  const PhysicalRecord* victim = &records[0];
  for (const PhysicalRecord& r : records) {
    if (r.length > victim->length) victim = &r;
  }
  ASSERT_GT(victim->length, 2u);
  ASSERT_TRUE(FlipByte(manifest, victim->payload_offset + victim->length / 2));
  DB* db;
  Status s = Open(options_, &db);
  delete db;
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  const std::string manifest_name = manifest.substr(manifest.rfind('/') + 1);
  EXPECT_NE(std::string::npos, s.ToString().find(manifest_name))
      << s.ToString();
  RepairAndCheckAll();
}

// Damaged CURRENT: open refuses with a status naming CURRENT; RepairDB
// writes a new manifest and CURRENT.
class CurrentCorruptionTest : public CorruptionTest {
 protected:
  void Run(const std::string& contents) {
    Fill();
    ASSERT_TRUE(WriteWhole(dbname_ + "/CURRENT", contents));
    DB* db;
    Status s = Open(options_, &db);
    delete db;
    ASSERT_FALSE(s.ok()) << "opened with CURRENT = \"" << contents << "\"";
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("CURRENT")) << s.ToString();
    RepairAndCheckAll();
  }
};

TEST_F(CurrentCorruptionTest, Garbage) { Run("\x01\xff garbage/../x\n"); }

TEST_F(CurrentCorruptionTest, MissingNewline) {
  // The right manifest name, but without its newline.
  Fill();
  std::string current;
  ASSERT_TRUE(ReadWhole(dbname_ + "/CURRENT", &current));
  ASSERT_FALSE(current.empty());
  ASSERT_EQ('\n', current.back());
  current.pop_back();
  ASSERT_TRUE(WriteWhole(dbname_ + "/CURRENT", current));
  DB* db;
  Status s = Open(options_, &db);
  delete db;
  ASSERT_FALSE(s.ok()) << "opened with CURRENT lacking its newline";
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find("CURRENT")) << s.ToString();
  RepairAndCheckAll();
}

TEST_F(CurrentCorruptionTest, Empty) { Run(""); }

TEST_F(CurrentCorruptionTest, NamesMissingManifest) {
  Run("MANIFEST-999999\n");
}

TEST_F(CorruptionTest, MetaFlippedByte) {
  Fill();
  std::string dir;
  int key = -1;
  ASSERT_TRUE(DeepSstDir(&dir, &key));
  const std::string meta = dir + "/META";
  // A byte of the key's own entry (its first occurrence in the file: every
  // value is a KV file, and the entries come before the trailer, which
  // repeats some keys): the group the key's lookup reads.
  std::string data;
  ASSERT_TRUE(ReadWhole(meta, &data));
  const size_t at = data.find(Key(key));
  ASSERT_NE(at, std::string::npos);
  ASSERT_TRUE(FlipByte(meta, at + 4));

  DB* db;
  Status s = Open(options_, &db);
  if (s.ok()) {
    std::unique_ptr<DB> owner(db);
    std::string v;
    s = db->Get(ReadOptions(), Key(key), &v);
    ASSERT_TRUE(s.IsCorruption()) << Key(key) << ": " << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(meta)) << s.ToString();
    // A full scan reaches the directory too and must not end silently.
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    int seen = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) seen++;
    ASSERT_TRUE(it->status().IsCorruption())
        << "scan saw " << seen << " keys; " << it->status().ToString();
    EXPECT_NE(std::string::npos, it->status().ToString().find(meta))
        << it->status().ToString();
  } else {
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(meta)) << s.ToString();
  }
  // Every KV file survives, so every key comes back.
  RepairAndCheckAll();
}

TEST_F(CorruptionTest, KvFileFlippedByte) {
  std::string dir, kv_name;
  int key = -1;
  ASSERT_NO_FATAL_FAILURE(FillAndFindDeepKvFile(&dir, &key, &kv_name));
  const std::string kv = dir + "/" + kv_name;
  const std::string original = Value(key);
  ASSERT_EQ(original.size(), FileSize(kv)) << "KV file should hold the value";
  const size_t at = original.size() / 2;
  ASSERT_TRUE(FlipByte(kv, at));

  DB* db;
  Status s = Open(options_, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> owner(db);
  ReadOptions verify;
  verify.verify_checksums = true;
  std::string v;
  s = db->Get(verify, Key(key), &v);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(kv_name)) << s.ToString();

  // Without verify_checksums too: LevelDB would return the unverified
  // bytes, but a KV file, unlike a LevelDB table, may be unsynced when the
  // power goes (kDeferred after its WAL expired) and come back zero-filled
  // at its full size, so every KV file read is checked, as inline values
  // always were.
  s = db->Get(ReadOptions(), Key(key), &v);
  ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(std::string::npos, s.ToString().find(kv_name)) << s.ToString();

  // Other keys are unaffected, even with checks.
  for (int i = 0; i < kAllKeys; i++) {
    if (i == key) continue;
    s = db->Get(verify, Key(i), &v);
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    ASSERT_EQ(Value(i), v) << Key(i);
  }
}

TEST_F(CorruptionTest, KvFileTruncated) {
  std::string dir, kv_name;
  int key = -1;
  ASSERT_NO_FATAL_FAILURE(FillAndFindDeepKvFile(&dir, &key, &kv_name));
  const std::string kv = dir + "/" + kv_name;
  ASSERT_EQ(0, truncate(kv.c_str(), FileSize(kv) / 2));

  DB* db;
  Status s = Open(options_, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<DB> owner(db);
  for (bool check : {true, false}) {
    SCOPED_TRACE(check ? "verify_checksums" : "no verify_checksums");
    ReadOptions ro;
    ro.verify_checksums = check;
    std::string v;
    s = db->Get(ro, Key(key), &v);
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(kv_name)) << s.ToString();
  }
}

}  // namespace
}  // namespace leveldb
