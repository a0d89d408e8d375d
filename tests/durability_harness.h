// What the durability tests share: the stack of wrappers a faulty run uses,
// and the check of a recovered database against a write model.
//
// The stack: the SST directories go through a FaultInjectionFileSystem
// (faults) over a PowerLossFileSystem (the power-loss model), the WAL,
// manifest and CURRENT through a FaultInjectionEnv (both); a syncfs or a
// directory fsync reported by either side covers what the other changed.
// A fault is injected above the power-loss model, so a call that fails
// does to the model only what its fault effect lets through. Real syncs
// are off: the tests look at the disk only after a simulated power loss
// (or a copy taken before it, which needs no sync).
#ifndef DELSM_TESTS_DURABILITY_HARNESS_H_
#define DELSM_TESTS_DURABILITY_HARNESS_H_

#include <map>
#include <memory>
#include <string>

#include "db/db_impl.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "testing/fault_injection_env.h"
#include "testing/fault_injection_file_system.h"
#include "testing/power_loss_file_system.h"
#include "tests/orphan_check.h"
#include "tests/write_model.h"

namespace delsm_test {

inline const char* ModeName(delsm::Durability mode) {
  switch (mode) {
    case delsm::Durability::kSyncfs:
      return "syncfs";
    case delsm::Durability::kFsync:
      return "fsync";
    case delsm::Durability::kDeferred:
      return "deferred";
  }
  return "?";
}

// The wrappers of one faulty run; `root` holds their shadow directories
// (and must not be inside the database).
class FaultStack {
 public:
  explicit FaultStack(const std::string& root)
      : power_fs(leveldb::FileSystem::Default(), root + "/fs_shadow"),
        fault_fs(&power_fs),
        env(leveldb::Env::Default(), root + "/env_shadow") {
    power_fs.SetSyncfsHook([this] { env.MarkAllDurable(); });
    power_fs.SetDirectorySyncHook(
        [this](const std::string& dir) { env.MarkDirectorySynced(dir); });
    env.SetDirectorySyncHook(
        [this](const std::string& dir) { power_fs.MarkDirectorySynced(dir); });
    // Only the model's view of durability is ever checked.
    power_fs.set_real_syncs(false);
    env.set_real_syncs(false);
  }

  // Opens `dbname` on the stack.
  leveldb::Status Open(leveldb::Options options, const delsm::Tuning& tuning,
                       const std::string& dbname, leveldb::DB** db) {
    options.env = &env;
    return leveldb::OpenWithFileSystem(options, tuning, dbname, &fault_fs, db);
  }

  // Rolls both sides back to what a power failure now could have left (the
  // DB must have been deleted). Returns the first model error.
  leveldb::Status PowerLoss(
      const leveldb::PowerLossOutcome& outcome = leveldb::PowerLossOutcome()) {
    env.CutPower();
    power_fs.CutPower();
    leveldb::Status s = env.SimulatePowerLoss(outcome);
    leveldb::Status s2 = power_fs.SimulatePowerLoss(outcome);
    return s.ok() ? s2 : s;
  }

  leveldb::PowerLossFileSystem power_fs;
  leveldb::FaultInjectionFileSystem fault_fs;
  leveldb::FaultInjectionEnv env;
};

// Reads the whole database.
inline leveldb::Status ReadAll(leveldb::DB* db,
                               std::map<std::string, std::string>* contents) {
  contents->clear();
  std::unique_ptr<leveldb::Iterator> it(
      db->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    (*contents)[it->key().ToString()] = it->value().ToString();
  }
  return it->status();
}

// Opens `dbname` on the real file system with `options` and `tuning`, lets
// the background work the open starts finish, and checks the contents (a
// scan, and a Get of every key `keys` lists, which must agree) against
// `model`, and that nothing is orphaned. Returns "" or what is wrong;
// `contents` (if not null) receives what was found.
inline std::string VerifyDb(
    const leveldb::Options& options, const delsm::Tuning& tuning,
    const std::string& dbname, const Model& model,
    const std::vector<std::string>& keys,
    std::map<std::string, std::string>* contents = nullptr) {
  leveldb::DB* db = nullptr;
  leveldb::Status s = delsm::Open(options, tuning, dbname, &db);
  if (!s.ok()) return "reopen: " + s.ToString();
  std::unique_ptr<leveldb::DB> holder(db);
  s = static_cast<leveldb::DBImpl*>(db)->TEST_WaitForBackgroundWork();
  if (!s.ok()) return "background work after reopen: " + s.ToString();
  std::map<std::string, std::string> found;
  s = ReadAll(db, &found);
  if (!s.ok()) return "scan: " + s.ToString();
  for (const std::string& key : keys) {
    std::string v;
    s = db->Get(leveldb::ReadOptions(), key, &v);
    auto it = found.find(key);
    if (it == found.end() ? !s.IsNotFound() : (!s.ok() || v != it->second)) {
      return "Get " + key + " (" + s.ToString() + ") disagrees with the scan";
    }
  }
  std::string errors = model.Check(found);
  if (!errors.empty()) return errors;
  s = static_cast<leveldb::DBImpl*>(db)->TEST_WaitForBackgroundWork();
  if (!s.ok()) return "background work: " + s.ToString();
  errors = FindOrphans(db, dbname);
  if (!errors.empty()) return "orphans: " + errors;
  if (contents != nullptr) *contents = std::move(found);
  return "";
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_DURABILITY_HARNESS_H_
