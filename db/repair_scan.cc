// RepairDB's first steps (db/repairer.h): finding the files, the SSTs the
// manifests record as replaced, and what every SST directory and home
// holds that the merge can be given. Nothing is moved or deleted here.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "compat/leveldb/directory_kind.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/manifest_numbers.h"
#include "db/repair_homes.h"
#include "db/repair_salvage.h"
#include "db/repairer.h"
#include "db/sst_dir_removal.h"
#include "db/version_edit.h"
#include "fs/file_system.h"
#include "leveldb/env.h"
#include "leveldb/filter_policy.h"
#include "table/key_codec.h"
#include "table/meta_file.h"
#include "table/meta_file_salvage.h"
#include "table/sst_dir.h"
#include "util/coding.h"
#include "util/logging.h"

namespace leveldb {

Status Repairer::FindFiles() {
  // Numbers start past every number a manifest here or in lost/ names,
  // whichever database wrote it (an earlier one at this path: DestroyDB
  // leaves lost/), as NewDB's and the take-in's do: the take-in brings
  // DeLSM's manifests back from lost/ for a later repair to read, and that
  // repair would set this one's SSTs of those numbers aside as replaced.
  // The directory's files alone bound nothing when it holds none (a
  // repair of a destroyed database's path commits a new database there,
  // and no NewDB follows). A manifest that cannot be read (EIO) fails the
  // repair before it changes anything: its numbers are unknown.
  uint64_t bound;
  Status s = ManifestsNumberBound(env_, sst_options_.fs, dbname_, &bound);
  if (!s.ok()) return s;
  next_number_ = std::max(next_number_, bound);
  std::vector<std::string> children;
  s = env_->GetChildren(dbname_, &children);
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

namespace {

// What one manifest records, as FindRetiredSsts reads it.
struct ManifestRecords {
  std::string name;
  uint64_t number = 0;         // its number; 0 if its name has none
  uint64_t bound = 0;          // past every number its records name
  std::set<uint64_t> live;     // SSTs live at its end
  std::set<uint64_t> retired;  // added or removed, not live at its end
  // Removed without having been added by a record of it (a repair's).
  std::set<uint64_t> merged_by_repair;
  std::set<std::pair<uint64_t, uint64_t>> ever_added;  // dir, SST
  size_t records = 0;
  bool damaged = false;  // damage skipped, or a record that did not decode
};

bool Intersect(const std::set<uint64_t>& a, const std::set<uint64_t>& b) {
  for (uint64_t n : a) {
    if (b.count(n) > 0) return true;
  }
  return false;
}

// Whether `m`'s records never took effect (or are not this database's),
// shown by another manifest of `all`, named in *witness. A manifest is
// numbered from the next file number of the state it starts from, and the
// next file number its records hand out is past its own number: one whose
// records hand out numbers past `m`'s was written after `m` was made
// (numbered above it, or below it by an Open that started from a state
// older than `m`, having marked `m`'s number used). Either shows that `m`
// was never committed:
//  - numbered below `m`: its state is older than `m`'s, and every session
//    after a commit starts from the committed state or a later one, its
//    manifest numbered past every number `m` hands out. (A RepairDB or a
//    conversion numbers its manifest past every manifest it finds, and an
//    Open from the next file number of the manifest it recovers.)
//  - listing live an SST `m` records as replaced: numbers are never
//    reused, so no manifest written after a commit lists live what that
//    commit replaced; and a session whose manifest write failed writes no
//    record and no manifest after it (VersionSet::LogAndApply), so none
//    is written on a state that lacks a record of `m` whose earlier
//    records took effect.
// Such an `m` is the manifest of a RepairDB, or of an Open, whose switch
// of CURRENT failed or was killed (a RepairDB's records every old SST as
// replaced by outputs the next Open removes as dead), which that Open kept
// as numbered past its own, and a later one may keep while a removal
// fails, or LevelDB's RepairDB may move to lost/ with the others, to be
// brought back beside them by the take-in. Read, its records of replaced
// SSTs would have SSTs live since set aside, and its record of its outputs
// would have an output left on disk (its removal failing) merged: a copy
// of the data from before every delete since.
bool NeverTookEffect(const ManifestRecords& m,
                     const std::vector<ManifestRecords>& all,
                     std::string* witness) {
  if (m.number == 0) return false;
  for (const ManifestRecords& later : all) {
    if (&later == &m || later.bound <= m.number) continue;
    if ((later.number != 0 && later.number < m.number) ||
        Intersect(m.retired, later.live)) {
      *witness = later.name;
      return true;
    }
  }
  return false;
}

}  // namespace

Status Repairer::FindRetiredSsts() {
  // The manifest CURRENT names holds every commit (a new manifest starts
  // with a snapshot of its predecessor's state before CURRENT names it).
  // Without CURRENT, or when it does not name a manifest read whole below,
  // nothing bounds the committed numbers (NeverCommitted).
  const std::string current_path = CurrentFileName(dbname_);
  std::string current;
  Status c = ReadFileToString(env_, current_path, &current);
  if (!c.ok() && !(c.IsNotFound() && !env_->FileExists(current_path))) {
    return c;  // not damage (EIO): RepairDB fails
  }
  if (!current.empty() && current.back() == '\n') current.pop_back();
  std::vector<ManifestRecords> read;
  for (const std::string& m : manifests_) {
    const std::string path = dbname_ + "/" + m;
    SequentialFile* raw = nullptr;
    Status s = env_->NewSequentialFile(path, &raw);
    if (s.IsNotFound() && !env_->FileExists(path)) continue;
    if (!s.ok()) return s;
    std::unique_ptr<SequentialFile> file(raw);
    // Damage is skipped, and counted: a manifest with damage may have lost
    // the record of a commit.
    class Reporter : public log::ReadErrorReporter {
     public:
      size_t damaged = 0;

     protected:
      void Damaged(size_t, const Status&) override { damaged++; }
    };
    Reporter errors;
    log::Reader reader(file.get(), &errors, true, 0);
    ManifestRecords r;
    r.name = m;
    FileType type;
    if (!ParseFileName(m, &r.number, &type)) r.number = 0;
    std::set<std::pair<int, uint64_t>> live;
    std::set<uint64_t> added;
    std::set<uint64_t> ever_added;  // by a record of this manifest
    std::string scratch;
    Slice record;
    bool undecodable = false;
    while (reader.ReadRecord(&record, &scratch) && errors.read_error().ok()) {
      VersionEdit edit;
      if (!edit.DecodeFrom(record).ok()) {
        undecodable = true;
        break;
      }
      r.records++;
      r.bound = std::max(r.bound, edit.NumberBound());
      // The numbers as the taking in of LevelDB's tables reads them
      // (ManifestNumberBound, db/manifest_numbers.h); that reader
      // goes on past a record it cannot decode, since it only bounds
      // numbers, while this pass also decides which SSTs are replaced.
      next_number_ = std::max(next_number_, edit.NumberBound());
      for (const auto& gone : edit.deleted_files()) {
        live.erase(gone);
        // Removed without having been added here: a repair's record of
        // the old SSTs and directories its merge was given and of its own
        // intermediate directories (MergeAndCommit).
        if (ever_added.count(gone.second) == 0) {
          r.merged_by_repair.insert(gone.second);
        }
        added.insert(gone.second);
      }
      for (const auto& add : edit.new_files()) {
        live.insert({add.first, add.second.number});
        added.insert(add.second.number);
        ever_added.insert(add.second.number);
        r.ever_added.insert({add.second.dir, add.second.number});
      }
    }
    if (!errors.read_error().ok()) return errors.read_error();
    for (const auto& l : live) r.live.insert(l.second);
    for (uint64_t n : added) {
      if (r.live.count(n) == 0) r.retired.insert(n);
    }
    r.damaged = errors.damaged > 0 || undecodable;
    read.push_back(std::move(r));
  }
  // A manifest numbered past the one CURRENT names (which is here) was
  // never committed: the manifest of each commit is numbered past every
  // one before it, so CURRENT never names one below a manifest it named.
  // Such a manifest is the new one of a RepairDB, or of an Open, whose
  // switch of CURRENT failed or was killed; a RepairDB's records every old
  // SST as replaced by its outputs, which the next Open removes as
  // directories no live version holds. Read, it would have those old
  // SSTs, then the only copy of the data, set aside. Its numbers still
  // bound the new ones (FindFiles). The evidence is DeLSM's numbering, so
  // the manifest CURRENT names must be DeLSM's: one of its records decodes
  // as DeLSM's edit (none of LevelDB's can), or, of one that does not
  // read, a name other than MANIFEST-000001
  // (LevelDbRepairInstalledManifestName). That is the name LevelDB's
  // RepairDB gives its own manifest, which it writes without a sync (a
  // power cut after it can leave it empty, and the take-in then leaves it
  // here); DeLSM's MANIFEST-000001 is a new database's, named by CURRENT
  // only until its first Open commits, before it holds anything. Past
  // LevelDB's, DeLSM's manifests (brought back from lost/) are all read.
  bool current_here = false;
  bool current_is_delsm = false;
  for (const ManifestRecords& r : read) {
    if (r.name != current) continue;
    current_here = true;
    current_is_delsm = r.records > 0;
  }
  uint64_t current_number = 0;
  FileType current_type;
  const bool past_current_uncommitted =
      current_here && ParseFileName(current, &current_number, &current_type) &&
      current_type == kDescriptorFile &&
      (current_is_delsm || current != LevelDbRepairInstalledManifestName());
  if (past_current_uncommitted) {
    std::vector<ManifestRecords> committed;
    for (ManifestRecords& r : read) {
      if (r.number > current_number) {
        Log(options_.info_log,
            "RepairDB: %s: numbered past %s, which CURRENT names: never "
            "committed, not read\n",
            r.name.c_str(), current.c_str());
      } else {
        committed.push_back(std::move(r));
      }
    }
    read.swap(committed);
  }
  const ManifestRecords* current_records = nullptr;
  for (const ManifestRecords& r : read) {
    if (r.name == current && r.records > 0 && !r.damaged) current_records = &r;
  }
  uint64_t bound = 0;  // past every number of every manifest read
  for (const ManifestRecords& r : read) {
    std::string witness;
    if (r.name != current && NeverTookEffect(r, read, &witness)) {
      // Its numbers still bound the new ones (FindFiles, next_number_).
      Log(options_.info_log,
          "RepairDB: %s: %s, written after it, numbered below it or listing "
          "live an SST it records as replaced: never committed, not read\n",
          r.name.c_str(), witness.c_str());
      continue;
    }
    bound = std::max(bound, r.bound);
    size_t retired = 0;
    for (uint64_t n : r.retired) {
      if (retired_.insert(n).second) retired++;
    }
    merged_by_repair_.insert(r.merged_by_repair.begin(),
                             r.merged_by_repair.end());
    ever_added_.insert(r.ever_added.begin(), r.ever_added.end());
    Log(options_.info_log,
        "RepairDB: %s: %zu records read, %zu SSTs it replaced%s\n",
        r.name.c_str(), r.records, retired, r.damaged ? " (damaged)" : "");
  }
  if (current_records != nullptr) committed_bound_ = bound;
  return Status::OK();
}

bool Repairer::IsDamage(const Status& s) {
  if (s.IsCorruption()) return true;
  const std::string text = s.ToString();
  return text.find(std::strerror(ENOTDIR)) != std::string::npos ||
         IsLinkNotFollowed(s);
}

void Repairer::NoteNamedFiles(const MetaIndex& index) {
  for (const MetaIndexEntry& e : index.entries) {
    if (StoredInFile(e.storage)) {
      named_files_.emplace(e.internal_key.ToString(), CopyOfEntry(e));
    }
  }
}

Status Repairer::LoadDirectories() {
  // False if `s` fails the repair; on damage, d is set aside.
  auto handle = [this](OldDir* d, const Status& s) -> bool {
    if (!s.ok() && !IsDamage(s)) {
      Log(options_.info_log, "RepairDB: cannot read %s: %s\n", d->path.c_str(),
          s.ToString().c_str());
      return false;
    }
    if (!s.ok()) {
      Log(options_.info_log, "RepairDB: cannot use %s: %s\n", d->path.c_str(),
          s.ToString().c_str());
      d->used.clear();
      // Whatever its meta files named, unless no manifest committed it.
      if (!NeverCommitted(d->number)) homes_.NoteMetaFileLost();
    }
    return true;
  };
  auto add = [this](OldDir* d, std::unique_ptr<SstDir> dir) {
    Log(options_.info_log, "RepairDB: %s: %zu entries\n", d->path.c_str(),
        dir->index().entries.size());
    d->loaded = true;
    // The directory itself, whatever its meta files are: a later RepairDB
    // (this one killed after its commit) must not take its KV files back
    // by their names when no meta file of it reads (LoadDirectory).
    replaced_.push_back({d->level, d->number});
    AddInput(std::move(dir), d->number);
  };
  // Every directory is loaded, and its META-<n> numbers noted, before
  // the first rebuild takes a number (NewNumber); and every meta file is
  // read, so every lost group known, before a directory is given to the
  // merge as it is (Withheld).
  std::vector<std::unique_ptr<PendingRebuild>> pending;
  std::vector<std::pair<OldDir*, std::unique_ptr<SstDir>>> as_is;
  for (OldDir& d : old_dirs_) {
    std::unique_ptr<SstDir> dir;
    std::unique_ptr<PendingRebuild> rebuild;
    Status s = LoadDirectory(&d, &dir, &rebuild);
    if (!handle(&d, s)) return s;
    if (!s.ok()) continue;
    if (dir == nullptr && rebuild == nullptr) continue;  // put away whole
    if (rebuild != nullptr) {
      for (const auto& meta : rebuild->metas) {
        NoteNamedFiles(meta->index());
      }
      for (const SalvagedMetaFile& meta : rebuild->salvaged) {
        for (const MetaEntry& e : meta.entries) {
          if (StoredInFile(e.storage)) named_files_.emplace(e.internal_key, e);
        }
      }
      pending.push_back(std::move(rebuild));
      continue;
    }
    NoteNamedFiles(dir->index());
    as_is.push_back({&d, std::move(dir)});
  }
  for (auto& a : as_is) {
    OldDir* d = a.first;
    const auto& entries = a.second->index().entries;
    const bool withholds = std::any_of(
        entries.begin(), entries.end(), [this, d](const MetaIndexEntry& e) {
          return e.storage != ValueStorage::kNone &&
                 Withheld(d->level, e.internal_key);
        });
    if (!withholds) {
      homes_.NoteAllUsed(a.second->index());
      add(d, std::move(a.second));
      continue;
    }
    // Rebuilt without what it withholds, from its META (it reads whole)
    // and its listing, as a directory that needs rebuilding is.
    Log(options_.info_log,
        "RepairDB: %s: holds versions of keys a lost group above may have "
        "held; rebuilding\n",
        d->path.c_str());
    std::unique_ptr<PendingRebuild> p(new PendingRebuild);
    p->old = d;
    Status s = sst_options_.fs->OpenDirectory(d->path, &p->src);
    if (s.ok()) s = p->src->List(&p->names);
    if (!s.ok()) {
      Log(options_.info_log, "RepairDB: cannot read %s: %s\n", d->path.c_str(),
          s.ToString().c_str());
      return s;  // listed and read a moment ago: not damage
    }
    d->used.clear();
    p->metas.push_back(std::move(a.second));
    pending.push_back(std::move(p));
  }
  for (std::unique_ptr<PendingRebuild>& p : pending) {
    std::unique_ptr<SstDir> dir;
    Status s = RebuildDirectory(*p, &p->old->used, &dir);
    if (!handle(p->old, s)) return s;
    if (s.ok()) add(p->old, std::move(dir));
    p.reset();  // closes its directory and meta files
  }
  return Status::OK();
}

Status Repairer::LoadDirectory(OldDir* old, std::unique_ptr<SstDir>* result,
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
      // Left out as a replaced SST's is: one no manifest committed holds
      // only what its inputs or their successors hold.
      const bool replaced = retired_.count(sst_number) > 0 ||
                            UncommittedAddition(d.number, sst_number);
      (replaced ? retired_metas : metas).push_back(name);
      if (replaced) replaced_.push_back({d.level, sst_number});
    }
  }
  // Nothing in it was ever live: set aside whole (lost/), recorded as
  // merged, as a directory an earlier RepairDB merged is.
  if (DirectoryNeverLive(d.number)) {
    Log(options_.info_log,
        "RepairDB: %s: no manifest records an SST in it, and the database "
        "ran on past its number; not merged\n",
        d.path.c_str());
    replaced_.push_back({d.level, d.number});
    return Status::OK();
  }
  // A directory a committed RepairDB was given (its manifest records the
  // directory's number as removed, and never added it), where no meta file
  // of an SST it did not replace reads: everything in it that the merge
  // could use, it was given, and the merge dropped what is not in its
  // output (tombstones included). Taken back by their names now, its KV
  // files would bring back the keys those tombstones deleted. It is set
  // aside whole (lost/), and recorded again as merged. A directory with
  // such a meta file that reads is not one that repair merged (a manifest
  // whose records of added SSTs were damaged looks the same).
  if (merged_by_repair_.count(d.number) > 0) {
    bool own_meta_reads = false;
    for (const std::string& meta : metas) {
      std::unique_ptr<SstDir> sst;
      Status m = SstDir::OpenWhole(sst_options_, d.path, meta, &sst);
      if (m.ok()) {
        own_meta_reads = true;
        break;
      }
      if (!m.IsCorruption()) return m;  // not damage: RepairDB fails
    }
    if (!own_meta_reads) {
      Log(options_.info_log,
          "RepairDB: %s: merged by an earlier RepairDB, not merged again\n",
          d.path.c_str());
      replaced_.push_back({d.level, d.number});
      return Status::OK();
    }
  }
  // The files only replaced SSTs name are not merged (they go to lost/).
  std::set<std::string> retired_names;
  for (const std::string& meta : retired_metas) {
    retired_names.insert(meta);
    std::unique_ptr<SstDir> sst;
    Status m = SstDir::OpenWhole(sst_options_, d.path, meta, &sst);
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
        "RepairDB: %s/%s: replaced by a committed compaction, or added by "
        "one never committed; not merged (%s)\n",
        d.path.c_str(), meta.c_str(), m.ToString().c_str());
  }
  if (metas.size() == 1 && metas[0] == kMetaFileName && retired_metas.empty()) {
    s = SstDir::OpenWhole(sst_options_, d.path, kMetaFileName, result);
    // Its inline values must be readable too (the index's checksum does
    // not cover them), or the merge would fail on them; so must the
    // files its entries name in homes and in the directory be there.
    if (s.ok()) s = CheckInlineValues(result->get());
    if (s.ok()) s = homes_.CheckPresent((*result)->index());
    std::vector<std::string> kv_files;
    if (s.ok()) {
      kv_files = KvFileNamesOf((*result)->index());
      s = CheckKvFilesListed(kv_files, names, d.path);
    }
    if (s.ok()) {
      replaced_.push_back({d.level, d.number});
      old->used.insert(kMetaFileName);
      old->used.insert(kLongKeysFileName);
      for (std::string& name : kv_files) old->used.insert(std::move(name));
      return s;
    }
    result->reset();
    if (!s.ok() && !s.IsCorruption() && !s.IsNotFound()) {
      return s;  // not damage (NotFound: a value in a home or a KV file
                 // of the directory is gone)
    }
    // Rebuilt from the listing and from META itself: an index that
    // loads still gives every entry but the damaged inline values and
    // those whose values are gone (and the tombstones), which a listing
    // alone would lose.
    Log(options_.info_log, "RepairDB: %s: %s; rebuilding\n", d.path.c_str(),
        s.ToString().c_str());
  }
  std::vector<std::unique_ptr<SstDir>> loaded;
  Log(options_.info_log, "RepairDB: %s: rebuilding from %zu meta files\n",
      d.path.c_str(), metas.size());
  // A directory holds the meta file of at least one SST: none at all, or
  // one that does not read (of an SST no manifest records as replaced),
  // may have named values in homes; not if no manifest committed the
  // directory, or that SST (NeverCommitted): a flush, compaction or
  // RepairDB killed before its commit leaves such a directory, or such a
  // meta file, and nothing it named lives only through it.
  if (metas.empty() && retired_metas.empty() && !NeverCommitted(d.number)) {
    homes_.NoteMetaFileLost();
  }
  std::vector<SalvagedMetaFile> salvaged;
  for (const std::string& meta : metas) {
    uint64_t sst_number = 0;
    ParseMetaFileName(meta, d.number, &sst_number);
    std::unique_ptr<SstDir> sst;
    Status m = SstDir::OpenWhole(sst_options_, d.path, meta, &sst);
    if (m.ok()) m = NoteDamagedInlineValues(d, sst.get());
    if (m.ok()) {
      replaced_.push_back({d.level, sst_number});
      loaded.push_back(std::move(sst));
      continue;
    }
    if (!m.IsCorruption()) {
      return m;  // not damage: RepairDB fails (LoadDirectories)
    }
    Log(options_.info_log, "RepairDB: %s/%s: %s\n", d.path.c_str(),
        meta.c_str(), m.ToString().c_str());
    m = SalvageMeta(d, src.get(), names, retired_names, meta, sst_number,
                    &salvaged);
    if (m.ok()) {
      // Merged, in part: recorded as replaced, so that a later RepairDB
      // (this one killed after its commit) does not merge it again.
      replaced_.push_back({d.level, sst_number});
    } else if (!m.IsCorruption()) {
      return m;
    } else {
      Log(options_.info_log, "RepairDB: %s/%s: nothing taken back: %s\n",
          d.path.c_str(), meta.c_str(), m.ToString().c_str());
      if (!NeverCommitted(sst_number)) homes_.NoteMetaFileLost();
    }
  }
  rebuild->reset(new PendingRebuild);
  (*rebuild)->old = old;
  (*rebuild)->src = std::move(src);
  (*rebuild)->names = std::move(names);
  (*rebuild)->metas = std::move(loaded);
  (*rebuild)->salvaged = std::move(salvaged);
  (*rebuild)->retired = std::move(retired_names);
  return Status::OK();
}

