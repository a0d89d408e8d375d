// Env helpers internal to DeLSM (not part of the public API).
#ifndef DELSM_UTIL_ENV_UTIL_H_
#define DELSM_UTIL_ENV_UTIL_H_

#include <string>

#include "leveldb/env.h"
#include "leveldb/slice.h"
#include "leveldb/status.h"

namespace leveldb {

// Writes `data` to a new file `fname` (replacing any old one) and syncs it
// before returning OK. On failure the partial file is removed. Used for
// files whose content must be durable before anything refers to them
// (CURRENT's temporary file).
Status WriteStringToFileSync(Env* env, const Slice& data,
                             const std::string& fname);

}  // namespace leveldb

#endif  // DELSM_UTIL_ENV_UTIL_H_
