#include "delsm/sst_dir_removal.h"

#include <memory>
#include <vector>

#include "delsm/file_system.h"

namespace leveldb {

Status RemoveSstDirectory(FileSystem* fs, const std::string& path,
                          uint64_t* unlinked) {
  if (!fs->Exists(path)) return Status::OK();
  std::unique_ptr<Directory> dir;
  Status s = fs->OpenDirectory(path, &dir);
  if (!s.ok()) return fs->Exists(path) ? s : Status::OK();
  std::vector<std::string> names;
  s = dir->List(&names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    Status u = dir->Unlink(name);
    if (u.ok()) {
      if (unlinked != nullptr) ++*unlinked;
    } else if (!u.IsNotFound()) {
      return u;
    }
  }
  dir.reset();
  s = fs->RemoveDir(path);
  if (!s.ok() && !fs->Exists(path)) return Status::OK();
  return s;
}

}  // namespace leveldb
