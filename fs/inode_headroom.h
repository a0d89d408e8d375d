// Inode headroom: how many further values fit in the file system holding a
// database before its free inodes run out, against how many its free space
// holds, at the database's own allocation per inode. Each value stored in
// a KV file takes an inode (hard links add none), so a file system made
// with too few inodes (ext4's default is one per 16 KiB; 4 KiB values take
// one inode per 4 KiB) fills its inode table while space is still free,
// and every write then fails with "out of inodes".
#ifndef DELSM_FS_INODE_HEADROOM_H_
#define DELSM_FS_INODE_HEADROOM_H_

#include <cstdint>
#include <string>

#include "fs/file_system.h"

namespace leveldb {

struct InodeHeadroom {
  // A count that is not a limit: the file system makes inodes from free
  // space and reports no count of its own (btrfs).
  static constexpr uint64_t kUnlimited = UINT64_MAX;

  FileSystemSpace space;
  // The bytes a further value is expected to take: the database's
  // allocated bytes per inode, or one block while it has none measured
  // (`assumed`).
  uint64_t bytes_per_value = 0;
  bool assumed = false;
  uint64_t values_until_inodes = 0;  // the free inodes (or kUnlimited)
  uint64_t values_until_space = 0;   // free bytes / bytes_per_value

  bool inodes_first() const { return values_until_inodes < values_until_space; }
  uint64_t values() const {
    return inodes_first() ? values_until_inodes : values_until_space;
  }
  // "key: value" lines, as the delsm.inode-headroom property gives them:
  //   values: <further values that fit, or "unlimited">
  //   first-limit: inodes | space
  //   values-until-inodes: <n or "unlimited">
  //   values-until-space: <n or "unlimited">
  //   bytes-per-value: <n> [(assumed: one block)]
  //   free-inodes: <n> / free-bytes: <n>
  //   inodes: fixed | dynamic   (the file system's type follows)
  std::string ToString() const;
};

// The headroom of a file system with `space` for a database whose files
// allocate `db_bytes` over `db_inodes` inodes (0, 0: none measured yet).
InodeHeadroom ProjectInodeHeadroom(const FileSystemSpace& space,
                                   uint64_t db_bytes, uint64_t db_inodes);

// Whether the LOG should warn: inodes run out before space, at a measured
// size (never while `assumed`: the values may all be inline). `warned` is the
// caller's state, so that one warning is given when inodes become the
// first limit (at Open, or when a flush crosses over) and not at every
// later flush; it is cleared once space is clearly the first limit again
// (the inodes outlast the space by a quarter), so a headroom that hovers
// at the crossing does not warn at every flush.
bool InodeHeadroomWarns(const InodeHeadroom& headroom, bool* warned);

// The warning's text (one LOG line, without the newline).
std::string InodeHeadroomWarning(const InodeHeadroom& headroom);

}  // namespace leveldb

#endif  // DELSM_FS_INODE_HEADROOM_H_
