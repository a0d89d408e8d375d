// HomeDirs: a cache of open home directories, keyed by home number.
#include "table/home_dirs.h"

#include <cstdio>

#include "fs/file_system.h"
#include "leveldb/slice.h"
#include "util/logging.h"
#include "util/mutexlock.h"

namespace leveldb {

std::string HomeDirName(uint64_t home) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%06llu",
                static_cast<unsigned long long>(home));
  return buf;
}

bool ParseHomeDirName(const std::string& name, uint64_t* home) {
  Slice rest(name);
  uint64_t v;
  if (!ConsumeDecimalNumber(&rest, &v) || !rest.empty()) return false;
  // Only the spelling HomeDirName gives v: "5" or "0000005" is not
  // DeLSM's, and whatever removes homes leaves it alone.
  if (HomeDirName(v) != name) return false;
  *home = v;
  return true;
}

HomeDirs::HomeDirs(FileSystem* fs, std::string root)
    : fs_(fs), root_(std::move(root)) {}

std::string HomeDirs::PathOf(uint64_t home) const {
  return root_ + "/" + HomeDirName(home);
}

Status HomeDirs::Get(uint64_t home, std::shared_ptr<Directory>* dir) {
  {
    MutexLock l(&mu_);
    auto it = open_.find(home);
    if (it != open_.end()) {
      *dir = it->second;
      return Status::OK();
    }
  }
  // Opened outside the lock: an open is a system call. Two readers may
  // both open it; the first to insert wins.
  std::unique_ptr<Directory> opened;
  Status s = fs_->OpenDirectory(PathOf(home), &opened);
  if (!s.ok()) return s;
  MutexLock l(&mu_);
  auto inserted = open_.emplace(home, std::shared_ptr<Directory>());
  if (inserted.second) inserted.first->second = std::move(opened);
  *dir = inserted.first->second;
  return Status::OK();
}

void HomeDirs::Forget(uint64_t home) {
  MutexLock l(&mu_);
  open_.erase(home);
}

}  // namespace leveldb
