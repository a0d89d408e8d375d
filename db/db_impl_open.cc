// Opening a DB: creating a new one, recovering an existing one from its
// manifest and WALs, and cleaning what an interrupted flush or compaction
// left on disk.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/manifest_numbers.h"
#include "db/manifest_writer.h"
#include "db/memtable.h"
#include "db/replayed_sequences.h"
#include "db/table_cache.h"
#include "db/version_edit.h"
#include "db/version_set.h"
#include "db/write_batch_internal.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "fs/list_if_present.h"
#include "leveldb/write_batch.h"
#include "table/key_codec.h"
#include "table/sst_dir.h"
#include "util/env_util.h"
#include "util/mutexlock.h"

namespace leveldb {

Status DBImpl::NewDB() {
  // Numbers start past every number a manifest here or in lost/ names: an
  // earlier database's manifests (DestroyDB leaves lost/, as LevelDB's
  // does) record its replaced SSTs by number, and a repair that reads one
  // would take this database's SSTs of those numbers for replaced ones.
  // A manifest that cannot be read leaves them unknown: no database is
  // made.
  uint64_t bound;
  Status s = ManifestsNumberBound(env_, fs_, dbname_, &bound);
  if (!s.ok()) return s;
  VersionEdit new_db;
  new_db.SetComparatorName(internal_comparator_.user_comparator()->Name());
  new_db.SetLogNumber(0);
  new_db.SetNextFile(std::max<uint64_t>(2, bound));
  new_db.SetLastSequence(0);

  return WriteManifestAndSetCurrent(env_, dbname_, 1, new_db);
}

Status DBImpl::Recover(VersionEdit* edit, bool* save_manifest,
                       bool* closed_cleanly) {
  mutex_.AssertHeld();
  *closed_cleanly = false;
  // The DB directory may already exist; an error here shows up below.
  env_->CreateDir(dbname_);
  Status s = env_->LockFile(LockFileName(dbname_), &db_lock_);
  if (!s.ok()) return s;
  // Before anything is changed: from here on the marker no longer vouches
  // for the database, whatever happens to this Open.
  bool marker_valid = false;
  s = TakeCleanCloseMarker(&marker_valid);
  if (!s.ok()) return s;

  // Whether CURRENT is there, by the directory's listing, which fails the
  // Open if it cannot be read: a lookup of CURRENT (FileExists, access(2))
  // answers no on any error (EIO), and a database taken for none would get
  // a new CURRENT naming an empty manifest, its SSTs then removed as named
  // by no manifest. CURRENT is the Env's (a memory Env's files are not in
  // its FileSystem, which Probe asks): the Env's listing answers.
  std::vector<std::string> listed;
  s = env_->GetChildren(dbname_, &listed);
  if (!s.ok()) return s;
  if (std::find(listed.begin(), listed.end(), CurrentFileName("").substr(1)) ==
      listed.end()) {
    if (!options_.create_if_missing) {
      return Status::InvalidArgument(
          dbname_, "does not exist (create_if_missing is false)");
    }
    // Before NewDB writes anything: a take-in cut short with no CURRENT
    // left is RepairDB's to finish (db_impl_leveldb_format.cc).
    s = CheckNoTakeInCutShort();
    if (!s.ok()) return s;
    s = NewDB();
    if (!s.ok()) return s;
  } else if (options_.error_if_exists) {
    return Status::InvalidArgument(dbname_, "exists (error_if_exists is true)");
  }
  // A LevelDB database becomes a DeLSM one here (or an interrupted
  // conversion is finished); its WALs are replayed below like ours.
  s = ConvertLevelDbDatabase();
  if (!s.ok()) return s;
  // The DB directory exists in the Env; the level directories need it on
  // the file system too (they differ with an Env like NewMemEnv's). The DB
  // directory may be a link its user made; CreateDir would refuse one, so
  // it is made only where there is nothing.
  if (!fs_->Exists(dbname_)) s = fs_->CreateDir(dbname_, true);
  if (!s.ok()) return s;
  // A level directory that is a link is refused (file_system.h): the SST
  // directories made in it would be outside the database.
  for (int level = 0; level < config::kNumLevels; level++) {
    s = fs_->CreateDir(LevelDirName(dbname_, level), true);
    if (!s.ok()) return s;
  }
  // The homes' directory is made only where the mode asks for it (a
  // database that never used it keeps its layout), and refused as a link
  // wherever it is, for the same reason as a level directory.
  const bool had_homes = fs_->Exists(homes_->root());
  if (tuning_.values_stay_put || had_homes) {
    s = fs_->CreateDir(homes_->root(), true);
    if (!s.ok()) return s;
  }
  if (tuning_.values_stay_put && !had_homes) {
    // Made durable at once by an fsync of the DB directory (a flush syncs
    // values/ but not the directory holding its entry); not a syncfs,
    // which Open otherwise never needs.
    std::unique_ptr<Directory> db_dir;
    s = fs_->OpenDirectory(dbname_, &db_dir);
    if (s.ok()) s = db_dir->Sync();
    if (!s.ok()) return s;
  }

  s = versions_->Recover(save_manifest);
  if (!s.ok()) return s;

  std::set<uint64_t> missing_level0;
  s = PlaceLiveDirectories(&missing_level0);
  if (!s.ok()) return s;

  // A flush or compaction interrupted before its manifest record leaves a
  // directory whose number the manifest never saw: never hand that number
  // out again (the directory itself is collected as an orphan later).
  // Every number the manifest gave out is below its next file number; a
  // directory or home numbered from there on was made after the manifest's
  // last record (by a writer that did not remove the marker, an older
  // DeLSM interrupted in its WAL replay): then the marker proves nothing.
  const uint64_t manifest_next = versions_->ManifestFileNumber();
  bool unknown_numbers = false;
  // Marks used the number of each of `names` that `parse` accepts.
  auto mark_used = [&](const std::vector<std::string>& names,
                       bool (*parse)(const std::string&, uint64_t*)) {
    mutex_.AssertHeld();  // Recover's caller holds it; the lambda says so.
    for (const std::string& name : names) {
      uint64_t number;
      if (parse(name, &number)) {
        versions_->MarkFileNumberUsed(number);
        if (number >= manifest_next) unknown_numbers = true;
      }
    }
  };
  for (int level = 0; level < config::kNumLevels; level++) {
    std::vector<std::string> dirs;
    s = fs_->ListDirectory(LevelDirName(dbname_, level), &dirs);
    if (!s.ok()) return s;
    mark_used(dirs, &ParseSstDirName);
  }
  // So do homes (a crash may leave one whose SST directory is gone): a new
  // flush's home must not exist yet. Only a values/ that is not there has
  // none.
  std::vector<std::string> homes;
  bool no_homes;
  s = ListDirectoryIfPresent(fs_, homes_->root(), &homes, &no_homes);
  if (!s.ok()) return s;
  mark_used(homes, &ParseHomeDirName);
  *closed_cleanly = marker_valid && !unknown_numbers;

  // Replay every WAL not yet covered by an SST directory, oldest first.
  const uint64_t min_log = versions_->LogNumber();
  const uint64_t prev_log = versions_->PrevLogNumber();
  std::vector<std::string> children;
  s = env_->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  std::vector<uint64_t> logs;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseFileName(child, &number, &type)) {
      versions_->MarkFileNumberUsed(number);
      if (type == kLogFile && (number >= min_log || number == prev_log)) {
        logs.push_back(number);
      }
    }
  }
  std::sort(logs.begin(), logs.end());
  ReplayedSequences replayed;
  for (uint64_t number : logs) {
    s = RecoverLogFile(number, &replayed, edit);
    if (!s.ok()) return s;
    versions_->MarkFileNumberUsed(number);
  }
  if (FlushCommitsBeforeDurable(tuning_.durability)) {
    s = DropLevel0CoveredByWal(replayed, missing_level0, edit);
    if (!s.ok()) return s;
  }
  if (versions_->LastSequence() < replayed.largest()) {
    versions_->SetLastSequence(replayed.largest());
  }
  if (!logs.empty()) *save_manifest = true;
  return Status::OK();
}

