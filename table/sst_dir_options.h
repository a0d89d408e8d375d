// What the SST-directory layer needs to know of the DB's configuration.
#ifndef DELSM_TABLE_SST_DIR_OPTIONS_H_
#define DELSM_TABLE_SST_DIR_OPTIONS_H_

#include <cstddef>

#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "leveldb/options.h"

namespace leveldb {

class FileSystem;

struct SstDirOptions {
  // Orders internal keys (an InternalKeyComparator). Not owned.
  const Comparator* comparator = nullptr;
  // Builds and probes the per-directory filter over *user* keys. Null means
  // no filter (the DB passes the user's policy, or a 10 bits/key Bloom
  // filter when the user gave none and keys compare bytewise). The meta
  // file records the policy's name; a filter made by another policy is
  // ignored rather than trusted.
  const FilterPolicy* filter_policy = nullptr;
  FileSystem* fs = nullptr;
  CompressionType compression = kSnappyCompression;
  // Values of at most this many bytes go inline into the meta file.
  size_t inline_threshold = 0;
  // fsync each KV file and the meta file as they are written.
  bool sync_files = false;
};

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_OPTIONS_H_
