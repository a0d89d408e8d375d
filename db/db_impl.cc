#include "db/db_impl.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "db/db_iter.h"
#include "db/filename.h"
#include "db/memtable.h"
#include "db/table_cache.h"
#include "db/version_set.h"
#include "db/write_batch_internal.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/write_batch.h"
#include "table/merging_iterator.h"
#include "util/mutexlock.h"

namespace leveldb {

// A writer waiting in the group-commit queue.
struct DBImpl::Writer {
  explicit Writer(port::Mutex* mu) : cv(mu) {}
  Status status;
  WriteBatch* batch = nullptr;
  bool sync = false;
  bool done = false;
  port::CondVar cv;
};

template <class T, class V>
static void ClipToRange(T* ptr, V minvalue, V maxvalue) {
  if (static_cast<V>(*ptr) > maxvalue) *ptr = maxvalue;
  if (static_cast<V>(*ptr) < minvalue) *ptr = minvalue;
}

Options SanitizeOptions(const std::string& dbname,
                        const InternalKeyComparator* icmp,
                        const FilterPolicy* default_filter,
                        const Options& src) {
  Options result = src;
  result.comparator = icmp->user_comparator();
  if (result.filter_policy == nullptr) result.filter_policy = default_filter;
  ClipToRange(&result.max_open_files, 64 + 10, 50000);
  ClipToRange(&result.write_buffer_size, 64 << 10, 1 << 30);
  if (result.info_log == nullptr) {
    // Keep LevelDB's convention: LOG in the DB directory, the previous one
    // renamed to LOG.old.
    src.env->CreateDir(dbname);  // may already exist
    src.env->RenameFile(InfoLogFileName(dbname), OldInfoLogFileName(dbname));
    Status s = src.env->NewLogger(InfoLogFileName(dbname), &result.info_log);
    if (!s.ok()) result.info_log = nullptr;
  }
  return result;
}

// The built-in Bloom filter is only safe when equal keys are equal bytes,
// i.e. with the bytewise comparator; otherwise, as LevelDB, no filter
// unless the user supplies one that matches the comparator.
const FilterPolicy* NewDefaultFilterPolicy(const Options& options) {
  if (options.filter_policy != nullptr) return nullptr;
  if (options.comparator != BytewiseComparator()) return nullptr;
  return NewBloomFilterPolicy(10);
}

DBImpl::DBImpl(const Options& raw_options, const delsm::Tuning& tuning,
               const std::string& dbname, FileSystem* fs)
    : env_(raw_options.env),
      // A memory Env's databases keep their SST directories in its memory
      // FileSystem, not on disk (fs/mem_file_system.h).
      fs_(fs != nullptr ? fs : FileSystemForEnv(raw_options.env)),
      internal_comparator_(raw_options.comparator),
      owned_filter_policy_(NewDefaultFilterPolicy(raw_options)),
      options_(SanitizeOptions(dbname, &internal_comparator_,
                               owned_filter_policy_.get(), raw_options)),
      tuning_(tuning),
      owns_info_log_(options_.info_log != raw_options.info_log),
      dbname_(dbname),
      background_cv_(&mutex_),
      flush_work_cv_(&mutex_),
      compaction_work_cv_(&mutex_),
      durability_work_cv_(&mutex_),
      removal_work_cv_(&mutex_),
      tmp_batch_(new WriteBatch) {
  sst_options_.comparator = &internal_comparator_;
  sst_options_.filter_policy = options_.filter_policy;
  sst_options_.fs = fs_;
  homes_.reset(new HomeDirs(fs_, dbname_ + "/" + kValuesDirName));
  sst_options_.homes = homes_.get();
  sst_options_.compression = options_.compression;
  sst_options_.inline_threshold = tuning_.inline_threshold;
  sst_options_.compress_inline_from = tuning_.compress_inline_from;
  sst_options_.sync_files = tuning_.durability == delsm::Durability::kFsync;
  if (options_.block_cache != nullptr) {
    value_cache_ = options_.block_cache;
  } else {
    owned_value_cache_.reset(NewLRUCache(8 << 20));  // LevelDB's default
    value_cache_ = owned_value_cache_.get();
  }
  sst_options_.value_cache = value_cache_;
  sst_options_.value_cache_id = value_cache_->NewId();
  if (tuning_.read_ahead_files > 0 && tuning_.read_ahead_bytes > 0) {
    read_ahead_start_ = ThreadPool::Start(tuning_.read_ahead_threads,
                                          &read_ahead_pool_, "delsm-readahead");
    sst_options_.read_ahead_pool = read_ahead_pool_.get();
  }
  sst_options_.read_ahead_bytes = tuning_.read_ahead_bytes;
  sst_options_.read_ahead_files = tuning_.read_ahead_files;
  table_cache_.reset(
      new TableCache(dbname_, sst_options_, options_.max_open_files - 10,
                     tuning_.table_cache_bytes, tuning_.filter_cache_bytes));
  versions_.reset(new VersionSet(dbname_, &options_, tuning_,
                                 table_cache_.get(), &internal_comparator_));
}

DBImpl::~DBImpl() {
  mutex_.Lock();
  // Open started the compaction thread only once recovery succeeded.
  const bool opened = compaction_thread_running_;
  shutting_down_.store(true, std::memory_order_release);
  background_cv_.SignalAll();
  WakeBackgroundThreads();
  while (flush_threads_running_ > 0 || compaction_thread_running_ ||
         durability_thread_running_ || removal_thread_running_) {
    background_cv_.Wait();
  }
  // Every reader is gone (an iterator must not outlive its DB), so only the
  // current version is alive: what no version uses goes now rather than at
  // the next open (retired SSTs, dead values, discarded homes), in the
  // order RemoveObsoleteFiles keeps.
  if (opened) RemoveObsoleteFiles();
  // Then, if that left nothing for the open sweeps, the next Open may
  // skip them (WriteCleanCloseMarker).
  const char* left = opened ? WhatCloseLeft() : nullptr;
  if (opened && left == nullptr) {
    Status m = WriteCleanCloseMarker();
    Log(options_.info_log, "Clean-close marker: %s\n", m.ToString().c_str());
  } else if (opened) {
    Log(options_.info_log,
        "Clean-close marker not written (%s): the next open sweeps\n", left);
  }
  mutex_.Unlock();

  if (db_lock_ != nullptr) env_->UnlockFile(db_lock_);

  versions_.reset();
  if (mem_ != nullptr) mem_->Unref();
  for (Immutable& imm : imms_) imm.mem->Unref();
  imms_.clear();
  delete tmp_batch_;
  log_.reset();
  logfile_.reset();
  table_cache_.reset();
  read_ahead_pool_.reset();
  if (owns_info_log_) delete options_.info_log;
}

// ---------------------------------------------------------------------------
// Writes

Status DBImpl::Put(const WriteOptions& o, const Slice& key, const Slice& val) {
  return DB::Put(o, key, val);
}

Status DBImpl::Delete(const WriteOptions& o, const Slice& key) {
  return DB::Delete(o, key);
}

Status DBImpl::Write(const WriteOptions& options, WriteBatch* updates) {
  Writer w(&mutex_);
  w.batch = updates;
  w.sync = options.sync;

  MutexLock l(&mutex_);
  writers_.push_back(&w);
  while (!w.done && &w != writers_.front()) w.cv.Wait();
  if (w.done) return w.status;

  // This writer leads a group: it writes every queued batch it can merge.
  Status status = MakeRoomForWrite(updates == nullptr);
  uint64_t last_sequence = versions_->LastSequence();
  Writer* last_writer = &w;
  if (status.ok() && updates != nullptr) {
    WriteBatch* group = BuildBatchGroup(&last_writer);
    WriteBatchInternal::SetSequence(group, last_sequence + 1);
    last_sequence += WriteBatchInternal::Count(group);

    // Only the writer at the front of writers_ switches the WAL and
    // memtable (SwitchMemTable, from MakeRoomForWrite), and the others wait
    // behind it, so the ones taken here stay current while the mutex is
    // released for the I/O.
    {
      log::Writer* const log = log_.get();
      WritableFile* const logfile = logfile_.get();
      MemTable* const mem = mem_;
      mutex_.Unlock();
      status = log->AddRecord(WriteBatchInternal::Contents(group));
      if (status.ok() && options.sync) status = logfile->Sync();
      const bool log_error = !status.ok();
      if (status.ok()) status = WriteBatchInternal::InsertInto(group, mem);
      mutex_.Lock();
      if (log_error) {
        // The log may hold none, part or all of the batch. A record
        // appended after a torn one would be dropped with the rest of its
        // block at recovery, and a failed sync promises nothing: stop
        // accepting writes (LevelDB does so for a failed sync only).
        RecordBackgroundError(status);
      }
    }
    if (group == tmp_batch_) tmp_batch_->Clear();
    versions_->SetLastSequence(last_sequence);
  }

  while (true) {
    Writer* ready = writers_.front();
    writers_.pop_front();
    if (ready != &w) {
      ready->status = status;
      ready->done = true;
      ready->cv.Signal();
    }
    if (ready == last_writer) break;
  }
  if (!writers_.empty()) writers_.front()->cv.Signal();
  return status;
}

// Merge the batches queued behind the leader into one, up to a size that
// keeps a small write's latency bounded. A sync write never joins a group
// led by a non-sync one.
WriteBatch* DBImpl::BuildBatchGroup(Writer** last_writer) {
  Writer* first = writers_.front();
  WriteBatch* result = first->batch;
  size_t size = WriteBatchInternal::ByteSize(first->batch);
  size_t max_size = 1 << 20;
  if (size <= (128 << 10)) max_size = size + (128 << 10);

  *last_writer = first;
  for (auto it = writers_.begin() + 1; it != writers_.end(); ++it) {
    Writer* w = *it;
    if (w->sync && !first->sync) break;
    if (w->batch == nullptr) break;
    size += WriteBatchInternal::ByteSize(w->batch);
    if (size > max_size) break;
    if (result == first->batch) {
      result = tmp_batch_;
      WriteBatchInternal::Append(result, first->batch);
    }
    WriteBatchInternal::Append(result, w->batch);
    *last_writer = w;
  }
  return result;
}

// Ensure mem_ has room for a write, switching to a new memtable (and WAL)
// when it is full. Applies back-pressure so memory stays bounded whatever
// the write rate: a delay per write at the flush's pace while the
// immutable queue is one short of its limit, a share of 1 ms per write when
// L0 is getting full, and a full stop while the immutable queue or L0 is at
// its limit.
Status DBImpl::MakeRoomForWrite(bool force) {
  bool allow_delay = !force;
  while (true) {
    if (!bg_error_.ok()) return bg_error_;
    const int l0_dirs = versions_->NumLevelFiles(0);
    if (allow_delay && l0_dirs >= tuning_.l0_slowdown_dirs &&
        l0_dirs < tuning_.l0_stop_dirs) {
      // Graded back-pressure: each write past the slowdown mark waits a
      // share of 1 ms that grows with how close L0 is to the stop mark, so
      // the writer slows to the compaction's pace instead of dropping to
      // 1000 writes/s as soon as L0 reaches the mark.
      const int span = tuning_.l0_stop_dirs - tuning_.l0_slowdown_dirs + 1;
      const int over = l0_dirs - tuning_.l0_slowdown_dirs + 1;
      mutex_.Unlock();
      env_->SleepForMicroseconds(1000 * over / span);
      allow_delay = false;
      mutex_.Lock();
    } else if (allow_delay && !force && FlushPaceMicros() > 0) {
      // The writer is outrunning the flush (one KV file per value costs
      // far more than a memtable insert): waiting about the flush's time
      // per entry on each write keeps the queue short of its limit, so the
      // writer rarely stops for a whole flush at a memtable switch. The
      // same total wait, spread thin.
      const uint64_t micros = FlushPaceMicros();
      mutex_.Unlock();
      env_->SleepForMicroseconds(static_cast<int>(micros));
      allow_delay = false;
      mutex_.Lock();
    } else if (!force &&
               mem_->ApproximateMemoryUsage() <= options_.write_buffer_size) {
      return Status::OK();
    } else if (static_cast<int>(imms_.size()) >=
               config::kMaxImmutableMemtables) {
      Log(options_.info_log, "Waiting: %d immutable memtables queued\n",
          static_cast<int>(imms_.size()));
      writers_waiting_for_flush_++;
      flush_work_cv_.SignalAll();  // an idle worker may now build beside
      background_cv_.Wait();
      writers_waiting_for_flush_--;
    } else if (l0_dirs >= tuning_.l0_stop_dirs) {
      Log(options_.info_log, "Waiting: %d L0 directories\n", l0_dirs);
      background_cv_.Wait();
    } else {
      Status s = SwitchMemTable();
      if (!s.ok()) return s;
      force = false;
    }
  }
}

uint64_t DBImpl::FlushPaceMicros() {
  mutex_.AssertHeld();
  if (flush_nanos_per_entry_ < 1000) return 0;  // inline values: no pacing
  const int queued = static_cast<int>(imms_.size());
  const uint64_t pace = flush_nanos_per_entry_ / 1000;
  uint64_t micros = 0;
  if (queued >= config::kMaxImmutableMemtables - 1) {
    micros = pace + pace / 4;  // slower than the flush: the queue drains
  } else if (queued >= config::kMaxImmutableMemtables - 2) {
    micros = pace / 2;  // the queue still grows, more slowly
  }
  return std::min<uint64_t>(micros, 1000);
}

void DBImpl::PushImmutable(MemTable* mem, uint64_t log_number, bool replayed) {
  mutex_.AssertHeld();
  assert(imms_.empty() || imms_.back().log_number <= log_number);
  imms_.emplace_back(mem, log_number, replayed);
  num_imms_.store(static_cast<int>(imms_.size()), std::memory_order_release);
  flush_work_cv_.SignalAll();
}

// Start a new WAL and memtable; the old memtable joins the flush queue.
Status DBImpl::SwitchMemTable() {
  uint64_t new_log_number = versions_->NewFileNumber();
  WritableFile* lfile = nullptr;
  Status s =
      env_->NewWritableFile(LogFileName(dbname_, new_log_number), &lfile);
  if (!s.ok()) {
    versions_->ReuseFileNumber(new_log_number);
    return s;
  }
  // The old WAL is complete: close it so a failed close surfaces here.
  log_.reset();
  s = logfile_->Close();
  if (!s.ok()) {
    delete lfile;
    RecordBackgroundError(s);
    return s;
  }
  PushImmutable(mem_, logfile_number_, /*replayed=*/false);
  logfile_.reset(lfile);
  logfile_number_ = new_log_number;
  log_.reset(new log::Writer(lfile));
  mem_ = new MemTable(internal_comparator_);
  mem_->Ref();
  background_cv_.SignalAll();
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Reads

namespace {
struct IterState {
  port::Mutex* mu;
  Version* version;
  MemTable* mem;
  std::vector<MemTable*> imms;
};

void CleanupIteratorState(void* arg1, void* /*arg2*/) {
  IterState* state = reinterpret_cast<IterState*>(arg1);
  state->mu->Lock();
  state->mem->Unref();
  for (MemTable* m : state->imms) m->Unref();
  state->version->Unref();
  state->mu->Unlock();
  delete state;
}
}  // namespace

Iterator* DBImpl::NewInternalIterator(const ReadOptions& options,
                                      SequenceNumber* latest_snapshot) {
  mutex_.Lock();
  *latest_snapshot = versions_->LastSequence();

  IterState* state = new IterState;
  state->mu = &mutex_;
  std::vector<Iterator*> list;
  list.push_back(mem_->NewIterator());
  mem_->Ref();
  state->mem = mem_;
  for (auto it = imms_.rbegin(); it != imms_.rend(); ++it) {
    list.push_back(it->mem->NewIterator());
    it->mem->Ref();
    state->imms.push_back(it->mem);
  }
  Version* current = versions_->current();
  current->AddIterators(options, &list);
  current->Ref();
  state->version = current;
  mutex_.Unlock();

  Iterator* internal_iter = NewMergingIterator(
      &internal_comparator_, list.data(), static_cast<int>(list.size()));
  internal_iter->RegisterCleanup(CleanupIteratorState, state, nullptr);
  return internal_iter;
}

Status DBImpl::Get(const ReadOptions& options, const Slice& key,
                   std::string* value) {
  Status s;
  MutexLock l(&mutex_);
  SequenceNumber snapshot;
  if (options.snapshot != nullptr) {
    snapshot =
        static_cast<const SnapshotImpl*>(options.snapshot)->sequence_number();
  } else {
    snapshot = versions_->LastSequence();
  }

  MemTable* mem = mem_;
  std::vector<MemTable*> imms;
  for (auto it = imms_.rbegin(); it != imms_.rend(); ++it) {
    imms.push_back(it->mem);
  }
  Version* current = versions_->current();
  mem->Ref();
  for (MemTable* m : imms) m->Ref();
  current->Ref();

  {
    mutex_.Unlock();
    LookupKey lkey(key, snapshot);
    bool done = mem->Get(lkey, value, &s);
    for (size_t i = 0; !done && i < imms.size(); i++) {
      done = imms[i]->Get(lkey, value, &s);
    }
    if (!done) {
      Version::GetStats stats;
      s = current->Get(options, lkey, value, &stats);
    }
    mutex_.Lock();
  }

  mem->Unref();
  for (MemTable* m : imms) m->Unref();
  current->Unref();
  return s;
}

Iterator* DBImpl::NewIterator(const ReadOptions& options) {
  SequenceNumber latest_snapshot;
  Iterator* iter = NewInternalIterator(options, &latest_snapshot);
  SequenceNumber seq = options.snapshot != nullptr
                           ? static_cast<const SnapshotImpl*>(options.snapshot)
                                 ->sequence_number()
                           : latest_snapshot;
  return NewDBIterator(internal_comparator_.user_comparator(), iter, seq);
}

const Snapshot* DBImpl::GetSnapshot() {
  MutexLock l(&mutex_);
  return snapshots_.New(versions_->LastSequence());
}

void DBImpl::ReleaseSnapshot(const Snapshot* snapshot) {
  MutexLock l(&mutex_);
  snapshots_.Delete(static_cast<const SnapshotImpl*>(snapshot));
}

SequenceNumber DBImpl::SmallestLiveSnapshot() {
  if (snapshots_.empty()) return versions_->LastSequence();
  return snapshots_.oldest()->sequence_number();
}

void DBImpl::GetApproximateSizes(const Range* range, int n, uint64_t* sizes) {
  Version* v;
  VersionSet* versions;
  {
    MutexLock l(&mutex_);
    versions = versions_.get();
    v = versions->current();
    v->Ref();
  }
  // Meta files may be read: not under mutex_ (as LevelDB).
  // ApproximateOffsetOf is the VersionSet call made without it: it reads
  // only the pinned `v` and the table cache (version_set.h).
  for (int i = 0; i < n; i++) {
    InternalKey k1(range[i].start, kMaxSequenceNumber, kValueTypeForSeek);
    InternalKey k2(range[i].limit, kMaxSequenceNumber, kValueTypeForSeek);
    uint64_t start = versions->ApproximateOffsetOf(v, k1);
    uint64_t limit = versions->ApproximateOffsetOf(v, k2);
    sizes[i] = (limit >= start ? limit - start : 0);
  }
  MutexLock l(&mutex_);  // Version references are guarded by mutex_
  v->Unref();
}

// ---------------------------------------------------------------------------
// The DB class's own members that LevelDB defines out of line.

DB::~DB() = default;
Snapshot::~Snapshot() = default;

Status DB::Put(const WriteOptions& opt, const Slice& key, const Slice& value) {
  WriteBatch batch;
  batch.Put(key, value);
  return Write(opt, &batch);
}

Status DB::Delete(const WriteOptions& opt, const Slice& key) {
  WriteBatch batch;
  batch.Delete(key);
  return Write(opt, &batch);
}

}  // namespace leveldb
