#include "testing/fault_plan.h"

#include "fs/posix_file_system.h"

namespace leveldb {

FaultPlanCore::FaultPlanCore() { ResetCounts(); }

void FaultPlanCore::ArmKinds(uint32_t kinds, const FaultSpec& spec) {
  std::lock_guard<std::mutex> l(mu_);
  kinds_ = kinds;
  spec_ = spec;
  remaining_ = spec.nth;
  active_ = false;
  failures_ = 0;
  matches_ = 0;
  first_failure_.clear();
}

bool FaultPlanCore::Fired() const {
  std::lock_guard<std::mutex> l(mu_);
  return failures_ > 0;
}

uint64_t FaultPlanCore::Failures() const {
  std::lock_guard<std::mutex> l(mu_);
  return failures_;
}

uint64_t FaultPlanCore::Matches() const {
  std::lock_guard<std::mutex> l(mu_);
  return matches_;
}

std::string FaultPlanCore::FirstFailure() const {
  std::lock_guard<std::mutex> l(mu_);
  return first_failure_;
}

uint64_t FaultPlanCore::CountKind(int kind) const {
  return counts_[kind].load(std::memory_order_relaxed);
}

void FaultPlanCore::ResetCounts() {
  for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
}

FaultDecision FaultPlanCore::Decide(int kind, const std::string& path) {
  counts_[kind].fetch_add(1, std::memory_order_relaxed);
  FaultDecision d;
  int err;
  std::function<void()> before_failing;
  {
    std::lock_guard<std::mutex> l(mu_);
    if ((kinds_ & (1u << kind)) == 0) return d;
    if (!spec_.path_contains.empty() &&
        path.find(spec_.path_contains) == std::string::npos) {
      return d;
    }
    if (!spec_.path_is.empty() && path != spec_.path_is) return d;
    matches_++;
    if (!active_) {
      if (remaining_ == 0 || --remaining_ != 0) return d;
      active_ = spec_.sticky;
    }
    failures_++;
    d.effect = spec_.effect;
    err = spec_.err;
    before_failing = spec_.before_failing;
  }
  if (before_failing) before_failing();
  d.fail = true;
  // ENOENT is reported as a real open or unlink reports it: NotFound.
  d.status = PosixError(path, err, /*enoent_is_not_found=*/true);
  std::lock_guard<std::mutex> l(mu_);
  if (first_failure_.empty()) first_failure_ = d.status.ToString();
  return d;
}

}  // namespace leveldb
