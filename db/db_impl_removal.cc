// Everything the DB removes while it runs, at open and at close, and what
// proves each removal safe; the directory operations themselves are in
// sst_dir_removal.h.
//
// RemoveObsoleteFiles (after a flush, a compaction or a WAL release is
// committed, at open and at close) removes WALs, manifests and temporary
// files behind the live ones, SST directories that nothing live holds, and
// what the queues below hold that may go. After an automatic compaction the
// removal thread runs it (Tuning::removal_thread), so that the compaction
// thread's next merge does not wait for the unlinks.
//
// Retired SSTs. A compaction replaces the SSTs of the output level it
// merges into with new meta files in the same directories, and moves the
// upper level's entries out of theirs; the directories live on. Once no
// version uses a replaced SST, every KV file it names that no live SST of
// its directory names is unlinked, and its meta file removed. An SST's
// directory number and key range are enough to find the live SSTs that
// may share its KV files (same directory, overlapping keys).
//
// Dead values (values that stay put, Tuning::values_stay_put) are queued
// and removed in db_impl_dead_values.cc; the removal pass runs that queue.
//
// The open sweep of SST directories (RemoveUnownedDirEntries) removes what
// a crash left that no queue knows: entries of live SST directories no
// live SST owns. The open sweep of homes is in db_impl_dead_values.cc.
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
#include "table/meta_file.h"
#include "table/sst_dir.h"
#include "util/mutexlock.h"

namespace leveldb {

namespace {

// Live SSTs of one directory whose meta files are pinned in the table cache
// for as long as this object lives.
class PinnedSsts {
 public:
  explicit PinnedSsts(TableCache* cache) : cache_(cache) {}
  ~PinnedSsts() {
    for (Cache::Handle* h : handles_) cache_->Release(h);
  }
  PinnedSsts(const PinnedSsts&) = delete;
  PinnedSsts& operator=(const PinnedSsts&) = delete;

  Status Add(int level, uint64_t number, uint64_t dir) {
    Cache::Handle* h = nullptr;
    // Every entry it names, every group of it checked.
    Status s = cache_->FindWhole(level, number, dir, &h);
    if (!s.ok()) return s;
    handles_.push_back(h);
    ssts_.push_back({&cache_->Value(h)->index(), MetaFileName(number, dir),
                     LongKeysFileName(number, dir)});
    return s;
  }
  const std::vector<SstInDir>& ssts() const { return ssts_; }

