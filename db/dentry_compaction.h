// DentryCompaction merges the meta entries of a compaction's input SSTs in
// internal-key order and writes the surviving entries as new SSTs of the
// output level. It never reads or writes a value stored in a KV file: the
// surviving files keep their inode.
//
// Where the output level already has SSTs over the merged keys (the
// compaction's "targets", which it replaces), every surviving entry goes to
// the directory of the target covering its user key (or the nearest one):
// a target's own entries stay where they are, the upper level's entries
// are hard-linked in, and the new SSTs are new meta files in that
// directory. So an entry is linked once per level it descends, not once
// per compaction its directory takes part in. Without targets the outputs
// are new directories.
//
// Directories stay within max_dir_entries: an output that could take its
// target's directory past it goes to a new directory instead, the target's
// own entries linked there too, and so does the rest of that directory's
// stream in this compaction; the old directory shrinks when the replaced
// SSTs are retired. (A directory may exceed the bound only by the versions
// of one user key that an output cannot be cut between, and by retired SSTs
// not yet removed.)
//
// Dropped: versions that no live snapshot needs (a newer version of the same
// user key is visible to every snapshot), tombstones at or below the
// smallest snapshot with nothing for them to hide in deeper levels, and
// exact duplicates of an internal key (an L0 SST kept at recovery and the
// replay of its WAL; recovery leaves out replayed writes a deeper level
// already holds, see DBImpl::HeldBelowLevel0).
//
// Entries whose value stays in a home (values_stay_put) are never linked:
// the new meta entry names the same home. When such an entry is dropped,
// its KV file is listed in dead_values(); the caller unlinks it after the
// commit, once no version that could see the entry is alive.
//
// The caller commits the outputs to the manifest only after MakeDurable()
// succeeds, and removes the inputs only after that commit. Not thread-safe.
#ifndef DELSM_DB_DENTRY_COMPACTION_H_
#define DELSM_DB_DENTRY_COMPACTION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "db/shadowed_versions.h"
#include "db/version_edit.h"
#include "delsm/delsm.h"  // include/delsm/delsm.h
#include "leveldb/status.h"
#include "table/home_dirs.h"
#include "table/sst_dir_options.h"

namespace leveldb {

class SstDir;
class SstDirBuilder;
struct MetaIndexEntry;

class DentryCompaction {
 public:
  // One output SST. meta.number names its meta file; meta.dir is its
  // directory (== meta.number if created here). The rest of meta is filled
  // when the SST is finished.
  struct Output {
    FileMetaData meta;
    std::string path;  // the directory's path
    // Names this compaction added to an existing directory (to undo).
    std::vector<std::string> added_names;
    // Its files were fsynced as written (SstDirBuilder::FilesSynced).
    bool files_synced = false;
  };

  // An SST of the output level that the compaction replaces. Targets are
  // given in key order and do not overlap.
  struct Target {
    uint64_t dir = 0;              // its directory's number
    std::string path;              // its directory's path
    std::string largest_user_key;  // the largest user key it holds
    // Directory entries its directory holds now: those of every live SST
    // in it at the output level (the same figure for targets sharing it).
    uint64_t dir_entries = 0;
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
                   SequenceNumber smallest_snapshot, Hooks hooks,
                   uint64_t max_dir_entries = UINT64_MAX);
  ~DentryCompaction();
  DentryCompaction(const DentryCompaction&) = delete;
  DentryCompaction& operator=(const DentryCompaction&) = delete;

  // Merge `inputs` into output SSTs. When two inputs hold the same internal
  // key, the one already in a target's directory is kept, else the one
  // earlier in `inputs`. input_dirs[i] is the number of the directory
  // holding inputs[i]; entries of an input in a target's directory are not
  // linked again.
  Status Run(const std::vector<SstDir*>& inputs,
             const std::vector<uint64_t>& input_dirs,
             const std::vector<Target>& targets);
  // Merge into new directories only.
  Status Run(const std::vector<SstDir*>& inputs) {
    return Run(inputs, std::vector<uint64_t>(inputs.size(), 0), {});
  }

  // Make every output directory (its new entries) and the level directory
  // durable, as `durability` says (nothing for kDeferred). In kSyncfs, when
  // every output's files were fsynced as written (SstDirOptions::
  // sync_sst_without_kv_files: no output names a KV file), the directories
  // are fsynced one by one instead: the syncfs would also write back every
  // WAL of the file system, whose writer then waits for the pages it is
  // appending to.
  Status MakeDurable(delsm::Durability durability,
                     const std::string& output_level_dir);

  // Remove every output directory created, and everything added to an
  // existing one (after a failure, before any commit). True if nothing
  // this compaction made is left; false if a removal failed (then only the
  // open sweep removes what is left).
  bool Abandon();

  const std::vector<Output>& outputs() const { return outputs_; }
  // Record every output SST as added at `level` in `edit`.
  void AddOutputsTo(int level, VersionEdit* edit) const;
  uint64_t links() const { return links_; }
  // The KV files in homes of the entries this compaction dropped.
  const std::vector<HomeValue>& dead_values() const { return dead_values_; }
  uint64_t entries_read() const { return entries_read_; }
  uint64_t entries_dropped() const { return entries_dropped_; }

 private:
  Status Emit(size_t input, size_t index);
  Status StartOutput(size_t target);
  Status FinishOutput();
  // The target whose directory receives `user_key` (keys come ascending).
  size_t RouteToTarget(const Slice& user_key);
  // Applies the drop rules to `key` (every merged key, in order).
  bool ShouldDrop(const ParsedInternalKey& key);

  const SstDirOptions options_;
  const uint64_t sst_entries_;
  const uint64_t max_dir_entries_;
  Hooks hooks_;

  // A piece of an input's meta-file value section (inline values).
  struct InlineBuffer {
    std::string bytes;
    uint64_t offset = 0;
  };
  static constexpr size_t kInlineCopyChunk = 256 << 10;

  // Set by Run().
  std::vector<SstDir*> inputs_;
  std::vector<InlineBuffer> inline_buffers_;  // one per input
  std::vector<uint64_t> input_dirs_;
  std::vector<Target> targets_;
  size_t next_target_ = 0;  // RouteToTarget's position

  std::unique_ptr<SstDirBuilder> builder_;  // the output being filled
  // An output that failed to finish could not be removed whole.
  bool undo_failed_ = false;
  size_t builder_target_ = 0;  // its target (if any)
  std::vector<Output> outputs_;
  // Entries in each target's directory: Target::dir_entries plus what this
  // compaction's finished outputs added to it.
  std::map<uint64_t, uint64_t> dir_entries_;

  ShadowedVersions shadowed_;  // the drop rule's state
  // To drop exact duplicates: the key of the last entry merged, in its
  // input's index (which Run's caller keeps open throughout).
  Slice last_internal_key_;
  // The home of the entry kept for last_internal_key_ (0: none, or not in
  // a home): a duplicate naming the same file is not a dead value.
  uint64_t last_kept_home_ = 0;

  // Records `entry`'s KV file in dead_values_ if it is in a home.
  void NoteDropped(const MetaIndexEntry& entry);

  std::vector<HomeValue> dead_values_;
  uint64_t links_ = 0;
  uint64_t entries_read_ = 0;
  uint64_t entries_dropped_ = 0;
};

}  // namespace leveldb

#endif  // DELSM_DB_DENTRY_COMPACTION_H_
