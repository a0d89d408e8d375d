// A FileSystem held in process memory, and the choice of FileSystem for a
// database by its Env.
//
// A database whose Options::env is a memory Env (NewMemEnv) keeps its WAL,
// manifest, CURRENT, LOCK and LOG in that Env; its SST directories go to
// the memory FileSystem bound to that same Env instance (FileSystemForEnv),
// so nothing of it is on disk, and two memory Envs, or a memory Env and the
// disk, never share a file even under one path (as in LevelDB, where the
// memory Env holds everything).
//
// The memory FileSystem keeps FileSystem's whole contract (file_system.h):
// files are inodes with link counts, hard links share them, Unlink drops an
// entry and the data goes with its last link and last open ReadOnlyFile; an
// open Directory follows its directory across a Rename (as a held
// descriptor does); Rename replaces a file, or an empty directory, as
// rename(2) does and refuses to move a directory into itself. Failures are
// the POSIX implementation's (util/posix_error.h, with the errno POSIX
// would give). Sync and SyncFileSystem do nothing: there is no device.
//
// Paths: one tree; components are split at '/', empty and "." components
// are skipped and ".." steps up, so "a//b/", "/a/b" and "a/./b" name one
// node (a relative path is taken from the root). Unlike mkdir(2),
// CreateDir makes missing ancestors: as a memory Env creates a file
// without its parent directory, nothing outside the database exists there
// for a database path's parents to be.
#ifndef DELSM_FS_MEM_FILE_SYSTEM_H_
#define DELSM_FS_MEM_FILE_SYSTEM_H_

#include <memory>

#include "fs/file_system.h"

namespace leveldb {

class Env;

// A new, empty memory FileSystem. Its Directories and ReadOnlyFiles must
// not outlive it.
std::unique_ptr<FileSystem> NewMemFileSystem();

// Where a database whose Env is `env` keeps its SST directories: for a
// memory Env (or EnvWrappers around one) the memory FileSystem bound to
// that Env instance, made on first use and deleted with the Env; for any
// other Env, FileSystem::Default(). Open, DestroyDB, RepairDB and DumpFile
// all choose by it.
FileSystem* FileSystemForEnv(Env* env);

}  // namespace leveldb

#endif  // DELSM_FS_MEM_FILE_SYSTEM_H_
