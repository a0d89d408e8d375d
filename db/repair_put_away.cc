// RepairDB's putting away of the old files (db/repairer.h). Nothing repair
// could not use is deleted.
//
// Before the commit, every entry of an old SST directory that the merge is
// not given (an unreadable meta file, a KV file it could not take back, a
// file it does not know; all of a directory it could not load or that an
// earlier RepairDB merged) is linked into lost/L<level>-<dir>/; so is every
// value in a home that no entry given to the merge names (into
// lost/values-<home>/), and every WAL and old manifest (into lost/ itself,
// as LevelDB's repair leaves them). Only a link can be made then, not a
// move: until the commit, the old manifest is the database, and it may
// name those files; the WALs hold writes no SST holds; and a RepairDB run
// again after this one is killed must find the old state as it was (a
// meta file there that does not read is its evidence that values in homes
// may have lost the meta file naming them, RepairHomes::NoteMetaFileLost;
// the old manifests record which SSTs were replaced, FindRetiredSsts). That
// RepairDB reads nothing of lost/ but the numbers its manifests name (for
// its own numbering, FindFiles), and a link it finds there already (the
// same file) counts as set aside. WALs and manifests a memory Env holds
// are not linked (its FileSystem does not hold them), and are moved after
// the commit: nothing of such a database outlives a kill.
//
// After the commit, the new manifest records every old directory as
// removed, and the old files are put away: an entry the merge was given
// is unlinked (the new directories hold links to those it kept; those it
// dropped were superseded or deleted), and so is one set aside (lost/ holds
// it), a WAL or old manifest set aside, and a value in a home the merge
// dropped or that was set aside; what could not be linked (a directory
// repair could not open, a directory inside an SST directory or a home)
// is moved to lost/. Killed here, or failing, RepairDB leaves files that an
// Open removes (old directories, whole: no live SST is in them; WALs and
// manifests the new manifest does not name; values no live entry names):
// each is then one the merge was given or one lost/ holds.
#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/filename.h"
#include "db/repairer.h"
#include "db/sst_dir_removal.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/env.h"
#include "table/meta_file.h"

namespace leveldb {

namespace {

// lost/'s name for the old SST directory `d`: L<level>-<directory>.
std::string LostNameOf(int level, const std::string& path) {
  return "L" + std::to_string(level) + "-" + path.substr(path.rfind('/') + 1);
}

// The k-th candidate for lost_name: lost_name itself, then lost_name.<k>
// (<k> for an empty lost_name, lost/ itself).
std::string Candidate(const std::string& lost_name, int k) {
  if (k == 0) return lost_name;
  return (lost_name.empty() ? "" : lost_name + ".") + std::to_string(k);
}

constexpr int kMaxCandidates = 1000;

}  // namespace

Status Repairer::SetAsideUnusable() {
  for (OldDir& d : old_dirs_) {
    Status s = SetAsideUnused(&d);
    if (!s.ok()) {
      Log(options_.info_log, "RepairDB: cannot set aside %s: %s\n",
          d.path.c_str(), s.ToString().c_str());
      return s;
    }
  }
  Status s = homes_.SetAside([this](Directory* home, const std::string& name,
                                    const std::string& lost_dir, bool* linked) {
    return LinkToLost(home, name, lost_dir, linked);
  });
  if (s.ok()) s = SetAsideEnvFiles();
  if (!s.ok()) {
    Log(options_.info_log, "RepairDB: cannot set aside: %s\n",
        s.ToString().c_str());
  }
  return s;
}

Status Repairer::SetAsideEnvFiles() {
  if (FileSystemForEnv(env_) != FileSystem::Default()) return Status::OK();
  std::vector<std::string> names = manifests_;
  for (uint64_t n : logs_) names.push_back(LogFileName("", n).substr(1));
  // Through "<dbname>/.": the database directory may be a symbolic link
  // its user made, which a Directory opened at it does not follow
  // (file_system.h); here it is an earlier component, followed as in
  // every path of the database.
  std::unique_ptr<Directory> db;
  Status s = sst_options_.fs->OpenDirectory(dbname_ + "/.", &db);
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    bool linked = false;
    s = LinkToLost(db.get(), names[i], "", &linked);
    if (s.ok() && linked) env_files_set_aside_.insert(names[i]);
  }
  return s;
}

