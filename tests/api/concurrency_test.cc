// Concurrency: two writers on disjoint key ranges, two readers (point
// lookups and iterators), one thread holding snapshots and one asking for
// manual compactions, all at once on a DB tuned so that flushes and
// compactions run all the time. Checked while running: readers only see
// well-formed values of the key they asked for, never an older version of a
// key after a newer one, iterators yield strictly increasing keys, and
// iterating one snapshot twice (the first iterator paused half way while
// flushes and compactions retire the SSTs it reads) gives the same entries,
// which agree with point lookups at that snapshot.
// Checked at the end: the DB equals the writers' models, also after reopen.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "leveldb/write_batch.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::TempDir;

constexpr int kWriters = 2;
constexpr int kKeysPerWriter = 400;
constexpr int kMaxOpsPerWriter = 40000;
constexpr auto kRunTime = std::chrono::seconds(4);

Options DbOptions() { return delsm_test::NewDbOptions(32 << 10); }

delsm::Tuning SmallTuning() { return delsm_test::SmallLevels(150, 48, 300); }

std::string Key(int writer, int k) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "w%d-%05d", writer, k);
  return buf;
}

// "<key>#<version>#" then filler whose length depends on the version.
std::string Value(const std::string& key, uint64_t version) {
  std::string v = key + "#" + std::to_string(version) + "#";
  v.append(50 + version % 200, static_cast<char>('a' + version % 26));
  return v;
}

// Parses a value made by Value(); false if it is not one for `key`.
bool ParseValue(const std::string& key, const std::string& value,
                uint64_t* version) {
  if (value.compare(0, key.size() + 1, key + "#") != 0) return false;
  size_t end = value.find('#', key.size() + 1);
  if (end == std::string::npos) return false;
  *version = std::strtoull(value.c_str() + key.size() + 1, nullptr, 10);
  return value == Value(key, *version);
}

// Collects problems from any thread; gtest assertions stay on the main one.
class Problems {
 public:
  void Add(const std::string& p) {
    std::lock_guard<std::mutex> l(mu_);
    if (list_.size() < 20) list_.push_back(p);
    count_++;
  }
  size_t count() const {
    std::lock_guard<std::mutex> l(mu_);
    return count_;
  }
  std::string Summary() const {
    std::lock_guard<std::mutex> l(mu_);
    std::string s;
    for (const std::string& p : list_) s += p + "\n";
    return s;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> list_;
  size_t count_ = 0;
};

// Final state one writer produced: key -> acknowledged value, absent keys
// deleted (or never written). Only its writer touches it until joined.
using Model = std::map<std::string, std::string>;

void WriterLoop(DB* db, int w, std::atomic<bool>* stop, Model* model,
                Problems* problems, uint64_t* ops_done) {
  std::mt19937 rng(1000 + w);
  uint64_t version = 0;
  uint64_t ops = 0;
  for (; ops < kMaxOpsPerWriter && !stop->load(); ops++) {
    int k = rng() % kKeysPerWriter;
    std::string key = Key(w, k);
    int choice = rng() % 10;
    Status s;
    if (choice < 6) {
      std::string v = Value(key, ++version);
      s = db->Put(WriteOptions(), key, v);
      if (s.ok()) (*model)[key] = v;
    } else if (choice < 8) {
      s = db->Delete(WriteOptions(), key);
      if (s.ok()) model->erase(key);
    } else {
      // A batch over a few keys of this writer: all or nothing.
      WriteBatch batch;
      for (int i = 0; i < 4; i++) {
        std::string bk = Key(w, rng() % kKeysPerWriter);
        if (rng() % 3 == 0) {
          batch.Delete(bk);
        } else {
          batch.Put(bk, Value(bk, ++version));
        }
      }
      s = db->Write(WriteOptions(), &batch);
      if (s.ok()) {
        // Apply in batch order: a later entry for a key wins.
        struct Applier : public WriteBatch::Handler {
          Model* m;
          void Put(const Slice& k, const Slice& v) override {
            (*m)[k.ToString()] = v.ToString();
          }
          void Delete(const Slice& k) override { m->erase(k.ToString()); }
        } applier;
        applier.m = model;
        batch.Iterate(&applier);
      }
    }
    if (!s.ok()) {
      problems->Add("writer " + std::to_string(w) + ": " + s.ToString());
      break;
    }
  }
  *ops_done = ops;
}

void GetterLoop(DB* db, int seed, std::atomic<bool>* stop, Problems* problems,
                uint64_t* ops_done) {
  std::mt19937 rng(seed);
  std::map<std::string, uint64_t> last_seen;
  uint64_t ops = 0;
  while (!stop->load()) {
    int w = rng() % kWriters;
    std::string key = Key(w, rng() % kKeysPerWriter);
    std::string value;
    Status s = db->Get(ReadOptions(), key, &value);
    ops++;
    if (s.IsNotFound()) continue;
    if (!s.ok()) {
      problems->Add("Get " + key + ": " + s.ToString());
      continue;
    }
    uint64_t version;
    if (!ParseValue(key, value, &version)) {
      problems->Add("Get " + key +
                    " returned a foreign value: " + value.substr(0, 40));
      continue;
    }
    uint64_t& seen = last_seen[key];
    if (version < seen) {
      problems->Add("Get " + key + " went back from version " +
                    std::to_string(seen) + " to " + std::to_string(version));
    }
    seen = version;
  }
  *ops_done = ops;
}

void IteratorLoop(DB* db, int seed, std::atomic<bool>* stop, Problems* problems,
                  uint64_t* ops_done) {
  std::mt19937 rng(seed);
  uint64_t ops = 0;
  while (!stop->load()) {
    Iterator* it = db->NewIterator(ReadOptions());
    std::string start = Key(rng() % kWriters, rng() % kKeysPerWriter);
    bool forward = rng() % 4 != 0;
    if (forward) {
      it->Seek(start);
    } else {
      it->SeekToLast();
    }
    std::string prev;
    bool have_prev = false;
    for (int n = 0; it->Valid() && n < 200; n++) {
      std::string key = it->key().ToString();
      uint64_t version;
      if (!ParseValue(key, it->value().ToString(), &version)) {
        problems->Add("iterator: foreign value at " + key);
      }
      if (have_prev && (forward ? !(prev < key) : !(key < prev))) {
        problems->Add("iterator order: " + prev + " then " + key);
      }
      prev = key;
      have_prev = true;
      if (forward) {
        it->Next();
      } else {
        it->Prev();
      }
    }
    if (!it->status().ok()) {
      problems->Add("iterator: " + it->status().ToString());
    }
    delete it;
    ops++;
  }
  *ops_done = ops;
}

// Every entry at `snap`, in order. With a `pause`, the iterator stops that
// long after its first kPauseAfter entries, while the writers go on and
// flushes and compactions retire the SSTs it reads, then reads on.
constexpr size_t kPauseAfter = 100;
std::vector<std::pair<std::string, std::string>> ScanAt(
    DB* db, const Snapshot* snap, Status* status,
    std::chrono::milliseconds pause = std::chrono::milliseconds(0)) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::vector<std::pair<std::string, std::string>> out;
  Iterator* it = db->NewIterator(ro);
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
    if (out.size() == kPauseAfter) std::this_thread::sleep_for(pause);
  }
  *status = it->status();
  delete it;
  return out;
}

