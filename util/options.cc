#include "leveldb/options.h"

#include "leveldb/comparator.h"
#include "leveldb/env.h"

namespace leveldb {

// Only the two pointer fields lack in-class defaults in the public header.
Options::Options() : comparator(BytewiseComparator()), env(Env::Default()) {}

}  // namespace leveldb
