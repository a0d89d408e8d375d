// Random: a small, fast, deterministic pseudo-random generator (the
// Park–Miller "minimal standard" generator, multiplier 16807 modulo
// 2^31-1). Used for skiplist heights and tests; not for anything that needs
// unpredictability. Not thread-safe.
#ifndef DELSM_UTIL_RANDOM_H_
#define DELSM_UTIL_RANDOM_H_

#include <cstdint>

namespace leveldb {

class Random {
 public:
  explicit Random(uint32_t seed) : state_(seed & kModulus) {
    // 0 and the modulus itself are fixed points of the recurrence.
    if (state_ == 0 || state_ == kModulus) state_ = 1;
  }

  // Next value in [1, 2^31-2].
  uint32_t Next() {
    // state * 16807 mod (2^31-1), using 2^31 == 1 (mod 2^31-1) to avoid a
    // division.
    uint64_t product = static_cast<uint64_t>(state_) * kMultiplier;
    uint64_t folded = (product >> 31) + (product & kModulus);
    if (folded > kModulus) folded -= kModulus;
    state_ = static_cast<uint32_t>(folded);
    return state_;
  }

  // Uniform in [0, n-1]. REQUIRES: n > 0.
  uint32_t Uniform(int n) { return Next() % static_cast<uint32_t>(n); }

  // True about once in every n calls. REQUIRES: n > 0.
  bool OneIn(int n) { return Uniform(n) == 0; }

  // Picks a bit-width uniformly in [0, max_log], then a value uniform in
  // that width: small numbers are exponentially more likely.
  uint32_t Skewed(int max_log) { return Uniform(1 << Uniform(max_log + 1)); }

 private:
  static constexpr uint32_t kModulus = 2147483647u;  // 2^31 - 1
  static constexpr uint64_t kMultiplier = 16807;

  uint32_t state_;
};

}  // namespace leveldb

#endif  // DELSM_UTIL_RANDOM_H_
