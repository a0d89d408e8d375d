// A key whose KV file name is at the length limit must
// never make a flush fail (a compressed value adds a 'z' to the name), and a
// database must open again whatever its WAL holds. Sweeps key lengths 1-300
// of printable, escaped and '/' bytes with values snappy shrinks by whole
// blocks and values it cannot shrink, through flushes, WAL replay, a full
// compaction and two reopens. Public API only.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>

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

enum KeyKind { kPrintable, kEscaped, kSlashes };

// A key of exactly `len` bytes. `variant` (0 or 1) is its first byte's
// choice, so the compressible and incompressible copies are distinct keys
// of the same length and escaped length.
//  - kPrintable: letters only; escaped length == len (240 hits the limit).
//  - kEscaped: bytes >= 0x80; each escapes to 3 characters (80 -> 240).
//  - kSlashes: a URL-like mix, every third byte '/', so the escaped lengths
//    step by 1 and 3 and pass the limit from both sides.
std::string MakeKey(KeyKind kind, size_t len, int variant) {
  std::string key;
  for (size_t i = 0; i < len; i++) {
    switch (kind) {
      case kPrintable:
        key.push_back(static_cast<char>('a' + (i * 7 + variant) % 26));
        break;
      case kEscaped:
        key.push_back(static_cast<char>(0x80 + (i * 5 + variant) % 120));
        break;
      case kSlashes:
        key.push_back(i % 3 == 2 ? '/'
                                 : static_cast<char>('A' + (i + variant) % 26));
        break;
    }
  }
  return key;
}

// 6000 bytes: two 4 KiB blocks stored plain, one when snappy compresses
// the compressible kind.
std::string MakeValue(bool compressible, uint32_t seed) {
  std::string v(6000, '\0');
  std::mt19937 rng(seed);
  for (size_t i = 0; i < v.size(); i++) {
    v[i] = compressible ? static_cast<char>('a' + (i / 100 + seed) % 26)
                        : static_cast<char>(rng());
  }
  return v;
}

class KeyNameLengthTest : public testing::Test {
 protected:
  KeyNameLengthTest() : parent_("delsm_keyname") {
    dbname_ = parent_.path() + "/db";
  }

  Options DbOptions() const {
    Options options;
    options.create_if_missing = true;
    options.compression = leveldb::kSnappyCompression;
    // Flushes happen while the sweep is written, and its tail stays in the
    // WAL for the first reopen to replay.
    options.write_buffer_size = 1 << 20;
    return options;
  }

  void Reopen() {
    db_.reset();
    DB* db = nullptr;
    Status s = DB::Open(DbOptions(), dbname_, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    db_.reset(db);
  }

  void CheckAll(const char* phase) {
    ReadOptions ro;
    ro.verify_checksums = true;
    for (const auto& kv : expected_) {
      std::string value;
      Status s = db_->Get(ro, kv.first, &value);
      ASSERT_TRUE(s.ok()) << phase << ": key of " << kv.first.size()
                          << " bytes: " << s.ToString();
      ASSERT_TRUE(value == kv.second)
          << phase << ": key of " << kv.first.size() << " bytes";
    }
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ro));
    auto want = expected_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++want) {
      ASSERT_TRUE(want != expected_.end()) << phase;
      ASSERT_EQ(it->key().ToString(), want->first) << phase;
      ASSERT_TRUE(it->value() == want->second) << phase;
    }
    ASSERT_OK(it->status());
    ASSERT_TRUE(want == expected_.end()) << phase;
  }

  delsm_test::TempDir parent_;
  std::string dbname_;
  std::unique_ptr<DB> db_;
  std::map<std::string, std::string> expected_;
};

TEST_F(KeyNameLengthTest, EveryKeyLengthSurvivesFlushCompactionAndReopen) {
  ASSERT_FALSE(parent_.path().empty());
  Reopen();
  uint32_t seed = 1;
  for (size_t len = 1; len <= 300; len++) {
    for (KeyKind kind : {kPrintable, kEscaped, kSlashes}) {
      for (int variant = 0; variant < 2; variant++) {
        const std::string key = MakeKey(kind, len, variant);
        const std::string value = MakeValue(variant == 0, seed++);
        ASSERT_OK(db_->Put(WriteOptions(), key, value));
        expected_[key] = value;
      }
    }
  }
  ASSERT_NO_FATAL_FAILURE(CheckAll("after writing"));
  // The memtable's tail is in the WAL only: this open replays and flushes it.
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(CheckAll("after the first reopen"));
  // Overwrite a third so the compaction drops old versions as well.
  for (auto& kv : expected_) {
    if (seed++ % 3 != 0) continue;
    kv.second = MakeValue(seed % 2 == 0, seed);
    ASSERT_OK(db_->Put(WriteOptions(), kv.first, kv.second));
  }
  db_->CompactRange(nullptr, nullptr);
  ASSERT_NO_FATAL_FAILURE(CheckAll("after a full compaction"));
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(CheckAll("after the second reopen"));
  // A write after all this still succeeds (no sticky background error).
  ASSERT_OK(db_->Put(WriteOptions(), "after", "ok"));
  expected_["after"] = "ok";
  ASSERT_NO_FATAL_FAILURE(CheckAll("after a last write"));
}

}  // namespace
