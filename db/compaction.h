// A Compaction describes one major compaction chosen by the VersionSet: the
// input directories at level() ("inputs 0") and at level()+1 ("inputs 1")
// that the compaction executor merges into new level()+1 directories.
// It pins the version the inputs were chosen from until ReleaseInputs.
//
// The picking logic itself (VersionSet::PickCompaction, CompactRange and
// SetupOtherInputs) lives in compaction_picker.cc.
#ifndef DELSM_DB_COMPACTION_H_
#define DELSM_DB_COMPACTION_H_

#include <cstdint>
#include <vector>

#include "db/dbformat.h"
#include "db/version_edit.h"
#include "delsm/delsm.h"

namespace leveldb {

class Version;
class VersionSet;

class Compaction {
 public:
  // Requires the DB mutex unless ReleaseInputs was called.
  ~Compaction();
  Compaction(const Compaction&) = delete;
  Compaction& operator=(const Compaction&) = delete;

  // The level being compacted; outputs go to level() + 1.
  int level() const { return level_; }

  // The edit this compaction will log. Already holds the new compaction
  // pointer of level(); the executor adds input deletions and outputs.
  VersionEdit* edit() { return &edit_; }

  // which: 0 = inputs at level(), 1 = inputs at level()+1.
  int num_input_files(int which) const {
    return static_cast<int>(inputs_[which].size());
  }
  FileMetaData* input(int which, int i) const { return inputs_[which][i]; }
  const std::vector<FileMetaData*>& inputs(int which) const {
    return inputs_[which];
  }
  // Total entries over both input sets.
  uint64_t InputEntries() const;

  // Entries per output directory (Tuning::sst_entries).
  uint64_t MaxOutputEntries() const { return max_output_entries_; }

  // True if the compaction can be done by renaming the single input's
  // directory into level()+1: nothing there overlaps it, no other SST lives
  // in its directory, and it does not overlap so much of level()+2 that a
  // later compaction would pay for it.
  bool IsTrivialMove() const;

  // True if, instead, the single input can move into level()+1 as a second
  // name of its meta file in a new directory there (DBImpl::LinkMove): the
  // same conditions but that another SST of level() lives in its
  // directory, and the input owns no entry of that directory but its meta
  // file (FileMetaData::dir_entries is 1: no KV file there, no LONGKEYS).
  // Whether its entries name KV files in homes only the meta file tells
  // (SstDir::HasKvFiles); the executor checks that before it links.
  bool IsMetaFileMove() const;

  // Adds the removal of every input directory to *edit.
  void AddInputDeletions(VersionEdit* edit);

  // True if no level deeper than level()+1 can hold `user_key`, so a
  // tombstone for it may be dropped. Successive calls must pass user keys in
  // ascending order (the executor's merge order).
  bool IsBaseLevelForKey(const Slice& user_key);

  // Unpins the input version. Call once the compaction's edit is applied
  // (or abandoned).
  void ReleaseInputs();

  Version* input_version() const { return input_version_; }

 private:
  friend class VersionSet;

  Compaction(const delsm::Tuning& tuning, int level);

  // One input SST, nothing overlapping at level()+1, and not too much at
  // level()+2: it may move down whole.
  bool SingleInputMovable() const;
  // Whether another SST of level() lives in the single input's directory.
  bool InputSharesDirectory() const;

  const int level_;
  const uint64_t max_output_entries_;
  // IsTrivialMove refuses when the input overlaps more entries than this at
  // level()+2.
  const uint64_t max_grandparent_overlap_entries_;
  // Tuning::max_dir_entries: a directory holding more is not moved whole.
  const uint64_t max_dir_entries_;
  Version* input_version_;
  VersionEdit edit_;
  std::vector<FileMetaData*> inputs_[2];
  // Directories at level()+2 overlapping the compaction's key range.
  std::vector<FileMetaData*> grandparents_;
  // For IsBaseLevelForKey: per level, the index of the first directory whose
  // range may still contain the next key asked about.
  size_t level_ptrs_[config::kNumLevels];
};

// The entries of `files`, added up (what bounds a compaction's size).
uint64_t TotalEntries(const std::vector<FileMetaData*>& files);

}  // namespace leveldb

#endif  // DELSM_DB_COMPACTION_H_