namespace {
// Logs WAL damage; fails recovery on damage only under paranoid_checks.
// A read that failed (log::Reader reports it as a drop and stops there) is
// not damage: nothing is known of the records past it, so it always fails
// recovery (read_error()), before the WAL could be retired and deleted.
struct WalReporter : public log::ReadErrorReporter {
  Logger* info_log;
  std::string fname;
  Status* status;  // null if damage is to be skipped

 protected:
  void ReadFailed(const Status& s) override {
    Log(info_log, "%s: read failed: %s\n", fname.c_str(), s.ToString().c_str());
  }
  void Damaged(size_t bytes, const Status& s) override {
    Log(info_log, "%s%s: dropping %d bytes; %s\n",
        (status == nullptr ? "(ignoring error) " : ""), fname.c_str(),
        static_cast<int>(bytes), s.ToString().c_str());
    if (status != nullptr && status->ok()) {
      *status = Status::Corruption(fname, s.ToString());
    }
  }
};
}  // namespace

// Replay one WAL into memtables, flushing each to an L0 SST directory as it
// fills and the remainder at the end; the WAL is then obsolete.
Status DBImpl::RecoverLogFile(uint64_t log_number, ReplayedSequences* replayed,
                              VersionEdit* edit) {
  mutex_.AssertHeld();
  const std::string fname = LogFileName(dbname_, log_number);
  SequentialFile* raw_file;
  Status status = env_->NewSequentialFile(fname, &raw_file);
  if (!status.ok()) return status;
  std::unique_ptr<SequentialFile> file(raw_file);

  WalReporter reporter;
  reporter.info_log = options_.info_log;
  reporter.fname = fname;
  reporter.status = options_.paranoid_checks ? &status : nullptr;
  log::Reader reader(file.get(), &reporter, true /*checksum*/, 0);
  Log(options_.info_log, "Recovering log #%llu\n",
      static_cast<unsigned long long>(log_number));

  std::string scratch;
  Slice record;
  WriteBatch batch;
  MemTable* mem = nullptr;
  while (reader.ReadRecord(&record, &scratch) && status.ok()) {
    if (record.size() < 12) {
      reporter.Corruption(record.size(),
                          Status::Corruption("log record too small", fname));
      continue;
    }
    WriteBatchInternal::SetContents(&batch, record);
    if (mem == nullptr) {
      mem = new MemTable(internal_comparator_);
      mem->Ref();
    }
    status = WriteBatchInternal::InsertInto(&batch, mem);
    const bool decoded = status.ok();
    if (!status.ok() && !options_.paranoid_checks) {
      // A record whose checksum holds but whose batch does not decode: as
      // LevelDB, keep the entries decoded before the damage, log it, and
      // go on with the rest of the WAL.
      Log(options_.info_log, "%s: ignoring error: %s\n", fname.c_str(),
          status.ToString().c_str());
      status = Status::OK();
    }
    if (!status.ok()) break;
    const SequenceNumber first_seq = WriteBatchInternal::Sequence(&batch);
    const int count = WriteBatchInternal::Count(&batch);
    // A batch whose entries did not all decode counts as not replayed: its
    // sequences must not vouch for an L0 SST.
    if (count > 0 && decoded) {
      replayed->Add(first_seq, first_seq + count - 1);
    }
    if (mem->ApproximateMemoryUsage() > options_.write_buffer_size) {
      status = FlushRecoveredMemTable(mem, log_number, edit);
      mem = nullptr;
      if (!status.ok()) break;
    }
  }
  if (status.ok()) status = reporter.read_error();
  if (status.ok() && mem != nullptr) {
    status = FlushRecoveredMemTable(mem, log_number, edit);
  } else if (mem != nullptr) {
    mem->Unref();
  }
  return status;
}

