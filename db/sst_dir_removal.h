// Removal of what no live version references: whole SST directories (the
// inputs of a finished compaction, or what an interrupted flush or
// compaction left behind), and, inside a directory that lives on, the
// entries of SSTs a compaction replaced or moved down. Unlinking a KV file
// that another directory still links only drops a directory entry; the file
// system frees the value when its last link goes.
#ifndef DELSM_DB_SST_DIR_REMOVAL_H_
#define DELSM_DB_SST_DIR_REMOVAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fs/unlink_unless_gone.h"
#include "leveldb/status.h"

namespace leveldb {

class Directory;
class FileSystem;
struct MetaIndex;

// One SST of a directory, as far as removal needs to know it.
struct SstInDir {
  // Its decoded meta-file index; the SST stays open while this is used.
  const MetaIndex* index;
  std::string meta_name;       // MetaFileName(number, dir)
  std::string long_keys_name;  // LongKeysFileName(number, dir)
};

// The names of the KV files `index` refers to.
std::vector<std::string> KvFileNamesOf(const MetaIndex& index);

// Unlink from `dir` every KV file that `retired` names and none of `live`
// does (their key ranges should cover the retired one's), then the retired
// SST's meta and LONGKEYS files. Missing names are not errors.
// *unlinked is increased by the number of entries unlinked.
Status RemoveRetiredSst(Directory* dir, const SstInDir& retired,
                        const std::vector<SstInDir>& live, uint64_t* unlinked);

// Unlink the LONGKEYS and then the meta file of a retired SST that owns
// no other entry of its directory (FileMetaData::dir_entries == 1: no KV
// file there is its). Missing names are not errors. *unlinked is
// increased by the number of entries unlinked.
Status RemoveMetaOnlySst(Directory* dir, const std::string& meta_name,
                         const std::string& long_keys_name, uint64_t* unlinked);

// Unlink every entry of `dir` among `names` (its listing) that none of
// `live` (every SST the version places in the directory) owns and whose
// name is one DeLSM gives an SST directory's entries (a KV file, META,
// META-<n>, LONGKEYS, LONGKEYS-<n>): links and meta files an interrupted
// compaction added, or entries of a replaced SST whose removal was cut
// short. Any other name ("META-x", "stray") is not DeLSM's and is left
// alone. Meta and LONGKEYS files go last, so that a sweep cut short leaves
// no KV file without the meta file that names it. *unlinked is increased
// by the number of entries unlinked.
Status RemoveUnownedEntries(Directory* dir,
                            const std::vector<std::string>& names,
                            const std::vector<SstInDir>& live,
                            uint64_t* unlinked);

// Unlink every entry of the directory at `path`, meta and LONGKEYS files
// last (cut short, it leaves no KV file without the meta files of its
// directory), then remove it. A missing directory (ENOENT, and Probe
// agrees) is not an error; one whose lookup fails otherwise
// (FileSystem::Probe: EIO), or that does not open while Probe finds it,
// is.
// *unlinked (if non-null) is increased by the number of entries unlinked.
Status RemoveSstDirectory(FileSystem* fs, const std::string& path,
                          uint64_t* unlinked);

}  // namespace leveldb

#endif  // DELSM_DB_SST_DIR_REMOVAL_H_
