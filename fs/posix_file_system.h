// The POSIX implementation of FileSystem / Directory (returned by
// FileSystem::Default()), and the error mapping every file-system
// implementation shares so that failures read the same whichever layer
// reports them.
#ifndef DELSM_FS_POSIX_FILE_SYSTEM_H_
#define DELSM_FS_POSIX_FILE_SYSTEM_H_

#include <cstdint>
#include <string>

#include "fs/file_system.h"
#include "leveldb/status.h"

namespace leveldb {

// The Status for a failed system call on `path` with errno `err`:
// NotFound for ENOENT when `enoent_is_not_found`, else IOError(path,
// strerror(err)). ENOSPC on a file system with no free inodes left gets
// " (out of inodes)" appended; `statvfs_fd` (an open descriptor on that file
// system, or -1 to look `path` up instead) is used to find that out.
Status PosixError(const std::string& path, int err, bool enoent_is_not_found,
                  int statvfs_fd = -1);

// What statvfs(2) says of the file system holding `path`.
struct FileSystemSpace {
  uint64_t block_size = 0;     // f_frsize: the allocation unit, in bytes
  uint64_t total_inodes = 0;   // f_files (0 where the FS has no fixed count)
  uint64_t free_inodes = 0;    // f_favail: free to an unprivileged user
  uint64_t free_bytes = 0;     // f_bavail * f_frsize
};
Status GetFileSystemSpace(const std::string& path, FileSystemSpace* space);

// Remove `path` and everything below it (a file or a directory tree,
// symlinks not followed). Returns 0, or the first errno other than ENOENT
// met (it goes on past failures).
int RemoveTreeAt(const std::string& path);

// Unlink every entry of the directory `dir` (not the directory itself),
// going on past failures; returns the first one (PosixError), else OK.
Status UnlinkDirectoryEntries(const std::string& dir);

}  // namespace leveldb

#endif  // DELSM_FS_POSIX_FILE_SYSTEM_H_
