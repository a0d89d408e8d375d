#include "fs/inode_headroom.h"

#include <cinttypes>
#include <cstdio>

namespace leveldb {

namespace {

std::string Count(uint64_t n) {
  return n == InodeHeadroom::kUnlimited ? "unlimited" : std::to_string(n);
}

}  // namespace

InodeHeadroom ProjectInodeHeadroom(const FileSystemSpace& space,
                                   uint64_t db_bytes, uint64_t db_inodes) {
  InodeHeadroom h;
  h.space = space;
  if (db_inodes > 0) {
    h.bytes_per_value = (db_bytes + db_inodes - 1) / db_inodes;
  } else {
    h.bytes_per_value = space.block_size > 0 ? space.block_size : 4096;
    h.assumed = true;
  }
  // Values that allocate no block (an ext4 with inline_data) are bounded
  // by the inodes alone.
  h.values_until_space = h.bytes_per_value == 0
                             ? InodeHeadroom::kUnlimited
                             : space.free_bytes / h.bytes_per_value;
  // A file system that reports no inode count (btrfs: f_files 0) makes
  // its inodes from free space: space is the only limit. XFS reports a
  // count that already stops at what its free space could hold.
  h.values_until_inodes = space.total_inodes == 0 && space.dynamic_inodes
                              ? InodeHeadroom::kUnlimited
                              : space.free_inodes;
  return h;
}

std::string InodeHeadroom::ToString() const {
  std::string r;
  r += "values: " + Count(values()) + "\n";
  r += std::string("first-limit: ") + (inodes_first() ? "inodes" : "space") +
       "\n";
  r += "values-until-inodes: " + Count(values_until_inodes) + "\n";
  r += "values-until-space: " + Count(values_until_space) + "\n";
  r += "bytes-per-value: " + std::to_string(bytes_per_value) +
       (assumed ? " (assumed: one block; no values in files yet)" : "") + "\n";
  r += "free-inodes: " + std::to_string(space.free_inodes) + "\n";
  r += "free-bytes: " + std::to_string(space.free_bytes) + "\n";
  r += std::string("inodes: ") + (space.dynamic_inodes ? "dynamic" : "fixed") +
       " (" + space.type + ")\n";
  return r;
}

bool InodeHeadroomWarns(const InodeHeadroom& h, bool* warned) {
  // Nothing measured yet: whether values go in files at all (or inline,
  // taking no inode) is not known.
  if (h.assumed) return false;
  if (h.inodes_first()) {
    if (*warned) return false;
    *warned = true;
    return true;
  }
  // Clear only once the inodes clearly outlast the space.
  const uint64_t space = h.values_until_space;
  if (h.values_until_inodes == InodeHeadroom::kUnlimited ||
      h.values_until_inodes - space > space / 4) {
    *warned = false;
  }
  return false;
}

std::string InodeHeadroomWarning(const InodeHeadroom& h) {
  char buf[512];
  std::snprintf(
      buf, sizeof(buf),
      "Inode headroom: the file system (%s) runs out of inodes before space: "
      "%" PRIu64 " free inodes hold %" PRIu64
      " more values in files, its "
      "%" PRIu64 " free bytes %" PRIu64 " at %" PRIu64
      " bytes a value%s. "
      "Then writes fail (out of inodes). Values at or below "
      "inline_threshold take no inode; an ext4 made with mkfs.ext4 -i "
      "(bytes per inode) near the value size, or XFS, has the inodes",
      h.space.type.c_str(), h.space.free_inodes, h.values_until_inodes,
      h.space.free_bytes, h.values_until_space, h.bytes_per_value,
      h.assumed ? " (assumed)" : "");
  return buf;
}

}  // namespace leveldb