 private:
  TableCache* const cache_;
  std::vector<Cache::Handle*> handles_;
  std::vector<SstInDir> ssts_;
};

}  // namespace

// ---------------------------------------------------------------------------
// The removal pass

void DBImpl::RemoveObsoleteFiles() {
  mutex_.AssertHeld();
  if (!bg_error_.ok()) {
    // After an error it is unknown whether the last edit committed; keep
    // everything until the next open sorts it out.
    return;
  }
  const uint64_t pass = ++removal_passes_begun_;
  removals_in_flight_.insert(pass);
  uint64_t unlinked = 0;
  uint64_t dirs_removed = 0;
  // Dead values before the meta files naming them: after a crash in
  // between, repair still knows them for dropped values. Those not
  // unlinked yet hold their compaction's inputs (`held_*`).
  RemoveRemovableDeadValues(&unlinked, &dirs_removed);
  // The listings are read without mutex_, before what decides removal is
  // taken under it: a listing can wait for as long as another thread's
  // rmdir in that directory holds the directory (the kernel drops the
  // removed directory's cached entries first, tens of milliseconds for one
  // of thousands of KV files), and writers would wait as long. A name
  // created after the listing is not in it; one listed is removed only if
  // dead in `live` below, and a dead number never becomes live again; one
  // another pass removed meanwhile is skipped by its dirs_being_removed_
  // entry or found gone.
  std::vector<std::string> children;
  std::vector<std::vector<std::string>> level_children(config::kNumLevels);
  // A level directory that does not list may hold dead directories this
  // pass cannot see: then it counts as a dead directory not removed (the
  // older manifests stay, below).
  bool levels_listed = true;
  mutex_.Unlock();
  env_->GetChildren(dbname_, &children);  // errors just leave files behind
  for (int level = 0; level < config::kNumLevels; level++) {
    // Errors leave directories behind.
    if (!fs_->ListDirectory(LevelDirName(dbname_, level),
                            &level_children[level])
             .ok()) {
      levels_listed = false;
    }
  }
  mutex_.Lock();
  if (!bg_error_.ok()) {
    // An edit failed meanwhile: as above, keep everything.
    EndRemovalPass(pass, unlinked, dirs_removed);
    return;
  }
  std::set<uint64_t> held_ssts, held_dirs;
  DeadValueNamers(&held_ssts, &held_dirs);
  LiveNumbers live;
  for (uint64_t number : pending_outputs_) live.Add(number);
  versions_->AddLiveFiles(&live);
  live.Seal();
  // Directories numbered from here on are created after `live` was taken;
  // never touch them.
  const uint64_t fence = versions_->NewFileNumber();
  const uint64_t log_number = versions_->LogNumber();
  const uint64_t prev_log_number = versions_->PrevLogNumber();
  const uint64_t manifest_number = versions_->ManifestFileNumber();

  std::vector<std::string> files_to_delete;
  // Older manifests, removed last (below).
  std::vector<std::string> manifests_to_delete;
  std::vector<std::pair<uint64_t, std::string>> dirs_to_delete;
  bool kept_dead_dir = false;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    bool keep = true;
    switch (type) {
      case kLogFile:
        keep = number >= log_number || number == prev_log_number;
        break;
      case kDescriptorFile:
        // An older manifest is RepairDB's only record that an SST was
        // replaced once the manifest this Open wrote (a snapshot, without
        // history) is current. While a sweep of leftovers is owed (an
        // entry of a replaced SST may still be on disk), the older
        // manifests stay; the first Open whose sweeps all succeed removes
        // them.
        keep = number >= manifest_number || left_for_open_sweep_;
        break;
      case kTempFile:
        keep = live.Contains(number) || number >= fence;
        break;
      default:
        break;
    }
    if (!keep && files_being_removed_.insert(child).second) {
      (type == kDescriptorFile ? manifests_to_delete : files_to_delete)
          .push_back(child);
    }
  }
  for (int level = 0; level < config::kNumLevels; level++) {
    const std::string level_dir = LevelDirName(dbname_, level);
    for (const std::string& d : level_children[level]) {
      uint64_t number;
      if (!ParseSstDirName(d, &number) || number >= fence ||
          live.Contains(number) || held_dirs.count(number) > 0) {
        continue;
      }
      if (number < kept_for_values_sweep_) {
        // It may hold a meta file naming a value the open sweep of homes
        // could not remove (RemoveUnreferencedValues): kept, with the
        // older manifests, for the next open.
        kept_dead_dir = true;
        continue;
      }
      if (dirs_being_removed_.insert(number).second) {
        dirs_to_delete.push_back({number, level_dir + "/" + d});
      }
    }
  }
  std::vector<uint64_t> unused_ssts;
  std::vector<RetiredRemoval> retired =
      TakeRemovableRetiredSsts(live, held_ssts, &unused_ssts);
  std::vector<uint64_t> discarded_homes;
  discarded_homes.swap(discarded_homes_);

