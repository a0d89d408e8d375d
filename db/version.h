// A Version is one immutable snapshot of which SST directories make up each
// level. Readers pin a version (Ref) and use it without the DB mutex; the
// VersionSet installs a new version on every manifest edit.
//
// Level 0 directories come from memtable flushes and may overlap each other;
// a lookup visits the ones covering the key newest (highest number) first.
// Directories at levels >= 1 hold disjoint key ranges and are kept sorted by
// smallest key, so one binary search finds the only candidate in a level.
#ifndef DELSM_DB_VERSION_H_
#define DELSM_DB_VERSION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/version_edit.h"
#include "leveldb/iterator.h"
#include "leveldb/options.h"
#include "leveldb/status.h"

namespace leveldb {

class Compaction;
class VersionSet;
class VersionSetBuilder;

// Index of the first directory in `files` whose largest key is >= `key`
// (an internal key), or files.size() if there is none. `files` must be
// sorted by key and disjoint (a level >= 1).
int FindFile(const InternalKeyComparator& icmp,
             const std::vector<FileMetaData*>& files, const Slice& key);

// True if some directory in `files` holds a user key within
// [*smallest_user_key, *largest_user_key]. A null bound means unbounded on
// that side. `disjoint_sorted_files` is true for levels >= 1, which allows a
// binary search; level 0 is scanned.
bool SomeFileOverlapsRange(const InternalKeyComparator& icmp,
                           bool disjoint_sorted_files,
                           const std::vector<FileMetaData*>& files,
                           const Slice* smallest_user_key,
                           const Slice* largest_user_key);

class Version {
 public:
  // Filled in by Get: the directory that a lookup probed in vain before
  // finding its answer elsewhere (a candidate for a seek compaction).
  struct GetStats {
    FileMetaData* seek_file = nullptr;
    int seek_file_level = -1;
  };

  Version(const Version&) = delete;
  Version& operator=(const Version&) = delete;

  // Appends to *iters one iterator per level-0 directory and one
  // concatenating iterator per non-empty deeper level; merged, they yield
  // every entry of this version in internal-key order. The version must
  // stay referenced while the iterators live.
  void AddIterators(const ReadOptions& options, std::vector<Iterator*>* iters);

  // Looks up `key`. OK with *val set if the newest visible entry is a
  // value; NotFound if it is a deletion or there is no entry; otherwise the
  // error of the directory read. Needs no lock; the version must be pinned.
  Status Get(const ReadOptions& options, const LookupKey& key, std::string* val,
             GetStats* stats);

  // Charges a fruitless probe to stats.seek_file. True when that directory
  // has used up its allowed seeks and a compaction should be scheduled.
  // Requires the DB mutex.
  bool UpdateStats(const GetStats& stats);

  // Called by iterators with a sampled internal key: if two or more
  // directories hold its user key, charges a seek to the first of them.
  // True if a compaction should be scheduled. Requires the DB mutex.
  bool RecordReadSample(const Slice& internal_key);

  // Reference counting; requires the DB mutex. The version deletes itself
  // when the last reference goes.
  void Ref();
  void Unref();

  // Stores in *inputs the directories at `level` that overlap
  // [begin, end] (null = unbounded). At level 0 the range grows to cover
  // every directory that overlaps one already chosen, so a key's versions
  // are never split between compacted and left-behind directories.
  void GetOverlappingInputs(int level, const InternalKey* begin,
                            const InternalKey* end,
                            std::vector<FileMetaData*>* inputs);

  // True if some directory at `level` overlaps the user-key range
  // [*smallest_user_key, *largest_user_key] (null = unbounded).
  bool OverlapInLevel(int level, const Slice* smallest_user_key,
                      const Slice* largest_user_key);

  // Level a flushed memtable goes to. DeLSM always flushes to level 0: a
  // flush there costs the same as anywhere, and L0 is where compaction
  // gathers entries into large sorted directories.
  int PickLevelForMemTableOutput(const Slice& smallest_user_key,
                                 const Slice& largest_user_key);

  int NumFiles(int level) const {
    return static_cast<int>(files_[level].size());
  }
  // Sum of the entry counts of the directories at `level`.
  uint64_t LevelEntries(int level) const;
  // The entries at `level` as its entry capacity counts them: an entry
  // whose value is a KV file in its SST's own directory counts
  // 1/kv_file_entries_per_entry (Tuning::kv_file_entries_per_entry), every
  // other entry 1. An SST's KV files are its recorded directory entries
  // but its meta file (one more with LONGKEYS, close enough); an SST whose
  // manifest did not record them counts every entry in full.
  double LevelCapacityEntries(int level,
                              uint64_t kv_file_entries_per_entry) const;
  // Sum of the value bytes of the directories at `level`.
  uint64_t LevelValueBytes(int level) const;
  // Sum of the meta bytes (FileMetaData::meta_bytes) of the SSTs at
  // `level`: what compacting all of them would read and rewrite. An SST
  // whose manifest did not record them counts kUnrecordedMetaBytesPerEntry
  // per entry.
  uint64_t LevelMetaBytes(int level) const;
  static constexpr uint64_t kUnrecordedMetaBytesPerEntry = 32;
  // Inodes the SSTs at `level` hold: their KV files, meta and LONGKEYS
  // files (each counted once: after a compaction's retired SSTs are removed
  // every KV file has one link) and their directories.
  uint64_t LevelInodes(int level) const;
  const std::vector<FileMetaData*>& files(int level) const {
    return files_[level];
  }

  // The most urgent level to compact and its score (entries, or level-0
  // directories, over capacity; >= 1 means due). For statistics.
  int compaction_level() const { return compaction_level_; }
  double compaction_score() const { return compaction_score_; }

  // One line per level listing its directories and their key ranges.
  std::string DebugString() const;

 private:
  friend class Compaction;
  friend class VersionSet;
  friend class VersionSetBuilder;

  explicit Version(VersionSet* vset);
  ~Version();

  Iterator* NewConcatenatingIterator(const ReadOptions& options,
                                     int level) const;

  // Calls fn(arg, level, f) for each directory that may hold `user_key`,
  // newest first (level 0 by descending number, then one per deeper level)
  // until fn returns false.
  void ForEachOverlapping(const Slice& user_key, const Slice& internal_key,
                          void* arg,
                          bool (*fn)(void* arg, int level, FileMetaData* f));

  VersionSet* const vset_;
  // Links in the VersionSet's list of live versions (under the DB mutex).
  Version* next_;
  Version* prev_;
  int refs_;  // under the DB mutex
  // Set by VersionSet::AppendVersion when installed; never changes after.
  uint64_t number_ = 0;

  // Set once by VersionSetBuilder::SaveTo before the version is installed;
  // read-only afterwards.
  std::vector<FileMetaData*> files_[config::kNumLevels];

  // Seek-compaction candidate, set by UpdateStats under the DB mutex.
  FileMetaData* file_to_compact_;
  int file_to_compact_level_;

  // Size-compaction score and level, set by VersionSet::Finalize before the
  // version is installed. A score >= 1 means the level is over capacity.
  double compaction_score_;
  int compaction_level_;
};

}  // namespace leveldb

#endif  // DELSM_DB_VERSION_H_