Status Repairer::SetAsideUnused(OldDir* d) {
  std::unique_ptr<Directory> dir;
  std::vector<std::string> names;
  Status s = sst_options_.fs->OpenDirectory(d->path, &dir);
  if (s.ok()) s = dir->List(&names);
  if (!s.ok() && IsDamage(s)) {
    // A file or a symbolic link under an SST directory's name: an Open
    // cannot list it to remove it, so it waits for the commit.
    d->whole = true;
    return Status::OK();
  }
  const std::string lost_dir = LostNameOf(d->level, d->path);
  size_t linked = 0;
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    if (d->used.count(names[i]) > 0) continue;
    bool in_lost = false;
    s = LinkToLost(dir.get(), names[i], lost_dir, &in_lost);
    if (s.ok() && in_lost) {
      d->set_aside.insert(names[i]);
      linked++;
    }
  }
  if (linked > 0 || !s.ok()) {
    Log(options_.info_log, "RepairDB: %s: %zu entries set aside in lost/: %s\n",
        d->path.c_str(), linked, s.ToString().c_str());
  }
  return s;
}

Status Repairer::LinkToLost(Directory* src, const std::string& name,
                            const std::string& lost_dir, bool* linked) {
  *linked = false;
  FileSystem* const fs = sst_options_.fs;
  // lost/ is made or found through the FileSystem, which refuses a link
  // there (Run refused one already; this covers one planted since): a
  // file linked into it would be outside the database.
  Status s = fs->CreateDir(dbname_ + "/lost", true);
  for (int k = 0; s.ok() && k < kMaxCandidates; k++) {
    const std::string candidate = Candidate(lost_dir, k);
    const std::string to =
        dbname_ + "/lost" + (candidate.empty() ? "" : "/" + candidate);
    std::unique_ptr<Directory> lost;
    s = fs->CreateDir(to, true);
    if (s.ok()) s = fs->OpenDirectory(to, &lost);
    if (!s.ok()) return s;
    s = lost->LinkFrom(src, name);
    if (s.ok()) {
      moved_to_lost_++;
      *linked = true;
      return s;
    }
    KvFileInfo there, here;
    if (!lost->Stat(name, &there).ok()) break;  // not taken: another error
    // Taken: by this very file (an earlier RepairDB, killed, linked it),
    // or by another, and the next candidate is tried.
    s = src->Stat(name, &here);
    if (s.ok() && here.inode == there.inode) {
      *linked = true;
      return s;
    }
  }
  if (s.ok()) {
    return Status::IOError(dbname_ + "/lost/" + lost_dir,
                           "no free name to set " + name + " aside under");
  }
  // A directory cannot be linked; it is never removed by an unlink either
  // (an Open's removal of a dead directory stops at it), so it stays in
  // place until the directory is moved whole after the commit.
  std::unique_ptr<Directory> sub;
  if (fs->OpenDirectory(src->path() + "/" + name, &sub).ok()) {
    return Status::OK();
  }
  return s;
}

Status Repairer::FreeLostName(const std::string& lost_name,
                              const std::set<std::string>* listed,
                              std::string* free_name) {
  for (int k = 0; k < kMaxCandidates; k++) {
    *free_name = Candidate(lost_name, k);
    bool taken = listed != nullptr && listed->count(*free_name) > 0;
    if (listed == nullptr) {
      Status s =
          sst_options_.fs->Probe(dbname_ + "/lost/" + *free_name, &taken);
      if (!s.ok()) return s;
    }
    if (!taken) return Status::OK();
  }
  return Status::IOError(dbname_ + "/lost/" + lost_name,
                         "no free name to move it to");
}

