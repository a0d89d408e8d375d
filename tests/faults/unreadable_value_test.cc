// When a KV file cannot be read (its bytes fail the
// checksum under verify_checksums, or the read itself fails), a DB iterator
// must never show a value other than the stored one: every position it
// shows has the value that was written, and it stops (!Valid()) with the
// error in status() instead of showing an empty value or silently skipping
// the rest of the SST. Public API on a real file system.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

constexpr int kKeys = 600;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// Distinct, incompressible-enough values of 1000 bytes.
std::string Value(int i) {
  std::string v(1000, '\0');
  uint32_t x = static_cast<uint32_t>(i) * 2654435761u + 1;
  for (char& c : v) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return v;
}

// Paths of every KV file of `key` under the DB's level directories.
std::vector<std::string> KvFilesOf(const std::string& dbname,
                                   const std::string& key) {
  std::vector<std::string> found;
  for (const std::string& level : delsm_test::ListDir(dbname)) {
    if (level.size() != 2 || level[0] != 'L') continue;
    const std::string level_path = dbname + "/" + level;
    for (const std::string& dir : delsm_test::ListDir(level_path)) {
      const std::string dir_path = level_path + "/" + dir;
      for (const std::string& name : delsm_test::ListDir(dir_path)) {
        if (name.compare(0, key.size() + 1, key + "@") == 0) {
          found.push_back(dir_path + "/" + name);
        }
      }
    }
  }
  return found;
}

enum class Damage { kFlippedByte, kMissing, kDirectoryInstead };

class UnreadableValueTest : public testing::TestWithParam<Damage> {
 protected:
  UnreadableValueTest() : parent_("delsm_unreadable") {
    dbname_ = parent_.path() + "/db";
  }

  void SetUp() override {
    ASSERT_FALSE(parent_.path().empty());
    Options options;
    options.create_if_missing = true;
    options.compression = leveldb::kNoCompression;
    options.write_buffer_size = 200 << 10;  // several SSTs
    // Every value in a KV file (pure mode), whatever the default
    // inline_threshold: the test damages KV files.
    delsm::Tuning tuning;
    tuning.inline_threshold = 0;
    DB* db = nullptr;
    ASSERT_OK(delsm::Open(options, tuning, dbname_, &db));
    db_.reset(db);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i)));
    }
    db_->CompactRange(nullptr, nullptr);
    // Damage one value in the middle of an SST's range.
    const std::vector<std::string> files = KvFilesOf(dbname_, Key(kBad));
    ASSERT_EQ(files.size(), 1u);
    const std::string& path = files[0];
    switch (GetParam()) {
      case Damage::kFlippedByte: {
        FILE* f = std::fopen(path.c_str(), "r+b");
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(std::fseek(f, 500, SEEK_SET), 0);
        int c = std::fgetc(f);
        ASSERT_NE(c, EOF);
        ASSERT_EQ(std::fseek(f, 500, SEEK_SET), 0);
        ASSERT_NE(std::fputc(c ^ 0x5a, f), EOF);
        ASSERT_EQ(std::fclose(f), 0);
        break;
      }
      case Damage::kMissing:
        ASSERT_EQ(unlink(path.c_str()), 0);
        break;
      case Damage::kDirectoryInstead:
        // open() succeeds, read() fails with EISDIR: a read error.
        ASSERT_EQ(unlink(path.c_str()), 0);
        ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
        break;
    }
  }

  ReadOptions Reads() const {
    ReadOptions ro;
    // A flipped byte is found by the checksum only; a missing or unreadable
    // file must be an error either way.
    ro.verify_checksums = GetParam() == Damage::kFlippedByte;
    ro.fill_cache = false;
    return ro;
  }

  static constexpr int kBad = kKeys / 2 + 7;

  delsm_test::TempDir parent_;
  std::string dbname_;
  std::unique_ptr<DB> db_;
};

TEST_P(UnreadableValueTest, GetReportsTheError) {
  std::string value;
  Status s = db_->Get(Reads(), Key(kBad), &value);
  EXPECT_FALSE(s.ok()) << "got a value of " << value.size() << " bytes";
  ASSERT_OK(db_->Get(Reads(), Key(kBad - 1), &value));
  EXPECT_TRUE(value == Value(kBad - 1));
}

TEST_P(UnreadableValueTest, ForwardScanStopsWithTheError) {
  std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(Reads()));
  int i = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), i++) {
    ASSERT_LT(i, kKeys);
    ASSERT_EQ(it->key().ToString(), Key(i));
    ASSERT_TRUE(it->value() == Value(i))
        << "position " << i << " shows a value of " << it->value().size()
        << " bytes that was never written";
  }
  EXPECT_FALSE(it->status().ok()) << "the scan ended at " << i << " of "
                                  << kKeys << " keys without an error";
  EXPECT_EQ(i, kBad) << "stopped before reaching the damaged value";
}

TEST_P(UnreadableValueTest, BackwardScanStopsWithTheError) {
  std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(Reads()));
  int i = kKeys - 1;
  for (it->SeekToLast(); it->Valid(); it->Prev(), i--) {
    ASSERT_GE(i, 0);
    ASSERT_EQ(it->key().ToString(), Key(i));
    ASSERT_TRUE(it->value() == Value(i))
        << "position " << i << " shows a value never written";
  }
  EXPECT_FALSE(it->status().ok());
  EXPECT_EQ(i, kBad);
}

TEST_P(UnreadableValueTest, SeekOntoTheDamagedValueIsNotValid) {
  std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(Reads()));
  it->Seek(Key(kBad));
  if (it->Valid()) {
    ASSERT_EQ(it->key().ToString(), Key(kBad));
    ASSERT_TRUE(it->value() == Value(kBad)) << "shows a value never written";
  }
  EXPECT_FALSE(it->status().ok());
  // A fresh seek elsewhere in a fresh iterator still works.
  std::unique_ptr<leveldb::Iterator> it2(db_->NewIterator(Reads()));
  it2->Seek(Key(kBad + 1));
  ASSERT_TRUE(it2->Valid());
  ASSERT_TRUE(it2->value() == Value(kBad + 1));
}

INSTANTIATE_TEST_SUITE_P(Damages, UnreadableValueTest,
                         testing::Values(Damage::kFlippedByte, Damage::kMissing,
                                         Damage::kDirectoryInstead));

}  // namespace
