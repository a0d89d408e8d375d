// Scenarios of LevelDB's own tests, on DeLSM:
//   * a missing SST directory at open (LevelDB's MissingSSTFile): open fails
//     with Corruption naming it, with or without paranoid_checks, and
//     changes nothing;
//   * a comparator under which different bytes compare equal (KV file names
//     come from key bytes): checked against Debian's LevelDB (leveldb_oracle
//     --case_insensitive_comparator);
//   * a WAL several times write_buffer_size at recovery (replayed into
//     several L0 SSTs, as LevelDB's RecoverLogFile), and no WAL at all;
//   * reopening with a different filter policy, or none;
//   * NewMemEnv as Options::env across a reopen;
//   * obsolete WAL and manifest files actually deleted.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "gtest/gtest.h"
#include "leveldb/comparator.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/helpers/memenv.h"
#include "leveldb/iterator.h"
#include "tests/file_bytes.h"
#include "tests/leveldb_oracle/oracle.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {
using delsm_test::FileSize;
using delsm_test::ListDir;
using delsm_test::TempDir;

using delsm_test::Key;

std::string Value(int i, int gen, size_t size = 100) {
  std::string v = std::to_string(i) + "/" + std::to_string(gen) + ":";
  while (v.size() < size) v.push_back(static_cast<char>('a' + (i + gen) % 26));
  return v;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Names in the DB directory starting with `prefix` / ending with `suffix`.
std::vector<std::string> Named(const std::string& dbname,
                               const std::string& prefix,
                               const std::string& suffix) {
  std::vector<std::string> out;
  for (const std::string& n : ListDir(dbname)) {
    if (n.rfind(prefix, 0) == 0 && EndsWith(n, suffix)) out.push_back(n);
  }
  return out;
}

int FilesAtLevel(DB* db, int level) {
  std::string v;
  EXPECT_TRUE(db->GetProperty(
      "leveldb.num-files-at-level" + std::to_string(level), &v));
  return std::stoi(v);
}

class ScenarioTest : public testing::Test {
 protected:
  ScenarioTest() : dbname_(tmp_.path() + "/db") {
    options_.create_if_missing = true;
    options_.write_buffer_size = 64 << 10;
    tuning_.l0_compaction_entries = 400;
    tuning_.sst_entries = 256;
    tuning_.l1_entries = 1000;
    // Every value a KV file (the default keeps these 100-byte values
    // inline): the scenarios are about KV files and their names.
    tuning_.inline_threshold = 0;
  }

  Status Open(const Options& options, std::unique_ptr<DB>* db) {
    DB* raw = nullptr;
    Status s = delsm::Open(options, tuning_, dbname_, &raw);
    db->reset(raw);
    return s;
  }

  // Puts keys [first, first + n) with generation `gen`.
  void Write(DB* db, int first, int n, int gen, size_t size = 100) {
    for (int i = first; i < first + n; i++) {
      Status s = db->Put(WriteOptions(), Key(i), Value(i, gen, size));
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    }
  }

  // Keys [first, first + n) read back as generation `gen`.
  void Check(DB* db, int first, int n, int gen, size_t size = 100) {
    for (int i = first; i < first + n; i++) {
      std::string v;
      Status s = db->Get(ReadOptions(), Key(i), &v);
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i, gen, size), v) << Key(i);
    }
  }

  TempDir tmp_{"delsm_leveldb_scenarios"};
  const std::string dbname_;
  Options options_;
  delsm::Tuning tuning_;
};

// Every entry of every SST directory, as "Ln/dir/name".
std::set<std::string> SstTree(const std::string& dbname) {
  std::set<std::string> tree;
  for (int level = 0; level < 7; level++) {
    const std::string l = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname + "/" + l)) {
      tree.insert(l + "/" + d);
      for (const std::string& f : ListDir(dbname + "/" + l + "/" + d)) {
        tree.insert(l + "/" + d + "/" + f);
      }
    }
  }
  return tree;
}