  mutex_.Unlock();
  // Out of the cache before their meta files go (RemoveRetiredSsts). No
  // version uses them, and a number is never used again, so nothing looks
  // them up meanwhile.
  for (uint64_t number : unused_ssts) table_cache_->Evict(number);
  bool dead_dir_failed = !levels_listed || kept_dead_dir;
  std::vector<uint64_t> homes_failed;
  RemoveDiscardedHomes(discarded_homes, &homes_failed, &unlinked,
                       &dirs_removed);
  std::vector<RetiredSst> retired_failed =
      RemoveRetiredSsts(retired, &unlinked);
  for (const std::string& f : files_to_delete) RemoveListedFile(f);
  for (const auto& d : dirs_to_delete) {
    // Dead: no version holds its number, and no edit that may commit or
    // may have committed names it. An edit being written holds its outputs
    // in pending_outputs_ until its manifest write returns; one whose write
    // failed is the background error (ApplyEdit), and this pass began
    // without one.
    Log(options_.info_log, "Delete %s\n", d.second.c_str());
    Status s = RemoveSstDirectory(fs_, d.second, &unlinked);
    if (s.ok()) {
      dirs_removed++;
    } else {
      dead_dir_failed = true;
      Log(options_.info_log, "Removing %s: %s\n", d.second.c_str(),
          s.ToString().c_str());
    }
  }
  // A dead directory left at open may hold SSTs a compaction before the
  // crash replaced, which only an older manifest records (the one this
  // Open wrote holds no history); merged again by RepairDB, they would
  // bring back the puts whose tombstones that compaction dropped. So the
  // older manifests go only once every dead directory has gone: after
  // them (a kill in between leaves both), and not at all if one stays or
  // a level directory could not be listed (it may hold one).
  if (!dead_dir_failed) {
    for (const std::string& f : manifests_to_delete) RemoveListedFile(f);
  }
  mutex_.Lock();
  if (dead_dir_failed) left_for_open_sweep_ = true;
  for (const RetiredRemoval& r : retired) {
    if (r.sst.dir_entries != 1) {
      retired_dirs_in_flight_.erase(retired_dirs_in_flight_.find(r.sst.dir));
    }
  }
  RequeueRetiredSsts(std::move(retired_failed));
  discarded_homes_.insert(discarded_homes_.end(), homes_failed.begin(),
                          homes_failed.end());
  for (const std::string& f : files_to_delete) files_being_removed_.erase(f);
  for (const std::string& f : manifests_to_delete) {
    files_being_removed_.erase(f);
  }
  for (const auto& d : dirs_to_delete) dirs_being_removed_.erase(d.first);
  EndRemovalPass(pass, unlinked, dirs_removed);
}

void DBImpl::RemoveListedFile(const std::string& name) {
  const std::string path = dbname_ + "/" + name;
  // The pass's listing was read before it took what decides removal:
  // another pass may have removed the file in between (and let go of its
  // files_being_removed_ entry). This pass's entry keeps every other pass
  // off the name from its decision on, and numbers are never reused, so a
  // file gone now stays gone: found gone, it is not removed a second time.
  if (!env_->FileExists(path)) return;
  Log(options_.info_log, "Delete %s\n", name.c_str());
  env_->RemoveFile(path);  // errors just leave the file for a later pass
}

void DBImpl::EndRemovalPass(uint64_t pass, uint64_t unlinked,
                            uint64_t dirs_removed) {
  mutex_.AssertHeld();
  removals_in_flight_.erase(pass);
  background_cv_.SignalAll();
  dentry_stats_.unlinks += unlinked;
  dentry_stats_.dirs_removed += dirs_removed;
}

void DBImpl::WaitForRemovalPassesInFlight() {
  mutex_.AssertHeld();
  const uint64_t last = removal_passes_begun_;
  while (!removals_in_flight_.empty() && *removals_in_flight_.begin() <= last) {
    background_cv_.Wait();
  }
}

void DBImpl::RemovalThreadEntry(void* db) {
  port::SetCurrentThreadName("delsm-remove");
  port::MarkCurrentThreadBackground();
  reinterpret_cast<DBImpl*>(db)->RemovalThreadMain();
}

