// The recovery sweep's databases (tests/crash/recovery_sweep_*): the
// modes a database is built in, the workload that builds it, and what each
// key may read as afterwards.
#ifndef DELSM_TESTS_CRASH_RECOVERY_SWEEP_WORKLOAD_H_
#define DELSM_TESTS_CRASH_RECOVERY_SWEEP_WORKLOAD_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "tests/write_model.h"

namespace leveldb {
namespace recovery_sweep {

using delsm_test::Model;

// ---------------------------------------------------------------- modes

enum class Kill { kNone, kFlush, kCompaction, kRepair };

struct Mode {
  const char* name;
  delsm::Durability durability;
  bool values_stay_put;
  size_t inline_threshold;
  int flush_threads;
  Kill kill;
};

inline const Mode kModes[] = {
    {"syncfs", delsm::Durability::kSyncfs, false, 2048, 1, Kill::kNone},
    {"values_stay_put", delsm::Durability::kSyncfs, true, 2048, 1, Kill::kNone},
    {"inline_off", delsm::Durability::kSyncfs, false, 0, 1, Kill::kNone},
    {"fsync", delsm::Durability::kFsync, false, 2048, 1, Kill::kNone},
    {"deferred", delsm::Durability::kDeferred, false, 2048, 1, Kill::kNone},
    {"parallel_flush", delsm::Durability::kSyncfs, false, 2048, 2, Kill::kNone},
    {"killed_in_flush", delsm::Durability::kSyncfs, false, 0, 1, Kill::kFlush},
    {"killed_in_compaction", delsm::Durability::kSyncfs, false, 0, 1,
     Kill::kCompaction},
    {"killed_in_repair", delsm::Durability::kSyncfs, false, 0, 1,
     Kill::kRepair},
    // Hook: a LevelDB 1.23 database killed in the middle of its conversion
    // (leveldb-conversion/ staging files, PLAN) is the conversion tests'
    // area (tests/crash/leveldb_conversion_crash_test.cc); add it here as a
    // mode whose Build() converts under a kill once those files are to be
    // swept.
};

inline void PrintTo(const Mode& m, std::ostream* os) { *os << m.name; }

inline const Mode* ModeByName(const std::string& name) {
  for (const Mode& m : kModes) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

inline delsm::Tuning TuningFor(const Mode& m) {
  delsm::Tuning t;
  t.durability = m.durability;
  t.values_stay_put = m.values_stay_put;
  t.inline_threshold = m.inline_threshold;
  t.flush_threads = m.flush_threads;
  t.deferred_wal_retention_micros = 3600ull * 1000 * 1000;
  // Small SSTs and directories, so that a compaction writes several, and
  // directories hold META-<n> files; L0 is compacted only when asked.
  t.sst_entries = 24;
  t.max_dir_entries = 60;
  t.l1_entries = 80;
  t.l0_compaction_entries = 1 << 20;
  t.l0_compaction_dirs = 100;
  t.l0_slowdown_dirs = 200;
  t.l0_stop_dirs = 300;
  return t;
}

inline Options BuildOptions(const Mode& m) {
  Options o;
  o.create_if_missing = true;
  // Each phase fits one memtable (flushes are explicit), except with
  // parallel flush, where the phases fill several, flushed at once.
  o.write_buffer_size = m.flush_threads > 1 ? (24 << 10) : (4 << 20);
  return o;
}

inline Options CheckOptions(const Mode& m) {
  Options o = BuildOptions(m);
  o.create_if_missing = false;  // a lost CURRENT must not make a new DB
  return o;
}

// ------------------------------------------------------------- workload

// Phases: A puts every key and flushes; B overwrites and deletes, flushes
// and compacts everything below L0; C overwrites, deletes and puts back,
// flushed to an L0 SST; D overwrites and deletes, left in the WAL (the
// killed modes then flush or compact, or close and repair).
inline constexpr int kPhases = 4;
inline constexpr int kKeys = 90;

inline std::string KeyOf(int i) {
  if (i >= kKeys) {  // two keys long enough for hashed KV file names
    return "L" + std::to_string(i) + std::string(250, 'x');
  }
  char buf[16];
  std::snprintf(buf, sizeof(buf), "k%04d", i);
  return buf;
}
inline constexpr int kAllKeys = kKeys + 2;

// A value names its key and write, so one never written is recognised.
inline std::string ValueOf(int key, uint64_t index, std::mt19937* rnd) {
  const size_t size = (key % 3 == 0 || key >= kKeys)
                          ? 2500 + (*rnd)() % 1500  // a KV file in any mode
                          : 60 + (*rnd)() % 200;    // inline unless off
  std::string v = "v" + std::to_string(index) + "." + KeyOf(key) + ".";
  while (v.size() < size) v.push_back('a' + (index + v.size()) % 26);
  return v;
}

struct WriteOp {
  int phase;
  int key;
  bool del;
  std::string value;
};

inline std::vector<WriteOp> Workload(uint64_t seed) {
  std::mt19937 rnd(static_cast<uint32_t>(seed));
  std::vector<WriteOp> ops;
  uint64_t index = 0;
  auto put = [&](int phase, int k) {
    ops.push_back({phase, k, false, ValueOf(k, index++, &rnd)});
  };
  auto del = [&](int phase, int k) {
    ops.push_back({phase, k, true, ""});
    index++;
  };
  for (int k = 0; k < kAllKeys; k++) put(0, k);
  for (int k = 0; k < kAllKeys; k++) {
    if (rnd() % 5 == 0) {
      del(1, k);
    } else if (rnd() % 2 == 0) {
      put(1, k);
    }
  }
  // Each key deleted in `del_in_10` of ten cases, else put in `put_in_10`.
  auto churn = [&](int phase, int del_in_10, int put_in_10) {
    for (int k = 0; k < kAllKeys; k++) {
      const int r = rnd() % 10;
      if (r < del_in_10) {
        del(phase, k);
      } else if (r < del_in_10 + put_in_10) {
        put(phase, k);
      }
    }
  };
  churn(2, 2, 3);
  churn(3, 1, 2);
  return ops;
}

// What each key may read as, given the phases whose writes are promised.
class Expected {
 public:
  Expected(const std::vector<WriteOp>& ops, int promised_phases) : ops_(ops) {
    for (size_t i = 0; i < ops.size(); i++) {
      by_key_[KeyOf(ops[i].key)].push_back(i);
      const bool promised = ops[i].phase < promised_phases;
      model_.Add(KeyOf(ops[i].key), i, ops[i].del, ops[i].value, promised);
    }
  }

  const Model& model() const { return model_; }

  std::vector<std::string> Keys() const {
    std::vector<std::string> keys;
    for (const auto& kv : by_key_) keys.push_back(kv.first);
    return keys;
  }

  // "" if a Get of `key` answering `s` (and `value`) is allowed: the value
  // of the last promised write or a later one, NotFound only if one of
  // those is a delete, any other error (a reported problem).
  std::string CheckGet(const std::string& key, const Status& s,
                       const std::string& value, int promised_phases) const {
    if (!s.ok() && !s.IsNotFound()) return "";
    const std::vector<size_t>& w = by_key_.at(key);
    int last = -1;
    for (size_t i = 0; i < w.size(); i++) {
      if (ops_[w[i]].phase < promised_phases) last = static_cast<int>(i);
    }
    const size_t from = last < 0 ? 0 : last;
    if (s.IsNotFound()) {
      if (last < 0) return "";
      for (size_t i = from; i < w.size(); i++) {
        if (ops_[w[i]].del) return "";
      }
      return "acknowledged key " + Short(key) + " reads NotFound";
    }
    for (size_t i = from; i < w.size(); i++) {
      if (!ops_[w[i]].del && ops_[w[i]].value == value) return "";
    }
    for (size_t i = 0; i < from; i++) {
      if (!ops_[w[i]].del && ops_[w[i]].value == value) {
        return ops_[w[last]].del
                   ? "deleted key " + Short(key) + " came back"
                   : "key " + Short(key) + " shows an older value";
      }
    }
    return "key " + Short(key) + " shows a value never written to it";
  }

  static std::string Short(const std::string& key) {
    return key.size() > 20 ? key.substr(0, 12) + "..." : key;
  }

 private:
  const std::vector<WriteOp>& ops_;
  std::map<std::string, std::vector<size_t>> by_key_;
  Model model_;
};

// Applies phases [first, last) of `ops` to `db`; false on any error.
inline bool ApplyPhase(DB* db, const std::vector<WriteOp>& ops, int phase) {
  for (const WriteOp& op : ops) {
    if (op.phase != phase) continue;
    Status s = op.del ? db->Delete(WriteOptions(), KeyOf(op.key))
                      : db->Put(WriteOptions(), KeyOf(op.key), op.value);
    if (!s.ok()) {
      std::fprintf(stderr, "write: %s\n", s.ToString().c_str());
      return false;
    }
  }
  return true;
}

inline DBImpl* Impl(DB* db) { return static_cast<DBImpl*>(db); }

// Runs the workload on `dbname` through `fs` and `env` (null: defaults).
// With a kill mode, `arm` is called just before the operation to be cut
// (the last flush, the compaction, the repair), and `after` right after it.
// Returns "" or what failed.
inline std::string RunWorkload(const Mode& m, uint64_t seed,
                               const std::string& dbname, FileSystem* fs,
                               Env* env, const std::function<void()>& arm,
                               const std::function<void()>& after) {
  const std::vector<WriteOp> ops = Workload(seed);
  Options options = BuildOptions(m);
  if (env != nullptr) options.env = env;
  DB* db = nullptr;
  Status s = OpenWithFileSystem(options, TuningFor(m), dbname, fs, &db);
  if (!s.ok()) return "open: " + s.ToString();
  std::unique_ptr<DB> holder(db);
  auto settle = [&]() -> Status {
    Status r = Impl(db)->TEST_FlushMemTable();
    if (r.ok()) r = Impl(db)->TEST_WaitForBackgroundWork();
    return r;
  };
  if (!ApplyPhase(db, ops, 0)) return "phase A";
  if (!(s = settle()).ok()) return "flush A: " + s.ToString();
  if (!ApplyPhase(db, ops, 1)) return "phase B";
  if (!(s = settle()).ok()) return "flush B: " + s.ToString();
  db->CompactRange(nullptr, nullptr);
  if (!(s = Impl(db)->TEST_WaitForBackgroundWork()).ok()) {
    return "compaction B: " + s.ToString();
  }
  if (!ApplyPhase(db, ops, 2)) return "phase C";
  if (!(s = settle()).ok()) return "flush C: " + s.ToString();
  if (!ApplyPhase(db, ops, 3)) return "phase D";
  if (m.kill == Kill::kFlush) {
    arm();
    Impl(db)->TEST_FlushMemTable();
    Impl(db)->TEST_WaitForBackgroundWork();
    after();
  } else if (m.kill == Kill::kCompaction) {
    if (!(s = settle()).ok()) return "flush D: " + s.ToString();
    arm();
    Impl(db)->TEST_CompactRange(0, nullptr, nullptr);
    Impl(db)->TEST_WaitForBackgroundWork();
    after();
  }
  holder.reset();
  if (m.kill == Kill::kRepair) {
    arm();
    RepairDBWithFileSystem(dbname, options, fs);
    after();
  }
  return "";
}

}  // namespace recovery_sweep
}  // namespace leveldb

#endif  // DELSM_TESTS_CRASH_RECOVERY_SWEEP_WORKLOAD_H_
