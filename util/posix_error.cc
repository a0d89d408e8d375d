#include "util/posix_error.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

namespace leveldb {

std::string ErrnoText(int err) {
  char buf[256];
  // GNU strerror_r may return a static string instead of filling buf.
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return std::string(strerror_r(err, buf, sizeof(buf)));
#else
  if (strerror_r(err, buf, sizeof(buf)) != 0) {
    return "errno " + std::to_string(err);
  }
  return std::string(buf);
#endif
}

std::string ParentOfPath(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

const char kLinkNotFollowed[] = "a symbolic link, not followed";

Status LinkNotFollowed(const std::string& path) {
  return Status::IOError(path, kLinkNotFollowed);
}

Status PosixError(const std::string& path, int err, bool enoent_is_not_found,
                  int statvfs_fd) {
  std::string text = ErrnoText(err);
  if (err == ENOENT && enoent_is_not_found) {
    return Status::NotFound(path, text);
  }
  if (err == EMFILE || err == ENFILE) text += " (out of file descriptors)";
  if (err == ENOSPC) {
    struct statvfs vfs;
    const int r = statvfs_fd >= 0 ? fstatvfs(statvfs_fd, &vfs)
                                  : statvfs(ParentOfPath(path).c_str(), &vfs);
    if (r == 0 && vfs.f_files > 0 && vfs.f_ffree == 0) {
      text += " (out of inodes)";
    }
  }
  return Status::IOError(path, text);
}

}  // namespace leveldb
