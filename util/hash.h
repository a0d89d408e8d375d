// A fast non-cryptographic 32-bit hash of a byte string, used by the Bloom
// filter and the LRU cache's sharding. Deterministic across runs and
// machines (filters built with it are persisted).
#ifndef DELSM_UTIL_HASH_H_
#define DELSM_UTIL_HASH_H_

#include <cstddef>
#include <cstdint>

namespace leveldb {

uint32_t Hash(const char* data, size_t n, uint32_t seed);

}  // namespace leveldb

#endif  // DELSM_UTIL_HASH_H_
