// Which format of database a directory holds, judged from its files without
// changing any of them. DB::Open and RepairDB ask before they touch a
// directory, so that a database written by LevelDB (whose manifest and
// tables DeLSM does not read) is refused with a clear Status instead of
// being misread as a damaged DeLSM database.
#ifndef DELSM_DB_DB_FORMAT_H_
#define DELSM_DB_DB_FORMAT_H_

#include <string>

#include "leveldb/status.h"

namespace leveldb {

class Env;

enum class DatabaseFormat {
  kNone,     // no CURRENT file and no LevelDB table: nothing to read yet
  kDelsm,    // the manifest's first record carries DeLSM's format marker
  kLevelDb,  // LevelDB table files (NNNNNN.ldb / NNNNNN.sst) in the
             // directory, or a manifest whose records are all well-formed
             // LevelDB 1.23 version edits
  kPreReleaseDelsm,  // a manifest of DeLSM before the format marker
  kUnknown,          // a manifest that is none of these (damaged or foreign);
                     // recovery reports what is wrong with it
};

// Sets *format for the database at `dbname`; *evidence names the file that
// decided it (empty for kNone). Non-OK only if the directory cannot be
// listed or CURRENT cannot be read for another reason than its absence.
Status DetectDatabaseFormat(Env* env, const std::string& dbname,
                            DatabaseFormat* format, std::string* evidence);

// OK for formats DeLSM opens (kNone, kDelsm, and kUnknown, which recovery
// judges). For a LevelDB or pre-release DeLSM database: NotSupported naming
// the format and `operation` (e.g. "DB::Open"), never Corruption.
Status CheckDatabaseFormat(Env* env, const std::string& dbname,
                           const std::string& operation);

}  // namespace leveldb

#endif  // DELSM_DB_DB_FORMAT_H_
