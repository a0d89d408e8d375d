// The VersionSet owns the manifest and the chain of live Versions. It keeps
// the counters every restart must recover (next file number, log number,
// last sequence), decides when and what to compact, and records every change
// of the level structure as a VersionEdit appended to the manifest.
//
// Level capacities are counted in entries (directory entries on disk), not
// bytes: L0 is due when it holds Tuning::l0_compaction_entries entries or
// Tuning::l0_compaction_dirs directories; level L >= 1 holds
// Tuning::l1_entries * 10^(L-1) entries.
//
// Unless a comment says otherwise, every method requires the DB mutex.
#ifndef DELSM_DB_VERSION_SET_H_
#define DELSM_DB_VERSION_SET_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "db/dbformat.h"
#include "db/live_numbers.h"
#include "db/version.h"
#include "db/version_edit.h"
#include "delsm/delsm.h"
#include "leveldb/env.h"
#include "leveldb/options.h"
#include "port/port.h"
#include "port/thread_annotations.h"

namespace leveldb {

class Compaction;
class ManifestWriter;
class TableCache;

class VersionSet {
 public:
  // `options` (sanitized; options->comparator is the user comparator),
  // `table_cache` and `icmp` are not owned and must outlive the VersionSet.
  VersionSet(const std::string& dbname, const Options* options,
             const delsm::Tuning& tuning, TableCache* table_cache,
             const InternalKeyComparator* icmp);
  ~VersionSet();
  VersionSet(const VersionSet&) = delete;
  VersionSet& operator=(const VersionSet&) = delete;

  // Applies `edit` to the current version, makes the result durable in the
  // manifest (a new manifest starting with a full snapshot on the first call
  // after Recover; CURRENT is switched to it once it is synced) and installs
  // it as current. Fills in the edit's log number, next file number and last
  // sequence when it does not set them. Releases *mu while writing;
  // concurrent calls are applied one after another. On error nothing is
  // installed.
  //
  // A call that fails once its write has begun leaves it unknown whether
  // its edit committed: the record may be in the manifest, and the next
  // Recover then applies it. Every later call fails with the same error and
  // writes nothing. A later record, or a new manifest built on the version
  // in memory (which lacks the edit), would contradict the manifest that
  // holds it: its snapshot would list live the SSTs that record replaced,
  // and RepairDB, finding both, takes a manifest so contradicted for one
  // that never took effect, and would not read what the earlier records of
  // that manifest replaced (FindRetiredSsts in db/repair_scan.cc).
  //
  // With sync == false the record is written but not synced (a new manifest
  // is still synced before CURRENT names it): a process crash keeps it, a
  // power loss may drop it and any unsynced record after it, each on its
  // own. Only for edits whose loss recovery repairs by itself (a flush
  // whose WAL outlives the edit); the next synced record makes it durable.
  Status LogAndApply(VersionEdit* edit, port::Mutex* mu, bool sync = true)
      EXCLUSIVE_LOCKS_REQUIRED(mu);

  // Loads the state CURRENT and its manifest describe. Returns the Env's
  // error if CURRENT cannot be read (NotFound when it does not exist: the
  // caller decides about create_if_missing), Corruption naming the file on a
  // damaged CURRENT or manifest, InvalidArgument if the manifest was
  // written with a different comparator. *save_manifest is set to true when
  // the next LogAndApply must write a new manifest (always, currently).
  Status Recover(bool* save_manifest);

  Version* current() const { return current_; }

  uint64_t ManifestFileNumber() const { return manifest_file_number_; }
  uint64_t NewFileNumber() { return next_file_number_++; }
  // The number NewFileNumber would hand out next: no file numbered at or
  // above it exists yet.
  uint64_t NextFileNumber() const { return next_file_number_; }
  // Gives back `file_number` if it was the last one handed out and went
  // unused, so numbers stay dense.
  void ReuseFileNumber(uint64_t file_number) {
    if (next_file_number_ == file_number + 1) next_file_number_ = file_number;
  }
  // Ensures NewFileNumber never returns `number` or anything below it.
  void MarkFileNumberUsed(uint64_t number) {
    if (next_file_number_ <= number) next_file_number_ = number + 1;
  }

  uint64_t LastSequence() const { return last_sequence_; }
  void SetLastSequence(uint64_t s) {
    assert(s >= last_sequence_);
    last_sequence_ = s;
  }
  // The oldest WAL whose contents are not yet in an SST directory.
  uint64_t LogNumber() const { return log_number_; }
  // A WAL still being compacted when the DB stopped (0 if none); kept for
  // compatibility with LevelDB's recovery.
  uint64_t PrevLogNumber() const { return prev_log_number_; }

  int NumLevelFiles(int level) const;
  uint64_t NumLevelEntries(int level) const;
  // Version::LevelMetaBytes of `level` in the current version.
  uint64_t NumLevelMetaBytes(int level) const;
  // Sum of user value bytes of the directories at `level`.
  int64_t NumLevelBytes(int level) const;

  // Largest sum of value bytes at level+1 overlapped by a single directory
  // at any level >= 1.
  int64_t MaxNextLevelOverlappingBytes();

