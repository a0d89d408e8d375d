// A VersionEdit is one manifest record: the SST directories added to and
// removed from levels, plus the counters the DB must recover (log number,
// next file number, last sequence, comparator, compaction pointers).
#ifndef DELSM_DB_VERSION_EDIT_H_
#define DELSM_DB_VERSION_EDIT_H_

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "leveldb/status.h"

namespace leveldb {

// One SST as a version sees it: a meta file over a key range, inside an SST
// directory L<level>/<dir>.sst that may hold further SSTs of the same level
// (a compaction adds the entries it moves down to the directory already
// covering their keys, instead of re-linking that directory's entries).
// Immutable once added to a version, except `refs` (guarded by the DB
// mutex) and `allowed_seeks`.
struct FileMetaData {
  int refs = 0;
  int allowed_seeks = 1 << 30;  // seeks before a seek-triggered compaction
  uint64_t number = 0;          // names the meta file (MetaFileName)
  uint64_t dir = 0;             // the directory's number; == number if the
                                // SST was created with its directory
  uint64_t dir_entries = 0;     // directory entries the SST owns (KV files,
                                // meta file, LONGKEYS); 0 = not recorded
  uint64_t entries = 0;         // entries in its meta file
  uint64_t value_bytes = 0;     // sum of user value sizes
  uint64_t disk_bytes = 0;      // bytes its files allocate on disk (KV files
                                // in whole blocks, meta file, LONGKEYS);
                                // 0 = not recorded (an older manifest)
  uint64_t meta_bytes = 0;      // bytes of its meta and LONGKEYS files:
                                // what a compaction taking it as input
                                // reads and rewrites (values in KV files
                                // are linked, not copied); 0 = not recorded
                                // (an older manifest)
  InternalKey smallest;
  InternalKey largest;
  // The smallest and largest sequence numbers of the SST's entries, when
  // `has_sequence_range` (recorded for every SST built by this version;
  // an older manifest does not have them). Recovery replaces an L0 SST by
  // the replay of its WAL only when the replay holds every sequence in
  // this range (DBImpl::DropLevel0CoveredByWal).
  bool has_sequence_range = false;
  SequenceNumber smallest_sequence = 0;
  SequenceNumber largest_sequence = 0;
  // For a flush output, the WAL its memtable came from (0 otherwise, and
  // in an older manifest). While that WAL is live (at or above the
  // manifest's log number), the SST was committed but not yet made durable
  // (kSyncfs, kDeferred), and the WAL holds every write of it that was
  // acknowledged with sync=true.
  uint64_t wal_number = 0;
};

class SstDirBuilder;

// The FileMetaData of the SST `builder` has just finished: SST `number` in
// the directory numbered `dir`. The one place a new SST's metadata is made
// (flush and compaction).
FileMetaData BuiltSstMetaData(uint64_t number, uint64_t dir,
                              const SstDirBuilder& builder);

class VersionEdit {
 public:
  VersionEdit() { Clear(); }
  void Clear();

  void SetComparatorName(const Slice& name) {
    has_comparator_ = true;
    comparator_ = name.ToString();
  }
  void SetLogNumber(uint64_t num) {
    has_log_number_ = true;
    log_number_ = num;
  }
  void SetPrevLogNumber(uint64_t num) {
    has_prev_log_number_ = true;
    prev_log_number_ = num;
  }
  void SetNextFile(uint64_t num) {
    has_next_file_number_ = true;
    next_file_number_ = num;
  }
  void SetLastSequence(SequenceNumber seq) {
    has_last_sequence_ = true;
    last_sequence_ = seq;
  }
  void SetCompactPointer(int level, const InternalKey& key) {
    compact_pointers_.push_back(std::make_pair(level, key));
  }

  // Add the SST `f` at `level`. An unset f.dir (0) means the SST owns the
  // directory of its own number.
  void AddFile(int level, const FileMetaData& f) {
    new_files_.push_back(std::make_pair(level, f));
    if (f.dir == 0) new_files_.back().second.dir = f.number;
  }
  // Remove SST `number` from `level`.
  void RemoveFile(int level, uint64_t number) {
    deleted_files_.insert(std::make_pair(level, number));
  }

  void EncodeTo(std::string* dst) const;
  // Corruption with a description of what is wrong; NotSupported for a
  // record of a newer format version.
  Status DecodeFrom(const Slice& src);
  // True if `record` starts with DeLSM's format marker, i.e. was written by
  // EncodeTo (of any format version), not by LevelDB or a pre-release DeLSM.
  static bool HasFormatMarker(const Slice& record);
  std::string DebugString() const;

  typedef std::set<std::pair<int, uint64_t>> DeletedFileSet;

  // What the record holds. A has_*() false means the field is absent (the
  // getter then returns 0 or empty).
  bool has_comparator() const { return has_comparator_; }
  const std::string& comparator() const { return comparator_; }
  bool has_log_number() const { return has_log_number_; }
  uint64_t log_number() const { return log_number_; }
  bool has_prev_log_number() const { return has_prev_log_number_; }
  uint64_t prev_log_number() const { return prev_log_number_; }
  bool has_next_file_number() const { return has_next_file_number_; }
  uint64_t next_file_number() const { return next_file_number_; }
  bool has_last_sequence() const { return has_last_sequence_; }
  SequenceNumber last_sequence() const { return last_sequence_; }
  // (level, smallest key to compact next) pairs, in the order set.
  const std::vector<std::pair<int, InternalKey>>& compact_pointers() const {
    return compact_pointers_;
  }
  // (level, SST number) pairs removed.
  const DeletedFileSet& deleted_files() const { return deleted_files_; }
  // (level, SST) pairs added, in the order added.
  const std::vector<std::pair<int, FileMetaData>>& new_files() const {
    return new_files_;
  }

  // One more than the largest file number the edit names: its next file
  // number (itself never handed out yet), and the number and directory of
  // every SST it adds and the number of every SST it removes; 0 if it names
  // none. No new file may take a number below the bound of any edit of any
  // manifest of the database: RepairDB takes an SST a manifest records as
  // removed for a replaced one, whatever directory it is found in.
  uint64_t NumberBound() const;

 private:
  std::string comparator_;
  uint64_t log_number_;
  uint64_t prev_log_number_;
  uint64_t next_file_number_;
  SequenceNumber last_sequence_;
  bool has_comparator_;
  bool has_log_number_;
  bool has_prev_log_number_;
  bool has_next_file_number_;
  bool has_last_sequence_;
  std::vector<std::pair<int, InternalKey>> compact_pointers_;
  DeletedFileSet deleted_files_;
  std::vector<std::pair<int, FileMetaData>> new_files_;
};

}  // namespace leveldb

#endif  // DELSM_DB_VERSION_EDIT_H_
