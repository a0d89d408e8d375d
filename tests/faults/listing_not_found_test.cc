// A directory listing that fails with ENOENT while the directory is there
// (testing/fault_injection_file_system.h fails that one listing, by its
// exact path) is no proof that the directory is absent. Each caller that
// would forget, skip or replace something on a directory's absence takes
// it for absent only when a lookup agrees (fs/list_if_present.h):
//  - RepairDB, listing values/ to learn the homes (values that stay put):
//    taken for absent, every value in a home would read as lost and the
//    SSTs naming them be rebuilt without them; RepairDB fails instead,
//    having changed nothing;
//  - DB::Open, listing values/ to number what it makes past every home:
//    taken for empty, a new home could get the number of one a crash left
//    there; Open fails instead;
//  - DB::Open, listing the directory that holds the KV files of an L0 SST
//    never made durable (the SST directory, or its home), to tell whether
//    one is gone: taken for gone, the intact SST would be replaced by the
//    replay of its WAL, which a power loss may have shortened; the SST
//    stays instead, as for any other listing error.
// In each case, with the listing working again, the database opens with
// every acknowledged key and no deleted key back.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_file_system.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace leveldb {
namespace {

using delsm_test::Key;

constexpr int kKeys = 100;
constexpr int kDeleted = 20;  // keys 0 .. kDeleted-1 are deleted

// Key i's value as round `round` wrote it: each round's values differ, so
// that a stale version does not pass for the newest.
std::string Value(int i, int round) {
  return std::to_string(i) + "/" + std::to_string(round) +
         std::string(300, static_cast<char>('a' + i % 26));
}

// What a database must read: each key of `values` its value, each key of
// `deleted` NotFound, and no key besides those of `values`.
struct Expected {
  std::map<std::string, std::string> values;
  std::set<std::string> deleted;

  void Put(const std::string& key, const std::string& value) {
    values[key] = value;
    deleted.erase(key);
  }
  void Delete(const std::string& key) {
    values.erase(key);
    deleted.insert(key);
  }
};

// "" if `db` reads exactly `exp` (Get of every key, and a full scan); else
// how many keys differ, with the first few.
std::string CheckReads(DB* db, const Expected& exp) {
  int missing = 0, stale = 0, back = 0, extra = 0;
  std::string first;
  auto note = [&first](int count, const std::string& what) {
    if (count <= 3) first += " " + what + ";";
  };
  for (const auto& kv : exp.values) {
    std::string got;
    const Status s = db->Get(ReadOptions(), kv.first, &got);
    if (!s.ok()) {
      note(++missing, kv.first + ": " + s.ToString());
    } else if (got != kv.second) {
      note(++stale, kv.first + " reads another value");
    }
  }
  for (const std::string& key : exp.deleted) {
    std::string got;
    const Status s = db->Get(ReadOptions(), key, &got);
    if (!s.IsNotFound()) {
      note(++back,
           "deleted " + key + " reads " + (s.ok() ? "a value" : s.ToString()));
    }
  }
  size_t scanned = 0;
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    scanned++;
    auto e = exp.values.find(it->key().ToString());
    if (e == exp.values.end() || e->second != it->value().ToString()) {
      note(++extra, "the scan shows " + it->key().ToString());
    }
  }
  if (!it->status().ok()) {
    first += " the scan failed: " + it->status().ToString();
  }
  if (missing + stale + back + extra == 0 && it->status().ok() &&
      scanned == exp.values.size()) {
    return "";
  }
  return std::to_string(missing) + " of " + std::to_string(exp.values.size()) +
         " keys do not read, " + std::to_string(stale) +
         " read another value, " + std::to_string(back) + " of " +
         std::to_string(exp.deleted.size()) +
         " deleted keys are back, the scan shows " + std::to_string(scanned) +
         " keys (" + std::to_string(extra) + " wrong):" + first;
}

// "" if `dbname` opens with `tuning` and reads exactly `exp`; else why not.
std::string OpenAndCheck(const std::string& dbname, const delsm::Tuning& tuning,
                         const Expected& exp) {
  DB* raw = nullptr;
  const Status s = delsm::Open(Options(), tuning, dbname, &raw);
  if (!s.ok()) return "Open: " + s.ToString();
  std::unique_ptr<DB> db(raw);
  return CheckReads(db.get(), exp);
}

