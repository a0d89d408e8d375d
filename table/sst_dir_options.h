// What the SST-directory layer needs to know of the DB's configuration.
#ifndef DELSM_TABLE_SST_DIR_OPTIONS_H_
#define DELSM_TABLE_SST_DIR_OPTIONS_H_

#include <cstddef>

#include "leveldb/comparator.h"
#include "leveldb/filter_policy.h"
#include "leveldb/options.h"

namespace leveldb {

class Cache;
class FileSystem;
class HomeDirs;
class ThreadPool;

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
  // Inline values shorter than this are stored uncompressed (see
  // delsm::Tuning::compress_inline_from). 0: every inline value may be
  // compressed.
  size_t compress_inline_from = 0;
  // fsync each KV file and the meta file as they are written.
  bool sync_files = false;
  // fsync the meta file and LONGKEYS of an SST that has no KV file (every
  // entry inline or a tombstone, none written or linked) as they are
  // written: syncing its directories then makes it durable, a few fsyncs
  // where a syncfs would also write back every other dirty file of the
  // file system (SstDirBuilder::FilesSynced).
  bool sync_sst_without_kv_files = false;
  // The DB's home directories (table/home_dirs.h), through which entries
  // of the home kinds are read and a builder given a home writes. Null: a
  // home entry reads as Corruption. Not owned.
  HomeDirs* homes = nullptr;

  // Caches values read (from KV files or inline), keyed by value_cache_id
  // and the entry's internal key (unique to one write, so a cached value is
  // never stale), charged by bytes. Null: no cache. Not owned.
  Cache* value_cache = nullptr;
  // Cache::NewId() of the DB, so DBs sharing a cache never share entries.
  uint64_t value_cache_id = 0;

  // Scans read KV files ahead of the cursor on this pool, at most
  // read_ahead_files files and read_ahead_bytes bytes ahead. Null: no
  // read-ahead. Not owned.
  ThreadPool* read_ahead_pool = nullptr;
  size_t read_ahead_bytes = 1 << 20;
  int read_ahead_files = 16;
};

// A scan reads ahead with one pool thread beside its own while its KV
// files are in memory (two cores' worth of open, read and close), and with
// every pool thread from a read that had to wait for the device until this
// many reads in a row found their file in memory again.
constexpr int kReadsFromMemoryToStopReadAhead = 16;

}  // namespace leveldb

#endif  // DELSM_TABLE_SST_DIR_OPTIONS_H_
