// What the in-place conversion (conversion.cc) and the taking in of
// LevelDB's tables after LevelDB's RepairDB (take_in_tables.cc) share.
// Internal to compat/leveldb/.
#ifndef DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_
#define DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_

#include <cstdint>
#include <set>
#include <string>

#include "delsm/delsm.h"
#include "leveldb/status.h"

namespace leveldb {

class Env;

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

// Sets *bound to one more than the largest number the DeLSM manifest
// `path` hands out or names (its next file number, every SST and
// directory it adds or removes), over the records that read; 0 if none
// does, or if the manifest is gone (NotFound and no longer there). A
// number a manifest names, even of an SST long removed, must not be given
// to a new SST: RepairDB reads the manifests it finds, and takes an SST
// they record as replaced for a replaced one. Damage is skipped (the
// records past it still count); an error that is not damage (EIO, EMFILE
// opening or reading it) is returned: the bound is then unknown.
Status ManifestNumberBound(Env* env, const std::string& path, uint64_t* bound);

}  // namespace conversion_internal
}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_
