// Converting a LevelDB 1.23 database in place into DeLSM's layout, so that
// DB::Open (and RepairDB) take over a user's existing data.
//
// What is converted: every live table the LevelDB manifest lists becomes an
// SST directory at the same level, holding the same internal keys (sequence
// numbers and deletion markers kept), numbered as the table, or, if the
// table's number is below the bound of the DeLSM manifests in the directory
// and in lost/ (db/manifest_numbers.h), with a fresh number at or past both
// that bound and LevelDB's next file number (overlapping L0 SSTs are ordered by
// their recorded sequence ranges, not by number). LevelDB's counters (log
// number, next file number, raised past every number handed out, last sequence)
// go into a DeLSM manifest. LevelDB's WALs are left where they are: their
// format is DeLSM's (db/log_format.h, write batches), so the recovery that
// follows replays them as it replays its own.
//
// Crash safety. Nothing LevelDB owns is changed before the commit point:
//  1. SST directories are built in the staging directory
//     <db>/leveldb-conversion/, then a new DeLSM manifest is written (a file
//     number LevelDB never used) and a PLAN file in the staging directory
//     lists what to move and what to remove (each of LevelDB's files with
//     its size and the crc32c of its bytes); all of it is made durable.
//  2. Commit: CURRENT is switched atomically to the DeLSM manifest.
//  3. The SST directories are renamed into their level directories, made
//     durable, LevelDB's table files and manifest are removed, and the
//     staging directory last. A file under a name the PLAN removes whose
//     size or checksum differs is not the one converted: LevelDB's RepairDB
//     numbers the table it makes of a WAL past every file it finds but the
//     manifests, so can make one under the name of a table removed here
//     before a crash. It is left in place, and the directory is then judged
//     rewritten by LevelDB's RepairDB (FindTableNoPlanNames): DB::Open
//     refuses it, RepairDB takes the table in. A PLAN of the previous
//     format, written by an earlier build, names the files by name alone:
//     they are moved to lost/ (leveldb-<name>), not removed on a name.
// A crash before 2 leaves LevelDB's database untouched (LevelDB ignores the
// staging directory and the extra manifest); the next conversion removes
// the staging directory and starts again. A crash after 2 leaves a DeLSM
// database whose open finishes step 3 from the PLAN file first.
#ifndef DELSM_COMPAT_LEVELDB_CONVERSION_H_
#define DELSM_COMPAT_LEVELDB_CONVERSION_H_

#include <cstdint>
#include <string>
#include <vector>

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

// Sets *convertible to whether the LevelDB database at `dbname` can be
// converted: CURRENT names a manifest that reads as LevelDB 1.23 edits,
// written with a comparator named as `comparator` is, and every table it
// lists is in the directory's listing (one there that cannot be read is
// the conversion's to report). If not, *why says what stands in the way:
// CURRENT or the manifest absent or damaged, another comparator, a table
// missing. A read that fails otherwise (EIO, EMFILE: reading CURRENT or
// the manifest, listing the directory) is returned, *convertible false:
// whether it can be converted is then unknown. Reads only.
Status LevelDbConvertible(Env* env, const std::string& dbname,
                          const Comparator* comparator, bool* convertible,
                          std::string* why);

// If `dbname` holds a LevelDB database, converts it (see above); if it
// holds a DeLSM database whose conversion was interrupted after the
// commit, finishes the conversion. Otherwise does nothing. The caller
// holds the database's LOCK.
//
// Refusals change nothing on disk: NotSupported when the LevelDB database
// was written with a comparator whose name differs from user_comparator's
// or holds table blocks this build cannot decode, Corruption naming the
// file for a damaged manifest or table (or a table the manifest lists and
// the directory does not hold), IOError ("a symbolic link, not followed")
// for a staging directory that is a symbolic link, TakeInCutShortError
// for one holding a take-in's PLAN (only RepairDB judges whether that
// committed: LevelDB's RepairDB, run after its commit, may have made the
// directory a LevelDB database again, of the tables the take-in left in
// place); an I/O error before the commit (EIO reading a table) as it is,
// naming the file.
Status ConvertLevelDbIfPresent(const LevelDbConversionOptions& options,
                               const std::string& dbname);

