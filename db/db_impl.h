// DBImpl: LevelDB's DB interface over SST directories. The write path (WAL,
// memtable, group commit), the read path (memtables, then the current
// version's SST directories), and two background threads: one flushes
// immutable memtables into L0 SST directories, the other runs dentry
// compactions between levels.
#ifndef DELSM_DB_DB_IMPL_H_
#define DELSM_DB_DB_IMPL_H_

#include <atomic>
#include <cassert>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "db/dbformat.h"
#include "db/live_numbers.h"
#include "db/log_writer.h"
#include "db/snapshot.h"
#include "db/version_edit.h"
#include "delsm/delsm.h"
#include "fs/inode_headroom.h"
#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "port/port.h"
#include "port/thread_annotations.h"
#include "table/home_dirs.h"
#include "table/sst_dir_options.h"
#include "util/thread_pool.h"

namespace leveldb {

class Compaction;
class FileSystem;
class MemTable;
class ReplayedSequences;
class SstDir;
class TableCache;
class Version;
class VersionEdit;
class VersionSet;

// Counters of the dentry work done; reported by GetProperty. Written by
// the background threads under mutex_, read under mutex_.
struct DentryStats {
  uint64_t flushes = 0;
  uint64_t compactions = 0;
  uint64_t trivial_moves = 0;  // renames of a whole SST directory
  // SSTs moved down by a second name of their meta file (DBImpl::LinkMove)
  uint64_t meta_file_moves = 0;
  uint64_t kv_files_created = 0;
  uint64_t links = 0;
  uint64_t unlinks = 0;
  uint64_t dirs_removed = 0;
  uint64_t bytes_written = 0;  // KV files + meta files written by flushes
  uint64_t meta_bytes_written = 0;
  uint64_t durability_syncs = 0;      // syncfs or fsync rounds
  uint64_t flushes_building = 0;      // L0 SST directories being built now
  uint64_t max_parallel_flushes = 0;  // the most ever built at once
};

class DBImpl : public DB {
 public:
  // `fs` carries every SST-directory operation; null means the one the Env
  // calls for (FileSystemForEnv: a memory Env's own memory FileSystem,
  // else the POSIX one). Tests pass a fault-injecting file system here.
  DBImpl(const Options& options, const delsm::Tuning& tuning,
         const std::string& dbname, FileSystem* fs = nullptr);
  ~DBImpl() override;
  DBImpl(const DBImpl&) = delete;
  DBImpl& operator=(const DBImpl&) = delete;

  // The DB interface. Each call takes mutex_ itself.
  Status Put(const WriteOptions&, const Slice& key, const Slice& value) override
      LOCKS_EXCLUDED(mutex_);
  Status Delete(const WriteOptions&, const Slice& key) override
      LOCKS_EXCLUDED(mutex_);
  Status Write(const WriteOptions& options, WriteBatch* updates) override
      LOCKS_EXCLUDED(mutex_);
  Status Get(const ReadOptions& options, const Slice& key,
             std::string* value) override LOCKS_EXCLUDED(mutex_);
  Iterator* NewIterator(const ReadOptions&) override LOCKS_EXCLUDED(mutex_);
  const Snapshot* GetSnapshot() override LOCKS_EXCLUDED(mutex_);
  void ReleaseSnapshot(const Snapshot* snapshot) override
      LOCKS_EXCLUDED(mutex_);
  bool GetProperty(const Slice& property, std::string* value) override
      LOCKS_EXCLUDED(mutex_);
  void GetApproximateSizes(const Range* range, int n, uint64_t* sizes) override
      LOCKS_EXCLUDED(mutex_);
  void CompactRange(const Slice* begin, const Slice* end) override
      LOCKS_EXCLUDED(mutex_);

  // Open's work after construction: recover, start the background threads.
  // `env_spec` is DELSM_OPTIONS as applied (nullptr: unset), for the LOG.
  Status Open(const char* env_spec) LOCKS_EXCLUDED(mutex_);

  // Test hooks. Flush the memtable and wait until no immutable remains and
  // what the flushes wrote is durable.
  Status TEST_FlushMemTable() LOCKS_EXCLUDED(mutex_);
  // Wait until no flush, compaction, removal or grouped syncfs is needed or
  // running; after a background error, until none is running (a flush's
  // commit may still be writing the manifest when the error is recorded).
  Status TEST_WaitForBackgroundWork() LOCKS_EXCLUDED(mutex_);
  // Compact the SSTs of `level` overlapping [begin, end] (null: unbounded)
  // into level + 1, as one manual compaction of that level only (LevelDB's
  // TEST_CompactRange). Returns the compaction's status once its own
  // removal pass has run; unlike CompactRange it does not wait for other
  // passes then in flight (a test may hold one while it compacts).
  Status TEST_CompactRange(int level, const Slice* begin, const Slice* end)
      LOCKS_EXCLUDED(mutex_);
  // Neither compactions nor Close retire the kDeferred WALs their sync
  // made unneeded (ReleaseDeferredLogs, RetireWalsOfDurableFlushes): they
  // stay for the retention time, as a kSyncfs WAL stays until its
  // durability round, so that a test can reopen with the WALs a kill
  // would have left (some whose flushes were compacted out of L0).
  void TEST_KeepDeferredLogs() LOCKS_EXCLUDED(mutex_);

