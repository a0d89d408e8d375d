// The public LevelDB API as a client program sees it through leveldb/db.h
// and friends. Uses only the public
// headers, so the same file also runs against Debian's LevelDB.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/write_batch.h"
#include "tests/test_support.h"

namespace {

using leveldb::DB;
using leveldb::Iterator;
using leveldb::Options;
using leveldb::ReadOptions;
using leveldb::Slice;
using leveldb::Status;
using leveldb::WriteBatch;
using leveldb::WriteOptions;

// Small enough that a few hundred KiB of writes go through several flushes.
constexpr size_t kSmallBuffer = 64 << 10;

std::string Key(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// A value of `len` bytes that differs for every (i, generation) pair.
std::string Value(int i, int generation, size_t len = 100) {
  std::string v = "v" + std::to_string(i) + "." + std::to_string(generation);
  v.reserve(len);
  std::mt19937 rng(i * 7919 + generation);
  while (v.size() < len) v.push_back(static_cast<char>('a' + rng() % 26));
  return v;
}

// Orders keys by descending bytes: the reverse of BytewiseComparator.
class ReverseComparator : public leveldb::Comparator {
 public:
  int Compare(const Slice& a, const Slice& b) const override {
    return -a.compare(b);
  }
  const char* Name() const override { return "apitest.ReverseBytewise"; }
  // Leaving keys unchanged is always a valid separator / successor.
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

class ApiTest : public testing::Test {
 protected:
  ApiTest() : dir_("apitest") {
    dbname_ = dir_.path() + "/db";
    options_.create_if_missing = true;
    options_.write_buffer_size = kSmallBuffer;
  }
  ~ApiTest() override { Close(); }

  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty()) << "mkdtemp failed";
    ASSERT_OK(Open());
  }

  Status Open() {
    Close();
    DB* db = nullptr;
    Status s = DB::Open(options_, dbname_, &db);
    db_.reset(db);
    return s;
  }
  void Reopen() { ASSERT_OK(Open()); }
  void Close() { db_.reset(); }

  // The value of `key`, "NOT_FOUND", or the error text.
  std::string Get(const std::string& key,
                  const leveldb::Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::string value;
    Status s = db_->Get(ro, key, &value);
    if (s.IsNotFound()) return "NOT_FOUND";
    if (!s.ok()) return "ERROR: " + s.ToString();
    return value;
  }

  // Every key=value pair in iteration order, forwards.
  std::vector<std::pair<std::string, std::string>> Scan(
      const leveldb::Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::unique_ptr<Iterator> it(db_->NewIterator(ro));
    std::vector<std::pair<std::string, std::string>> out;
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }

  std::vector<std::pair<std::string, std::string>> ScanBackward() {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    std::vector<std::pair<std::string, std::string>> out;
    for (it->SeekToLast(); it->Valid(); it->Prev()) {
      out.emplace_back(it->key().ToString(), it->value().ToString());
    }
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    return out;
  }

  static std::vector<std::pair<std::string, std::string>> Pairs(
      const std::map<std::string, std::string>& m) {
    return {m.begin(), m.end()};
  }

  int64_t IntProperty(const std::string& name) {
    std::string value;
    if (!db_->GetProperty(name, &value)) return -1;
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') return -2;
    return v;
  }

  delsm_test::TempDir dir_;
  std::string dbname_;
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_F(ApiTest, PutGetDelete) {
  WriteOptions wo;
  EXPECT_EQ("NOT_FOUND", Get("a"));
  ASSERT_OK(db_->Put(wo, "a", "1"));
  ASSERT_OK(db_->Put(wo, "b", "2"));
  EXPECT_EQ("1", Get("a"));
  EXPECT_EQ("2", Get("b"));
  EXPECT_EQ("NOT_FOUND", Get("c"));
  // Prefixes and extensions of stored keys are different keys.
  EXPECT_EQ("NOT_FOUND", Get(""));
  EXPECT_EQ("NOT_FOUND", Get("aa"));

  ASSERT_OK(db_->Delete(wo, "a"));
  EXPECT_EQ("NOT_FOUND", Get("a"));
  EXPECT_EQ("2", Get("b"));
  // Deleting a key that does not exist is not an error.
  ASSERT_OK(db_->Delete(wo, "never-written"));
  // A deleted key can be written again.
  ASSERT_OK(db_->Put(wo, "a", "3"));
  EXPECT_EQ("3", Get("a"));

  Reopen();
  EXPECT_EQ("3", Get("a"));
  EXPECT_EQ("2", Get("b"));
  EXPECT_EQ("NOT_FOUND", Get("never-written"));
}

TEST_F(ApiTest, Overwrite) {
  WriteOptions wo;
  ASSERT_OK(db_->Put(wo, "k", "first"));
  ASSERT_OK(db_->Put(wo, "k", "second, longer than the first"));
  EXPECT_EQ("second, longer than the first", Get("k"));
  ASSERT_OK(db_->Put(wo, "k", ""));
  EXPECT_EQ("", Get("k"));
  ASSERT_OK(db_->Put(wo, "k", "last"));
  EXPECT_EQ("last", Get("k"));
  // Only one version is visible to an iterator.
  EXPECT_EQ(Scan(),
            (std::vector<std::pair<std::string, std::string>>{{"k", "last"}}));

  // Overwrite across flushes: the newest version wins wherever it lives.
  for (int gen = 0; gen < 5; gen++) {
    for (int i = 0; i < 500; i++) {
      ASSERT_OK(db_->Put(wo, Key(i), Value(i, gen, 300)));
    }
  }
  for (int i = 0; i < 500; i++) ASSERT_EQ(Value(i, 4, 300), Get(Key(i)));
  Reopen();
  for (int i = 0; i < 500; i++) ASSERT_EQ(Value(i, 4, 300), Get(Key(i)));
  EXPECT_EQ("last", Get("k"));
}

TEST_F(ApiTest, WriteBatchAppliesAllOrNothingVisibleInOrder) {
  WriteOptions wo;
  ASSERT_OK(db_->Put(wo, "doomed", "x"));
  WriteBatch batch;
  batch.Put("a", "1");
  batch.Delete("doomed");
  batch.Put("b", "2");
  batch.Put("a", "1-again");  // later operations in a batch win
  batch.Put("c", "3");
  batch.Delete("c");
  EXPECT_EQ("NOT_FOUND", Get("a"));  // nothing applied before Write
  ASSERT_OK(db_->Write(wo, &batch));
  EXPECT_EQ("1-again", Get("a"));
  EXPECT_EQ("2", Get("b"));
  EXPECT_EQ("NOT_FOUND", Get("c"));
  EXPECT_EQ("NOT_FOUND", Get("doomed"));

  // An empty batch is a valid write.
  WriteBatch empty;
  ASSERT_OK(db_->Write(wo, &empty));
  Reopen();
  EXPECT_EQ("1-again", Get("a"));
  EXPECT_EQ("NOT_FOUND", Get("c"));
  EXPECT_EQ("NOT_FOUND", Get("doomed"));
}

// A reader must never observe half of a batch: every batch sets all of the
// keys to one generation number, and readers check they agree.
TEST_F(ApiTest, WriteBatchIsAtomicForConcurrentReaders) {
  constexpr int kKeys = 20;
  constexpr int kBatches = 400;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  {
    WriteBatch b;
    for (int k = 0; k < kKeys; k++) b.Put(Key(k), Value(0, 0, 40) + "#0");
    ASSERT_OK(db_->Write(WriteOptions(), &b));
  }
  std::thread writer([&] {
    for (int gen = 1; gen <= kBatches; gen++) {
      WriteBatch b;
      // Large enough values that flushes happen in the middle.
      for (int k = 0; k < kKeys; k++) {
        b.Put(Key(k), Value(0, 0, 40) + "#" + std::to_string(gen));
        b.Put("filler" + std::to_string(k), std::string(200, 'f'));
      }
      Status s = db_->Write(WriteOptions(), &b);
      if (!s.ok()) failures++;
    }
    done = true;
  });
  int rounds = 0;
  while (!done || rounds < 3) {
    rounds++;
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    std::string gen;
    int seen = 0;
    for (it->Seek(Key(0)); it->Valid() && it->key().starts_with("key");
         it->Next()) {
      std::string v = it->value().ToString();
      std::string g = v.substr(v.find('#'));
      if (seen == 0) gen = g;
      if (g != gen) failures++;
      seen++;
    }
    if (seen != kKeys) failures++;
    if (!it->status().ok()) failures++;
  }
  writer.join();
  EXPECT_EQ(0, failures.load());
  for (int k = 0; k < kKeys; k++) {
    EXPECT_EQ(Value(0, 0, 40) + "#" + std::to_string(kBatches), Get(Key(k)));
  }
}

TEST_F(ApiTest, WriteBatchIterateReportsOperationsInOrder) {
  class Recorder : public WriteBatch::Handler {
   public:
    std::string log;
    void Put(const Slice& key, const Slice& value) override {
      log += "Put(" + key.ToString() + "," + value.ToString() + ")";
    }
    void Delete(const Slice& key) override {
      log += "Delete(" + key.ToString() + ")";
    }
  };
  WriteBatch batch;
  Recorder empty_rec;
  ASSERT_OK(batch.Iterate(&empty_rec));
  EXPECT_EQ("", empty_rec.log);
  size_t empty_size = batch.ApproximateSize();

  batch.Put("x", "1");
  batch.Delete("y");
  batch.Put(Slice("with\0nul", 8), "");
  EXPECT_GT(batch.ApproximateSize(), empty_size);
  Recorder rec;
  ASSERT_OK(batch.Iterate(&rec));
  EXPECT_EQ(std::string("Put(x,1)Delete(y)Put(with\0nul,)", 31), rec.log);

  WriteBatch other;
  other.Put("z", "26");
  batch.Append(other);
  Recorder appended;
  ASSERT_OK(batch.Iterate(&appended));
  EXPECT_EQ(std::string("Put(x,1)Delete(y)Put(with\0nul,)Put(z,26)", 40),
            appended.log);

  // Copies are independent.
  WriteBatch copy = batch;
  batch.Clear();
  Recorder cleared, copied;
  ASSERT_OK(batch.Iterate(&cleared));
  EXPECT_EQ("", cleared.log);
  EXPECT_EQ(empty_size, batch.ApproximateSize());
  ASSERT_OK(copy.Iterate(&copied));
  EXPECT_EQ(appended.log, copied.log);

  // The batch written is what the handler saw.
  ASSERT_OK(db_->Write(WriteOptions(), &copy));
  EXPECT_EQ("1", Get("x"));
  EXPECT_EQ("", Get(std::string("with\0nul", 8)));
  EXPECT_EQ("26", Get("z"));
}

TEST_F(ApiTest, SnapshotsSeeThePast) {
  WriteOptions wo;
  ASSERT_OK(db_->Put(wo, "a", "a1"));
  ASSERT_OK(db_->Put(wo, "b", "b1"));
  const leveldb::Snapshot* s1 = db_->GetSnapshot();
  ASSERT_OK(db_->Put(wo, "a", "a2"));
  ASSERT_OK(db_->Delete(wo, "b"));
  ASSERT_OK(db_->Put(wo, "c", "c2"));
  const leveldb::Snapshot* s2 = db_->GetSnapshot();
  ASSERT_OK(db_->Put(wo, "a", "a3"));
  ASSERT_OK(db_->Put(wo, "b", "b3"));
  ASSERT_OK(db_->Delete(wo, "c"));

  auto check = [&] {
    EXPECT_EQ("a1", Get("a", s1));
    EXPECT_EQ("b1", Get("b", s1));
    EXPECT_EQ("NOT_FOUND", Get("c", s1));
    EXPECT_EQ("a2", Get("a", s2));
    EXPECT_EQ("NOT_FOUND", Get("b", s2));
    EXPECT_EQ("c2", Get("c", s2));
    EXPECT_EQ("a3", Get("a"));
    EXPECT_EQ("b3", Get("b"));
    EXPECT_EQ("NOT_FOUND", Get("c"));
    using V = std::vector<std::pair<std::string, std::string>>;
    EXPECT_EQ(Scan(s1), (V{{"a", "a1"}, {"b", "b1"}}));
    EXPECT_EQ(Scan(s2), (V{{"a", "a2"}, {"c", "c2"}}));
  };
  check();

  // Push everything (and the old versions) out of the memtable through
  // several flushes, then ask for a full compaction: snapshots still see
  // the past.
  for (int i = 0; i < 3000; i++) {
    ASSERT_OK(db_->Put(wo, Key(i % 700), Value(i, 0, 200)));
  }
  check();
  db_->CompactRange(nullptr, nullptr);
  check();

  db_->ReleaseSnapshot(s1);
  db_->ReleaseSnapshot(s2);
  EXPECT_EQ("a3", Get("a"));
  EXPECT_EQ("NOT_FOUND", Get("c"));
}

TEST_F(ApiTest, ForwardBackwardIterationAndSeek) {
  {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    it->SeekToFirst();
    EXPECT_FALSE(it->Valid());
    it->SeekToLast();
    EXPECT_FALSE(it->Valid());
    it->Seek("anything");
    EXPECT_FALSE(it->Valid());
    EXPECT_TRUE(it->status().ok());
  }
  WriteOptions wo;
  for (const char* k : {"b", "d", "f", "h"}) {
    ASSERT_OK(db_->Put(wo, k, std::string("v") + k));
  }
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  it->Seek("d");  // exact hit
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("d", it->key().ToString());
  EXPECT_EQ("vd", it->value().ToString());
  it->Seek("e");  // between keys: the next larger
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("f", it->key().ToString());
  it->Prev();  // switch direction
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("d", it->key().ToString());
  it->Next();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("f", it->key().ToString());
  it->Seek("a");  // before the first
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("b", it->key().ToString());
  it->Prev();
  EXPECT_FALSE(it->Valid());
  it->Seek("i");  // after the last
  EXPECT_FALSE(it->Valid());
  it->SeekToLast();
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ("h", it->key().ToString());
  it->Next();
  EXPECT_FALSE(it->Valid());
  EXPECT_TRUE(it->status().ok());

  using V = std::vector<std::pair<std::string, std::string>>;
  V fwd{{"b", "vb"}, {"d", "vd"}, {"f", "vf"}, {"h", "vh"}};
  EXPECT_EQ(fwd, Scan());
  V bwd(fwd.rbegin(), fwd.rend());
  EXPECT_EQ(bwd, ScanBackward());
}

// Random puts, overwrites and deletes spread over the memtable and several
// flushed generations; every way of iterating must agree with a model.
TEST_F(ApiTest, IterationMatchesModelAcrossFlushesAndReopen) {
  std::map<std::string, std::string> model;
  std::mt19937 rng(301);
  WriteOptions wo;
  for (int op = 0; op < 6000; op++) {
    std::string k = Key(rng() % 1500);
    if (rng() % 4 == 0) {
      model.erase(k);
      ASSERT_OK(db_->Delete(wo, k));
    } else {
      std::string v = Value(op, 1, 20 + rng() % 300);
      model[k] = v;
      ASSERT_OK(db_->Put(wo, k, v));
    }
  }
  auto verify = [&] {
    auto fwd = Pairs(model);
    ASSERT_EQ(fwd, Scan());
    std::vector<std::pair<std::string, std::string>> bwd(fwd.rbegin(),
                                                         fwd.rend());
    ASSERT_EQ(bwd, ScanBackward());
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    for (int probe = 0; probe < 300; probe++) {
      std::string target = Key(rng() % 1600);
      if (rng() % 2) target += "x";  // between stored keys
      auto m = model.lower_bound(target);
      it->Seek(target);
      if (m == model.end()) {
        ASSERT_FALSE(it->Valid()) << target;
        continue;
      }
      ASSERT_TRUE(it->Valid()) << target;
      ASSERT_EQ(m->first, it->key().ToString());
      ASSERT_EQ(m->second, it->value().ToString());
      // A few steps in either direction from the seek position.
      auto mm = m;
      for (int step = 0; step < 3 && mm != model.begin(); step++) {
        --mm;
        it->Prev();
        ASSERT_TRUE(it->Valid());
        ASSERT_EQ(mm->first, it->key().ToString());
      }
      for (int step = 0; step < 6; step++) {
        ++mm;
        it->Next();
        if (mm == model.end()) {
          ASSERT_FALSE(it->Valid());
          break;
        }
        ASSERT_TRUE(it->Valid());
        ASSERT_EQ(mm->first, it->key().ToString());
        ASSERT_EQ(mm->second, it->value().ToString());
      }
    }
    ASSERT_TRUE(it->status().ok()) << it->status().ToString();
  };
  verify();
  Reopen();
  verify();
}

TEST_F(ApiTest, IteratorIsStableWhileWritesContinue) {
  WriteOptions wo;
  std::map<std::string, std::string> before;
  for (int i = 0; i < 1000; i += 2) {
    before[Key(i)] = Value(i, 0);
    ASSERT_OK(db_->Put(wo, Key(i), before[Key(i)]));
  }
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));