// For RepairDB on a DeLSM database whose manifest LevelDB's RepairDB
// replaced (DatabaseFormat::kRewrittenByLevelDb), and on a LevelDB
// database that cannot be converted as it is (a damaged table, a lost or
// damaged manifest, a missing table): under the LOCK, every LevelDB table
// in `dbname` (those LevelDB's repair made of DeLSM's WALs, and any
// LevelDB wrote since) becomes an L0 SST directory under a new number; a
// damaged table gives every data block that reads, as LevelDB's RepairDB
// keeps them (a damaged block loses its own entries). A manifest naming
// another comparator than `user_comparator` is refused with NotSupported
// before anything changes. DeLSM's repair then merges these SSTs with
// every SST directory, the newest sequence number winning.
//
// Crash safety. Until LevelDB can no longer use the directory, the SSTs
// are copies that nothing takes for DeLSM's data (LevelDB, which ignores
// them, may delete keys and compact them away behind them):
//  1. They are built in the staging directory <db>/leveldb-conversion/
//     (the conversion's), with no home (every file of an SST is inside its
//     directory: removing it removes all it made, renaming it keeps every
//     value reachable), and a PLAN naming them and LevelDB's files to move
//     to lost/: its manifest, if CURRENT names one that reads as
//     LevelDB's, first, then the tables, then the new manifest LevelDB's
//     RepairDB left under a temporary name if it was cut short
//     (LevelDbRepairManifestLeft), each with its size and the crc32c of
//     its bytes and the name it takes in lost/ (one lost/ does not hold).
//     All of it is made durable.
//  2. Commit: the first of those files goes to lost/ under its name there
//     (leveldb-<name>, or leveldb-<name>.<k>), made durable before anything
//     else moves. With LevelDB's manifest gone, LevelDB refuses to open the
//     directory (CURRENT names a missing
//     manifest until DeLSM's repair writes its own). Without a readable
//     LevelDB manifest (CURRENT lost or damaged) LevelDB could not open it
//     before either, only rebuild it with its RepairDB from the tables:
//     the first table's move is the commit, after which that rebuild
//     would lack the table.
//  3. The other files go to lost/ (kept for the user, not deleted; one
//     under its name whose size or checksum differs is not the PLAN's and
//     stays), the DeLSM manifests LevelDB's repair moved to lost/ come
//     back, damaged ones too (so that DeLSM's repair, which reads a
//     manifest around its damage, knows which SSTs they record as
//     replaced; not before the commit, while LevelDB's open, which deletes
//     older manifests, could still reach them), the SSTs are renamed into
//     L0/ and made durable. The PLAN stays, keeping DB::Open out, until
//     DeLSM's repair that follows has committed its manifest:
//     EndLevelDbTakeIn then removes it and the staging directory. Until
//     then the directory holds SSTs and no manifest naming them (and no
//     CURRENT at all where LevelDB's was lost), which an Open with
//     create_if_missing would take for a new database, collecting every
//     SST as an orphan.
// With no table and no LevelDB manifest to take in there is no commit:
// DeLSM's manifests come back from lost/, then LevelDB's RepairDB's
// temporary manifest, if it left one, goes there.
// A staging directory found here is resolved first. A take-in's PLAN
// whose repair committed (no SST staged; CURRENT names a DeLSM manifest
// that reads whole, not LevelDB's) is removed, as EndLevelDbTakeIn does.
// A take-in's PLAN has committed if lost/ holds the first file it moves
// under the name the PLAN gives it, of its size and checksum (the take-in
// alone gives a file that name): whatever LevelDB's RepairDB has made
// since, a new manifest that reads (of the tables left in place) or a
// table under the name of one moved. Otherwise it holds copies only, and
// is removed, if it has no PLAN (one is written whole and durable before
// the commit, and removed after the SSTs are placed and the repair
// committed), if that first file is still in place, of its size and
// checksum, or else if CURRENT names a LevelDB manifest that reads
// (LevelDB uses the directory: its open deletes the older manifest the
// PLAN named first); then the take-in starts over. A committed take-in
// finishes step 3 and carries on: the LevelDB files then in place (those
// LevelDB's RepairDB made since, of WALs, under any name; its manifest, if
// CURRENT names one that reads) are staged and added to the same PLAN,
// rewritten, and taken in as in steps 1 to 3 (SSTs staged but named by no
// PLAN are copies of files still in place, left by such a carrying on cut
// short, and are removed first). A PLAN of the previous format, written by
// an earlier build, names files by name alone: it is judged as before
// (copies if CURRENT names a LevelDB manifest that reads, or if every file
// it moves to lost/ is in place), finished, and not carried on. A
// committed conversion's PLAN (CURRENT names its manifest) is carried out
// as DB::Open carries it out, and the tables it leaves (LevelDB's RepairDB
// made them of a WAL the conversion had not replayed) are taken in.
// RepairDB comes here for a take-in's PLAN whatever the directory's
// format (a LevelDB database that converts too), and DB::Open refuses
// such a directory (TakeInCutShortError). A take-in that fails
// before its commit removes the SSTs it made; one that fails after it
// leaves the PLAN for the next RepairDB.
Status TakeInLevelDbTables(const LevelDbConversionOptions& options,
                           const std::string& dbname);