// What is still removable at shutdown goes in the close's own pass
// (~DBImpl).
void DBImpl::RemovalThreadMain() {
  MutexLock l(&mutex_);
  while (!shutting_down_.load(std::memory_order_acquire)) {
    if (!removal_wanted_) {
      removal_work_cv_.Wait();
      continue;
    }
    removal_wanted_ = false;
    RemoveObsoleteFiles();
  }
  removal_thread_running_ = false;
  background_cv_.SignalAll();
}

void DBImpl::RemoveObsoleteFilesAfterCompaction(bool now) {
  mutex_.AssertHeld();
  if (now || !removal_thread_running_) {
    RemoveObsoleteFiles();
    return;
  }
  removal_wanted_ = true;
  removal_work_cv_.Signal();
}

// ---------------------------------------------------------------------------
// Retired SSTs

void DBImpl::RetireInputs(Compaction* c) {
  mutex_.AssertHeld();
  for (int which = 0; which < 2; which++) {
    for (const FileMetaData* f : c->inputs(which)) {
      retired_ssts_.push_back(
          {f->number, f->dir, f->smallest.user_key().ToString(),
           f->largest.user_key().ToString(), f->dir_entries});
    }
  }
}

std::vector<DBImpl::RetiredRemoval> DBImpl::TakeRemovableRetiredSsts(
    const LiveNumbers& live, const std::set<uint64_t>& held,
    std::vector<uint64_t>* unused) {
  mutex_.AssertHeld();
  std::vector<RetiredRemoval> result;
  if (retired_ssts_.empty()) return result;
  LiveNumbers live_ssts;
  versions_->AddLiveSsts(&live_ssts);
  live_ssts.Seal();
  std::vector<RetiredSst> still_used;
  for (RetiredSst& r : retired_ssts_) {
    // Its meta file may name a dead value still on disk: it stays until
    // that value has gone (DeadValues in db_impl.h).
    if (live_ssts.Contains(r.number) || held.count(r.number) > 0) {
      still_used.push_back(std::move(r));
      continue;
    }
    unused->push_back(r.number);
    // A dead directory goes whole (RemoveObsoleteFiles).
    if (!live.Contains(r.dir)) continue;
    RetiredRemoval removal;
    // An SST owning no KV file of its directory shares none with them.
    if (r.dir_entries != 1) {
      versions_->LiveSstsInDir(r.dir, r.smallest_user_key, r.largest_user_key,
                               &removal.live_overlapping);
    }
    if (r.dir_entries != 1) retired_dirs_in_flight_.insert(r.dir);
    removal.sst = std::move(r);
    result.push_back(std::move(removal));
  }
  retired_ssts_.swap(still_used);
  return result;
}

bool DBImpl::HoldsRetiredKvFiles(uint64_t dir) {
  mutex_.AssertHeld();
  if (retired_dirs_in_flight_.count(dir) > 0) return true;
  for (const RetiredSst& r : retired_ssts_) {
    // One whose meta file is its only entry there has no KV file to leave.
    if (r.dir == dir && r.dir_entries != 1) return true;
  }
  return false;
}

std::string DBImpl::FindSstDir(uint64_t dir, int* level) {
  for (int l = 0; l < config::kNumLevels; l++) {
    const std::string path = SstDirName(dbname_, l, dir);
    if (fs_->Exists(path)) {
      *level = l;
      return path;
    }
  }
  return std::string();
}

namespace {

// Removals of one retired SST that fail (and are requeued) before it is
// left for the next open's sweep. A failure for want of something another
// removal took (a live SST's meta file gone meanwhile) succeeds on the
// next attempt, which sees the current version; an error that persists
// would otherwise be met at every removal pass.
constexpr int kMaxRetiredRemovalAttempts = 8;

}  // namespace

