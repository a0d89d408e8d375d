// Applies a sequence of VersionEdits to a base Version and produces the
// resulting Version, without building every intermediate one. Used by
// VersionSet::Recover (all manifest records at once) and LogAndApply (one
// edit). Requires the DB mutex for its whole life.
#ifndef DELSM_DB_VERSION_BUILDER_H_
#define DELSM_DB_VERSION_BUILDER_H_

#include <cstdint>
#include <set>
#include <vector>

#include "db/dbformat.h"
#include "db/version_edit.h"
#include "leveldb/status.h"

namespace leveldb {

class Version;
class VersionSet;

class VersionSetBuilder {
 public:
  // Pins `base` until destruction.
  VersionSetBuilder(VersionSet* vset, Version* base);
  ~VersionSetBuilder();
  VersionSetBuilder(const VersionSetBuilder&) = delete;
  VersionSetBuilder& operator=(const VersionSetBuilder&) = delete;

  // Accumulates `edit`. Its compaction pointers take effect in the
  // VersionSet at once.
  void Apply(const VersionEdit* edit);

  // Fills the (empty) levels of `v` with base + accumulated edits. Returns
  // Corruption if a level >= 1 would hold overlapping directories; `v` must
  // then be discarded.
  Status SaveTo(Version* v);

 private:
  // Orders directories by smallest key, then number (for a stable order of
  // level-0 directories starting at the same key).
  struct BySmallestKey {
    const InternalKeyComparator* icmp;
    bool operator()(const FileMetaData* a, const FileMetaData* b) const;
  };
  typedef std::set<FileMetaData*, BySmallestKey> DirSet;

  struct LevelChanges {
    std::set<uint64_t> removed;
    DirSet* added;
  };

  VersionSet* const vset_;
  Version* const base_;
  LevelChanges levels_[config::kNumLevels];
};

}  // namespace leveldb

#endif  // DELSM_DB_VERSION_BUILDER_H_
