// In-place conversion of a LevelDB 1.23 database (see the header for the
// steps and the commit point).
#include "compat/leveldb/conversion.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "compat/leveldb/conversion_internal.h"
#include "compat/leveldb/directory_kind.h"
#include "compat/leveldb/manifest.h"
#include "compat/leveldb/table_reader.h"
#include "db/dbformat.h"
#include "db/filename.h"
#include "db/log_read_error.h"
#include "db/log_reader.h"
#include "db/log_writer.h"
#include "db/manifest_numbers.h"
#include "db/sst_dir_removal.h"
#include "db/version_edit.h"
#include "fs/durability.h"
#include "fs/file_system.h"
#include "leveldb/comparator.h"
#include "leveldb/env.h"
#include "table/home_dirs.h"
#include "table/sst_dir_builder.h"
#include "util/logging.h"

namespace leveldb {

const char kLevelDbConversionDirName[] = "leveldb-conversion";

namespace conversion_internal {

// The conversion's writes are the only copy once LevelDB's files go.
delsm::Durability ConversionDurability(delsm::Durability mode) {
  return mode == delsm::Durability::kDeferred ? delsm::Durability::kSyncfs
                                              : mode;
}

Status ReadCurrent(Env* env, const std::string& dbname, std::string* name) {
  std::string current;
  Status s = ReadFileToString(env, CurrentFileName(dbname), &current);
  if (!s.ok()) return s;
  if (current.empty() || current.back() != '\n' ||
      current.find('/') != std::string::npos) {
    return Status::Corruption(CurrentFileName(dbname), "malformed CURRENT");
  }
  current.pop_back();
  *name = current;
  return Status::OK();
}

namespace {

// A log reader's report: damage is noted, and the first failed read is
// kept (read_error()).
class ManifestReadErrors : public log::ReadErrorReporter {
 public:
  bool damaged = false;

 protected:
  void Damaged(size_t, const Status&) override { damaged = true; }
};

}  // namespace

Status ReadLiveSsts(Env* env, const std::string& path,
                    std::set<uint64_t>* live) {
  SequentialFile* raw;
  Status s = env->NewSequentialFile(path, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<SequentialFile> file(raw);
  ManifestReadErrors errors;
  log::Reader reader(file.get(), &errors, /*checksum=*/true, 0);
  std::set<std::pair<int, uint64_t>> files;
  Slice record;
  std::string scratch;
  bool first = true;
  bool decoded = true;
  while (reader.ReadRecord(&record, &scratch) && errors.read_error().ok()) {
    if (first && !VersionEdit::HasFormatMarker(record)) {
      return Status::Corruption(path, "not a DeLSM manifest");
    }
    first = false;
    VersionEdit edit;
    if (!edit.DecodeFrom(record).ok()) {
      decoded = false;
      break;
    }
    for (const auto& gone : edit.deleted_files()) files.erase(gone);
    for (const auto& added : edit.new_files()) {
      files.insert({added.first, added.second.number});
    }
  }
  if (!errors.read_error().ok()) return errors.read_error();
  if (first || errors.damaged || !decoded) {
    return Status::Corruption(path, "not a whole DeLSM manifest");
  }
  live->clear();
  for (const auto& f : files) live->insert(f.second);
  return Status::OK();
}

}  // namespace conversion_internal

namespace {

using conversion_internal::ConversionDurability;
using conversion_internal::IsPlannedFile;
using conversion_internal::MoveToLost;
using conversion_internal::PlaceStagedSsts;
using conversion_internal::PlannedFile;
using conversion_internal::ReadCurrent;
using conversion_internal::ReadLiveSsts;
using conversion_internal::ReadPlan;
using conversion_internal::RemoveFinishedStaging;
using conversion_internal::RemoveStaging;
using conversion_internal::StagedSstPath;
using conversion_internal::StagingPlan;
using conversion_internal::WritePlan;

// The first SST directory in a level directory, or home under values/,
// on `fs` ("L2/000010.sst", "values/000031"), in *found; empty if none. A
// directory that cannot be listed for any reason but its absence (ENOENT;
// not a failed lstat, which Exists would take for one) is an error: what
// it holds cannot be judged.
Status FindDelsmDataOnFileSystem(FileSystem* fs, const std::string& dbname,
                                 std::string* found) {
  found->clear();
  std::vector<std::string> names;
  for (int level = 0; level < config::kNumLevels; level++) {
    const std::string dir = LevelDirName(dbname, level);
    Status s = fs->ListDirectory(dir, &names);
    if (s.IsNotFound()) continue;
    if (!s.ok()) return s;
    for (const std::string& name : names) {
      uint64_t number;
      if (ParseSstDirName(name, &number)) {
        *found = dir.substr(dbname.size() + 1) + "/" + name;
        return Status::OK();
      }
    }
  }
  const std::string values = dbname + "/" + kValuesDirName;
  Status s = fs->ListDirectory(values, &names);
  if (s.IsNotFound()) return Status::OK();
  if (!s.ok()) return s;
  for (const std::string& name : names) {
    uint64_t number;
    if (ParseHomeDirName(name, &number)) {
      *found = std::string(kValuesDirName) + "/" + name;
      return Status::OK();
    }
  }
  return Status::OK();
}

class Converter {
 public:
  Converter(const LevelDbConversionOptions& options, const std::string& dbname)
      : o_(options),
        dbname_(dbname),
        staging_(dbname + "/" + kLevelDbConversionDirName) {}