std::vector<DBImpl::RetiredSst> DBImpl::RemoveRetiredSsts(
    const std::vector<RetiredRemoval>& retired, uint64_t* unlinked) {
  std::vector<RetiredSst> failed;
  for (const RetiredRemoval& r : retired) {
    int level = 0;
    const std::string path = FindSstDir(r.sst.dir, &level);
    if (path.empty()) {
      // Under no level as far as Exists can tell, which answers false when
      // lstat fails (EIO, ENOMEM) too. Only the removal of the whole
      // directory, once no SST in it is live, takes this SST's entries
      // with it, and that is proven by the directory's number alone: dead
      // at the next pass, which then drops this SST
      // (TakeRemovableRetiredSsts; a dead number never becomes live
      // again). Until then it is a failed removal, tried again: dropped
      // here, its meta file and the KV files only it names would outlive
      // a Close that writes the clean-close marker, so the next Open would
      // not sweep them, nor keep the manifest recording it as replaced,
      // and RepairDB would merge it.
      Log(options_.info_log,
          "Removing retired SST #%llu: its directory is under no level\n",
          static_cast<unsigned long long>(r.sst.number));
      failed.push_back(r.sst);
      continue;
    }
    const std::string old_meta = MetaFileName(r.sst.number, r.sst.dir);
    Status s;
    if (r.sst.dir_entries == 1) {
      // Its meta file is its only entry in the directory (dir_entries
      // counts each KV file an SST wrote or linked there, and LONGKEYS):
      // every value it names is inline, in a home, or a tombstone. So no
      // KV file of the directory is its to unlink, and the meta file
      // (named by this SST's number, which no live SST has) is all there
      // is to remove; its index need not be read. A trivial move may
      // rename the directory meanwhile (only a directory holding a retired
      // SST's KV files is kept in place, HoldsRetiredKvFiles): opened
      // movable, one that works by path (past the descriptor budget) looks
      // for it at the other levels, where an unlink's ENOENT at the old
      // path, confirmed by a lookup there, would take the meta file for
      // gone while it lives on in the moved directory.
      std::vector<std::string> moved_to;
      for (int l = 0; l < config::kNumLevels; l++) {
        if (l != level) moved_to.push_back(SstDirName(dbname_, l, r.sst.dir));
      }
      std::unique_ptr<Directory> dir;
      s = fs_->OpenMovableDirectory(path, moved_to, &dir);
      if (s.ok()) {
        s = RemoveMetaOnlySst(dir.get(), old_meta,
                              LongKeysFileName(r.sst.number, r.sst.dir),
                              unlinked);
      }
    } else {
      std::unique_ptr<SstDir> old;
      s = SstDir::OpenWhole(sst_options_, path, old_meta, &old);
      if (s.IsNotFound()) {
        // Its meta file goes last (RemoveRetiredSst): gone, an earlier
        // attempt finished the removal, but only where a lookup of it
        // agrees. A meta file or directory that does not open (ENOENT)
        // while it is there holds the SST still: dropped from the queue,
        // it would outlive a Close that writes the clean-close marker. (A
        // directory renamed by a trivial move meanwhile does not open here
        // and is found at its new level by the next attempt.)
        std::unique_ptr<Directory> dir;
        Status there = fs_->OpenDirectory(path, &dir);
        if (there.ok()) {
          KvFileInfo info;
          there = dir->Stat(old_meta, &info);
          if (there.IsNotFound()) continue;
          s = there.ok()
                  ? Status::IOError(path + "/" + old_meta,
                                    "found, and does not open: " + s.ToString())
                  : there;
        }
      }
      if (s.ok()) {
        PinnedSsts live(table_cache_.get());
        for (const FileMetaData& f : r.live_overlapping) {
          // NotFound: this SST was retired and removed since the removal
          // was taken. The next attempt takes the live SSTs again.
          s = live.Add(level, f.number, f.dir);
          if (!s.ok()) break;
        }
        // Without every live SST that may share its KV files, nothing is
        // unlinked: one of them could be unlinked while still named.
        // An SST without a KV file holds no directory (SstDir::
        // directory()); it is opened by the path the meta file was just
        // found at. A directory's number names it alone and a trivial move
        // never brings it back to a level it left, so the path opens this
        // directory or none (NotFound, and the removal is tried again).
        std::unique_ptr<Directory> opened;
        Directory* dir = old->directory();
        if (s.ok() && dir == nullptr) {
          s = fs_->OpenDirectory(path, &opened);
          dir = opened.get();
        }
        if (s.ok()) {
          s = RemoveRetiredSst(dir,
                               {&old->index(), old_meta,
                                LongKeysFileName(r.sst.number, r.sst.dir)},
                               live.ssts(), unlinked);
        }
      }
    }
    if (!s.ok()) {
      // RemoveRetiredSst stops at an error it cannot classify: nothing
      // more of this SST is unlinked until the next attempt.
      Log(options_.info_log, "Removing retired SST #%llu from %s: %s\n",
          static_cast<unsigned long long>(r.sst.number), path.c_str(),
          s.ToString().c_str());
      failed.push_back(r.sst);
    }
  }
  return failed;
}

