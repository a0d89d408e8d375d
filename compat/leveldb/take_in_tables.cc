// TakeInLevelDbTables (compat/leveldb/conversion.h, which gives the steps
// and the commit point): LevelDB's tables become L0 SST directories, for
// DeLSM's RepairDB to merge. The in-place conversion of a LevelDB database
// is in conversion.cc; the staging directory both use, in staging.cc.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compat/leveldb/conversion.h"
#include "compat/leveldb/conversion_internal.h"
#include "compat/leveldb/directory_kind.h"
#include "compat/leveldb/manifest.h"
#include "compat/leveldb/table_reader.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/manifest_numbers.h"
#include "db/sst_dir_removal.h"
#include "db/version_edit.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"
#include "table/meta_file.h"
#include "table/sst_dir_builder.h"

namespace leveldb {

namespace {

using conversion_internal::ChooseLostNames;
using conversion_internal::ConversionDurability;
using conversion_internal::FinishConversion;
using conversion_internal::IsPlannedFile;
using conversion_internal::ListLost;
using conversion_internal::MoveToLost;
using conversion_internal::PlaceStagedSsts;
using conversion_internal::PlannedFile;
using conversion_internal::PlannedNames;
using conversion_internal::ReadCurrent;
using conversion_internal::ReadLiveSsts;
using conversion_internal::ReadPlan;
using conversion_internal::RemoveFinishedStaging;
using conversion_internal::RemoveStaging;
using conversion_internal::StagedSstPath;
using conversion_internal::StagingPlan;
using conversion_internal::WritePlan;

// Damage, or a file that is not there (NotFound, and no longer listed):
// what a reader may take for "nothing to read". Any other error (EIO,
// EMFILE, ENOENT for a file that is there) is not.
bool DamagedOrAbsent(Env* env, const Status& s, const std::string& path) {
  return s.IsCorruption() || (s.IsNotFound() && !env->FileExists(path));
}

// Whether CURRENT names a manifest that reads as LevelDB's (*readable;
// then LevelDB opens the directory, as far as its manifest goes), its name
// in *manifest and what it holds in *state. A read of either that fails
// otherwise than on damage or absence fails.
Status ReadLevelDbCurrent(Env* env, const std::string& dbname, bool* readable,
                          std::string* manifest, LevelDbState* state) {
  *readable = false;
  Status s = ReadCurrent(env, dbname, manifest);
  if (!s.ok()) {
    return DamagedOrAbsent(env, s, CurrentFileName(dbname)) ? Status::OK() : s;
  }
  const std::string path = dbname + "/" + *manifest;
  s = ReadLevelDbManifest(env, path, state);
  if (!s.ok()) return DamagedOrAbsent(env, s, path) ? Status::OK() : s;
  *readable = true;
  return Status::OK();
}

// Sets (*in_place)[i] to whether the file `plan.to_lost[i]` names is
// still in `dbname` (IsPlannedFile: a file of its identity under its name;
// in a PLAN of the previous format, any file of its name); fails if that
// cannot be told. A name the directory's listing lacks is not there:
// moved by the take-in, the only one to move it. A lookup of each name
// (FileExists, access(2)) would answer no on any error (EIO on a damaged
// inode), and a table taken for moved made an uncommitted take-in look
// committed (the other tables then went to lost/ with no SST made of
// them) and was left in place beside the SST made of it. These are the
// Env's files (a memory Env's are not in its FileSystem), so
// FileSystem::Probe cannot be asked: the Env's listing is its answer, as
// for MoveToLost's free names.
Status FindInPlace(Env* env, const std::string& dbname, const StagingPlan& plan,
                   std::vector<bool>* in_place) {
  in_place->assign(plan.to_lost.size(), false);
  std::vector<std::string> children;
  Status s = env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  const std::set<std::string> listed(children.begin(), children.end());
  for (size_t i = 0; i < plan.to_lost.size(); i++) {
    bool here;
    s = IsPlannedFile(env, dbname, listed, plan.to_lost[i], &here);
    if (!s.ok()) return s;
    (*in_place)[i] = here;
  }
  return Status::OK();
}

// What says whether a take-in's commit, the move of the first file its
// PLAN names to lost/, was made.
enum class TakeInCommit {
  kMade,     // that file is in lost/ under the name the PLAN gives it
  kNotMade,  // it is in place (and not in lost/)
  kUnknown,  // neither: see ResolveStaging
};

// Sets *commit for the take-in of `plan`. In a PLAN that records each
// file's identity and name in lost/: kMade if lost/'s listing holds that
// name and the file there is of the first file's identity (the take-in
// alone gives a file that name, the rename is atomic, and it is durable
// before anything else moves); else kNotMade if the first file is in
// place, of its identity; else kUnknown. A file of LevelDB's under the
// first one's name with another identity is not the first one: LevelDB's
// RepairDB numbers the table it makes of a WAL past every file it finds
// but the manifests, so it can make one under the name of a table moved
// to lost/. In a PLAN of the previous format (names alone): kNotMade if
// every file it moves to lost/ is in place, else kUnknown. A read that
// fails (EIO) fails.
Status JudgeTakeInCommit(Env* env, const std::string& dbname,
                         const StagingPlan& plan, TakeInCommit* commit) {
  *commit = TakeInCommit::kUnknown;
  const PlannedFile& first = plan.to_lost.front();
  if (plan.identified) {
    std::vector<std::string> lost;
    Status s = ListLost(env, dbname, &lost);
    if (!s.ok()) return s;
    const std::set<std::string> lost_listed(lost.begin(), lost.end());
    PlannedFile moved = first;
    moved.name = first.lost_name;
    bool in_lost;
    s = IsPlannedFile(env, dbname + "/lost", lost_listed, moved, &in_lost);
    if (!s.ok()) return s;
    if (in_lost) {
      *commit = TakeInCommit::kMade;
      return Status::OK();
    }
  }
  std::vector<bool> in_place;
  Status s = FindInPlace(env, dbname, plan, &in_place);
  if (!s.ok()) return s;
  bool not_made = in_place.front();
  if (!plan.identified) {
    for (bool here : in_place) not_made = not_made && here;
  }
  if (not_made) *commit = TakeInCommit::kNotMade;
  return Status::OK();
}

Status RestoreDelsmManifests(const LevelDbConversionOptions& o,
                             const std::string& dbname,
                             const std::vector<std::string>& taken_names);

// Whether the manifest at `path` is DeLSM's (*delsm): at least one of its
// records reads, and every one that reads begins with DeLSM's format
// marker (VersionEdit::HasFormatMarker: every record DeLSM writes does, no
// LevelDB edit can). Damage is skipped, as DeLSM's RepairDB skips it when
// it reads the manifest (FindRetiredSsts), so a damaged manifest of
// DeLSM's is DeLSM's. A file that is not there (NotFound, and no longer
// listed) is not; a read that fails otherwise (EIO, EMFILE) fails.
Status IsDelsmManifest(Env* env, const std::string& path, bool* delsm) {
  *delsm = false;
  SequentialFile* raw;
  Status s = env->NewSequentialFile(path, &raw);
  if (!s.ok()) return DamagedOrAbsent(env, s, path) ? Status::OK() : s;
  std::unique_ptr<SequentialFile> file(raw);
  log::ReadErrorReporter errors;  // damage is skipped
  log::Reader reader(file.get(), &errors, /*checksum=*/true, 0);
  Slice record;
  std::string scratch;
  bool any = false, all = true;
  while (reader.ReadRecord(&record, &scratch) && errors.read_error().ok()) {
    any = true;
    all = all && VersionEdit::HasFormatMarker(record);
  }
  if (!errors.read_error().ok()) return errors.read_error();
  *delsm = any && all;
  return Status::OK();
}

// Carries out a committed take-in's `plan` (steps 2 and 3 in
// conversion.h), or what is left of it: LevelDB's files to lost/, DeLSM's
// manifests back from lost/, the staged SSTs into L0/. The PLAN stays
// until DeLSM's repair has committed (EndLevelDbTakeIn).
Status FinishTakeIn(const LevelDbConversionOptions& o,
                    const std::string& dbname, const std::string& staging,
                    const StagingPlan& plan) {
  const delsm::Durability mode = ConversionDurability(o.durability);
  std::vector<std::string> moved_in = {dbname, dbname + "/lost"};
  std::vector<bool> in_place;
  Status s = FindInPlace(o.env, dbname, plan, &in_place);
  if (!s.ok()) return s;
  std::vector<std::string> children;
  s = o.env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  const std::set<std::string> listed(children.begin(), children.end());
  std::set<std::string> moved_names;
  bool moved = false;
  for (size_t i = 0; i < plan.to_lost.size(); i++) {
    const PlannedFile& file = plan.to_lost[i];
    if (moved_names.count(file.name) > 0) continue;
    if (!in_place[i]) {
      // Moved already; or, in place under its name but of another
      // identity, not the file the PLAN moves: LevelDB's RepairDB made it
      // since. It stays, the only copy of what it holds; a take-in
      // carried on takes it in (ResolveStaging).
      bool other = listed.count(file.name) > 0;
      for (size_t j = 0; other && j < plan.to_lost.size(); j++) {
        other = !(in_place[j] && plan.to_lost[j].name == file.name);
      }
      if (other) {
        Log(o.info_log,
            "RepairDB: %s is not the file the take-in's PLAN moves to lost/ "
            "(another size or checksum); left in place\n",
            file.name.c_str());
      }
      continue;
    }
    s = MoveToLost(o.env, o.fs, dbname, file.name,
                   plan.identified ? file.lost_name : std::string());
    // The first move is the commit, durable before anything else moves: a
    // power loss that undid it but kept a later move, or an SST placed in
    // L0/, would leave a directory ResolveStaging takes for uncommitted.
    if (s.ok() && !moved) s = MakeDirectoriesDurable(o.fs, mode, moved_in);
    if (!s.ok()) return s;
    moved = true;
    moved_names.insert(file.name);
  }
  // Committed: LevelDB can no longer use the directory, nor delete DeLSM's
  // manifests brought back into it.
  s = RestoreDelsmManifests(o, dbname, PlannedNames(plan.to_lost));
  if (!s.ok()) return s;
  if (!o.fs->Exists(moved_in.back())) moved_in.pop_back();  // none moved
  s = MakeDirectoriesDurable(o.fs, mode, moved_in);
  if (s.ok()) s = PlaceStagedSsts(o.fs, mode, dbname, staging, plan.moves);
  if (s.ok()) {
    Log(o.info_log,
        "RepairDB: LevelDB's tables taken in: %zu SSTs placed in L0/, %zu "
        "LevelDB files in lost/; the PLAN stays until the repair commits\n",
        plan.moves.size(), plan.to_lost.size());
  }
  return s;
}

// Whether DeLSM's repair has committed after the take-in of `plan` was
// carried out (*done): no SST it names is still staged, and CURRENT names
// a manifest that reads whole as DeLSM's, is none of the files the PLAN
// moves to lost/, and hands out numbers past every SST the PLAN places.
// CURRENT names LevelDB's manifest, or nothing, until that repair switches
// it to its own (a DeLSM manifest brought back from lost/ under another
// name is never named by CURRENT), or DeLSM's own from before the take-in
// where LevelDB's RepairDB was cut short before it moved that away; the
// take-in numbered its SSTs past every number that manifest names
// (NumbersInUse), and the repair numbers its own manifest past every SST
// directory it finds, the placed ones included. A lookup of a staged SST
// (Probe), or a read of CURRENT or of that manifest, that fails otherwise
// than on damage or absence fails.
Status RepairCommitted(const LevelDbConversionOptions& o,
                       const std::string& dbname, const std::string& staging,
                       const StagingPlan& plan, bool* done) {
  *done = false;
  Status s;
  for (const auto& move : plan.moves) {
    // A failed lookup (EIO) is no proof the SST left: taken for done, the
    // PLAN would go, and the next Open would remove an SST still staged as
    // a leftover, though no repair merged it.
    bool staged;
    s = o.fs->Probe(StagedSstPath(staging, move.second), &staged);
    if (!s.ok() || staged) return s;
  }
  std::string current;
  s = ReadCurrent(o.env, dbname, &current);
  if (!s.ok()) {
    return DamagedOrAbsent(o.env, s, CurrentFileName(dbname)) ? Status::OK()
                                                              : s;
  }
  const std::vector<std::string> names = PlannedNames(plan.to_lost);
  if (std::find(names.begin(), names.end(), current) != names.end()) {
    return Status::OK();
  }
  const std::string path = dbname + "/" + current;
  std::set<uint64_t> live;
  s = ReadLiveSsts(o.env, path, &live);
  if (!s.ok()) return DamagedOrAbsent(o.env, s, path) ? Status::OK() : s;
  uint64_t bound;
  s = ManifestNumberBound(o.env, path, &bound);
  if (!s.ok()) return s;
  for (const auto& move : plan.moves) {
    if (move.second >= bound) return Status::OK();
  }
  *done = true;
  return Status::OK();
}

// Once the repair after the take-in `plan` describes has committed
// (RepairCommitted), the staging directory holds nothing but the PLAN,
// which no longer needs to keep DB::Open out: removes it, *done set.
// Otherwise leaves it, *done false.
Status RemoveStagingAfterItsRepair(const LevelDbConversionOptions& o,
                                   const std::string& dbname,
                                   const std::string& staging,
                                   const StagingPlan& plan, bool* done) {
  Status s = RepairCommitted(o, dbname, staging, plan, done);
  if (!s.ok() || !*done) return s;
  s = RemoveFinishedStaging(o.env, o.fs, ConversionDurability(o.durability),
                            dbname, staging);
  if (s.ok()) {
    Log(o.info_log,
        "RepairDB: the take-in and its repair are done; removed %s\n",
        staging.c_str());
  }
  return s;
}

// What a take-in or a conversion left in the staging directory `staging`
// (see conversion.h): removed where it holds only copies; a committed
// take-in's is finished, and then, if its PLAN records each file's
// identity, handed back in *carried with *carry_on set, for the take-in to
// go on with the LevelDB files left in place (LevelDB's RepairDB may have
// made tables since, of WALs, under names the PLAN names too); one of the
// previous format is finished, with *finished set. A committed
// conversion's is finished as DB::Open finishes it, and the take-in goes
// on with the tables it leaves. A PLAN that does not decode is left as it
// is and fails the repair, which has changed nothing.
Status ResolveStaging(const LevelDbConversionOptions& o,
                      const std::string& dbname, const std::string& staging,
                      bool* finished, StagingPlan* carried, bool* carry_on) {
  *finished = false;
  *carry_on = false;
  // Absent only on ENOENT (Probe): access(2), behind FileExists, answers
  // no on any error (EIO), and a committed take-in's staging directory
  // taken for none had RepairDB repair without the SSTs staged there and
  // report success while their PLAN kept Open out.
  bool exists = false;
  Status s = o.fs->Probe(staging, &exists);
  if (!s.ok() || !exists) return s;
  StagingPlan plan;
  s = ReadPlan(o.env, staging, &plan);
  if (s.IsCorruption()) {
    return Status::Corruption(
        staging, s.ToString() + "; left as it is, RepairDB changed nothing");
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  const bool has_plan = s.ok();
  if (has_plan && plan.kind == StagingPlan::Kind::kTakeIn) {
    // The PLAN of a take-in whose repair committed (killed before
    // EndLevelDbTakeIn).
    s = RemoveStagingAfterItsRepair(o, dbname, staging, plan, finished);
    if (!s.ok() || *finished) return s;
  }
  std::string manifest;
  LevelDbState state;
  bool leveldb_current = false;
  s = ReadLevelDbCurrent(o.env, dbname, &leveldb_current, &manifest, &state);
  if (!s.ok()) return s;
  TakeInCommit commit = TakeInCommit::kUnknown;
  if (has_plan && plan.kind == StagingPlan::Kind::kTakeIn) {
    s = JudgeTakeInCommit(o.env, dbname, plan, &commit);
    if (!s.ok()) return s;
  }
  // What proves that the SSTs staged here are only copies (of tables still
  // in place, or that LevelDB has since replaced), so that merging them
  // could only bring back what LevelDB deleted since:
  const char* why = nullptr;
  if (!has_plan) {
    // Both write their PLAN whole (renamed into place) and make it durable
    // before their commit, and remove it only after every SST it names
    // has been placed: without a PLAN, no SST here is the only copy of
    // anything.
    why = "it has no PLAN (written before any commit)";
  } else if (plan.kind == StagingPlan::Kind::kConversion) {
    // A conversion commits by switching CURRENT to its manifest; until
    // then LevelDB's files are untouched.
    std::string current;
    if (ReadCurrent(o.env, dbname, &current).ok() &&
        current == DescriptorName(plan.manifest_number)) {
      // Committed, and cut short before it had placed its SSTs and removed
      // the tables it converted; LevelDB's RepairDB has been here since (it
      // made a table beside the conversion's manifest of a WAL the
      // conversion had not replayed, which the PLAN does not name, or moved
      // that manifest to lost/). Finished first, as DB::Open finishes it:
      // the tables it leaves, LevelDB's RepairDB's, are taken in next.
      s = FinishConversion(o, dbname);
      if (s.ok()) {
        Log(o.info_log,
            "RepairDB: finished the committed conversion in %s; taking in "
            "the LevelDB tables it did not convert\n",
            staging.c_str());
      }
      return s;
    }
    why = "its conversion was not committed (CURRENT names another manifest)";
  } else if (commit == TakeInCommit::kMade) {
    // The first file the PLAN moves is in lost/ under the name the PLAN
    // gives it: committed, whatever LevelDB's RepairDB has made since (a
    // new manifest that reads, of the tables left in place, without those
    // the take-in moved; a table under the name of one it moved).
  } else if (commit == TakeInCommit::kNotMade) {
    // The commit is the first file's move to lost/, durable before
    // anything else moves (FinishTakeIn): it is still in place.
    why = plan.identified
              ? "the first LevelDB file its PLAN moves to lost/ is still in "
                "place"
              : "every LevelDB file its PLAN moves to lost/ is still in place";
  } else if (leveldb_current) {
    // Neither in lost/ nor in place (or a PLAN of the previous format,
    // which records no name in lost/): the take-in's commit moves
    // LevelDB's manifest to lost/ first, and with one in place that reads,
    // LevelDB opens the directory (its open deletes the older manifest a
    // PLAN named first), and may have deleted keys and compacted them away
    // since these copies were made.
    why = "CURRENT names a LevelDB manifest that reads";
  }
  if (why == nullptr) {
    Log(o.info_log,
        "RepairDB: %s holds a committed taking in of LevelDB's tables; "
        "finishing it\n",
        staging.c_str());
    s = FinishTakeIn(o, dbname, staging, plan);
    if (!s.ok()) return s;
    if (plan.identified) {
      *carried = plan;
      *carry_on = true;
    } else {
      *finished = true;
    }
    return s;
  }
  s = RemoveStaging(o.env, o.fs, staging);
  if (s.ok()) {
    s = MakeDirectoriesDurable(o.fs, ConversionDurability(o.durability),
                               {dbname});
  }
  if (s.ok()) {
    Log(o.info_log, "RepairDB: removed %s, copies only: %s\n", staging.c_str(),
        why);
  }
  return s;
}

// Sets *next above every number a file, SST directory (or SST in one) or
// home of either engine in `dbname` uses, `children` being its listing,
// and the LevelDB tables among them in *tables.
Status NumbersInUse(const LevelDbConversionOptions& o,
                    const std::string& dbname,
                    const std::vector<std::string>& children,
                    std::vector<std::string>* tables, uint64_t* next) {
  *next = 1;
  for (const std::string& child : children) {
    uint64_t number;
    FileType type;
    if (ParseLevelDbTableFileName(child, &number)) {
      tables->push_back(child);
      *next = std::max(*next, number + 1);
    } else if (ParseFileName(child, &number, &type) && type != kLevelDir) {
      *next = std::max(*next, number + 1);
    }
  }
  std::vector<std::string> names;
  for (int level = 0; level < config::kNumLevels; level++) {
    const std::string dir = LevelDirName(dbname, level);
    // Absent only on NotFound: a level directory skipped for a failed
    // lookup would hide the numbers of the SSTs in it, and a taken-in
    // table given one would be taken by the repair for that SST.
    Status s = o.fs->ListDirectory(dir, &names);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return s;
    for (const std::string& name : names) {
      uint64_t number;
      if (!ParseSstDirName(name, &number)) continue;
      *next = std::max(*next, number + 1);
      // And the SSTs a compaction wrote into the directory (META-<n>).
      std::vector<std::string> entries;
      s = o.fs->ListDirectory(dir + "/" + name, &entries);
      if (!s.ok()) return s;
      for (const std::string& entry : entries) {
        uint64_t sst;
        if (ParseMetaFileName(entry, number, &sst) ||
            ParseLongKeysFileName(entry, number, &sst)) {
          *next = std::max(*next, sst + 1);
        }
      }
    }
  }
  const std::string values = dbname + "/" + kValuesDirName;
  Status s = o.fs->ListDirectory(values, &names);
  if (s.IsNotFound()) s = Status::OK();  // no values/, no homes
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t number;
    if (ParseHomeDirName(name, &number)) *next = std::max(*next, number + 1);
  }
  // Every number DeLSM's manifests name: LevelDB's repair moved them to
  // lost/, from where they come back for DeLSM's repair to read. A
  // manifest that cannot be listed or read (EIO, EMFILE) fails the repair:
  // a number it names could go to a taken-in table, which the next
  // RepairDB would then take for a replaced SST and not merge.
  uint64_t bound;
  s = ManifestsNumberBound(o.env, o.fs, dbname, &bound);
  if (!s.ok()) return s;
  *next = std::max(*next, bound);
  return Status::OK();
}

// Makes LevelDB table dbname/`name` the SST staging/<*next> (*next then
// counts it) with every block that reads (as LevelDB's repair salvages a
// table), and sets *built to its number; 0 if it made none (a table with
// no readable entry). An error that is not damage (EIO, EMFILE, ...) fails it.
// The builder is given no home (SstDirBuilder::SetHome): every file of the
// SST is inside its directory, so removing the directory removes all it
// made, and renaming it into L0/ keeps every value reachable.
Status StageTable(const LevelDbConversionOptions& o, const std::string& dbname,
                  const std::string& staging, const std::string& name,
                  uint64_t* next, uint64_t* built) {
  *built = 0;
  Env* env = o.env;
  const std::string fname = dbname + "/" + name;
  uint64_t size;
  RandomAccessFile* raw;
  Status s = env->GetFileSize(fname, &size);
  if (s.ok()) s = env->NewRandomAccessFile(fname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<RandomAccessFile> file(raw);
  std::unique_ptr<LevelDbTableReader> reader;
  s = LevelDbTableReader::Open(file.get(), size, fname, &reader);
  if (s.IsCorruption() || s.IsNotSupportedError()) {
    Log(o.info_log, "RepairDB: LevelDB table %s unreadable (%s)\n",
        fname.c_str(), s.ToString().c_str());
    return Status::OK();
  }
  if (!s.ok()) return s;
  const uint64_t number = (*next)++;
  SstDirBuilder builder(o.sst_options, StagedSstPath(staging, number));
  s = builder.Begin();
  // Every block that reads is kept, as LevelDB's RepairDB keeps them: a
  // damaged block loses its own entries, and an entry whose key does not
  // parse is skipped alone. Stopping at the damage instead would lose
  // the later blocks' deletions and newer values, and older versions in
  // other tables would answer for those keys.
  reader->SkipDamagedBlocks();
  uint64_t malformed = 0;
  for (reader->SeekToFirst(); s.ok() && reader->Valid(); reader->Next()) {
    ParsedInternalKey ikey;
    if (!ParseInternalKey(reader->key(), &ikey)) {
      malformed++;
      continue;
    }
    s = builder.Add(reader->key(), reader->value());
  }
  if (s.ok() && !reader->status().ok()) {
    // Not damage (an I/O error, a block this build cannot decode): what
    // the table holds past it is unknown.
    s = reader->status();
  }
  if (s.ok() && (reader->damaged_blocks() > 0 || malformed > 0)) {
    Log(o.info_log,
        "RepairDB: %s: %llu damaged data blocks skipped (the first: %s), "
        "%llu entries with a malformed key skipped; the table is kept in "
        "lost/\n",
        fname.c_str(),
        static_cast<unsigned long long>(reader->damaged_blocks()),
        reader->first_damage().ToString().c_str(),
        static_cast<unsigned long long>(malformed));
  }
  if (s.ok() && builder.NumEntries() == 0) {
    builder.Abandon();
    return Status::OK();
  }
  if (s.ok()) s = builder.Finish();
  if (!s.ok()) return s;  // the builder's destructor abandons it
  *built = number;
  Log(o.info_log, "RepairDB: LevelDB table %s: %llu entries into %s\n",
      fname.c_str(), static_cast<unsigned long long>(builder.NumEntries()),
      builder.path().c_str());
  return Status::OK();
}

// LevelDB's repair put DeLSM's manifests in lost/. Back in place, they
// tell DeLSM's repair which SSTs a committed compaction replaced (whose
// meta files, left by a crash, must not be merged); it puts them away
// again when it is done. Had they stayed in lost/, DeLSM's repair would
// merge those meta files, bringing back the keys whose tombstones the
// compaction dropped. They come back only after the take-in's commit
// (FinishTakeIn, which a RepairDB after a kill carries on): before it,
// LevelDB may still open the directory, and its open deletes every
// manifest older than the one it writes, theirs included. A take-in with
// nothing to take in has no commit and brings them back at once.
// A manifest in lost/ is DeLSM's if its records that read carry DeLSM's
// format marker (IsDelsmManifest); one that is not DeLSM's (LevelDB's own
// older manifests) stays. A damaged one of DeLSM's comes back too: the
// repair reads every record around the damage (FindRetiredSsts), and left
// in lost/ its records of replaced SSTs would be read by nobody. One whose
// read fails (EIO, EMFILE) fails the repair (NumbersInUse has read each
// before the commit; here the PLAN stays for the next RepairDB to
// finish): left in lost/, its record of replaced SSTs would be unknown to
// the repair that follows. One under a name in `taken_names` (LevelDB's
// manifest, moved to lost/ by the commit, and CURRENT still names it)
// stays too: brought back, it would be the manifest CURRENT names, an old
// one, to the repair. So does one whose name the directory's listing
// holds (LevelDB's manifest where CURRENT was lost): the rename would
// replace that file. The listing fails the call, before anything is
// renamed, if it cannot be read: a lookup of the name (FileExists,
// access(2)) answers no on any error (EIO), and a name taken for free on
// that would lose the file there. These are the Env's files (a memory
// Env's are not in its FileSystem): the Env's listing answers, as for
// MoveToLost.
Status RestoreDelsmManifests(const LevelDbConversionOptions& o,
                             const std::string& dbname,
                             const std::vector<std::string>& taken_names) {
  Env* env = o.env;
  std::vector<std::string> lost;
  Status s = ListLost(env, dbname, &lost);
  if (!s.ok()) return s;
  std::vector<std::string> children;
  s = env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  const std::set<std::string> in_place(children.begin(), children.end());
  for (const std::string& name : lost) {
    uint64_t number;
    FileType type;
    if (!ParseFileName(name, &number, &type) || type != kDescriptorFile ||
        std::find(taken_names.begin(), taken_names.end(), name) !=
            taken_names.end() ||
        in_place.count(name) > 0) {
      continue;
    }
    const std::string path = dbname + "/lost/" + name;
    bool delsm = false;
    s = IsDelsmManifest(env, path, &delsm);
    if (s.ok() && !delsm) continue;
    if (s.ok()) s = env->RenameFile(path, dbname + "/" + name);
    if (!s.ok()) return s;
    Log(o.info_log, "RepairDB: DeLSM's %s back from lost/\n", name.c_str());
  }
  return Status::OK();
}

// Removes from the staging directory of a committed take-in, finished
// (FinishTakeIn), what its PLAN does not name: SST directories and a
// PLAN.new. What proves them copies: a PLAN names every SST staged before
// it was written, and a take-in carried on stages its SSTs before it
// rewrites the PLAN (through PLAN.new) and moves the files they are made
// of to lost/ only after; one cut short before that rewrite left SSTs of
// files still in place, which the take-in carried on here stages again.
Status RemoveUnplannedStaged(const LevelDbConversionOptions& o,
                             const std::string& staging,
                             const StagingPlan& plan) {
  std::set<uint64_t> planned;
  for (const auto& move : plan.moves) planned.insert(move.second);
  std::vector<std::string> children;
  Status s = o.fs->ListDirectory(staging, &children);
  if (!s.ok()) return s;
  for (const std::string& child : children) {
    uint64_t number;
    if (ParseSstDirName(child, &number) && planned.count(number) == 0) {
      s = RemoveSstDirectory(o.fs, staging + "/" + child, nullptr);
    } else if (IsStagingPlanFileName(child) && child != "PLAN") {
      s = o.env->RemoveFile(staging + "/" + child);
    } else {
      continue;
    }
    if (!s.ok()) return s;
    Log(o.info_log, "RepairDB: removed %s/%s, which the PLAN does not name\n",
        staging.c_str(), child.c_str());
  }
  return Status::OK();
}

// TakeInLevelDbTables with the LOCK held.
Status TakeInLevelDbTablesLocked(const LevelDbConversionOptions& o,
                                 const std::string& dbname) {
  Env* env = o.env;
  const std::string staging = dbname + "/" + kLevelDbConversionDirName;
  // A lost/ or staging directory that is a link is refused before anything
  // is read from it or moved: the SSTs staged through it would be outside
  // the database, and so would LevelDB's files moved to lost/.
  Status s = CheckNotALink(o.fs, dbname + "/lost");
  if (s.ok()) s = CheckNotALink(o.fs, staging);
  if (!s.ok()) return s;
  // A committed take-in found there is finished, and, if its PLAN records
  // each file's identity, carried on here: the LevelDB files left in place
  // (LevelDB's RepairDB, run since, may have made tables of WALs, some
  // under names the PLAN moves) are taken in under the same PLAN, which
  // the take-in rewrites with them added. Its commit stays the first
  // file's move, made: the PLAN must stay until the repair that follows
  // has committed (EndLevelDbTakeIn), so a second take-in cannot start
  // beside it.
  bool finished = false, carried = false;
  StagingPlan plan;
  s = ResolveStaging(o, dbname, staging, &finished, &plan, &carried);
  if (!s.ok() || finished) return s;
  if (carried) {
    s = RemoveUnplannedStaged(o, staging, plan);
    if (!s.ok()) return s;
  }

  std::vector<std::string> children;
  s = env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  // New SSTs take numbers above everything any file, SST directory or home
  // of either engine uses.
  uint64_t next;
  std::vector<std::string> tables;
  s = NumbersInUse(o, dbname, children, &tables, &next);
  if (!s.ok()) return s;
  // LevelDB's manifest, if CURRENT names one that reads as LevelDB's
  // (damaged or absent, it bounds nothing and stays where it is).
  std::string manifest;
  LevelDbState state;
  bool leveldb_manifest;
  s = ReadLevelDbCurrent(env, dbname, &leveldb_manifest, &manifest, &state);
  if (!s.ok()) return s;
  if (leveldb_manifest) {
    if (!state.comparator.empty() &&
        state.comparator != o.user_comparator->Name()) {
      return Status::NotSupported(
          dbname + "/" + manifest,
          "LevelDB's manifest names comparator '" + state.comparator +
              "', repaired with '" + o.user_comparator->Name() +
              (carried ? "'; the committed take-in's PLAN stays"
                       : "'; RepairDB changed nothing"));
    }
    next = std::max(next, state.next_file);
  }
  // LevelDB's files go to lost/ after the SSTs (not deleted; what repair
  // cannot use is kept for the user, as both engines' repairs keep it);
  // its manifest first: that move is the commit (of a take-in carried on,
  // the PLAN's first file's, made).
  plan.kind = StagingPlan::Kind::kTakeIn;
  plan.identified = true;
  const size_t first_new = plan.to_lost.size();
  auto add = [&plan](const std::string& name) {
    PlannedFile f;
    f.name = name;
    f.identified = true;
    plan.to_lost.push_back(f);
  };
  if (leveldb_manifest) add(manifest);
  for (const std::string& table : tables) add(table);
  // The new manifest LevelDB's RepairDB left where it was cut short
  // (LevelDbRepairManifestLeft) goes to lost/ last: it names only tables
  // taken in here, and left in place it would keep the directory judged
  // one LevelDB's RepairDB is rewriting once this repair has put DeLSM's
  // manifests in lost/ again.
  bool repair_manifest = false;
  s = LevelDbRepairManifestLeft(env, dbname, &repair_manifest);
  if (!s.ok()) return s;
  if (plan.to_lost.size() == first_new) {
    // Nothing to take in: no commit. DeLSM's manifests come back first,
    // so that a kill before the move leaves them beside it, in place.
    s = RestoreDelsmManifests(o, dbname, PlannedNames(plan.to_lost));
    if (s.ok() && repair_manifest) {
      s = MoveToLost(env, o.fs, dbname, LevelDbRepairManifestName(), "");
      if (s.ok()) {
        s = MakeDirectoriesDurable(o.fs, ConversionDurability(o.durability),
                                   {dbname, dbname + "/lost"});
      }
    }
    return s;
  }
  if (repair_manifest) add(LevelDbRepairManifestName());
  // What tells each file from another LevelDB may make under its name
  // later (its size and checksum), and the name it takes in lost/: read
  // before the take-in stages anything, so a failure here changes nothing.
  for (size_t i = first_new; i < plan.to_lost.size(); i++) {
    PlannedFile& f = plan.to_lost[i];
    s = conversion_internal::ReadFileIdentity(env, dbname + "/" + f.name,
                                              &f.identity);
    if (!s.ok()) return s;
  }
  s = ChooseLostNames(env, dbname, &plan.to_lost);
  if (!s.ok()) return s;

  // Every table becomes an SST in the staging directory. Until the commit
  // each is a copy of a table still in place: a failure removes them all.
  // Left behind, they would make the directory DeLSM's data beside
  // LevelDB's tables to the next RepairDB, which would merge them with
  // whatever LevelDB (which ignores them) has since deleted or compacted
  // away. A take-in carried on removes only the SSTs it staged, and only
  // before it rewrites the PLAN: the PLAN names the others, and, once
  // rewritten, these.
  if (!carried) s = o.fs->CreateDir(staging, false);
  if (!s.ok()) return s;
  std::vector<std::string> durable;
  auto undo = [&](const Status& error) {
    Status removed;
    if (carried) {
      for (size_t i = 0; removed.ok() && i < durable.size(); i++) {
        removed = RemoveSstDirectory(o.fs, durable[i], nullptr);
      }
    } else {
      removed = RemoveStaging(env, o.fs, staging);
    }
    if (!removed.ok()) {
      Log(o.info_log,
          "RepairDB: could not remove what %s stages (%s) after: "
          "%s\n",
          staging.c_str(), removed.ToString().c_str(),
          error.ToString().c_str());
    }
    return error;
  };
  for (const std::string& name : tables) {
    uint64_t built;
    s = StageTable(o, dbname, staging, name, &next, &built);
    if (!s.ok()) return undo(s);
    if (built == 0) continue;
    plan.moves.emplace_back(0, built);
    durable.push_back(StagedSstPath(staging, built));
  }
  durable.push_back(staging);
  durable.push_back(dbname);
  s = WritePlan(env, staging, plan);
  if (s.ok()) {
    s = MakeDirectoriesDurable(o.fs, ConversionDurability(o.durability),
                               durable);
  }
  if (!s.ok()) return carried ? s : undo(s);
  s = FinishTakeIn(o, dbname, staging, plan);
  TakeInCommit commit = TakeInCommit::kUnknown;
  if (!s.ok() && !carried &&
      JudgeTakeInCommit(env, dbname, plan, &commit).ok() &&
      commit == TakeInCommit::kNotMade) {
    return undo(s);  // failed at the commit: nothing moved
  }
  return s;  // committed, or that cannot be told: the next RepairDB resolves
}

// EndLevelDbTakeIn with the LOCK held.
Status EndLevelDbTakeInLocked(const LevelDbConversionOptions& o,
                              const std::string& dbname) {
  const std::string staging = dbname + "/" + kLevelDbConversionDirName;
  // Absent only on ENOENT (Probe, as ResolveStaging).
  bool exists = false;
  Status s = o.fs->Probe(staging, &exists);
  if (!s.ok() || !exists) return s;
  s = CheckNotALink(o.fs, staging);
  if (!s.ok()) return s;
  StagingPlan plan;
  s = ReadPlan(o.env, staging, &plan);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  if (plan.kind != StagingPlan::Kind::kTakeIn) return Status::OK();
  bool done;
  s = RemoveStagingAfterItsRepair(o, dbname, staging, plan, &done);
  if (s.ok() && !done) {
    return Status::Corruption(staging,
                              "the take-in's PLAN stays: no committed repair "
                              "follows it; RepairDB finishes it");
  }
  return s;
}

// Runs `locked` with the database's LOCK held.
Status UnderLock(const LevelDbConversionOptions& options,
                 const std::string& dbname,
                 Status (*locked)(const LevelDbConversionOptions&,
                                  const std::string&)) {
  FileLock* lock;
  Status s = options.env->LockFile(LockFileName(dbname), &lock);
  if (!s.ok()) return s;
  s = locked(options, dbname);
  Status unlocked = options.env->UnlockFile(lock);
  return s.ok() ? unlocked : s;
}

}  // namespace

Status EndLevelDbTakeIn(const LevelDbConversionOptions& options,
                        const std::string& dbname) {
  return UnderLock(options, dbname, EndLevelDbTakeInLocked);
}

Status TakeInLevelDbTables(const LevelDbConversionOptions& options,
                           const std::string& dbname) {
  return UnderLock(options, dbname, TakeInLevelDbTablesLocked);
}

}  // namespace leveldb
