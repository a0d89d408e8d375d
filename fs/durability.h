// Making new directory entries durable, as a delsm::Durability mode says.
#ifndef DELSM_FS_DURABILITY_H_
#define DELSM_FS_DURABILITY_H_

#include <string>
#include <vector>

#include "delsm/delsm.h"  // include/delsm/delsm.h
#include "leveldb/status.h"

namespace leveldb {

class FileSystem;

// Make the entries of `dirs` (new SST directories and the level
// directories holding them) durable: kSyncfs syncs the file system they are
// on once, kFsync fsyncs each directory (file data was synced as written),
// kDeferred does nothing. OK for an empty list.
Status MakeDirectoriesDurable(FileSystem* fs, delsm::Durability durability,
                              const std::vector<std::string>& dirs);

// The mode a compaction (or trivial move) makes its outputs durable in. A
// retained WAL covers only what a flush wrote, never what a compaction
// moved, so kDeferred compactions sync like kSyncfs ones (which also makes
// every flush before them durable).
inline delsm::Durability CompactionDurability(delsm::Durability mode) {
  return mode == delsm::Durability::kDeferred ? delsm::Durability::kSyncfs
                                              : mode;
}

// True if a flush commits its L0 SST before the SST is durable, keeping the
// flushed memtable's WAL until it is: kDeferred (for a retention time) and
// kSyncfs (until the next grouped syncfs, see DBImpl::DurabilityThreadMain).
// After a power loss such an SST may be missing or torn; recovery replaces
// it by replaying its WAL. kFsync syncs every file before the commit.
inline bool FlushCommitsBeforeDurable(delsm::Durability mode) {
  return mode != delsm::Durability::kFsync;
}

}  // namespace leveldb

#endif  // DELSM_FS_DURABILITY_H_