 private:
  struct Writer;
  struct ManualCompaction;
  struct LevelStats {
    uint64_t micros = 0;
    uint64_t entries_read = 0;
    uint64_t entries_written = 0;
    uint64_t links = 0;
    void Add(const LevelStats& o) {
      micros += o.micros;
      entries_read += o.entries_read;
      entries_written += o.entries_written;
      links += o.links;
    }
  };

  // Recovery (db_impl_open.cc).
  Status NewDB();
  // *closed_cleanly: the DB was last closed by a Close that left nothing
  // for the open sweeps, and nothing has happened to it since (the marker
  // is valid, and no SST directory or home is numbered beyond what the
  // manifest knows).
  Status Recover(VersionEdit* edit, bool* save_manifest, bool* closed_cleanly)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Replays a WAL; adds the sequences it held to *replayed.
  Status RecoverLogFile(uint64_t log_number, ReplayedSequences* replayed,
                        VersionEdit* edit) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Flushes a memtable replayed from WAL `log_number`, or keeps it as an
  // immutable memtable when that fails with an I/O error (see the .cc).
  Status FlushRecoveredMemTable(MemTable* mem, uint64_t log_number,
                                VersionEdit* edit)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Removes from the version (through `edit`) every L0 SST whose writes
  // `replayed` provably all holds. Corruption naming the directory if an
  // L0 SST in `missing_level0` (directory numbers) is not so held.
  Status DropLevel0CoveredByWal(const ReplayedSequences& replayed,
                                const std::set<uint64_t>& missing_level0,
                                VersionEdit* edit)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Loads L0 SST `f`'s meta file through the table cache; where `*known`
  // is false, sets it and [*first, *last] to the entries' sequence range.
  Status LoadLevel0Sst(const FileMetaData& f, SequenceNumber* first,
                       SequenceNumber* last, bool* known)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // False if a KV file that L0 SST `f`'s readable meta file names is not
  // in its directory (or home); true when that cannot be told.
  bool AllKvFilesPresent(const FileMetaData& f)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // True if a value of L0 SST `f`, whose meta file reads, fails its
  // checksum (Corruption: torn, zero-filled), in a KV file or inline in
  // the meta file; false when none does or that cannot be told (an error
  // other than damage proves nothing). Reads every value the SST holds.
  bool AnyValueTorn(const FileMetaData& f) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The smallest and largest sequence of `sst`'s entries; false if it
  // holds none or an entry's key does not parse.
  static bool SequenceRange(SstDir* sst, SequenceNumber* first,
                            SequenceNumber* last);
  // Puts live directories a crash left under another level back. Adds to
  // *missing_level0 each live L0 directory found nowhere when a replayed
  // WAL may stand in for it (kSyncfs, kDeferred); any other live directory
  // found nowhere is Corruption.
  Status PlaceLiveDirectories(std::set<uint64_t>* missing_level0)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // LevelDB's formats in Recover (db_impl_leveldb_format.cc), called under
  // the LOCK.
  // How this DB converts a LevelDB database it is opened on.
  LevelDbConversionOptions ConversionOptions() const;
  // For a directory with no CURRENT, before NewDB writes anything: OK if
  // its staging directory lets a new database be made there. Corruption if
  // it holds the PLAN of RepairDB's taking in of LevelDB's tables, cut
  // short (TakeInCutShortError), or a PLAN that does not decode; the error
  // of reading the staging directory as it is (EIO). Changes nothing.
  Status CheckNoTakeInCutShort();
  // If the directory holds a LevelDB database, converts it in place, or
  // finishes a conversion cut short after its commit; otherwise does
  // nothing. Refusals change nothing (ConvertLevelDbIfPresent). The WALs
  // it leaves are replayed afterwards as DeLSM's.
  Status ConvertLevelDbDatabase();