// The first listing of exactly `path` from now on fails with ENOENT; the
// directory stays, and a lookup finds it.
FaultSpec FirstListingSaysNotFound(const std::string& path) {
  FaultSpec spec;
  spec.nth = 1;
  spec.err = ENOENT;
  spec.path_is = path;
  return spec;
}

DBImpl* Impl(DB* db) { return static_cast<DBImpl*>(db); }

// A database whose values stay put in homes under values/, in several SST
// directories: round 1 puts every key, flushed and compacted out of L0;
// round 2 deletes the first kDeleted keys and overwrites the next
// kDeleted, flushed into L0; round 3 puts a few keys only the WAL holds.
// Closed cleanly.
class ValuesListingTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    DB* raw = nullptr;
    ASSERT_OK(
        delsm::Open(delsm_test::NewDbOptions(1 << 20), tuning_, dbname_, &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kKeys; i++) ASSERT_NO_FATAL_FAILURE(Put(db, i, 1));
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    db->CompactRange(nullptr, nullptr);
    for (int i = 0; i < kDeleted; i++) {
      ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      exp_.Delete(Key(i));
    }
    for (int i = kDeleted; i < 2 * kDeleted; i++) {
      ASSERT_NO_FATAL_FAILURE(Put(db, i, 2));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    for (int i = kKeys; i < kKeys + 10; i++) {
      ASSERT_NO_FATAL_FAILURE(Put(db, i, 3));
    }
    db.reset();
    ASSERT_LE(2u, delsm_test::ListDir(values_).size())
        << "the flushes made fewer than two homes";
    ASSERT_EQ("", OpenAndCheck(dbname_, tuning_, exp_)) << "as written";
  }

  void Put(const std::unique_ptr<DB>& db, int i, int round) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, round)));
    exp_.Put(Key(i), Value(i, round));
  }

  delsm_test::TempDir tmp_{"delsm_listing_not_found"};
  const std::string dbname_ = tmp_.path() + "/db";
  const std::string values_ = dbname_ + "/values";
  const delsm::Tuning tuning_ = delsm_test::ManualCompactionKvFiles(true);
  Expected exp_;
};

// RepairDB learns the homes from the listing of values/; that listing says
// NotFound. RepairDB must fail (naming values/) rather than repair as if
// no home held a value; then Open reads everything, and so does a
// RepairDB with the listing working.
TEST_F(ValuesListingTest, RepairDBFailsRatherThanLoseEveryHome) {
  FaultInjectionFileSystem fs(FileSystem::Default());
  fs.Arm(FsOp::kReaddir, FirstListingSaysNotFound(values_));
  const Status s = RepairDBWithFileSystem(dbname_, Options(), &fs);
  ASSERT_TRUE(fs.Fired()) << "RepairDB did not list " << values_ << ": "
                          << s.ToString();
  EXPECT_FALSE(s.ok()) << "RepairDB took values/ for absent";
  EXPECT_NE(std::string::npos, s.ToString().find(values_)) << s.ToString();

  EXPECT_EQ("", OpenAndCheck(dbname_, tuning_, exp_))
      << "after RepairDB: " << s.ToString();
  ASSERT_OK(RepairDB(dbname_, Options()));
  EXPECT_EQ("", OpenAndCheck(dbname_, tuning_, exp_))
      << "after a RepairDB with the listing working";
}

// Open numbers what it makes past every home, from the listing of values/;
// that listing says NotFound. Open must fail (naming values/) rather than
// take values/ for empty; then Open reads everything.
TEST_F(ValuesListingTest, OpenFailsRatherThanNumberPastNoHome) {
  FaultInjectionFileSystem fs(FileSystem::Default());
  fs.Arm(FsOp::kReaddir, FirstListingSaysNotFound(values_));
  DB* raw = nullptr;
  const Status s = OpenWithFileSystem(Options(), tuning_, dbname_, &fs, &raw);
  delete raw;
  ASSERT_TRUE(fs.Fired()) << "Open did not list " << values_ << ": "
                          << s.ToString();
  EXPECT_FALSE(s.ok()) << "Open took values/ for empty";
  EXPECT_NE(std::string::npos, s.ToString().find(values_)) << s.ToString();

  EXPECT_EQ("", OpenAndCheck(dbname_, tuning_, exp_))
      << "after Open: " << s.ToString();
}

