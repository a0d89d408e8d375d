// How a failed system call reads as a Status, shared by the two POSIX
// implementations (the Env in util/env_posix.cc and the FileSystem in
// fs/posix_file_system.cc), so a failure reads the same whichever layer
// reports it.
#ifndef DELSM_UTIL_POSIX_ERROR_H_
#define DELSM_UTIL_POSIX_ERROR_H_

#include <string>

#include "leveldb/status.h"

namespace leveldb {

// strerror(err), thread-safe; "errno <n>" for a number the C library does
// not know.
std::string ErrnoText(int err);

// The directory part of `path`: everything before its last '/', "/" for a
// name right under the root, "." for a path without '/'.
std::string ParentOfPath(const std::string& path);

// The Status for a failed system call on `path` (or a description of the
// operation) with errno `err`: NotFound for ENOENT when
// `enoent_is_not_found`, else IOError(path, ErrnoText(err)). EMFILE and
// ENFILE get " (out of file descriptors)" appended. ENOSPC on a
// file system with no free inodes left gets " (out of inodes)" appended;
// `statvfs_fd` (an open descriptor on that file system, or -1 to look up
// the parent of `path` instead) is used to find that out.
Status PosixError(const std::string& path, int err,
                  bool enoent_is_not_found = true, int statvfs_fd = -1);

// The refusal to follow the symbolic link at `path`: IOError(path,
// kLinkNotFollowed). The Env and the FileSystem refuse links with it, and
// IsLinkNotFollowed (fs/file_system.h) recognises it by that text.
extern const char kLinkNotFollowed[];
Status LinkNotFollowed(const std::string& path);

}  // namespace leveldb

#endif  // DELSM_UTIL_POSIX_ERROR_H_
