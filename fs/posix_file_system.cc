// POSIX FileSystem: whole-path operations here; operations on names inside
// a directory are PosixDirectory's (posix_directory.cc).
#include "fs/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "fs/posix_directory.h"
#include "util/posix_error.h"

namespace leveldb {

namespace {

class PosixFileSystem final : public FileSystem {
 public:
  Status OpenDirectory(const std::string& path,
                       std::unique_ptr<Directory>* result) override {
    return OpenPosixDirectory(path, {}, result);
  }

  Status OpenMovableDirectory(const std::string& path,
                              const std::vector<std::string>& moved_to,
                              std::unique_ptr<Directory>* result) override {
    return OpenPosixDirectory(path, moved_to, result);
  }

  Status CreateDir(const std::string& path, bool ok_if_exists) override {
    if (mkdir(path.c_str(), 0755) != 0) {
      int err = errno;
      if (err == EEXIST && ok_if_exists) {
        // lstat: a link to a directory is not one of ours (file_system.h).
        struct stat st;
        if (lstat(path.c_str(), &st) == 0) {
          if (S_ISDIR(st.st_mode)) return Status::OK();
          if (S_ISLNK(st.st_mode)) {
            return LinkNotFollowed(path);
          }
        }
      }
      return PosixError(path, err, false);
    }
    return Status::OK();
  }

  Status RemoveDir(const std::string& path) override {
    if (rmdir(path.c_str()) != 0) return PosixError(path, errno, true);
    return Status::OK();
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (rename(from.c_str(), to.c_str()) != 0) {
      return PosixError(from + " -> " + to, errno, true, -1);
    }
    return Status::OK();
  }

  Status Probe(const std::string& path, bool* exists) override {
    struct stat st;
    *exists = false;
    if (lstat(path.c_str(), &st) == 0) {
      *exists = true;
      return Status::OK();
    }
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return Status::OK();
    return PosixError(path, err, false);
  }
};

}  // namespace

Status GetFileSystemSpace(const std::string& path, FileSystemSpace* space) {
  struct statvfs vfs;
  if (statvfs(path.c_str(), &vfs) != 0) return PosixError(path, errno, true);
  struct statfs fs;
  if (statfs(path.c_str(), &fs) != 0) return PosixError(path, errno, true);
  space->block_size = static_cast<uint64_t>(vfs.f_frsize);
  space->total_inodes = static_cast<uint64_t>(vfs.f_files);
  space->free_inodes = static_cast<uint64_t>(vfs.f_favail);
  space->free_bytes =
      static_cast<uint64_t>(vfs.f_bavail) * static_cast<uint64_t>(vfs.f_frsize);
  // Magic numbers of <linux/magic.h>.
  const uint64_t magic = static_cast<uint64_t>(fs.f_type) & 0xffffffffu;
  space->dynamic_inodes = vfs.f_files == 0;
  switch (magic) {
    case 0xef53:
      space->type = "ext4";
      break;
    case 0x58465342:
      space->type = "xfs";
      space->dynamic_inodes = true;
      break;
    case 0x9123683e:
      space->type = "btrfs";
      space->dynamic_inodes = true;
      break;
    case 0x01021994:
      space->type = "tmpfs";
      break;
    default: {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "0x%llx",
                    static_cast<unsigned long long>(magic));
      space->type = hex;
    }
  }
  return Status::OK();
}

Status FileSystem::GetSpace(const std::string& path, FileSystemSpace* space) {
  return GetFileSystemSpace(path, space);
}

Status Directory::ListDirectories(std::vector<std::string>* names) {
  names->clear();
  std::vector<std::string> all;
  Status s = List(&all);
  if (!s.ok()) return s;
  for (const std::string& name : all) {
    KvFileInfo info;
    s = Stat(name, &info);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return s;
    if (info.directory) names->push_back(name);
  }
  return Status::OK();
}

int RemoveTreeAt(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? 0 : errno;
  if (!S_ISDIR(st.st_mode)) {
    return unlink(path.c_str()) != 0 && errno != ENOENT ? errno : 0;
  }
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return errno;
  std::vector<std::string> names;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  int first = 0;
  for (const std::string& name : names) {
    const int err = RemoveTreeAt(path + "/" + name);
    if (first == 0) first = err;
  }
  if (rmdir(path.c_str()) != 0 && errno != ENOENT && first == 0) first = errno;
  return first;
}

