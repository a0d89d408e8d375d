// Listing a directory that may not be there, for decisions that would
// forget, skip or remove something on its absence.
#ifndef DELSM_FS_LIST_IF_PRESENT_H_
#define DELSM_FS_LIST_IF_PRESENT_H_

#include <string>
#include <vector>

#include "fs/file_system.h"
#include "leveldb/status.h"

namespace leveldb {

// Lists `dir` into *names, as FileSystem::ListDirectory. A `dir` that is
// not there is OK with *absent true and no names, but only where Probe
// agrees with the listing's NotFound: a listing that fails otherwise, or a
// NotFound that Probe does not confirm (or cannot tell), is returned, and
// what `dir` holds is unknown.
inline Status ListDirectoryIfPresent(FileSystem* fs, const std::string& dir,
                                     std::vector<std::string>* names,
                                     bool* absent) {
  *absent = false;
  Status s = fs->ListDirectory(dir, names);
  if (!s.IsNotFound()) return s;
  names->clear();
  bool exists = true;
  Status probe = fs->Probe(dir, &exists);
  if (!probe.ok()) return probe;
  if (exists) return s;
  *absent = true;
  return Status::OK();
}

}  // namespace leveldb

#endif  // DELSM_FS_LIST_IF_PRESENT_H_
