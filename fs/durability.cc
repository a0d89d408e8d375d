#include "fs/durability.h"

#include <memory>

#include "fs/file_system.h"

namespace leveldb {

Status MakeDirectoriesDurable(FileSystem* fs, delsm::Durability durability,
                              const std::vector<std::string>& dirs) {
  if (dirs.empty() || durability == delsm::Durability::kDeferred) {
    return Status::OK();
  }
  for (const std::string& path : dirs) {
    std::unique_ptr<Directory> dir;
    Status s = fs->OpenDirectory(path, &dir);
    if (s.ok()) {
      s = durability == delsm::Durability::kSyncfs ? dir->SyncFileSystem()
                                                   : dir->Sync();
    }
    if (!s.ok()) return s;
    // One syncfs covers every directory on the file system.
    if (durability == delsm::Durability::kSyncfs) break;
  }
  return Status::OK();
}

}  // namespace leveldb
