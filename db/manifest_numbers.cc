#include "db/manifest_numbers.h"

#include <algorithm>
#include <cerrno>
#include <memory>
#include <vector>

#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/version_edit.h"
#include "fs/file_system.h"
#include "util/posix_error.h"

namespace leveldb {

namespace {

// True if `s` is the failure to list a path that is not a directory
// (ENOTDIR: a file, or a link to one, under a directory's name), as the
// POSIX Env reports it (util/posix_error.h). Another Env's report is not
// recognised, and stays an error.
bool ListedNotADirectory(const Status& s) {
  const std::string suffix = ": " + ErrnoText(ENOTDIR);
  const std::string text = s.ToString();
  return s.IsIOError() && text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Status ManifestNumberBound(Env* env, const std::string& path, uint64_t* bound) {
  *bound = 0;
  SequentialFile* raw;
  Status s = env->NewSequentialFile(path, &raw);
  // Gone since it was listed: the next RepairDB cannot read it either.
  if (s.IsNotFound() && !env->FileExists(path)) return Status::OK();
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  log::ReadErrorReporter errors;  // damage is skipped
  log::Reader reader(file.get(), &errors, /*checksum=*/true, 0);
  Slice record;
  std::string scratch;
  // Every record that decodes, past one that does not: a bound read from
  // more records is only higher. RepairDB's own reading of the manifests
  // (FindRetiredSsts in db/repair_scan.cc) decides, in the same pass, which
  // SSTs are replaced, so it stops at the first record it cannot decode;
  // its numbers come from the same NumberBound. A failed read is not
  // damage: the records past it, which the next RepairDB may read, are
  // unknown, and so is the bound.
  while (reader.ReadRecord(&record, &scratch) && errors.read_error().ok()) {
    VersionEdit edit;
    if (!edit.DecodeFrom(record).ok()) continue;
    *bound = std::max(*bound, edit.NumberBound());
  }
  return errors.read_error();
}

Status DirectoryManifestsNumberBound(Env* env, const std::string& dir,
                                     uint64_t* bound) {
  *bound = 0;
  std::vector<std::string> names;
  Status s = env->GetChildren(dir, &names);
  if (s.IsNotFound() && !env->FileExists(dir)) return Status::OK();
  // Not a directory (the user's file named lost): it holds no manifest,
  // and none can come back from it; RepairDB and the taking in of
  // LevelDB's tables, which would move files into it, refuse it
  // (CheckNotALink) before they move anything.
  if (ListedNotADirectory(s)) return Status::OK();
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type) || type != kDescriptorFile) {
      continue;
    }
    uint64_t b;
    s = ManifestNumberBound(env, dir + "/" + name, &b);
    if (!s.ok()) return s;
    *bound = std::max(*bound, b);
  }
  return Status::OK();
}

Status ManifestsNumberBound(Env* env, FileSystem* fs, const std::string& dbname,
                            uint64_t* bound) {
  *bound = 0;
  uint64_t in_db, in_lost = 0;
  Status s = DirectoryManifestsNumberBound(env, dbname, &in_db);
  if (!s.ok()) return s;
  // The Env's listing follows a symbolic link named lost; `fs`, which
  // lists none, tells whether lost is one (what it holds is then outside
  // the database, and none of it counts).
  const std::string lost = dbname + "/lost";
  std::vector<std::string> names;
  if (!IsLinkNotFollowed(fs->ListDirectory(lost, &names))) {
    s = DirectoryManifestsNumberBound(env, lost, &in_lost);
    if (!s.ok()) return s;
  }
  *bound = std::max(in_db, in_lost);
  return Status::OK();
}

}  // namespace leveldb
