// LiveNumbers: the numbers of SSTs and SST directories that something live
// holds (a version, an edit being written), gathered under the DB mutex
// for one removal pass and then asked, number by number, whether a file or
// directory found on disk may go. Added in any order, then sealed (sorted,
// duplicates dropped) and searched by bisection: one allocation for the
// whole set, where a std::set of the same numbers allocates a node per
// number (at millions of keys, thousands of SSTs in every live version).
// Not thread-safe; its owner holds it for one pass.
#ifndef DELSM_DB_LIVE_NUMBERS_H_
#define DELSM_DB_LIVE_NUMBERS_H_

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace leveldb {

class LiveNumbers {
 public:
  LiveNumbers() = default;
  LiveNumbers(const LiveNumbers&) = delete;
  LiveNumbers& operator=(const LiveNumbers&) = delete;

  // Before Seal().
  void Add(uint64_t number) {
    assert(!sealed_);
    numbers_.push_back(number);
  }
  void Seal() {
    std::sort(numbers_.begin(), numbers_.end());
    numbers_.erase(std::unique(numbers_.begin(), numbers_.end()),
                   numbers_.end());
    sealed_ = true;
  }

  // After Seal(): whether `number` was added.
  bool Contains(uint64_t number) const {
    assert(sealed_);
    return std::binary_search(numbers_.begin(), numbers_.end(), number);
  }
  // After Seal(): the numbers, ascending, each once.
  const std::vector<uint64_t>& numbers() const {
    assert(sealed_);
    return numbers_;
  }

 private:
  std::vector<uint64_t> numbers_;
  bool sealed_ = false;
};

}  // namespace leveldb

#endif  // DELSM_DB_LIVE_NUMBERS_H_