void SnapshotLoop(DB* db, std::atomic<bool>* stop, Problems* problems,
                  uint64_t* ops_done) {
  std::mt19937 rng(77);
  uint64_t ops = 0;
  while (!stop->load()) {
    const Snapshot* snap = db->GetSnapshot();
    Status s1, s2;
    // The first scan pauses half way: the writers move on (and flushes and
    // compactions happen) while it holds its SSTs, before it goes on and
    // the snapshot is scanned again.
    auto first =
        ScanAt(db, snap, &s1, std::chrono::milliseconds(20 + rng() % 80));
    auto second = ScanAt(db, snap, &s2);
    if (!s1.ok() || !s2.ok()) {
      problems->Add("snapshot scan: " + s1.ToString() + " / " + s2.ToString());
    } else if (first != second) {
      size_t i = 0;
      while (i < first.size() && i < second.size() && first[i] == second[i]) {
        i++;
      }
      problems->Add(
          "snapshot changed: " + std::to_string(first.size()) + " vs " +
          std::to_string(second.size()) + " entries, first difference at " +
          (i < first.size() ? first[i].first : std::string("<end>")) + " / " +
          (i < second.size() ? second[i].first : std::string("<end>")));
    } else {
      // Point lookups at the snapshot agree with the scan.
      ReadOptions ro;
      ro.snapshot = snap;
      std::map<std::string, std::string> scanned(first.begin(), first.end());
      for (int i = 0; i < 30; i++) {
        std::string key = Key(rng() % kWriters, rng() % kKeysPerWriter);
        std::string v;
        Status g = db->Get(ro, key, &v);
        auto it = scanned.find(key);
        if (it == scanned.end()) {
          if (!g.IsNotFound()) {
            problems->Add("snapshot Get " + key +
                          " found a key the scan "
                          "did not: " +
                          g.ToString());
          }
        } else if (!g.ok() || v != it->second) {
          problems->Add("snapshot Get " + key +
                        " disagrees with scan: " + g.ToString());
        }
      }
    }
    db->ReleaseSnapshot(snap);
    ops++;
  }
  *ops_done = ops;
}

