// Any key LevelDB accepts and values of
// any length round-trip through Put/Get/iteration, flushes, a full
// compaction and reopens, and no key can make the engine touch anything
// outside the database directory. Public API only.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Status;
using leveldb::WriteOptions;

// Names that a careless key-to-file-name mapping would create outside the
// database directory; the keys that would put them there point into the
// test's own parent directory, and the test checks none of them appears.
const char* const kEscapeNames[] = {"delsm_keys_escape_probe",
                                    "delsm_keys_escape_probe2"};

std::string Printable(const std::string& key) {
  std::string out;
  for (unsigned char c : key.substr(0, 40)) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  if (key.size() > 40) out += "...(" + std::to_string(key.size()) + " bytes)";
  return out;
}

// A value of exactly `len` bytes whose content depends on `seed`, with
// every byte value occurring.
std::string MakeValue(size_t len, uint32_t seed) {
  std::string v(len, '\0');
  std::mt19937 rng(seed);
  size_t i = 0;
  // Random words for speed; the 64 MiB value is built in well under a second.
  for (; i + 4 <= len; i += 4) {
    uint32_t r = rng();
    std::memcpy(&v[i], &r, 4);
  }
  for (; i < len; i++) v[i] = static_cast<char>(rng());
  return v;
}

class KeysTest : public testing::Test {
 protected:
  KeysTest() : parent_("delsm_keys") { dbname_ = parent_.path() + "/db"; }

  void SetUp() override {
    ASSERT_FALSE(parent_.path().empty());
    ASSERT_EQ(0, stat("/etc/passwd", &passwd_before_));
    BuildKeys();
  }

  void BuildKeys() {
    // Every single-byte key, 0x00 through 0xff.
    for (int b = 0; b < 256; b++) keys_.push_back(std::string(1, char(b)));
    // Keys mixing bytes: all 256 values in one key, both orders; pairs
    // around the special bytes.
    std::string all, all_rev;
    for (int b = 0; b < 256; b++) all.push_back(char(b));
    for (int b = 255; b >= 0; b--) all_rev.push_back(char(b));
    keys_.push_back(all);
    keys_.push_back(all_rev);
    for (const char* special : {"\0", "/", ".", "\xff", "\n", "\\", "%"}) {
      std::string s(special, special[0] == '\0' ? 1 : std::strlen(special));
      keys_.push_back(s + s);
      keys_.push_back("a" + s + "b");
      keys_.push_back(s + "x" + s);
    }
    for (const char* k :
         {"..", "...", "../x", "./x", "x/..", "x/../..", "/etc/passwd",
          "/delsm_keys_escape_probe", "../delsm_keys_escape_probe", "LOCK",
          "CURRENT", "META", "L0", "000001.log", "MANIFEST-000001", "a b",
          "UPPER", "upper", "\xc3\xa9t\xc3\xa9"}) {
      keys_.push_back(k);
    }
    // Escapes into the parent directory by a path relative to the root (from
    // any depth below 32) and by an absolute path.
    std::string up;
    for (int i = 0; i < 32; i++) up += "../";
    keys_.push_back(up + parent_.path().substr(1) + "/" + kEscapeNames[0]);
    keys_.push_back(parent_.path() + "/" + kEscapeNames[1]);
    keys_.push_back("");  // the empty key
    // Long keys around the 255-byte file-name limit and far beyond.
    std::mt19937 rng(11);
    for (size_t len : {254, 255, 256, 257, 4096, 65536}) {
      keys_.push_back(std::string(len, 'k'));
      keys_.push_back(std::string(len, '/'));
      keys_.push_back(std::string(len, '.'));
      std::string r(len, '\0');
      for (char& c : r) c = static_cast<char>(rng());
      keys_.push_back(r);
      // Same long prefix, differing only in the last byte.
      std::string p = std::string(len - 1, 'p');
      keys_.push_back(p + "1");
      keys_.push_back(p + "2");
    }

    // Drop duplicates (".." is also "." twice), keeping the first.
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (const std::string& k : keys_) {
      if (seen.insert(k).second) unique.push_back(k);
    }
    keys_.swap(unique);

    // Values: the sizes of the contract, spread over the keys; the big ones
    // only on a few keys to keep the test's footprint modest.
    const size_t kSizes[] = {0, 1, 4095, 4096, 4097, 100, 10};
    for (size_t i = 0; i < keys_.size(); i++) {
      size_t len = kSizes[i % (sizeof(kSizes) / sizeof(kSizes[0]))];
      if (keys_[i].empty()) len = 1 << 20;  // 1 MiB under the empty key
      if (keys_[i] == all) len = 64 << 20;  // 64 MiB
      if (keys_[i] == std::string(1, '\0')) len = 1 << 20;
      if (keys_[i] == "..") len = 4096;
      model_[keys_[i]] = MakeValue(len, static_cast<uint32_t>(i));
    }
    ASSERT_EQ(keys_.size(), model_.size()) << "duplicate key in the list";
  }

  Status Open(size_t write_buffer_size) {
    db_.reset();
    Options options;
    options.create_if_missing = true;
    options.write_buffer_size = write_buffer_size;
    DB* db = nullptr;
    Status s = DB::Open(options, dbname_, &db);
    db_.reset(db);
    return s;
  }

