// The DB's background work: the flush thread turns immutable memtables into
// L0 SST directories; the compaction thread runs dentry compactions (or
// renames) between levels. Both commit through ApplyEdit, and obsolete
// directories and files are removed only once no live version needs them.
#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "db/compaction.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "db/dentry_compaction.h"
#include "db/shadowed_versions.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "db/sst_dir_removal.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"
#include "util/mutexlock.h"

namespace leveldb {

struct DBImpl::ManualCompaction {
  int level = 0;
  bool done = false;
  Status status;
  const InternalKey* begin = nullptr;  // null means before every key
  const InternalKey* end = nullptr;    // null means after every key
};

void DBImpl::RetryLater(const Status& s, uint64_t* backoff_micros) {
  mutex_.AssertHeld();
  *backoff_micros = *backoff_micros == 0
                        ? 10000
                        : std::min<uint64_t>(*backoff_micros * 2, 1000000);
  Log(options_.info_log, "Background work retried in %llu ms: %s\n",
      static_cast<unsigned long long>(*backoff_micros / 1000),
      s.ToString().c_str());
  background_cv_.WaitFor(*backoff_micros);
}

void DBImpl::RecordBackgroundError(const Status& s) {
  mutex_.AssertHeld();
  if (bg_error_.ok()) {
    bg_error_ = s;
    Log(options_.info_log, "Background error: %s\n", s.ToString().c_str());
    background_cv_.SignalAll();
  }
}

Status DBImpl::ApplyEdit(VersionEdit* edit, bool sync) {
  mutex_.AssertHeld();
  // LogAndApply releases the mutex while it writes the manifest and applies
  // concurrent edits (flush and compaction threads) one after another.
  return versions_->LogAndApply(edit, &mutex_, sync);
}

// ---------------------------------------------------------------------------
// Flush

void DBImpl::FlushThreadEntry(void* db) {
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
        background_cv_.Wait();
      } else {
        background_cv_.WaitFor(1000 * 1000);
      }
      continue;
    }
    BuildFlush(imm);
    bool retryable = false;
    Status s = CommitBuiltFlushes(&retryable);
    if (s.ok()) {
      retry_backoff_micros = 0;
    } else if (retryable) {
      flush_retry_pending_ = true;
      RetryLater(s, &retry_backoff_micros);
      flush_retry_pending_ = false;
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
  for (Immutable& imm : imms_) {
    if (imm.flush_state == Immutable::FlushState::kQueued) return &imm;
    if (imm.flush_state == Immutable::FlushState::kBuilding &&
        imm.flush_generation != flush_generation_) {
      // An older memtable will be queued again when its discarded build
      // ends; a younger one must not take a number before it.
      return nullptr;
    }
  }
  return nullptr;
}

void DBImpl::BuildFlush(Immutable* imm) {
  mutex_.AssertHeld();
  imm->flush_state = Immutable::FlushState::kBuilding;
  imm->flush_generation = flush_generation_;
  imm->flush_edit.Clear();
  const bool grouped = tuning_.durability == delsm::Durability::kSyncfs;
  DentryStats& d = dentry_stats_;
  d.max_parallel_flushes =
      std::max(d.max_parallel_flushes, ++d.flushes_building);
  // WriteLevel0 takes the SST's number before it releases mutex_, so the
  // numbers of builds follow the queue order.
  Status s = WriteLevel0(imm->mem, &imm->flush_edit, /*make_durable=*/!grouped,
                         imm->replayed);
  d.flushes_building--;
  if (imm->flush_generation != flush_generation_) {
    // Requeued while it was built (an older flush failed and is retried):
    // its number would now sort before the retried one's.
    for (const auto& added : imm->flush_edit.new_files()) {
      pending_outputs_.erase(added.second.number);
    }
    imm->flush_edit.Clear();
    imm->flush_state = Immutable::FlushState::kQueued;
    return;
  }
  imm->flush_status = s;
  imm->flush_state = Immutable::FlushState::kBuilt;
}

