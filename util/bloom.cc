// The built-in Bloom filter policy ("leveldb.BuiltinBloomFilter2").
//
// Filter layout: ceil(bits/8) bytes of bit array followed by one byte
// holding the number of probes k. Probe positions come from double
// hashing of one 32-bit hash per key (Kirsch–Mitzenmacher), which costs a
// single hash computation per key. This layout is persisted in meta files,
// so it must not change.
#include <algorithm>
#include <cstdint>
#include <string>

#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"
#include "util/hash.h"

namespace leveldb {

FilterPolicy::~FilterPolicy() = default;

namespace {

uint32_t KeyHash(const Slice& key) {
  return Hash(key.data(), key.size(), 0xbc9f1d34u);
}

class BloomFilterPolicy final : public FilterPolicy {
 public:
  explicit BloomFilterPolicy(int bits_per_key)
      : bits_per_key_(std::max(bits_per_key, 0)) {
    // k = bits_per_key * ln 2 minimises the false-positive rate; clamp to
    // a sane range (the probe-count byte reserves values above 30).
    int k = static_cast<int>(bits_per_key_ * 0.69);
    probes_ = std::min(std::max(k, 1), 30);
  }

  const char* Name() const override { return "leveldb.BuiltinBloomFilter2"; }

  void CreateFilter(const Slice* keys, int n, std::string* dst) const override {
    if (n < 0) n = 0;
    // Small filters have a high false-positive rate; use at least 64 bits.
    size_t bits = static_cast<size_t>(n) * bits_per_key_;
    if (bits < 64) bits = 64;
    const size_t bytes = (bits + 7) / 8;
    bits = bytes * 8;

    const size_t start = dst->size();
    dst->resize(start + bytes, 0);
    dst->push_back(static_cast<char>(probes_));
    char* array = &(*dst)[start];
    for (int i = 0; i < n; i++) {
      uint32_t h = KeyHash(keys[i]);
      const uint32_t delta = (h >> 17) | (h << 15);
      for (int j = 0; j < probes_; j++) {
        const uint32_t bit = h % bits;
        array[bit / 8] |= static_cast<char>(1 << (bit % 8));
        h += delta;
      }
    }
  }

  bool KeyMayMatch(const Slice& key, const Slice& filter) const override {
    if (filter.size() < 2) return false;
    const size_t bytes = filter.size() - 1;
    const size_t bits = bytes * 8;
    const int k = static_cast<uint8_t>(filter[bytes]);
    // Probe counts above 30 are reserved for future encodings: treat such a
    // filter as matching everything rather than risk a false negative.
    if (k > 30) return true;
    const char* array = filter.data();
    uint32_t h = KeyHash(key);
    const uint32_t delta = (h >> 17) | (h << 15);
    for (int j = 0; j < k; j++) {
      const uint32_t bit = h % bits;
      if ((array[bit / 8] & (1 << (bit % 8))) == 0) return false;
      h += delta;
    }
    return true;
  }

 private:
  const int bits_per_key_;
  int probes_;
};

}  // namespace

const FilterPolicy* NewBloomFilterPolicy(int bits_per_key) {
  return new BloomFilterPolicy(bits_per_key);
}

}  // namespace leveldb