  // Write path.
  Status MakeRoomForWrite(bool force) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  WriteBatch* BuildBatchGroup(Writer** last_writer)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  Status SwitchMemTable() EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  Iterator* NewInternalIterator(const ReadOptions&,
                                SequenceNumber* latest_snapshot)
      LOCKS_EXCLUDED(mutex_);
  SequenceNumber SmallestLiveSnapshot() EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Background work (db_impl_flush.cc: flush and durability threads;
  // db_impl_background.cc: compaction and what both share).
  static void FlushThreadEntry(void* db);
  static void CompactionThreadEntry(void* db);
  void FlushThreadMain() LOCKS_EXCLUDED(mutex_);
  static void DurabilityThreadEntry(void* db);
  // Starts the flush workers, the compaction thread and (kSyncfs) the
  // durability thread; an IOError if the Env could not start one.
  Status StartBackgroundThreads() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void DurabilityThreadMain() LOCKS_EXCLUDED(mutex_);
  // The oldest WAL still needed: that of imms_[first_unflushed] (or the live
  // one), or a retained one (deferred_logs_, unsynced_logs_) if older.
  uint64_t LogFloor(size_t first_unflushed) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Move the manifest's log floor up to LogFloor(0) and delete the WALs
  // below it.
  void AdvanceLogFloor() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // kDeferred: a compaction (or trivial move) syncs the file system before
  // its commit (CompactionDurability), which makes every flush committed
  // before the sync durable. Before the sync, it notes how many WALs
  // deferred_logs_ has ever held (DeferredLogsCommitted()); after it, it
  // calls ReleaseDeferredLogs with that count and its edit: those WALs
  // leave deferred_logs_ and the edit moves the log floor past them, so the
  // commit that may drop a tombstone (at its base level) also retires the
  // older WAL whose put it deleted. Kept, such a WAL would be replayed at
  // Open over the compaction's output, and a damaged or lost later WAL
  // (the delete's) would bring the put back.
  uint64_t DeferredLogsCommitted() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void ReleaseDeferredLogs(uint64_t committed_before_sync, VersionEdit* edit)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void CompactionThreadMain() LOCKS_EXCLUDED(mutex_);
  // The removal thread (Tuning::removal_thread, db_impl_removal.cc) runs
  // the removal pass whenever removal_wanted_ is set.
  static void RemovalThreadEntry(void* db);
  void RemovalThreadMain() LOCKS_EXCLUDED(mutex_);
  // After a committed compaction: the removal pass, run here when `now`
  // (a manual compaction: as with LevelDB, what it made obsolete is gone
  // when CompactRange returns, which also waits for the passes in flight,
  // WaitForRemovalPassesInFlight) or when there is no removal thread, else
  // asked of the removal thread.
  void RemoveObsoleteFilesAfterCompaction(bool now)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Parallel flush (Tuning::flush_threads workers run FlushThreadMain).
  struct Immutable;
  // The oldest immutable memtable no worker has taken, or null; null also
  // while an older one's discarded build is still running (SST numbers
  // must follow the queue order), and while another build runs if this
  // memtable's values all go inline (FlushWritesKvFiles) and no writer
  // waits for the queue (writers_waiting_for_flush_).
  Immutable* NextFlushToBuild() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Whether the flush of `mem` creates KV files (a value above the inline
  // threshold), the work a second flush worker is for.
  bool FlushWritesKvFiles(MemTable* mem) const;
  // Writes imm's L0 SST directory (releasing mutex_ meanwhile) and leaves
  // the result in imm for CommitBuiltFlushes.
  void BuildFlush(Immutable* imm) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Commits the built flushes at the front of imms_, oldest first, and
  // stops at the first one not built yet (another worker commits it and
  // those after it). *retryable: the oldest flush failed before committing
  // anything, for want of file descriptors (transient: it is retried, with
  // every later one, rather than the error made sticky).
  Status CommitBuiltFlushes(bool* retryable) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Puts every built or building flush back in the queue; the directories
  // and homes they wrote become orphans for RemoveObsoleteFiles.
  void RequeueFlushes() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Drops imm's built SST (never committed): its directory and home are
  // left to RemoveObsoleteFiles.
  void DiscardBuiltFlush(Immutable* imm) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Build an L0 SST directory from `mem`; fills *edit. Releases mutex_
  // while building.
  // `make_durable`: sync the SST as the durability mode says before
  // returning (recovery, kFsync, kDeferred's no-op); false leaves that to
  // the grouped syncfs (kSyncfs flushes), except for an SST without KV
  // files in kSyncfs, which is always made durable here (its files
  // fsynced as written, then its directories).
  // `replayed` (a memtable replayed from a WAL): leave out the entries
  // HeldBelowLevel0 finds in the current version's L1 and below.
  // `wal_number`: the WAL `mem`'s writes are in (FileMetaData::wal_number).
  // Sets *below_unreadable (if given) when it failed because a deeper meta
  // file could not be read, and *durable (if given) to whether the SST was
  // made durable before it returned (not in kDeferred, which syncs nothing).
  Status WriteLevel0(MemTable* mem, uint64_t wal_number, VersionEdit* edit,
                     bool make_durable, bool replayed = false,
                     bool* below_unreadable = nullptr, bool* durable = nullptr)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Sets *held if a level below L0 of `v` holds `key`'s user key at
  // `key`'s sequence or a later one: a write a replayed WAL brings back
  // although its flush was compacted out of L0 before the crash (kDeferred
  // keeps WALs that long), or one a newer version there shadows. The error
  // of a meta file that cannot be read: unknown is not "not held", since
  // the replayed copy at L0 would then hide a newer version below it.
  // Reads meta files: called without mutex_, with `v` pinned.
  Status HeldBelowLevel0(Version* v, const ParsedInternalKey& key, bool* held)
      LOCKS_EXCLUDED(mutex_);
  Status TrivialMove(Compaction* c) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // For a compaction that IsMetaFileMove: if the input's meta file names
  // no KV file (SstDir::HasKvFiles), moves it down as a second name of
  // that file in a new SST directory and sets *moved; OK with *moved false
  // otherwise (the caller compacts it). *retryable as for
  // RunDentryCompaction.
  Status LinkMove(Compaction* c, bool* moved, bool* retryable)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // *retryable as for CommitBuiltFlushes.
  Status RunDentryCompaction(Compaction* c, bool* retryable)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Commits `edit` to the manifest and installs the new version
  // (VersionSet::LogAndApply, which serialises concurrent callers). A
  // failure is the background error before this returns, whoever calls
  // and whether or not the DB is closing: the edit may or may not be in
  // the manifest the next Open reads.
  Status ApplyEdit(VersionEdit* edit, bool sync = true)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void RecordBackgroundError(const Status& s) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // After a transient failure of background work: log it and wait on
  // `work_cv` (the calling thread's own) for up to *backoff_micros
  // (doubled each time, 10 ms to 1 s) before the retry.
  void RetryLater(const Status& s, uint64_t* backoff_micros,
                  port::CondVar* work_cv) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Wakes every background thread (an error, the close).
  void WakeBackgroundThreads() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Remove SST directories, logs and manifests no live version needs.
  void RemoveObsoleteFiles() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Removes `name`, a file of the DB directory that a RemoveObsoleteFiles
  // call listed and holds in files_being_removed_, unless it is gone
  // already. Called without mutex_.
  void RemoveListedFile(const std::string& name) LOCKS_EXCLUDED(mutex_);
  // Ends RemoveObsoleteFiles call number `pass`, whichever way it ends: it
  // no longer counts as in flight (waiters are woken), and its counts are
  // added to the dentry statistics.
  void EndRemovalPass(uint64_t pass, uint64_t unlinked, uint64_t dirs_removed)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Waits until every RemoveObsoleteFiles call in flight now has ended
  // (not for those begun later). After a compaction's own pass, such a
  // call may be removing what the compaction made obsolete: the pass found
  // it taken (dirs_being_removed_, retired SSTs taken from retired_ssts_).
  void WaitForRemovalPassesInFlight() EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // The clean-close marker (db_impl_clean_close.cc, docs/DESIGN.md "Open and
  // recovery"). Close writes it only when nothing is left for the open
  // sweeps (WhatCloseLeft); it names the manifest and its size then.
  // Null if the DB closed that way: nothing is left that only the sweeps
  // would remove; else what was left, for the LOG. Called by ~DBImpl once
  // the background threads ended and the last RemoveObsoleteFiles
  // returned.
  const char* WhatCloseLeft() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Makes everything the file system holds durable (the removals made
  // while open included), retires the WALs kept only until their flushes
  // were durable (RetireWalsOfDurableFlushes), then writes the marker:
  // temp file, rename, directory fsync. Errors leave no marker.
  Status WriteCleanCloseMarker() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // At Close, after a syncfs that made every committed flush durable: the
  // WALs kept for those flushes (unsynced_logs_, deferred_logs_) are no
  // longer needed, and would make the next Open replay writes its L0
  // already holds (and replace those SSTs, DropLevel0CoveredByWal). Moves
  // the manifest's log floor past them and deletes them.
  Status RetireWalsOfDurableFlushes() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // At Open, before anything is changed: *clean is set if the marker is
  // there and names the manifest CURRENT names, with the size it has now.
  // The marker is then removed durably, valid or not; an error doing so
  // fails Open.
  Status TakeCleanCloseMarker(bool* clean) EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // SSTs a compaction replaced, whose directories may live on
  // (db_impl_removal.cc).
  struct RetiredSst {
    uint64_t number;
    uint64_t dir;
    std::string smallest_user_key;
    std::string largest_user_key;
    // FileMetaData::dir_entries: 1 when its meta file is its only entry in
    // the directory (0: not recorded).
    uint64_t dir_entries = 0;
    int failed_attempts = 0;  // removals that failed and were requeued
  };
  // A retired SST no version uses any more, with the live SSTs of its
  // directory that overlap it (whose KV files must stay).
  struct RetiredRemoval {
    RetiredSst sst;
    std::vector<FileMetaData> live_overlapping;
  };
  // Remember the compaction's inputs once its edit is committed.
  void RetireInputs(Compaction* c) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // True while KV files of a retired SST of directory `dir` may be there
  // for a removal pass to unlink: the SST (one owning more of the
  // directory than its meta file, RetiredSst::dir_entries) is queued in
  // retired_ssts_, or a pass has taken it and not finished. Such a
  // directory is not renamed by a trivial move (CompactionThreadMain).
  bool HoldsRetiredKvFiles(uint64_t dir) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Take from retired_ssts_ every SST no live version uses whose directory
  // is in `live` (other directories are removed whole) and that no queued
  // dead value holds (`held`, DeadValueNamers). Adds the number of each SST
  // taken, whatever its directory, to `unused`: no version uses it, so the
  // caller evicts it from the table cache, without mutex_ (unmapping a
  // meta file can take a millisecond, which writers would wait).
  std::vector<RetiredRemoval> TakeRemovableRetiredSsts(
      const LiveNumbers& live, const std::set<uint64_t>& held,
      std::vector<uint64_t>* unused) EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Unlink the retired SSTs' entries that no live SST shares. Called
  // without mutex_. Returns those to try again (RequeueRetiredSsts): a
  // removal that met an error stops there, deleting nothing more.
  std::vector<RetiredSst> RemoveRetiredSsts(
      const std::vector<RetiredRemoval>& retired, uint64_t* unlinked)
      LOCKS_EXCLUDED(mutex_);
  // Puts the retired SSTs whose removal failed back in retired_ssts_, up
  // to a bound of attempts; past it they are left for the next open.
  void RequeueRetiredSsts(std::vector<RetiredSst> failed)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // At open: in every live directory, unlink what no live SST owns (an
  // interrupted compaction's links, a crash before retired SSTs were
  // removed). A directory whose meta files cannot be read is left alone
  // (its reads report the damage).
  void RemoveUnownedDirEntries() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Values that stay put (db_impl_dead_values.cc). KV files in homes whose
  // entries a compaction dropped, with the number of the version that
  // compaction installed: no version from before it may still be read
  // when they are unlinked (a pinned older version may hold the entry in
  // any of the SSTs it passed through, and all of them name one file).
  //
  // Dead values go before every meta file naming them (docs/DESIGN.md
  // section 5): after a crash in between, RepairDB must find a meta file
  // that names each dead value, or it takes the value back and a deleted
  // key returns. Every SST whose meta file may name a dropped entry is an
  // input of the compaction that dropped it (the SSTs the entry passed
  // through before were replaced by those inputs, which name it too), so
  // those inputs (`namers`: SST and directory numbers) are neither
  // removed as retired SSTs nor with their directories while the values
  // are queued, being unlinked, or failed to unlink. Their removal waits
  // for the values', whatever pins which.
  struct DeadValues {
    uint64_t id;       // for finding it again after the unlinks
    uint64_t version;  // installed by the compaction that dropped them
    std::vector<HomeValue> values;
    std::vector<uint64_t> namer_ssts;
    std::vector<uint64_t> namer_dirs;
    bool removing = false;  // being unlinked by a RemoveObsoleteFiles call
  };
  // Queue the dead values of the committed compaction `c`.
  void BuryDeadValues(const std::vector<HomeValue>& values, Compaction* c)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Unlink (releasing mutex_ meanwhile) the queued dead values no live
  // version can see any more, and remove the homes they empty. Values
  // unlinked, or found gone, leave the queue and release their namers;
  // values whose unlink failed otherwise stay queued, holding their
  // namers, and are tried again by the next call.
  void RemoveRemovableDeadValues(uint64_t* unlinked, uint64_t* dirs_removed)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The SSTs and directories the queued dead values hold.
  void DeadValueNamers(std::set<uint64_t>* ssts, std::set<uint64_t>* dirs)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Unlink `values` and remove the homes they empty. Called without
  // mutex_. A value already gone (NotFound, the home too) counts as
  // unlinked; at the first other error it stops, and returns that value
  // and every one not tried.
  std::vector<HomeValue> RemoveDeadValues(const std::vector<HomeValue>& values,
                                          uint64_t* unlinked,
                                          uint64_t* dirs_removed)
      LOCKS_EXCLUDED(mutex_);
  // The homes of flush builds discarded before their commit (RequeueFlushes
  // and BuildFlush, values that stay put). Evidence: the build's edit was
  // cleared under mutex_ before it reached the manifest, and its memtable
  // (whose writes its WAL also holds) is queued to be built again into a
  // new home; so no version, committed or to come, names a file in such a
  // home. RemoveObsoleteFiles removes them whole; one that fails to go is
  // tried again by the next call.
  // Called without mutex_.
  void RemoveDiscardedHomes(const std::vector<uint64_t>& homes,
                            std::vector<uint64_t>* failed, uint64_t* unlinked,
                            uint64_t* dirs_removed) LOCKS_EXCLUDED(mutex_);
  // At open: remove every file in a home that no live entry names and
  // whose name is one DeLSM gives a value (values a crash kept from being
  // unlinked, a crashed flush's values, the values of L0 SSTs replaced by
  // a WAL replay; any other name is left alone) and every home no live
  // entry names. Nothing is removed if a live meta file cannot be read.
  // Returns whether the sweep finished (values/ absent included); if not,
  // left_for_open_sweep_ is set.
  bool RemoveUnreferencedValues() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The path of SST directory `dir` at whichever level holds it, or empty.
  // Asks the file system: called without mutex_.
  std::string FindSstDir(uint64_t dir, int* level) LOCKS_EXCLUDED(mutex_);
  bool CompactionWanted() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  Status WaitForManualCompaction(ManualCompaction* m)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Properties (db_impl_properties.cc).
  // False for a memory Env's database, whose SST directories are on a
  // memory FileSystem (FileSystemForEnv): the disk at dbname_ is not its.
  bool FileSystemIsTheDisk() const;
  std::string StatsString() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The inode headroom (fs/inode_headroom.h) of the file system holding
  // the database, at the live SSTs' allocated bytes per inode.
  Status ProjectHeadroom(InodeHeadroom* headroom)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Warns in the LOG when inodes run out before space: at Open, then
  // after a flush only when that becomes so (InodeHeadroomWarns).
  void CheckInodeHeadroom() EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Constant after construction.
  Env* const env_;
  FileSystem* const fs_;
  const InternalKeyComparator internal_comparator_;
  const std::unique_ptr<const FilterPolicy> owned_filter_policy_;
  const Options options_;  // sanitized; options_.comparator is the user's
  const delsm::Tuning tuning_;
  const bool owns_info_log_;
  const std::string dbname_;
  // The value cache: options_.block_cache, or owned_value_cache_ (LevelDB's
  // 8 MiB default) when the user gave none. Set by the constructor.
  std::unique_ptr<Cache> owned_value_cache_;
  Cache* value_cache_ = nullptr;
  // Workers reading KV files ahead of scans (null when read-ahead is off).
  // Outlives table_cache_ and every iterator (destroyed last).
  std::unique_ptr<ThreadPool> read_ahead_pool_;
  // Why the constructor could not start read_ahead_pool_'s threads; Open
  // returns it.
  Status read_ahead_start_;
  // The homes of values that stay put; set by the constructor, in
  // sst_options_.homes (whatever the mode: a DB may hold such values).
  std::unique_ptr<HomeDirs> homes_;
  SstDirOptions sst_options_;
  std::unique_ptr<TableCache> table_cache_;

  FileLock* db_lock_ = nullptr;  // set by Open, released by ~DBImpl

  port::Mutex mutex_;
  // Signalled on every state change a foreground caller may wait for
  // (a writer's room in MakeRoomForWrite, CompactRange, TEST_ waits, the
  // close): a flush, compaction, durability round or removal pass done, an
  // error, a background thread's exit. No background thread waits on it.
  port::CondVar background_cv_ GUARDED_BY(mutex_);
  // Each background thread waits on a condition variable of its own,
  // signalled only when its work may have appeared, so that an event wakes
  // the one thread it concerns rather than every thread (each woken thread
  // takes mutex_, which writers queue behind). Every one of them is also
  // signalled by an error and by the close (WakeBackgroundThreads).
  //   flush_work_cv_: a memtable queued (PushImmutable), a durability round
  //     that ended a throttle, a retry backoff ended.
  //   compaction_work_cv_: a new version (ApplyEdit), a manual compaction
  //     asked for.
  //   durability_work_cv_: a flush committed an SST that waits for syncfs.
  //   removal_work_cv_: a removal pass asked for (removal_wanted_).
  port::CondVar flush_work_cv_ GUARDED_BY(mutex_);
  port::CondVar compaction_work_cv_ GUARDED_BY(mutex_);
  port::CondVar durability_work_cv_ GUARDED_BY(mutex_);
  port::CondVar removal_work_cv_ GUARDED_BY(mutex_);
  std::atomic<bool> shutting_down_{false};
  int flush_threads_running_ GUARDED_BY(mutex_) = 0;
  // Flush workers between taking a memtable and the end of their commit
  // (mutex_ is released while they build and write the manifest). Changed
  // by the workers under mutex_; exact. TEST_WaitForBackgroundWork waits
  // for none even after a background error.
  int flush_workers_busy_ GUARDED_BY(mutex_) = 0;
  // Writers stopped in MakeRoomForWrite because the immutable queue is at
  // its limit: their cores are idle, so a second build of inline values
  // may start. Changed by the writers under mutex_; exact.
  int writers_waiting_for_flush_ GUARDED_BY(mutex_) = 0;
  // A flush worker is waiting out a retry backoff: no worker starts a flush
  // meanwhile (retrying at once would fail the same way).
  bool flush_retry_pending_ GUARDED_BY(mutex_) = false;
  // The LOG has warned that inodes run out first (CheckInodeHeadroom).
  bool inode_headroom_warned_ GUARDED_BY(mutex_) = false;
  // Bumped by RequeueFlushes: a build that started under an older value is
  // discarded when it ends, so that SST numbers (which order L0: the
  // higher number holds the newer writes) keep increasing with the queue
  // order of the memtables they commit.
  uint64_t flush_generation_ GUARDED_BY(mutex_) = 0;
  bool compaction_thread_running_ GUARDED_BY(mutex_) = false;
  bool durability_thread_running_ GUARDED_BY(mutex_) = false;
  bool removal_thread_running_ GUARDED_BY(mutex_) = false;
  // A removal pass is asked for: set by the compaction thread after a
  // commit, cleared by the removal thread as its pass starts (a pass
  // removes everything removable by then, so requests made before it
  // starts need no pass of their own).
  bool removal_wanted_ GUARDED_BY(mutex_) = false;
  bool compaction_running_ GUARDED_BY(mutex_) = false;

  MemTable* mem_ GUARDED_BY(mutex_) = nullptr;
  // Immutable memtables, oldest first, each with the number of the WAL that
  // holds its writes. Up to Tuning::flush_threads of them are built at once;
  // they are committed strictly in order. Elements are only appended (the
  // writer, recovery) and popped from the front once committed, so a worker
  // may keep a pointer to the element it builds while mutex_ is released.
  struct Immutable {
    // Each flush worker takes the oldest kQueued one and makes it kBuilding;
    // mutex_ is released while the SST directory is written; then kBuilt,
    // holding the edit and status; kCommitting while its edit is applied
    // (mutex_ released again), then popped. Changed under mutex_.
    // A failed build goes from kBuilt back to kQueued (RequeueFlushes), as
    // does a build discarded because it was requeued meanwhile (kBuilding
    // to kQueued); a failed commit leaves it kCommitting, behind a
    // background error that stops all flushes.
    enum class FlushState { kQueued, kBuilding, kBuilt, kCommitting };
    Immutable(MemTable* m, uint64_t log, bool from_recovery = false)
        : mem(m), log_number(log), replayed(from_recovery) {}
    // Every change of flush_state goes through here: `from` is the state
    // the transition leaves (checked in debug and sanitizer builds).
    void Transition(FlushState from, FlushState to) {
      assert(flush_state == from);
      flush_state = to;
    }
    MemTable* mem;
    uint64_t log_number;
    bool replayed;  // recovery's, flushed by the flush workers
    FlushState flush_state = FlushState::kQueued;
    uint64_t flush_generation = 0;  // flush_generation_ when its build began
    VersionEdit flush_edit;         // kBuilt: adds its SST (if any entries)
    Status flush_status;            // kBuilt: how the build went
    // kBuilt: its SST was made durable by the build (kSyncfs: one without
    // KV files), so its WAL need not wait for the grouped syncfs.
    bool durable_at_build = false;
  };
  std::deque<Immutable> imms_ GUARDED_BY(mutex_);
  // Appends to imms_. Log numbers never decrease along imms_ (checked in
  // debug and sanitizer builds): the queue order is the order of the
  // writes, which LogFloor and the commit order rely on. Recovery may
  // queue several memtables of one WAL.
  void PushImmutable(MemTable* mem, uint64_t log_number, bool replayed)
      EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The delay, in microseconds (at most 1,000), that MakeRoomForWrite puts
  // before a write so that writers keep to the flush's pace: 0 while the
  // immutable queue is short or the last flush wrote no KV file; half the
  // flush's time per entry two short of the queue's limit; a quarter more
  // than it one short, so the queue drains before it is full.
  uint64_t FlushPaceMicros() EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::atomic<int> num_imms_{0};  // imms_.size(), readable without mutex_
  // How long the last flush of a written (not replayed) memtable took per
  // entry, in nanoseconds, divided by flush_threads (the queue's pace);
  // 0 before the first and when that flush wrote no KV file. Set by WriteLevel0
  // when a build succeeds; read by MakeRoomForWrite to pace writers while the
  // queue is one short of its limit. As stale as the last flush.
  uint64_t flush_nanos_per_entry_ GUARDED_BY(mutex_) = 0;

  std::unique_ptr<WritableFile> logfile_ GUARDED_BY(mutex_);
  uint64_t logfile_number_ GUARDED_BY(mutex_) = 0;
  std::unique_ptr<log::Writer> log_ GUARDED_BY(mutex_);
  // WALs kept by Durability::kDeferred after their flush: number -> time
  // (micros) after which they may be deleted.
  std::deque<std::pair<uint64_t, uint64_t>> deferred_logs_ GUARDED_BY(mutex_);
  // How many entries have left deferred_logs_ (expired or released by a
  // compaction's sync) since Open: with its size, the count ever pushed.
  uint64_t deferred_logs_released_ GUARDED_BY(mutex_) = 0;
  bool keep_deferred_logs_for_test_ GUARDED_BY(mutex_) = false;
  // WALs of flushes committed in Durability::kSyncfs mode whose SSTs have
  // not been made durable yet, oldest first: appended by the flush thread at
  // its commit, popped by the durability thread once a syncfs that started
  // after that commit has returned. The manifest's log floor stays at or
  // below the front, so these WALs are replayed after a power loss.
  std::deque<uint64_t> unsynced_logs_ GUARDED_BY(mutex_);
  // The SST directories those flushes committed, not durable until the same
  // syncfs: inserted with their WAL at the flush's commit, erased by the
  // round (or the clean close) that frees the WAL. Every other committed
  // SST is durable: an L0 SST without KV files fsynced by its flush, and
  // every SST below L0 (a compaction syncs before its commit; a trivial move
  // moves only a durable SST without syncing, see TrivialMove).
  std::set<uint64_t> unsynced_dirs_ GUARDED_BY(mutex_);
  // True while the durability thread runs a round (syncfs, log floor,
  // removal of the WALs freed); set and cleared by that thread.
  bool durability_round_running_ GUARDED_BY(mutex_) = false;

  std::deque<Writer*> writers_ GUARDED_BY(mutex_);
  WriteBatch* tmp_batch_ GUARDED_BY(mutex_);

  SnapshotList snapshots_ GUARDED_BY(mutex_);

  // SST directories being built: protected from RemoveObsoleteFiles.
  std::set<uint64_t> pending_outputs_ GUARDED_BY(mutex_);
  // SSTs compactions removed from the current version whose entries are
  // still to be unlinked from their (surviving) directories; appended by
  // the compaction thread, drained by RemoveObsoleteFiles once no version
  // uses them. Lost on a crash: the next open finds those entries instead.
  std::vector<RetiredSst> retired_ssts_ GUARDED_BY(mutex_);
  // The directories of the retired SSTs RemoveObsoleteFiles calls have
  // taken from retired_ssts_ and are removing, one element per SST whose
  // dir_entries is not 1 (HoldsRetiredKvFiles).
  std::multiset<uint64_t> retired_dirs_in_flight_ GUARDED_BY(mutex_);
  // Dead values of committed compactions, oldest first; appended by the
  // compaction thread, drained by RemoveObsoleteFiles once no version
  // from before their compaction is alive. Lost on a crash: the next
  // open's RemoveUnreferencedValues finds them.
  std::deque<DeadValues> dead_values_ GUARDED_BY(mutex_);
  uint64_t next_dead_values_id_ GUARDED_BY(mutex_) = 0;
  // Homes of discarded flush builds (RemoveDiscardedHomes), drained by
  // RemoveObsoleteFiles. Lost on a crash: the next open's
  // RemoveUnreferencedValues finds them.
  std::vector<uint64_t> discarded_homes_ GUARDED_BY(mutex_);
  // Set when something may be on disk that only the open sweeps
  // (RemoveUnreferencedValues, RemoveUnownedDirEntries) remove: an
  // uncommitted flush or compaction whose undo failed or that was never
  // undone (its commit failed), a retired SST whose removal was given up, a
  // dead SST directory that failed to go, or an open sweep that did not
  // finish. A Close with it set writes no clean-close marker
  // (WriteCleanCloseMarker), so the next Open sweeps.
  bool left_for_open_sweep_ GUARDED_BY(mutex_) = false;
  // Nonzero when this Open's sweep of homes did not finish: dead SST
  // directories numbered below it are not removed this session (Open).
  uint64_t kept_for_values_sweep_ GUARDED_BY(mutex_) = 0;
  // RemoveObsoleteFiles calls working without mutex_, each by the number
  // it was given as it began (removal_passes_begun_ counts them).
  std::set<uint64_t> removals_in_flight_ GUARDED_BY(mutex_);
  uint64_t removal_passes_begun_ GUARDED_BY(mutex_) = 0;
  // Dead SST directories and files one RemoveObsoleteFiles call is removing
  // (without mutex_): the flush and compaction threads both call it, and a
  // second caller must not list and unlink the same entries again. Added
  // and erased by the caller that removes them, under mutex_.
  std::set<uint64_t> dirs_being_removed_ GUARDED_BY(mutex_);
  std::set<std::string> files_being_removed_ GUARDED_BY(mutex_);

  ManualCompaction* manual_compaction_ GUARDED_BY(mutex_) = nullptr;

  std::unique_ptr<VersionSet> versions_ GUARDED_BY(mutex_);

  // The first background error; once set, writes fail with it.
  Status bg_error_ GUARDED_BY(mutex_);

  LevelStats stats_[config::kNumLevels] GUARDED_BY(mutex_);
  DentryStats dentry_stats_ GUARDED_BY(mutex_);
};

// delsm::Open with the SST directories on `fs` (not owned; must outlive the
// DB; null chooses by options.env, FileSystemForEnv). For fault-injection
// tests. Applies DELSM_OPTIONS like delsm::Open.
Status OpenWithFileSystem(const Options& options, const delsm::Tuning& tuning,
                          const std::string& name, FileSystem* fs, DB** dbptr);

// DestroyDB, RepairDB and DumpFile for a DB whose SST directories are on
// `fs` (the public entry points pass FileSystemForEnv of the Env). The WAL,
// manifest, CURRENT, LOCK and LOG go through options.env / `env` as usual.
//
// DestroyDB removes what it classifies as the database's:
//  - the files LevelDB's own DestroyDB removes, all names it knows:
//    CURRENT, LOCK, LOG, LOG.old, MANIFEST-n, n.log, n.dbtmp and LevelDB's
//    tables n.ldb and n.sst (a LevelDB database not yet converted, a
//    conversion's tables not yet removed, or tables LevelDB's RepairDB
//    made of DeLSM's WALs), and the clean-close marker CLOSED;
//  - DeLSM's own directories: in L0..L6 the SST directories (named exactly
//    as DeLSM names them, ParseSstDirName), under values/ the homes (named
//    exactly as DeLSM names them, ParseHomeDirName), in
//    leveldb-conversion/ the staged SST directories and the PLAN (or
//    PLAN.new) of a conversion or take-in of LevelDB's tables (committed
//    or not); then each of these directories, if
//    that left it empty.
// Anything else is not the database's and stays, with the directory
// holding it: the user's own files, lost/ (which both engines' repairs
// fill for the user, and LevelDB's DestroyDB keeps too), an entry of a
// level directory or of values/ under a name DeLSM never gives (such as
// "5.sst" or "5"), a directory under one of the files' names (in the
// database directory, or a PLAN in leveldb-conversion/). The call still
// returns OK then, as LevelDB's does when it leaves files it does not
// recognise: what stays is no part of the database, none of which is left (Open
// finds no database there).
//
// A directory that does not exist (or cannot be listed, with no level
// directory in it) holds no database: OK, as in LevelDB. Otherwise the
// LOCK is taken, and everything to be removed is listed first: the
// database directory, each of DeLSM's directories in it and each SST
// directory and home. What cannot be classified fails the call before
// anything is removed, and the database is left whole: a listing or a
// lookup of one of DeLSM's directories that fails (EIO, EACCES), or an
// entry under the database's name that cannot
// be listed as a directory of its own (a symbolic link, at an SST
// directory's, a home's or one of DeLSM's directories' place: nothing is
// followed out of the database directory; a file where a directory
// belongs), or a directory inside an SST directory or a home, under any
// name (DeLSM makes only files there, and an unlink cannot remove a
// directory); the Status names it. Removal then starts with CURRENT. A removal
// that fails (EIO on an unlink) stops there and fails the call: a failure to
// remove CURRENT leaves the database whole; a later one leaves a directory in
// which Open finds no database, only the rest of the database's files and
// directories (and the LOCK), which a second DestroyDB removes. The LOCK
// file itself goes last, while still locked (never after the unlock, when
// another process's Open may have locked it).
Status DestroyDBWithFileSystem(const std::string& dbname,
                               const Options& options, FileSystem* fs);
Status RepairDBWithFileSystem(const std::string& dbname, const Options& options,
                              FileSystem* fs);
Status DumpFileWithFileSystem(Env* env, FileSystem* fs,
                              const std::string& fname, WritableFile* dst);

// The filter an SST directory gets when the user set none: a 10 bits/key
// Bloom filter with the bytewise comparator, else none (a custom comparator
// may call different bytes equal). Caller owns the result; null if none.
const FilterPolicy* NewDefaultFilterPolicy(const Options& options);

// Fill in defaults and clip the user's options to sane ranges.
Options SanitizeOptions(const std::string& dbname,
                        const InternalKeyComparator* icmp,
                        const FilterPolicy* default_filter, const Options& src);

}  // namespace leveldb

#endif  // DELSM_DB_DB_IMPL_H_