void DBImpl::RequeueFlushes() {
  mutex_.AssertHeld();
  flush_generation_++;
  for (Immutable& imm : imms_) {
    if (imm.flush_state != Immutable::FlushState::kBuilt) continue;
    for (const auto& added : imm.flush_edit.new_files()) {
      pending_outputs_.erase(added.second.number);
    }
    imm.flush_edit.Clear();
    imm.flush_status = Status::OK();
    imm.flush_state = Immutable::FlushState::kQueued;
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
    imm.flush_state = Immutable::FlushState::kCommitting;
    VersionEdit* edit = &imm.flush_edit;
    const uint64_t log_number = imm.log_number;
    // Every write of this memtable is now in L0. Its WAL may go now
    // (kFsync), after the next grouped syncfs (kSyncfs) or after the
    // retention time (kDeferred).
    if (tuning_.durability == delsm::Durability::kDeferred) {
      deferred_logs_.push_back(
          {log_number,
           env_->NowMicros() + tuning_.deferred_wal_retention_micros});
    } else if (grouped && !edit->new_files().empty()) {
      unsynced_logs_.push_back(log_number);
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
    }
    for (const auto& added : edit->new_files()) {
      pending_outputs_.erase(added.second.number);
    }
    if (!s.ok()) return s;
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
  reinterpret_cast<DBImpl*>(db)->DurabilityThreadMain();
}

void DBImpl::DurabilityThreadMain() {
  MutexLock l(&mutex_);
  uint64_t retry_backoff_micros = 0;
  while (true) {
    const bool stopping = shutting_down_.load(std::memory_order_acquire);
    if (unsynced_logs_.empty() || !bg_error_.ok()) {
      if (stopping) break;
      background_cv_.Wait();
      continue;
    }
    // (When stopping, one last round, so that the next Open need not
    // replay these WALs.)
    const size_t covered = unsynced_logs_.size();
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
        RetryLater(s, &retry_backoff_micros);
        continue;
      }
      // The SSTs may not be durable: keep their WALs, stop writes.
      RecordBackgroundError(s);
      continue;
    }
    retry_backoff_micros = 0;
    dentry_stats_.durability_syncs++;
    unsynced_logs_.erase(unsynced_logs_.begin(),
                         unsynced_logs_.begin() + covered);
    AdvanceLogFloor();
    durability_round_running_ = false;
    background_cv_.SignalAll();  // a throttled flush may go on
  }
  durability_thread_running_ = false;
  background_cv_.SignalAll();
}

Status DBImpl::WriteLevel0(MemTable* mem, VersionEdit* edit, bool make_durable,
                           bool replayed) {
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

  SstDirBuilder builder(sst_options_, SstDirName(dbname_, 0, number));
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
    if (below != nullptr && HeldBelowLevel0(below, ikey)) {
      held_below++;
      continue;
    }
    s = builder.Add(iter->key(), iter->value());
  }
  if (s.ok()) s = iter->status();
  delete iter;
  if (s.ok() && builder.NumEntries() > 0) {
    s = builder.Finish();
    if (s.ok() && make_durable) {
      // KV files and META were fsynced as written in kFsync mode.
      s = MakeDirectoriesDurable(fs_, tuning_.durability,
                                 {builder.path(), LevelDirName(dbname_, 0)});
    }
  }
  const uint64_t entries = builder.NumEntries();
  if (!s.ok() || entries == 0) builder.Abandon();

  mutex_.Lock();
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
    edit->AddFile(0, BuiltSstMetaData(number, number, builder));
  } else {
    pending_outputs_.erase(number);
  }
  dentry_stats_.kv_files_created += builder.files_created();
  dentry_stats_.bytes_written += builder.bytes_written();
  if (make_durable && tuning_.durability != delsm::Durability::kDeferred) {
    dentry_stats_.durability_syncs++;
  }
  LevelStats stats;
  stats.micros = env_->NowMicros() - start_micros;
  stats.entries_written = entries;
  stats_[0].Add(stats);
  return s;
}

// ---------------------------------------------------------------------------
// Compaction