// LevelDB's MissingSSTFile: DBImpl::Recover fails with Corruption ("N
// missing files; e.g. <table>") whatever paranoid_checks says. A DB that
// opened without the directory would answer NotFound for its keys, a loss
// the user could not tell from a deleted key.
TEST_F(ScenarioTest, MissingSstDirectoryFailsOpen) {
  constexpr int kKeys = 1500;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(options_, &db));
    Write(db.get(), 0, kKeys, 0);
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
  }
  // The first SST directory below L0, in sorted order.
  std::string victim, victim_rel;
  for (int level = 1; level < 7 && victim.empty(); level++) {
    const std::string l = "L" + std::to_string(level);
    for (const std::string& d : ListDir(dbname_ + "/" + l)) {
      victim_rel = l + "/" + d;
      victim = dbname_ + "/" + victim_rel;
      break;
    }
  }
  ASSERT_FALSE(victim.empty());
  int removed_values = 0;
  for (const std::string& f : ListDir(victim)) {
    if (f.find('@') != std::string::npos) removed_values++;
  }
  ASSERT_GT(removed_values, 0);
  ASSERT_TRUE(delsm_test::RemoveTree(victim));
  const std::set<std::string> before = SstTree(dbname_);
  const std::vector<std::string> manifests = Named(dbname_, "MANIFEST-", "");

  for (bool paranoid : {false, true}) {
    SCOPED_TRACE(paranoid ? "paranoid_checks" : "no paranoid_checks");
    Options options = options_;
    options.paranoid_checks = paranoid;
    std::unique_ptr<DB> db;
    Status s = Open(options, &db);
    ASSERT_FALSE(s.ok()) << "opened without " << victim_rel;
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find("issing")) << s.ToString();
    EXPECT_NE(std::string::npos, s.ToString().find(victim_rel)) << s.ToString();
    // A refused open changes nothing: no sweep, no new manifest.
    EXPECT_TRUE(before == SstTree(dbname_));
    EXPECT_EQ(manifests, Named(dbname_, "MANIFEST-", ""));
  }

  // RepairDB salvages every other directory.
  ASSERT_OK(RepairDB(dbname_, options_));
  std::unique_ptr<DB> db;
  ASSERT_OK(Open(options_, &db));
  int found = 0;
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    if (s.IsNotFound()) continue;
    ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
    ASSERT_EQ(Value(i, 0), v) << Key(i);
    found++;
  }
  EXPECT_EQ(kKeys - removed_values, found);
}

// "a" and "A" are one key under this comparator. The same as the oracle's
// (tests/leveldb_oracle, --case_insensitive_comparator), so both engines
// order and merge keys alike.
class CaseInsensitive : public Comparator {
 public:
  const char* Name() const override { return "delsm_test.CaseInsensitive"; }
  int Compare(const Slice& a, const Slice& b) const override {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; i++) {
      const int ca = Lower(a[i]), cb = Lower(b[i]);
      if (ca != cb) return ca < cb ? -1 : 1;
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
  }
  void FindShortestSeparator(std::string*, const Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}

 private:
  static int Lower(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u >= 'A' && u <= 'Z' ? u - 'A' + 'a' : u;
  }
};

std::string Hex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out.empty() ? "-" : out;
}

