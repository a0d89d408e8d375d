// DestroyDB: removes a database's files and directories, and nothing that
// is not the database's (the contract is in db_impl.h). It works in two
// passes: the plan lists everything it will remove and fails, having
// removed nothing, on anything it cannot classify; only a whole plan is
// carried out.
#include <cerrno>
#include <cstring>
#include <memory>
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

namespace {

// One of the directories DeLSM keeps in the database directory (a level
// directory, values/, leveldb-conversion/), as the plan found it.
struct PlannedDir {
  std::string path;
  // The SST directories (homes, in values/) in it, each listed by the
  // plan: a directory of its own, not a link.
  std::vector<std::string> sst_dirs;
  // Files in it removed by name: the PLAN of a conversion or take-in (and
  // PLAN.new, being written).
  std::vector<std::string> files;
  // It holds something that is not the database's, which stays, and so
  // does the directory.
  bool keeps_foreign = false;
};

// Everything DestroyDB removes, in the order it removes it.
struct DestroyPlan {
  // In the database directory, CURRENT first (see CarryOut).
  std::vector<std::string> files;
  std::vector<PlannedDir> dirs;
};

// Whether `child`, a name in the database directory, is one of the files
// DestroyDB removes (the LOCK goes last, before it is released).
bool IsDatabaseFile(const std::string& child) {
  uint64_t number;
  FileType type;
  if (ParseFileName(child, &number, &type)) {
    return type != kDBLockFile && type != kLevelDir;
  }
  return ParseLevelDbTableFileName(child, &number) ||
         child == kCleanCloseMarkerName;
}

// Lists the directory at `dir` (one of DeLSM's, which exists) into *out.
// An entry named as the database's names it (an SST directory, a home)
// is opened and its directories listed, which fails on a symbolic link
// (file_system.h), on a file that is not a directory and on a directory
// that cannot be read: an entry of the database's that cannot be listed
// cannot be removed whole, and a plan that cannot remove it whole removes
// nothing. So does a directory inside one, whatever its name: DeLSM makes
// only files there, so it is the user's, and the unlink that removes the
// directory's entries cannot remove it. The PLAN (and PLAN.new) in the
// staging directory is removed only as a file; a directory under its name
// is the user's and stays, as a directory under a database file's name in
// the database directory does (MakePlan).
Status PlanDirectory(FileSystem* fs, const std::string& dir, bool homes,
                     bool staging, PlannedDir* out) {
  out->path = dir;
  std::unique_ptr<Directory> listed;
  Status s = fs->OpenDirectory(dir, &listed);
  std::vector<std::string> names;
  if (s.ok()) s = listed->List(&names);
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    const std::string path = dir + "/" + name;
    uint64_t number;
    if (homes ? ParseHomeDirName(name, &number)
              : ParseSstDirName(name, &number)) {
      std::unique_ptr<Directory> sst_dir;
      s = fs->OpenDirectory(path, &sst_dir);
      std::vector<std::string> subdirs;
      if (s.ok()) s = sst_dir->ListDirectories(&subdirs);
      if (!s.ok()) return s;
      if (!subdirs.empty()) {
        return Status::IOError(
            path + "/" + subdirs.front(),
            "a directory, not the database's (DeLSM keeps only files here)");
      }
      out->sst_dirs.push_back(path);
    } else if (staging && IsStagingPlanFileName(name)) {
      KvFileInfo info;
      s = listed->Stat(name, &info);
      if (!s.ok()) return s;
      if (info.directory) {
        out->keeps_foreign = true;
      } else {
        out->files.push_back(path);
      }
    } else {
      out->keeps_foreign = true;
    }
  }
  return Status::OK();
}

