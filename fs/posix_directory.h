// The POSIX Directory (what PosixFileSystem::OpenDirectory returns) and the
// process-wide budget of descriptors such directories may hold.
//
// A directory holds an O_DIRECTORY descriptor while the budget has one to
// spare: every call then addresses names through it (*at() calls), which
// is cheapest and survives a rename of the directory. Past the budget it
// works by path: each call opens what it needs and closes it before
// returning, and when the path is gone it looks for the directory where
// it may have been moved to (`moved_to`), so a rename is survived too.
#ifndef DELSM_FS_POSIX_DIRECTORY_H_
#define DELSM_FS_POSIX_DIRECTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "fs/file_system.h"
#include "leveldb/status.h"

namespace leveldb {

// Opens the directory at `path` (NotFound if it does not exist).
Status OpenPosixDirectory(const std::string& path,
                          const std::vector<std::string>& moved_to,
                          std::unique_ptr<Directory>* result);

// Descriptors open Directories may hold at once, process-wide: a fifth of
// RLIMIT_NOFILE's soft limit when first asked (LevelDB bounds the files it
// keeps open the same way), so the rest stays for the WALs, the calls in
// progress and the application.
int DirectoryDescriptorBudget();
// How many of them are held now.
int DirectoryDescriptorsHeld();

}  // namespace leveldb

#endif  // DELSM_FS_POSIX_DIRECTORY_H_
