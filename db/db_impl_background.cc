// The DB's background work shared by flush and compaction (retries, the
// sticky background error, ApplyEdit) and the compaction thread, which runs
// dentry compactions (or renames) between levels. Flushes and the grouped
// durability round are in db_impl_flush.cc. Both commit through ApplyEdit,
// and obsolete directories and files are removed only once no live version
// needs them (db_impl_removal.cc).
#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "db/compaction.h"
#include "db/db_impl.h"
#include "db/dentry_compaction.h"
#include "db/filename.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "table/sst_dir.h"
#include "util/mutexlock.h"

namespace leveldb {

namespace {

// See RunDentryCompaction.
constexpr uint64_t kMaxOutputsSyncedOneByOne = 8;

}  // namespace

struct DBImpl::ManualCompaction {
  int level = 0;
  bool done = false;
  Status status;
  const InternalKey* begin = nullptr;  // null means before every key
  const InternalKey* end = nullptr;    // null means after every key
};

void DBImpl::RetryLater(const Status& s, uint64_t* backoff_micros,
                        port::CondVar* work_cv) {
  mutex_.AssertHeld();
  *backoff_micros = *backoff_micros == 0
                        ? 10000
                        : std::min<uint64_t>(*backoff_micros * 2, 1000000);
  Log(options_.info_log, "Background work retried in %llu ms: %s\n",
      static_cast<unsigned long long>(*backoff_micros / 1000),
      s.ToString().c_str());
  work_cv->WaitFor(*backoff_micros);
}

void DBImpl::WakeBackgroundThreads() {
  mutex_.AssertHeld();
  flush_work_cv_.SignalAll();
  compaction_work_cv_.Signal();
  durability_work_cv_.Signal();
  removal_work_cv_.Signal();
}

void DBImpl::RecordBackgroundError(const Status& s) {
  mutex_.AssertHeld();
  if (bg_error_.ok()) {
    bg_error_ = s;
    Log(options_.info_log, "Background error: %s\n", s.ToString().c_str());
    background_cv_.SignalAll();
    WakeBackgroundThreads();
  }
}

Status DBImpl::ApplyEdit(VersionEdit* edit, bool sync) {
  mutex_.AssertHeld();
  // LogAndApply releases the mutex while it writes the manifest and applies
  // concurrent edits (flush and compaction threads) one after another.
  Status s = versions_->LogAndApply(edit, &mutex_, sync);
  // The new version may want a compaction (or an error must reach a
  // waiting manual compaction, through RecordBackgroundError below).
  if (s.ok()) compaction_work_cv_.Signal();
  if (!s.ok()) {
    // The record may have reached the manifest (a failed sync, a torn
    // append, a CURRENT switched or not): whether the edit committed is
    // unknown until the next Open reads the manifest, while the version in
    // memory says it did not. The background error, recorded before the
    // mutex is released, is what stops every removal after this one
    // (RemoveObsoleteFiles keeps everything, the close's pass included), so
    // nothing the edit names -- its outputs, which no version here holds
    // -- is deleted on the in-memory version's word. Recorded here, not by
    // each caller: a compaction's error met while the DB closes is
    // otherwise dropped as one of a compaction the close stopped.
    RecordBackgroundError(s);
  }
  return s;
}

// ---------------------------------------------------------------------------
// Compaction

void DBImpl::CompactionThreadEntry(void* db) {
  port::SetCurrentThreadName("delsm-compact");
  port::MarkCurrentThreadBackground();
  reinterpret_cast<DBImpl*>(db)->CompactionThreadMain();
}

bool DBImpl::CompactionWanted() {
  mutex_.AssertHeld();
  return manual_compaction_ != nullptr || versions_->NeedsCompaction();
}

void DBImpl::CompactionThreadMain() {
  MutexLock l(&mutex_);
  uint64_t retry_backoff_micros = 0;
  while (!shutting_down_.load(std::memory_order_acquire)) {
    if (!bg_error_.ok() || !CompactionWanted()) {
      if (manual_compaction_ != nullptr) {  // cannot run after an error
        manual_compaction_->status = bg_error_;
        manual_compaction_->done = true;
        manual_compaction_ = nullptr;
        background_cv_.SignalAll();
      }
      compaction_work_cv_.Wait();
      continue;
    }
    compaction_running_ = true;
    ManualCompaction* m = manual_compaction_;
    Compaction* c = nullptr;
    if (m != nullptr) {
      c = versions_->CompactRange(m->level, m->begin, m->end);
      if (c == nullptr) {
        m->done = true;
        manual_compaction_ = nullptr;
      }
    } else {
      c = versions_->PickCompaction();
    }
    Status s;
    bool retryable = false;
    if (c != nullptr) {
      bool moved = false;
      // A directory still holding a retired SST's KV files is not renamed.
      // A removal pass unlinks those that no SST of the directory it took
      // to be live names, and a new SST could come to name them: moved
      // below the level those values went to, the directory can be the
      // target of a compaction of theirs, which links them in under the
      // names still there (SstDirBuilder::Link takes a name already linked
      // to the same file for its own), for an SST the pass never saw. So
      // the SST is compacted into a new directory instead.
      if (m == nullptr && c->IsTrivialMove() &&
          !HoldsRetiredKvFiles(c->input(0, 0)->dir)) {
        s = TrivialMove(c);
        moved = true;
      } else if (m == nullptr && c->IsMetaFileMove()) {
        s = LinkMove(c, &moved, &retryable);
      }
      if (s.ok() && !moved) s = RunDentryCompaction(c, &retryable);
      c->ReleaseInputs();
      delete c;
      if (s.ok()) RemoveObsoleteFilesAfterCompaction(m != nullptr);
    }
    if (s.ok()) {
      retry_backoff_micros = 0;
    } else {
      if (shutting_down_.load(std::memory_order_acquire)) {
        // Errors of a compaction stopped by the close are not errors. (A
        // failed commit is: ApplyEdit has recorded it.)
      } else if (retryable) {
        // A manual compaction reports it (and may be asked again).
        if (m == nullptr) {
          RetryLater(s, &retry_backoff_micros, &compaction_work_cv_);
        }
      } else {
        RecordBackgroundError(s);
      }
      if (m != nullptr && !m->done) {
        m->status = s;
        m->done = true;
        manual_compaction_ = nullptr;
      }
    }
    compaction_running_ = false;
    background_cv_.SignalAll();
  }
  compaction_thread_running_ = false;
  background_cv_.SignalAll();
}

// An input with nothing overlapping below moves by one rename() of its
// directory. A crash between the rename and the manifest record, or a
// power loss that undoes the rename but not the record, leaves a live
// directory under the wrong level: recovery puts it back in place
// (PlaceLiveDirectories).
//
// The move must not commit an SST that is not durable: a power loss could
// leave it missing or torn below L0, where no retained WAL replaces it. In
// kSyncfs that is an SST whose flush the grouped syncfs has not covered
// (unsynced_dirs_): the move syncs the file system first, as a compaction
// does. Any other SST is durable already, and so is the rename once the
// manifest record is (or else recovery moves it): the move makes no sync of
// its own, where a syncfs would also write back every WAL and SST written
// since the last one.
Status DBImpl::TrivialMove(Compaction* c) {
  mutex_.AssertHeld();
  const int level = c->level();
  FileMetaData* f = c->input(0, 0);
  const std::string from = SstDirName(dbname_, level, f->dir);
  const std::string to = SstDirName(dbname_, level + 1, f->dir);
  const uint64_t committed_before_sync = DeferredLogsCommitted();
  const bool needs_sync = tuning_.durability != delsm::Durability::kSyncfs ||
                          unsynced_dirs_.count(f->dir) > 0;
  mutex_.Unlock();
  Status s = fs_->Rename(from, to);
  if (s.ok() && needs_sync) {
    s = MakeDirectoriesDurable(
        fs_, CompactionDurability(tuning_.durability),
        {LevelDirName(dbname_, level + 1), LevelDirName(dbname_, level)});
  }
  mutex_.Lock();
  if (!s.ok()) return s;
  if (needs_sync) ReleaseDeferredLogs(committed_before_sync, c->edit());
  c->edit()->RemoveFile(level, f->number);
  c->edit()->AddFile(level + 1, *f);
  s = ApplyEdit(c->edit());
  if (s.ok()) dentry_stats_.trivial_moves++;
  Log(options_.info_log, "Moved #%llu to level-%d: %s\n",
      static_cast<unsigned long long>(f->number), level + 1,
      s.ToString().c_str());
  return s;
}

// An input that shares its directory with other SSTs of its level cannot
// be renamed; when its meta file is the whole SST (no KV file, in the
// directory or in a home), a second name of that file, META of a new SST
// directory at level+1 under a new number, is a second copy of the SST,
// made without reading or rewriting an entry. A meta file records no SST
// number, directory or level (table/meta_file.h): its name alone ties it
// to them. The commit is a compaction's: the new SST added, the input
// removed and retired, so the removal pass unlinks the old name as it
// unlinks any replaced SST's meta file. Killed before the commit, the new
// directory is an uncommitted output (dead at the next Open, which
// removes it whole; RepairDB merges it as exact duplicates of the
// input's entries, or sets it aside whole once a later commit ran past
// its number: the input, still live, holds them); killed after it, the
// old name is a retired SST's (the Open's sweep of its directory unlinks
// it; RepairDB leaves it out as replaced, whatever other name its file
// has).
Status DBImpl::LinkMove(Compaction* c, bool* moved, bool* retryable) {
  mutex_.AssertHeld();
  *moved = false;
  *retryable = false;
  const int level = c->level();
  FileMetaData* f = c->input(0, 0);
  mutex_.Unlock();
  Cache::Handle* h = nullptr;
  Status s = table_cache_->Find(level, f->number, f->dir, &h);
  bool meta_only = false;
  if (s.ok()) {
    meta_only = !table_cache_->Value(h)->HasKvFiles();
    table_cache_->Release(h);
  }
  mutex_.Lock();
  if (!s.ok() || !meta_only) {
    *retryable = IsOutOfDescriptors(s);
    return s;
  }
  const uint64_t number = versions_->NewFileNumber();
  pending_outputs_.insert(number);
  const uint64_t committed_before_sync = DeferredLogsCommitted();
  const std::string from = SstDirName(dbname_, level, f->dir);
  const std::string to = SstDirName(dbname_, level + 1, number);
  const std::string meta = MetaFileName(f->number, f->dir);
  mutex_.Unlock();
  s = fs_->CreateDir(to, /*ok_if_exists=*/false);
  const bool created = s.ok();
  bool linked = false;
  {
    std::unique_ptr<Directory> src, dst;
    if (s.ok()) s = fs_->OpenDirectory(from, &src);
    if (s.ok()) s = fs_->OpenDirectory(to, &dst);
    if (s.ok()) {
      s = dst->LinkFromAs(src.get(), meta, kMetaFileName);
      linked = s.ok();
    }
  }
  if (s.ok()) {
    // The file's bytes were made durable before the input's own commit;
    // the new names must be before this one.
    s = MakeDirectoriesDurable(fs_, CompactionDurability(tuning_.durability),
                               {to, LevelDirName(dbname_, level + 1)});
  }
  bool undone = true;
  if (!s.ok() && created) {
    // Never committed: the new name and directory go. (The file keeps its
    // old name, the input's, which stays live.)
    std::unique_ptr<Directory> dst;
    undone = !linked || (fs_->OpenDirectory(to, &dst).ok() &&
                         dst->Unlink(kMetaFileName).ok());
    dst.reset();
    undone = undone && fs_->RemoveDir(to).ok();
    *retryable = IsOutOfDescriptors(s);
  }
  mutex_.Lock();
  if (!undone) left_for_open_sweep_ = true;
  if (s.ok()) {
    ReleaseDeferredLogs(committed_before_sync, c->edit());
    c->edit()->RemoveFile(level, f->number);
    FileMetaData moved_sst = *f;  // the same entries, key and sequence range
    moved_sst.refs = 0;
    moved_sst.number = number;
    moved_sst.dir = number;
    c->edit()->AddFile(level + 1, moved_sst);
    s = ApplyEdit(c->edit());
    if (!s.ok()) left_for_open_sweep_ = true;
  }
  pending_outputs_.erase(number);
  if (s.ok()) {
    RetireInputs(c);
    dentry_stats_.meta_file_moves++;
    *moved = true;
  }
  Log(options_.info_log,
      "Moved #%llu to level-%d as #%llu (meta file linked): %s\n",
      static_cast<unsigned long long>(f->number), level + 1,
      static_cast<unsigned long long>(number), s.ToString().c_str());
  return s;
}

Status DBImpl::RunDentryCompaction(Compaction* c, bool* retryable) {
  mutex_.AssertHeld();
  *retryable = false;
  const uint64_t start_micros = env_->NowMicros();
  const int level = c->level();
  const SequenceNumber smallest_snapshot = SmallestLiveSnapshot();

  // Pin the inputs. Newer data first: L0 by descending number, then the
  // level's other inputs, then level+1.
  std::vector<std::pair<int, FileMetaData*>> order;
  for (int which = 0; which < 2; which++) {
    for (int i = 0; i < c->num_input_files(which); i++) {
      order.push_back({level + which, c->input(which, i)});
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const std::pair<int, FileMetaData*>& a,
                      const std::pair<int, FileMetaData*>& b) {
                     if (a.first != b.first) return a.first < b.first;
                     return a.first == 0 && a.second->number > b.second->number;
                   });

  // The level+1 inputs are replaced by new SSTs in their own directories
  // (or new ones, past Tuning::max_dir_entries).
  std::map<uint64_t, uint64_t> dir_entries;
  for (const FileMetaData* f : versions_->current()->files(level + 1)) {
    // 0: recorded by an older version; the entries and the meta file.
    dir_entries[f->dir] += f->dir_entries > 0 ? f->dir_entries : f->entries + 1;
  }
  std::vector<DentryCompaction::Target> targets;
  for (const FileMetaData* f : c->inputs(1)) {
    DentryCompaction::Target t;
    t.dir = f->dir;
    t.path = SstDirName(dbname_, level + 1, f->dir);
    t.largest_user_key = f->largest.user_key().ToString();
    t.dir_entries = dir_entries[f->dir];
    targets.push_back(std::move(t));
  }
  const uint64_t committed_before_sync = DeferredLogsCommitted();
  mutex_.Unlock();

  Status s;
  std::vector<Cache::Handle*> handles;
  std::vector<SstDir*> inputs;
  std::vector<uint64_t> input_dirs;
  for (const auto& in : order) {
    Cache::Handle* h = nullptr;
    s = table_cache_->Find(in.first, in.second->number, in.second->dir, &h);
    if (!s.ok()) break;
    handles.push_back(h);
    inputs.push_back(table_cache_->Value(h));
    input_dirs.push_back(in.second->dir);
  }

  // Every number handed to an output, finished or not: an abandoned
  // compaction forgets its outputs (DentryCompaction::Abandon), and a
  // number left in pending_outputs_ would keep its directory from the
  // removal pass and the clean-close marker from being written.
  std::vector<uint64_t> output_numbers;
  DentryCompaction::Hooks hooks;
  hooks.new_file_number = [this, &output_numbers]() {
    MutexLock l(&mutex_);
    const uint64_t n = versions_->NewFileNumber();
    pending_outputs_.insert(n);
    output_numbers.push_back(n);
    return n;
  };
  hooks.output_path = [this, level](uint64_t n) {
    return SstDirName(dbname_, level + 1, n);
  };
  hooks.is_base_level_for_key = [c](const Slice& user_key) {
    return c->IsBaseLevelForKey(user_key);
  };
  hooks.yield = [this]() {
    if (shutting_down_.load(std::memory_order_acquire)) {
      return Status::IOError("compaction stopped: the DB is closing");
    }
    return Status::OK();
  };
  // kSyncfs: in a compaction of at most kMaxOutputsSyncedOneByOne
  // outputs' worth of entries, an output without KV files is fsynced as
  // written, as a flush's is (DentryCompaction::MakeDurable). A larger one
  // syncs the file system once: two fsyncs an output, each a journal
  // commit of its own, kept a 1M x 128 B L0 compaction (about 130
  // outputs) running long enough to leave twice the L0 SSTs for the seeks
  // after it.
  SstDirOptions options = sst_options_;
  options.sync_sst_without_kv_files =
      tuning_.durability == delsm::Durability::kSyncfs &&
      c->InputEntries() <= kMaxOutputsSyncedOneByOne * tuning_.sst_entries;
  DentryCompaction dc(options, tuning_.sst_entries, smallest_snapshot, hooks,
                      tuning_.max_dir_entries);
  if (s.ok()) s = dc.Run(inputs, input_dirs, targets);
  if (s.ok()) {
    s = dc.MakeDurable(CompactionDurability(tuning_.durability),
                       LevelDirName(dbname_, level + 1));
  }
  if (s.ok() && dc.outputs().empty() &&
      tuning_.durability == delsm::Durability::kDeferred) {
    // Nothing written, so nothing synced; the sync is what lets the commit
    // release the WALs of the flushes before it (ReleaseDeferredLogs),
    // which a compaction that dropped everything needs most.
    s = MakeDirectoriesDurable(fs_, delsm::Durability::kSyncfs,
                               {LevelDirName(dbname_, level + 1)});
  }
  for (Cache::Handle* h : handles) table_cache_->Release(h);
  bool undone = true;
  if (!s.ok()) {
    undone = dc.Abandon();  // nothing was committed: it can be run again
    *retryable = IsOutOfDescriptors(s);
  }

  mutex_.Lock();
  if (!undone) left_for_open_sweep_ = true;
  if (s.ok()) {
    ReleaseDeferredLogs(committed_before_sync, c->edit());
    c->AddInputDeletions(c->edit());
    dc.AddOutputsTo(level + 1, c->edit());
    // If this fails the record may or may not be in the manifest: the
    // outputs stay on disk and the next open decides (an unreferenced
    // directory is collected then, links in the targets by its sweep).
    s = ApplyEdit(c->edit());
    if (!s.ok()) left_for_open_sweep_ = true;
  }
  // Committed, or (undone or not) never to be: the removal pass may judge
  // their directories by the current version now.
  for (uint64_t n : output_numbers) pending_outputs_.erase(n);
  if (s.ok()) {
    RetireInputs(c);
    BuryDeadValues(dc.dead_values(), c);
  }

  LevelStats stats;
  stats.micros = env_->NowMicros() - start_micros;
  stats.entries_read = dc.entries_read();
  for (const auto& out : dc.outputs())
    stats.entries_written += out.meta.entries;
  stats.links = dc.links();
  stats_[level + 1].Add(stats);
  dentry_stats_.links += dc.links();
  if (s.ok()) dentry_stats_.compactions++;
  Log(options_.info_log,
      "Compacted %d@%d + %d@%d: %llu entries read, %llu dropped, %llu links, "
      "%d directories out: %s\n",
      c->num_input_files(0), level, c->num_input_files(1), level + 1,
      static_cast<unsigned long long>(dc.entries_read()),
      static_cast<unsigned long long>(dc.entries_dropped()),
      static_cast<unsigned long long>(dc.links()),
      static_cast<int>(dc.outputs().size()), s.ToString().c_str());
  return s;
}

// ---------------------------------------------------------------------------
// Manual compaction and test hooks

Status DBImpl::WaitForManualCompaction(ManualCompaction* m) {
  mutex_.AssertHeld();
  while (manual_compaction_ != nullptr && bg_error_.ok()) {
    background_cv_.Wait();  // another CompactRange is running
  }
  if (!bg_error_.ok()) return bg_error_;
  manual_compaction_ = m;
  compaction_work_cv_.Signal();
  while (!m->done) background_cv_.Wait();
  return m->status;
}

void DBImpl::CompactRange(const Slice* begin, const Slice* end) {
  int max_level_with_files = 1;
  {
    MutexLock l(&mutex_);
    Version* base = versions_->current();
    for (int level = 1; level < config::kNumLevels; level++) {
      if (base->OverlapInLevel(level, begin, end)) {
        max_level_with_files = level;
      }
    }
  }
  if (!TEST_FlushMemTable().ok()) return;

  InternalKey begin_key, end_key;
  if (begin != nullptr) {
    begin_key = InternalKey(*begin, kMaxSequenceNumber, kValueTypeForSeek);
  }
  if (end != nullptr) end_key = InternalKey(*end, 0, kTypeDeletion);
  MutexLock l(&mutex_);
  for (int level = 0; level < max_level_with_files; level++) {
    ManualCompaction m;
    m.level = level;
    m.begin = begin != nullptr ? &begin_key : nullptr;
    m.end = end != nullptr ? &end_key : nullptr;
    if (!WaitForManualCompaction(&m).ok()) break;
  }
  // Each compaction ran its removal pass before it was done; what another
  // pass running meanwhile (a flush's, the removal thread's) took of what
  // they made obsolete is gone once that pass ends.
  WaitForRemovalPassesInFlight();
}

Status DBImpl::TEST_CompactRange(int level, const Slice* begin,
                                 const Slice* end) {
  if (level < 0 || level + 1 >= config::kNumLevels) {
    return Status::InvalidArgument("TEST_CompactRange: no level below");
  }
  InternalKey begin_key, end_key;
  if (begin != nullptr) {
    begin_key = InternalKey(*begin, kMaxSequenceNumber, kValueTypeForSeek);
  }
  if (end != nullptr) end_key = InternalKey(*end, 0, kTypeDeletion);
  ManualCompaction m;
  m.level = level;
  m.begin = begin != nullptr ? &begin_key : nullptr;
  m.end = end != nullptr ? &end_key : nullptr;
  MutexLock l(&mutex_);
  return WaitForManualCompaction(&m);
}

Status DBImpl::TEST_FlushMemTable() {
  Status s = Write(WriteOptions(), nullptr);
  MutexLock l(&mutex_);
  // Wait only for the memtables queued so far (their WALs precede the
  // current one): writers that keep queueing new ones must not starve us.
  const uint64_t current_log = logfile_number_;
  while (s.ok() && !imms_.empty() && imms_.front().log_number < current_log &&
         bg_error_.ok()) {
    background_cv_.Wait();
  }
  // As after LevelDB's flush, what it wrote is durable on return: wait for
  // the grouped syncfs that covers these flushes (kSyncfs).
  while (s.ok() && !unsynced_logs_.empty() &&
         unsynced_logs_.front() < current_log && bg_error_.ok()) {
    background_cv_.Wait();
  }
  if (s.ok()) s = bg_error_;
  return s;
}

void DBImpl::TEST_KeepDeferredLogs() {
  MutexLock l(&mutex_);
  keep_deferred_logs_for_test_ = true;
}

Status DBImpl::TEST_WaitForBackgroundWork() {
  MutexLock l(&mutex_);
  while ((bg_error_.ok() && (!imms_.empty() || CompactionWanted() ||
                             removal_wanted_ || !unsynced_logs_.empty())) ||
         flush_workers_busy_ > 0 || compaction_running_ ||
         !removals_in_flight_.empty() || durability_round_running_) {
    background_cv_.Wait();
  }
  return bg_error_;
}

}  // namespace leveldb