Status Repairer::MoveToLost(const std::string& path,
                            const std::string& lost_name, bool env_file) {
  const std::string lost_dir = dbname_ + "/lost";
  // lost/ is made or found through the FileSystem, which refuses a link
  // there (as LinkToLost). (A memory Env's FileSystem keeps a lost/ of its
  // own, which only this uses.)
  std::string to = lost_dir + "/" + lost_name;
  Status s = sst_options_.fs->CreateDir(lost_dir, true);
  if (s.ok() && env_file) {
    env_->CreateDir(lost_dir);  // the Env's own (a memory Env's); may exist
    // A free name by the Env's listing of lost/: the rename would replace
    // what lost/ holds under the name (an earlier RepairDB's WAL or
    // manifest of the same number, in a database made afresh at the same
    // path). A memory Env's files are not in its FileSystem, which Probe
    // asks.
    std::vector<std::string> children;
    s = env_->GetChildren(lost_dir, &children);
    const std::set<std::string> listed(children.begin(), children.end());
    std::string free_name;
    if (s.ok()) s = FreeLostName(lost_name, &listed, &free_name);
    if (s.ok()) {
      to = lost_dir + "/" + free_name;
      s = env_->RenameFile(path, to);
    }
  } else if (s.ok()) {
    s = sst_options_.fs->Rename(path, to);
  }
  if (s.ok()) moved_to_lost_++;
  Log(options_.info_log, "RepairDB: moving %s to %s: %s\n", path.c_str(),
      to.c_str(), s.ToString().c_str());
  return s;
}

Status Repairer::PutAwayOldDirectory(const OldDir& d) {
  const std::string lost_name = LostNameOf(d.level, d.path);
  std::string free_name;
  if (d.whole) {
    Status s = FreeLostName(lost_name, nullptr, &free_name);
    return s.ok() ? MoveToLost(d.path, free_name, false) : s;
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
    if (d.used.count(names[i]) > 0 || d.set_aside.count(names[i]) > 0) {
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
  if (s.ok() && kept > 0) s = FreeLostName(lost_name, nullptr, &free_name);
  if (s.ok() && kept > 0) s = MoveToLost(d.path, free_name, false);
  return s;
}

Status Repairer::PutAwayEnvFile(const std::string& name) {
  const std::string path = dbname_ + "/" + name;
  if (env_files_set_aside_.count(name) == 0) {
    return MoveToLost(path, name, true);
  }
  // lost/ holds it (SetAsideEnvFiles).
  Status s = env_->RemoveFile(path);
  Log(options_.info_log, "RepairDB: removing %s (in lost/): %s\n", path.c_str(),
      s.ToString().c_str());
  return s;
}

Status Repairer::PutAwayOldFiles() {
  Status first;
  auto note = [&first](const Status& s) {
    if (first.ok() && !s.ok()) first = s;
  };
  inputs_.clear();  // close directories before removing them
  for (const auto& dir : new_dirs_) {
    // Intermediate: everything in them is linked from the old files or
    // the WALs, which are kept or put away. Killed before they are gone,
    // the next RepairDB knows them for replaced (MergeAndCommit).
    note(RemoveSstDirectory(sst_options_.fs, dir.second, nullptr));
  }
  for (const OldDir& d : old_dirs_) note(PutAwayOldDirectory(d));
  note(homes_.PutAway(
      dropped_home_values_,
      [this](const std::string& path, const std::string& lost_dir) {
        Status s = sst_options_.fs->CreateDir(dbname_ + "/lost", true);
        if (s.ok()) {
          s = sst_options_.fs->CreateDir(dbname_ + "/lost/" + lost_dir, true);
        }
        std::string free_name;
        if (s.ok()) {
          s = FreeLostName(lost_dir + path.substr(path.rfind('/')), nullptr,
                           &free_name);
        }
        if (!s.ok()) return s;
        return MoveToLost(path, free_name, false);
      },
      options_.info_log));
  for (uint64_t n : logs_) note(PutAwayEnvFile(LogFileName("", n).substr(1)));
  for (const std::string& m : manifests_) {
    if (m != DescriptorName(new_manifest_)) {
      note(PutAwayEnvFile(m));
    }
  }
  if (first.ok()) return first;
  return Status::IOError(
      "RepairDB committed the repaired database but could not put every old "
      "file away (run RepairDB again)",
      first.ToString());
}

}  // namespace leveldb
