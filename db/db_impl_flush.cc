// Flush: the flush workers turn immutable memtables into L0 SST
// directories (several at once with Tuning::flush_threads, committed in
// queue order), the durability thread makes committed flushes durable with
// one syncfs per round (Durability::kSyncfs), and the log floor moves past
// the WALs no longer needed. Shared background machinery (ApplyEdit,
// retries, the background error, RemoveObsoleteFiles) is in
// db_impl_background.cc.
#include <algorithm>

#include "db/db_impl.h"
#include "db/filename.h"
#include "db/memtable.h"
#include "db/shadowed_versions.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "table/sst_dir_builder.h"
#include "util/mutexlock.h"

namespace leveldb {

// ---------------------------------------------------------------------------
// Flush

void DBImpl::FlushThreadEntry(void* db) {
  port::SetCurrentThreadName("delsm-flush");
  reinterpret_cast<DBImpl*>(db)->FlushThreadMain();
}

namespace {
// kSyncfs: flushes committed but not yet durable before the flush thread
// waits for the durability thread. Bounds the WALs kept (and replayed after
// a power loss) to this many memtables.
constexpr size_t kMaxUnsyncedFlushes = 8;
}  // namespace

uint64_t DBImpl::LogFloor(size_t first_unflushed) {
  mutex_.AssertHeld();
  uint64_t floor = imms_.size() > first_unflushed
                       ? imms_[first_unflushed].log_number
                       : logfile_number_;
  if (!deferred_logs_.empty()) {
    floor = std::min(floor, deferred_logs_.front().first);
  }
  if (!unsynced_logs_.empty()) floor = std::min(floor, unsynced_logs_.front());
  return floor;
}

void DBImpl::AdvanceLogFloor() {
  mutex_.AssertHeld();
  const uint64_t floor = LogFloor(0);
  if (floor <= versions_->LogNumber()) return;  // nothing to free
  VersionEdit edit;
  edit.SetPrevLogNumber(0);
  edit.SetLogNumber(floor);
  Status s = ApplyEdit(&edit);
  if (s.ok()) {
    RemoveObsoleteFiles();
  } else {
    RecordBackgroundError(s);
  }
}

uint64_t DBImpl::DeferredLogsCommitted() {
  mutex_.AssertHeld();
  return deferred_logs_released_ + deferred_logs_.size();
}

void DBImpl::ReleaseDeferredLogs(uint64_t committed_before_sync,
                                 VersionEdit* edit) {
  mutex_.AssertHeld();
  // An entry is pushed when its flush commits, after the flush built (and
  // wrote) its SST: those counted before the sync were covered by it. A WAL
  // of a memtable not yet committed is held by LogFloor through imms_.
  bool released = false;
  while (!keep_deferred_logs_for_test_ && !deferred_logs_.empty() &&
         deferred_logs_released_ < committed_before_sync) {
    deferred_logs_.pop_front();
    deferred_logs_released_++;
    released = true;
  }
  if (released) {
    edit->SetPrevLogNumber(0);
    edit->SetLogNumber(LogFloor(0));
  }
}

// Every flush worker runs this loop. A worker takes the oldest memtable no
// one has taken, builds its L0 SST directory with mutex_ released, then
// commits whatever is built at the front of the queue, in queue order.
// Workers build into different directories at once, which is where the
// file system's create rate scales (one directory's creates are
// serialized by its lock).
void DBImpl::FlushThreadMain() {
  MutexLock l(&mutex_);
  uint64_t retry_backoff_micros = 0;
  while (!shutting_down_.load(std::memory_order_acquire)) {
    if (!deferred_logs_.empty() &&
        deferred_logs_.front().second <= env_->NowMicros() && bg_error_.ok()) {
      // A retained WAL's time is up (Durability::kDeferred): move the
      // manifest's log floor past it so it is deleted.
      deferred_logs_.pop_front();
      deferred_logs_released_++;
      AdvanceLogFloor();
      continue;
    }
    const bool throttled = unsynced_logs_.size() >= kMaxUnsyncedFlushes;
    Immutable* imm = nullptr;
    if (bg_error_.ok() && !throttled && !flush_retry_pending_) {
      imm = NextFlushToBuild();
    }
    if (imm == nullptr) {
      if (deferred_logs_.empty()) {
        flush_work_cv_.Wait();
      } else {
        flush_work_cv_.WaitFor(1000 * 1000);
      }
      continue;
    }
    flush_workers_busy_++;
    BuildFlush(imm);
    bool retryable = false;
    Status s = CommitBuiltFlushes(&retryable);
    flush_workers_busy_--;
    if (s.ok()) {
      retry_backoff_micros = 0;
    } else if (retryable) {
      flush_retry_pending_ = true;
      RetryLater(s, &retry_backoff_micros, &flush_work_cv_);
      flush_retry_pending_ = false;
      flush_work_cv_.SignalAll();  // the other workers may go on
    } else {
      RecordBackgroundError(s);
    }
    background_cv_.SignalAll();
  }
  flush_threads_running_--;
  background_cv_.SignalAll();
}

DBImpl::Immutable* DBImpl::NextFlushToBuild() {
  mutex_.AssertHeld();
  bool building = false;
  for (Immutable& imm : imms_) {
    if (imm.flush_state == Immutable::FlushState::kQueued) {
      // Parallel builds pay where they create KV files (each directory's
      // creates are serialized by its lock, see FlushThreadMain). A
      // memtable of inline values is CPU work (mostly compression): a
      // second build beside the first would take a core from the writers,
      // and with a queue that holds several memtables they would be
      // preempted for the flushes of a fill already acknowledged. Only a
      // writer stopped for the queue leaves its core idle; otherwise the
      // worker whose build ends takes it next.
      if (!building || FlushWritesKvFiles(imm.mem) ||
          writers_waiting_for_flush_ > 0) {
        return &imm;
      }
      return nullptr;
    }
    if (imm.flush_state == Immutable::FlushState::kBuilding) {
      building = true;
      if (imm.flush_generation != flush_generation_) {
        // An older memtable will be queued again when its discarded build
        // ends; a younger one must not take a number before it.
        return nullptr;
      }
    }
  }
  return nullptr;
}

bool DBImpl::FlushWritesKvFiles(MemTable* mem) const {
  return tuning_.inline_threshold == 0 ||
         mem->LargestValueSize() > tuning_.inline_threshold;
}

void DBImpl::BuildFlush(Immutable* imm) {
  mutex_.AssertHeld();
  imm->Transition(Immutable::FlushState::kQueued,
                  Immutable::FlushState::kBuilding);
  imm->flush_generation = flush_generation_;
  imm->flush_edit.Clear();
  const bool grouped = tuning_.durability == delsm::Durability::kSyncfs;
  DentryStats& d = dentry_stats_;
  d.max_parallel_flushes =
      std::max(d.max_parallel_flushes, ++d.flushes_building);
  // WriteLevel0 takes the SST's number before it releases mutex_, so the
  // numbers of builds follow the queue order.
  bool durable = false;
  Status s = WriteLevel0(imm->mem, imm->log_number, &imm->flush_edit,
                         /*make_durable=*/!grouped, imm->replayed,
                         /*below_unreadable=*/nullptr, &durable);
  imm->durable_at_build = durable;
  d.flushes_building--;
  if (imm->flush_generation != flush_generation_) {
    // Requeued while it was built (an older flush failed and is retried):
    // its number would now sort before the retried one's.
    DiscardBuiltFlush(imm);
    imm->Transition(Immutable::FlushState::kBuilding,
                    Immutable::FlushState::kQueued);
    return;
  }
  imm->flush_status = s;
  imm->Transition(Immutable::FlushState::kBuilding,
                  Immutable::FlushState::kBuilt);
}

void DBImpl::DiscardBuiltFlush(Immutable* imm) {
  mutex_.AssertHeld();
  for (const auto& added : imm->flush_edit.new_files()) {
    // Its SST directory is now an orphan RemoveObsoleteFiles removes; its
    // home (values that stay put) is not in a level directory, so it is
    // named for removal (discarded_homes_ in db_impl.h says why that is
    // safe).
    pending_outputs_.erase(added.second.number);
    if (tuning_.values_stay_put) {
      discarded_homes_.push_back(added.second.number);
    }
  }
  imm->flush_edit.Clear();
}

void DBImpl::RequeueFlushes() {
  mutex_.AssertHeld();
  flush_generation_++;
  for (Immutable& imm : imms_) {
    if (imm.flush_state != Immutable::FlushState::kBuilt) continue;
    DiscardBuiltFlush(&imm);
    imm.flush_status = Status::OK();
    imm.Transition(Immutable::FlushState::kBuilt,
                   Immutable::FlushState::kQueued);
  }
}

Status DBImpl::CommitBuiltFlushes(bool* retryable) {
  mutex_.AssertHeld();
  *retryable = false;
  const bool grouped = tuning_.durability == delsm::Durability::kSyncfs;
  while (!imms_.empty() &&
         imms_.front().flush_state == Immutable::FlushState::kBuilt) {
    Immutable& imm = imms_.front();
    Status s = imm.flush_status;
    if (!s.ok()) {
      // Nothing is committed yet: the flush can simply be run again, and
      // so must every later one (see flush_generation_).
      *retryable = IsOutOfDescriptors(s);
      if (*retryable) RequeueFlushes();
      return s;
    }
    imm.Transition(Immutable::FlushState::kBuilt,
                   Immutable::FlushState::kCommitting);
    VersionEdit* edit = &imm.flush_edit;
    const uint64_t log_number = imm.log_number;
    // Every write of this memtable is now in L0. Its WAL may go now
    // (kFsync), after the next grouped syncfs (kSyncfs) or after the
    // retention time (kDeferred).
    if (tuning_.durability == delsm::Durability::kDeferred) {
      deferred_logs_.push_back(
          {log_number,
           env_->NowMicros() + tuning_.deferred_wal_retention_micros});
    } else if (grouped && !edit->new_files().empty() && !imm.durable_at_build) {
      unsynced_logs_.push_back(log_number);
      for (const auto& added : edit->new_files()) {
        unsynced_dirs_.insert(added.second.dir);
      }
      durability_work_cv_.Signal();
    }
    edit->SetPrevLogNumber(0);
    edit->SetLogNumber(LogFloor(1));
    // An SST committed before it is durable keeps its WAL, so its record
    // need not be durable either: lost in a power loss, the WAL replays and
    // the orphan directory is swept, as when the SST itself is lost. The
    // record is synced with the next synced one (the durability round's
    // log-floor edit, which must precede deleting the WAL, or a
    // compaction's); a record that frees a WAL is synced at once.
    const bool sync = !FlushCommitsBeforeDurable(tuning_.durability) ||
                      edit->log_number() > versions_->LogNumber();
    s = ApplyEdit(edit, sync);
    if (!s.ok() && grouped && !unsynced_logs_.empty() &&
        unsynced_logs_.back() == log_number) {
      unsynced_logs_.pop_back();  // not committed: still imms_.front()'s
      for (const auto& added : edit->new_files()) {
        unsynced_dirs_.erase(added.second.dir);
      }
    }
    for (const auto& added : edit->new_files()) {
      pending_outputs_.erase(added.second.number);
    }
    if (!s.ok()) return s;
    assert(imm.flush_state == Immutable::FlushState::kCommitting);
    // New KV files took inodes: warn if they now run out first, while the
    // memtable is still queued, so the warning is in the LOG before a
    // writer or TEST_FlushMemTable can see this flush end.
    CheckInodeHeadroom();
    imm.mem->Unref();
    imms_.pop_front();
    num_imms_.store(static_cast<int>(imms_.size()), std::memory_order_release);
    dentry_stats_.flushes++;
    if (grouped && bg_error_.ok() && LogFloor(0) > versions_->LogNumber()) {
      // A grouped syncfs ran while the edit above was being written (the
      // SST was already in unsynced_logs_): it made this SST durable, but
      // its log floor stopped at this memtable, still queued then. No
      // later round will come for it, so this WAL would stay until the
      // next flush; free it now.
      AdvanceLogFloor();
    } else {
      RemoveObsoleteFiles();
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Grouped durability (Durability::kSyncfs)
//
// A flush commits its L0 SST without waiting for it to reach the disk; its
// WAL stays (unsynced_logs_). This thread makes every such SST durable with
// one syncfs, however many flushes committed while the previous one ran, and
// then moves the manifest's log floor past their WALs. The promise is
// kSyncfs's: a write is always in a synced WAL or in a durable SST (an
// acknowledged sync=true write survives power loss), and the flush thread
// never waits for the disk unless kMaxUnsyncedFlushes are pending.

void DBImpl::DurabilityThreadEntry(void* db) {
  port::SetCurrentThreadName("delsm-sync");
  reinterpret_cast<DBImpl*>(db)->DurabilityThreadMain();
}

void DBImpl::DurabilityThreadMain() {
  MutexLock l(&mutex_);
  uint64_t retry_backoff_micros = 0;
  while (true) {
    const bool stopping = shutting_down_.load(std::memory_order_acquire);
    if (unsynced_logs_.empty() || !bg_error_.ok()) {
      if (stopping) break;
      durability_work_cv_.Wait();
      continue;
    }
    // (When stopping, one last round, so that the next Open need not
    // replay these WALs.)
    const size_t covered = unsynced_logs_.size();
    // The SSTs of those flushes: committed with them, so named here now.
    const std::set<uint64_t> covered_dirs = unsynced_dirs_;
    durability_round_running_ = true;
    mutex_.Unlock();
    Status s = MakeDirectoriesDurable(fs_, delsm::Durability::kSyncfs,
                                      {LevelDirName(dbname_, 0)});
    mutex_.Lock();
    if (!s.ok()) {
      durability_round_running_ = false;
      if (IsOutOfDescriptors(s) && !stopping) {
        // Transient (opening L0's directory): the SSTs keep their WALs
        // until a later round succeeds.
        RetryLater(s, &retry_backoff_micros, &durability_work_cv_);
        continue;
      }
      // The SSTs may not be durable: keep their WALs, stop writes.
      RecordBackgroundError(s);
      continue;
    }
    retry_backoff_micros = 0;
    dentry_stats_.durability_syncs++;
    const bool throttled = unsynced_logs_.size() >= kMaxUnsyncedFlushes;
    unsynced_logs_.erase(unsynced_logs_.begin(),
                         unsynced_logs_.begin() + covered);
    for (uint64_t dir : covered_dirs) unsynced_dirs_.erase(dir);
    AdvanceLogFloor();
    durability_round_running_ = false;
    background_cv_.SignalAll();
    if (throttled) flush_work_cv_.SignalAll();  // a throttled flush may go on
  }
  durability_thread_running_ = false;
  background_cv_.SignalAll();
}

Status DBImpl::WriteLevel0(MemTable* mem, uint64_t wal_number,
                           VersionEdit* edit, bool make_durable, bool replayed,
                           bool* below_unreadable, bool* durable) {
  mutex_.AssertHeld();
  const uint64_t start_micros = env_->NowMicros();
  const uint64_t number = versions_->NewFileNumber();
  pending_outputs_.insert(number);
  const SequenceNumber smallest_snapshot = SmallestLiveSnapshot();
  Iterator* iter = mem->NewIterator();
  // What the levels below L0 hold, for a replayed memtable.
  Version* below = replayed ? versions_->current() : nullptr;
  if (below != nullptr) below->Ref();
  mutex_.Unlock();

  // kSyncfs: an SST without KV files is made durable here, its meta file
  // (and LONGKEYS) fsynced as written and its directories synced, rather
  // than by the grouped syncfs: a few fsyncs, where the syncfs would also
  // write back the WALs, whose pages are then deleted unread (at 100k
  // writes of 256 B values, twice the device bytes). An SST with KV files
  // (a thousand or more files) waits for the syncfs, one call for all.
  SstDirOptions options = sst_options_;
  options.sync_sst_without_kv_files =
      tuning_.durability == delsm::Durability::kSyncfs;
  SstDirBuilder builder(options, SstDirName(dbname_, 0, number));
  // Values that stay put go to a home of their own, numbered as the SST.
  if (tuning_.values_stay_put) builder.SetHome(number);
  Status s = builder.Begin();
  ShadowedVersions shadowed(internal_comparator_.user_comparator(),
                            smallest_snapshot);
  uint64_t dropped = 0;
  uint64_t held_below = 0;
  for (iter->SeekToFirst(); s.ok() && iter->Valid(); iter->Next()) {
    ParsedInternalKey ikey;
    if (!ParseInternalKey(iter->key(), &ikey)) {
      s = Status::Corruption("bad internal key in memtable");
      break;
    }
    // A shadowed version never needs a KV file.
    if (shadowed.Shadowed(ikey)) {
      dropped++;
      continue;
    }
    // A replayed write a deeper level already holds (or shadows) must not
    // come back at L0: the copy would be a second KV file of the same name,
    // which a later compaction could not link into a directory where the
    // deeper copy's name lingers.
    bool held = false;
    if (below != nullptr) {
      s = HeldBelowLevel0(below, ikey, &held);
      if (!s.ok()) {
        if (below_unreadable != nullptr) *below_unreadable = true;
        break;
      }
    }
    if (held) {
      held_below++;
      continue;
    }
    s = builder.Add(iter->key(), iter->value());
  }
  if (s.ok()) s = iter->status();
  delete iter;
  bool synced = false;  // the SST made durable here
  if (s.ok() && builder.NumEntries() > 0) {
    s = builder.Finish();
    if (s.ok() && (make_durable || builder.FilesSynced())) {
      // Files fsynced as written (kFsync, or an SST without KV files): its
      // directories' fsyncs make it durable; otherwise the mode's way.
      std::vector<std::string> dirs;
      if (!builder.home_path().empty()) {
        dirs.push_back(builder.home_path());
        dirs.push_back(homes_->root());
      }
      dirs.push_back(builder.path());
      dirs.push_back(LevelDirName(dbname_, 0));
      const delsm::Durability mode = builder.FilesSynced()
                                         ? delsm::Durability::kFsync
                                         : tuning_.durability;
      s = MakeDirectoriesDurable(fs_, mode, dirs);
      synced = s.ok() && mode != delsm::Durability::kDeferred;
    }
  }
  if (durable != nullptr) *durable = synced;
  const uint64_t entries = builder.NumEntries();
  // A build not undone leaves its home (values that stay put), which only
  // the open sweep removes.
  const bool undone = s.ok() && entries > 0 ? true : builder.Abandon();

  mutex_.Lock();
  if (!undone) left_for_open_sweep_ = true;
  if (below != nullptr) below->Unref();
  if (held_below > 0) {
    Log(options_.info_log,
        "Flush #%llu: %llu replayed writes left out, already held below L0\n",
        static_cast<unsigned long long>(number),
        static_cast<unsigned long long>(held_below));
  }
  Log(options_.info_log,
      "Flush #%llu: %llu entries (%llu shadowed versions dropped), %llu KV "
      "files, %s\n",
      static_cast<unsigned long long>(number),
      static_cast<unsigned long long>(entries),
      static_cast<unsigned long long>(dropped),
      static_cast<unsigned long long>(builder.files_created()),
      s.ToString().c_str());
  if (s.ok() && entries > 0) {
    FileMetaData meta = BuiltSstMetaData(number, number, builder);
    meta.wal_number = wal_number;
    edit->AddFile(0, meta);
  } else {
    pending_outputs_.erase(number);
  }
  dentry_stats_.kv_files_created += builder.files_created();
  dentry_stats_.bytes_written += builder.bytes_written();
  if (synced) dentry_stats_.durability_syncs++;
  LevelStats stats;
  stats.micros = env_->NowMicros() - start_micros;
  stats.entries_written = entries;
  stats_[0].Add(stats);
  if (s.ok() && entries > 0 && !replayed) {
    // Only a flush that writes KV files is slower than the writer; one of
    // inline values keeps up, and a sleep of a few microseconds would
    // oversleep (timer slack) by more than it paces.
    flush_nanos_per_entry_ = builder.files_created() == 0
                                 ? 0
                                 : stats.micros * 1000 / entries /
                                       std::max(tuning_.flush_threads, 1);
  }
  return s;
}

}  // namespace leveldb