// Flushing needs a new file per value. When that fails for want of space
// or inodes (or any other I/O error) the DB must still open, at least for
// reads: the memtable is kept, unflushed, as an immutable memtable with its
// WAL (which stays until a later flush succeeds), and so is every memtable
// replayed after it, since flushes must stay in order. The flush thread
// retries the flush and reports its error as the background error. Takes
// over the caller's reference to `mem`.
Status DBImpl::FlushRecoveredMemTable(MemTable* mem, uint64_t log_number,
                                      VersionEdit* edit) {
  mutex_.AssertHeld();
  if (imms_.empty()) {
    bool below_unreadable = false;
    Status s = WriteLevel0(mem, log_number, edit, /*make_durable=*/true,
                           /*replayed=*/true, &below_unreadable);
    // Kept in memory, the replayed memtable would answer reads before the
    // deeper SST it could not be checked against: Open fails instead.
    if (s.ok() || !s.IsIOError() || below_unreadable) {
      mem->Unref();
      return s;
    }
    Log(options_.info_log,
        "Recovery keeps log #%llu in memory, flushing it failed: %s\n",
        static_cast<unsigned long long>(log_number), s.ToString().c_str());
  }
  PushImmutable(mem, log_number, /*replayed=*/true);
  return Status::OK();
}

