// Removal of SST directories that no live version references: inputs of a
// finished compaction, and what an interrupted flush or compaction left
// behind (found at recovery). Unlinking a KV file that another directory
// still links only drops a directory entry; the file system frees the value
// when its last link goes.
#ifndef DELSM_DELSM_SST_DIR_REMOVAL_H_
#define DELSM_DELSM_SST_DIR_REMOVAL_H_

#include <cstdint>
#include <string>

#include "leveldb/status.h"

namespace leveldb {

class FileSystem;

// Unlink every entry of the directory at `path`, then remove it. A missing
// directory is not an error. *unlinked (if non-null) is increased by the
// number of entries unlinked.
Status RemoveSstDirectory(FileSystem* fs, const std::string& path,
                          uint64_t* unlinked);

}  // namespace leveldb

#endif  // DELSM_DELSM_SST_DIR_REMOVAL_H_
