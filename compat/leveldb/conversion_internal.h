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
// applied); false if it cannot be read whole or is not DeLSM's.
bool ReadLiveSsts(Env* env, const std::string& path, std::set<uint64_t>* live);

}  // namespace conversion_internal
}  // namespace leveldb

#endif  // DELSM_COMPAT_LEVELDB_CONVERSION_INTERNAL_H_