Status DBImpl::HeldBelowLevel0(Version* v, const ParsedInternalKey& key,
                               bool* held) {
  *held = false;
  const Comparator* ucmp = internal_comparator_.user_comparator();
  const InternalKey newest(key.user_key, kMaxSequenceNumber, kValueTypeForSeek);
  for (int level = 1; level < config::kNumLevels; level++) {
    // Levels below L0 are sorted and disjoint: the first SST whose largest
    // key is not before the user key is the only one that may hold it.
    const std::vector<FileMetaData*>& files = v->files(level);
    auto f =
        std::lower_bound(files.begin(), files.end(), key.user_key,
                         [ucmp](const FileMetaData* a, const Slice& k) {
                           return ucmp->Compare(a->largest.user_key(), k) < 0;
                         });
    if (f == files.end() ||
        ucmp->Compare((*f)->smallest.user_key(), key.user_key) > 0) {
      continue;
    }
    // An SST whose writes are all older than the key's holds no version
    // at or after it, and its meta file need not be read: so a replayed
    // WAL that no flush covered (the memtables a Close left, all newer
    // than every SST) reads no meta file below L0. The manifest's range
    // bounds every entry's sequence (BuiltSstMetaData); a deeper version
    // of this key, if there is one, is still looked up below.
    if ((*f)->has_sequence_range && (*f)->largest_sequence < key.sequence) {
      continue;
    }
    Cache::Handle* h = nullptr;
    Status s = table_cache_->FindWhole(level, (*f)->number, (*f)->dir, &h);
    if (!s.ok()) return s;
    const std::vector<MetaIndexEntry>& entries =
        table_cache_->Value(h)->index().entries;
    auto e = std::lower_bound(entries.begin(), entries.end(), newest.Encode(),
                              [this](const MetaIndexEntry& a, const Slice& k) {
                                return internal_comparator_.Compare(
                                           a.internal_key, k) < 0;
                              });
    bool found = false;
    ParsedInternalKey there;
    if (e != entries.end() && ParseInternalKey(e->internal_key, &there) &&
        ucmp->Compare(there.user_key, key.user_key) == 0) {
      // The newest version below L0 is at the shallowest level holding
      // the key, and first in its SST.
      found = true;
      *held = there.sequence >= key.sequence;
    }
    table_cache_->Release(h);
    if (found) return Status::OK();
  }
  return Status::OK();
}

