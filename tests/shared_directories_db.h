// A database whose L1 SST directories each hold more than one SST, for the
// tests of moving such an SST down by a second name of its meta file
// (DBImpl::LinkMove): tests/engine/meta_file_move_test.cc and
// tests/crash/meta_file_move_kill_test.cc.
//
// How: the even keys are flushed and compacted into an empty L1, which
// makes one directory per SST of kSstEntries entries; then the odd keys,
// and the deletes of the keys Deleted() names, are flushed and compacted
// into those directories (their targets), which then hold twice the
// entries, as two SSTs each: META and META-<n>, or META-<n> and
// META-<m>. The deletes' tombstones and the puts they delete are dropped
// by that compaction (L1 is their base level). Closed cleanly.
// BuildOverOlderValues() does the same over older values of every key in
// L3, which keeps the tombstones in L1.
#ifndef DELSM_TESTS_SHARED_DIRECTORIES_DB_H_
#define DELSM_TESTS_SHARED_DIRECTORIES_DB_H_

#include <cstdint>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "tests/db_options.h"
#include "tests/test_support.h"

namespace delsm_test {
namespace shared_dirs {

constexpr int kKeys = 64;
constexpr uint64_t kSstEntries = 8;

// The keys deleted (after their put) before the second compaction.
inline bool Deleted(int i) { return i % 10 == 3; }

// A value of key i: short enough to be inline unless the tuning says
// none is (inline_threshold 0).
inline std::string Value(int i) { return "value-" + std::to_string(i); }

inline leveldb::Options DbOptions() {
  leveldb::Options o;
  o.create_if_missing = true;
  return o;
}

// Compactions only when asked, kSstEntries entries an SST.
inline delsm::Tuning BuildTuning() {
  delsm::Tuning t = ManualCompactionOnly();
  t.sst_entries = kSstEntries;
  return t;
}

// BuildTuning() with an L1 of two SSTs: an Open starts moving L1's SSTs
// down to the empty L2, one at a time, until L1 holds at most that.
inline delsm::Tuning MovingTuning() {
  delsm::Tuning t = BuildTuning();
  t.l1_entries = 2 * kSstEntries;
  return t;
}

// Builds the database described at the top in `dbname` (with `tuning`'s
// settings of values, e.g. values_stay_put); "" or what failed.
inline std::string Build(const std::string& dbname,
                         const delsm::Tuning& tuning = BuildTuning()) {
  leveldb::DB* raw = nullptr;
  leveldb::Status s = delsm::Open(DbOptions(), tuning, dbname, &raw);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<leveldb::DB> db(raw);
  auto* impl = static_cast<leveldb::DBImpl*>(raw);
  for (int i = 0; i < kKeys && s.ok(); i += 2) {
    s = db->Put(leveldb::WriteOptions(), Key(i), Value(i));
  }
  if (s.ok()) s = impl->TEST_FlushMemTable();
  if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
  for (int i = 1; i < kKeys && s.ok(); i += 2) {
    s = db->Put(leveldb::WriteOptions(), Key(i), Value(i));
  }
  for (int i = 0; i < kKeys && s.ok(); i++) {
    if (Deleted(i)) s = db->Delete(leveldb::WriteOptions(), Key(i));
  }
  if (s.ok()) s = impl->TEST_FlushMemTable();
  if (s.ok()) s = impl->TEST_CompactRange(0, nullptr, nullptr);
  if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
  if (!s.ok()) return s.ToString();
  // The premise: some L1 directory holds two SSTs.
  for (const std::string& d : ListDir(dbname + "/L1")) {
    int metas = 0;
    for (const std::string& name : ListDir(dbname + "/L1/" + d)) {
      if (name.rfind("META", 0) == 0) metas++;
    }
    if (metas > 1) return "";
  }
  return "no L1 directory holds two SSTs";
}

// Build() over an older value of every key three levels down (L3), put
// there first: the deletes' tombstones are then kept in L1 (not their base
// level), in the SSTs that moves take down, over the older puts they hide.
inline std::string BuildOverOlderValues(const std::string& dbname) {
  {
    leveldb::DB* raw = nullptr;
    leveldb::Status s = delsm::Open(DbOptions(), BuildTuning(), dbname, &raw);
    if (!s.ok()) return "open: " + s.ToString();
    std::unique_ptr<leveldb::DB> db(raw);
    auto* impl = static_cast<leveldb::DBImpl*>(raw);
    for (int i = 0; i < kKeys && s.ok(); i++) {
      s = db->Put(leveldb::WriteOptions(), Key(i), "older " + Value(i));
    }
    if (s.ok()) s = impl->TEST_FlushMemTable();
    for (int level = 0; level < 3 && s.ok(); level++) {
      s = impl->TEST_CompactRange(level, nullptr, nullptr);
    }
    if (s.ok()) s = impl->TEST_WaitForBackgroundWork();
    if (!s.ok()) return s.ToString();
    std::string n;
    if (!db->GetProperty("leveldb.num-files-at-level3", &n) || n == "0") {
      return "no older values in L3";
    }
  }
  return Build(dbname);
}

// "" if every key of `db` reads as built: NotFound if Deleted() or
// `deleted_since`, else Value().
inline std::string CheckKeys(leveldb::DB* db,
                             bool (*deleted_since)(int) = nullptr) {
  for (int i = 0; i < kKeys; i++) {
    std::string v;
    leveldb::Status s = db->Get(leveldb::ReadOptions(), Key(i), &v);
    if (Deleted(i) || (deleted_since != nullptr && deleted_since(i))) {
      if (!s.IsNotFound()) {
        return "deleted key " + Key(i) + " reads " +
               (s.ok() ? v : s.ToString());
      }
    } else if (!s.ok() || v != Value(i)) {
      return Key(i) + " reads " + (s.ok() ? v : s.ToString());
    }
  }
  return "";
}

}  // namespace shared_dirs
}  // namespace delsm_test

#endif  // DELSM_TESTS_SHARED_DIRECTORIES_DB_H_
