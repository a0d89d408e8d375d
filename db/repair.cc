// leveldb::RepairDB for DeLSM: rebuilds a consistent DB from whatever SST
// directories, KV files and WALs survive, and writes a fresh manifest.
//
// 1. Every SST directory under L0..L6 that holds just its own META, and
//    whose META loads, is used as is. Any other is rebuilt from what
//    survives in it (db/repair_salvage.h): the entries of every readable
//    meta file in it (META-<n> files are SSTs a compaction added) whose KV
//    files are still there, plus every listed KV file no meta file names:
//    KV file names carry the user key (or, for hashed names, LONGKEYS
//    does), the sequence number and whether the bytes are compressed. A
//    listed file whose key and sequence number a loaded meta file of
//    another directory names is a second link to that entry's file (a
//    compaction killed before its commit links KV files into its outputs'
//    directories) or a stray copy: it is taken back only if its bytes
//    match that entry's size and checksum. Tombstones live only in meta
//    files, so those of an unreadable meta file are lost. Meta files of SSTs that any readable
//    manifest records as replaced (a crash between a compaction's commit
//    and their removal left them) are left out, with the KV files only
//    they name: merged, they would bring back keys the compaction had
//    dropped with their tombstones.
//    Values that stay put (values/<home>/, docs/DESIGN.md section 5) are
//    used where they are: an entry naming one whose file is gone is left
//    out (its directory is rebuilt). If a meta file could not be read (or
//    an SST directory holds none), every file of a home that no readable
//    meta file names is taken back as a value entry from its name (as a
//    listed KV file is), except those only replaced SSTs name, files whose
//    name is not a KV file name or is hashed (LONGKEYS holds no key for
//    them), and unreadable ones. If every meta file read, none is taken
//    back: such a file is a value whose death was committed or one of a
//    flush that never committed (db/repair_homes.h). What is not taken
//    back goes to lost/.
// 2. Every WAL is replayed into a new L0 directory.
// 3. All of it is merged by one dentry compaction (links only) into new
//    directories of a single level, keeping the newest version of each key
//    and dropping tombstones (nothing is left below them).
// 4. A new manifest lists the result; only then are the old files put
//    away. As LevelDB's repair does, nothing repair could not use is
//    deleted: every WAL and old manifest, every SST directory that could
//    not be loaded, and every entry of a loaded one that the merge was not
//    given (an unreadable meta file or KV file, a file it does not know)
//    are moved into <dbname>/lost/. Entries the merge was given are
//    unlinked (the new directories hold links to those it kept; those it
//    dropped were superseded or deleted). Values in homes that the merge
//    dropped are unlinked; those it kept stay where they are.
// Every step is logged to options.info_log, or to the DB's LOG (the old
// one renamed LOG.old, as Open does) when none is given.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/directory_kind.h"
#include "db/db_impl.h"
#include "db/dbformat.h"
#include "db/dentry_compaction.h"
#include "db/filename.h"
#include "db/log_reader.h"
#include "db/manifest_writer.h"
#include "db/memtable.h"
#include "db/repair_homes.h"
#include "db/repair_salvage.h"
#include "db/sst_dir_removal.h"
#include "db/version_edit.h"
#include "db/write_batch_internal.h"
#include "delsm/delsm.h"
#include "fs/file_system.h"
#include "fs/mem_file_system.h"
#include "leveldb/db.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "leveldb/write_batch.h"
#include "port/port.h"
#include "table/key_codec.h"
#include "table/sst_dir.h"
#include "table/sst_dir_builder.h"

namespace leveldb {

namespace {

class Repairer {
 public:
  Repairer(const std::string& dbname, const Options& options, FileSystem* fs)
      : dbname_(dbname),
        env_(options.env),
        options_(options),
        icmp_(options.comparator),
        default_filter_(NewDefaultFilterPolicy(options)),
        homes_(fs, dbname) {
    sst_options_.comparator = &icmp_;
    sst_options_.filter_policy = options.filter_policy != nullptr
                                     ? options.filter_policy
                                     : default_filter_.get();
    sst_options_.fs = fs;
    sst_options_.homes = homes_.homes();
    sst_options_.compression = options.compression;
  }

  Status Run() {
    FileLock* lock = nullptr;
    Status s = env_->LockFile(LockFileName(dbname_), &lock);
    if (!s.ok()) return s;
    if (options_.info_log == nullptr) OpenInfoLog();
    Log(options_.info_log, "RepairDB %s: starting\n", dbname_.c_str());
    s = FindFiles();
    if (s.ok()) s = FindRetiredSsts();
    if (s.ok()) s = LoadDirectories();
    if (s.ok()) s = RecoverHomeValues();
    if (s.ok()) s = ConvertLogs();
    if (s.ok()) s = MergeAndCommit();
    if (s.ok()) PutAwayOldFiles();
    env_->UnlockFile(lock);
    Log(options_.info_log,
        "RepairDB %s: %s; %zu directories, %zu logs read, %zu files moved "
        "to lost/\n",
        dbname_.c_str(), s.ToString().c_str(), old_dirs_.size(), logs_.size(),
        moved_to_lost_);
    return s;
  }