void DBImpl::RequeueRetiredSsts(std::vector<RetiredSst> failed) {
  mutex_.AssertHeld();
  for (RetiredSst& r : failed) {
    if (++r.failed_attempts >= kMaxRetiredRemovalAttempts) {
      // Every skipped removal is logged: what it leaves behind stays until
      // the next open's sweep, and a test that finds such entries needs
      // to know why.
      Log(options_.info_log,
          "Removing retired SST #%llu failed %d times: left for the next "
          "open\n",
          static_cast<unsigned long long>(r.number), r.failed_attempts);
      left_for_open_sweep_ = true;
      continue;
    }
    retired_ssts_.push_back(std::move(r));
  }
}

// ---------------------------------------------------------------------------
// The open sweep of SST directories

void DBImpl::RemoveUnownedDirEntries() {
  mutex_.AssertHeld();
  struct DirSsts {
    int level = 0;
    uint64_t expected_entries = 0;
    bool expected_known = true;
    std::vector<const FileMetaData*> ssts;
  };
  std::map<uint64_t, DirSsts> dirs;
  Version* v = versions_->current();
  for (int level = 0; level < config::kNumLevels; level++) {
    for (const FileMetaData* f : v->files(level)) {
      DirSsts& d = dirs[f->dir];
      d.level = level;
      d.expected_entries += f->dir_entries;
      if (f->dir_entries == 0) d.expected_known = false;
      d.ssts.push_back(f);
    }
  }
  uint64_t unlinked = 0;
  for (const auto& entry : dirs) {
    const DirSsts& d = entry.second;
    const std::string path = SstDirName(dbname_, d.level, entry.first);
    std::unique_ptr<Directory> dir;
    Status s = fs_->OpenDirectory(path, &dir);
    std::vector<std::string> names;
    if (s.ok()) s = dir->List(&names);
    if (!s.ok()) {
      left_for_open_sweep_ = true;  // not swept: the next open tries
      continue;                     // its reads report the damage
    }
    // A clean directory holds exactly what its SSTs own.
    if (d.expected_known && names.size() == d.expected_entries) continue;

    PinnedSsts live(table_cache_.get());
    for (const FileMetaData* f : d.ssts) {
      s = live.Add(d.level, f->number, f->dir);
      if (!s.ok()) break;
    }
    // Never sweep a directory one of whose meta files cannot be read: its
    // KV files would look unowned.
    if (s.ok()) {
      s = RemoveUnownedEntries(dir.get(), names, live.ssts(), &unlinked);
    }
    if (!s.ok()) {
      left_for_open_sweep_ = true;
      Log(options_.info_log, "Sweeping %s: %s\n", path.c_str(),
          s.ToString().c_str());
    }
  }
  if (unlinked > 0) {
    Log(options_.info_log, "Open removed %llu unowned directory entries\n",
        static_cast<unsigned long long>(unlinked));
  }
  dentry_stats_.unlinks += unlinked;
}

}  // namespace leveldb
