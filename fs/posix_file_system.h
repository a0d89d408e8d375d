// The POSIX implementation of FileSystem / Directory (returned by
// FileSystem::Default()), and tree-removal helpers. Failures read as
// util/posix_error.h says (included here for the file systems that wrap
// this one).
#ifndef DELSM_FS_POSIX_FILE_SYSTEM_H_
#define DELSM_FS_POSIX_FILE_SYSTEM_H_

#include <cstdint>
#include <set>
#include <string>

#include "fs/file_system.h"
#include "leveldb/status.h"
#include "util/posix_error.h"

namespace leveldb {

// What statvfs(2) and statfs(2) say of the file system holding `path`.
Status GetFileSystemSpace(const std::string& path, FileSystemSpace* space);

// Remove `path` and everything below it (a file or a directory tree,
// symlinks not followed). Returns 0, or the first errno other than ENOENT
// met (it goes on past failures).
int RemoveTreeAt(const std::string& path);

// What the tree at `path` occupies: allocated bytes (st_blocks * 512) and
// inodes, each inode counted once however many of its links the walk meets
// (`seen` carries inode numbers across calls on one file system; may be
// null). Entries that vanish during the walk are skipped. Symlinks are not
// followed.
Status TreeDiskUsage(const std::string& path, std::set<uint64_t>* seen,
                     uint64_t* allocated_bytes, uint64_t* inodes);
// The same for what lies below the directory `path`, without the directory
// itself (a level's contents without the level directory).
Status DiskUsageBelow(const std::string& path, std::set<uint64_t>* seen,
                      uint64_t* allocated_bytes, uint64_t* inodes);

// Unlink every entry of the directory `dir` (not the directory itself),
// going on past failures; returns the first one (PosixError), else OK.
Status UnlinkDirectoryEntries(const std::string& dir);

}  // namespace leveldb

#endif  // DELSM_FS_POSIX_FILE_SYSTEM_H_