 private:
  struct OldDir {
    int level;
    uint64_t number;
    std::string path;
    // Whether its entries were given to the merge, and which names they
    // were (meta, LONGKEYS and KV files); PutAwayOldFiles moves the others
    // to lost/.
    bool loaded = false;
    std::set<std::string> used;
  };

  // As Open does (SanitizeOptions): LOG in the DB directory, the previous
  // one kept as LOG.old. Without it repair runs unlogged.
  void OpenInfoLog() {
    env_->CreateDir(dbname_);  // exists already, since it is locked
    env_->RenameFile(InfoLogFileName(dbname_), OldInfoLogFileName(dbname_));
    Logger* logger = nullptr;
    if (env_->NewLogger(InfoLogFileName(dbname_), &logger).ok()) {
      owned_info_log_.reset(logger);
      options_.info_log = logger;
    }
  }

  // Numbers for repair's own directories and manifest. They start past
  // every number the database handed out that repair finds: those of the
  // files and directories FindFiles lists, of every SST, directory and
  // next file number a readable manifest records (FindRetiredSsts), and of
  // every META-<n> file in an SST directory (LoadDirectory). An output
  // numbered as an old SST would make the new manifest record that SST as
  // live, not replaced, and a later RepairDB would merge the old SST again.
  uint64_t NewNumber() { return next_number_++; }

  void NoteNumberUsed(uint64_t number) {
    next_number_ = std::max(next_number_, number + 1);
  }

  Status FindFiles() {
    std::vector<std::string> children;
    Status s = env_->GetChildren(dbname_, &children);
    if (!s.ok()) return s;
    for (const std::string& child : children) {
      uint64_t number;
      FileType type;
      if (!ParseFileName(child, &number, &type)) continue;
      if (type != kLevelDir) next_number_ = std::max(next_number_, number + 1);
      if (type == kLogFile) logs_.push_back(number);
      if (type == kDescriptorFile) manifests_.push_back(child);
    }
    for (int level = 0; level < config::kNumLevels; level++) {
      const std::string level_dir = LevelDirName(dbname_, level);
      s = sst_options_.fs->CreateDir(level_dir, true);
      if (!s.ok()) return s;
      std::vector<std::string> dirs;
      s = sst_options_.fs->ListDirectory(level_dir, &dirs);
      if (!s.ok()) return s;
      for (const std::string& d : dirs) {
        uint64_t number;
        if (!ParseSstDirName(d, &number)) continue;
        OldDir old;
        old.level = level;
        old.number = number;
        old.path = level_dir + "/" + d;
        old_dirs_.push_back(std::move(old));
        next_number_ = std::max(next_number_, number + 1);
      }
    }
    s = homes_.Find(&next_number_);
    if (!s.ok()) return s;
    std::sort(logs_.begin(), logs_.end());
    Log(options_.info_log,
        "RepairDB: found %zu WALs, %zu manifests, %zu SST directories, %zu "
        "homes\n",
        logs_.size(), manifests_.size(), old_dirs_.size(), homes_.home_count());
    return Status::OK();
  }