// In kSyncfs and kDeferred a flush's SST directory is committed before it
// is durable, and the WAL it came from is kept instead and replayed on
// recovery. After a power loss such a directory may be missing or hold
// truncated files. An L0 SST is dropped in favour of the replay only on
// one of two kinds of evidence:
//  1. the replay holds every one of its writes: the manifest records each
//     SST's sequence range, and every sequence in it was replayed from an
//     intact batch (sequences have no gaps, so this is all of its entries,
//     whatever was shadowed inside it);
//  2. it was never made durable (the WAL it was flushed from is still live:
//     FileMetaData::wal_number), and it is missing, its meta file is what a
//     power loss leaves (Corruption: torn, zero-filled; NotFound), or a KV
//     file its meta file names is gone, or a value it holds (in a KV file
//     or inline in the meta file's value section, which the meta file's
//     own checks do not cover) fails its checksum: torn, zero-filled. Then
//     every write in it acknowledged with sync=true is in that WAL's synced
//     prefix, which the replay holds; the rest was never promised to survive a
//     power loss (LevelDB loses an unsynced WAL tail alike). An intact SST is
//     kept.
// Nothing else is evidence. An SST that cannot be read now for another
// reason (EMFILE, EIO, EACCES) or that was made durable stays, and reading
// its keys reports the damage; one missing altogether fails Open. For an
// SST of a manifest that predates recorded ranges, a readable meta file
// gives the range. Compactions sync their outputs (CompactionDurability),
// so nothing deeper depends on an unsynced flush.
Status DBImpl::DropLevel0CoveredByWal(const ReplayedSequences& replayed,
                                      const std::set<uint64_t>& missing_level0,
                                      VersionEdit* edit) {
  mutex_.AssertHeld();
  for (const FileMetaData* f : versions_->current()->files(0)) {
    const bool missing = missing_level0.count(f->dir) > 0;
    SequenceNumber first = f->smallest_sequence;
    SequenceNumber last = f->largest_sequence;
    bool known = f->has_sequence_range;
    const bool not_durable =
        f->wal_number != 0 && f->wal_number >= versions_->LogNumber();
    // The meta file is read only where it can be evidence: for the range
    // an older manifest did not record, or for an SST not made durable
    // whose range the replay does not hold (is it torn?). A durable SST
    // with a recorded range the replay does not hold stays whatever its
    // meta file says, so an Open after a clean Close (whose flushes are
    // all durable) reads no meta file here.
    Status meta_status;
    bool read = false;
    if (!missing && (!known || (not_durable && !replayed.Holds(first, last)))) {
      meta_status = LoadLevel0Sst(*f, &first, &last, &known);
      read = true;
    }
    const char* why = nullptr;
    if (known && replayed.Holds(first, last)) {
      why = "the replayed WALs hold all of its writes";
    } else if (not_durable) {
      if (missing || meta_status.IsCorruption() || meta_status.IsNotFound()) {
        why = "never made durable, and lost or torn";
      } else if (meta_status.ok() && !AllKvFilesPresent(*f)) {
        why = "never made durable, and a KV file it names is gone";
      } else if (meta_status.ok() && AnyValueTorn(*f)) {
        // Kept, it would stand beside the replay of its WAL's surviving
        // prefix with the same entries, and (its range reaching further)
        // be read first: a write the replay holds would read as
        // Corruption. Reading every value costs a memtable's worth of
        // reads, only for an SST never made durable whose WAL lost
        // records (a power loss, or damage).
        why = "never made durable, and a value it holds is torn";
      }
    }
    if (why != nullptr) {
      edit->RemoveFile(0, f->number);
      table_cache_->Evict(f->number);
      Log(options_.info_log,
          "Replacing L0 SST #%llu (WAL #%llu) by the replay: %s (%s)\n",
          static_cast<unsigned long long>(f->number),
          static_cast<unsigned long long>(f->wal_number), why,
          missing ? "missing"
                  : (read ? meta_status.ToString().c_str() : "not read"));
    } else if (missing) {
      return Status::Corruption(
          "missing SST directory, and the WALs do not hold its writes",
          SstDirName(dbname_, 0, f->dir));
    }
  }
  return Status::OK();
}

// Loads L0 SST `f`'s meta file; if `*known` is false, sets it and the
// range from the entries (an SST of an older manifest).
Status DBImpl::LoadLevel0Sst(const FileMetaData& f, SequenceNumber* first,
                             SequenceNumber* last, bool* known) {
  Cache::Handle* h = nullptr;
  // Every group of a format-4 meta file checked: a torn one is damage here,
  // as a torn index is.
  Status s = table_cache_->FindWhole(0, f.number, f.dir, &h);
  if (!s.ok()) return s;
  if (!*known) *known = SequenceRange(table_cache_->Value(h), first, last);
  table_cache_->Release(h);
  return s;
}