  // True if some level is over capacity or a directory used up its seeks.
  bool NeedsCompaction() const {
    return current_->compaction_score_ >= 1 ||
           current_->file_to_compact_ != nullptr;
  }

  // The next compaction to run, or nullptr if none is due. The caller owns
  // the result and deletes it after calling ReleaseInputs.
  Compaction* PickCompaction();

  // A compaction of the directories at `level` overlapping [begin, end]
  // (null = unbounded), or nullptr if none does. At levels >= 1 the inputs
  // are cut to roughly one output directory's worth of entries; the caller
  // repeats until the range is done.
  Compaction* CompactRange(int level, const InternalKey* begin,
                           const InternalKey* end);

  // A merging iterator over all inputs of `c`, in internal-key order. The
  // caller deletes it before releasing c's inputs.
  Iterator* MakeInputIterator(Compaction* c);

  // Adds the number of every SST, and of every SST directory, some live
  // version references. (Numbers come from one counter, so an SST number
  // equals a directory number only for the SST created with it.)
  void AddLiveFiles(LiveNumbers* live);
  // Adds the number of every SST some live version references.
  void AddLiveSsts(LiveNumbers* live);

  // Versions are numbered in the order they are installed. A version whose
  // number is below OldestLiveVersion() has been released by every
  // reader. Requires the DB mutex.
  uint64_t CurrentVersionNumber() const;
  uint64_t OldestLiveVersion() const;

  // Appends to *ssts every SST that some live version places in directory
  // `dir` and whose user-key range overlaps [smallest, largest].
  void LiveSstsInDir(uint64_t dir, const Slice& smallest_user_key,
                     const Slice& largest_user_key,
                     std::vector<FileMetaData>* ssts);

  // Approximate bytes on disk (KV files in whole blocks, meta files) that
  // `v` holds under keys before `key`, as LevelDB counts its files' bytes.
  // Reads meta files through the table cache; call without the DB mutex
  // while `v` is pinned.
  uint64_t ApproximateOffsetOf(Version* v, const InternalKey& key);

  struct LevelSummaryStorage {
    char buffer[256];
  };
  // "files[ n0 n1 ... ] entries[ e0 e1 ... ]" for the current version.
  const char* LevelSummary(LevelSummaryStorage* scratch) const;

  const std::string& dbname() const { return dbname_; }
  const Options* options() const { return options_; }
  const delsm::Tuning& tuning() const { return tuning_; }
  TableCache* table_cache() const { return table_cache_; }
  const InternalKeyComparator* icmp() const { return icmp_; }

  // Capacity of `level` (level >= 1) in entries and in meta bytes
  // (Version::LevelMetaBytes); a level is due for compaction when it
  // passes either.
  uint64_t MaxEntriesForLevel(int level) const;
  uint64_t MaxMetaBytesForLevel(int level) const;

 private:
  friend class Compaction;
  friend class Version;
  friend class VersionSetBuilder;

  // Computes v's compaction score and level.
  void Finalize(Version* v);
  void AppendVersion(Version* v);
  // Encodes the current level structure and compaction pointers as one
  // edit: the first record of a new manifest.
  void EncodeSnapshot(std::string* record);

  void SetupOtherInputs(Compaction* c);
  // Smallest and largest key over `inputs` (non-empty).
  void GetRange(const std::vector<FileMetaData*>& inputs, InternalKey* smallest,
                InternalKey* largest);
  void GetRange2(const std::vector<FileMetaData*>& inputs1,
                 const std::vector<FileMetaData*>& inputs2,
                 InternalKey* smallest, InternalKey* largest);

  Env* const env_;
  const std::string dbname_;
  const Options* const options_;
  const delsm::Tuning tuning_;
  TableCache* const table_cache_;
  const InternalKeyComparator* const icmp_;

  uint64_t next_file_number_;
  uint64_t manifest_file_number_;
  uint64_t last_sequence_;
  uint64_t log_number_;
  uint64_t prev_log_number_;

  // The open manifest; null until the first LogAndApply after Recover, and
  // after a failed write. Used only by the LogAndApply that holds
  // manifest_busy_.
  std::unique_ptr<ManifestWriter> manifest_;
  // The error of the LogAndApply whose write failed, which every later
  // call returns; OK until then. Guarded by the DB mutex.
  Status manifest_error_;
  // True while a LogAndApply is writing with the DB mutex released; others
  // wait on manifest_cv_ (created on first use, bound to the DB mutex).
  bool manifest_busy_;
  std::unique_ptr<port::CondVar> manifest_cv_;

  Version dummy_versions_;  // head of the circular list of live versions
  Version* current_;        // == dummy_versions_.prev_
  // The number AppendVersion gives the next version (under the DB mutex).
  uint64_t next_version_number_ = 1;

  // Per level, the largest key of the last compaction's inputs there; the
  // next size compaction of the level starts after it (round robin).
  // Encoded internal keys; empty means start from the beginning.
  std::string compact_pointer_[config::kNumLevels];
};

}  // namespace leveldb

#endif  // DELSM_DB_VERSION_SET_H_