namespace {

// TreeDiskUsage below `dir_fd` (owned; closed here).
Status DiskUsageAt(int dir_fd, const std::string& path,
                   std::set<uint64_t>* seen, uint64_t* bytes,
                   uint64_t* inodes) {
  DIR* d = fdopendir(dir_fd);
  if (d == nullptr) {
    int err = errno;
    close(dir_fd);
    return PosixError(path, err, false);
  }
  Status result;
  errno = 0;
  while (struct dirent* e = readdir(d)) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT && result.ok()) {
        result = PosixError(path + "/" + e->d_name, errno, false);
      }
      errno = 0;
      continue;
    }
    if (seen->insert(static_cast<uint64_t>(st.st_ino)).second) {
      *bytes += static_cast<uint64_t>(st.st_blocks) * 512;
      *inodes += 1;
    }
    if (S_ISDIR(st.st_mode)) {
      int fd = openat(dirfd(d), e->d_name,
                      O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
      if (fd >= 0) {
        Status s = DiskUsageAt(fd, path + "/" + e->d_name, seen, bytes, inodes);
        if (result.ok()) result = s;
      } else if (errno != ENOENT && result.ok()) {
        result = PosixError(path + "/" + e->d_name, errno, false);
      }
    }
    errno = 0;
  }
  if (errno != 0 && result.ok()) result = PosixError(path, errno, false);
  closedir(d);
  return result;
}

}  // namespace

Status TreeDiskUsage(const std::string& path, std::set<uint64_t>* seen,
                     uint64_t* allocated_bytes, uint64_t* inodes) {
  std::set<uint64_t> own;
  if (seen == nullptr) seen = &own;
  *allocated_bytes = 0;
  *inodes = 0;
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return PosixError(path, errno, true);
  if (seen->insert(static_cast<uint64_t>(st.st_ino)).second) {
    *allocated_bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    *inodes += 1;
  }
  if (!S_ISDIR(st.st_mode)) return Status::OK();
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return PosixError(path, errno, true);
  return DiskUsageAt(fd, path, seen, allocated_bytes, inodes);
}

Status DiskUsageBelow(const std::string& path, std::set<uint64_t>* seen,
                      uint64_t* allocated_bytes, uint64_t* inodes) {
  std::set<uint64_t> own;
  if (seen == nullptr) seen = &own;
  *allocated_bytes = 0;
  *inodes = 0;
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return PosixError(path, errno, true);
  return DiskUsageAt(fd, path, seen, allocated_bytes, inodes);
}

Status UnlinkDirectoryEntries(const std::string& dir) {
  // Not through a symbolic link at `dir`: its entries are not ours.
  const int fd =
      open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return PosixError(dir, errno, false);
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    const int err = errno;
    close(fd);
    return PosixError(dir, err, false);
  }
  std::vector<std::string> names;
  errno = 0;
  while (struct dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  Status result;
  if (errno != 0) result = PosixError(dir, errno, false);
  closedir(d);
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    if (unlink(path.c_str()) != 0 && result.ok()) {
      result = PosixError(path, errno, false);
    }
  }
  return result;
}

Status CheckNotALink(FileSystem* fs, const std::string& dir) {
  bool exists;
  Status s = fs->Probe(dir, &exists);
  if (!s.ok() || !exists) return s;
  // CreateDir of a directory that exists changes nothing; of a link it
  // fails naming it.
  return fs->CreateDir(dir, true);
}

bool IsOutOfDescriptors(const Status& s) {
  return s.IsIOError() &&
         s.ToString().find("(out of file descriptors)") != std::string::npos;
}

bool IsLinkNotFollowed(const Status& s) {
  return s.IsIOError() &&
         s.ToString().find(kLinkNotFollowed) != std::string::npos;
}

FileSystem* FileSystem::Default() {
  static FileSystem* const fs = new PosixFileSystem();
  return fs;
}

}  // namespace leveldb
