// DeLSM's own public header: tuning knobs beyond leveldb::Options, and the
// Open call that takes them. Plain leveldb::DB::Open uses Tuning's defaults.
#ifndef DELSM_INCLUDE_DELSM_DELSM_H_
#define DELSM_INCLUDE_DELSM_DELSM_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "leveldb/db.h"
#include "leveldb/options.h"

#define DELSM_EXPORT __attribute__((visibility("default")))

namespace delsm {

// When a flush may delete the write-ahead log it replaces.
enum class Durability {
  // A flush commits its SST at once and keeps the WAL until a durability
  // thread's next syncfs(), which covers every SST committed since its
  // last one; then the WAL is deleted. An SST without KV files (every
  // value inline) is made durable by its flush instead (its meta file and
  // directories fsynced), and its WAL goes at the commit: a syncfs would
  // also write back the WALs. A crash never loses an acknowledged write
  // that the WAL held (LevelDB's promise). The default.
  kSyncfs,
  // fsync() of every KV file and the meta file, then of the directory.
  // Same promise as kSyncfs; cheaper when other processes keep the file
  // system busy, dearer for many small values.
  kFsync,
  // The paper's scheme: nothing is synced at flush; the WAL is kept for
  // `deferred_wal_retention_micros` after the flush and deleted then. Writes
  // flushed longer ago than that may be lost by a power failure (not by a
  // process crash). Use only where that is acceptable.
  kDeferred,
};

// Every field has a range, stated with it; Open refuses a tuning with a
// field outside its range with InvalidArgument naming the field (see
// ValidateTuning), before it creates or changes anything.
struct DELSM_EXPORT Tuning {
  // One of the three modes above.
  Durability durability = Durability::kSyncfs;
  // Range: 0 to 31,536,000,000,000 (a year).
  uint64_t deferred_wal_retention_micros = 120ull * 1000 * 1000;

  // Values of at most this many bytes are kept inside the meta file instead
  // of a KV file of their own (compactions rewrite them, as LevelDB does).
  // 0 = every value gets a KV file (pure DeLSM, the paper's design). 2048 by
  // the sweep in benchmarks/journal/2026-11-23-inline-threshold.md: a smaller
  // value in a file of its own costs a 4 KiB block and an inode; larger values
  // keep the hard-linking compaction. Range: 0 to 1,048,576 (1 MiB).
  size_t inline_threshold = 2048;

  // Inline values shorter than this many bytes are stored as they are;
  // longer ones are snappy-compressed when Options::compression asks for it
  // and it saves at least an eighth. Each inline value is compressed on its
  // own, so a small one saves few bytes and costs every read of it a
  // decompression: at 128 and 256 bytes (db_bench's half-compressible
  // values, 100k keys) compressing them took a scan 1.6x and 1.8x the
  // instructions per value, to save 16% and 29% of the database's bytes
  // (benchmarks/journal/2026-11-26-inline-compression.md). 0 = compress
  // every inline value. Range: 0 to 1,048,576 (1 MiB).
  size_t compress_inline_from = 512;

  // Scans read KV files ahead of the cursor on `read_ahead_threads`
  // threads, at most this many files and bytes ahead of it (per SST being
  // scanned). 0 files or bytes = no read-ahead. Ranges: files 0 to 1024,
  // bytes 0 to 1,073,741,824 (1 GiB), threads 1 to 64 (checked also when
  // read-ahead is off). Open fails with an IOError if the threads cannot be
  // started.
  int read_ahead_files = 16;
  size_t read_ahead_bytes = 1 << 20;
  int read_ahead_threads = 4;