  // Writes after the iterator was created, including enough to flush
  // several memtables, are invisible to it.
  std::thread writer([&] {
    for (int round = 1; round <= 4; round++) {
      for (int i = 0; i < 1000; i++) {
        Status s = (i % 3 == 0) ? db_->Delete(wo, Key(i))
                                : db_->Put(wo, Key(i), Value(i, round));
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
    }
  });
  std::vector<std::pair<std::string, std::string>> seen;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    seen.emplace_back(it->key().ToString(), it->value().ToString());
  }
  writer.join();
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  EXPECT_EQ(Pairs(before), seen);

  // Still the old state when walked again after all writes finished.
  seen.clear();
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    seen.emplace_back(it->key().ToString(), it->value().ToString());
  }
  std::reverse(seen.begin(), seen.end());
  EXPECT_EQ(Pairs(before), seen);
  it.reset();

  // A new iterator sees the new state.
  EXPECT_EQ("NOT_FOUND", Get(Key(0)));
  EXPECT_EQ(Value(1, 4), Get(Key(1)));
}

TEST_F(ApiTest, CustomComparatorGovernsIteration) {
  ReverseComparator reverse;
  Close();
  ASSERT_TRUE(delsm_test::RemoveTree(dbname_));
  options_.comparator = &reverse;
  Reopen();
  WriteOptions wo;
  std::vector<std::string> keys;
  for (int i = 0; i < 800; i++) {
    keys.push_back(Key(i));
    ASSERT_OK(db_->Put(wo, Key(i), Value(i, 0, 200)));
  }
  std::sort(keys.begin(), keys.end(), std::greater<std::string>());
  auto check = [&] {
    std::vector<std::string> got;
    for (const auto& kv : Scan()) got.push_back(kv.first);
    ASSERT_EQ(keys, got);
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    // Under the reverse order, Seek finds the first key <= target bytewise.
    it->Seek("key000500x");
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(Key(500), it->key().ToString());
    it->Next();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(Key(499), it->key().ToString());
    it->SeekToFirst();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(Key(799), it->key().ToString());
    it->SeekToLast();
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(Key(0), it->key().ToString());
    EXPECT_EQ(Value(123, 0, 200), Get(Key(123)));
  };
  check();
  Reopen();  // now from flushed data
  check();
  db_->CompactRange(nullptr, nullptr);
  check();
}