// KV files are named by the bytes of the key a write used; reads, scans,
// compactions and the removal of replaced SSTs must still treat every
// spelling as one key, with the newest write's bytes and value, as LevelDB
// does. Random spellings of a few keys (seeded), written with flushes,
// compactions and a reopen in between; the scan must equal LevelDB's and
// every spelling's Get must give the scan's value.
TEST_F(ScenarioTest, CaseInsensitiveComparatorMatchesLevelDb) {
  const uint64_t seed = delsm_test::RandomSeed("CaseInsensitiveComparator");
  std::mt19937_64 rng(seed);
  CaseInsensitive cmp;
  Options options = options_;
  options.comparator = &cmp;
  constexpr int kBaseKeys = 40, kOps = 1200;
  auto spelling = [&rng](int base) {
    std::string k = "key" + std::to_string(base);
    for (char& c : k) {
      if (c >= 'a' && c <= 'z' && rng() % 2 == 0) c = c - 'a' + 'A';
    }
    return k;
  };

  std::string script;
  std::unique_ptr<DB> db;
  ASSERT_OK(Open(options, &db));
  for (int op = 0; op < kOps; op++) {
    const int base = static_cast<int>(rng() % kBaseKeys);
    const std::string key = spelling(base);
    const int what = static_cast<int>(rng() % 10);
    if (what == 0) {
      ASSERT_OK(db->Delete(WriteOptions(), key));
      script += "delete " + Hex(key) + "\n";
    } else {
      const std::string value = Value(op, 0, 60 + op % 50);
      ASSERT_OK(db->Put(WriteOptions(), key, value));
      script += "put " + Hex(key) + " " + Hex(value) + "\n";
    }
    if (op % 250 == 249) {
      db->CompactRange(nullptr, nullptr);
      ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
      script += "flush\n";
    }
    if (op == kOps / 2) {
      db.reset();
      ASSERT_OK(Open(options, &db));
      script += "reopen\n";
    }
  }
  // The last writes stay in the memtable, over the SSTs.

  std::string dump;
  int count = 0;
  std::map<std::string, std::string> visible;  // lower-case key -> value
  {
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      dump +=
          Hex(it->key().ToString()) + " " + Hex(it->value().ToString()) + "\n";
      std::string lower = it->key().ToString();
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      visible[lower] = it->value().ToString();
      count++;
    }
    ASSERT_OK(it->status());
  }
  dump += "count " + std::to_string(count) + "\n";
  for (int base = 0; base < kBaseKeys; base++) {
    for (int n = 0; n < 3; n++) {
      const std::string key = spelling(base);
      std::string lower = key;
      for (char& c : lower) c = static_cast<char>(std::tolower(c));
      std::string v;
      Status s = db->Get(ReadOptions(), key, &v);
      if (visible.count(lower) == 0) {
        EXPECT_TRUE(s.IsNotFound()) << key << ": " << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << key << ": " << s.ToString();
        EXPECT_EQ(visible[lower], v) << key;
      }
    }
  }
  db.reset();

  const std::string oracle_db = tmp_.path() + "/leveldb";
  delsm_test::OracleRun run = delsm_test::RunOracle(
      {"create", oracle_db, "--case_insensitive_comparator"}, script,
      tmp_.path() + "/create");
  ASSERT_TRUE(run.ok) << run.err;
  run = delsm_test::RunOracle(
      {"dump", oracle_db, "--case_insensitive_comparator"}, "",
      tmp_.path() + "/dump");
  ASSERT_TRUE(run.ok) << run.err;
  EXPECT_EQ(run.out, dump) << "seed " << seed;

  // Reopened, DeLSM still shows the same.
  ASSERT_OK(Open(options, &db));
  db->CompactRange(nullptr, nullptr);
  ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
  std::string again;
  count = 0;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    again +=
        Hex(it->key().ToString()) + " " + Hex(it->value().ToString()) + "\n";
    count++;
  }
  ASSERT_OK(it->status());
  again += "count " + std::to_string(count) + "\n";
  EXPECT_EQ(run.out, again) << "after reopen and compaction, seed " << seed;
}

// A WAL many times write_buffer_size (written with a large buffer, reopened
// with a small one) is replayed into memtables of write_buffer_size each,
// flushed as they fill (LevelDB's RecoverLogFile does the same), not into
// one memtable the size of the WAL.
TEST_F(ScenarioTest, WalSeveralTimesWriteBufferAtRecovery) {
  constexpr int kKeys = 2000;
  constexpr size_t kValue = 1000;
  // No compaction of L0 during the test, so its SSTs can be counted.
  tuning_.l0_compaction_entries = 1ull << 40;
  tuning_.l0_compaction_dirs = 1000;
  tuning_.l0_slowdown_dirs = 2000;
  tuning_.l0_stop_dirs = 3000;
  Options big = options_;
  big.write_buffer_size = 8 << 20;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(big, &db));
    Write(db.get(), 0, kKeys, 0, kValue);
  }
  const std::vector<std::string> logs = Named(dbname_, "", ".log");
  ASSERT_EQ(1u, logs.size());
  const uint64_t wal_size = FileSize(dbname_ + "/" + logs[0]);
  Options small = options_;
  small.write_buffer_size = 128 << 10;
  ASSERT_GE(wal_size, 10 * small.write_buffer_size) << "precondition";

  std::unique_ptr<DB> db;
  ASSERT_OK(Open(small, &db));
  // Before any read fills the value cache: memtables and open meta files.
  std::string mem;
  ASSERT_TRUE(db->GetProperty("leveldb.approximate-memory-usage", &mem));
  EXPECT_LT(std::stoull(mem), wal_size / 2) << "the WAL is held in memory";
  Check(db.get(), 0, kKeys, 0, kValue);
  const int l0 = FilesAtLevel(db.get(), 0);
  // About wal_size / write_buffer_size memtables; at least half as many.
  EXPECT_GE(static_cast<uint64_t>(l0), wal_size / small.write_buffer_size / 2)
      << "WAL of " << wal_size << " bytes replayed into " << l0 << " SSTs";
  db.reset();
  ASSERT_OK(Open(small, &db));
  Check(db.get(), 0, kKeys, 0, kValue);
}

