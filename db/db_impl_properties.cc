// DB::GetProperty: LevelDB's properties plus DeLSM's "delsm.*" counters.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl.h"
#include "db/filename.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "fs/file_system.h"
#include "fs/inode_headroom.h"
#include "fs/mem_file_system.h"
#include "fs/posix_file_system.h"
#include "util/mutexlock.h"

namespace leveldb {

namespace {
bool ConsumeLevel(Slice* in, int* level) {
  if (in->empty()) return false;
  uint64_t v = 0;
  while (!in->empty() && (*in)[0] >= '0' && (*in)[0] <= '9') {
    v = v * 10 + ((*in)[0] - '0');
    in->remove_prefix(1);
    if (v >= static_cast<uint64_t>(config::kNumLevels)) return false;
  }
  *level = static_cast<int>(v);
  return in->empty();
}

// What lies below the directory `path` of `fs`, walked through `fs` itself:
// allocated bytes and inodes, each inode once however many links the walk
// meets. For a FileSystem that is not the disk (a memory Env's), where
// DiskUsageBelow would read whatever the disk holds at that path.
Status UsageBelow(FileSystem* fs, const std::string& path,
                  std::set<uint64_t>* seen, uint64_t* allocated,
                  uint64_t* inodes) {
  std::unique_ptr<Directory> dir;
  Status s = fs->OpenDirectory(path, &dir);
  std::vector<std::string> names;
  if (s.ok()) s = dir->List(&names);
  for (size_t i = 0; s.ok() && i < names.size(); i++) {
    KvFileInfo info;
    s = dir->Stat(names[i], &info);
    if (s.IsNotFound()) {  // gone since the listing
      s = Status::OK();
      continue;
    }
    if (!s.ok() || !seen->insert(info.inode).second) continue;
    *allocated += info.blocks_512 * 512;
    *inodes += 1;
    const std::string child = path + "/" + names[i];
    std::unique_ptr<Directory> sub;
    if (fs->OpenDirectory(child, &sub).ok()) {
      sub.reset();
      s = UsageBelow(fs, child, seen, allocated, inodes);
    }
  }
  return s;
}
}  // namespace

bool DBImpl::FileSystemIsTheDisk() const {
  return FileSystemForEnv(env_) == FileSystem::Default();
}

std::string DBImpl::StatsString() {
  mutex_.AssertHeld();
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "                               Compactions\n"
                "Level  Dirs  Entries   Value(MB) Time(sec) Read(ent) "
                "Written(ent)  Links\n"
                "------------------------------------------------------------"
                "----------------\n");
  out.append(buf);
  for (int level = 0; level < config::kNumLevels; level++) {
    const int dirs = versions_->NumLevelFiles(level);
    if (dirs == 0 && stats_[level].micros == 0) continue;
    std::snprintf(buf, sizeof(buf),
                  "%3d %6d %10" PRIu64 " %10.1f %9.2f %10" PRIu64 " %12" PRIu64
                  " %8" PRIu64 "\n",
                  level, dirs, versions_->NumLevelEntries(level),
                  versions_->NumLevelBytes(level) / 1048576.0,
                  stats_[level].micros / 1e6, stats_[level].entries_read,
                  stats_[level].entries_written, stats_[level].links);
    out.append(buf);
  }
  const DentryStats& d = dentry_stats_;
  std::snprintf(buf, sizeof(buf),
                "Dentry work: flushes %" PRIu64 ", compactions %" PRIu64
                ", renames %" PRIu64 ", meta file moves %" PRIu64
                ", KV files created %" PRIu64 ", links %" PRIu64
                ", unlinks %" PRIu64 ", directories removed %" PRIu64 "\n",
                d.flushes, d.compactions, d.trivial_moves, d.meta_file_moves,
                d.kv_files_created, d.links, d.unlinks, d.dirs_removed);
  out.append(buf);
  std::snprintf(buf, sizeof(buf),
                "Bytes written by flushes: %.1f MB; durability syncs: %" PRIu64
                "; most flushes built at once: %" PRIu64 "\n",
                d.bytes_written / 1048576.0, d.durability_syncs,
                d.max_parallel_flushes);
  out.append(buf);
  return out;
}

