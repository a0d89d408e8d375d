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

using conversion_internal::ConversionDurability;
using conversion_internal::FinishConversion;
using conversion_internal::PlaceStagedSsts;
using conversion_internal::ReadCurrent;
using conversion_internal::ReadLiveSsts;
using conversion_internal::ReadPlan;
using conversion_internal::RemoveFinishedStaging;
using conversion_internal::RemoveStaging;
using conversion_internal::StagedSstPath;
using conversion_internal::StagingPlan;
using conversion_internal::WritePlan;

// Moves dbname/`name` to lost/leveldb-<name> (a suffix .1, .2, ... if that
// is taken: nothing in lost/ is replaced, as the rename would replace it).
// A name is taken if lost/'s listing holds it, which fails the move if it
// cannot be read: a lookup of the name itself (FileExists, access(2))
// answers no on any error (EIO), and a name taken for free on that would
// lose what lost/ held there. lost/ is made or found through `fs`, which
// refuses a symbolic link there: the rename would move the file out of
// the database.
Status MoveToLost(Env* env, FileSystem* fs, const std::string& dbname,
                  const std::string& name) {
  const std::string lost = dbname + "/lost";
  Status s = fs->CreateDir(lost, true);
  if (!s.ok()) return s;
  env->CreateDir(lost);  // the Env's own (a memory Env's); may exist
  std::vector<std::string> listed;
  s = env->GetChildren(lost, &listed);
  if (!s.ok()) return s;
  const std::set<std::string> taken(listed.begin(), listed.end());
  std::string to = "leveldb-" + name;
  for (int i = 1; taken.count(to) > 0; i++) {
    to = "leveldb-" + name + "." + std::to_string(i);
  }
  return env->RenameFile(dbname + "/" + name, lost + "/" + to);
}

// Damage, or a file that is not there (NotFound, and no longer listed):
// what a reader may take for "nothing to read". Any other error (EIO,
// EMFILE, ENOENT for a file that is there) is not.
bool DamagedOrAbsent(Env* env, const Status& s, const std::string& path) {
  return s.IsCorruption() || (s.IsNotFound() && !env->FileExists(path));
}

