// Names of the files and directories inside a database directory:
//   dbname/CURRENT, LOCK, LOG, LOG.old, MANIFEST-nnnnnn, nnnnnn.log,
//   nnnnnn.dbtmp, and the level directories L0..L6 holding SST directories
//   Ln/nnnnnn.sst, and the clean-close marker CLOSED. Numbers are
//   zero-padded to at least six digits.
#ifndef DELSM_DB_FILENAME_H_
#define DELSM_DB_FILENAME_H_

#include <cstdint>
#include <string>

#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

class Env;

// Entries directly inside the database directory.
enum FileType {
  kLogFile,
  kDBLockFile,
  kDescriptorFile,
  kCurrentFile,
  kTempFile,
  kInfoLogFile,  // LOG or LOG.old
  kLevelDir,     // L<level>; its number is the level
};

std::string LogFileName(const std::string& dbname, uint64_t number);
std::string DescriptorFileName(const std::string& dbname, uint64_t number);
// "MANIFEST-nnnnnn" without a path: the manifest's entry in the database
// directory, and what CURRENT holds when it names that manifest.
std::string DescriptorName(uint64_t number);
std::string CurrentFileName(const std::string& dbname);
std::string LockFileName(const std::string& dbname);
std::string TempFileName(const std::string& dbname, uint64_t number);
std::string InfoLogFileName(const std::string& dbname);
std::string OldInfoLogFileName(const std::string& dbname);
std::string LevelDirName(const std::string& dbname, int level);
std::string SstDirName(const std::string& dbname, int level, uint64_t number);

// The clean-close marker's name inside the database directory (no path).
// ParseFileName does not classify it: only Close writes it, only Open
// removes it, and DestroyDB removes it by this name.
extern const char kCleanCloseMarkerName[];

// Classifies `filename`, a name directly inside the database directory
// (no path). Returns false for names that are not ours. For kLevelDir,
// *number is the level (only levels below config::kNumLevels are accepted).
bool ParseFileName(const std::string& filename, uint64_t* number,
                   FileType* type);

// Parses "nnnnnn.sst", the name of an SST directory inside a level
// directory (no path), spelled exactly as SstDirName spells it (zero-padded
// to six digits, no further leading zeros; every version of DeLSM has
// written this one form). Returns false for anything else, "5.sst" and
// "0000005.sst" included: a directory DeLSM never made, which nothing that
// removes SST directories may take.
bool ParseSstDirName(const std::string& name, uint64_t* number);

// Points CURRENT at MANIFEST-<descriptor_number>: writes the name to a
// temporary file, syncs it and renames it over CURRENT, so CURRENT is always
// either the old or the new content.
Status SetCurrentFile(Env* env, const std::string& dbname,
                      uint64_t descriptor_number);

}  // namespace leveldb

#endif  // DELSM_DB_FILENAME_H_