  // L0 is compacted when it holds this many entries, or this many SST
  // directories, whichever comes first. An L0 compaction rewrites the meta
  // entries of every L1 SST its keys fall in (with random keys, all of L1),
  // so a larger L0 compaction rewrites L1 fewer times per value written:
  // at 1M x 4 KiB, 20,000 entries / 20 directories rewrote 5.5M L1 entries
  // against 21M for 10,000 / 4
  // (benchmarks/journal/2026-11-23-l0-compaction-size.md). Values in KV
  // files reach the directory count first (a 4 MiB memtable holds about a
  // thousand 4 KiB values); small inline values reach the entry count, which
  // at 100,000 lets about four memtables of 128 B values gather, as LevelDB's
  // four L0 files do, instead of compacting each flush into all of L1
  // (benchmarks/journal/2026-11-27-l0-entries.md). A point read checks the
  // Bloom filter of each L0 SST. Ranges: entries 1 to 10^14; dirs 1 to 10^9.
  uint64_t l0_compaction_entries = 100000;
  int l0_compaction_dirs = 20;
  // Writes are slowed by a share of 1 ms each from this many L0
  // directories on, and stop until a compaction finishes at the second
  // figure. Ranges: l0_compaction_dirs <= l0_slowdown_dirs <= l0_stop_dirs
  // <= 10^9.
  int l0_slowdown_dirs = 30;
  int l0_stop_dirs = 40;

  // Entries per SST written by a compaction. Range: 1 to 16,777,216 (2^24).
  uint64_t sst_entries = 4096;
  // Entries an SST directory (below L0) may hold: the SSTs a compaction
  // adds to a directory are written to new directories beyond it, so
  // listings stay cheap and ext4 without large_dir never meets its
  // directory-index limit. An L0 directory holds one memtable's entries.
  // Range: 1 to 16,777,216 (2^24).
  uint64_t max_dir_entries = 65536;
  // Capacity of L1 in entries, and in meta bytes (the meta and LONGKEYS
  // files of its SSTs: inline values, keys, and the references to values in
  // KV files, which is what a compaction rewrites); a level is compacted
  // into the next when it passes either. Each deeper level holds 10x the
  // one above. The byte bound is off by default (10^14): at 1M keys of
  // 1 KiB, 10 MiB (LevelDB's L1) added a level and cost overwrites 28% more
  // CPU, and speeded deletes by only 7%
  // (benchmarks/journal/2026-11-27-level-meta-bytes.md). Range: 1 to 10^14
  // each (so the deepest level's capacity fits in 64 bits).
  uint64_t l1_entries = 100000;
  uint64_t l1_meta_bytes = 100000000000000ull;
  // How many entries whose value is a KV file in their SST's own directory
  // count as one entry toward l1_entries and the deeper levels' entry
  // capacities. A compaction rewrites only such an entry's meta entry
  // (about 31 bytes), while each level its value descends costs a link and
  // an unlink; so these values fill levels this many times larger and
  // descend fewer levels. Inline values, tombstones and values in homes
  // count in full. 1 (the default) counts every entry alike. At 10, a 1M x
  // 4 KiB fill ran 8-13% faster (one level instead of two), but at 10M
  // keys each L0 compaction rewrote an L1 fifty times its size: 19% more
  // bytes written, 17% more CPU and twice the peak RSS
  // (benchmarks/journal/2026-11-28-kv-file-levels.md). Range: 1 to 1000.
  uint64_t kv_file_entries_per_entry = 1;

  // Memory the open SSTs' decoded meta files (index, keys, filter) may keep
  // resident, in bytes; least recently used SSTs are closed beyond it (an
  // SST in use stays open). About 160 bytes per entry: the default keeps
  // every SST of a 1M-key DB open. Reported by delsm.table-cache-memory and
  // included in leveldb.approximate-memory-usage. Range: 1 to 2^48.
  uint64_t table_cache_bytes = 256ull << 20;

  // Memory the Bloom filters of SSTs no longer open may keep resident, in
  // bytes (least recently used dropped first; 0: none kept). A read that
  // would open such an SST asks its filter first and skips the SST when
  // the filter excludes the key, so when a DB has more SSTs than the table
  // cache holds, a read opens about one SST (the one holding its key)
  // rather than one per level. About 1.3 bytes per entry at 10 bits per
  // key: the default holds the filters of about 25M entries. Reported by
  // delsm.filter-cache-memory and included in
  // leveldb.approximate-memory-usage. Range: 0 to 2^48.
  uint64_t filter_cache_bytes = 32ull << 20;

