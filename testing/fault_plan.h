// Which counted call fails, and how: the one decision both fault-injecting
// seams (FaultInjectionEnv for the WAL and manifest, FaultInjectionFileSystem
// for the SST directories) make before passing a call through.
//
// Calls are counted by kind (a small integer the seam defines). An armed
// fault names a set of kinds, the nth matching call counted from the arming
// (n >= 1), the errno to report, whether it stays (every matching call from
// the nth on fails: a full disk, a file system turned read-only) and what
// the failing call still does (its effect):
//   kNothing  the call does nothing and fails (the common case);
//   kPartial  part of the call's data reaches the file, then it fails (a
//             short write); only meaningful for calls that carry data;
//   kDone     the call takes effect, then reports the error (data written
//             but fsync failed; close failed after releasing the file).
// A path filter restricts counting towards n (and failing) to calls whose
// path contains a given string, or is exactly a given path (one directory,
// not the entries below it, whose paths contain its own); every call is
// still counted per kind. A
// hook, if given, runs in the failing call's thread before the call goes
// on to fail: a test holds the call there until whatever it wants the
// failure to meet (another thread's step) has happened.
//
// Thread-safe.
#ifndef DELSM_TESTING_FAULT_PLAN_H_
#define DELSM_TESTING_FAULT_PLAN_H_

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "leveldb/status.h"

namespace leveldb {

enum class FaultEffect { kNothing, kPartial, kDone };

struct FaultSpec {
  uint64_t nth = 1;     // the nth matching call from arming fails
  int err = EIO;        // reported as PosixError(path, err)
  bool sticky = false;  // and so does every matching call after it
  FaultEffect effect = FaultEffect::kNothing;
  std::string path_contains;  // empty: every path matches
  std::string path_is;        // non-empty: only this exact path matches
  // Run by each failing call before it fails, without the plan's lock
  // held; empty: none.
  std::function<void()> before_failing;
};

// What a seam does with one call.
struct FaultDecision {
  bool fail = false;
  FaultEffect effect = FaultEffect::kNothing;
  Status status;  // the error to report when `fail`
};

// The untyped core: kinds are 0 .. kMaxKinds-1.
class FaultPlanCore {
 public:
  static constexpr int kMaxKinds = 16;

  FaultPlanCore();

  // Arms `spec` for the kinds in `kinds` (bit k: kind k); replaces any
  // earlier arming. spec.nth == 0 disarms.
  void ArmKinds(uint32_t kinds, const FaultSpec& spec);
  void Disarm() {
    FaultSpec none;
    none.nth = 0;
    ArmKinds(0, none);
  }
  // True once the armed fault has been delivered at least once.
  bool Fired() const;
  // How many calls the armed fault has failed.
  uint64_t Failures() const;
  // Calls since the arming that matched its kinds and path filter, failed
  // ones included (arm with an unreachable nth to count the calls a path
  // filter selects).
  uint64_t Matches() const;
  // The error the armed fault first delivered ("" before it fired): names
  // the path, for messages.
  std::string FirstFailure() const;
  // Calls of kind `kind` since construction or ResetCounts(), failed ones
  // included.
  uint64_t CountKind(int kind) const;
  void ResetCounts();

  // Counts one call of `kind` on `path` and decides its fate.
  FaultDecision Decide(int kind, const std::string& path);

 private:
  std::atomic<uint64_t> counts_[kMaxKinds];

  mutable std::mutex mu_;
  // The armed fault, guarded by mu_. remaining_ counts matching calls down
  // to the nth; 0 with !active_: nothing armed.
  uint32_t kinds_ = 0;
  FaultSpec spec_;
  uint64_t remaining_ = 0;
  bool active_ = false;  // the nth call has come and spec_.sticky
  uint64_t failures_ = 0;
  uint64_t matches_ = 0;
  std::string first_failure_;
};

// The typed face a seam exposes: `Op` is its enum of kinds.
template <typename Op>
class FaultPlan : public FaultPlanCore {
 public:
  static uint32_t Bit(Op op) { return 1u << static_cast<int>(op); }

  // From now on the nth call (n >= 1) of kind `op` fails with errno `err`
  // and does nothing; later ones succeed. n == 0 disarms.
  void FailNth(Op op, uint64_t n, int err) {
    FaultSpec spec;
    spec.nth = n;
    spec.err = err;
    ArmKinds(Bit(op), spec);
  }
  void Arm(Op op, const FaultSpec& spec) { ArmKinds(Bit(op), spec); }
  uint64_t Count(Op op) const { return CountKind(static_cast<int>(op)); }
  FaultDecision Decide(Op op, const std::string& path) {
    return FaultPlanCore::Decide(static_cast<int>(op), path);
  }
};

}  // namespace leveldb

#endif  // DELSM_TESTING_FAULT_PLAN_H_