  // SSTs a manifest records as replaced: added by one edit and removed by
  // a later one (a trivial move removes and re-adds in one edit), or
  // removed without being added (a RepairDB's manifest records so the old
  // SSTs its merge replaced, for a RepairDB after it was killed). Numbers
  // are never reused, so what any readable prefix of any manifest retired
  // stays retired. Their meta files, when a crash between the commit and
  // their removal left them, must not be merged: a key whose newest
  // version and tombstone a compaction dropped would come back.
  // A manifest that cannot be read for another reason than damage (EMFILE,
  // EIO) fails RepairDB: without its record, replaced SSTs would be merged.
  Status FindRetiredSsts() {
    struct ReadErrors : public log::Reader::Reporter {
      Status error;  // the first failed read (damage is skipped)
      void Corruption(size_t, const Status& s) override {
        if (error.ok() && !s.IsCorruption()) error = s;
      }
    };
    for (const std::string& m : manifests_) {
      const std::string path = dbname_ + "/" + m;
      SequentialFile* raw = nullptr;
      Status s = env_->NewSequentialFile(path, &raw);
      if (s.IsNotFound() && !env_->FileExists(path)) continue;
      if (!s.ok()) return s;
      std::unique_ptr<SequentialFile> file(raw);
      ReadErrors errors;
      log::Reader reader(file.get(), &errors, true, 0);
      std::set<std::pair<int, uint64_t>> live;
      std::set<uint64_t> added;
      std::string scratch;
      Slice record;
      size_t records = 0;
      while (reader.ReadRecord(&record, &scratch) && errors.error.ok()) {
        VersionEdit edit;
        if (!edit.DecodeFrom(record).ok()) break;
        records++;
        if (edit.has_next_file_number()) {
          next_number_ = std::max(next_number_, edit.next_file_number());
        }
        for (const auto& gone : edit.deleted_files()) {
          NoteNumberUsed(gone.second);
          live.erase(gone);
          // Removed without having been added here: a repair's record of
          // the old SSTs its merge replaced and of its own intermediate
          // directories (MergeAndCommit).
          added.insert(gone.second);
        }
        for (const auto& add : edit.new_files()) {
          NoteNumberUsed(add.second.number);
          NoteNumberUsed(add.second.dir);
          live.insert({add.first, add.second.number});
          added.insert(add.second.number);
        }
      }
      std::set<uint64_t> live_numbers;
      for (const auto& l : live) live_numbers.insert(l.second);
      size_t retired = 0;
      for (uint64_t n : added) {
        if (live_numbers.count(n) == 0 && retired_.insert(n).second) retired++;
      }
      if (!errors.error.ok()) return errors.error;
      Log(options_.info_log,
          "RepairDB: %s: %zu records read, %zu SSTs it replaced\n", m.c_str(),
          records, retired);
    }
    return Status::OK();
  }

  // Evidence before setting aside: a directory goes to lost/ only on
  // damage (Corruption) or when it is not a directory repair may open (a
  // file, a symbolic link); any other error (EIO, EMFILE, ENOENT for an
  // entry just listed) says nothing about the data and fails RepairDB,
  // which then has committed and moved nothing.
  static bool IsDamage(const Status& s) {
    if (s.IsCorruption()) return true;
    const std::string text = s.ToString();
    return text.find(std::strerror(ENOTDIR)) != std::string::npos ||
           text.find("a symbolic link, not followed") != std::string::npos;
  }

  // A directory LoadDirectory decided to rebuild, with what it read; it
  // is rebuilt once every directory's meta files are loaded, so that a KV
  // file none of its own meta files names is checked against the entries
  // of all of them (named_files_).
  struct PendingRebuild {
    OldDir* old = nullptr;
    std::unique_ptr<Directory> src;
    std::vector<std::string> names;
    std::vector<std::unique_ptr<SstDir>> metas;
    std::set<std::string> retired;  // files only replaced SSTs name
  };

  // Records (copies of) the entries of `index` whose values are KV files
  // in their SST directory, by internal key.
  void NoteNamedFiles(const MetaIndex& index) {
    for (const MetaIndexEntry& e : index.entries) {
      if (StoredInFile(e.storage)) {
        named_files_.emplace(e.internal_key.ToString(), CopyOfEntry(e));
      }
    }
  }

  // Loads every directory's meta files, then rebuilds those that need it.
  Status LoadDirectories() {
    // False if `s` fails the repair; on damage, d is set aside.
    auto handle = [this](OldDir* d, const Status& s) -> bool {
      if (!s.ok() && !IsDamage(s)) {
        Log(options_.info_log, "RepairDB: cannot read %s: %s\n",
            d->path.c_str(), s.ToString().c_str());
        return false;
      }
      if (!s.ok()) {
        Log(options_.info_log, "RepairDB: cannot use %s: %s\n", d->path.c_str(),
            s.ToString().c_str());
        d->used.clear();
        homes_.NoteMetaFileLost();  // whatever its meta files named
      }
      return true;
    };
    auto add = [this](OldDir* d, std::unique_ptr<SstDir> dir) {
      Log(options_.info_log, "RepairDB: %s: %zu entries\n", d->path.c_str(),
          dir->index().entries.size());
      d->loaded = true;
      AddInput(std::move(dir), d->number);
    };
    // Every directory is loaded, and its META-<n> numbers noted, before
    // the first rebuild takes a number (NewNumber).
    std::vector<std::unique_ptr<PendingRebuild>> pending;
    for (OldDir& d : old_dirs_) {
      std::unique_ptr<SstDir> dir;
      std::unique_ptr<PendingRebuild> rebuild;
      Status s = LoadDirectory(&d, &dir, &rebuild);
      if (!handle(&d, s)) return s;
      if (!s.ok()) continue;
      if (rebuild != nullptr) {
        for (const auto& meta : rebuild->metas) {
          NoteNamedFiles(meta->index());
        }
        pending.push_back(std::move(rebuild));
        continue;
      }
      NoteNamedFiles(dir->index());
      add(&d, std::move(dir));
    }
    for (std::unique_ptr<PendingRebuild>& p : pending) {
      std::unique_ptr<SstDir> dir;
      Status s = RebuildDirectory(p->src.get(), p->names, p->metas, p->retired,
                                  &p->old->used, &dir);
      if (!handle(p->old, s)) return s;
      if (s.ok()) add(p->old, std::move(dir));
      p.reset();  // closes its directory and meta files
    }
    return Status::OK();
  }

