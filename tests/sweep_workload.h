// What the fault sweeps (faults/fault_sweep_test.cc on the SST-directory
// side, faults/env_fault_sweep_test.cc on the Env side) share: the keys
// their workloads write, and the check of a reopened database against how
// many of those writes were acknowledged.
#ifndef DELSM_TESTS_SWEEP_WORKLOAD_H_
#define DELSM_TESTS_SWEEP_WORKLOAD_H_

#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "leveldb/db.h"
#include "leveldb/options.h"
#include "leveldb/status.h"

namespace delsm_test {

// The key of the workload's i-th write: "k" and seven digits of
// (i * 7919) mod 100003, so that successive writes land all over the key
// space.
inline std::string SweepKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%07d", (i * 7919) % 100003);
  return buf;
}

// Gets SweepKey(i) for every i in [0, keys) from `db`: the first `acked`
// writes were acknowledged, so each must hold value(i); any later one may
// have been applied before the failure, so it is absent or holds value(i).
// Fails fatally (naming `what`) at the first key that does not; the caller
// checks testing::Test::HasFatalFailure().
template <typename ValueOf>
void CheckAcknowledgedPrefix(leveldb::DB* db, int keys, int acked,
                             ValueOf value, const std::string& what) {
  for (int i = 0; i < keys; i++) {
    std::string v;
    const leveldb::Status s = db->Get(leveldb::ReadOptions(), SweepKey(i), &v);
    if (i < acked) {
      ASSERT_TRUE(s.ok()) << what << ": acknowledged " << SweepKey(i) << " "
                          << s.ToString();
      ASSERT_EQ(value(i), v) << what;
    } else {
      ASSERT_TRUE(s.IsNotFound() || (s.ok() && v == value(i)))
          << what << ": " << SweepKey(i) << " " << s.ToString();
    }
  }
}

}  // namespace delsm_test

#endif  // DELSM_TESTS_SWEEP_WORKLOAD_H_