Status DBImpl::ProjectHeadroom(InodeHeadroom* headroom) {
  mutex_.AssertHeld();
  // What the live SSTs allocate (KV files in whole blocks, meta files) over
  // their directory entries, each an inode; SSTs of a manifest that did not
  // record these are left out.
  uint64_t bytes = 0, inodes = 0;
  Version* v = versions_->current();
  for (int level = 0; level < config::kNumLevels; level++) {
    for (const FileMetaData* f : v->files(level)) {
      if (f->disk_bytes == 0 || f->dir_entries == 0) continue;
      bytes += f->disk_bytes;
      inodes += f->dir_entries;
    }
  }
  // statfs under mutex_: it reads counters the kernel keeps (no I/O), and
  // a flush's warning is then in the LOG before anyone sees the flush end.
  FileSystemSpace space;
  Status s = fs_->GetSpace(dbname_, &space);
  if (s.ok()) *headroom = ProjectInodeHeadroom(space, bytes, inodes);
  return s;
}

void DBImpl::CheckInodeHeadroom() {
  mutex_.AssertHeld();
  InodeHeadroom headroom;
  // A file system that cannot say (a memory one) has nothing to warn of.
  if (!ProjectHeadroom(&headroom).ok()) return;
  if (InodeHeadroomWarns(headroom, &inode_headroom_warned_)) {
    Log(options_.info_log, "%s\n", InodeHeadroomWarning(headroom).c_str());
  }
}

