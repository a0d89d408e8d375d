// What the in-place conversion (conversion.cc) and the taking in of
// LevelDB's tables after LevelDB's RepairDB (take_in_tables.cc) share.
// Internal to compat/leveldb/.
#ifndef DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_
#define DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "delsm/delsm.h"
#include "leveldb/status.h"

namespace leveldb {

class Env;
class FileSystem;
struct LevelDbConversionOptions;

namespace conversion_internal {

// The durability mode for the conversion's outputs: kDeferred is taken as
// kSyncfs (the conversion's writes are the only copy once LevelDB's files
// go).
delsm::Durability ConversionDurability(delsm::Durability mode);

// The manifest name CURRENT holds, without its newline. Corruption naming
// CURRENT if it is empty, lacks the newline or holds a '/'.
Status ReadCurrent(Env* env, const std::string& dbname, std::string* name);

// The SSTs live in the DeLSM manifest `path` (every record decoded and
// applied). Corruption if it is not DeLSM's or cannot be read whole
// (damaged, or a record that does not decode); any other error opening or
// reading it (EIO, EMFILE, ...) is returned as it is: the manifest may be
// whole and DeLSM's.
Status ReadLiveSsts(Env* env, const std::string& path,
                    std::set<uint64_t>* live);

// Finishes the conversion of `dbname` committed by the PLAN in its staging
// directory, as DB::Open does (ConvertLevelDbIfPresent), whatever else the
// directory holds: its SSTs placed, the files the PLAN names removed, then
// the staging directory. Nothing if the PLAN is not a committed
// conversion's. For a RepairDB that takes in the tables the conversion
// did not convert.
Status FinishConversion(const LevelDbConversionOptions& options,
                        const std::string& dbname);

// The staging directory <db>/leveldb-conversion/, shared by the conversion
// (conversion.cc) and the take-in (take_in_tables.cc): SST directories are
// built there, then a PLAN says what is done once committed. Defined in
// staging.cc.

// What tells one of LevelDB's files from another under the same name: its
// size and the crc32c of all its bytes. LevelDB's RepairDB numbers the
// table it makes of a WAL past every file it finds but the manifests, so
// a file it makes can take the name of one a PLAN names, which the
// conversion or the take-in has removed or moved since.
struct FileIdentity {
  uint64_t size = 0;
  uint32_t crc = 0;
  bool operator==(const FileIdentity& o) const {
    return size == o.size && crc == o.crc;
  }
};

// Reads the whole file at `path` into *identity. Any error reading it is
// returned as it is (NotFound for a file that is not there).
Status ReadFileIdentity(Env* env, const std::string& path,
                        FileIdentity* identity);

// One of LevelDB's files a PLAN removes or moves to lost/.
struct PlannedFile {
  std::string name;  // in the database directory, no path
  // False in a PLAN of the previous format, which names files by name
  // alone; then `identity` and `lost_name` are unset.
  bool identified = false;
  FileIdentity identity;
  // Take-in: the name in lost/ its move gives it (leveldb-<name>, or
  // leveldb-<name>.<k> if that was taken when the PLAN was written).
  std::string lost_name;
};

// Sets *match to whether dbname/`file.name` is the file `file` names: for
// an identified one, a file of its identity; otherwise any file of its
// name. `listed` is the directory's listing: a name it lacks is not there.
// A read that fails (EIO) fails: whose the file is cannot be told.
Status IsPlannedFile(Env* env, const std::string& dbname,
                     const std::set<std::string>& listed,
                     const PlannedFile& file, bool* match);

// What a conversion or a take-in does once committed, as stored in PLAN.
struct StagingPlan {
  enum class Kind { kConversion, kTakeIn };
  Kind kind = Kind::kConversion;
  // Whether every PlannedFile is identified: true for a PLAN this build
  // writes, false for one of the previous format (a database staged by an
  // earlier build), whose files are named by name alone.
  bool identified = true;
  // Conversion: the DeLSM manifest CURRENT is switched to (the commit).
  uint64_t manifest_number = 0;
  // Both: the staged SSTs, renamed into their level directories.
  std::vector<std::pair<int, uint64_t>> moves;  // level, SST number
  // Conversion: LevelDB's files removed after the commit.
  std::vector<PlannedFile> removals;
  // Take-in: LevelDB's files moved to lost/, in this order; the first
  // move is the commit. A name may be there twice, with two identities:
  // a take-in carried on (take_in_tables.cc) takes in a file LevelDB's
  // RepairDB made under the name of one it had moved.
  std::vector<PlannedFile> to_lost;
};

// The names of `files`, in order.
std::vector<std::string> PlannedNames(const std::vector<PlannedFile>& files);

// Gives each file of `files` without a lost_name one that neither lost/'s
// listing (of dbname/lost; none if there is no lost/) nor another of
// `files` holds: leveldb-<name>, else leveldb-<name>.1, .2, ... A listing
// that fails otherwise than on absence (EIO) fails.
Status ChooseLostNames(Env* env, const std::string& dbname,
                       std::vector<PlannedFile>* files);

// Moves dbname/`name` to dbname/lost/`lost_name`, or, if `lost_name` is
// empty, to lost/leveldb-<name> (.1, .2, ... if taken). Nothing in lost/
// is replaced: a name lost/'s listing holds is taken, and a `lost_name`
// taken fails the move (Corruption). lost/ is made or found through `fs`,
// which refuses a symbolic link there.
Status MoveToLost(Env* env, FileSystem* fs, const std::string& dbname,
                  const std::string& name, const std::string& lost_name);

// The names in dbname/lost/ (none if there is no such directory: the
// listing fails with NotFound and it is not there). A listing that fails
// otherwise (EIO) fails, whatever FileExists says.
Status ListLost(Env* env, const std::string& dbname,
                std::vector<std::string>* names);

// Where SST `number` is staged: <staging>/NNNNNN.sst.
std::string StagedSstPath(const std::string& staging, uint64_t number);

// Writes `plan` as <staging>/PLAN, whole or not at all: into PLAN.new,
// synced, then renamed (a PLAN that is there decodes, unless damaged
// since). The caller makes the staging directory durable.
Status WritePlan(Env* env, const std::string& staging, const StagingPlan& plan);

// Reads <staging>/PLAN into *plan. NotFound if there is none (and the
// name is free); Corruption if it does not decode (or is a directory); any
// other error reading it as it is.
Status ReadPlan(Env* env, const std::string& staging, StagingPlan* plan);

// Removes what a conversion or take-in staged before its commit (SST
// directories, PLAN, PLAN.new), then the staging directory. Anything else
// there is left, and the removal of the directory then fails.
Status RemoveStaging(Env* env, FileSystem* fs, const std::string& staging);

// Renames each SST of `moves` still staged into its level directory (one
// no longer staged, ENOENT, is skipped as placed; one both staged and
// placed is Corruption), then makes the level directories and the staging
// directory durable. A lookup of either path that fails otherwise (EIO)
// fails the call: whether the SST is still staged is unknown.
Status PlaceStagedSsts(FileSystem* fs, delsm::Durability durability,
                       const std::string& dbname, const std::string& staging,
                       const std::vector<std::pair<int, uint64_t>>& moves);

// After a committed plan is carried out: removes PLAN, then the staging
// directory, and makes the database directory durable.
Status RemoveFinishedStaging(Env* env, FileSystem* fs,
                             delsm::Durability durability,
                             const std::string& dbname,
                             const std::string& staging);

}  // namespace conversion_internal
}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_