void DBImpl::CompactionThreadEntry(void* db) {
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
      background_cv_.Wait();
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
      s = (m == nullptr && c->IsTrivialMove()) ? TrivialMove(c)
                                               : LinkCompaction(c, &retryable);
      c->ReleaseInputs();
      delete c;
      if (s.ok()) RemoveObsoleteFiles();
    }
    if (s.ok()) {
      retry_backoff_micros = 0;
    } else {
      if (shutting_down_.load(std::memory_order_acquire)) {
        // Errors of a compaction stopped by the close are not errors.
      } else if (retryable) {
        // A manual compaction reports it (and may be asked again).
        if (m == nullptr) RetryLater(s, &retry_backoff_micros);
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
// directory. A crash between the rename and the manifest record leaves a
// live directory under the wrong level: recovery puts it back in place.
Status DBImpl::TrivialMove(Compaction* c) {
  mutex_.AssertHeld();
  const int level = c->level();
  FileMetaData* f = c->input(0, 0);
  const std::string from = SstDirName(dbname_, level, f->dir);
  const std::string to = SstDirName(dbname_, level + 1, f->dir);
  mutex_.Unlock();
  Status s = fs_->Rename(from, to);
  if (s.ok()) {
    s = MakeDirectoriesDurable(
        fs_, CompactionDurability(tuning_.durability),
        {LevelDirName(dbname_, level + 1), LevelDirName(dbname_, level)});
  }
  mutex_.Lock();
  if (!s.ok()) return s;
  c->edit()->RemoveFile(level, f->number);
  c->edit()->AddFile(level + 1, *f);
  s = ApplyEdit(c->edit());
  if (s.ok()) dentry_stats_.trivial_moves++;
  Log(options_.info_log, "Moved #%llu to level-%d: %s\n",
      static_cast<unsigned long long>(f->number), level + 1,
      s.ToString().c_str());
  return s;
}

Status DBImpl::LinkCompaction(Compaction* c, bool* retryable) {
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

  DentryCompaction::Hooks hooks;
  hooks.new_file_number = [this]() {
    MutexLock l(&mutex_);
    const uint64_t n = versions_->NewFileNumber();
    pending_outputs_.insert(n);
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
  DentryCompaction dc(sst_options_, tuning_.sst_entries, smallest_snapshot,
                      hooks, tuning_.max_dir_entries);
  if (s.ok()) s = dc.Run(inputs, input_dirs, targets);
  if (s.ok()) {
    s = dc.MakeDurable(CompactionDurability(tuning_.durability),
                       LevelDirName(dbname_, level + 1));
  }
  for (Cache::Handle* h : handles) table_cache_->Release(h);
  if (!s.ok()) {
    dc.Abandon();  // nothing was committed: it can be run again
    *retryable = IsOutOfDescriptors(s);
  }

  mutex_.Lock();
  if (s.ok()) {
    c->AddInputDeletions(c->edit());
    dc.AddOutputsTo(level + 1, c->edit());
    // If this fails the record may or may not be in the manifest: the
    // outputs stay on disk and the next open decides (an unreferenced
    // directory is collected then).
    s = ApplyEdit(c->edit());
  }
  for (const DentryCompaction::Output& out : dc.outputs()) {
    pending_outputs_.erase(out.meta.number);
  }
  if (s.ok()) RetireInputs(c);

  LevelStats stats;
  stats.micros = env_->NowMicros() - start_micros;
  stats.entries_read = dc.entries_read();
  for (const auto& out : dc.outputs()) stats.entries_written += out.meta.entries;
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
// Obsolete files

void DBImpl::RemoveObsoleteFiles() {
  mutex_.AssertHeld();
  if (!bg_error_.ok()) {
    // After an error it is unknown whether the last edit committed; keep
    // everything until the next open sorts it out.
    return;
  }
  std::set<uint64_t> live = pending_outputs_;
  versions_->AddLiveFiles(&live);
  // Directories numbered from here on are created after `live` was taken;
  // never touch them.
  const uint64_t fence = versions_->NewFileNumber();
  const uint64_t log_number = versions_->LogNumber();
  const uint64_t prev_log_number = versions_->PrevLogNumber();
  const uint64_t manifest_number = versions_->ManifestFileNumber();

  std::vector<std::string> files_to_delete;
  std::vector<std::pair<uint64_t, std::string>> dirs_to_delete;
  std::vector<std::string> children;
  env_->GetChildren(dbname_, &children);  // errors just leave files behind
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(child, &number, &type)) continue;
    bool keep = true;
    switch (type) {
      case kLogFile:
        keep = number >= log_number || number == prev_log_number;
        break;
      case kDescriptorFile:
        keep = number >= manifest_number;
        break;
      case kTempFile:
        keep = live.count(number) > 0 || number >= fence;
        break;
      default:
        break;
    }
    if (!keep && files_being_removed_.insert(child).second) {
      files_to_delete.push_back(child);
    }
  }
  for (int level = 0; level < config::kNumLevels; level++) {
    const std::string level_dir = LevelDirName(dbname_, level);
    std::vector<std::string> dirs;
    fs_->ListDirectory(level_dir, &dirs);  // errors leave directories behind
    for (const std::string& d : dirs) {
      uint64_t number;
      if (ParseSstDirName(d, &number) && number < fence &&
          live.count(number) == 0 &&
          dirs_being_removed_.insert(number).second) {
        dirs_to_delete.push_back({number, level_dir + "/" + d});
      }
    }
  }
  std::vector<RetiredRemoval> retired = TakeRemovableRetiredSsts(live);

  removals_in_flight_++;
  mutex_.Unlock();
  uint64_t unlinked = 0;
  uint64_t dirs_removed = 0;
  RemoveRetiredSsts(retired, &unlinked);
  for (const std::string& f : files_to_delete) {
    Log(options_.info_log, "Delete %s\n", f.c_str());
    env_->RemoveFile(dbname_ + "/" + f);
  }
  for (const auto& d : dirs_to_delete) {
    Status s = RemoveSstDirectory(fs_, d.second, &unlinked);
    if (s.ok()) {
      dirs_removed++;
    } else {
      Log(options_.info_log, "Removing %s: %s\n", d.second.c_str(),
          s.ToString().c_str());
    }
  }
  mutex_.Lock();
  for (const std::string& f : files_to_delete) files_being_removed_.erase(f);
  for (const auto& d : dirs_to_delete) dirs_being_removed_.erase(d.first);
  removals_in_flight_--;
  background_cv_.SignalAll();
  dentry_stats_.unlinks += unlinked;
  dentry_stats_.dirs_removed += dirs_removed;
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
  background_cv_.SignalAll();
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

Status DBImpl::TEST_WaitForBackgroundWork() {
  MutexLock l(&mutex_);
  while (bg_error_.ok() &&
         (!imms_.empty() || compaction_running_ || CompactionWanted() ||
          removals_in_flight_ > 0 || !unsynced_logs_.empty() ||
          durability_round_running_)) {
    background_cv_.Wait();
  }
  return bg_error_;
}

}  // namespace leveldb
