// Converting a LevelDB 1.23 database in place into DeLSM's layout, so that
// DB::Open (and RepairDB) take over a user's existing data.
//
// What is converted: every live table the LevelDB manifest lists becomes an
// SST directory at the same level with the same number, holding the same
// internal keys (sequence numbers and deletion markers kept); LevelDB's
// counters (log number, next file number, last sequence) go into a DeLSM
// manifest. LevelDB's WALs are left where they are: their format is DeLSM's
// (db/log_format.h, write batches), so the recovery that follows replays
// them as it replays its own.
//
// Crash safety. Nothing LevelDB owns is changed before the commit point:
//  1. SST directories are built in the staging directory
//     <db>/leveldb-conversion/, then a new DeLSM manifest is written (a file
//     number LevelDB never used) and a PLAN file in the staging directory
//     lists what to move and what to remove; all of it is made durable.
//  2. Commit: CURRENT is switched atomically to the DeLSM manifest.
//  3. The SST directories are renamed into their level directories, made
//     durable, LevelDB's table files and manifest are removed, and the
//     staging directory last.
// A crash before 2 leaves LevelDB's database untouched (LevelDB ignores the
// staging directory and the extra manifest); the next conversion removes
// the staging directory and starts again. A crash after 2 leaves a DeLSM
// database whose open finishes step 3 from the PLAN file first.
#ifndef DELSM_COMPAT_LEVELDB_CONVERSION_H_
#define DELSM_COMPAT_LEVELDB_CONVERSION_H_

#include <cstdint>
#include <string>

#include "delsm/delsm.h"
#include "leveldb/options.h"
#include "leveldb/status.h"
#include "table/sst_dir_options.h"

namespace leveldb {

class Comparator;
class Env;
class FileSystem;

struct LevelDbConversionOptions {
  Env* env = nullptr;          // CURRENT, manifests, tables, WALs
  FileSystem* fs = nullptr;    // SST directories
  Logger* info_log = nullptr;  // what was converted (may be null)
  const Comparator* user_comparator = nullptr;
  SstDirOptions sst_options;  // how the DB builds SST directories
  // Sync mode for the conversion's outputs (kDeferred is taken as
  // kSyncfs: LevelDB's files are removed afterwards, nothing else holds
  // the data).
  delsm::Durability durability = delsm::Durability::kSyncfs;
  // Entries per SST below L0; a LevelDB table with more is split at a user
  // key boundary. L0 tables are never split (their numbers order them).
  uint64_t sst_entries = 4096;
};

// True if the LevelDB database at `dbname` can be converted: CURRENT names
// a manifest that reads as LevelDB 1.23 edits, written with a comparator
// named as `comparator` is, and every table it lists is present. Otherwise
// false with *why saying what stands in the way. Reads only.
bool LevelDbConvertible(Env* env, const std::string& dbname,
                        const Comparator* comparator, std::string* why);

// If `dbname` holds a LevelDB database, converts it (see above); if it
// holds a DeLSM database whose conversion was interrupted after the
// commit, finishes the conversion. Otherwise does nothing. The caller
// holds the database's LOCK.
//
// Refusals change nothing on disk: NotSupported when the LevelDB database
// was written with a comparator whose name differs from user_comparator's
// or holds table blocks this build cannot decode, Corruption naming the
// file for a damaged manifest or table, IOError ("a symbolic link, not
// followed") for a staging directory that is a symbolic link.
Status ConvertLevelDbIfPresent(const LevelDbConversionOptions& options,
                               const std::string& dbname);

// For RepairDB on a DeLSM database whose manifest LevelDB's RepairDB
// replaced (DatabaseFormat::kRewrittenByLevelDb), and on a LevelDB
// database that cannot be converted as it is (a damaged table, a lost or
// damaged manifest, a missing table): under the LOCK, every LevelDB table
// in `dbname` (those LevelDB's repair made of DeLSM's WALs, and any
// LevelDB wrote since) becomes an L0 SST directory under a new number,
// made durable; a damaged table gives every data block that reads, as
// LevelDB's RepairDB keeps them (a damaged block loses its own entries).
// A manifest naming another comparator than `user_comparator` is refused
// with NotSupported before anything changes. Then the tables and
// LevelDB's manifest are moved to
// lost/leveldb-<name> (CURRENT names a missing manifest until DeLSM's
// repair writes one), and the DeLSM manifests LevelDB's repair moved to
// lost/ come back, so that DeLSM's repair, run next, knows which SSTs they
// record as replaced. DeLSM's repair then merges these SSTs with every
// SST directory, the newest sequence number winning. Each step is safe
// to interrupt: the next RepairDB redoes what is left (a table converted
// twice gives exact duplicates, which the merge drops).
Status TakeInLevelDbTables(const LevelDbConversionOptions& options,
                           const std::string& dbname);

// The staging directory's name inside the database directory.
extern const char kLevelDbConversionDirName[];

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_CONVERSION_H_