  // Immutable memtables flushed at once, each into its own L0 SST
  // directory by its own thread; they are committed in order. Range: 1 to 4.
  // One directory's creates are serialized by the file system, so
  // flushes in different directories are how a flush keeps up with
  // writers creating one KV file per value; a second worker also
  // compresses inline values beside the first, though only once more
  // memtables queue than one worker keeps up with (a memtable of inline
  // values otherwise waits for the running build). Two: at 1M keys, fills of
  // 1 KiB and 4 KiB values 4-12% faster with less CPU than with one, 128 B
  // fills within 3% (benchmarks/journal/2026-11-28-kv-file-levels.md).
  int flush_threads = 2;

  // A thread of its own runs the removal pass each committed compaction
  // asks for (the unlinks of the retired SSTs' directory entries, the
  // directories and files no version uses), so the compaction thread goes
  // on to the next compaction; off, the compaction thread runs the pass
  // itself after each commit. Either way, what a manual compaction
  // (CompactRange) made obsolete is removed before it returns (unless an
  // iterator still reads it). Either value.
  bool removal_thread = true;

  // Values stay put (docs/DESIGN.md section 5, "Values that stay put"): a
  // flush writes its KV files into a home directory <db>/values/<n>/ of
  // their own, and a compaction rewrites only meta files, never linking or
  // unlinking a KV file; a value's file is unlinked once its entry is
  // dropped and no reader can still see it. Off (the paper's mode: a
  // value's directory entry moves down with it, level by level) by
  // default. A database may be opened either way at any time: the setting
  // decides only where later flushes put their values. Either value.
  bool values_stay_put = false;
};

// Open with DeLSM tuning. Same contract as leveldb::DB::Open. Fields named in
// the environment variable DELSM_OPTIONS (see ParseTuning) override `tuning`;
// an invalid DELSM_OPTIONS fails Open with InvalidArgument. leveldb::DB::Open
// is this call with a default Tuning. The tuning in effect is written to the
// LOG.
DELSM_EXPORT leveldb::Status Open(const leveldb::Options& options,
                                  const Tuning& tuning, const std::string& name,
                                  leveldb::DB** dbptr);

// OK if every field of `tuning` is in the range its comment above states;
// else InvalidArgument "tuning field <name>: <value> is outside <range>"
// for the first field (in declaration order) that is not. Open calls it on
// the tuning in effect (after DELSM_OPTIONS).
DELSM_EXPORT leveldb::Status ValidateTuning(const Tuning& tuning);

// Sets the Tuning fields named in `spec`, a list of `name=value` separated by
// ';' (spaces around names and values are ignored, empty items skipped), e.g.
// "durability=fsync;inline_threshold=512". Names are the field names above;
// durability takes syncfs, fsync or deferred; numbers are decimal (any value
// of the field's C++ type; the ranges are Open's to check). Fields not
// named keep their value. On an unknown name or a bad value returns
// InvalidArgument saying which, and leaves *tuning unchanged.
DELSM_EXPORT leveldb::Status ParseTuning(const std::string& spec,
                                         Tuning* tuning);

// Every field of `tuning` in ParseTuning's syntax, in declaration order.
DELSM_EXPORT std::string TuningToString(const Tuning& tuning);

// Sets one field by name from its text form (the same rules as ParseTuning).
DELSM_EXPORT leveldb::Status SetTuningField(const std::string& name,
                                            const std::string& value,
                                            Tuning* tuning);

// The text form of one field; false if there is no field of that name.
DELSM_EXPORT bool GetTuningField(const Tuning& tuning, const std::string& name,
                                 std::string* value);

}  // namespace delsm

#endif  // DELSM_INCLUDE_DELSM_DELSM_H_
