// The file numbers DeLSM's manifests name. A number a manifest names, even
// of an SST long removed, must never go to a new SST or directory:
// RepairDB reads the manifests it finds and sets aside, as replaced, the
// SSTs they record as replaced, by number. A manifest in lost/ (put there
// by a repair, DeLSM's or LevelDB's) may come back for a repair to read
// (the taking in of LevelDB's tables brings DeLSM's back), so its numbers
// count too, whichever database wrote it.
#ifndef DELSM_DB_MANIFEST_NUMBERS_H_
#define DELSM_DB_MANIFEST_NUMBERS_H_

#include <cstdint>
#include <string>

#include "leveldb/env.h"
#include "leveldb/status.h"

namespace leveldb {

class FileSystem;

// Sets *bound to one more than the largest number the manifest `path`
// hands out or names (its next file number, every SST and directory it
// adds or removes), over the records that decode; 0 if none does, or if
// the manifest is gone (NotFound and no longer there). Damage is skipped
// (the records past it still count); an error that is not damage (EIO,
// EMFILE opening or reading it) is returned: the bound is then unknown.
Status ManifestNumberBound(Env* env, const std::string& path, uint64_t* bound);

// Sets *bound to the largest ManifestNumberBound of the manifests (files
// named MANIFEST-<n>) in the directory `dir`, or 0 if there are none. A
// directory that is absent (NotFound and no longer there) holds none, nor
// does a file under its name (its listing fails with ENOTDIR); any other
// failure to list or read is returned.
Status DirectoryManifestsNumberBound(Env* env, const std::string& dir,
                                     uint64_t* bound);

// The larger DirectoryManifestsNumberBound of `dbname` and `dbname`/lost.
// A symbolic link named lost is not followed (`fs` tells it, listing it
// without following it): what it points at is outside the database, and
// nothing comes back from it (RepairDB and the taking in of LevelDB's
// tables refuse it, CheckNotALink), so it holds none.
Status ManifestsNumberBound(Env* env, FileSystem* fs, const std::string& dbname,
                            uint64_t* bound);

}  // namespace leveldb

#endif  // DELSM_DB_MANIFEST_NUMBERS_H_
