// RepairDB after its commit (db/repairer.h): the old files are put away.
// Nothing repair could not use is deleted: an entry the merge was given is
// unlinked (the new directories hold what it kept), everything else (every
// WAL and old manifest, a directory that could not be loaded, entries the
// merge was not given) is moved to lost/.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "db/filename.h"
#include "db/repairer.h"
#include "db/sst_dir_removal.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "table/meta_file.h"

namespace leveldb {

void Repairer::MoveToLost(const std::string& path, const std::string& lost_name,
                          bool env_file) {
  const std::string lost_dir = dbname_ + "/lost";
  const std::string to = lost_dir + "/" + lost_name;
  // lost/ is made or found through the FileSystem, which refuses a link
  // there (Run refused one already; this covers one planted since): a
  // rename into it would move the file out of the database. (A memory
  // Env's FileSystem keeps a lost/ of its own, which only this uses.)
  Status s = sst_options_.fs->CreateDir(lost_dir, true);
  if (s.ok() && env_file) {
    env_->CreateDir(lost_dir);  // the Env's own (a memory Env's); may exist
    s = env_->RenameFile(path, to);
  } else if (s.ok()) {
    s = sst_options_.fs->Rename(path, to);
  }
  if (s.ok()) moved_to_lost_++;
  Log(options_.info_log, "RepairDB: moving %s to %s: %s\n", path.c_str(),
      to.c_str(), s.ToString().c_str());
}

void Repairer::PutAwayOldDirectory(const OldDir& d) {
  const std::string base = d.path.substr(d.path.rfind('/') + 1);
  const std::string lost_name = "L" + std::to_string(d.level) + "-" + base;
  if (!d.loaded) {
    MoveToLost(d.path, lost_name, false);
    return;
  }
  std::unique_ptr<Directory> dir;
  std::vector<std::string> names;
  Status s = sst_options_.fs->OpenDirectory(d.path, &dir);
  if (s.ok()) s = dir->List(&names);
  // Meta and LONGKEYS files go last: killed in between, this directory
  // keeps the meta files that name what is left of it, which the next
  // RepairDB knows for replaced (this one's manifest records them so)
  // and so does not take back the values they name.
  std::stable_partition(names.begin(), names.end(),
                        [&d](const std::string& name) {
                          uint64_t n;
                          return !ParseMetaFileName(name, d.number, &n) &&
                                 !Slice(name).starts_with(kLongKeysFileName);
                        });
  size_t unlinked = 0, kept = 0;
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    if (d.used.count(names[i]) > 0) {
      s = dir->Unlink(names[i]);
      unlinked++;
    } else {
      kept++;
    }
  }
  dir.reset();
  if (s.ok() && kept == 0) s = sst_options_.fs->RemoveDir(d.path);
  Log(options_.info_log, "RepairDB: %s: %zu entries removed, %zu kept: %s\n",
      d.path.c_str(), unlinked, kept, s.ToString().c_str());
  if (kept > 0 || !s.ok()) MoveToLost(d.path, lost_name, false);
}

void Repairer::PutAwayOldFiles() {
  inputs_.clear();  // close directories before removing them
  for (const auto& dir : new_dirs_) {
    // Intermediate: everything in them is linked from the old files or
    // the WALs, which are kept or put away. Killed before they are gone,
    // the next RepairDB knows them for replaced (MergeAndCommit).
    RemoveSstDirectory(sst_options_.fs, dir.second, nullptr);
  }
  for (const OldDir& d : old_dirs_) PutAwayOldDirectory(d);
  homes_.PutAway(
      dropped_home_values_,
      [this](const std::string& path, const std::string& lost_name) {
        MoveToLost(path, lost_name, false);
      },
      options_.info_log);
  for (uint64_t n : logs_) {
    MoveToLost(LogFileName(dbname_, n), LogFileName("", n).substr(1), true);
  }
  for (const std::string& m : manifests_) {
    if (m != DescriptorFileName("", new_manifest_).substr(1)) {
      MoveToLost(dbname_ + "/" + m, m, true);
    }
  }
}

}  // namespace leveldb