bool DBImpl::GetProperty(const Slice& property, std::string* value) {
  value->clear();
  Slice in = property;
  {
    // Space on disk: a walk of the level directory (a stat per entry), done
    // without mutex_; a compaction running meanwhile may be seen half done.
    const Slice bytes_at("delsm.allocated-bytes-at-level");
    const Slice inodes_at("delsm.inodes-at-level");
    const bool bytes = in.starts_with(bytes_at);
    if (bytes || in.starts_with(inodes_at)) {
      in.remove_prefix(bytes ? bytes_at.size() : inodes_at.size());
      int level;
      if (!ConsumeLevel(&in, &level)) return false;
      const std::string dir = LevelDirName(dbname_, level);
      uint64_t allocated = 0, inodes = 0;
      if (fs_->Exists(dir)) {
        // The level directory itself is not part of the level's data
        // (neither its inode nor its blocks).
        std::set<uint64_t> seen;
        Status s = FileSystemIsTheDisk()
                       ? DiskUsageBelow(dir, &seen, &allocated, &inodes)
                       : UsageBelow(fs_, dir, &seen, &allocated, &inodes);
        if (!s.ok() && !s.IsNotFound()) return false;
      }
      *value = std::to_string(bytes ? allocated : inodes);
      return true;
    }
  }
  MutexLock l(&mutex_);
  const Slice leveldb_prefix("leveldb.");
  const Slice delsm_prefix("delsm.");
  char buf[128];
  if (in.starts_with(leveldb_prefix)) {
    in.remove_prefix(leveldb_prefix.size());
    const Slice files_at("num-files-at-level");
    if (in.starts_with(files_at)) {
      in.remove_prefix(files_at.size());
      int level;
      if (!ConsumeLevel(&in, &level)) return false;
      std::snprintf(buf, sizeof(buf), "%d", versions_->NumLevelFiles(level));
      *value = buf;
      return true;
    }
    if (in == Slice("stats")) {
      *value = StatsString();
      return true;
    }
    if (in == Slice("sstables")) {
      *value = versions_->current()->DebugString();
      return true;
    }
    if (in == Slice("approximate-memory-usage")) {
      // As LevelDB: memtables and the block (here: value) cache; plus the
      // table cache's resident indexes and filters, and the filters it
      // keeps of SSTs it closed.
      size_t total = mem_->ApproximateMemoryUsage();
      for (const Immutable& imm : imms_) {
        total += imm.mem->ApproximateMemoryUsage();
      }
      total += value_cache_->TotalCharge();
      total += table_cache_->MemoryUsage();
      total += table_cache_->FilterMemoryUsage();
      std::snprintf(buf, sizeof(buf), "%zu", total);
      *value = buf;
      return true;
    }
    return false;
  }
  if (in.starts_with(delsm_prefix)) {
    in.remove_prefix(delsm_prefix.size());
    const Slice entries_at("num-entries-at-level");
    const Slice meta_bytes_at("meta-bytes-at-level");
    const bool entries = in.starts_with(entries_at);
    if (entries || in.starts_with(meta_bytes_at)) {
      in.remove_prefix(entries ? entries_at.size() : meta_bytes_at.size());
      int level;
      if (!ConsumeLevel(&in, &level)) return false;
      std::snprintf(buf, sizeof(buf), "%" PRIu64,
                    entries ? versions_->NumLevelEntries(level)
                            : versions_->NumLevelMetaBytes(level));
      *value = buf;
      return true;
    }
    const DentryStats& d = dentry_stats_;
    const struct {
      const char* name;
      uint64_t v;
    } counters[] = {
        {"flushes", d.flushes},
        {"compactions", d.compactions},
        {"renames", d.trivial_moves},
        {"meta-file-moves", d.meta_file_moves},
        {"kv-files-created", d.kv_files_created},
        {"links", d.links},
        {"unlinks", d.unlinks},
        {"dirs-removed", d.dirs_removed},
        {"flush-bytes-written", d.bytes_written},
        {"durability-syncs", d.durability_syncs},
        {"max-parallel-flushes", d.max_parallel_flushes},
        {"immutable-memtables", static_cast<uint64_t>(imms_.size())},
        {"table-cache-memory",
         static_cast<uint64_t>(table_cache_->MemoryUsage())},
        {"value-cache-memory",
         static_cast<uint64_t>(value_cache_->TotalCharge())},
        {"filter-cache-memory",
         static_cast<uint64_t>(table_cache_->FilterMemoryUsage())},
    };
    for (const auto& c : counters) {
      if (in == Slice(c.name)) {
        std::snprintf(buf, sizeof(buf), "%" PRIu64, c.v);
        *value = buf;
        return true;
      }
    }
    if (in == Slice("inodes")) {
      // SST directories and their files, the level directories and the
      // DB directory's own files (WALs, manifest, LOG, ...).
      uint64_t inodes = config::kNumLevels + 1;  // + the DB directory
      for (int level = 0; level < config::kNumLevels; level++) {
        inodes += versions_->current()->LevelInodes(level);
      }
      std::vector<std::string> children;
      if (env_->GetChildren(dbname_, &children).ok()) {
        for (const std::string& child : children) {
          uint64_t number;
          FileType type;
          if (ParseFileName(child, &number, &type) && type != kLevelDir) {
            inodes++;
          }
        }
      }
      // Values that stay put: their homes and files, found by listing
      // (no level holds them).
      std::vector<std::string> homes;
      if (fs_->Exists(homes_->root()) &&
          fs_->ListDirectory(homes_->root(), &homes).ok()) {
        inodes += 1 + homes.size();
        for (const std::string& home : homes) {
          std::vector<std::string> files;
          if (fs_->ListDirectory(homes_->root() + "/" + home, &files).ok()) {
            inodes += files.size();
          }
        }
      }
      std::snprintf(buf, sizeof(buf), "%" PRIu64, inodes);
      *value = buf;
      return true;
    }
    if (in == Slice("inode-headroom")) {
      InodeHeadroom headroom;
      if (!ProjectHeadroom(&headroom).ok()) return false;
      *value = headroom.ToString();
      return true;
    }
    if (in == Slice("fs-free-inodes")) {
      // A memory database has no file system to ask; the disk at its path
      // is not its own.
      if (!FileSystemIsTheDisk()) return false;
      FileSystemSpace space;
      if (!GetFileSystemSpace(dbname_, &space).ok()) return false;
      std::snprintf(buf, sizeof(buf), "%" PRIu64, space.free_inodes);
      *value = buf;
      return true;
    }
    if (in == Slice("stats")) {
      for (const auto& c : counters) {
        std::snprintf(buf, sizeof(buf), "%s: %" PRIu64 "\n", c.name, c.v);
        value->append(buf);
      }
      return true;
    }
  }
  return false;
}

}  // namespace leveldb