  // A directory holding just its own META is used as it is (*result).
  // Otherwise (a compaction added SSTs to it, or its META is unusable) its
  // readable meta files and its listing are returned in *rebuild, for
  // RebuildDirectory to gather its entries into a new directory.
  Status LoadDirectory(OldDir* old, std::unique_ptr<SstDir>* result,
                       std::unique_ptr<PendingRebuild>* rebuild) {
    const OldDir& d = *old;
    std::unique_ptr<Directory> src;
    Status s = sst_options_.fs->OpenDirectory(d.path, &src);
    std::vector<std::string> names;
    if (s.ok()) s = src->List(&names);
    if (!s.ok()) return s;
    std::vector<std::string> metas;
    std::vector<std::string> retired_metas;
    for (const std::string& name : names) {
      uint64_t sst_number;
      if (ParseMetaFileName(name, d.number, &sst_number)) {
        NoteNumberUsed(sst_number);
        (retired_.count(sst_number) > 0 ? retired_metas : metas)
            .push_back(name);
        if (retired_.count(sst_number) > 0) {
          replaced_.push_back({d.level, sst_number});
        }
      }
    }
    // The files only replaced SSTs name are not merged (they go to lost/).
    std::set<std::string> retired_names;
    for (const std::string& meta : retired_metas) {
      retired_names.insert(meta);
      std::unique_ptr<SstDir> sst;
      Status m = SstDir::Open(sst_options_, d.path, meta, &sst);
      if (m.ok()) {
        for (std::string& name : KvFileNamesOf(sst->index())) {
          retired_names.insert(std::move(name));
        }
        homes_.NoteReplaced(sst->index());
      } else if (!m.IsCorruption()) {
        // Not damage (EMFILE, EIO, ENOENT for a name just listed): the
        // values it names would be taken back by their names.
        return m;
      }
      Log(options_.info_log,
          "RepairDB: %s/%s: replaced by a committed compaction, not merged "
          "(%s)\n",
          d.path.c_str(), meta.c_str(), m.ToString().c_str());
    }
    if (metas.size() == 1 && metas[0] == kMetaFileName &&
        retired_metas.empty()) {
      s = SstDir::Open(sst_options_, d.path, result);
      // Its inline values must be readable too (the index's checksum does
      // not cover them), or the merge would fail on them; so must the
      // files its entries name in homes be there.
      if (s.ok()) s = CheckInlineValues(result->get());
      if (s.ok()) s = homes_.CheckPresent((*result)->index());
      if (s.ok()) {
        replaced_.push_back({d.level, d.number});
        homes_.NoteAllUsed((*result)->index());
        old->used.insert(kMetaFileName);
        old->used.insert(kLongKeysFileName);
        for (std::string& name : KvFileNamesOf((*result)->index())) {
          old->used.insert(std::move(name));
        }
        return s;
      }
      result->reset();
      if (!s.ok() && !s.IsCorruption() && !s.IsNotFound()) {
        return s;  // not damage (NotFound: a value in a home is gone)
      }
      // Rebuilt from the listing and from META itself: an index that
      // loads still gives every entry but the damaged inline values (and
      // the tombstones), which a listing alone would lose.
      Log(options_.info_log, "RepairDB: %s: %s; rebuilding\n", d.path.c_str(),
          s.ToString().c_str());
    }
    std::vector<std::unique_ptr<SstDir>> loaded;
    Log(options_.info_log, "RepairDB: %s: rebuilding from %zu meta files\n",
        d.path.c_str(), metas.size());
    // A directory holds the meta file of at least one SST: none at all, or
    // one that does not read (of an SST no manifest records as replaced),
    // may have named values in homes.
    if (metas.empty() && retired_metas.empty()) homes_.NoteMetaFileLost();
    for (const std::string& meta : metas) {
      std::unique_ptr<SstDir> sst;
      Status m = SstDir::Open(sst_options_, d.path, meta, &sst);
      if (m.ok()) {
        uint64_t sst_number = 0;
        ParseMetaFileName(meta, d.number, &sst_number);
        replaced_.push_back({d.level, sst_number});
        loaded.push_back(std::move(sst));
      } else if (!m.IsCorruption()) {
        return m;  // not damage: RepairDB fails (LoadDirectories)
      } else {
        Log(options_.info_log, "RepairDB: %s/%s: %s\n", d.path.c_str(),
            meta.c_str(), m.ToString().c_str());
        homes_.NoteMetaFileLost();
      }
    }
    rebuild->reset(new PendingRebuild);
    (*rebuild)->old = old;
    (*rebuild)->src = std::move(src);
    (*rebuild)->names = std::move(names);
    (*rebuild)->metas = std::move(loaded);
    (*rebuild)->retired = std::move(retired_names);
    return Status::OK();
  }

