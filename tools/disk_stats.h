// `delsm stats`: what a database holds on disk, level by level, as the file
// system reports it (lstat of every entry; statvfs of the file system).
#ifndef DELSM_TOOLS_DISK_STATS_H_
#define DELSM_TOOLS_DISK_STATS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "fs/inode_headroom.h"
#include "leveldb/status.h"
#include "tools/db_view.h"

namespace delsm_tool {

struct AreaStats {
  std::string name;       // "L0".."L6", "other" (files beside the levels)
  uint64_t sst_dirs = 0;  // NNNNNN.sst directories in the level directory
  uint64_t ssts = 0;      // live SSTs (meta files the manifest names)
  uint64_t entries = 0;   // entries of those SSTs' meta files
  uint64_t tombstones = 0;
  uint64_t inline_values = 0;
  uint64_t kv_files = 0;  // entries whose value is a KV file
  // Every inode under the area (the level directory itself included),
  // each counted once however many names it has there:
  uint64_t apparent_bytes = 0;   // st_size summed
  uint64_t allocated_bytes = 0;  // st_blocks * 512 summed
  uint64_t inodes = 0;
  uint64_t extra_link_files = 0;  // regular files with st_nlink > 1
};

struct DiskStats {
  std::vector<AreaStats> areas;  // L0..L6 (present ones), then "other"
  AreaStats total;               // sums over the areas
  // statvfs of the file system holding the database.
  uint64_t fs_total_bytes = 0, fs_free_bytes = 0;    // f_blocks, f_bavail
  uint64_t fs_total_inodes = 0, fs_free_inodes = 0;  // f_files, f_favail
  uint64_t wal_files = 0;  // WALs the next Open would replay
  // Further values the file system holds before its inodes or its space
  // run out, at the database's allocated bytes per inode (the total's).
  leveldb::InodeHeadroom headroom;
};

// Walks the database `view` shows. Entries, tombstones and inline values
// come from the live SSTs' meta files; every other figure from lstat.
// Errors: the first system call that fails, naming its path; a damaged meta
// file as Corruption (`delsm verify` says more).
leveldb::Status CollectDiskStats(leveldb::DbView* view, bool progress,
                                 DiskStats* stats);

void PrintDiskStats(const std::string& dbname, const DiskStats& stats,
                    bool json);

}  // namespace delsm_tool

#endif  // DELSM_TOOLS_DISK_STATS_H_