// For RepairDB, once DeLSM's repair that followed TakeInLevelDbTables has
// committed: under the LOCK, removes the take-in's PLAN and the staging
// directory. What proves the PLAN is no longer needed: no SST it names is
// still staged, and CURRENT names a manifest that reads whole as DeLSM's
// and is not LevelDB's (the PLAN names LevelDB's); otherwise Corruption,
// and the PLAN stays for the next RepairDB. OK with nothing to do (no
// staging directory, or no take-in's PLAN in it).
Status EndLevelDbTakeIn(const LevelDbConversionOptions& options,
                        const std::string& dbname);

// What the staging directory of `dbname` holds.
enum class StagingState {
  kAbsent,          // there is none
  kNoPlan,          // no PLAN (SSTs staged before a PLAN, or nothing)
  kConversion,      // a conversion's PLAN
  kTakeIn,          // a take-in's PLAN
  kUnreadablePlan,  // a PLAN that does not decode
};

// Sets *state for `dbname`. Non-OK if the read of the PLAN fails otherwise
// than on damage or absence (EIO, EMFILE), whatever a lookup of the
// directory says.
Status ReadStagingState(Env* env, const std::string& dbname,
                        StagingState* state);

// Sets *unplanned to the first of `tables` (names of LevelDB's tables in
// `dbname`) that no PLAN in its staging directory accounts for; empty if
// one accounts for every one. A conversion's PLAN names in its removals
// every table the directory held when it staged (what its commit leaves
// beside its manifest until Open removes them), each with its size and
// checksum: a table under such a name of another size or checksum is not
// accounted for (LevelDB's RepairDB made it since; a PLAN of the previous
// format records neither, and accounts for any table of the name); a
// take-in's moves every table to lost/. Without a PLAN none is accounted
// for: a table beside DeLSM's manifest is then LevelDB's RepairDB's, made
// of a WAL. A PLAN that does not decode accounts for every one (whose it
// is cannot be told). A read of the PLAN that fails otherwise (EIO) is
// returned.
Status FindTableNoPlanNames(Env* env, const std::string& dbname,
                            const std::vector<std::string>& tables,
                            std::string* unplanned);

// The refusal of `operation` (e.g. "DB::Open") on a database whose
// take-in (TakeInLevelDbTables) was cut short, its PLAN in the staging
// directory: a Corruption (what applications answer with RepairDB)
// saying that DeLSM's RepairDB finishes it and that `operation` changed
// nothing.
Status TakeInCutShortError(const std::string& dbname,
                           const std::string& operation);

// True for the names a conversion's or take-in's PLAN has in the staging
// directory: PLAN, and PLAN.new while it is being written.
bool IsStagingPlanFileName(const std::string& name);

// The staging directory's name inside the database directory.
extern const char kLevelDbConversionDirName[];

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_CONVERSION_H_
