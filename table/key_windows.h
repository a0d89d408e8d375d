// KeyWindows: a compact search aid over a sorted run of internal keys whose
// user keys are ordered bytewise. All user keys of the run share the common
// prefix of its first and last user key; each entry's window is the 8 bytes
// of its user key that follow that prefix (zero-padded), read as a
// big-endian integer, so integer order is byte order. A lookup searches the
// dense array of windows first and compares whole keys only among the
// entries whose window equals the target's: a few cache lines instead of
// one entry and one key per step of a binary search.
//
// The windows decide order only where they differ: a smaller window means
// a smaller user key, a larger one a larger user key, and equal windows
// decide nothing (the keys may differ past the window, or in length). So a
// lookup is exact whatever the keys are; the windows only make it cheaper
// when they differ.
#ifndef DELSM_TABLE_KEY_WINDOWS_H_
#define DELSM_TABLE_KEY_WINDOWS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "leveldb/slice.h"

namespace leveldb {

class KeyWindows {
 public:
  // An empty aid: Narrow() leaves every range as it is.
  KeyWindows() = default;

  // Builds the windows of `n` user keys, key(i) being entry i's, in
  // bytewise order (the caller knows the order holds: a run of an SST
  // under the bytewise comparator). Costs one pass and 8 bytes per entry.
  template <typename KeyAt>
  void Build(size_t n, KeyAt key) {
    windows_.clear();
    prefix_.clear();
    if (n == 0) return;
    const Slice first = key(0), last = key(n - 1);
    size_t common = 0;
    while (common < first.size() && common < last.size() &&
           first[common] == last[common]) {
      common++;
    }
    prefix_.assign(first.data(), common);
    windows_.resize(n);
    for (size_t i = 0; i < n; i++) windows_[i] = WindowOf(key(i));
  }

  bool empty() const { return windows_.empty(); }

  // Narrows [*lo, *hi) (initially the whole run) to the entries whose user
  // key may equal `user_key`: every entry before *lo has a smaller user
  // key, every entry from *hi on a larger one. The range is empty (with
  // *lo == *hi at the insertion point) when no entry can be equal.
  void Narrow(const Slice& user_key, size_t* lo, size_t* hi) const;

  // Bytes of memory the windows take.
  size_t MemoryUsage() const {
    return windows_.capacity() * sizeof(uint64_t) + prefix_.capacity();
  }

 private:
  // The 8 bytes of `user_key` after the common prefix (which it is known
  // to start with), big-endian, zero-padded.
  uint64_t WindowOf(const Slice& user_key) const;

  std::string prefix_;             // the run's common user-key prefix
  std::vector<uint64_t> windows_;  // windows_[i]: entry i's window
};

}  // namespace leveldb

#endif  // DELSM_TABLE_KEY_WINDOWS_H_
