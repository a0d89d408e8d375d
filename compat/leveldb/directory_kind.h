// Which format of database a directory holds, judged from its files without
// changing any of them. DB::Open and RepairDB ask before they touch a
// directory, so that a database written by LevelDB is converted (or, when
// it cannot be, refused with a clear Status) instead of being misread as a
// damaged DeLSM database.
#ifndef DELSM_COMPAT_LEVELDB_DIRECTORY_KIND_H_
#define DELSM_COMPAT_LEVELDB_DIRECTORY_KIND_H_

#include <cstdint>
#include <string>

#include "leveldb/status.h"

namespace leveldb {

class Comparator;
class Env;

enum class DatabaseFormat {
  kNone,     // no CURRENT file and no LevelDB table: nothing to read yet
  kDelsm,    // the manifest's first record carries DeLSM's format marker
  kLevelDb,  // LevelDB table files (NNNNNN.ldb / NNNNNN.sst) in the
             // directory, or a manifest whose records are all well-formed
             // LevelDB 1.23 version edits
  kPreReleaseDelsm,  // a manifest of DeLSM before the format marker
  // LevelDB's format as kLevelDb says, beside DeLSM's data (SST
  // directories in the level directories, or homes under values/): a DeLSM
  // database whose manifest LevelDB's RepairDB replaced with its own (it
  // keeps no directory, so it saw none of DeLSM's SSTs). Not a LevelDB
  // database to convert: converted, it would lose every SST. Also one
  // through which LevelDB's RepairDB was cut short: a LevelDB table beside
  // the DeLSM manifest CURRENT names that no PLAN in a staging directory
  // names (a committed conversion's names the tables it converts, and
  // stays until they are gone; FindTableNoPlanNames); or, without a
  // staging directory, LevelDB's RepairDB's own new manifest
  // (LevelDbRepairManifestLeft) beside it and a DeLSM manifest in lost/
  // that the directory does not hold; or CURRENT naming a DeLSM manifest
  // that is in lost/; or CURRENT naming MANIFEST-000001 here, of which
  // nothing reads (LevelDB's RepairDB writes it without a sync, and a
  // power cut can leave it empty), with such a DeLSM manifest in lost/.
  kRewrittenByLevelDb,
  kUnknown,  // a manifest that is none of these (damaged or foreign);
             // recovery reports what is wrong with it
};

// Sets *format for the database at `dbname`; *evidence names the file that
// decided it (empty for kNone; for kRewrittenByLevelDb, also the SST
// directory or home found). Non-OK only if something it reads fails for
// another reason than its absence or damage (EIO, EMFILE): listing the
// directory, its level directories or values/, reading CURRENT or the
// manifest CURRENT names. Judged from what did read, the directory could
// pass for another kind (a DeLSM database LevelDB's RepairDB rewrote for
// one with a damaged manifest, whose repair would not find DeLSM's
// manifests in lost/).
Status DetectDatabaseFormat(Env* env, const std::string& dbname,
                            DatabaseFormat* format, std::string* evidence);

// OK for what DB::Open and RepairDB may go on with: kNone, kDelsm,
// kUnknown (recovery judges it) and a LevelDB database they can convert in
// place (compat/leveldb/conversion.h): its CURRENT names a readable LevelDB
// manifest whose comparator has `comparator`'s name. Otherwise
// NotSupported naming the format, why it is refused and `operation` (e.g.
// "DB::Open"): a pre-release DeLSM database, LevelDB tables without a
// readable LevelDB manifest, or a LevelDB database written with another
// comparator; and for kRewrittenByLevelDb the Corruption of
// RewrittenByLevelDbError. A directory holding a take-in's PLAN, whatever
// its format (a LevelDB database that converts too), is refused with
// TakeInCutShortError (compat/leveldb/conversion.h). Reads only; changes
// nothing.
Status CheckDatabaseFormat(Env* env, const std::string& dbname,
                           const Comparator* comparator,
                           const std::string& operation);

// The refusal of a database LevelDB's RepairDB rewrote
// (kRewrittenByLevelDb): a Corruption (what applications answer with
// RepairDB) naming `evidence`, saying that DeLSM's RepairDB recovers every
// key and that `operation` changed nothing.
Status RewrittenByLevelDbError(const std::string& dbname,
                               const std::string& evidence,
                               const std::string& operation);

// The name (no path) of the manifest LevelDB 1.23's RepairDB writes before
// it moves the manifests it found to lost/, and renames to MANIFEST-000001
// after (its TempFileName(dbname, 1): 000001.dbtmp).
std::string LevelDbRepairManifestName();

// The name (no path) LevelDB 1.23's RepairDB renames that manifest to and
// has CURRENT name: MANIFEST-000001 (its DescriptorFileName(dbname, 1)).
// DeLSM gives the name only to a new database's first manifest.
std::string LevelDbRepairInstalledManifestName();

// Sets *left to whether `dbname` holds that file with LevelDB's version
// edits in it, or empty or zero-filled (LevelDB writes it without a sync,
// and a power cut can leave it so): LevelDB's RepairDB was cut short
// between writing it and installing it. (LevelDB's SetCurrentFile writes
// the same name holding only a manifest's name, which does not count.)
// Absent or otherwise damaged, it is not; a read that fails otherwise
// (EIO) is returned.
Status LevelDbRepairManifestLeft(Env* env, const std::string& dbname,
                                 bool* left);

// LevelDB's table files (what detection, conversion and DestroyDB look
// for): the name of table `number` inside `dbname`, NNNNNN.ldb (`legacy`
// false) or the older NNNNNN.sst.
std::string LevelDbTableFileName(const std::string& dbname, uint64_t number,
                                 bool legacy);

// If `name` (no path) is a LevelDB table file name, sets *number.
bool ParseLevelDbTableFileName(const std::string& name, uint64_t* number);

}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_DIRECTORY_KIND_H_