  // If a meta file was lost, every file of a home that no loaded meta
  // file names becomes an entry (from its name, as RebuildDirectory does
  // for a listed KV file) of one new SST given to the merge; the value
  // stays in its home. Otherwise such files are dead or never committed
  // (RepairHomes::TakeBackUnnamed says why) and go to lost/.
  Status RecoverHomeValues() {
    std::vector<MetaEntry> entries = homes_.TakeBackUnnamed();
    Log(options_.info_log,
        "RepairDB: %zu values in homes no meta file names taken back%s\n",
        entries.size(),
        homes_.meta_file_lost() ? "" : " (every meta file read: none is)");
    if (entries.empty()) return Status::OK();
    std::unique_ptr<SstDir> dir;
    Status s = BuildSstOf(&entries, nullptr, &dir);
    // Older than any SST directory: an exact duplicate keeps the other.
    if (s.ok()) AddInput(std::move(dir), 0);
    return s;
  }

  static Status CheckInlineValues(const SstDir* dir) {
    std::string buffer;
    uint64_t offset = 0;
    const auto& entries = dir->index().entries;
    for (size_t i = 0; i < entries.size(); i++) {
      if (!StoredInline(entries[i].storage)) continue;
      Slice stored;
      Status s =
          dir->ReadInlineStored(i, 1, 256 << 10, &buffer, &offset, &stored);
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

  void AddInput(std::unique_ptr<SstDir> dir, uint64_t order) {
    for (const MetaIndexEntry& e : dir->index().entries) {
      ParsedInternalKey k;
      if (ParseInternalKey(e.internal_key, &k)) {
        max_sequence_ = std::max(max_sequence_, k.sequence);
      }
    }
    inputs_.push_back({order, std::move(dir)});
  }

  // Build a new directory from what SalvageSstDir takes back of `src`,
  // linking its KV files in, and open the result. Adds to *used the names
  // whose contents the result holds.
  Status RebuildDirectory(Directory* src, const std::vector<std::string>& names,
                          const std::vector<std::unique_ptr<SstDir>>& metas,
                          const std::set<std::string>& retired,
                          std::set<std::string>* used,
                          std::unique_ptr<SstDir>* result) {
    std::vector<MetaEntry> entries;
    Status s = SalvageSstDir(src, names, metas, retired, named_files_, &homes_,
                             options_.info_log, used, &entries);
    if (!s.ok()) return s;
    return BuildSstOf(&entries, src, result);
  }

  // A new L0 SST directory of `entries` (sorted here; of two entries with
  // one internal key the first is kept), their KV files linked from `src`
  // (null: values in homes, nothing to link), opened into *result.
  Status BuildSstOf(std::vector<MetaEntry>* entries, Directory* src,
                    std::unique_ptr<SstDir>* result) {
    std::sort(entries->begin(), entries->end(),
              [this](const MetaEntry& a, const MetaEntry& b) {
                return icmp_.Compare(a.internal_key, b.internal_key) < 0;
              });
    const uint64_t number = NewNumber();
    const std::string path = SstDirName(dbname_, 0, number);
    SstDirBuilder builder(sst_options_, path);
    Status s = builder.Begin();
    for (size_t i = 0; s.ok() && i < entries->size(); i++) {
      if (i > 0 &&
          (*entries)[i].internal_key == (*entries)[i - 1].internal_key) {
        continue;
      }
      const MetaEntry& e = (*entries)[i];
      s = builder.AddLinked(e.internal_key, e, src, e.inline_value);
    }
    if (s.ok()) s = builder.Finish();
    if (!s.ok()) {
      builder.Abandon();
      return s;
    }
    new_dirs_.push_back({number, path});
    return SstDir::Open(sst_options_, path, result);
  }

  // Damage inside a WAL is skipped (and logged) record by record; a WAL
  // that cannot be read or replayed at all fails RepairDB: committing
  // without it would lose its writes for an error that says nothing about
  // them.
  Status ConvertLogs() {
    for (uint64_t log_number : logs_) {
      Status s = ConvertLog(log_number);
      Log(options_.info_log, "RepairDB: log #%llu: %s\n",
          static_cast<unsigned long long>(log_number), s.ToString().c_str());
      if (!s.ok()) return s;
    }
    return Status::OK();
  }

  Status ConvertLog(uint64_t log_number) {
    // Damage is dropped and logged. A read that failed is not damage:
    // nothing is known of the records past it, so it fails RepairDB
    // (read_error) before anything is committed or moved.
    struct Reporter : public log::Reader::Reporter {
      Logger* info_log;
      Status read_error;
      void Corruption(size_t bytes, const Status& s) override {
        Log(info_log, "RepairDB: WAL dropping %zu bytes: %s\n", bytes,
            s.ToString().c_str());
        if (read_error.ok() && !s.IsCorruption()) read_error = s;
      }
    };
    SequentialFile* raw;
    Status s = env_->NewSequentialFile(LogFileName(dbname_, log_number), &raw);
    if (!s.ok()) return s;
    std::unique_ptr<SequentialFile> file(raw);
    Reporter reporter;
    reporter.info_log = options_.info_log;
    // Records are checked: a record whose checksum fails is dropped (and
    // logged), never replayed, or a damaged byte of a value would be served
    // as the value (LevelDB's repair reads unchecked to salvage more).
    log::Reader reader(file.get(), &reporter, true, 0);
    MemTable* mem = new MemTable(icmp_);
    mem->Ref();
    std::string scratch;
    Slice record;
    WriteBatch batch;
    uint64_t entries = 0;
    while (reader.ReadRecord(&record, &scratch)) {
      if (record.size() < WriteBatchInternal::kHeader) {
        reporter.Corruption(record.size(),
                            Status::Corruption("log record too small"));
        continue;
      }
      WriteBatchInternal::SetContents(&batch, record);
      Status b = WriteBatchInternal::InsertInto(&batch, mem);
      if (b.ok()) {
        const SequenceNumber last = WriteBatchInternal::Sequence(&batch) +
                                    WriteBatchInternal::Count(&batch) - 1;
        max_sequence_ = std::max(max_sequence_, last);
        entries += WriteBatchInternal::Count(&batch);
      } else {
        Log(options_.info_log, "RepairDB: log #%llu: ignoring a batch: %s\n",
            static_cast<unsigned long long>(log_number), b.ToString().c_str());
      }
    }
    Log(options_.info_log, "RepairDB: log #%llu: %llu entries read\n",
        static_cast<unsigned long long>(log_number),
        static_cast<unsigned long long>(entries));
    if (!reporter.read_error.ok()) {
      mem->Unref();
      return reporter.read_error;
    }
    const uint64_t number = NewNumber();
    const std::string path = SstDirName(dbname_, 0, number);
    SstDirBuilder builder(sst_options_, path);
    s = builder.Begin();
    Iterator* it = mem->NewIterator();
    for (it->SeekToFirst(); s.ok() && it->Valid(); it->Next()) {
      s = builder.Add(it->key(), it->value());
    }
    delete it;
    mem->Unref();
    if (s.ok()) s = builder.Finish();
    if (!s.ok()) {
      builder.Abandon();
      return s;
    }
    new_dirs_.push_back({number, path});
    std::unique_ptr<SstDir> dir;
    s = SstDir::Open(sst_options_, path, &dir);
    // WAL data is newer than any directory: order it first.
    if (s.ok()) AddInput(std::move(dir), UINT64_MAX - log_number);
    return s;
  }

  Status MergeAndCommit() {
    // Newest first, so that an exact duplicate keeps the newest copy.
    std::sort(inputs_.begin(), inputs_.end(),
              [](const Input& a, const Input& b) { return a.order > b.order; });
    std::vector<SstDir*> dirs;
    uint64_t total = 0;
    for (const Input& in : inputs_) {
      dirs.push_back(in.dir.get());
      total += in.dir->index().entries.size();
    }
    const delsm::Tuning tuning;
    int level = 1;
    for (uint64_t cap = tuning.l1_entries;
         level < config::kNumLevels - 1 && cap < total; cap *= 10) {
      level++;
    }

    DentryCompaction::Hooks hooks;
    hooks.new_file_number = [this]() { return NewNumber(); };
    hooks.output_path = [this, level](uint64_t n) {
      return SstDirName(dbname_, level, n);
    };
    hooks.is_base_level_for_key = [](const Slice&) { return true; };
    DentryCompaction dc(sst_options_, tuning.sst_entries, max_sequence_, hooks);
    Status s = dc.Run(dirs);
    if (s.ok()) {
      s = dc.MakeDurable(delsm::Durability::kSyncfs,
                         LevelDirName(dbname_, level));
    }
    if (!s.ok()) {
      dc.Abandon();
      return s;
    }

    VersionEdit edit;
    edit.SetComparatorName(icmp_.user_comparator()->Name());
    // The old SSTs the merge was given (and those a manifest recorded as
    // replaced): the record that they are replaced, for a later RepairDB
    // (FindRetiredSsts) if this one is killed before it has put them away.
    for (const auto& old : replaced_) edit.RemoveFile(old.first, old.second);
    // So are its own intermediate directories, which it removes only after
    // this commit: one a kill leaves holds a copy of old SSTs without the
    // tombstones the merge dropped.
    for (const auto& dir : new_dirs_) edit.RemoveFile(0, dir.first);
    dc.AddOutputsTo(level, &edit);
    const uint64_t manifest_number = NewNumber();
    edit.SetLogNumber(next_number_);  // every existing WAL is converted
    edit.SetNextFile(next_number_ + 1);
    edit.SetLastSequence(max_sequence_);
    repaired_entries_ = total;
    s = WriteManifest(manifest_number, edit);
    if (s.ok()) dropped_home_values_ = dc.dead_values();
    return s;
  }

  Status WriteManifest(uint64_t number, const VersionEdit& edit) {
    Status s = WriteManifestAndSetCurrent(env_, dbname_, number, edit);
    if (s.ok()) new_manifest_ = number;
    return s;
  }

  // Moves `path` to lost/<lost_name>, through the Env for the files it
  // carries (WALs, manifests) and the FileSystem for SST directories; logs
  // it. On failure the file is left where it is, never deleted.
  void MoveToLost(const std::string& path, const std::string& lost_name,
                  bool env_file) {
    const std::string lost_dir = dbname_ + "/lost";
    const std::string to = lost_dir + "/" + lost_name;
    Status s;
    if (env_file) {
      env_->CreateDir(lost_dir);  // may exist; the rename reports failure
      s = env_->RenameFile(path, to);
    } else {
      s = sst_options_.fs->CreateDir(lost_dir, true);
      if (s.ok()) s = sst_options_.fs->Rename(path, to);
    }
    if (s.ok()) moved_to_lost_++;
    Log(options_.info_log, "RepairDB: moving %s to %s: %s\n", path.c_str(),
        to.c_str(), s.ToString().c_str());
  }

  // An old SST directory: entries the merge was given are unlinked, the
  // others moved to lost/L<level>-<directory>/, then the directory is
  // removed. A directory that could not be loaded is moved whole.
  void PutAwayOldDirectory(const OldDir& d) {
    const std::string base = d.path.substr(d.path.rfind('/') + 1);
    const std::string lost_name = "L" + std::to_string(d.level) + "-" + base;
    if (!d.loaded) {
      MoveToLost(d.path, lost_name, false);
      return;
    }
    std::unique_ptr<Directory> dir;
    std::vector<std::string> names;
    Status s = sst_options_.fs->OpenDirectory(d.path, &dir);
    if (s.ok()) s = dir->List(&names);
    // Meta and LONGKEYS files go last: killed in between, this directory
    // keeps the meta files that name what is left of it, which the next
    // RepairDB knows for replaced (this one's manifest records them so)
    // and so does not take back the values they name.
    std::stable_partition(names.begin(), names.end(),
                          [&d](const std::string& name) {
                            uint64_t n;
                            return !ParseMetaFileName(name, d.number, &n) &&
                                   !Slice(name).starts_with(kLongKeysFileName);
                          });
    size_t unlinked = 0, kept = 0;
    for (size_t i = 0; s.ok() && i < names.size(); i++) {
      if (d.used.count(names[i]) > 0) {
        s = dir->Unlink(names[i]);
        unlinked++;
      } else {
        kept++;
      }
    }
    dir.reset();
    if (s.ok() && kept == 0) s = sst_options_.fs->RemoveDir(d.path);
    Log(options_.info_log, "RepairDB: %s: %zu entries removed, %zu kept: %s\n",
        d.path.c_str(), unlinked, kept, s.ToString().c_str());
    if (kept > 0 || !s.ok()) MoveToLost(d.path, lost_name, false);
  }

  void PutAwayOldFiles() {
    inputs_.clear();  // close directories before removing them
    for (const auto& dir : new_dirs_) {
      // Intermediate: everything in them is linked from the old files or
      // the WALs, which are kept or put away. Killed before they are gone,
      // the next RepairDB knows them for replaced (MergeAndCommit).
      RemoveSstDirectory(sst_options_.fs, dir.second, nullptr);
    }
    for (const OldDir& d : old_dirs_) PutAwayOldDirectory(d);
    homes_.PutAway(
        dropped_home_values_,
        [this](const std::string& path, const std::string& lost_name) {
          MoveToLost(path, lost_name, false);
        },
        options_.info_log);
    for (uint64_t n : logs_) {
      MoveToLost(LogFileName(dbname_, n), LogFileName("", n).substr(1), true);
    }
    for (const std::string& m : manifests_) {
      if (m != DescriptorFileName("", new_manifest_).substr(1)) {
        MoveToLost(dbname_ + "/" + m, m, true);
      }
    }
  }

  struct Input {
    uint64_t order;
    std::unique_ptr<SstDir> dir;
  };

  const std::string dbname_;
  Env* const env_;
  Options options_;  // info_log set by OpenInfoLog if none was given
  std::unique_ptr<Logger> owned_info_log_;
  size_t moved_to_lost_ = 0;
  const InternalKeyComparator icmp_;
  const std::unique_ptr<const FilterPolicy> default_filter_;
  RepairHomes homes_;  // values that stay put
  SstDirOptions sst_options_;
  uint64_t next_number_ = 1;
  uint64_t new_manifest_ = 0;
  SequenceNumber max_sequence_ = 0;
  uint64_t repaired_entries_ = 0;
  std::vector<uint64_t> logs_;
  std::vector<std::string> manifests_;
  std::set<uint64_t> retired_;  // SSTs a manifest records as replaced
  // Entries of loaded meta files whose values are KV files in their SST
  // directories, by internal key (RebuildDirectory).
  std::map<std::string, MetaEntry> named_files_;
  std::vector<OldDir> old_dirs_;
  // Intermediate L0 SST directories (rebuilt ones, WALs converted, values
  // in homes taken back), by number.
  std::vector<std::pair<uint64_t, std::string>> new_dirs_;
  std::vector<Input> inputs_;
  // (level, number) of every old SST whose meta file was merged or that a
  // manifest records as replaced: recorded as removed in the new manifest.
  std::vector<std::pair<int, uint64_t>> replaced_;
  // Values in homes whose entries the merge dropped (committed).
  std::vector<HomeValue> dropped_home_values_;
};

}  // namespace

Status RepairDB(const std::string& dbname, const Options& options) {
  return RepairDBWithFileSystem(dbname, options, FileSystemForEnv(options.env));
}

Status RepairDBWithFileSystem(const std::string& dbname, const Options& options,
                              FileSystem* fs) {
  if (options.comparator == nullptr || options.env == nullptr) {
    return Status::InvalidArgument(dbname, "options need a comparator and env");
  }
  // A LevelDB database is converted by opening it (DeLSM's repair below
  // never reads LevelDB's files and would destroy them), or refused before
  // anything is created, locked or logged when it cannot be converted. A
  // conversion cut short after its commit is finished the same way. (A
  // pre-release DeLSM database is repaired: that is how it is brought to
  // the current format.) A DeLSM database LevelDB's RepairDB rewrote is
  // not converted (that would lose its SSTs) but repaired.
  DatabaseFormat format;
  std::string evidence;
  Status s = DetectDatabaseFormat(options.env, dbname, &format, &evidence);
  if (!s.ok()) return s;
  if (format == DatabaseFormat::kRewrittenByLevelDb) {
    // LevelDB's RepairDB replaced this DeLSM database's manifest: its
    // tables (DeLSM's WALs, as LevelDB replayed them) become L0 SSTs, and
    // the repair below merges them with every SST directory.
    const InternalKeyComparator icmp(options.comparator);
    const std::unique_ptr<const FilterPolicy> default_filter(
        NewDefaultFilterPolicy(options));
    LevelDbConversionOptions convert;
    convert.env = options.env;
    convert.fs = fs;
    convert.info_log = options.info_log;
    convert.user_comparator = options.comparator;
    convert.sst_options.comparator = &icmp;
    convert.sst_options.filter_policy = options.filter_policy != nullptr
                                            ? options.filter_policy
                                            : default_filter.get();
    convert.sst_options.fs = fs;
    convert.sst_options.compression = options.compression;
    convert.sst_options.inline_threshold = delsm::Tuning().inline_threshold;
    s = TakeInLevelDbTables(convert, dbname);
    if (!s.ok()) return s;
  } else if (format == DatabaseFormat::kLevelDb ||
             options.env->FileExists(dbname + "/" +
                                     kLevelDbConversionDirName)) {
    if (format == DatabaseFormat::kLevelDb) {
      s = CheckDatabaseFormat(options.env, dbname, options.comparator,
                              "RepairDB");
      if (!s.ok()) return s;
    }
    Options open_options = options;
    open_options.create_if_missing = false;
    open_options.error_if_exists = false;
    DB* db = nullptr;
    s = OpenWithFileSystem(open_options, delsm::Tuning(), dbname, fs, &db);
    delete db;  // the DB's LOG says what was converted
    return s;
  }
  Repairer repairer(dbname, options, fs);
  return repairer.Run();
}

}  // namespace leveldb