  // Checks every key of the model with Get and by forward and backward
  // iteration, and that deleted keys are gone.
  void Verify(const std::string& phase) {
    SCOPED_TRACE(phase);
    for (const auto& kv : model_) {
      std::string value;
      Status s = db_->Get(ReadOptions(), kv.first, &value);
      ASSERT_TRUE(s.ok()) << Printable(kv.first) << ": " << s.ToString();
      ASSERT_TRUE(value == kv.second)
          << Printable(kv.first) << ": value of " << value.size()
          << " bytes differs from the " << kv.second.size() << " written";
    }
    for (const std::string& k : deleted_) {
      std::string value;
      Status s = db_->Get(ReadOptions(), k, &value);
      ASSERT_TRUE(s.IsNotFound()) << Printable(k) << ": " << s.ToString();
    }
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ReadOptions()));
    auto m = model_.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_TRUE(m != model_.end())
          << "extra key " << Printable(it->key().ToString());
      ASSERT_EQ(Printable(m->first), Printable(it->key().ToString()));
      ASSERT_TRUE(m->first == it->key().ToString()) << Printable(m->first);
      ASSERT_TRUE(m->second == it->value().ToString()) << Printable(m->first);
    }
    ASSERT_TRUE(m == model_.end()) << "missing " << Printable(m->first);
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
    auto r = model_.rbegin();
    for (it->SeekToLast(); it->Valid(); it->Prev(), ++r) {
      ASSERT_TRUE(r != model_.rend());
      ASSERT_TRUE(r->first == it->key().ToString()) << Printable(r->first);
    }
    ASSERT_TRUE(r == model_.rend());
    // Seek lands exactly on each stored key.
    for (const auto& kv : model_) {
      it->Seek(kv.first);
      ASSERT_TRUE(it->Valid()) << Printable(kv.first);
      ASSERT_TRUE(it->key().ToString() == kv.first) << Printable(kv.first);
    }
  }

  delsm_test::TempDir parent_;
  std::string dbname_;
  std::vector<std::string> keys_;
  std::map<std::string, std::string> model_;
  std::vector<std::string> deleted_;
  std::unique_ptr<DB> db_;
  struct stat passwd_before_;
};

TEST_F(KeysTest, AnyKeyAndValueRoundTripsAndStaysInsideTheDirectory) {
  // 64 KiB memtables: the writes below go through many flushes.
  ASSERT_OK(Open(64 << 10));
  WriteOptions wo;
  // Half with Put, half inside batches.
  leveldb::WriteBatch batch;
  size_t i = 0;
  for (const std::string& k : keys_) {
    if (i++ % 2 == 0) {
      ASSERT_OK(db_->Put(wo, k, model_[k]));
    } else {
      batch.Put(k, model_[k]);
      if (i % 16 == 0) {
        ASSERT_OK(db_->Write(wo, &batch));
        batch.Clear();
      }
    }
  }
  ASSERT_OK(db_->Write(wo, &batch));
  ASSERT_NO_FATAL_FAILURE(Verify("after writing"));

  // Overwrite some and delete some weird keys; deletions must persist too.
  for (const std::string& k :
       {std::string(1, '\0'), std::string("/"), std::string(".."),
        std::string(65536, 'k'), std::string("../x"), std::string(256, '/')}) {
    ASSERT_EQ(1u, model_.erase(k)) << Printable(k);
    deleted_.push_back(k);
    ASSERT_OK(db_->Delete(wo, k));
  }
  for (const std::string& k :
       {std::string("."), std::string(255, '.'), std::string(1, '\xff')}) {
    model_[k] = MakeValue(4097, 99);
    ASSERT_OK(db_->Put(wo, k, model_[k]));
  }
  ASSERT_NO_FATAL_FAILURE(Verify("after deletes and overwrites"));

  db_->CompactRange(nullptr, nullptr);
  ASSERT_NO_FATAL_FAILURE(Verify("after CompactRange"));

  ASSERT_OK(Open(64 << 10));
  ASSERT_NO_FATAL_FAILURE(Verify("after reopen"));
  ASSERT_OK(Open(8 << 20));
  ASSERT_NO_FATAL_FAILURE(Verify("after second reopen"));
  db_->CompactRange(nullptr, nullptr);
  ASSERT_OK(Open(8 << 20));
  ASSERT_NO_FATAL_FAILURE(Verify("after compaction and reopen"));
  db_.reset();

  // Nothing outside the database directory.
  std::vector<std::string> in_parent = delsm_test::ListDir(parent_.path());
  EXPECT_EQ(std::vector<std::string>{"db"}, in_parent);
  for (const char* name : kEscapeNames) {
    struct stat st;
    const std::string probe = parent_.path() + "/" + name;
    EXPECT_NE(0, lstat(probe.c_str(), &st)) << probe;
  }
  struct stat st;
  EXPECT_NE(0, lstat((parent_.path() + "/x").c_str(), &st));
  ASSERT_EQ(0, stat("/etc/passwd", &st));
  EXPECT_EQ(passwd_before_.st_size, st.st_size);
  EXPECT_EQ(passwd_before_.st_mtim.tv_sec, st.st_mtim.tv_sec);
  EXPECT_EQ(passwd_before_.st_mtim.tv_nsec, st.st_mtim.tv_nsec);
}

}  // namespace
