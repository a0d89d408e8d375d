// The removal of values that stay put (Tuning::values_stay_put,
// docs/DESIGN.md section 5), and what proves each removal safe; the
// directory operations themselves are in sst_dir_removal.h.
//
// Dead values: the death of values in home directories. A compaction that
// drops an entry whose value is in a home hands the file to BuryDeadValues
// once its edit is committed; the file is unlinked when no version from
// before that commit is alive, and its home is removed when it empties;
// the meta files that name it go only after it (DeadValues in db_impl.h).
// The homes of flush builds discarded before their commit are removed
// whole. The removal pass (db_impl_removal.cc) runs both.
//
// The open sweep of homes (RemoveUnreferencedValues) removes what a crash
// left that no queue knows: values no live entry names.
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/compaction.h"
#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/sst_dir_removal.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "fs/file_system.h"
#include "fs/list_if_present.h"
#include "table/key_codec.h"
#include "table/meta_file.h"

namespace leveldb {

// ---------------------------------------------------------------------------
// Dead values and discarded homes

void DBImpl::BuryDeadValues(const std::vector<HomeValue>& values,
                            Compaction* c) {
  mutex_.AssertHeld();
  if (values.empty()) return;
  DeadValues d;
  d.id = next_dead_values_id_++;
  d.version = versions_->CurrentVersionNumber();
  d.values = values;
  for (int which = 0; which < 2; which++) {
    for (const FileMetaData* f : c->inputs(which)) {
      d.namer_ssts.push_back(f->number);
      d.namer_dirs.push_back(f->dir);
    }
  }
  dead_values_.push_back(std::move(d));
}

void DBImpl::DeadValueNamers(std::set<uint64_t>* ssts,
                             std::set<uint64_t>* dirs) {
  mutex_.AssertHeld();
  for (const DeadValues& d : dead_values_) {
    ssts->insert(d.namer_ssts.begin(), d.namer_ssts.end());
    dirs->insert(d.namer_dirs.begin(), d.namer_dirs.end());
  }
}

void DBImpl::RemoveRemovableDeadValues(uint64_t* unlinked,
                                       uint64_t* dirs_removed) {
  mutex_.AssertHeld();
  // A version older than the compaction's may hold the dropped entry (in
  // the compaction's input, or in an SST it came from); none newer can.
  const uint64_t oldest = versions_->OldestLiveVersion();
  std::vector<std::pair<uint64_t, std::vector<HomeValue>>> taken;
  for (DeadValues& d : dead_values_) {
    if (d.removing || d.version > oldest) continue;
    d.removing = true;
    taken.push_back({d.id, d.values});
  }
  if (taken.empty()) return;
  mutex_.Unlock();
  std::vector<std::vector<HomeValue>> failed;
  for (const auto& t : taken) {
    failed.push_back(RemoveDeadValues(t.second, unlinked, dirs_removed));
  }
  mutex_.Lock();
  for (size_t i = 0; i < taken.size(); i++) {
    auto it = std::find_if(
        dead_values_.begin(), dead_values_.end(),
        [&](const DeadValues& d) { return d.id == taken[i].first; });
    if (it == dead_values_.end()) continue;  // not possible: only we erase
    if (failed[i].empty()) {
      dead_values_.erase(it);  // its namers may go now
    } else {
      it->values = std::move(failed[i]);
      it->removing = false;
    }
  }
}

std::vector<HomeValue> DBImpl::RemoveDeadValues(
    const std::vector<HomeValue>& values, uint64_t* unlinked,
    uint64_t* dirs_removed) {
  std::map<uint64_t, std::vector<const HomeValue*>> by_home;
  for (const HomeValue& v : values) by_home[v.home].push_back(&v);
  std::vector<HomeValue> failed;
  Status s;
  for (const auto& home : by_home) {
    if (!s.ok()) {
      // After an error nothing more is deleted: the rest waits too.
      for (const HomeValue* v : home.second) failed.push_back(*v);
      continue;
    }
    std::shared_ptr<Directory> dir;
    s = homes_->Get(home.first, &dir);
    if (s.IsNotFound()) {
      // The home went with its last value before, where a lookup agrees: a
      // home that does not open (ENOENT) while it is there holds its values
      // still, which leave the queue only once unlinked (as below).
      const std::string path = homes_->PathOf(home.first);
      bool exists = true;
      s = fs_->Probe(path, &exists);
      if (s.ok() && !exists) continue;
      if (s.ok()) s = Status::IOError(path, "found, and does not open");
    }
    if (!s.ok()) {
      Log(options_.info_log,
          "Removing dead values of home %s: %s; tried again later\n",
          homes_->PathOf(home.first).c_str(), s.ToString().c_str());
    }
    for (size_t i = 0; i < home.second.size(); i++) {
      if (s.ok()) {
        // Gone already (an earlier attempt got it) only where a lookup
        // agrees: a value left while it leaves the queue releases the meta
        // files naming it, and RepairDB takes an unnamed value back.
        bool removed = false;
        s = UnlinkUnlessGone(dir.get(), home.second[i]->name, &removed);
        if (s.ok()) {
          if (removed) (*unlinked)++;
          continue;
        }
        Log(options_.info_log,
            "Removing dead values of home %s: %s; tried again later\n",
            homes_->PathOf(home.first).c_str(), s.ToString().c_str());
      }
      failed.push_back(*home.second[i]);
    }
    if (!s.ok()) continue;
    // The home goes with its last value; while a live entry names a file
    // in it, rmdir fails (not empty) and it stays.
    dir.reset();
    if (fs_->RemoveDir(homes_->PathOf(home.first)).ok()) {
      homes_->Forget(home.first);
      (*dirs_removed)++;
    }
  }
  return failed;
}

void DBImpl::RemoveDiscardedHomes(const std::vector<uint64_t>& homes,
                                  std::vector<uint64_t>* failed,
                                  uint64_t* unlinked, uint64_t* dirs_removed) {
  for (uint64_t home : homes) {
    homes_->Forget(home);  // never read, but never keep it open either
    const std::string path = homes_->PathOf(home);
    // Not there (ENOENT): the build wrote no value there. A lookup that
    // fails otherwise is tried again: forgotten, the home would stay with
    // values that no commit names, unknown to the next Open if this
    // database closes cleanly.
    bool exists;
    Status s = fs_->Probe(path, &exists);
    if (s.ok() && !exists) continue;
    if (s.ok()) s = RemoveSstDirectory(fs_, path, unlinked);
    if (s.ok()) {
      (*dirs_removed)++;
    } else {
      Log(options_.info_log,
          "Removing %s of a discarded flush: %s; tried again later\n",
          path.c_str(), s.ToString().c_str());
      failed->push_back(home);
    }
  }
}

// ---------------------------------------------------------------------------
// The open sweep of homes

// Calls fn(entry) for every entry of a home kind in the live SSTs, through
// the table cache. Fails if a meta file cannot be read.
template <typename Fn>
static Status ForEachHomeEntry(Version* v, TableCache* cache, Fn fn) {
  for (int level = 0; level < config::kNumLevels; level++) {
    for (const FileMetaData* f : v->files(level)) {
      Cache::Handle* h = nullptr;
      Status s = cache->FindWhole(level, f->number, f->dir, &h);
      if (!s.ok()) return s;
      for (const MetaIndexEntry& e : cache->Value(h)->index().entries) {
        if (StoredInHome(e.storage)) fn(e);
      }
      cache->Release(h);
    }
  }
  return Status::OK();
}

bool DBImpl::RemoveUnreferencedValues() {
  mutex_.AssertHeld();
  const std::string& root = homes_->root();
  std::vector<std::string> homes;
  // Only a values/ that is not there has none to sweep: a listing that
  // fails with ENOENT while it is there, taken for its absence, would leave
  // the sweep owed unmarked, and the Close would vouch for a database
  // holding the values no entry names.
  bool absent;
  Status s = ListDirectoryIfPresent(fs_, root, &homes, &absent);
  if (s.ok() && (absent || homes.empty())) return true;
  if (!s.ok()) {
    left_for_open_sweep_ = true;  // not swept: the next open tries
    Log(options_.info_log, "Sweeping %s: %s\n", root.c_str(),
        s.ToString().c_str());
    return false;
  }
  // The files live entries name, by home. A meta file that cannot be read
  // could name any of them: then nothing is swept (its reads report the
  // damage). Names, not counts, are compared: a named file missing would
  // hide a stray one from a count.
  Version* v = versions_->current();
  std::map<uint64_t, std::set<std::string>> named;
  s = ForEachHomeEntry(v, table_cache_.get(), [&](const MetaIndexEntry& e) {
    const Slice ikey(e.internal_key);
    named[e.home].insert(KvStoredFileName(ExtractUserKey(ikey),
                                          ExtractTag(ikey) >> 8,
                                          StoredCompressed(e.storage)));
  });
  if (!s.ok()) {
    left_for_open_sweep_ = true;
    Log(options_.info_log, "Not sweeping %s: %s\n", root.c_str(),
        s.ToString().c_str());
    return false;
  }
  uint64_t unlinked = 0, dirs_removed = 0;
  for (const std::string& name : homes) {
    uint64_t home;
    if (!ParseHomeDirName(name, &home)) continue;  // not ours: left alone
    const std::string path = root + "/" + name;
    auto it = named.find(home);
    if (it == named.end()) {
      s = RemoveSstDirectory(fs_, path, &unlinked);
      if (s.ok()) dirs_removed++;
    } else {
      std::unique_ptr<Directory> dir;
      std::vector<std::string> files;
      s = fs_->OpenDirectory(path, &dir);
      if (s.ok()) s = dir->List(&files);
      for (size_t i = 0; s.ok() && i < files.size(); i++) {
        if (it->second.count(files[i]) > 0) continue;
        // Only a name DeLSM gives a value (KvStoredFileName) is one of
        // the values the named set accounts for; any other name is not
        // ours to remove, as in RemoveUnownedEntries.
        std::string user_key;
        uint64_t sequence;
        bool hashed, compressed;
        if (!ParseKvStoredFileName(files[i], &user_key, &sequence, &hashed,
                                   &compressed)) {
          continue;
        }
        // Gone already only where a lookup agrees (UnlinkUnlessGone): a
        // value left while the sweep counts as finished outlives the meta
        // files that name it.
        bool removed = false;
        s = UnlinkUnlessGone(dir.get(), files[i], &removed);
        if (removed) unlinked++;
      }
    }
    if (!s.ok()) {
      // An error it cannot classify: nothing more is deleted.
      left_for_open_sweep_ = true;
      Log(options_.info_log, "Sweeping %s: %s\n", path.c_str(),
          s.ToString().c_str());
      break;
    }
  }
  if (unlinked > 0 || dirs_removed > 0) {
    Log(options_.info_log,
        "Open removed %llu values no live entry names and %llu homes\n",
        static_cast<unsigned long long>(unlinked),
        static_cast<unsigned long long>(dirs_removed));
  }
  dentry_stats_.unlinks += unlinked;
  dentry_stats_.dirs_removed += dirs_removed;
  return s.ok();
}

}  // namespace leveldb
