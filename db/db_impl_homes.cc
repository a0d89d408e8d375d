// Values that stay put (Tuning::values_stay_put, docs/DESIGN.md section 5):
// the death of values in home directories. A compaction that drops an
// entry whose value is in a home hands the file to BuryDeadValues once its
// edit is committed; the file is unlinked when no version from before that
// commit is alive, and its home is removed when it empties. After a crash
// the open sweep (RemoveUnreferencedValues) removes whatever no live entry
// names.
#include <map>
#include <set>

#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/sst_dir_removal.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "fs/file_system.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "table/sst_dir.h"

namespace leveldb {

void DBImpl::BuryDeadValues(const std::vector<HomeValue>& values) {
  mutex_.AssertHeld();
  if (values.empty()) return;
  dead_values_.push_back({versions_->CurrentVersionNumber(), values});
}

std::vector<HomeValue> DBImpl::TakeRemovableDeadValues() {
  mutex_.AssertHeld();
  std::vector<HomeValue> result;
  const uint64_t oldest = versions_->OldestLiveVersion();
  // A version older than the compaction's may hold the dropped entry (in
  // the compaction's input, or in an SST it came from); none newer can.
  while (!dead_values_.empty() && dead_values_.front().version <= oldest) {
    for (HomeValue& v : dead_values_.front().values) {
      result.push_back(std::move(v));
    }
    dead_values_.pop_front();
  }
  return result;
}

void DBImpl::RemoveDeadValues(const std::vector<HomeValue>& values,
                              uint64_t* unlinked, uint64_t* dirs_removed) {
  std::map<uint64_t, std::vector<const std::string*>> by_home;
  for (const HomeValue& v : values) by_home[v.home].push_back(&v.name);
  for (const auto& home : by_home) {
    std::shared_ptr<Directory> dir;
    Status s = homes_->Get(home.first, &dir);
    for (size_t i = 0; s.ok() && i < home.second.size(); i++) {
      s = dir->Unlink(*home.second[i]);
      if (s.ok()) {
        (*unlinked)++;
      } else if (s.IsNotFound()) {
        s = Status::OK();  // an earlier attempt got it
      }
    }
    if (!s.ok()) {
      // What is left is found by the next open's sweep.
      Log(options_.info_log, "Removing dead values of home %s: %s\n",
          homes_->PathOf(home.first).c_str(), s.ToString().c_str());
      continue;
    }
    // The home goes with its last value; while a live entry names a file
    // in it, rmdir fails (not empty) and it stays.
    dir.reset();
    if (fs_->RemoveDir(homes_->PathOf(home.first)).ok()) {
      homes_->Forget(home.first);
      (*dirs_removed)++;
    }
  }
}

// Calls fn(entry) for every entry of a home kind in the live SSTs, through
// the table cache. Fails if a meta file cannot be read.
template <typename Fn>
static Status ForEachHomeEntry(Version* v, TableCache* cache, Fn fn) {
  for (int level = 0; level < config::kNumLevels; level++) {
    for (const FileMetaData* f : v->files(level)) {
      Cache::Handle* h = nullptr;
      Status s = cache->Find(level, f->number, f->dir, &h);
      if (!s.ok()) return s;
      for (const MetaEntry& e : cache->Value(h)->contents().entries) {
        if (StoredInHome(e.storage)) fn(e);
      }
      cache->Release(h);
    }
  }
  return Status::OK();
}

void DBImpl::RemoveUnreferencedValues() {
  mutex_.AssertHeld();
  const std::string& root = homes_->root();
  if (!fs_->Exists(root)) return;
  std::vector<std::string> homes;
  Status s = fs_->ListDirectory(root, &homes);
  if (!s.ok() || homes.empty()) {
    if (!s.ok()) {
      Log(options_.info_log, "Sweeping %s: %s\n", root.c_str(),
          s.ToString().c_str());
    }
    return;
  }
  // How many files live entries name in each home. A meta file that cannot
  // be read could name any of them: then nothing is swept (its reads report
  // the damage).
  Version* v = versions_->current();
  std::map<uint64_t, uint64_t> named_count;
  s = ForEachHomeEntry(v, table_cache_.get(),
                       [&](const MetaEntry& e) { named_count[e.home]++; });
  if (!s.ok()) {
    Log(options_.info_log, "Not sweeping %s: %s\n", root.c_str(),
        s.ToString().c_str());
    return;
  }
  // A home holding as many files as live entries name holds exactly those
  // (one file per entry; only damage, a named file missing, could hide an
  // extra one, as in an SST directory's sweep); others are compared name by
  // name.
  uint64_t unlinked = 0, dirs_removed = 0;
  std::map<uint64_t, std::vector<std::string>> unclean;  // home -> listing
  for (const std::string& name : homes) {
    uint64_t home;
    if (!ParseHomeDirName(name, &home)) continue;  // not ours: left alone
    const std::string path = root + "/" + name;
    auto it = named_count.find(home);
    if (it == named_count.end()) {
      s = RemoveSstDirectory(fs_, path, &unlinked);
      if (s.ok()) dirs_removed++;
    } else {
      std::vector<std::string> files;
      s = fs_->ListDirectory(path, &files);
      if (s.ok() && files.size() != it->second) {
        unclean[home] = std::move(files);
      }
    }
    if (!s.ok()) {
      Log(options_.info_log, "Sweeping %s: %s\n", path.c_str(),
          s.ToString().c_str());
    }
  }
  if (!unclean.empty()) {
    std::map<uint64_t, std::set<std::string>> named;
    s = ForEachHomeEntry(v, table_cache_.get(), [&](const MetaEntry& e) {
      if (unclean.count(e.home) == 0) return;
      const Slice ikey(e.internal_key);
      named[e.home].insert(KvStoredFileName(ExtractUserKey(ikey),
                                            ExtractTag(ikey) >> 8,
                                            StoredCompressed(e.storage)));
    });
    for (auto it = unclean.begin(); s.ok() && it != unclean.end(); ++it) {
      const std::string path = homes_->PathOf(it->first);
      std::unique_ptr<Directory> dir;
      Status d = fs_->OpenDirectory(path, &dir);
      for (size_t i = 0; d.ok() && i < it->second.size(); i++) {
        if (named[it->first].count(it->second[i]) > 0) continue;
        d = dir->Unlink(it->second[i]);
        if (d.ok()) unlinked++;
        if (d.IsNotFound()) d = Status::OK();
      }
      if (!d.ok()) {
        Log(options_.info_log, "Sweeping %s: %s\n", path.c_str(),
            d.ToString().c_str());
      }
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
}

}  // namespace leveldb