// No WAL at all (every write flushed, then the .log files removed): the DB
// opens, with or without paranoid_checks, as LevelDB's does.
TEST_F(ScenarioTest, NoWalAtAll) {
  constexpr int kKeys = 800;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(options_, &db));
    Write(db.get(), 0, kKeys, 0);
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
  }
  for (bool paranoid : {false, true}) {
    SCOPED_TRACE(paranoid ? "paranoid_checks" : "no paranoid_checks");
    const std::vector<std::string> logs = Named(dbname_, "", ".log");
    ASSERT_FALSE(logs.empty());
    for (const std::string& log : logs) {
      ASSERT_EQ(0, unlink((dbname_ + "/" + log).c_str())) << log;
    }
    Options options = options_;
    options.paranoid_checks = paranoid;
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(options, &db));
    Check(db.get(), 0, kKeys, 0);
    // And it takes writes (a new WAL).
    ASSERT_OK(db->Put(WriteOptions(), "after", "no wal"));
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
  }
}

// A filter policy whose filters never match: if a reader consulted a filter
// made by another policy through this one (or this one's through another),
// every key would look absent.
class NeverMatches : public FilterPolicy {
 public:
  const char* Name() const override { return "delsm_test.NeverMatches"; }
  void CreateFilter(const Slice*, int n, std::string* dst) const override {
    dst->append(static_cast<size_t>(n % 7 + 1), '\x5a');
  }
  bool KeyMayMatch(const Slice&, const Slice&) const override { return false; }
};

// LevelDB keys a table's filter by the policy's name and ignores a filter
// of another name; Bloom filters of any bits per key read alike (the probe
// count is stored in the filter). Keys written under one policy read back
// under another, under none, and after a compaction under the new one.
TEST_F(ScenarioTest, ReopenWithDifferentFilterPolicy) {
  constexpr int kKeys = 1200;
  std::unique_ptr<const FilterPolicy> bloom10(NewBloomFilterPolicy(10));
  std::unique_ptr<const FilterPolicy> bloom2(NewBloomFilterPolicy(2));
  NeverMatches never;
  auto with = [this](const FilterPolicy* policy) {
    Options o = options_;
    o.filter_policy = policy;
    return o;
  };
  // Even keys exist, odd ones never did.
  auto check_evens = [this](DB* db, int gen) {
    for (int i = 0; i < kKeys; i++) {
      std::string v;
      Status s = db->Get(ReadOptions(), Key(i), &v);
      if (i % 2 == 1) {
        ASSERT_TRUE(s.IsNotFound()) << Key(i) << ": " << s.ToString();
        continue;
      }
      ASSERT_TRUE(s.ok()) << Key(i) << ": " << s.ToString();
      ASSERT_EQ(Value(i, gen), v);
    }
  };
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(with(bloom10.get()), &db));
    for (int i = 0; i < kKeys; i += 2) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 0)));
    }
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
    ASSERT_GT(FilesAtLevel(db.get(), 1) + FilesAtLevel(db.get(), 2), 0);
  }
  for (const FilterPolicy* policy :
       {static_cast<const FilterPolicy*>(nullptr), bloom2.get(),
        static_cast<const FilterPolicy*>(&never)}) {
    SCOPED_TRACE(policy == nullptr ? "no filter policy" : policy->Name());
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(with(policy), &db));
    check_evens(db.get(), 0);
  }
  // New SSTs under the never-matching policy (a compaction rewrites every
  // meta file), then read under Bloom filters again and under none.
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(with(&never), &db));
    for (int i = 0; i < kKeys; i += 2) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
    }
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
  }
  for (const FilterPolicy* policy :
       {bloom10.get(), static_cast<const FilterPolicy*>(nullptr)}) {
    SCOPED_TRACE(policy == nullptr ? "no filter policy" : policy->Name());
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(with(policy), &db));
    check_evens(db.get(), 1);
  }
}