bool DBImpl::AllKvFilesPresent(const FileMetaData& f) {
  Cache::Handle* h = nullptr;
  if (!table_cache_->FindWhole(0, f.number, f.dir, &h).ok()) return true;
  // Names present, by directory: "" for the SST directory, else a home.
  std::map<uint64_t, std::set<std::string>> listed;
  bool all = true;
  for (const MetaIndexEntry& e : table_cache_->Value(h)->index().entries) {
    if (!HasKvFile(e.storage)) continue;
    const uint64_t where = StoredInHome(e.storage) ? e.home : 0;
    auto it = listed.find(where);
    if (it == listed.end()) {
      const std::string path = where == 0
                                   ? SstDirName(dbname_, 0, f.dir)
                                   : homes_->root() + "/" + HomeDirName(where);
      std::vector<std::string> names;
      bool absent;
      // Only a directory that is not there says its files are gone; any
      // other error proves nothing.
      Status s = ListDirectoryIfPresent(fs_, path, &names, &absent);
      if (!s.ok()) break;
      it =
          listed
              .emplace(where, std::set<std::string>(names.begin(), names.end()))
              .first;
    }
    const Slice ikey(e.internal_key);
    if (it->second.count(KvStoredFileName(ExtractUserKey(ikey),
                                          ExtractTag(ikey) >> 8,
                                          StoredCompressed(e.storage))) == 0) {
      all = false;
      break;
    }
  }
  table_cache_->Release(h);
  return all;
}

bool DBImpl::AnyValueTorn(const FileMetaData& f) {
  Cache::Handle* h = nullptr;
  if (!table_cache_->FindWhole(0, f.number, f.dir, &h).ok()) return false;
  const SstDir* sst = table_cache_->Value(h);
  ReadOptions options;
  options.fill_cache = false;
  bool torn = false;
  std::string value;
  for (size_t i = 0; i < sst->index().entries.size() && !torn; i++) {
    // Only damage is evidence; a read that fails otherwise (EIO, EMFILE)
    // says nothing of the bytes.
    torn = sst->ReadValueUncached(options, i, &value).IsCorruption();
  }
  table_cache_->Release(h);
  return torn;
}

bool DBImpl::SequenceRange(SstDir* sst, SequenceNumber* first,
                           SequenceNumber* last) {
  bool any = false;
  for (const MetaIndexEntry& e : sst->index().entries) {
    ParsedInternalKey k;
    if (!ParseInternalKey(e.internal_key, &k)) return false;
    if (!any || k.sequence < *first) *first = k.sequence;
    if (!any || k.sequence > *last) *last = k.sequence;
    any = true;
  }
  return any;
}

// A trivial move renames a directory before the manifest records it; a
// crash in between leaves a live directory under another level. Put every
// live directory where the manifest says it is. A lookup that fails (EIO)
// fails the Open: only a directory found nowhere (ENOENT) is missing.
Status DBImpl::PlaceLiveDirectories(std::set<uint64_t>* missing_level0) {
  Version* v = versions_->current();
  for (int level = 0; level < config::kNumLevels; level++) {
    for (int i = 0; i < v->NumFiles(level); i++) {
      const uint64_t number = v->files(level)[i]->dir;
      const std::string want = SstDirName(dbname_, level, number);
      bool found;
      Status s = fs_->Probe(want, &found);
      if (!s.ok()) return s;
      if (found) continue;
      for (int other = 0; other < config::kNumLevels && !found; other++) {
        if (other == level) continue;
        const std::string path = SstDirName(dbname_, other, number);
        s = fs_->Probe(path, &found);
        if (s.ok() && found) s = fs_->Rename(path, want);
        if (!s.ok()) return s;
      }
      if (found) continue;
      // A flush output of kSyncfs or kDeferred may be lost to a power
      // failure; whether a replayed WAL holds its writes is known only
      // after the replay (DropLevel0CoveredByWal decides).
      if (level == 0 && FlushCommitsBeforeDurable(tuning_.durability)) {
        missing_level0->insert(number);
        continue;
      }
      // Whatever paranoid_checks says, as LevelDB's Recover ("missing
      // files"): opened without it, the DB would answer NotFound for its
      // keys, a loss no caller could tell from a deletion.
      return Status::Corruption("missing SST directory", want);
    }
  }
  return Status::OK();
}