  Status Convert(const std::string& leveldb_manifest);
  Status Finish();

 private:
  // Removes a staging directory found without a PLAN (CURRENT not
  // LevelDB's) only on the evidence stated at its definition.
  Status RemoveLeftoverStaging();

  // Everything before the commit: SST directories, manifest, PLAN, synced.
  Status Stage(const std::string& leveldb_manifest);

  // Adds dbname/`name` to the PLAN's removals, with its identity.
  Status PlanRemoval(const std::string& name);
  Status ConvertTable(const LevelDbTableInfo& table);
  Status FinishSst(int level, SstDirBuilder* builder, uint64_t number);
  Status WriteManifest(uint64_t number);

  const LevelDbConversionOptions& o_;
  const std::string dbname_;
  const std::string staging_;
  LevelDbState state_;
  VersionEdit edit_;
  StagingPlan plan_;
  std::vector<std::string> staged_dirs_;
  std::set<std::string> children_;  // the DB directory's, as Stage lists it
  // Past every number a DeLSM manifest in the directory or in lost/ names
  // (Stage): a table numbered below it gets a fresh number as an SST.
  uint64_t manifests_bound_ = 0;
  uint64_t entries_ = 0, deletions_ = 0, snappy_blocks_ = 0;
};

Status Converter::PlanRemoval(const std::string& name) {
  conversion_internal::PlannedFile f;
  f.name = name;
  f.identified = true;
  plan_.removals.push_back(f);
  return conversion_internal::ReadFileIdentity(o_.env, dbname_ + "/" + name,
                                               &plan_.removals.back().identity);
}

Status Converter::FinishSst(int level, SstDirBuilder* builder,
                            uint64_t number) {
  Status s = builder->Finish();
  if (!s.ok()) return s;
  edit_.AddFile(level, BuiltSstMetaData(number, number, *builder));
  plan_.moves.emplace_back(level, number);
  staged_dirs_.push_back(builder->path());
  return Status::OK();
}

Status Converter::ConvertTable(const LevelDbTableInfo& table) {
  // LevelDB 1.23 writes NNNNNN.ldb; databases from before 1.14 hold .sst.
  // Which is there, if either, the directory's listing says: a lookup
  // (FileExists, access(2)) answers no on any error (EIO), and a table
  // whose inode cannot be read would be reported missing, a damaged
  // database, where the disk failed. An error reading it (EIO from its
  // stat) is returned as it is: an IOError naming the table.
  std::string fname = LevelDbTableFileName(dbname_, table.number, false);
  if (children_.count(fname.substr(dbname_.size() + 1)) == 0) {
    fname = LevelDbTableFileName(dbname_, table.number, true);
  }
  if (children_.count(fname.substr(dbname_.size() + 1)) == 0) {
    return Status::Corruption(
        "LevelDB table listed in its manifest is missing",
        LevelDbTableFileName(dbname_, table.number, false));
  }
  uint64_t size;
  Status s = o_.env->GetFileSize(fname, &size);
  if (!s.ok()) return s;
  RandomAccessFile* raw;
  s = o_.env->NewRandomAccessFile(fname, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<RandomAccessFile> file(raw);
  std::unique_ptr<LevelDbTableReader> reader;
  s = LevelDbTableReader::Open(file.get(), size, fname, &reader);
  if (!s.ok()) return s;
  s = PlanRemoval(fname.substr(dbname_.size() + 1));
  if (!s.ok()) return s;

  const Comparator* ucmp = o_.user_comparator;
  uint64_t number =
      table.number >= manifests_bound_ ? table.number : state_.next_file++;
  std::unique_ptr<SstDirBuilder> builder;
  std::string last_user_key;
  uint64_t table_entries = 0;
  for (reader->SeekToFirst(); reader->Valid(); reader->Next()) {
    ParsedInternalKey ikey;
    if (!ParseInternalKey(reader->key(), &ikey)) {
      return Status::Corruption(fname, "malformed internal key in table");
    }
    // Below L0, split a large table at a user-key boundary into SSTs of
    // sst_entries; the extra SSTs take fresh numbers.
    if (builder != nullptr && table.level > 0 &&
        builder->NumEntries() >= o_.sst_entries &&
        ucmp->Compare(ikey.user_key, last_user_key) != 0) {
      s = FinishSst(table.level, builder.get(), number);
      if (!s.ok()) return s;
      builder.reset();
      number = state_.next_file++;
    }
    if (builder == nullptr) {
      builder.reset(
          new SstDirBuilder(o_.sst_options, StagedSstPath(staging_, number)));
      s = builder->Begin();
      if (!s.ok()) return s;
    }
    s = builder->Add(reader->key(), reader->value());
    if (!s.ok()) return s;
    last_user_key.assign(ikey.user_key.data(), ikey.user_key.size());
    table_entries++;
    if (ikey.type == kTypeDeletion) deletions_++;
  }
  if (!reader->status().ok()) return reader->status();
  if (builder != nullptr) {
    s = FinishSst(table.level, builder.get(), number);
    if (!s.ok()) return s;
  }
  entries_ += table_entries;
  snappy_blocks_ += reader->snappy_blocks_read();
  Log(o_.info_log,
      "LevelDB conversion: table #%llu (L%d, %llu blocks, %llu snappy, "
      "filter '%s'): %llu entries\n",
      static_cast<unsigned long long>(table.number), table.level,
      static_cast<unsigned long long>(reader->num_data_blocks()),
      static_cast<unsigned long long>(reader->snappy_blocks_read()),
      reader->filter_policy_name().c_str(),
      static_cast<unsigned long long>(table_entries));
  return Status::OK();
}

Status Converter::WriteManifest(uint64_t number) {
  edit_.SetComparatorName(o_.user_comparator->Name());
  edit_.SetLogNumber(state_.log_number);
  edit_.SetPrevLogNumber(state_.prev_log_number);
  edit_.SetNextFile(state_.next_file);
  edit_.SetLastSequence(state_.last_sequence);
  std::string record;
  edit_.EncodeTo(&record);
  WritableFile* raw;
  Status s = o_.env->NewWritableFile(DescriptorFileName(dbname_, number), &raw);
  if (!s.ok()) return s;
  std::unique_ptr<WritableFile> file(raw);
  log::Writer writer(file.get());
  s = writer.AddRecord(record);
  if (s.ok()) s = file->Sync();
  Status c = file->Close();
  return s.ok() ? c : s;
}

Status Converter::Convert(const std::string& leveldb_manifest) {
  // DeLSM's SSTs beside LevelDB's manifest: LevelDB's RepairDB rewrote a
  // DeLSM database (compat/leveldb/directory_kind.h). Converted, the manifest
  // would list none of them and the open's sweep would remove them all.
  std::string delsm_data;
  Status s = FindDelsmDataOnFileSystem(o_.fs, dbname_, &delsm_data);
  if (!s.ok()) return s;
  if (!delsm_data.empty()) {
    return RewrittenByLevelDbError(
        dbname_, leveldb_manifest + " is LevelDB's, and DeLSM's " + delsm_data,
        "DB::Open");
  }
  const std::string manifest_path = dbname_ + "/" + leveldb_manifest;
  s = ReadLevelDbManifest(o_.env, manifest_path, &state_);
  if (!s.ok()) return s;
  const std::string ours = o_.user_comparator->Name();
  if (!state_.comparator.empty() && state_.comparator != ours) {
    return Status::NotSupported(
        "LevelDB database " + dbname_ + " was written with comparator '" +
            state_.comparator + "' and is opened with '" + ours + "'",
        "not converted, nothing changed");
  }
  Log(o_.info_log,
      "LevelDB conversion: %s holds a LevelDB database (%s, %zu tables, "
      "log #%llu, last sequence %llu); converting\n",
      dbname_.c_str(), leveldb_manifest.c_str(), state_.tables.size(),
      static_cast<unsigned long long>(state_.log_number),
      static_cast<unsigned long long>(state_.last_sequence));

  // A staging directory that is a link is refused before anything is read
  // from it or removed: clearing an earlier attempt's staging through it
  // would remove what it points at, and the SSTs staged in it would be
  // outside the database.
  s = CheckNotALink(o_.fs, staging_);
  if (!s.ok()) return s;
  // A conversion cut short before its commit left a staging directory. Its
  // SSTs are copies: CURRENT names a LevelDB manifest that reads, which a
  // conversion does not leave in place past its commit (it switches
  // CURRENT); and LevelDB, which opens the directory, may have changed it
  // since they were made. A take-in's PLAN proves no such thing: its
  // commit moves LevelDB's manifest (or, where CURRENT was lost, a table)
  // to lost/, and LevelDB's RepairDB may have made a new manifest since,
  // of the tables left in place, without those the take-in moved, whose
  // only copy here is staged. Only RepairDB judges and finishes a take-in
  // (ResolveStaging in take_in_tables.cc): refused, nothing changed.
  if (o_.env->FileExists(staging_)) {
    StagingPlan found;
    s = ReadPlan(o_.env, staging_, &found);
    if (s.ok() && found.kind == StagingPlan::Kind::kTakeIn) {
      return TakeInCutShortError(dbname_, "DB::Open");
    }
    if (!s.ok() && !s.IsNotFound() && !s.IsCorruption()) return s;
    s = RemoveStaging(o_.env, o_.fs, staging_);
    if (!s.ok()) return s;
    Log(o_.info_log, "LevelDB conversion: removed an earlier attempt's %s\n",
        staging_.c_str());
  }
  s = o_.fs->CreateDir(staging_, false);
  if (!s.ok()) return s;
  s = Stage(leveldb_manifest);
  if (!s.ok()) {
    // Nothing is committed: take back what was staged (best effort; the
    // next attempt removes whatever remains).
    RemoveStaging(o_.env, o_.fs, staging_);
    if (plan_.manifest_number != 0) {
      o_.env->RemoveFile(DescriptorFileName(dbname_, plan_.manifest_number));
    }
    Log(o_.info_log, "LevelDB conversion: not converted: %s\n",
        s.ToString().c_str());
    return s;
  }

  // The commit point.
  const delsm::Durability mode = ConversionDurability(o_.durability);
  s = SetCurrentFile(o_.env, dbname_, plan_.manifest_number);
  if (s.ok()) s = MakeDirectoriesDurable(o_.fs, mode, {dbname_});
  if (!s.ok()) return s;
  Log(o_.info_log,
      "LevelDB conversion: committed MANIFEST-%06llu: %zu tables, %llu "
      "entries (%llu deletions), %llu snappy blocks, into %zu SSTs; WALs "
      "from #%llu on are replayed next\n",
      static_cast<unsigned long long>(plan_.manifest_number),
      state_.tables.size(), static_cast<unsigned long long>(entries_),
      static_cast<unsigned long long>(deletions_),
      static_cast<unsigned long long>(snappy_blocks_), plan_.moves.size(),
      static_cast<unsigned long long>(state_.log_number));
  return Finish();
}

Status Converter::Stage(const std::string& leveldb_manifest) {
  std::vector<std::string> children;
  Status s = o_.env->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  std::sort(children.begin(), children.end());
  children_.insert(children.begin(), children.end());
  // The SSTs take no number a DeLSM manifest here or in lost/ names: an
  // earlier database's at this path records its replaced SSTs by number,
  // in lost/ (DestroyDB leaves lost/, as LevelDB's does) or here (a
  // DestroyDB cut short after CURRENT leaves its manifests; LevelDB's Open
  // keeps one numbered past its own). A repair that reads it (RepairDB
  // reads every manifest here when CURRENT is lost, and the take-in
  // brings DeLSM's back from lost/) would set this database's SSTs of
  // those numbers aside. LevelDB numbered its tables without knowing of
  // it, and its own manifests name none of DeLSM's numbers (their records
  // do not decode as DeLSM's). Fresh numbers come after every table's
  // (LevelDB's next file number) and past the bound. A manifest that
  // cannot be read fails the conversion.
  s = ManifestsNumberBound(o_.env, o_.fs, dbname_, &manifests_bound_);
  if (!s.ok()) return s;
  state_.next_file = std::max(state_.next_file, manifests_bound_);
  for (const LevelDbTableInfo& table : state_.tables) {
    s = ConvertTable(table);
    if (!s.ok()) return s;
  }
  s = PlanRemoval(leveldb_manifest);
  if (!s.ok()) return s;
  // Tables the manifest does not list are LevelDB's obsolete files (a
  // compaction abandoned at close leaves its output; LevelDB's own next
  // open deletes them). They go with LevelDB's other files after the
  // commit, so no .ldb outlives a conversion.
  std::set<uint64_t> listed;
  for (const LevelDbTableInfo& table : state_.tables) {
    listed.insert(table.number);
  }
  for (const std::string& name : children) {
    uint64_t number;
    if (ParseLevelDbTableFileName(name, &number) && listed.count(number) == 0) {
      Log(o_.info_log,
          "LevelDB conversion: %s is not in LevelDB's manifest (obsolete); "
          "removed after the commit\n",
          name.c_str());
      s = PlanRemoval(name);
      if (!s.ok()) return s;
    }
  }
  plan_.manifest_number = state_.next_file++;
  s = WriteManifest(plan_.manifest_number);
  if (s.ok()) {
    s = WritePlan(o_.env, staging_, plan_);
  }
  std::vector<std::string> dirs = staged_dirs_;
  dirs.push_back(staging_);
  dirs.push_back(dbname_);
  if (s.ok()) {
    s = MakeDirectoriesDurable(o_.fs, ConversionDurability(o_.durability),
                               dirs);
  }
  return s;
}

Status Converter::Finish() {
  // Not through a link: its PLAN, and the SSTs it names, are not ours.
  Status s = CheckNotALink(o_.fs, staging_);
  if (!s.ok()) return s;
  StagingPlan plan;
  s = ReadPlan(o_.env, staging_, &plan);
  if (s.IsNotFound()) return RemoveLeftoverStaging();
  if (s.IsCorruption()) {
    // Not written by a committed conversion: leave it as it is.
    Log(o_.info_log,
        "LevelDB conversion: %s has no complete plan; left alone\n",
        staging_.c_str());
    return Status::OK();
  }
  if (!s.ok()) return s;
  if (plan.kind == StagingPlan::Kind::kTakeIn) {
    return TakeInCutShortError(dbname_, "DB::Open");
  }
  // Only a committed plan is carried out: CURRENT names its manifest.
  std::string current;
  s = ReadCurrent(o_.env, dbname_, &current);
  if (!s.ok()) return s;
  if (current != DescriptorName(plan.manifest_number)) {
    Log(o_.info_log,
        "LevelDB conversion: %s holds a plan for a manifest CURRENT does "
        "not name; left alone\n",
        staging_.c_str());
    return Status::OK();
  }
  const delsm::Durability mode = ConversionDurability(o_.durability);
  s = PlaceStagedSsts(o_.fs, mode, dbname_, staging_, plan.moves);
  if (!s.ok()) return s;
  // What proves LevelDB's files may go: every SST the committed manifest
  // lists is in its level directory, found there now (durable since
  // PlaceStagedSsts). One neither staged nor placed is not there to read;
  // LevelDB's tables stay, as the only copy of what it held.
  for (const auto& move : plan.moves) {
    const std::string placed = SstDirName(dbname_, move.first, move.second);
    bool found;
    s = o_.fs->Probe(placed, &found);
    if (s.ok() && !found) {
      s = Status::Corruption(placed,
                             "an SST of the committed conversion is neither "
                             "staged nor placed; LevelDB's files are kept");
    }
    if (!s.ok()) return s;
  }
  // A file the directory's listing lacks was removed before a crash; the
  // listing fails the call if it cannot be read. A lookup of each
  // (FileExists, access(2)) answers no on any error (EIO): a table taken
  // for removed stayed, in a database whose PLAN then went, for a RepairDB
  // without CURRENT to take in with what it held, deleted since. These are
  // the Env's files (a memory Env's are not in its FileSystem, which Probe
  // asks): the Env's listing answers.
  std::vector<std::string> children;
  s = o_.env->GetChildren(dbname_, &children);
  if (!s.ok()) return s;
  const std::set<std::string> listed(children.begin(), children.end());
  // A file under a name the PLAN removes is the one it converted only if
  // it is of the identity the PLAN records. LevelDB's RepairDB numbers the
  // table it makes of a WAL past every file it finds but the manifests, so
  // it can make one under the name of a table removed here before a crash:
  // the only copy of what the WAL held. Such a file is left in place; with
  // the PLAN gone, a table beside DeLSM's manifest has the directory judged
  // rewritten by LevelDB's RepairDB (Open refuses it, RepairDB takes the
  // table in). A PLAN of the previous format records no identity: what it
  // names goes to lost/, not removed on its name alone.
  size_t removed = 0, kept = 0, to_lost = 0;
  for (const PlannedFile& file : plan.removals) {
    bool planned;
    s = IsPlannedFile(o_.env, dbname_, listed, file, &planned);
    if (!s.ok()) return s;
    if (!planned) {
      if (listed.count(file.name) > 0) {
        kept++;
        Log(o_.info_log,
            "LevelDB conversion: %s is not the file the PLAN removes (another "
            "size or checksum); left in place\n",
            file.name.c_str());
      }
      continue;  // removed already, or not the PLAN's
    }
    if (plan.identified) {
      s = o_.env->RemoveFile(dbname_ + "/" + file.name);
      removed++;
    } else {
      s = MoveToLost(o_.env, o_.fs, dbname_, file.name, "");
      to_lost++;
    }
    if (!s.ok()) return s;
  }
  if (to_lost > 0) {
    s = MakeDirectoriesDurable(o_.fs, mode, {dbname_ + "/lost", dbname_});
    if (!s.ok()) return s;
  }
  s = RemoveFinishedStaging(o_.env, o_.fs, mode, dbname_, staging_);
  if (s.ok()) {
    Log(o_.info_log,
        "LevelDB conversion: done; %zu SSTs placed, %zu LevelDB files "
        "removed, %zu moved to lost/, %zu left in place\n",
        plan.moves.size(), removed, to_lost, kept);
  }
  return s;
}

// A committed conversion's Finish removes PLAN and then the staging
// directory, so a kill between the two leaves the directory, empty,
// without a plan. What proves it holds nothing of the database: CURRENT
// names a DeLSM manifest, read whole, and the directory holds only SST
// directories that manifest does not list (none, after a Finish; the
// conversion's moves all precede the PLAN's removal), so no live SST is
// there. Without that proof (CURRENT malformed or not naming a whole
// DeLSM manifest, a listed SST staged, a name that is not an SST
// directory) the directory is left as it is and logged; an error reading
// CURRENT or the manifest (other than damage or absence) or listing the
// directory fails the call.
Status Converter::RemoveLeftoverStaging() {
  std::string current;
  std::set<uint64_t> live;
  std::vector<std::string> children;
  Status s = o_.fs->ListDirectory(staging_, &children);
  if (!s.ok()) return s;
  s = ReadCurrent(o_.env, dbname_, &current);
  if (!s.ok() && !s.IsCorruption()) return s;  // the open reports it
  if (s.ok()) {
    s = ReadLiveSsts(o_.env, dbname_ + "/" + current, &live);
    // A read that failed (EIO, EMFILE) judges nothing.
    if (!s.ok() && !s.IsCorruption() && !s.IsNotFound()) return s;
  }
  for (size_t i = 0; s.ok() && i < children.size(); i++) {
    uint64_t number;
    if (!ParseSstDirName(children[i], &number)) {
      s = Status::NotSupported(staging_ + "/" + children[i],
                               "not a staged SST directory");
    } else if (live.count(number) > 0) {
      s = Status::NotSupported(staging_ + "/" + children[i],
                               "an SST " + current + " lists");
    }
  }
  if (!s.ok()) {
    Log(o_.info_log, "LevelDB conversion: %s has no plan; left alone (%s)\n",
        staging_.c_str(), s.ToString().c_str());
    return Status::OK();
  }
  for (const std::string& child : children) {
    s = RemoveSstDirectory(o_.fs, staging_ + "/" + child, nullptr);
    if (!s.ok()) return s;
  }
  s = o_.fs->RemoveDir(staging_);
  if (s.ok()) {
    s = MakeDirectoriesDurable(o_.fs, ConversionDurability(o_.durability),
                               {dbname_});
  }
  if (s.ok()) {
    Log(o_.info_log,
        "LevelDB conversion: removed %s, left by a committed conversion "
        "(%zu unlisted SST directories in it; %s lists none of them)\n",
        staging_.c_str(), children.size(), current.c_str());
  }
  return s;
}

// Whether `s`, from reading `path`, says the file is absent (NotFound, and
// no longer there) or damaged: then it rules the database out of the
// conversion; any other failure leaves that unknown.
bool AbsentOrDamaged(Env* env, const std::string& path, const Status& s) {
  return s.IsCorruption() || (s.IsNotFound() && !env->FileExists(path));
}

}  // namespace

Status LevelDbConvertible(Env* env, const std::string& dbname,
                          const Comparator* comparator, bool* convertible,
                          std::string* why) {
  *convertible = false;
  std::string manifest;
  Status s = ReadCurrent(env, dbname, &manifest);
  if (!s.ok()) {
    if (!AbsentOrDamaged(env, CurrentFileName(dbname), s)) return s;
    *why = "no CURRENT file naming its manifest (" + s.ToString() +
           "); repair it with LevelDB's RepairDB first";
    return Status::OK();
  }
  LevelDbState state;
  s = ReadLevelDbManifest(env, dbname + "/" + manifest, &state);
  if (!s.ok()) {
    if (!AbsentOrDamaged(env, dbname + "/" + manifest, s)) return s;
    *why = "its manifest is not readable as LevelDB's (" + s.ToString() + ")";
    return Status::OK();
  }
  if (!state.comparator.empty() && state.comparator != comparator->Name()) {
    *why = "it was written with comparator '" + state.comparator +
           "' and is opened with '" + comparator->Name() + "'";
    return Status::OK();
  }
  // A table is there if the directory's listing holds it: a lookup of it
  // (FileExists, access(2)) answers no on any error (EIO), and a table whose
  // inode cannot be read would be called missing where the disk failed (the
  // conversion reports that error). A listing that fails says nothing of
  // the tables.
  std::vector<std::string> children;
  s = env->GetChildren(dbname, &children);
  if (!s.ok()) return s;
  const std::set<std::string> listed(children.begin(), children.end());
  for (const LevelDbTableInfo& table : state.tables) {
    const std::string ldb =
        LevelDbTableFileName("", table.number, false).substr(1);
    const std::string sst =
        LevelDbTableFileName("", table.number, true).substr(1);
    if (listed.count(ldb) == 0 && listed.count(sst) == 0) {
      *why = "table " + ldb + " listed in " + manifest + " is missing";
      return Status::OK();
    }
  }
  *convertible = true;
  return Status::OK();
}

namespace conversion_internal {

Status FinishConversion(const LevelDbConversionOptions& options,
                        const std::string& dbname) {
  return Converter(options, dbname).Finish();
}

}  // namespace conversion_internal

Status ConvertLevelDbIfPresent(const LevelDbConversionOptions& options,
                               const std::string& dbname) {
  Converter converter(options, dbname);
  DatabaseFormat format;
  std::string evidence;
  Status s = DetectDatabaseFormat(options.env, dbname, &format, &evidence);
  if (!s.ok()) return s;
  if (format == DatabaseFormat::kRewrittenByLevelDb) {
    return RewrittenByLevelDbError(dbname, evidence, "DB::Open");
  }
  if (format == DatabaseFormat::kLevelDb) {
    std::string manifest;
    s = ReadCurrent(options.env, dbname, &manifest);
    if (!s.ok()) return s;
    return converter.Convert(manifest);
  }
  // Read through its PLAN whatever a lookup of the directory says
  // (ReadStagingState): access(2) answers no on any error (EIO), and a
  // committed conversion taken for none would leave its SSTs staged, the
  // manifest CURRENT names missing them.
  StagingState staging;
  s = ReadStagingState(options.env, dbname, &staging);
  if (!s.ok()) return s;
  if (staging != StagingState::kAbsent) return converter.Finish();
  return Status::OK();
}

}  // namespace leveldb
