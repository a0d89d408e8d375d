// Unlinking a directory entry for decisions that follow only its removal.
#ifndef DELSM_FS_UNLINK_UNLESS_GONE_H_
#define DELSM_FS_UNLINK_UNLESS_GONE_H_

#include <string>

#include "fs/file_system.h"
#include "leveldb/status.h"

namespace leveldb {

// Unlinks `name` from `dir`, setting *unlinked to whether this call removed
// it. A name already gone is OK with *unlinked false, but only where a
// lookup (Directory::Stat) agrees with the unlink's NotFound: an unlink that
// fails with ENOENT while the entry is there has changed nothing, and a
// caller told it is gone would go on to what may only follow its removal
// (the meta file after the KV files it names, the meta files after the
// dead values they name, an undo counted as clean). Then, and on any other
// failure, an error.
inline Status UnlinkUnlessGone(Directory* dir, const std::string& name,
                               bool* unlinked) {
  *unlinked = false;
  Status s = dir->Unlink(name);
  if (s.ok()) {
    *unlinked = true;
    return s;
  }
  if (!s.IsNotFound()) return s;
  KvFileInfo info;
  Status there = dir->Stat(name, &info);
  if (there.IsNotFound()) return Status::OK();
  if (!there.ok()) return there;
  return Status::IOError(dir->path() + "/" + name,
                         "the unlink reported it missing, and it is there");
}

}  // namespace leveldb

#endif  // DELSM_FS_UNLINK_UNLESS_GONE_H_