// NewMemEnv as Options::env: WAL, manifest, CURRENT and LOG live in memory,
// and so do the SST directories, in the Env's own memory FileSystem
// (docs/CONTRACT.md, "What is and is not in the contract"). A reopen in the
// same Env finds everything: SSTs through the in-memory manifest, and the
// memtable's writes replayed from the in-memory WAL. (DestroyDB of such a DB:
// tests/mem_env_test.cc; its isolation from the disk and from other memory
// Envs: tests/mem_env_isolation_test.cc.)
TEST_F(ScenarioTest, MemEnvReopen) {
  constexpr int kKeys = 3000;
  std::unique_ptr<Env> env(NewMemEnv(Env::Default()));
  Options options = options_;
  options.env = env.get();
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(options, &db));
    Write(db.get(), 0, kKeys, 0);
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
    Write(db.get(), 0, 100, 1);  // only in the WAL
  }
  // Nothing on disk.
  for (const std::string& n : ListDir(dbname_)) {
    ADD_FAILURE() << "on disk: " << n;
  }
  std::vector<std::string> in_memory;
  ASSERT_OK(env->GetChildren(dbname_, &in_memory));
  bool has_current = false;
  for (const std::string& n : in_memory) has_current |= n == "CURRENT";
  EXPECT_TRUE(has_current);

  std::unique_ptr<DB> db;
  ASSERT_OK(Open(options, &db));
  Check(db.get(), 0, 100, 1);
  Check(db.get(), 100, kKeys - 100, 0);
  Write(db.get(), 100, 200, 2);
  db->CompactRange(nullptr, nullptr);
  ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
  db.reset();
  ASSERT_OK(Open(options, &db));
  Check(db.get(), 0, 100, 1);
  Check(db.get(), 100, 200, 2);
  Check(db.get(), 300, kKeys - 300, 0);
}

// Obsolete WALs and manifests are deleted, not just forgotten: after the
// background work settles, and after every reopen, the DB directory holds
// one manifest (the one CURRENT names) and one WAL. (kDeferred keeps WALs
// for deferred_wal_retention_micros by design; not covered here.)
class ObsoleteFilesTest
    : public ScenarioTest,
      public testing::WithParamInterface<delsm::Durability> {};

TEST_P(ObsoleteFilesTest, WalAndManifestDeleted) {
  tuning_.durability = GetParam();
  auto check_files = [this](const std::string& when) {
    SCOPED_TRACE(when);
    std::string current;
    {
      std::unique_ptr<SequentialFile> f;
      SequentialFile* raw = nullptr;
      ASSERT_OK(Env::Default()->NewSequentialFile(dbname_ + "/CURRENT", &raw));
      f.reset(raw);
      char buf[256];
      Slice got;
      ASSERT_OK(f->Read(sizeof(buf), &got, buf));
      current = got.ToString();
    }
    ASSERT_FALSE(current.empty());
    current.pop_back();  // '\n'
    const std::vector<std::string> manifests = Named(dbname_, "MANIFEST-", "");
    EXPECT_EQ(std::vector<std::string>{current}, manifests);
    const std::vector<std::string> logs = Named(dbname_, "", ".log");
    EXPECT_EQ(1u, logs.size())
        << logs.size() << " WALs, first " << (logs.empty() ? "" : logs[0]);
  };
  constexpr int kKeys = 1500;
  for (int round = 0; round < 3; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::unique_ptr<DB> db;
    ASSERT_OK(Open(options_, &db));
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
    check_files("after open");
    if (round > 0) Check(db.get(), 0, kKeys, round - 1);
    Write(db.get(), 0, kKeys, round);  // several memtables
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
    check_files("after flushes");
    db->CompactRange(nullptr, nullptr);
    ASSERT_OK(static_cast<DBImpl*>(db.get())->TEST_WaitForBackgroundWork());
    check_files("after CompactRange");
    Write(db.get(), 0, 50, round);  // the next open replays a WAL
  }
}

INSTANTIATE_TEST_SUITE_P(
    Durability, ObsoleteFilesTest,
    testing::Values(delsm::Durability::kSyncfs, delsm::Durability::kFsync),
    [](const testing::TestParamInfo<delsm::Durability>& info) {
      return info.param == delsm::Durability::kSyncfs ? std::string("Syncfs")
                                                      : std::string("Fsync");
    });

}  // namespace
}  // namespace leveldb