TEST_F(ApiTest, ReopenWithDifferentComparatorFails) {
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  Close();
  ReverseComparator reverse;
  options_.comparator = &reverse;
  Status s = Open();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(nullptr, db_.get());
  // The original comparator still opens it, data intact.
  options_.comparator = leveldb::BytewiseComparator();
  Reopen();
  EXPECT_EQ("1", Get("a"));
}

TEST_F(ApiTest, CreateIfMissingAndErrorIfExists) {
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  Close();

  options_.error_if_exists = true;
  Status s = Open();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(nullptr, db_.get());
  options_.error_if_exists = false;
  options_.create_if_missing = false;
  Reopen();  // exists: create_if_missing is not needed
  EXPECT_EQ("1", Get("a"));
  Close();

  std::string other = dir_.path() + "/other";
  DB* db = nullptr;
  s = DB::Open(options_, other, &db);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_EQ(nullptr, db);
  delete db;

  options_.create_if_missing = true;
  options_.error_if_exists = true;  // fine for a new database
  s = DB::Open(options_, other, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(db->Put(WriteOptions(), "x", "y").ok());
  delete db;
}

TEST_F(ApiTest, SecondOpenInSameProcessIsRefused) {
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  DB* second = nullptr;
  Status s = DB::Open(options_, dbname_, &second);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(nullptr, second);
  delete second;
  // The first handle is unaffected.
  ASSERT_OK(db_->Put(WriteOptions(), "b", "2"));
  EXPECT_EQ("1", Get("a"));
  // Once it is closed, the database opens again.
  Reopen();
  EXPECT_EQ("2", Get("b"));
}

// Child side of SecondOpenFromAnotherProcessIsRefused: run in a separate
// process (exec of this binary), it tries to open the database named by
// the environment and exits 0 if refused, 3 if the open succeeded.
TEST(ApiLockProbe, Child) {
  const char* db = std::getenv("APITEST_LOCK_PROBE_DB");
  if (db == nullptr) GTEST_SKIP() << "helper for another test";
  Options options;
  DB* dbptr = nullptr;
  Status s = DB::Open(options, db, &dbptr);
  std::fprintf(stderr, "lock probe open: %s\n", s.ToString().c_str());
  std::fflush(stderr);
  _exit(s.ok() ? 3 : 0);
}

TEST_F(ApiTest, SecondOpenFromAnotherProcessIsRefused) {
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  pid_t pid = delsm_test::SpawnSelf("ApiLockProbe.Child",
                                    {{"APITEST_LOCK_PROBE_DB", dbname_}});
  ASSERT_GT(pid, 0);
  int status = delsm_test::WaitChild(pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(0, WEXITSTATUS(status)) << "another process opened a live DB";
  EXPECT_EQ("1", Get("a"));

  // After close, the other process may open it.
  Close();
  pid = delsm_test::SpawnSelf("ApiLockProbe.Child",
                              {{"APITEST_LOCK_PROBE_DB", dbname_}});
  ASSERT_GT(pid, 0);
  status = delsm_test::WaitChild(pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(3, WEXITSTATUS(status)) << "closed DB could not be opened";
}

TEST_F(ApiTest, Properties) {
  WriteOptions wo;
  for (int i = 0; i < 3000; i++) {
    ASSERT_OK(db_->Put(wo, Key(i % 1000), Value(i, 0, 250)));
  }
  EXPECT_GT(IntProperty("leveldb.approximate-memory-usage"), 0);
  Reopen();  // recovery writes what the log held into tables
  int64_t files = 0;
  for (int level = 0; level < 7; level++) {
    int64_t n =
        IntProperty("leveldb.num-files-at-level" + std::to_string(level));
    ASSERT_GE(n, 0) << "level " << level;
    files += n;
  }
  EXPECT_GT(files, 0);
  EXPECT_GE(IntProperty("leveldb.num-files-at-level0"), 0);
  EXPECT_GT(IntProperty("leveldb.approximate-memory-usage"), 0);

  std::string stats;
  EXPECT_TRUE(db_->GetProperty("leveldb.stats", &stats));
  EXPECT_FALSE(stats.empty());
  std::string sstables;
  EXPECT_TRUE(db_->GetProperty("leveldb.sstables", &sstables));

  std::string ignored;
  EXPECT_FALSE(db_->GetProperty("leveldb.no-such-property", &ignored));
  EXPECT_FALSE(db_->GetProperty("leveldb.num-files-at-level99", &ignored));
  EXPECT_FALSE(db_->GetProperty("not-leveldb.stats", &ignored));
}

// Pure mode (inline_threshold 0): every value a KV file of one 4 KiB block;
// by default 1000-byte values are inline in the meta files instead.
TEST_F(ApiTest, ApproximateSizesCoverFlushedData) {
  for (const bool pure : {true, false}) {
    SCOPED_TRACE(pure ? "inline_threshold=0" : "default inline_threshold");
    Close();
    ASSERT_OK(leveldb::DestroyDB(dbname_, options_));
    options_.compression = leveldb::kNoCompression;
    delsm::Tuning tuning;
    if (pure) tuning.inline_threshold = 0;
    leveldb::DB* raw = nullptr;
    ASSERT_OK(delsm::Open(options_, tuning, dbname_, &raw));
    db_.reset(raw);
    WriteOptions wo;
    std::mt19937 rng(5);
    for (int i = 0; i < 2000; i++) {
      std::string v(1000, '\0');
      for (char& c : v) c = static_cast<char>(rng());
      ASSERT_OK(db_->Put(wo, Key(i), v));
    }
    db_.reset();
    ASSERT_OK(delsm::Open(options_, tuning, dbname_, &raw));
    db_.reset(raw);
    // Range holds Slices: the key strings must outlive it.
    const std::string first = Key(0), middle = Key(1000);
    leveldb::Range ranges[2] = {leveldb::Range("a", "z"),
                                leveldb::Range(first, middle)};
    uint64_t sizes[2] = {0, 0};
    db_->GetApproximateSizes(ranges, 2, sizes);
    // Two million incompressible value bytes were written: sizes are the
    // bytes on disk (KV files' whole blocks plus meta files in pure mode;
    // meta files holding the values, a little more than them, by default).
    const uint64_t per_value = pure ? 4096 : 1000;
    EXPECT_GE(sizes[0], 2000u * per_value);
    EXPECT_LE(sizes[0], 2000u * per_value * 5 / 4 + 64 * 1024);
    EXPECT_GE(sizes[1], 1000u * per_value * 3 / 4);
    EXPECT_LE(sizes[1], sizes[0]);
  }
}

TEST_F(ApiTest, DestroyDB) {
  ASSERT_OK(db_->Put(WriteOptions(), "a", "1"));
  // Not while it is open.
  EXPECT_FALSE(leveldb::DestroyDB(dbname_, options_).ok());
  EXPECT_EQ("1", Get("a"));
  Close();
  ASSERT_OK(leveldb::DestroyDB(dbname_, options_));
  struct stat st;
  EXPECT_NE(0, lstat(dbname_.c_str(), &st)) << "DB directory still exists";
  // Destroying what does not exist is fine.
  ASSERT_OK(leveldb::DestroyDB(dbname_, options_));

  options_.create_if_missing = false;
  EXPECT_FALSE(Open().ok());
  options_.create_if_missing = true;
  Reopen();
  EXPECT_EQ("NOT_FOUND", Get("a"));
}

TEST_F(ApiTest, WritesBeyondBufferSurviveReopen) {
  std::map<std::string, std::string> model;
  std::mt19937 rng(77);
  WriteOptions wo;
  // About 15 memtables' worth of data, with overwrites and deletes.
  for (int i = 0; i < 8000; i++) {
    std::string k = Key(rng() % 4000);
    if (i % 9 == 0) {
      model.erase(k);
      ASSERT_OK(db_->Delete(wo, k));
    } else {
      model[k] = Value(i, 2, 50 + rng() % 200);
      ASSERT_OK(db_->Put(wo, k, model[k]));
    }
  }
  for (int round = 0; round < 2; round++) {
    Reopen();
    for (int i = 0; i < 4000; i++) {
      auto m = model.find(Key(i));
      ASSERT_EQ(m == model.end() ? "NOT_FOUND" : m->second, Get(Key(i)))
          << Key(i);
    }
    ASSERT_EQ(Pairs(model), Scan());
  }
}

}  // namespace
