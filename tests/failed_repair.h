// A RepairDB that fails at a rename, as an I/O error (EIO) there leaves
// it: the tests of what the next Open and RepairDB make of what such a
// repair left start from it.
#ifndef DELSM_TESTS_FAILED_REPAIR_H_
#define DELSM_TESTS_FAILED_REPAIR_H_

#include <string>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "testing/fault_injection_env.h"

namespace delsm_test {

// Runs RepairDB on `dbname` (default options) with its first rename of a
// path containing `path_contains` failing; the fault-injecting Env keeps
// its shadow in `shadow_dir`. Fails the calling test (call through
// ASSERT_NO_FATAL_FAILURE) if the repair succeeds, or with `not_tried` if
// it made no such rename.
inline void FailRepairAtRename(const std::string& dbname,
                               const std::string& shadow_dir,
                               const std::string& path_contains,
                               const char* not_tried) {
  leveldb::FaultInjectionEnv env(leveldb::Env::Default(), shadow_dir);
  leveldb::FaultSpec rename;
  rename.path_contains = path_contains;
  env.Arm(leveldb::EnvOp::kRename, rename);
  leveldb::Options o;
  o.env = &env;
  EXPECT_FALSE(leveldb::RepairDB(dbname, o).ok());
  ASSERT_TRUE(env.Fired()) << not_tried;
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_FAILED_REPAIR_H_