void CompactorLoop(DB* db, std::atomic<bool>* stop,
                   const std::atomic<bool>* writers_stopped,
                   uint64_t* ops_done) {
  std::mt19937 rng(99);
  uint64_t ops = 0;
  while (!stop->load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int w = rng() % kWriters;
    int a = rng() % kKeysPerWriter;
    std::string begin = Key(w, a);
    std::string end = Key(w, std::min(kKeysPerWriter - 1, a + 60));
    Slice b(begin), e(end);
    auto t0 = std::chrono::steady_clock::now();
    db->CompactRange(&b, &e);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - t0)
                  .count();
    std::printf("CompactRange %s..%s took %lld ms (writers %s)\n",
                begin.c_str(), end.c_str(), static_cast<long long>(ms),
                writers_stopped->load() ? "stopped" : "running");
    ops++;
  }
  *ops_done = ops;
}

void ExpectMatchesModel(DB* db, const Model& model, const std::string& what) {
  for (int w = 0; w < kWriters; w++) {
    for (int k = 0; k < kKeysPerWriter; k++) {
      std::string key = Key(w, k);
      std::string v;
      Status s = db->Get(ReadOptions(), key, &v);
      auto it = model.find(key);
      if (it == model.end()) {
        EXPECT_TRUE(s.IsNotFound()) << what << ": " << key << " should be "
                                    << "absent: " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << what << ": " << key << ": " << s.ToString();
        EXPECT_EQ(it->second, v) << what << ": " << key;
      }
    }
  }
  Iterator* it = db->NewIterator(ReadOptions());
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
    ASSERT_NE(model.end(), m) << what << ": extra " << it->key().ToString();
    ASSERT_EQ(m->first, it->key().ToString()) << what;
    ASSERT_EQ(m->second, it->value().ToString()) << what;
  }
  EXPECT_EQ(model.end(), m) << what << ": scan ended early";
  EXPECT_TRUE(it->status().ok()) << what;
  delete it;
}

TEST(ConcurrencyTest, WritersReadersSnapshotsAndCompactionsAgreeWithModel) {
  TempDir tmp;
  ASSERT_FALSE(tmp.path().empty());
  const std::string dbname = tmp.path() + "/db";
  DB* db = nullptr;
  Status s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();

  std::atomic<bool> stop_writers{false};
  std::atomic<bool> stop_readers{false};
  Problems problems;
  Model models[kWriters];
  uint64_t writer_ops[kWriters] = {0, 0};
  uint64_t getter_ops = 0, iterator_ops = 0, snapshot_ops = 0,
           compactor_ops = 0;

  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; w++) {
    writers.emplace_back(WriterLoop, db, w, &stop_writers, &models[w],
                         &problems, &writer_ops[w]);
  }
  std::vector<std::thread> others;
  others.emplace_back(GetterLoop, db, 11, &stop_readers, &problems,
                      &getter_ops);
  others.emplace_back(IteratorLoop, db, 12, &stop_readers, &problems,
                      &iterator_ops);
  others.emplace_back(SnapshotLoop, db, &stop_readers, &problems,
                      &snapshot_ops);
  others.emplace_back(CompactorLoop, db, &stop_readers, &stop_writers,
                      &compactor_ops);

  std::this_thread::sleep_for(kRunTime);
  stop_writers.store(true);
  for (std::thread& t : writers) t.join();
  stop_readers.store(true);
  for (std::thread& t : others) t.join();

  std::string stats;
  db->GetProperty("leveldb.stats", &stats);
  std::printf(
      "writer ops %llu + %llu, gets %llu, iterators %llu, "
      "snapshot rounds %llu, manual compactions %llu\n%s\n",
      static_cast<unsigned long long>(writer_ops[0]),
      static_cast<unsigned long long>(writer_ops[1]),
      static_cast<unsigned long long>(getter_ops),
      static_cast<unsigned long long>(iterator_ops),
      static_cast<unsigned long long>(snapshot_ops),
      static_cast<unsigned long long>(compactor_ops), stats.c_str());
  EXPECT_EQ(0u, problems.count()) << problems.Summary();
  // The run must have exercised what it claims to.
  EXPECT_GT(writer_ops[0], 0u);
  EXPECT_GT(writer_ops[1], 0u);
  EXPECT_GT(snapshot_ops, 0u);

  Model all;
  for (const Model& m : models) all.insert(m.begin(), m.end());
  ExpectMatchesModel(db, all, "after the run");
  ASSERT_TRUE(static_cast<DBImpl*>(db)->TEST_WaitForBackgroundWork().ok());
  ExpectMatchesModel(db, all, "after background work settled");
  delete db;

  db = nullptr;
  s = delsm::Open(DbOptions(), SmallTuning(), dbname, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ExpectMatchesModel(db, all, "after reopen");
  db->CompactRange(nullptr, nullptr);
  ExpectMatchesModel(db, all, "after full compaction");
  delete db;
}

}  // namespace
}  // namespace leveldb
