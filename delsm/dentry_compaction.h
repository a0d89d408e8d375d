// DentryCompaction merges the meta entries of a compaction's input SST
// directories in internal-key order and hard-links every surviving entry's
// KV file into new SST directories of the output level. It never reads or
// writes a value stored in a KV file: the surviving files keep their inode.
//
// Dropped: versions that no live snapshot needs (a newer version of the same
// user key is visible to every snapshot), tombstones at or below the
// smallest snapshot with nothing for them to hide in deeper levels, and
// exact duplicates of an internal key (a WAL replayed after a flush in
// deferred mode).
//
// The caller commits the outputs to the manifest only after MakeDurable()
// succeeds, and removes the inputs only after that commit. Not thread-safe.
#ifndef DELSM_DELSM_DENTRY_COMPACTION_H_
#define DELSM_DELSM_DENTRY_COMPACTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "delsm/delsm.h"  // include/delsm/delsm.h
#include "leveldb/status.h"
#include "table/sst_dir_options.h"

namespace leveldb {

class SstDir;
class VersionEdit;
class SstDirBuilder;

class DentryCompaction {
 public:
  struct Output {
    uint64_t number = 0;
    uint64_t entries = 0;
    uint64_t value_bytes = 0;
    std::string smallest;  // internal keys
    std::string largest;
  };

  struct Hooks {
    // A fresh SST directory number (called once per output directory).
    std::function<uint64_t()> new_file_number;
    // The path of output directory `number` at the output level.
    std::function<std::string(uint64_t number)> output_path;
    // True if no level below the output level may hold user_key.
    std::function<bool(const Slice& user_key)> is_base_level_for_key;
    // Called between entries; lets the DB flush a memtable first. A non-OK
    // status aborts the compaction (e.g. the DB is shutting down).
    std::function<Status()> yield;
  };

  // options.comparator must be an InternalKeyComparator.
  DentryCompaction(const SstDirOptions& options, uint64_t sst_entries,
                   SequenceNumber smallest_snapshot, Hooks hooks);
  ~DentryCompaction();
  DentryCompaction(const DentryCompaction&) = delete;
  DentryCompaction& operator=(const DentryCompaction&) = delete;

  // Merge `inputs` into output directories. When two inputs hold the same
  // internal key, the one earlier in `inputs` is kept.
  Status Run(const std::vector<SstDir*>& inputs);

  // Make every output directory and its entry in the level directory
  // durable, as `durability` says (nothing for kDeferred).
  Status MakeDurable(delsm::Durability durability,
                     const std::string& output_level_dir);

  // Remove every output directory (after a failure, before any commit).
  void Abandon();

  const std::vector<Output>& outputs() const { return outputs_; }
  // Record every output directory as added at `level` in `edit`.
  void AddOutputsTo(int level, VersionEdit* edit) const;
  uint64_t links() const { return links_; }
  uint64_t entries_read() const { return entries_read_; }
  uint64_t entries_dropped() const { return entries_dropped_; }

 private:
  struct Cursor;

  Status Emit(SstDir* source, size_t index);
  Status FinishOutput();
  bool ShouldDrop(const ParsedInternalKey& key, bool first_of_user_key);

  const SstDirOptions options_;
  const uint64_t sst_entries_;
  const SequenceNumber smallest_snapshot_;
  Hooks hooks_;

  std::unique_ptr<SstDirBuilder> builder_;  // the output being filled
  std::vector<Output> outputs_;
  std::vector<std::string> output_paths_;

  // Drop-rule state for the user key being merged.
  std::string current_user_key_;
  bool has_current_user_key_ = false;
  SequenceNumber last_sequence_for_key_ = kMaxSequenceNumber;
  std::string last_internal_key_;

  uint64_t links_ = 0;
  uint64_t entries_read_ = 0;
  uint64_t entries_dropped_ = 0;
};

}  // namespace leveldb

#endif  // DELSM_DELSM_DENTRY_COMPACTION_H_