// Where an L0 SST never made durable keeps its KV files: in its own
// directory, or in its home (values that stay put).
struct KvFilesPlace {
  const char* name;
  bool values_stay_put;
};

void PrintTo(const KvFilesPlace& p, std::ostream* os) { *os << p.name; }

// kDeferred, every value a KV file: every key put, then the first kDeleted
// deleted, flushed into one L0 SST (its WAL kept, as a kill keeps it: the
// SST is not durable), then one more put only the newest WAL holds; then
// the flushed WAL loses its second half (the last puts and every delete),
// as a power loss takes an unsynced tail. The SST itself is whole.
class KvFilesListingTest : public testing::TestWithParam<KvFilesPlace> {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    tuning_ = delsm_test::ManualCompactionOnly();
    tuning_.durability = delsm::Durability::kDeferred;
    tuning_.deferred_wal_retention_micros = 3600ull * 1000 * 1000;
    tuning_.inline_threshold = 0;
    tuning_.values_stay_put = GetParam().values_stay_put;

    DB* raw = nullptr;
    ASSERT_OK(
        delsm::Open(delsm_test::NewDbOptions(1 << 20), tuning_, dbname_, &raw));
    std::unique_ptr<DB> db(raw);
    Impl(db.get())->TEST_KeepDeferredLogs();
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
      exp_.Put(Key(i), Value(i, 1));
    }
    for (int i = 0; i < kDeleted; i++) {
      ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      exp_.Delete(Key(i));
    }
    ASSERT_OK(Impl(db.get())->TEST_FlushMemTable());
    ASSERT_OK(db->Put(WriteOptions(), Key(kKeys), Value(kKeys, 1)));
    exp_.Put(Key(kKeys), Value(kKeys, 1));
    db.reset();

    const std::vector<std::string> l0 = delsm_test::ListDir(dbname_ + "/L0");
    ASSERT_EQ(1u, l0.size());
    listed_ = dbname_ + "/L0/" + l0[0];
    if (GetParam().values_stay_put) {
      const std::vector<std::string> homes =
          delsm_test::ListDir(dbname_ + "/values");
      ASSERT_EQ(1u, homes.size());
      listed_ = dbname_ + "/values/" + homes[0];
    }
    // The oldest WAL is the flushed memtable's (names sort as numbers).
    std::string wal;
    for (const std::string& name : delsm_test::ListDir(dbname_)) {
      if (delsm_test::EndsWith(name, ".log")) {
        wal = dbname_ + "/" + name;
        break;
      }
    }
    struct stat st;
    ASSERT_EQ(0, stat(wal.c_str(), &st)) << wal;
    ASSERT_GE(st.st_size, 16 * 1024) << wal << " is not the flushed WAL";
    ASSERT_EQ(0, truncate(wal.c_str(), st.st_size / 2));
  }

  delsm_test::TempDir tmp_{"delsm_listing_not_found"};
  const std::string dbname_ = tmp_.path() + "/db";
  delsm::Tuning tuning_;
  std::string listed_;  // the directory holding the SST's KV files
  Expected exp_;
};

// The replay does not hold every write of the SST, so Open looks for
// evidence that the SST is torn or lost: a KV file its meta file names
// that the listing of its directory lacks. That listing says NotFound.
// The SST must stay: replaced by the replay, the puts only it holds would
// be lost and the deleted keys come back from the replayed puts.
TEST_P(KvFilesListingTest, IntactSstStaysBesideTheReplay) {
  FaultInjectionFileSystem fs(FileSystem::Default());
  fs.Arm(FsOp::kReaddir, FirstListingSaysNotFound(listed_));
  DB* raw = nullptr;
  const Status s = OpenWithFileSystem(Options(), tuning_, dbname_, &fs, &raw);
  std::unique_ptr<DB> db(raw);
  ASSERT_TRUE(fs.Fired()) << "Open did not list " << listed_ << ": "
                          << s.ToString();
  ASSERT_OK(s);
  EXPECT_EQ("", CheckReads(db.get(), exp_)) << "with the listing failing";
  db.reset();

  EXPECT_EQ("", OpenAndCheck(dbname_, tuning_, exp_)) << "reopened";
}

INSTANTIATE_TEST_SUITE_P(Places, KvFilesListingTest,
                         testing::Values(KvFilesPlace{"sst_dir", false},
                                         KvFilesPlace{"home", true}),
                         [](const testing::TestParamInfo<KvFilesPlace>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace leveldb