// The names in dbname/lost/ (none if there is no such directory: the
// listing fails with NotFound and it is not there). A listing that fails
// otherwise (EIO) fails, whatever FileExists says (access(2) answers false
// on any error): taken for no lost/, it would hide DeLSM's manifests
// there, whose record of replaced SSTs the repair needs.
Status ListLost(Env* env, const std::string& dbname,
                std::vector<std::string>* names) {
  names->clear();
  const std::string lost = dbname + "/lost";
  Status s = env->GetChildren(lost, names);
  if (s.IsNotFound() && !env->FileExists(lost)) return Status::OK();
  return s;
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

// Sets *in_place to the LevelDB files a take-in's `plan` moves to lost/
// that are still in `dbname`, as its listing names them; fails if it
// cannot be listed. A name the listing lacks is not there: moved by the
// take-in, the only one to move it. A lookup of each name (FileExists,
// access(2)) would answer no on any error (EIO on a damaged inode), and a
// table taken for moved made an uncommitted take-in look committed (the
// other tables then went to lost/ with no SST made of them) and was left
// in place beside the SST made of it. These are the Env's files (a memory
// Env's are not in its FileSystem), so FileSystem::Probe cannot be asked:
// the Env's listing is its answer, as for MoveToLost's free names.
Status ListInPlace(Env* env, const std::string& dbname, const StagingPlan& plan,
                   std::set<std::string>* in_place) {
  in_place->clear();
  std::vector<std::string> children;
  Status s = env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  const std::set<std::string> listed(children.begin(), children.end());
  for (const std::string& name : plan.to_lost) {
    if (listed.count(name) > 0) in_place->insert(name);
  }
  return Status::OK();
}

// Whether every LevelDB file a take-in's `plan` moves to lost/ is still in
// `dbname` (*all): then its commit, the first of those moves, has not been
// made. Fails if that cannot be told (ListInPlace).
Status AllInPlace(Env* env, const std::string& dbname, const StagingPlan& plan,
                  bool* all) {
  std::set<std::string> in_place;
  Status s = ListInPlace(env, dbname, plan, &in_place);
  *all = s.ok();
  for (const std::string& name : plan.to_lost) {
    if (in_place.count(name) == 0) *all = false;
  }
  return s;
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
  std::set<std::string> in_place;
  Status s = ListInPlace(o.env, dbname, plan, &in_place);
  if (!s.ok()) return s;
  bool moved = false;
  for (const std::string& name : plan.to_lost) {
    if (in_place.count(name) == 0) continue;  // moved already
    s = MoveToLost(o.env, o.fs, dbname, name);
    // The first move is the commit, durable before anything else moves: a
    // power loss that undid it but kept a later move, or an SST placed in
    // L0/, would leave a directory ResolveStaging takes for uncommitted.
    if (s.ok() && !moved) s = MakeDirectoriesDurable(o.fs, mode, moved_in);
    if (!s.ok()) return s;
    moved = true;
  }
  // Committed: LevelDB can no longer use the directory, nor delete DeLSM's
  // manifests brought back into it.
  s = RestoreDelsmManifests(o, dbname, plan.to_lost);
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
  if (std::find(plan.to_lost.begin(), plan.to_lost.end(), current) !=
      plan.to_lost.end()) {
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
// (see conversion.h): removed where it holds only copies; finished, with
// *finished set, where it is a committed take-in's; a committed
// conversion's is finished as DB::Open finishes it, and the take-in goes
// on with the tables it leaves. A PLAN that does not decode is left as it
// is and fails the repair, which has changed nothing.
Status ResolveStaging(const LevelDbConversionOptions& o,
                      const std::string& dbname, const std::string& staging,
                      bool* finished) {
  *finished = false;
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
  bool all_in_place = false;
  if (has_plan && plan.kind == StagingPlan::Kind::kTakeIn) {
    s = AllInPlace(o.env, dbname, plan, &all_in_place);
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
  } else if (leveldb_current) {
    // The take-in's commit moves LevelDB's manifest to lost/ first: with
    // one in place that reads, LevelDB opens the directory (or took it
    // back with its own RepairDB), and may have deleted keys and
    // compacted them away since these copies were made.
    why = "CURRENT names a LevelDB manifest that reads";
  } else if (all_in_place) {
    // Without one, the commit is the first table's move to lost/, durable
    // before anything else moves (FinishTakeIn).
    why = "every LevelDB file its PLAN moves to lost/ is still in place";
  }
  if (why == nullptr) {
    Log(o.info_log,
        "RepairDB: %s holds a committed taking in of LevelDB's tables; "
        "finishing it\n",
        staging.c_str());
    *finished = true;
    return FinishTakeIn(o, dbname, staging, plan);
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
  bool finished;
  s = ResolveStaging(o, dbname, staging, &finished);
  if (!s.ok() || finished) return s;

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
      return Status::NotSupported(dbname + "/" + manifest,
                                  "LevelDB's manifest names comparator '" +
                                      state.comparator + "', repaired with '" +
                                      o.user_comparator->Name() +
                                      "'; RepairDB changed nothing");
    }
    next = std::max(next, state.next_file);
  }
  // LevelDB's files go to lost/ after the SSTs (not deleted; what repair
  // cannot use is kept for the user, as both engines' repairs keep it);
  // its manifest first: that move is the commit.
  StagingPlan plan;
  plan.kind = StagingPlan::Kind::kTakeIn;
  if (leveldb_manifest) plan.to_lost.push_back(manifest);
  plan.to_lost.insert(plan.to_lost.end(), tables.begin(), tables.end());
  // The new manifest LevelDB's RepairDB left where it was cut short
  // (LevelDbRepairManifestLeft) goes to lost/ last: it names only tables
  // taken in here, and left in place it would keep the directory judged
  // one LevelDB's RepairDB is rewriting once this repair has put DeLSM's
  // manifests in lost/ again.
  bool repair_manifest = false;
  s = LevelDbRepairManifestLeft(env, dbname, &repair_manifest);
  if (!s.ok()) return s;
  if (plan.to_lost.empty()) {
    // Nothing to take in: no commit. DeLSM's manifests come back first,
    // so that a kill before the move leaves them beside it, in place.
    s = RestoreDelsmManifests(o, dbname, {});
    if (s.ok() && repair_manifest) {
      s = MoveToLost(env, o.fs, dbname, LevelDbRepairManifestName());
      if (s.ok()) {
        s = MakeDirectoriesDurable(o.fs, ConversionDurability(o.durability),
                                   {dbname, dbname + "/lost"});
      }
    }
    return s;
  }
  if (repair_manifest) plan.to_lost.push_back(LevelDbRepairManifestName());

  // Every table becomes an SST in the staging directory. Until the commit
  // each is a copy of a table still in place: a failure removes them all.
  // Left behind, they would make the directory DeLSM's data beside
  // LevelDB's tables to the next RepairDB, which would merge them with
  // whatever LevelDB (which ignores them) has since deleted or compacted
  // away.
  s = o.fs->CreateDir(staging, false);
  if (!s.ok()) return s;
  auto undo = [&](const Status& error) {
    Status removed = RemoveStaging(env, o.fs, staging);
    if (!removed.ok()) {
      Log(o.info_log, "RepairDB: could not remove %s (%s) after: %s\n",
          staging.c_str(), removed.ToString().c_str(),
          error.ToString().c_str());
    }
    return error;
  };
  std::vector<std::string> durable;
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
  if (!s.ok()) return undo(s);
  s = FinishTakeIn(o, dbname, staging, plan);
  bool all_in_place = false;
  if (!s.ok() && AllInPlace(env, dbname, plan, &all_in_place).ok() &&
      all_in_place) {
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