Status Repairer::RecoverHomeValues() {
  std::vector<MetaEntry> entries;
  Status s = homes_.TakeBackUnnamed(&entries);
  if (!s.ok()) {
    Log(options_.info_log, "RepairDB: cannot read a value in a home: %s\n",
        s.ToString().c_str());
    return s;
  }
  Log(options_.info_log,
      "RepairDB: %zu values in homes no meta file names taken back%s\n",
      entries.size(),
      homes_.meta_file_lost() ? "" : " (every meta file read: none is)");
  if (entries.empty()) return Status::OK();
  std::unique_ptr<SstDir> dir;
  s = BuildSstOf(&entries, nullptr, &dir);
  // Older than any SST directory: an exact duplicate keeps the other.
  if (s.ok()) AddInput(std::move(dir), 0);
  return s;
}

Status Repairer::ReadInlineValues(
    const SstDir* dir,
    const std::function<Status(const MetaIndexEntry&, const Status&)>&
        on_failure) {
  std::string buffer;
  uint64_t offset = 0;
  const auto& entries = dir->index().entries;
  for (size_t i = 0; i < entries.size(); i++) {
    if (!StoredInline(entries[i].storage)) continue;
    Slice stored;
    Status s =
        dir->ReadInlineStored(i, 1, 256 << 10, &buffer, &offset, &stored);
    if (!s.ok()) s = on_failure(entries[i], s);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status Repairer::CheckInlineValues(const SstDir* dir) {
  return ReadInlineValues(
      dir, [](const MetaIndexEntry&, const Status& s) { return s; });
}

Status Repairer::NoteDamagedInlineValues(const OldDir& old, const SstDir* dir) {
  return ReadInlineValues(dir, [&](const MetaIndexEntry& e, const Status& s) {
    if (!s.IsCorruption()) return s;
    const std::string key = ExtractUserKey(e.internal_key).ToString();
    Log(options_.info_log,
        "RepairDB: %s: the inline value of user key %s damaged; its entry "
        "lost: %s\n",
        old.path.c_str(), EscapeString(key).c_str(), s.ToString().c_str());
    lost_keys_.push_back({old.level, old.number, key, key, std::string()});
    return Status::OK();
  });
}

Status Repairer::CheckKvFilesListed(const std::vector<std::string>& kv_files,
                                    const std::vector<std::string>& names,
                                    const std::string& path) {
  const std::set<std::string> listed(names.begin(), names.end());
  std::string first_missing;
  size_t missing = 0;
  for (const std::string& name : kv_files) {
    if (listed.count(name) > 0) continue;
    if (missing++ == 0) first_missing = name;
  }
  if (missing == 0) return Status::OK();
  return Status::NotFound(path + "/" + first_missing,
                          "a KV file its META names is missing (" +
                              std::to_string(missing) + " missing)");
}

Status Repairer::RebuildDirectory(const PendingRebuild& p,
                                  std::set<std::string>* used,
                                  std::unique_ptr<SstDir>* result) {
  std::vector<MetaEntry> entries;
  const int level = p.old->level;
  size_t withheld = 0;
  Status s = SalvageSstDir(
      p.src.get(), p.names, p.metas, p.salvaged, p.retired, named_files_,
      [this, level](const Slice& internal_key) {
        return Withheld(level, internal_key);
      },
      &homes_, options_.info_log, used, &entries, &withheld);
  withheld_entries_ += withheld;
  if (!s.ok()) return s;
  return BuildSstOf(&entries, p.src.get(), result);
}

Status Repairer::SalvageMeta(const OldDir& old, Directory* src,
                             const std::vector<std::string>& names,
                             const std::set<std::string>& retired,
                             const std::string& meta, uint64_t sst_number,
                             std::vector<SalvagedMetaFile>* salvaged) {
  const std::string path = old.path + "/" + meta;
  std::string data;
  Status s = src->ReadFile(meta, &data);
  if (!s.ok()) return s;  // listed a moment ago: not damage
  MetaFileSalvage salvage;
  s = SalvageMetaFile(data, &icmp_, path, &salvage);
  if (!s.ok()) return s;
  // The KV files of the directory no intact entry names: what of a lost
  // group's entries its listing still shows (taken back by their names).
  std::set<std::string> intact;
  for (const MetaEntry& e : salvage.entries) {
    if (StoredInFile(e.storage)) {
      intact.insert(KvStoredFileName(
          ExtractUserKey(e.internal_key),
          DecodeFixed64(e.internal_key.data() + e.internal_key.size() - 8) >> 8,
          e.storage == ValueStorage::kFileSnappy));
    }
  }
  uint64_t lost = 0;
  for (const MetaFileSalvage::LostGroup& g : salvage.lost_groups) {
    lost += g.entries;
    // Counted by internal key, within the group's own bounds: the next
    // group's first key is in the user key range, and when that group is
    // lost too its KV file, counted here, would stand in for a tombstone
    // of this one.
    uint64_t files = 0;
    for (const std::string& name : names) {
      std::string user_key;
      uint64_t sequence;
      bool hashed, compressed;
      if (intact.count(name) > 0 || retired.count(name) > 0 ||
          !ParseKvStoredFileName(name, &user_key, &sequence, &hashed,
                                 &compressed) ||
          hashed) {
        continue;
      }
      std::string internal_key;
      AppendInternalKey(&internal_key,
                        ParsedInternalKey(user_key, sequence, kTypeValue));
      const int past_limit = icmp_.Compare(internal_key, g.limit_key);
      if (icmp_.Compare(internal_key, g.first_key) >= 0 &&
          (past_limit < 0 || (g.limit_included && past_limit == 0))) {
        files++;
      }
    }
    Log(options_.info_log,
        "RepairDB: %s: group %zu lost (%llu entries, user keys %s .. %s; %llu "
        "KV files of the directory in that range no intact entry names): "
        "%s\n",
        path.c_str(), g.group, static_cast<unsigned long long>(g.entries),
        EscapeString(g.smallest_user_key).c_str(),
        EscapeString(g.largest_user_key).c_str(),
        static_cast<unsigned long long>(files), g.why.ToString().c_str());
    // Its entries were all values in KV files, which come back by their
    // names: it held no tombstone and no inline value, and nothing below
    // it needs withholding.
    if (files >= g.entries) continue;
    lost_keys_.push_back({old.level, old.number, g.smallest_user_key,
                          g.largest_user_key, salvage.filter});
  }
  if (salvage.lost_groups.empty()) {
    Log(options_.info_log,
        "RepairDB: %s: every entry taken back from its groups (%zu; the "
        "trailer %s)\n",
        path.c_str(), salvage.entries.size(),
        salvage.trailer_read ? "read"
                             : "did not read, the groups tile the file");
  } else {
    Log(options_.info_log,
        "RepairDB: %s: %zu entries taken back from its intact groups, %llu "
        "lost with %zu damaged groups\n",
        path.c_str(), salvage.entries.size(),
        static_cast<unsigned long long>(lost), salvage.lost_groups.size());
    // The values in homes its lost entries named are not known.
    if (!NeverCommitted(sst_number)) homes_.NoteMetaFileLost();
  }
  for (const std::string& key : salvage.damaged_value_keys) {
    Log(options_.info_log,
        "RepairDB: %s: the inline value of user key %s damaged; its entry "
        "lost\n",
        path.c_str(), EscapeString(key).c_str());
    // The lost entry was a value of exactly this key, newer than any
    // version below: those are withheld as for a lost group.
    lost_keys_.push_back({old.level, old.number, key, key, salvage.filter});
  }
  salvaged_entries_ += salvage.entries.size();
  lost_entries_ += lost + salvage.damaged_value_keys.size();
  salvaged->push_back({meta, std::move(salvage.entries)});
  return Status::OK();
}

bool Repairer::Withheld(int level, const Slice& internal_key) const {
  if (lost_keys_.empty() || internal_key.size() < 8) return false;
  const Slice user_key = ExtractUserKey(internal_key);
  const Comparator* ucmp = icmp_.user_comparator();
  const FilterPolicy* policy = sst_options_.filter_policy;
  for (const LostKeys& lost : lost_keys_) {
    if (level <= lost.level || ucmp->Compare(user_key, lost.smallest) < 0 ||
        ucmp->Compare(user_key, lost.largest) > 0) {
      continue;
    }
    // The filter rules a key out only when the policy that made it is the
    // one in use (as SstDir::Open decides).
    Slice filter = lost.filter;
    Slice policy_name;
    if (policy != nullptr && GetLengthPrefixedSlice(&filter, &policy_name) &&
        policy_name == Slice(policy->Name()) &&
        !policy->KeyMayMatch(user_key, filter)) {
      continue;
    }
    return true;
  }
  return false;
}

}  // namespace leveldb