Status DBImpl::Open(const char* env_spec) {
  MutexLock l(&mutex_);
  if (!read_ahead_start_.ok()) return read_ahead_start_;
  Log(options_.info_log, "DeLSM tuning: %s%s%s%s\n",
      delsm::TuningToString(tuning_).c_str(),
      env_spec != nullptr ? " (DELSM_OPTIONS=\"" : "",
      env_spec != nullptr ? env_spec : "", env_spec != nullptr ? "\")" : "");
  VersionEdit edit;
  bool save_manifest = false;
  bool closed_cleanly = false;
  Status s = Recover(&edit, &save_manifest, &closed_cleanly);
  if (s.ok() && mem_ == nullptr) {
    const uint64_t new_log_number = versions_->NewFileNumber();
    WritableFile* lfile;
    s = env_->NewWritableFile(LogFileName(dbname_, new_log_number), &lfile);
    if (s.ok()) {
      edit.SetLogNumber(new_log_number);
      logfile_.reset(lfile);
      logfile_number_ = new_log_number;
      log_.reset(new log::Writer(lfile));
      mem_ = new MemTable(internal_comparator_);
      mem_->Ref();
    }
  }
  if (s.ok() && save_manifest && !edit.new_files().empty() &&
      tuning_.durability == delsm::Durability::kDeferred) {
    // The manifest edit below retires the replayed WALs, which (unlike a
    // running DB's) are not retained: the L0 SSTs built from them, not
    // synced in kDeferred, must be durable first, or a power failure soon
    // after Open loses writes acknowledged with sync=true.
    s = MakeDirectoriesDurable(fs_, CompactionDurability(tuning_.durability),
                               {LevelDirName(dbname_, 0)});
  }
  if (s.ok() && save_manifest) {
    edit.SetPrevLogNumber(0);
    // WALs whose memtables recovery could not flush stay live.
    edit.SetLogNumber(imms_.empty() ? logfile_number_
                                    : imms_.front().log_number);
    s = ApplyEdit(&edit);
  }
  // Directories built from replayed WALs are committed (or abandoned) now.
  for (const auto& added : edit.new_files()) {
    pending_outputs_.erase(added.second.number);
  }
  if (s.ok()) {
    // The sweeps of homes and SST directories read every meta file and
    // list every directory: what only they remove, a crash left behind (or
    // a Close that could not remove it, or this recovery: L0 SSTs the
    // replay replaced, a replayed flush not undone). The marker, checked
    // by Recover, proves the last Close left nothing of that kind and that
    // nothing has run since; then they have nothing to find.
    const bool sweep = !closed_cleanly || !edit.deleted_files().empty() ||
                       left_for_open_sweep_;
    if (!sweep) {
      Log(options_.info_log,
          "Closed cleanly: not sweeping SST directories and homes\n");
    } else {
      // The sweeps below cover whatever was flagged; what they cannot
      // remove flags it again.
      left_for_open_sweep_ = false;
    }
    // Values no live entry names go before the meta files (of retired
    // SSTs, of dead directories) that may name them: a crash in between
    // then leaves no value that only a replaced meta file knows was dropped.
    // The previous manifest goes (RemoveObsoleteFiles) only after the
    // sweep of the live directories: until their replaced meta files are
    // gone, it is RepairDB's only record that they were replaced (the
    // manifest this Open wrote holds no history).
    // A sweep of homes that did not finish leaves values no live entry
    // names; the meta files that may name them (replaced SSTs' in live
    // directories, and every SST directory numbered before this Open,
    // which may hold such a file or die holding one) stay until an Open's
    // sweep of homes has removed those values, or RepairDB, finding any
    // meta file lost, takes them back by their names.
    if (sweep && !RemoveUnreferencedValues()) {
      const uint64_t fence = versions_->NextFileNumber();
      kept_for_values_sweep_ = fence;
      Log(options_.info_log,
          "Homes not swept: keeping every SST directory numbered below "
          "#%llu and every replaced meta file for the next open\n",
          static_cast<unsigned long long>(fence));
    }
    if (sweep && kept_for_values_sweep_ == 0) RemoveUnownedDirEntries();
    RemoveObsoleteFiles();
    CheckInodeHeadroom();
    s = StartBackgroundThreads();
  }
  return s;
}

