// Removal of the entries of retired SSTs. A compaction replaces the SSTs of
// the output level it merges into with new meta files in the same
// directories, and moves the upper level's entries out of theirs; the
// directories live on. Once no version uses a replaced SST, every KV file
// it names that no live SST of its directory names is unlinked, and its
// meta file removed. An SST's directory number and key range are enough to
// find the live SSTs that may share its KV files (same directory,
// overlapping keys).
#include <map>

#include "db/compaction.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "db/sst_dir_removal.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "fs/file_system.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"

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
    Status s = cache_->Find(level, number, dir, &h);
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

void DBImpl::RetireInputs(Compaction* c) {
  mutex_.AssertHeld();
  for (int which = 0; which < 2; which++) {
    for (const FileMetaData* f : c->inputs(which)) {
      retired_ssts_.push_back({f->number, f->dir,
                               f->smallest.user_key().ToString(),
                               f->largest.user_key().ToString()});
    }
  }
}

std::vector<DBImpl::RetiredRemoval> DBImpl::TakeRemovableRetiredSsts(
    const std::set<uint64_t>& live, const std::set<uint64_t>& held) {
  mutex_.AssertHeld();
  std::vector<RetiredRemoval> result;
  if (retired_ssts_.empty()) return result;
  std::set<uint64_t> live_ssts;
  versions_->AddLiveSsts(&live_ssts);
  std::vector<RetiredSst> still_used;
  for (RetiredSst& r : retired_ssts_) {
    // Its meta file may name a dead value still on disk: it stays until
    // that value has gone (DeadValues in db_impl.h).
    if (live_ssts.count(r.number) > 0 || held.count(r.number) > 0) {
      still_used.push_back(std::move(r));
      continue;
    }
    table_cache_->Evict(r.number);
    // A dead directory goes whole (RemoveObsoleteFiles).
    if (live.count(r.dir) == 0) continue;
    RetiredRemoval removal;
    versions_->LiveSstsInDir(r.dir, r.smallest_user_key, r.largest_user_key,
                             &removal.live_overlapping);
    removal.sst = std::move(r);
    result.push_back(std::move(removal));
  }
  retired_ssts_.swap(still_used);
  return result;
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
      // Not under any level: the directory went whole (it held no live
      // SST any more), and this SST's entries with it.
      continue;
    }
    std::unique_ptr<SstDir> old;
    const std::string old_meta = MetaFileName(r.sst.number, r.sst.dir);
    Status s = SstDir::Open(sst_options_, path, old_meta, &old);
    if (s.IsNotFound() && fs_->Exists(path)) {
      // Its meta file goes last (RemoveRetiredSst): an earlier attempt
      // finished the removal. (A directory renamed by a trivial move
      // meanwhile is found at its new level by the next attempt.)
      continue;
    }
    if (s.ok()) {
      PinnedSsts live(table_cache_.get());
      for (const FileMetaData& f : r.live_overlapping) {
        // NotFound: this SST was retired and removed since the removal was
        // taken. The next attempt takes the live SSTs again.
        s = live.Add(level, f.number, f.dir);
        if (!s.ok()) break;
      }
      // Without every live SST that may share its KV files, nothing is
      // unlinked: one of them could be unlinked while still named.
      if (s.ok()) {
        s = RemoveRetiredSst(old->directory(),
                             {&old->index(), old_meta,
                              LongKeysFileName(r.sst.number, r.sst.dir)},
                             live.ssts(), unlinked);
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
      continue;                     // reads of this directory report the damage
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
