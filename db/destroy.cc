// DestroyDB: removes a database's files and directories, and nothing that
// is not the database's.
#include <string>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/sst_dir_removal.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"

namespace leveldb {

Status DestroyDB(const std::string& dbname, const Options& options) {
  return DestroyDBWithFileSystem(dbname, options,
                                 FileSystemForEnv(options.env));
}

// What DestroyDB removes is what it can classify as the database's:
//  - the files LevelDB's own DestroyDB removes, all names it knows:
//    CURRENT, LOCK, LOG, LOG.old, MANIFEST-n, n.log, n.dbtmp and LevelDB's
//    tables n.ldb and n.sst (a LevelDB database not yet converted, a
//    conversion's tables not yet removed, or tables LevelDB's RepairDB
//    made of DeLSM's WALs), and the clean-close marker CLOSED;
//  - DeLSM's own directories: in L0..L6 the SST directories, under values/
//    the homes, in leveldb-conversion/ the staged SST directories and the
//    PLAN of a conversion (committed or not); then each of these
//    directories, if that left it empty.
// Anything else stays, and so does the directory holding it: the user's
// own files, lost/ (which both engines' repairs fill for the user, and
// LevelDB's DestroyDB keeps too). A removal that fails fails the call.
Status DestroyDBWithFileSystem(const std::string& dbname,
                               const Options& options, FileSystem* fs) {
  Env* env = options.env;
  // The directories live on `fs`, which need not be where the Env keeps
  // the WAL and manifest (NewMemEnv): look for them there.
  std::vector<std::string> dirs;
  for (int level = 0; level < config::kNumLevels; level++) {
    dirs.push_back(LevelDirName(dbname, level));
  }
  dirs.push_back(dbname + "/" + kValuesDirName);
  dirs.push_back(dbname + "/" + kLevelDbConversionDirName);
  std::vector<std::string> present;
  for (const std::string& dir : dirs) {
    if (fs->Exists(dir)) present.push_back(dir);
  }
  std::vector<std::string> children;
  Status result = env->GetChildren(dbname, &children);
  if (!result.ok()) {
    // No level directory either: there is no database (LevelDB's DestroyDB
    // returns OK for a directory it cannot list). With one, the database
    // exists but which of its files are the database's cannot be judged
    // (EIO, EACCES): removing its directories alone would leave CURRENT,
    // the manifest and the WALs naming SSTs that are gone, a database that
    // no longer opens. Fail, and remove nothing.
    return present.empty() ? Status::OK() : result;
  }

  FileLock* lock;
  const std::string lockname = LockFileName(dbname);
  result = env->LockFile(lockname, &lock);
  if (!result.ok()) return result;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    const bool ours = ParseFileName(child, &number, &type)
                          ? type != kDBLockFile && type != kLevelDir
                          : ParseLevelDbTableFileName(child, &number) ||
                                child == kCleanCloseMarkerName;
    if (!ours) continue;
    Status del = env->RemoveFile(dbname + "/" + child);
    if (result.ok() && !del.ok()) result = del;
  }
  for (const std::string& dir : present) {
    const bool values = dir == dbname + "/" + kValuesDirName;
    const bool staging = dir == dbname + "/" + kLevelDbConversionDirName;
    std::vector<std::string> names;
    Status del = fs->ListDirectory(dir, &names);
    bool emptied = true;
    for (size_t i = 0; del.ok() && i < names.size(); i++) {
      uint64_t n;
      if (values ? ParseHomeDirName(names[i], &n)
                 : ParseSstDirName(names[i], &n)) {
        del = RemoveSstDirectory(fs, dir + "/" + names[i], nullptr);
      } else if (staging && names[i] == "PLAN") {
        del = env->RemoveFile(dir + "/" + names[i]);
      } else {
        emptied = false;  // not the database's: it stays, with `dir`
      }
    }
    if (del.ok() && emptied) del = fs->RemoveDir(dir);
    if (result.ok() && !del.ok()) result = del;
  }
  env->UnlockFile(lock);
  env->RemoveFile(lockname);
  env->RemoveDir(dbname);  // fails if the user left other files there
  return result;
}

}  // namespace leveldb
