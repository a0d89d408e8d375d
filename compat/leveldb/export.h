// The way back from DeLSM to LevelDB (`delsm export DB OUT`): writes every
// key and value an iterator over a (closed) DeLSM database yields into a new
// LevelDB 1.23 database that Debian's (or any) LevelDB 1.23 opens as it
// opens its own.
//
// What OUT holds when export succeeds (LevelDB's formats,
// compat/leveldb/file_writers.h):
//   000002.log, 000003.log, ...  WALs of WriteBatches of Puts in key order,
//                                sequence numbers 1..N; a batch holds about
//                                `batch_bytes`, a log about `log_bytes`
//                                (a single larger entry gets a batch alone)
//   MANIFEST-000001              one VersionEdit: comparator
//                                leveldb.BytewiseComparator, log number 2,
//                                next file number, last sequence N; no tables
//   CURRENT                      "MANIFEST-000001\n", written last
// LevelDB's Open replays the logs into its memtable and writes its own
// tables (level 0) and a new manifest, then goes on as any LevelDB database.
//
// Contract:
//   - The source is only read, through the iterator. The `delsm export`
//     command reads it through a DbView (tools/db_view.h), which holds its
//     LOCK for the whole export: the copy is of one moment, and a database
//     another process has open is refused. Nothing in it changes.
//   - OUT must not exist (its parent must) or be an empty directory, and must
//     not be inside the source database; otherwise InvalidArgument and
//     nothing is created. Files are created with O_EXCL, never replacing one.
//   - Durability and interruption: every log and the manifest are fsynced and
//     the directory synced before CURRENT is written (to 000001.dbtmp,
//     fsynced, renamed, directory synced). An export killed at any point
//     leaves no CURRENT, so OUT is not a database (LevelDB refuses to open it
//     without create_if_missing); delete OUT and run again.
//   - Any error after OUT was prepared removes every file export created
//     (and OUT itself if export created it), and only those.
//   - The `delsm export` command refuses a source whose WALs hold damaged
//     records (that Open would skip) with Corruption before calling
//     ExportToLevelDb: export copies everything or nothing.
#ifndef DELSM_COMPAT_LEVELDB_EXPORT_H_
#define DELSM_COMPAT_LEVELDB_EXPORT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "leveldb/iterator.h"
#include "leveldb/status.h"

namespace leveldb {

struct ExportOptions {
  uint64_t batch_bytes = 1 << 20;  // a WriteBatch is closed at this size
  uint64_t log_bytes = 64 << 20;   // a new log file is begun at this size
  // If set, called with 0 before the first entry is written, with the
  // number written so far after each one, and once with `done` true when
  // writing entries ends (all written, or an error).
  std::function<void(uint64_t entries, bool done)> progress;
};

struct ExportSummary {
  uint64_t entries = 0;        // keys written (= last sequence)
  uint64_t key_bytes = 0;      // their bytes
  uint64_t value_bytes = 0;    // their values' bytes
  uint64_t batches = 0;        // WriteBatches (WAL records)
  uint64_t log_files = 0;      // WAL files
  uint64_t bytes_written = 0;  // all files' bytes, CURRENT included
  bool created_dir = false;    // OUT did not exist before
};

// Writes what `source` yields (user keys in order, from the first) into
// `out_dir` as the contract above says. `source_dir` is the database being
// read: OUT must not be inside it.
leveldb::Status ExportToLevelDb(leveldb::Iterator* source,
                                const std::string& source_dir,
                                const std::string& out_dir,
                                const ExportOptions& options,
                                ExportSummary* summary);

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_EXPORT_H_
