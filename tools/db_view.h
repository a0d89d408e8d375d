// A read-only view of a closed DeLSM database for the `delsm` tool: the
// level structure its manifest describes plus the writes its WALs hold
// that no SST has yet, without creating, changing or removing any file in
// the database (no new manifest, WAL or LOG; no flush, compaction or sweep).
//
// Open takes the database's LOCK (an fcntl lock, which leaves the file as it
// is), so a DB another process has open is refused ("in use") rather than
// read while it changes. The view never writes, so what it shows is what the
// next Open would recover, before that Open's own repairs.
#ifndef DELSM_TOOLS_DB_VIEW_H_
#define DELSM_TOOLS_DB_VIEW_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "leveldb/env.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "table/home_dirs.h"
#include "table/meta_file.h"

namespace leveldb {

class FileLock;
class MemTable;
class TableCache;
class Version;
class VersionSet;

class DbView {
 public:
  ~DbView();
  DbView(const DbView&) = delete;
  DbView& operator=(const DbView&) = delete;

  // Opens the view of the database at `dbname` (bytewise comparator).
  // NotFound when there is no database there; the lock's error when another
  // process holds it; Corruption or NotSupported as DB::Open would report a
  // damaged or foreign manifest. A damaged WAL record is skipped and counted
  // in wal_records_skipped() (as Open does without paranoid_checks); a WAL
  // read that fails (EIO, ...) is not damage and fails Open with its error,
  // as it fails DB::Open, rather than leave out the records past it.
  // The manifest, CURRENT and the WALs are read through `env` (not owned;
  // it must outlive the view); SSTs and values through the default file
  // system.
  static Status Open(const std::string& dbname, std::unique_ptr<DbView>* view,
                     Env* env = Env::Default());

  // Iterator over the user keys as the database holds them now (the WALs'
  // writes over the SSTs'), with KV-file checksums checked when
  // `verify_checksums`. The caller deletes it before the view.
  Iterator* NewIterator(bool verify_checksums);

  // The current version (owned by the view) and its live SSTs.
  Version* current() const;
  uint64_t last_sequence() const { return last_sequence_; }
  uint64_t manifest_number() const { return manifest_number_; }
  // The WALs replayed (numbers, oldest first).
  const std::vector<uint64_t>& wal_numbers() const { return wal_numbers_; }
  uint64_t wal_records_skipped() const { return wal_records_skipped_; }
  const std::string& dbname() const { return dbname_; }

 private:
  explicit DbView(const std::string& dbname);
  Status ReplayWal(uint64_t number);

  const std::string dbname_;
  Options options_;
  InternalKeyComparator icmp_;
  std::unique_ptr<const FilterPolicy> filter_;
  std::unique_ptr<HomeDirs> homes_;  // values that stay put
  std::unique_ptr<TableCache> table_cache_;
  std::unique_ptr<VersionSet> versions_;
  FileLock* lock_ = nullptr;
  MemTable* mem_ = nullptr;  // the WALs' writes; null if they held none
  uint64_t last_sequence_ = 0;
  uint64_t manifest_number_ = 0;
  std::vector<uint64_t> wal_numbers_;
  uint64_t wal_records_skipped_ = 0;
};

// Reads and decodes the whole meta file at `path` (DecodeMetaFile: its
// checksums checked, inline values in memory).
Status ReadMetaFile(const std::string& path, MetaFileContents* contents);

}  // namespace leveldb

#endif  // DELSM_TOOLS_DB_VIEW_H_
