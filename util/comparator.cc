#include "leveldb/comparator.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <string>

#include "leveldb/slice.h"

namespace leveldb {

Comparator::~Comparator() = default;

namespace {

// Orders keys by unsigned lexicographic byte comparison (Slice::compare).
class BytewiseComparatorImpl : public Comparator {
 public:
  const char* Name() const override { return "leveldb.BytewiseComparator"; }

  int Compare(const Slice& a, const Slice& b) const override {
    return a.compare(b);
  }

  // Shortens *start to a key k with *start <= k < limit when that is
  // possible by bumping one byte after the common prefix.
  void FindShortestSeparator(std::string* start,
                             const Slice& limit) const override {
    const size_t shared = std::min(start->size(), limit.size());
    size_t i = 0;
    while (i < shared && (*start)[i] == limit[i]) i++;
    if (i >= shared) return;  // One is a prefix of the other: keep *start.
    const uint8_t byte = static_cast<uint8_t>((*start)[i]);
    if (byte < 0xff && byte + 1 < static_cast<uint8_t>(limit[i])) {
      (*start)[i] = static_cast<char>(byte + 1);
      start->resize(i + 1);
    }
  }

  // Replaces *key with the shortest key >= it: the prefix up to and
  // including the first byte that can be incremented, incremented. A key
  // of only 0xff bytes has no shorter successor and is left alone.
  void FindShortSuccessor(std::string* key) const override {
    for (size_t i = 0; i < key->size(); i++) {
      const uint8_t byte = static_cast<uint8_t>((*key)[i]);
      if (byte != 0xff) {
        (*key)[i] = static_cast<char>(byte + 1);
        key->resize(i + 1);
        return;
      }
    }
  }
};

}  // namespace

const Comparator* BytewiseComparator() {
  // Constructed in static storage and never destroyed, so it stays valid
  // for code that runs during static destruction.
  alignas(BytewiseComparatorImpl) static unsigned char
      storage[sizeof(BytewiseComparatorImpl)];
  static const Comparator* const instance =
      new (storage) BytewiseComparatorImpl();
  return instance;
}

}  // namespace leveldb