// The plan for the database at `dbname`, whose directory lists as
// `children`, with DeLSM's directories `present` in it. Removes nothing.
Status MakePlan(FileSystem* fs, const std::string& dbname,
                const std::vector<std::string>& children,
                const std::vector<std::string>& present, DestroyPlan* plan) {
  for (const std::string& child : children) {
    if (!IsDatabaseFile(child)) continue;
    // A directory under a file's name is none of the database's files
    // (DeLSM and LevelDB write only files there): it stays, as a foreign
    // entry does. Removed as a file, it would fail after CURRENT had gone,
    // on every later call too.
    std::vector<std::string> unused;
    Status s = fs->ListDirectory(dbname + "/" + child, &unused);
    if (s.ok()) continue;
    // A file: the listing fails as on a file (ENOTDIR), a link (not
    // followed) or a name this FileSystem does not hold (a memory Env's
    // files are the Env's). Any other error (EMFILE, EIO) leaves it
    // unknown whether it is a directory, which the unlink would fail on
    // after CURRENT had gone: fail, having removed nothing.
    const std::string text = s.ToString();
    if (!s.IsNotFound() &&
        text.find(std::strerror(ENOTDIR)) == std::string::npos &&
        !IsLinkNotFollowed(s)) {
      return s;
    }
    if (child == "CURRENT") {
      plan->files.insert(plan->files.begin(), dbname + "/" + child);
    } else {
      plan->files.push_back(dbname + "/" + child);
    }
  }
  for (const std::string& dir : present) {
    PlannedDir planned;
    Status s = PlanDirectory(fs, dir, dir == dbname + "/" + kValuesDirName,
                             dir == dbname + "/" + kLevelDbConversionDirName,
                             &planned);
    if (!s.ok()) return s;
    plan->dirs.push_back(std::move(planned));
  }
  return Status::OK();
}

// Removes what `plan` names, stopping at the first error. CURRENT goes
// first: from then on the directory holds no database Open recognises,
// whatever else a failure leaves behind.
Status CarryOut(Env* env, FileSystem* fs, const DestroyPlan& plan) {
  for (const std::string& file : plan.files) {
    Status s = env->RemoveFile(file);
    if (!s.ok()) return s;
  }
  for (const PlannedDir& dir : plan.dirs) {
    for (const std::string& sst_dir : dir.sst_dirs) {
      Status s = RemoveSstDirectory(fs, sst_dir, nullptr);
      if (!s.ok()) return s;
    }
    for (const std::string& file : dir.files) {
      Status s = env->RemoveFile(file);
      if (!s.ok()) return s;
    }
    if (!dir.keeps_foreign) {
      Status s = fs->RemoveDir(dir.path);
      if (!s.ok()) return s;
    }
  }
  return Status::OK();
}

}  // namespace

Status DestroyDB(const std::string& dbname, const Options& options) {
  return DestroyDBWithFileSystem(dbname, options,
                                 FileSystemForEnv(options.env));
}

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
  // One whose lookup fails (EIO) may be there: left out of the plan, it
  // would stay, with what it holds, after DestroyDB removed CURRENT and
  // returned OK. Nothing is removed.
  std::vector<std::string> present;
  for (const std::string& dir : dirs) {
    bool exists;
    Status s = fs->Probe(dir, &exists);
    if (!s.ok()) return s;
    if (exists) present.push_back(dir);
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
  // The LOCK file is removed while it is still locked, never after the
  // unlock: an Open of another process in between would lock that file,
  // and once it was unlinked the next Open would make a new LOCK, lock it
  // too, and open the database beside the first. Removed while locked, a
  // later Open makes a new LOCK, the only one.
  DestroyPlan plan;
  result = MakePlan(fs, dbname, children, present, &plan);
  if (!result.ok()) {
    // LockFile made the LOCK if there was none: the directory is left as
    // it was found.
    bool had_lock = false;
    for (const std::string& child : children) had_lock |= child == "LOCK";
    if (!had_lock) env->RemoveFile(lockname);
    env->UnlockFile(lock);
    return result;
  }
  result = CarryOut(env, fs, plan);
  if (result.ok()) env->RemoveFile(lockname);
  env->UnlockFile(lock);
  if (!result.ok()) return result;
  env->RemoveDir(dbname);  // fails if the user left other files there
  return result;
}

}  // namespace leveldb