namespace {
// Env::StartThread returns nothing; the POSIX Env's (std::thread) throws
// std::system_error when the system will not make a thread (EAGAIN:
// RLIMIT_NPROC, threads-max, memory for a stack), and an Env of the
// caller's may throw alike. Runs `start` and returns that as an IOError
// naming `what`: no exception leaves the API.
template <typename Start>
Status StartThreadChecked(const char* what, Start start) {
  std::string error;
  try {
    start();
  } catch (const std::system_error& e) {
    error = e.what();
  } catch (const std::bad_alloc& e) {
    error = e.what();
  }
  if (error.empty()) return Status::OK();
  return Status::IOError(std::string("cannot start the ") + what + " thread",
                         error);
}
}  // namespace

// Each thread is counted as running before it starts (it waits for mutex_,
// held here, before it looks), and uncounted if it could not start, so
// ~DBImpl, which Open's caller runs when Open fails, stops and waits for
// exactly the threads that did start. Everything recovery committed is
// durable by then; the next Open finds it.
Status DBImpl::StartBackgroundThreads() {
  mutex_.AssertHeld();
  for (int i = 0; i < tuning_.flush_threads; i++) {
    flush_threads_running_++;
    Status s = StartThreadChecked("flush", [this] {
      env_->StartThread(&DBImpl::FlushThreadEntry, this);
    });
    if (!s.ok()) {
      flush_threads_running_--;
      return s;
    }
  }
  compaction_thread_running_ = true;
  Status s = StartThreadChecked("compaction", [this] {
    env_->StartThread(&DBImpl::CompactionThreadEntry, this);
  });
  if (!s.ok()) {
    compaction_thread_running_ = false;
    return s;
  }
  if (tuning_.removal_thread) {
    removal_thread_running_ = true;
    s = StartThreadChecked("removal", [this] {
      env_->StartThread(&DBImpl::RemovalThreadEntry, this);
    });
    if (!s.ok()) {
      removal_thread_running_ = false;
      return s;
    }
  }
  if (tuning_.durability == delsm::Durability::kSyncfs) {
    durability_thread_running_ = true;
    s = StartThreadChecked("durability", [this] {
      env_->StartThread(&DBImpl::DurabilityThreadEntry, this);
    });
    if (!s.ok()) durability_thread_running_ = false;
  }
  return s;
}

Status DB::Open(const Options& options, const std::string& name, DB** dbptr) {
  return delsm::Open(options, delsm::Tuning(), name, dbptr);
}

Status OpenWithFileSystem(const Options& options,
                          const delsm::Tuning& requested,
                          const std::string& name, FileSystem* fs, DB** dbptr) {
  *dbptr = nullptr;
  if (options.comparator == nullptr || options.env == nullptr) {
    return Status::InvalidArgument(name, "options need a comparator and env");
  }
  // The operator's DELSM_OPTIONS reaches every program, including those
  // that only know leveldb::DB::Open (the drop-in, the C API, bindings).
  delsm::Tuning tuning = requested;
  const char* env_spec = std::getenv("DELSM_OPTIONS");
  if (env_spec != nullptr) {
    Status s = delsm::ParseTuning(env_spec, &tuning);
    if (!s.ok()) {
      return Status::InvalidArgument("DELSM_OPTIONS", s.ToString());
    }
  }
  // Every field in its documented range (delsm.h), before anything is
  // created: a value beyond it would start thousands of threads, wrap a
  // deadline or overflow a level's capacity.
  Status valid = delsm::ValidateTuning(tuning);
  if (!valid.ok()) return valid;
  // Before DBImpl exists: it would rotate the LOG of a database it must
  // leave alone. A LevelDB database it can convert passes; Recover converts
  // it under the LOCK.
  Status format =
      CheckDatabaseFormat(options.env, name, options.comparator, "DB::Open");
  if (!format.ok()) return format;
  DBImpl* impl = new DBImpl(options, tuning, name, fs);
  Status s = impl->Open(env_spec);
  if (s.ok()) {
    *dbptr = impl;
  } else {
    delete impl;
  }
  return s;
}

}  // namespace leveldb

namespace delsm {

leveldb::Status Open(const leveldb::Options& options, const Tuning& tuning,
                     const std::string& name, leveldb::DB** dbptr) {
  return leveldb::OpenWithFileSystem(options, tuning, name, nullptr, dbptr);
}

}  // namespace delsm
